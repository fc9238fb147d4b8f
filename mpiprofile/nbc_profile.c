/* nbc-profile: what scripts need to know of the MPI library profiles, from
 * the same files and the same code as bench_nbc (no MPI in here).
 *
 *   nbc-profile [--profiles DIR] list
 *   nbc-profile [--profiles DIR] identify [TEXT]
 *   nbc-profile [--profiles DIR] identify-macros [FILE]
 *   nbc-profile [--profiles DIR] build BUILD_DIR
 *   nbc-profile [--profiles DIR] shell (NAME | --build BUILD_DIR)
 *   nbc-profile [--profiles DIR] env (NAME VERSION | --build BUILD_DIR)
 *                                    [--deployment D] [--collective C]
 *   nbc-profile [--profiles DIR] launch (NAME | --build BUILD_DIR) PLACEMENT...
 *   nbc-profile [--profiles DIR] plan (NAME | --build BUILD_DIR) [--deployment D]
 *                                     [--cores N] [--set section.key=value]...
 *   nbc-profile deployments
 *
 * `usage` below says what each prints. Exit status: 0, 1 when a build
 * folder or an input cannot be read, 2 bad input (an unknown command or
 * profile, a malformed profile file: one message naming what is allowed). */
#include "config/config.h"
#include "cli/cli.h"
#include "deploy/plan.h"
#include "mpiprofile/mpiprofile.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>
#include <json-c/json.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The file make writes into every build folder (Makefile, "MPI"). */
#define BUILD_FILE "mpi-build.ini"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: nbc-profile [--profiles DIR] COMMAND ...\n"
            "  list                       every profile: name and display name, one a line\n"
            "  identify [TEXT]            \"NAME VERSION\" of an MPI_Get_library_version text\n"
            "                             (TEXT, else standard input)\n"
            "  identify-macros [FILE]     the same from the macros of mpi.h (`mpicc -dM -E`\n"
            "                             output in FILE, else standard input)\n"
            "  build BUILD_DIR            the profile of a build folder (its %s)\n"
            "  shell NAME|--build DIR     the profile's fields as bash assignments, for nbc-run\n"
            "  env NAME VERSION|--build DIR [--deployment D] [--collective C]\n"
            "                             NAME=VALUE settings bench_nbc applies before MPI_Init\n"
            "  launch NAME|--build DIR --processes N [--mode local|hosts|slurm]\n"
            "         [--per-node N] [--nodes N] [--threads N] [--cores-here N] [--as-root]\n"
            "         [--hosts H1,H2] [--rsh CMD] [--command MPIEXEC] [--srun]\n"
            "         [--cpus-per-task N] [--not-mpi] [--quoted]\n"
            "                             the launcher's words that start N processes placed\n"
            "                             so (the program follows them), one a line; --quoted:\n"
            "                             one line as a shell reads it. --threads: computing\n"
            "                             threads per process (0: unknown); --cores-here: the\n"
            "                             cores of this machine (0: unknown); --command: the\n"
            "                             launcher (default: the build's, else the profile's);\n"
            "                             --not-mpi: srun starts no MPI program\n"
            "  plan NAME|--build DIR [--deployment D] [--cores N] [--set section.key=value]...\n"
            "                             the deployment plan of one rank of N cores (as\n"
            "                             bench_nbc --plan, JSON; 0 or none: not known here,\n"
            "                             bench_nbc judges the cores on the node); status 2:\n"
            "                             refused (\"refusal\" says why)\n"
            "  deployments                the deployments' table (deploy/deployments.def), JSON\n"
            "--profiles DIR: where the profiles are (default: $BENCH_NBC_PROFILES, the\n"
            "installed copy, the source tree's configs/mpi). docs/mpi-profiles.md: the keys.\n"
            "--version: the version and revision; --help: this text\n",
            BUILD_FILE);
    cli_print_exit_statuses(out);
}

