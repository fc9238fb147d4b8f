/* bench_nbc --replay CELL RUN_DIR: one cell of a finished or cut run
 * measured again, for a bug report. The new run folder takes RUN_DIR's
 * config.ini (seed included) and calibrations (the cell's message and
 * matrix sizes are the recorded ones, nothing is calibrated again), clock
 * sync and the passive step run as usual, and only the cell is measured
 * (a mask of cells marked done). RUN_DIR is only read. The standalone
 * command that does the same again is printed and written to replay.sh. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"

#include <errno.h>
#include <ini.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The only --set a replay takes: where its new folder goes. */
static const char *const replay_settable[] = {"run.results_dir"};

/* Files of RUN_DIR the new folder starts from (the sizes of every target). */
static const char *const seeded_files[] = {"calib_comp.csv", "calib_comm.csv"};

int nbc_replay_cli(nbc_replay *r, int argc, char **argv, int *next, bool has_config,
                   const char *const *sets, int set_count, char *err, size_t errlen)
{
    if (*next >= argc) {
        snprintf(err, errlen, "--replay CELL RUN_DIR: RUN_DIR is missing");
        return 2;
    }
    r->run_dir = argv[(*next)++];
    if (has_config) {
        snprintf(err, errlen,
                 "--replay takes its configuration from RUN_DIR: it cannot be combined with "
                 "--config or --resume");
        return 2;
    }
    for (int i = 0; i < set_count; i++) {
        bool allowed = false;
        for (size_t k = 0; k < sizeof replay_settable / sizeof *replay_settable; k++) {
            size_t n = strlen(replay_settable[k]);
            allowed |= strncmp(sets[i], replay_settable[k], n) == 0 && sets[i][n] == '=';
        }
        if (!allowed) {
            snprintf(err, errlen,
                     "--replay: --set %s: a replay measures with RUN_DIR's configuration "
                     "(allowed: --set run.results_dir=DIR)",
                     sets[i]);
            return 2;
        }
    }
    r->sets = sets;
    r->set_count = set_count;
    char *end;
    errno = 0;
    r->cell = strtol(r->cell_text, &end, 10);
    if (errno || end == r->cell_text || *end != '\0' || r->cell < 0) {
        snprintf(err, errlen,
                 "--replay: cell '%s' is not a cell number (allowed: the cell column of "
                 "cells.csv, 0 .. cells - 1)",
                 r->cell_text);
        return 2;
    }
    if (snprintf(r->config_path, sizeof r->config_path, "%s/config.ini", r->run_dir) >=
        (int)sizeof r->config_path) {
        snprintf(err, errlen, "--replay: RUN_DIR path too long");
        return 2;
    }
    return 0;
}

/* Variables of meta.json's `environment` that the launcher sets for each
 * rank (the profile's [launcher] sets_env_prefixes): not the user's choice,
 * neither compared nor put in the command. */
static bool is_launcher_variable(const char *name)
{
    const mpiprofile_list *prefixes = &nbc_library_profile()->launcher.sets_env_prefixes;
    for (size_t i = 0; i < prefixes->count; i++)
        if (strncmp(name, prefixes->items[i], strlen(prefixes->items[i])) == 0)
            return true;
    return false;
}

/* Whether bench_nbc sets the variable itself (meta.json mpi_library.settings,
 * applied): the replay sets it again from the same configuration. */
static bool applied_by_bench_nbc(json_object *meta, const char *name)
{
    json_object *lib, *settings;
    if (!json_object_object_get_ex(meta, "mpi_library", &lib) ||
        !json_object_object_get_ex(lib, "settings", &settings))
        return false;
    for (size_t i = 0; i < json_object_array_length(settings); i++) {
        json_object *s = json_object_array_get_idx(settings, i), *v, *applied;
        if (json_object_object_get_ex(s, "variable", &v) &&
            strcmp(json_object_get_string(v), name) == 0 &&
            json_object_object_get_ex(s, "applied", &applied) && json_object_get_boolean(applied))
            return true;
    }
    return false;
}

/* The variables a replay must have: meta.json's environment without the
 * launcher's and bench_nbc's own. */
static bool user_variable(json_object *meta, const char *name)
{
    return !is_launcher_variable(name) && !applied_by_bench_nbc(meta, name);
}