static int bad_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_input(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nbc-profile: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 2;
}

/* ---- shell output ---------------------------------------------------------- */

/* A word as bash reads it back (mpiprofile_shell_word); a failed write
 * shows in stdout's error flag, checked at exit. */
static void put_word(const char *word)
{
    (void)mpiprofile_shell_word(stdout, word);
}

static void put_scalar(const char *name, const char *value)
{
    printf("%s=", name);
    put_word(value ? value : "");
    putchar('\n');
}

static void put_array(const char *name, const mpiprofile_list *list)
{
    printf("%s=(", name);
    for (size_t i = 0; i < list->count; i++) {
        if (i)
            putchar(' ');
        put_word(list->items[i]);
    }
    printf(")\n");
}

/* ---- a build folder ---------------------------------------------------------- */

typedef struct {
    char profile[64], version[64], mpiexec[PATH_MAX], identified_by[64];
} build_info;

static int on_build_key(void *user, const char *section, const char *name, const char *value)
{
    build_info *b = user;
    static const struct {
        const char *name;
        size_t offset, size;
    } fields[] = {
        {"profile", offsetof(build_info, profile), sizeof b->profile},
        {"version", offsetof(build_info, version), sizeof b->version},
        {"mpiexec", offsetof(build_info, mpiexec), sizeof b->mpiexec},
        {"identified_by", offsetof(build_info, identified_by), sizeof b->identified_by},
    };
    if (strcmp(section, "build") != 0)
        return 1;
    for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
        if (strcmp(name, fields[i].name) == 0)
            snprintf((char *)b + fields[i].offset, fields[i].size, "%s", value);
    return 1;
}

/* The build folder's file, or the installed copy's (PREFIX/bin ->
 * PREFIX/share/bench_nbc). */
static int read_build(const char *dir, build_info *b)
{
    char path[PATH_MAX + 64];
    const char *const places[] = {"%s/" BUILD_FILE, "%s/../share/bench_nbc/" BUILD_FILE};
    *b = (build_info){0};
    for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
        snprintf(path, sizeof path, places[i], dir);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (ini_parse(path, on_build_key, b) != 0 || !b->profile[0]) {
            fprintf(stderr, "nbc-profile: %s: not a build description (no [build] profile)\n",
                    path);
            return 1;
        }
        return 0;
    }
    fprintf(stderr,
            "nbc-profile: %s is not a build folder of bench_nbc (no %s: `make` writes it)\n", dir,
            BUILD_FILE);
    return 1;
}

/* ---- commands ------------------------------------------------------------------ */

/* Standard input or a file, whole. */
static char *read_all(const char *path)
{
    FILE *f = path ? fopen(path, "r") : stdin;
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *grown = realloc(text, cap *= 2);
            if (!grown)
                free(text);
            text = grown;
        }
    }
    if (text)
        text[len] = '\0';
    if (path)
        fclose(f);
    return text;
}

static void print_shell(const mpiprofile *p, const build_info *build, const char *build_dir)
{
    put_scalar("mpi_profile", p->name);
    put_scalar("mpi_label", p->display_name);
    put_scalar("mpi_profile_file", p->path);
    if (build) {
        put_scalar("mpi_version", build->version);
        put_scalar("build_dir", build_dir);
    }
    /* The build's launcher (make's MPIEXEC), else the profile's. */
    put_scalar("mpi_launcher", build && build->mpiexec[0] ? build->mpiexec : p->launcher.command);
    put_array("launch_flags", &p->launcher.flags);
    put_array("root_flags", &p->launcher.as_root);
    put_array("oversubscribe_flags", &p->launcher.oversubscribe);
    put_array("nobind_flags", &p->launcher.no_bind);
    put_array("hosts_flag", &p->launcher.hosts);
    put_array("per_node_flags", &p->launcher.per_node);
    put_array("rsh_flags", &p->launcher.rsh);
    put_scalar("srun_mpi", p->launcher.srun_mpi ? p->launcher.srun_mpi : "pmi2");
    put_scalar("busy_polls", p->busy_polls ? "1" : "0");
    /* unsupported_<deployment>: why the library cannot run it, empty when it can. */
    for (int d = NBC_DEPLOYMENT_BASIC; d < NBC_DEPLOYMENT_COUNT; d++) {
        const char *name = nbc_deployment_name((nbc_deployment)d);
        const mpiprofile_deployment *dep =
            mpiprofile_deployment_find(p, nbc_deployment_profile_key((nbc_deployment)d));
        char var[64];
        snprintf(var, sizeof var, "unsupported_%s", name);
        put_scalar(var, dep && dep->unsupported ? dep->unsupported : "");
    }
}

static void print_env(const mpiprofile *p, const char *version, const char *deployment,
                      const char *collective)
{
    /* The deployment's name read as its profile key (the section it reads). */
    const char *key = deployment;
    for (int d = NBC_DEPLOYMENT_BASIC; deployment && d < NBC_DEPLOYMENT_COUNT; d++)
        if (strcmp(deployment, nbc_deployment_name((nbc_deployment)d)) == 0)
            key = nbc_deployment_profile_key((nbc_deployment)d);
    const mpiprofile_deployment *dep = key ? mpiprofile_deployment_find(p, key) : NULL;
    for (size_t i = 0; dep && i < dep->env.count; i++)
        printf("%s\n", dep->env.items[i]);
    for (size_t i = 0; collective && i < p->workaround_count; i++)
        if (mpiprofile_workaround_applies(&p->workarounds[i], version, collective))
            for (size_t j = 0; j < p->workarounds[i].env.count; j++)
                printf("%s\n", p->workarounds[i].env.items[j]);
}

/* ---- launch: the placement's options ---------------------------------------- */

typedef struct {
    mpiprofile_placement pl;
    const char *mode;
    bool quoted;
} launch_request;

/* The options of `launch`, one row each: an integer, a text or a flag of
 * the request. getopt_long returns OPT_LAUNCH + the row. */
enum { OPT_LAUNCH = 256 };
typedef enum { LAUNCH_INT, LAUNCH_TEXT, LAUNCH_FLAG } launch_kind;
static const struct {
    const char *name;
    launch_kind kind;
    size_t offset;
} launch_options[] = {
    {"processes", LAUNCH_INT, offsetof(launch_request, pl.processes)},
    {"per-node", LAUNCH_INT, offsetof(launch_request, pl.per_node)},
    {"nodes", LAUNCH_INT, offsetof(launch_request, pl.nodes)},
    {"threads", LAUNCH_INT, offsetof(launch_request, pl.threads)},
    {"cores-here", LAUNCH_INT, offsetof(launch_request, pl.cores_here)},
    {"mode", LAUNCH_TEXT, offsetof(launch_request, mode)},
    {"hosts", LAUNCH_TEXT, offsetof(launch_request, pl.hosts)},
    {"rsh", LAUNCH_TEXT, offsetof(launch_request, pl.rsh)},
    {"command", LAUNCH_TEXT, offsetof(launch_request, pl.command)},
    {"cpus-per-task", LAUNCH_TEXT, offsetof(launch_request, pl.cpus_per_task)},
    {"as-root", LAUNCH_FLAG, offsetof(launch_request, pl.as_root)},
    {"srun", LAUNCH_FLAG, offsetof(launch_request, pl.srun)},
    {"not-mpi", LAUNCH_FLAG, offsetof(launch_request, pl.not_mpi)},
    {"quoted", LAUNCH_FLAG, offsetof(launch_request, quoted)},
};