static const char *string_key(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* Appends a difference (a warning) to `list` and prints it. */
static void differs(json_object *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void differs(json_object *list, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "bench_nbc: warning: --replay: %s\n", text);
    json_object_array_add(list, json_object_new_string(text));
}

/* The environment recorded against this process's: a variable changed,
 * missing or new (those the user chooses only). */
static void compare_environment(json_object *meta, json_object *list)
{
    json_object *recorded = NULL, *now = nbc_meta_environment_json();
    json_object_object_get_ex(meta, "environment", &recorded);
    json_object_object_foreach(recorded, name, value)
    {
        if (!user_variable(meta, name))
            continue;
        const char *current = string_key(now, name);
        if (!current)
            differs(list, "%s=%s was set in the recorded run, not here", name,
                    json_object_get_string(value));
        else if (strcmp(current, json_object_get_string(value)) != 0)
            differs(list, "%s is %s here, %s in the recorded run", name, current,
                    json_object_get_string(value));
    }
    json_object_object_foreach(now, name2, value2)
    {
        if (user_variable(meta, name2) && !string_key(recorded, name2))
            differs(list, "%s=%s is set here, not in the recorded run", name2,
                    json_object_get_string(value2));
    }
    json_object_put(now);
}

/* Rank 0: RUN_DIR against this job; 0, or -1 with the reason the replay
 * would be meaningless. */
static int check_run_dir(nbc_replay *r, const nbc_config *cfg, int ranks, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    if (!realpath(r->run_dir, r->run_dir_abs)) {
        snprintf(err, errlen, "--replay: RUN_DIR %s: %s", r->run_dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/meta.json", r->run_dir_abs);
    json_object *meta = json_object_from_file(path);
    if (!meta) {
        snprintf(err, errlen, "--replay: %s is missing or not JSON: not a run folder of bench_nbc",
                 path);
        return -1;
    }
    json_object *v;
    int meta_ranks = json_object_object_get_ex(meta, "ranks", &v) ? json_object_get_int(v) : -1;
    const char *mpi = string_key(meta, "mpi");
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    int status = -1;
    nbc_resume calib = {0};
    if (meta_ranks != ranks || !mpi || strcmp(mpi, nbc_compiled_mpi()) != 0) {
        snprintf(err, errlen,
                 "--replay: %s ran on %d ranks with %s; replay it the same way (this is %d "
                 "ranks with %s)",
                 r->run_dir, meta_ranks, mpi ? mpi : "?", ranks, nbc_compiled_mpi());
    } else if ((size_t)r->cell >= cells) {
        snprintf(err, errlen,
                 "--replay: cell %ld: %s has cells 0 .. %zu (the cell column of "
                 "cells.csv)",
                 r->cell, r->run_dir, cells - 1);
    } else if (nbc_resume_read_calibrations(r->run_dir_abs, cfg, &calib, err, errlen) != 0) {
        /* err says why */
    } else if (calib.comp_done < cfg->grid.comp_count ||
               calib.comm_done < nbc_comm_axis_count(cfg)) {
        snprintf(err, errlen,
                 "--replay: %s stopped before its calibration ended (%zu of %zu computation, "
                 "%zu of %zu message sizes): no cell to replay",
                 r->run_dir, calib.comp_done, cfg->grid.comp_count, calib.comm_done,
                 nbc_comm_axis_count(cfg));
    } else {
        const nbc_collective *coll = nbc_collective_find(cfg->run.collective);
        nbc_sweep_plan plan = {.comm = calib.comm,
                               .comm_count = nbc_comm_axis_count(cfg),
                               .comp = calib.comp,
                               .comp_count = cfg->grid.comp_count,
                               .sizable = coll && coll->sizable};
        if (!nbc_cell_reachable(&plan, (size_t)r->cell)) {
            snprintf(err, errlen,
                     "--replay: cell %ld of %s was never measured: calibration did not reach "
                     "its targets there",
                     r->cell, r->run_dir);
        } else {
            status = 0;
            const nbc_comm_calibration *comm = &calib.comm[(size_t)r->cell / plan.comp_count];
            const compute_calib_result *comp = &calib.comp[(size_t)r->cell % plan.comp_count];
            json_object *of = json_object_new_object(), *list = json_object_new_array();
            json_object_object_add(of, "run_dir", json_object_new_string(r->run_dir_abs));
            json_object_object_add(of, "cell", json_object_new_int64(r->cell));
            json_object_object_add(of, "comm_target_s", json_object_new_double(comm->target_s));
            json_object_object_add(of, "comp_target_s", json_object_new_double(comp->target_s));
            json_object_object_add(of, "bytes", json_object_new_int64((int64_t)comm->bytes));
            json_object_object_add(of, "matrix_n", json_object_new_int64((int64_t)comp->matrix_n));
            json_object *lib = NULL;
            json_object_object_get_ex(meta, "mpi_library", &lib);
            const char *version = string_key(lib, "version");
            if (version && strcmp(version, nbc_library_version()) != 0)
                differs(list, "%s %s here, %s in the recorded run", mpi, nbc_library_version(),
                        version);
            compare_environment(meta, list);
            json_object_object_add(of, "differences", list);
            r->of = of;
        }
    }
    nbc_resume_free(&calib);
    json_object_put(meta);
    return status;
}

void nbc_replay_check(nbc_replay *r, const nbc_config *cfg, int rank, int ranks)
{
    char err[PATH_MAX + 1024] = "";
    bool bad = rank == 0 && check_run_dir(r, cfg, ranks, err, sizeof err) != 0;
    nbc_exit_if_any_failed(bad, err, 2);
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    r->mask = malloc(cells * sizeof *r->mask);
    nbc_exit_if_any_failed(r->mask == NULL, "out of memory for the replay's cell mask", 1);
    for (size_t c = 0; c < cells; c++)
        r->mask[c] = c != (size_t)r->cell;
}

/* A whole file's text (NULL with a message). */
static char *read_text(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *mem = f ? open_memstream(&text, &len) : NULL;
    bool ok = mem != NULL;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = fwrite(buf, 1, n, mem) == n;
    ok = ok && !ferror(f);
    if (mem && fclose(mem) != 0)
        ok = false;
    if (f)
        fclose(f);
    if (!ok) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        free(text);
        return NULL;
    }
    return text;
}

/* Appends a word to the command as a shell reads it (mpiprofile_shell_word). */
static void append_word(FILE *cmd, const char *word)
{
    fputc(' ', cmd);
    (void)mpiprofile_shell_word(cmd, word); /* a failed write fails fclose */
}

/* libinih handler: [build] mpiexec of mpi-build.ini. */
static int build_mpiexec(void *user, const char *section, const char *name, const char *value)
{
    if (strcmp(section, "build") == 0 && strcmp(name, "mpiexec") == 0 && *value)
        snprintf(user, PATH_MAX, "%s", value);
    return 1;
}

/* The launcher of the library this bench_nbc was built with: the build
 * folder's mpi-build.ini (written by make next to the program) names it
 * (e.g. mpiexec.mpich beside Open MPI's mpiexec); else the profile's. */
static void launcher_command(const char *exe, char *command)
{
    const mpiprofile *profile = nbc_library_profile();
    snprintf(command, PATH_MAX, "%s",
             profile->launcher.command ? profile->launcher.command : "mpiexec");
    char path[PATH_MAX + 32];
    const char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    snprintf(path, sizeof path, "%.*s/mpi-build.ini", (int)(slash - exe), exe);
    if (access(path, R_OK) == 0)
        (void)ini_parse(path, build_mpiexec, command); /* unreadable: the profile's */
}

/* The standalone command: the recorded environment the user chose, the
 * build's launcher with the profile's flags (srun inside Slurm) and this
 * replay. */
static char *replay_command(const nbc_replay *r, json_object *meta, int ranks)
{
    char *text = NULL;
    size_t len = 0;
    FILE *cmd = open_memstream(&text, &len);
    if (!cmd)
        return NULL;
    const mpiprofile *profile = nbc_library_profile();
    json_object *env = NULL;
    json_object_object_get_ex(meta, "environment", &env);
    fputs("env", cmd);
    bool slurm = false;
    json_object_object_foreach(env, name, value)
    {
        slurm |= strcmp(name, "SLURM_JOB_ID") == 0;
        if (!user_variable(meta, name))
            continue;
        char assignment[4096];
        snprintf(assignment, sizeof assignment, "%s=%s", name, json_object_get_string(value));
        append_word(cmd, assignment);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    /* bench_nbc places its ranks itself and may run more ranks than cores
     * (the sleep kernel): cores and threads unknown. Inside Slurm, srun. */
    char launcher[PATH_MAX];
    launcher_command(exe, launcher);
    mpiprofile_placement placement = {.mode =
                                          slurm ? MPIPROFILE_LAUNCH_SLURM : MPIPROFILE_LAUNCH_LOCAL,
                                      .srun = slurm,
                                      .command = launcher,
                                      .processes = ranks,
                                      .as_root = geteuid() == 0};
    mpiprofile_list words;
    char err[256];
    if (mpiprofile_launch_command(profile, &placement, &words, err, sizeof err) != 0) {
        fclose(cmd);
        free(text);
        return NULL;
    }
    for (size_t i = 0; i < words.count; i++)
        append_word(cmd, words.items[i]);
    mpiprofile_list_free(&words);
    append_word(cmd, n > 0 ? exe : "bench_nbc");
    for (int i = 0; i < r->set_count; i++) {
        append_word(cmd, "--set");
        append_word(cmd, r->sets[i]);
    }
    append_word(cmd, "--replay");
    append_word(cmd, r->cell_text);
    append_word(cmd, r->run_dir_abs);
    bool ok = fclose(cmd) == 0;
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* Rank 0: the new folder seeded, replay.sh written, the command printed. */
static int seed_folder(nbc_replay *r, nbc_run *run, meta_info *meta, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof seeded_files / sizeof *seeded_files; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", r->run_dir_abs, seeded_files[i]);
        char *text = read_text(path, err, errlen);
        int rc = text ? run_output_write_atomic(run->out, seeded_files[i], text) : -1;
        free(text);
        if (rc != 0) {
            if (text)
                snprintf(err, errlen, "cannot write %s/%s", run_output_dir(run->out),
                         seeded_files[i]);
            return -1;
        }
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/meta.json", r->run_dir_abs);
    json_object *source = json_object_from_file(path);
    char *command = source ? replay_command(r, source, run->ranks) : NULL;
    json_object_put(source);
    if (!command) {
        snprintf(err, errlen, "cannot build the replay command (%s)", path);
        return -1;
    }
    json_object_object_add(r->of, "command", json_object_new_string(command));
    char *script = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&script, &len);
    bool ok = s != NULL;
    if (ok) {
        fprintf(s,
                "#!/bin/sh\n# bench_nbc --replay: cell %ld of %s measured again with its "
                "recorded sizes,\n# settings and environment (a new run folder under "
                "run.results_dir).\nexec %s\n",
                r->cell, r->run_dir_abs, command);
        ok = fclose(s) == 0;
    }
    ok = ok && run_output_write_atomic(run->out, "replay.sh", script) == 0;
    free(script);
    if (ok) {
        char script_path[PATH_MAX + 32];
        snprintf(script_path, sizeof script_path, "%s/replay.sh", run_output_dir(run->out));
        ok = chmod(script_path, 0755) == 0;
    }
    if (!ok) {
        snprintf(err, errlen, "cannot write %s/replay.sh", run_output_dir(run->out));
        free(command);
        return -1;
    }
    printf("bench_nbc: replays cell %ld of %s; the command (replay.sh):\n%s\n", r->cell,
           r->run_dir_abs, command);
    fflush(stdout);
    free(command);
    nbc_meta_add_system(meta, "replay_of", r->of);
    r->of = NULL; /* meta owns it */
    return 0;
}

void nbc_replay_seed(nbc_replay *r, nbc_run *run, meta_info *meta)
{
    char err[PATH_MAX + 1024] = "";
    bool bad = run->rank == 0 && seed_folder(r, run, meta, err, sizeof err) != 0;
    nbc_exit_if_any_failed(bad, err, 1);
}

void nbc_replay_free(nbc_replay *r)
{
    free(r->mask);
    json_object_put(r->of);
    r->mask = NULL;
    r->of = NULL;
}