/* One launch option's value into the request: 0, or 2 (bad input). */
static int set_launch_option(launch_request *r, size_t row, const char *value)
{
    void *field = (char *)r + launch_options[row].offset;
    char *end;
    long n;
    switch (launch_options[row].kind) {
    case LAUNCH_INT:
        errno = 0;
        n = strtol(value, &end, 10);
        if (errno || end == value || *end || n < 0 || n > INT_MAX)
            return bad_input("--%s: '%s' is not an integer >= 0", launch_options[row].name, value);
        *(int *)field = (int)n;
        return 0;
    case LAUNCH_TEXT:
        *(const char **)field = value;
        return 0;
    case LAUNCH_FLAG:
        *(bool *)field = true;
        return 0;
    }
    return 2;
}

/* The launch command of a profile: 0 or an exit status. */
static int print_launch(const mpiprofile *p, const build_info *build, launch_request *r)
{
    if (mpiprofile_launch_mode_parse(r->mode ? r->mode : "local", &r->pl.mode) != 0)
        return bad_input("--mode: unknown value '%s' (allowed: local, hosts, slurm)", r->mode);
    if (!r->pl.command && build && build->mpiexec[0])
        r->pl.command = build->mpiexec;
    mpiprofile_list words;
    char err[256];
    if (mpiprofile_launch_command(p, &r->pl, &words, err, sizeof err) != 0)
        return bad_input("%s", err);
    for (size_t i = 0; i < words.count; i++) {
        if (r->quoted) {
            if (i)
                putchar(' ');
            put_word(words.items[i]);
        } else {
            printf("%s\n", words.items[i]);
        }
    }
    if (r->quoted)
        putchar('\n');
    mpiprofile_list_free(&words);
    return 0;
}

static int load(mpiprofile_set *set, const char *dir)
{
    const char *names[NBC_DEPLOYMENT_COUNT];
    for (int d = NBC_DEPLOYMENT_BASIC; d < NBC_DEPLOYMENT_COUNT; d++)
        names[d] = nbc_deployment_profile_key((nbc_deployment)d);
    char buf[PATH_MAX], err[1024];
    if (!dir)
        dir = mpiprofile_default_dir(buf, sizeof buf);
    if (mpiprofile_load_dir(set, dir, names, ARRAY_SIZE(names), err, sizeof err) != 0) {
        fprintf(stderr, "nbc-profile: %s\n", err);
        return 2; /* a malformed profile is bad input */
    }
    return 0;
}

/* ---- plan ------------------------------------------------------------------ */

/* plan: the deployment plan (deploy/plan.h) of the library for a rank of
 * cores cores (0: not known here: as many as a rank may have, the cores'
 * rules left to bench_nbc on the node), the configuration's defaults and
 * the --set assignments, in this environment: what nbc-run asks of a
 * library x deployment before it starts anything. */
static int print_plan(const mpiprofile *p, const char *version, const char *deployment, int cores,
                      const char *const *sets, int set_count)
{
    const char *assignments[set_count + 1];
    char chosen[128];
    int count = 0;
    if (deployment) {
        snprintf(chosen, sizeof chosen, "run.deployment=%s", deployment);
        assignments[count++] = chosen;
    }
    for (int i = 0; i < set_count; i++)
        assignments[count++] = sets[i];
    nbc_config cfg;
    char err[1024];
    if (nbc_config_load(&cfg, NULL, NULL, assignments, count, err, sizeof err) != 0) {
        nbc_config_free(&cfg);
        return bad_input("%s", err);
    }
    static int cpus[COMPUTE_MAX_CPUS];
    int n = cores > 0 ? cores : COMPUTE_MAX_CPUS;
    for (int i = 0; i < n; i++)
        cpus[i] = i;
    char source[160];
    snprintf(source, sizeof source,
             cores > 0 ? "given: a rank of %d cores"
                       : "not known here: a rank of %d cores assumed (bench_nbc plans again "
                         "with the node's)",
             n);
    extern char **environ;
    deploy_input in = {.cfg = &cfg,
                       .profile = p,
                       .version = version,
                       .cpus = cpus,
                       .cpu_count = n,
                       .placement_source = source,
                       .machine_cpus = n,
                       .environment = (const char *const *)environ};
    deploy_plan plan;
    int refused = deploy_plan_make(&in, &plan) != 0;
    json_object *o = deploy_plan_json(&plan, &in);
    int status = o ? refused ? 2 : 0 : 1;
    if (o)
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
    else
        fprintf(stderr, "nbc-profile: out of memory\n");
    json_object_put(o);
    deploy_plan_free(&plan);
    nbc_config_free(&cfg);
    return status;
}

static int print_deployments(void)
{
    json_object *o = deploy_table_json();
    if (!o) {
        fprintf(stderr, "nbc-profile: out of memory\n");
        return 1;
    }
    puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
    json_object_put(o);
    return 0;
}

/* The profile named NAME, or the one of --build: 0, or an exit status. */
static int choose(const mpiprofile_set *set, const char *name, const char *build_dir,
                  build_info *build, const mpiprofile **p)
{
    if (build_dir) {
        if (read_build(build_dir, build) != 0)
            return 1;
        name = build->profile;
    }
    if (!name)
        return bad_input("give a profile NAME or --build BUILD_DIR");
    *p = mpiprofile_find(set, name);
    if (!*p) {
        fprintf(stderr, "nbc-profile: no profile '%s' in %s (profiles:", name, set->dir);
        for (size_t i = 0; i < set->count; i++)
            fprintf(stderr, " %s", set->profiles[i].name);
        fprintf(stderr, " %s)\n", MPIPROFILE_GENERIC);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option fixed[] = {
        {"profiles", required_argument, NULL, 'p'},   {"build", required_argument, NULL, 'b'},
        {"deployment", required_argument, NULL, 'd'}, {"collective", required_argument, NULL, 'c'},
        {"version", no_argument, NULL, 'V'},          {"help", no_argument, NULL, 'h'},
        {"cores", required_argument, NULL, 'n'},      {"set", required_argument, NULL, 's'},
    };
    struct option longopts[ARRAY_SIZE(fixed) + ARRAY_SIZE(launch_options) + 1];
    memcpy(longopts, fixed, sizeof fixed);
    for (size_t i = 0; i < ARRAY_SIZE(launch_options); i++)
        longopts[ARRAY_SIZE(fixed) + i] =
            (struct option){launch_options[i].name,
                            launch_options[i].kind == LAUNCH_FLAG ? no_argument : required_argument,
                            NULL, OPT_LAUNCH + (int)i};
    longopts[ARRAY_SIZE(longopts) - 1] = (struct option){0};
    const char *dir = NULL, *build_dir = NULL, *deployment = NULL, *collective = NULL;
    launch_request launch = {0};
    int cores = 0, set_count = 0;
    enum { MOST_SETS = 256 }; /* on the stack: every early return frees it */
    const char *sets[MOST_SETS];
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        if (opt >= OPT_LAUNCH && opt < OPT_LAUNCH + (int)ARRAY_SIZE(launch_options)) {
            int rc = set_launch_option(&launch, (size_t)(opt - OPT_LAUNCH), optarg);
            if (rc != 0)
                return rc;
            continue;
        }
        switch (opt) {
        case 'p':
            dir = optarg;
            break;
        case 'b':
            build_dir = optarg;
            break;
        case 'd':
            deployment = optarg;
            break;
        case 'c':
            collective = optarg;
            break;
        case 'n': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || n < 0 || n > COMPUTE_MAX_CPUS)
                return bad_input("--cores: '%s' is not a core count (allowed: 0 = not known, "
                                 "1 to %d)",
                                 optarg, COMPUTE_MAX_CPUS);
            cores = (int)n;
            break;
        }
        case 's':
            if (set_count == MOST_SETS)
                return bad_input("--set: at most %d of them", MOST_SETS);
            sets[set_count++] = optarg;
            break;
        case 'h':
            usage(stdout);
            return CLI_EXIT_COMPLETE;
        case 'V':
            cli_print_version(stdout, "nbc-profile");
            return CLI_EXIT_COMPLETE;
        case ':':
            return bad_input("option %s needs a value; see --help", argv[optind - 1]);
        default:
            return bad_input("unknown option %s (allowed: --profiles, --build, --deployment, "
                             "--collective, --cores, --set, --version, --help; launch: see "
                             "--help)",
                             argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    const char *command = argv[optind];
    char **args = argv + optind + 1;
    int nargs = argc - optind - 1;
    static const char *const commands[] = {"list",   "identify", "identify-macros",
                                           "build",  "shell",    "env",
                                           "launch", "plan",     "deployments"};
    size_t which = 0;
    while (which < ARRAY_SIZE(commands) && strcmp(command, commands[which]) != 0)
        which++;
    if (which == ARRAY_SIZE(commands))
        return bad_input("unknown command '%s' (allowed: list, identify, identify-macros, build, "
                         "shell, env, launch, plan, deployments)",
                         command);
    int max_args[] = {0, 1, 1, 1, 1, 2, 1, 1, 0};
    if (nargs > max_args[which])
        return bad_input("too many arguments for %s; see --help", command);

    mpiprofile_set set;
    int status = load(&set, dir);
    const mpiprofile *p = NULL;
    build_info build;
    char version[128], *text;
    if (status != 0) {
        mpiprofile_set_free(&set);
        return status;
    }
    switch (which) {
    case 0: /* list */
        for (size_t i = 0; i < set.count; i++)
            printf("%s\t%s\n", set.profiles[i].name, set.profiles[i].display_name);
        break;
    case 1: /* identify */
    case 2: /* identify-macros */
        text = which == 1 && nargs == 1 ? strdup(args[0]) : read_all(nargs == 1 ? args[0] : NULL);
        if (!text) {
            fprintf(stderr, "nbc-profile: cannot read %s\n", nargs == 1 ? args[0] : "stdin");
            status = 1;
            break;
        }
        p = which == 1 ? mpiprofile_identify(&set, text, version, sizeof version)
                       : mpiprofile_identify_macros(&set, text, version, sizeof version);
        printf("%s %s\n", p->name, version);
        free(text);
        break;
    case 3: /* build */
        status = nargs == 1 ? choose(&set, NULL, args[0], &build, &p)
                            : bad_input("build needs BUILD_DIR");
        if (status == 0)
            printf("%s\n", p->name);
        break;
    case 4: /* shell */
        status = choose(&set, nargs == 1 ? args[0] : NULL, build_dir, &build, &p);
        if (status == 0)
            print_shell(p, build_dir ? &build : NULL, build_dir);
        break;
    case 5: /* env */
        status = choose(&set, nargs >= 1 ? args[0] : NULL, build_dir, &build, &p);
        if (status == 0 && !build_dir && nargs != 2)
            status = bad_input("env needs NAME VERSION or --build BUILD_DIR");
        if (status == 0)
            print_env(p, build_dir ? build.version : args[1], deployment, collective);
        break;
    case 6: /* launch */
        status = choose(&set, nargs == 1 ? args[0] : NULL, build_dir, &build, &p);
        if (status == 0)
            status = print_launch(p, build_dir ? &build : NULL, &launch);
        break;
    case 7: /* plan */
        status = choose(&set, nargs == 1 ? args[0] : NULL, build_dir, &build, &p);
        if (status == 0)
            status = print_plan(p, build_dir ? build.version : "(version not known here)",
                                deployment, cores, sets, set_count);
        break;
    case 8: /* deployments */
        status = print_deployments();
        break;
    }
    mpiprofile_set_free(&set);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nbc-profile: cannot write the standard output\n");
        status = status ? status : 1;
    }
    return status;
}
