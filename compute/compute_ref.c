/* compute_ref: the reference computation time t_comp_ref (paper section
 * 3.2.1, equation 2), the same GEMM step as the driver's, in a program with
 * no MPI at all. Writes compute_ref.csv (docs/formats.md).
 *
 * With --run RUN_DIR it reproduces the conditions of the run's passive step
 * on this host, so that equation 2 compares like with like: one process per
 * rank the run had here, each on that rank's CPUs, all computing at the
 * same time, the sizes in rounds (one step of each size a round) with the
 * passive step's warm-up rounds and repetitions, each process reporting
 * every step (one row each, as passive.csv). */
#include "cli/cli.h"
#include "compute/compute.h"
#include "schema/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_text[] =
    "Usage: compute_ref --run RUN_DIR [--phase before|after|aa]\n"
    "       compute_ref (--targets LIST | --sizes LIST | --sizes-from FILE) [options]\n"
    "       compute_ref --blas\n"
    "Runs the bench_nbc GEMM step (one OpenMP thread per core, each a sequential\n"
    "dgemm n x n x n on its own matrices; the slowest thread's time) without MPI\n"
    "and writes one CSV line per matrix size, process and measured step:\n"
    "  host,proc,procs,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,\n"
    "  t_comp_s,gflops_per_thread\n"
    "\n"
    "  --run RUN_DIR       the reference of a bench_nbc run on this host: one process\n"
    "                      per rank the run had here, on that rank's CPUs (meta.json),\n"
    "                      all computing at once, the sizes of calib_comp.csv, the\n"
    "                      warm-up steps and repetitions of passive.csv; appends to\n"
    "                      RUN_DIR/compute_ref.csv unless -o is given\n"
    "  --phase P           recorded in the phase column (default: after); aa: the A/A\n"
    "                      partner, run just before the phase before's compute_ref,\n"
    "                      so that the pair of the two measures the machine alone\n"
    "  --targets LIST      comma-separated step times in seconds (e.g. 1e-3,2e-3);\n"
    "                      each is calibrated to a matrix size, then measured\n"
    "  --sizes LIST        comma-separated matrix sizes n (e.g. 64,128,256)\n"
    "  --sizes-from FILE   the matrix_n column of a run's calib_comp.csv\n"
    "  --threads N         computing threads (default: one per allowed core)\n"
    "  --cpus LIST         CPU id for each thread (default: the first N allowed cores)\n"
    "  --reps R            steps measured per size, one line each (default 10)\n"
    "  --tolerance X       calibration's relative tolerance, 0 < X < 1 (default 0.10)\n"
    "  -o, --output FILE   append to FILE (header only when it is empty; safe for\n"
    "                      several processes); default: standard output\n"
    "  --blas              check the BLAS (one thread per call, measured) and print\n"
    "                      what it is, one 'key: value' per line, then exit\n"
    "  -V, --version       the version and revision\n"
    "  -h, --help          this text\n";

enum { max_sizes = 4096, default_reps = 10, max_reps = 1000 };

typedef enum source_kind {
    source_none,
    source_targets,
    source_sizes,
    source_file,
    source_run
} source_kind;

typedef struct settings {
    source_kind source;
    double targets_s[max_sizes]; /* also the sizes' targets with --run (else 0) */
    size_t sizes[max_sizes];
    int count;
    const char *run_dir;
    const char *phase;
    int warmup_steps;
    int threads; /* 0: one per allowed core */
    int cpu_ids[COMPUTE_MAX_CPUS];
    int cpu_count; /* 0: --cpus not given */
    int reps;
    double tolerance;
    const char *output_path; /* NULL: stdout */
    bool blas_only;          /* --blas */
} settings;

/* Prints "compute_ref: <message><suffix>" and exits with `status`. */
static _Noreturn void exit_with(int status, const char *suffix, const char *format, va_list args)
{
    fputs("compute_ref: ", stderr);
    vfprintf(stderr, format, args);
    fputs(suffix, stderr);
    exit(status);
}

/* Bad input: exit status 2. */
static _Noreturn void bad_usage(const char *format, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void bad_usage(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    exit_with(2, " (compute_ref --help lists the options)\n", format, args);
}

/* Failure at run time: exit status 1. */
static _Noreturn void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    exit_with(1, "\n", format, args);
}

/* Whole-string integer in [lowest, highest]; false otherwise. */
static bool parse_size(const char *text, unsigned long long lowest, unsigned long long highest,
                       unsigned long long *value)
{
    if (*text < '0' || *text > '9') /* strtoull would accept signs and spaces */
        return false;
    char *end;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return errno == 0 && *end == '\0' && *value >= lowest && *value <= highest;
}

static bool parse_positive_double(const char *text, double *value)
{
    char *end;
    errno = 0;
    *value = strtod(text, &end);
    return errno == 0 && end != text && *end == '\0' && isfinite(*value) && *value > 0;
}

/* Splits a comma-separated list in place; returns the item count. */
static int split_list(char *list, const char *option, char **items, int capacity)
{
    int count = 0;
    for (char *item = list;; item++) {
        char *comma = strchr(item, ',');
        if (comma != NULL)
            *comma = '\0';
        if (*item == '\0')
            bad_usage("%s: empty item in the list (allowed: comma-separated values)", option);
        if (count == capacity)
            bad_usage("%s: more than %d values", option, capacity);
        items[count++] = item;
        if (comma == NULL)
            return count;
        item = comma;
    }
}

static void parse_targets(settings *s, char *list)
{
    char *items[max_sizes];
    s->count = split_list(list, "--targets", items, max_sizes);
    for (int i = 0; i < s->count; i++) {
        if (!parse_positive_double(items[i], &s->targets_s[i]))
            bad_usage("--targets: '%s' is not a time in seconds > 0", items[i]);
    }
}

static void parse_sizes(settings *s, char *list)
{
    char *items[max_sizes];
    s->count = split_list(list, "--sizes", items, max_sizes);
    for (int i = 0; i < s->count; i++) {
        unsigned long long n;
        if (!parse_size(items[i], 1, 1000000, &n))
            bad_usage("--sizes: '%s' is not a matrix size (allowed: integers 1 to 1000000)",
                      items[i]);
        s->sizes[i] = (size_t)n;
    }
}

static void parse_cpus(settings *s, char *list)
{
    char *items[COMPUTE_MAX_CPUS];
    s->cpu_count = split_list(list, "--cpus", items, COMPUTE_MAX_CPUS);
    for (int i = 0; i < s->cpu_count; i++) {
        unsigned long long cpu;
        if (!parse_size(items[i], 0, COMPUTE_MAX_CPUS - 1, &cpu))
            bad_usage("--cpus: '%s' is not a CPU id (allowed: 0 to %d)", items[i],
                      COMPUTE_MAX_CPUS - 1);
        s->cpu_ids[i] = (int)cpu;
    }
}

/* Index of `name` among the comma-separated fields of a header line, or -1. */
static int column_index(char *header, const char *name)
{
    int index = 0;
    for (char *field = strtok(header, ",\n"); field != NULL; field = strtok(NULL, ",\n"), index++) {
        if (strcmp(field, name) == 0)
            return index;
    }
    return -1;
}

static bool already_listed(const settings *s, size_t matrix_n)
{
    for (int i = 0; i < s->count; i++) {
        if (s->sizes[i] == matrix_n)
            return true;
    }
    return false;
}

/* The distinct matrix_n values of a calib_comp.csv, in file order. */
static void read_sizes_file(settings *s, const char *path)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        bad_usage("--sizes-from: cannot open '%s': %s", path, strerror(errno));
    char line[4096];
    if (fgets(line, sizeof line, file) == NULL)
        bad_usage("--sizes-from: '%s' is empty (expected a calib_comp.csv header)", path);
    char header[sizeof line];
    snprintf(header, sizeof header, "%s", line);
    int column = column_index(line, schema_column_name(COL_CALIB_COMP_MATRIX_N));
    int target_column = column_index(header, schema_column_name(COL_CALIB_COMP_COMP_TARGET));
    if (column < 0)
        bad_usage("--sizes-from: '%s' has no matrix_n column in its header", path);
    for (int line_number = 2; fgets(line, sizeof line, file) != NULL; line_number++) {
        char *field = line;
        double target_s = 0;
        if (target_column >= 0) {
            const char *t = line;
            for (int i = 0; i < target_column && t != NULL; i++)
                t = (t = strchr(t, ',')) != NULL ? t + 1 : NULL;
            target_s = t ? strtod(t, NULL) : 0;
        }
        for (int i = 0; i < column && field != NULL; i++) {
            field = strchr(field, ',');
            if (field != NULL)
                field++;
        }
        if (field == NULL)
            bad_usage("--sizes-from: %s line %d has no matrix_n field", path, line_number);
        field[strcspn(field, ",\n")] = '\0';
        unsigned long long n;
        if (!parse_size(field, 1, 1000000, &n))
            bad_usage("--sizes-from: %s line %d: matrix_n '%s' is not an integer 1 to 1000000",
                      path, line_number, field);
        if (already_listed(s, (size_t)n))
            continue;
        if (s->count == max_sizes)
            bad_usage("--sizes-from: %s lists more than %d sizes", path, max_sizes);
        s->targets_s[s->count] = target_s;
        s->sizes[s->count++] = (size_t)n;
    }
    if (ferror(file))
        fail("--sizes-from: cannot read '%s': %s", path, strerror(errno));
    fclose(file);
    if (s->count == 0)
        bad_usage("--sizes-from: '%s' has no data lines", path);
}

static void set_source(settings *s, source_kind kind, const char *option)
{
    if (s->source != source_none)
        bad_usage("%s: give only one of --run, --targets, --sizes, --sizes-from", option);
    s->source = kind;
}

static void parse_arguments(int argc, char **argv, settings *s)
{
    static const struct option options[] = {
        {"targets", required_argument, NULL, 'T'},
        {"sizes", required_argument, NULL, 'S'},
        {"sizes-from", required_argument, NULL, 'F'},
        {"threads", required_argument, NULL, 't'},
        {"cpus", required_argument, NULL, 'c'},
        {"reps", required_argument, NULL, 'r'},
        {"tolerance", required_argument, NULL, 'x'},
        {"output", required_argument, NULL, 'o'},
        {"run", required_argument, NULL, 'R'},
        {"phase", required_argument, NULL, 'P'},
        {"blas", no_argument, NULL, 'b'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *s = (settings){.reps = default_reps,
                    .tolerance = compute_calib_defaults().tolerance,
                    .phase = "after",
                    .warmup_steps = 1};
    opterr = 0; /* our own messages, with exit status 2 */
    int option;
    unsigned long long value;
    while ((option = getopt_long(argc, argv, ":o:hV", options, NULL)) != -1) {
        switch (option) {
        case 'T':
            set_source(s, source_targets, "--targets");
            parse_targets(s, optarg);
            break;
        case 'S':
            set_source(s, source_sizes, "--sizes");
            parse_sizes(s, optarg);
            break;
        case 'F':
            set_source(s, source_file, "--sizes-from");
            read_sizes_file(s, optarg);
            break;
        case 't':
            if (!parse_size(optarg, 1, COMPUTE_MAX_CPUS, &value))
                bad_usage("--threads: '%s' is not a thread count (allowed: 1 to %d)", optarg,
                          COMPUTE_MAX_CPUS);
            s->threads = (int)value;
            break;
        case 'c':
            parse_cpus(s, optarg);
            break;
        case 'r':
            if (!parse_size(optarg, 1, max_reps, &value))
                bad_usage("--reps: '%s' is not a repetition count (allowed: 1 to %d)", optarg,
                          max_reps);
            s->reps = (int)value;
            break;
        case 'x':
            if (!parse_positive_double(optarg, &s->tolerance) || s->tolerance >= 1)
                bad_usage("--tolerance: '%s' is not a relative tolerance (allowed: 0 < x < 1)",
                          optarg);
            break;
        case 'o':
            s->output_path = optarg;
            break;
        case 'R':
            set_source(s, source_run, "--run");
            s->run_dir = optarg;
            break;
        case 'P':
            if (strcmp(optarg, "before") != 0 && strcmp(optarg, "after") != 0 &&
                strcmp(optarg, "aa") != 0)
                bad_usage("--phase: '%s' (allowed: before, after, aa)", optarg);
            s->phase = optarg;
            break;
        case 'b':
            s->blas_only = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            cli_print_exit_statuses(stdout);
            exit(CLI_EXIT_COMPLETE);
        case 'V':
            cli_print_version(stdout, "compute_ref");
            exit(CLI_EXIT_COMPLETE);
        case ':':
            bad_usage("option '%s' needs a value", argv[optind - 1]);
        default:
            bad_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        bad_usage("unexpected argument '%s'", argv[optind]);
    if (s->source == source_none && !s->blas_only)
        bad_usage("give one of --run, --targets, --sizes, --sizes-from");
    if (s->source == source_run && (s->threads || s->cpu_count))
        bad_usage("--run takes the threads and CPUs of the run's ranks: no --threads or --cpus");
    if (s->cpu_count > 0 && s->threads == 0)
        s->threads = s->cpu_count;
    if (s->cpu_count > 0 && s->cpu_count != s->threads)
        bad_usage("--cpus: %d CPUs listed for --threads %d (allowed: one CPU per thread)",
                  s->cpu_count, s->threads);
}

typedef struct output {
    int fd;
    bool locked; /* a file several processes may append to */
    char host[256];
} output;

/* One write per line under an exclusive lock: processes on several nodes may
 * append to the same file, and a line must never be split. */
static void write_locked(output *out, const char *text, bool only_if_empty)
{
    if (out->locked && flock(out->fd, LOCK_EX) != 0)
        fail("cannot lock the output file: %s", strerror(errno));
    struct stat status;
    bool skip = false;
    if (only_if_empty) {
        if (fstat(out->fd, &status) != 0)
            fail("cannot stat the output file: %s", strerror(errno));
        skip = out->locked && status.st_size > 0;
    }
    size_t length = strlen(text);
    if (!skip && write(out->fd, text, length) != (ssize_t)length)
        fail("cannot write the output: %s", strerror(errno));
    if (out->locked && flock(out->fd, LOCK_UN) != 0)
        fail("cannot unlock the output file: %s", strerror(errno));
}

static void open_output(output *out, const char *path)
{
    out->fd = STDOUT_FILENO;
    out->locked = false;
    if (path != NULL) {
        out->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (out->fd < 0)
            fail("-o: cannot open '%s': %s", path, strerror(errno));
        out->locked = true;
    }
    if (gethostname(out->host, sizeof out->host) != 0)
        fail("gethostname: %s", strerror(errno));
    out->host[sizeof out->host - 1] = '\0';
    /* the header of compute_ref.csv (schema/columns.def) */
    char header[2048];
    int len = schema_header(SCHEMA_COMPUTE_REF, header, sizeof header - 1);
    if (len < 0)
        fail("the header of %s does not fit", schema_file_name(SCHEMA_COMPUTE_REF));
    memcpy(header + len, "\n", 2);
    write_locked(out, header, true);
}

/* Warm-up steps (OpenBLAS sets up its buffers on a thread's first call),
 * then `reps` steps, each kept (the analysis resamples them). */
static void measure_size(compute_team *team, size_t matrix_n, int warmup_steps, int reps,
                         double *t_comp_s)
{
    double warm_up_s;
    for (int i = 0; i < warmup_steps; i++)
        if (compute_measure_local(team, matrix_n, &warm_up_s) != 0)
            fail("n = %zu: %s", matrix_n, compute_team_error(team));
    for (int i = 0; i < reps; i++)
        if (compute_measure_local(team, matrix_n, &t_comp_s[i]) != 0)
            fail("n = %zu: %s", matrix_n, compute_team_error(team));
}

/* One line per step of one process at size i. */
static void write_rows(output *out, const settings *s, int proc, int procs, int threads, int i,
                       const double *t_comp_s)
{
    for (int step = 0; step < s->reps; step++) {
        char line[768];
        snprintf(line, sizeof line, "%s,%d,%d,%d,%zu,%.9g,%s,%d,%d,%d,%.9g,%.4f\n", out->host, proc,
                 procs, threads, s->sizes[i], s->targets_s[i], s->phase, s->warmup_steps, s->reps,
                 step, t_comp_s[step], compute_gflops(s->sizes[i], t_comp_s[step]));
        write_locked(out, line, false);
    }
}

static size_t calibrate_target(compute_team *team, const settings *s, double target_s,
                               size_t start_n)
{
    compute_calib_options options = compute_calib_defaults();
    options.tolerance = s->tolerance;
    options.max_matrix_n = compute_team_max_matrix_n(team);
    options.start_n = start_n;
    compute_calib_result result;
    char error[512];
    if (compute_calibrate(&options, target_s, compute_measure_local, team, &result, error,
                          sizeof error) != 0)
        fail("target %g s: %s (%s)", target_s, error, compute_team_error(team));
    fprintf(stderr, "compute_ref: target %g s: n = %zu, %.6g s, %s after %d iterations\n", target_s,
            result.matrix_n, result.t_s, compute_calib_status_name(result.status),
            result.iterations);
    return result.matrix_n;
}

/* ---- --run RUN_DIR ---- */

/* A rank of the run on this host: the CPUs it computed on. */
typedef struct host_rank {
    int cpu_ids[COMPUTE_MAX_CPUS];
    int cpu_count;
    int rank;              /* in the run */
    compute_kernel kernel; /* the run's compute.kernel */
} host_rank;

/* "0,1 free:2" (meta.json binding): the computing CPUs before the space. */
static int parse_binding(const char *binding, int *cpu_ids)
{
    int count = 0;
    for (const char *p = binding; *p && *p != ' ' && count < COMPUTE_MAX_CPUS;) {
        char *end;
        long cpu = strtol(p, &end, 10);
        if (end == p || cpu < 0 || cpu >= COMPUTE_MAX_CPUS)
            return -1;
        cpu_ids[count++] = (int)cpu;
        p = *end == ',' ? end + 1 : end;
    }
    return count;
}

/* The ranks the run had on this host, from its meta.json. */
static int read_host_ranks(const char *run_dir, const char *host, host_rank *ranks, int capacity)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/meta.json", run_dir);
    json_object *meta = json_object_from_file(path), *hosts, *binding;
    if (!meta)
        bad_usage("--run: %s is missing or not JSON: not a run folder", path);
    if (!json_object_object_get_ex(meta, "hosts", &hosts) ||
        !json_object_object_get_ex(meta, "binding", &binding) ||
        json_object_array_length(hosts) != json_object_array_length(binding))
        bad_usage("--run: %s has no hosts and binding of every rank", path);
    /* The run's kernel (the sleep kernel's sleeps are rank k's (1 + k/10)
     * times as long); a run of an older bench_nbc computed dgemm. */
    static const char *const kernel_names[] = COMPUTE_KERNEL_NAMES;
    json_object *config, *compute_section, *kernel;
    compute_kernel run_kernel = COMPUTE_KERNEL_GEMM;
    if (json_object_object_get_ex(meta, "config", &config) &&
        json_object_object_get_ex(config, "compute", &compute_section) &&
        json_object_object_get_ex(compute_section, "kernel", &kernel)) {
        size_t k = 0, count = sizeof kernel_names / sizeof *kernel_names;
        while (k < count && strcmp(json_object_get_string(kernel), kernel_names[k]) != 0)
            k++;
        if (k == count)
            bad_usage("--run: %s: compute.kernel '%s' is not one of this compute_ref's", path,
                      json_object_get_string(kernel));
        run_kernel = (compute_kernel)k;
    }
    int count = 0;
    for (size_t r = 0; r < json_object_array_length(hosts); r++) {
        if (strcmp(json_object_get_string(json_object_array_get_idx(hosts, r)), host) != 0)
            continue;
        if (count == capacity)
            bad_usage("--run: more than %d ranks on host %s", capacity, host);
        const char *cpus = json_object_get_string(json_object_array_get_idx(binding, r));
        ranks[count].cpu_count = parse_binding(cpus ? cpus : "", ranks[count].cpu_ids);
        ranks[count].rank = (int)r;
        ranks[count].kernel = run_kernel;
        if (ranks[count].cpu_count <= 0)
            bad_usage("--run: %s: rank %zu's binding '%s' is not a CPU list", path, r,
                      cpus ? cpus : "");
        count++;
    }
    json_object_put(meta);
    if (count == 0)
        bad_usage("--run: the run had no rank on this host (%s)", host);
    return count;
}

/* The warm-up steps and repetitions of the run's passive step: meta.json's
 * (written before the passive step, which may follow compute_ref's phase
 * before: the ABBA order), or for a run of an older bench_nbc passive.csv's
 * first row. */
static void read_passive_settings(settings *s)
{
    char path[PATH_MAX], line[4096];
    snprintf(path, sizeof path, "%s/meta.json", s->run_dir);
    json_object *meta = json_object_from_file(path), *warmup, *reps;
    bool from_meta = meta && json_object_object_get_ex(meta, "passive_warmup_steps", &warmup) &&
                     json_object_object_get_ex(meta, "passive_reps", &reps);
    if (from_meta) {
        s->warmup_steps = json_object_get_int(warmup);
        s->reps = json_object_get_int(reps);
    }
    json_object_put(meta);
    if (from_meta) {
        if (s->warmup_steps < 0 || s->warmup_steps > 100000 || s->reps < 1 || s->reps > max_reps)
            bad_usage("--run: %s: passive_warmup_steps %d or passive_reps %d out of range", path,
                      s->warmup_steps, s->reps);
        return;
    }
    snprintf(path, sizeof path, "%s/passive.csv", s->run_dir);
    FILE *file = fopen(path, "r");
    if (!file)
        bad_usage("--run: cannot open %s: %s", path, strerror(errno));
    char header[4096];
    if (!fgets(header, sizeof header, file) || !fgets(line, sizeof line, file))
        bad_usage("--run: %s has no passive step rows", path);
    fclose(file);
    char copy[4096];
    int columns[2];
    const char *names[2] = {schema_column_name(COL_PASSIVE_WARMUP_STEPS),
                            schema_column_name(COL_PASSIVE_REPS)};
    for (int c = 0; c < 2; c++) {
        snprintf(copy, sizeof copy, "%s", header);
        columns[c] = column_index(copy, names[c]);
        if (columns[c] < 0)
            bad_usage("--run: %s has no %s column: written by another bench_nbc", path, names[c]);
    }
    int index = 0;
    for (char *field = strtok(line, ",\n"); field; field = strtok(NULL, ",\n"), index++) {
        unsigned long long value;
        if ((index == columns[0] || index == columns[1]) && !parse_size(field, 0, 100000, &value))
            bad_usage("--run: %s: '%s' is not a count", path, field);
        if (index == columns[0])
            s->warmup_steps = (int)value;
        if (index == columns[1])
            s->reps = (int)value;
    }
}

/* How long each process computes before the first measured round. */
static const int64_t process_warmup_ns = 1000000000;

/* What the processes share: a barrier per round, and their results. */
typedef struct shared_state {
    pthread_barrier_t round_barrier;
    int procs;
    int reps;
    double t_comp_s[]; /* [size][proc][step] */
} shared_state;

static void run_process(const settings *s, const host_rank *rank, shared_state *shared, int proc)
{
    char message[2048], error[512];
    if (compute_blas_check(message, sizeof message) != 0)
        fail("refusing to run: %s", message);
    compute_options options = {
        .threads = rank->cpu_count,
        .cpu_ids = rank->cpu_ids,
        .kernel = rank->kernel,
        .sleep_scale = 1.0 + rank->rank / 10.0,
    };
    compute_team *team = compute_team_create(&options, error, sizeof error);
    if (!team)
        fail("process %d: %s", proc, error);
    /* bench_nbc's passive step follows its calibration, seconds of GEMM on a
     * warm process and core; a fresh process computes its first steps
     * slower (up to 1.7 x here at 1 ms), so it warms up as long first. */
    size_t largest_n = 0;
    for (int i = 0; i < s->count; i++)
        largest_n = s->sizes[i] > largest_n ? s->sizes[i] : largest_n;
    if (compute_team_reserve(team, largest_n) != 0)
        fail("process %d: %s", proc, compute_team_error(team));
    double unused_s;
    for (int64_t until_ns = compute_now_ns() + process_warmup_ns; compute_now_ns() < until_ns;)
        if (compute_measure_local(team, s->sizes[0], &unused_s) != 0)
            fail("process %d: %s", proc, compute_team_error(team));
    /* In rounds, as bench_nbc's passive step: the warm-up rounds, then each
     * round one step of every size, the processes starting each round
     * together. A slow spell of the machine (seen here: 1.9 x for a few
     * hundred ms, on both CPUs) then lands on a few steps of every size,
     * which each process's median passes over, instead of on every step of
     * the sizes measured during it. */
    for (int round = -s->warmup_steps; round < s->reps; round++) {
        int rc = pthread_barrier_wait(&shared->round_barrier);
        if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
            fail("pthread_barrier_wait: %s", strerror(rc));
        for (int i = 0; i < s->count; i++) {
            double *t_s =
                round < 0 ? &unused_s
                          : &shared->t_comp_s[((size_t)i * shared->procs + proc) * shared->reps +
                                              (size_t)round];
            if (compute_measure_local(team, s->sizes[i], t_s) != 0)
                fail("process %d, n = %zu: %s", proc, s->sizes[i], compute_team_error(team));
        }
    }
    compute_team_destroy(team);
}

static int run_reference(settings *s)
{
    output out;
    char default_output[PATH_MAX];
    snprintf(default_output, sizeof default_output, "%s/compute_ref.csv", s->run_dir);
    char calib[PATH_MAX];
    snprintf(calib, sizeof calib, "%s/calib_comp.csv", s->run_dir);
    read_sizes_file(s, calib);
    read_passive_settings(s);
    open_output(&out, s->output_path ? s->output_path : default_output);
    static host_rank ranks[COMPUTE_MAX_CPUS];
    int procs = read_host_ranks(s->run_dir, out.host, ranks, COMPUTE_MAX_CPUS);

    size_t shared_bytes =
        sizeof(shared_state) + (size_t)s->count * procs * s->reps * sizeof(double);
    shared_state *shared =
        mmap(NULL, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        fail("mmap: %s", strerror(errno));
    shared->procs = procs;
    shared->reps = s->reps;
    pthread_barrierattr_t attr;
    if (pthread_barrierattr_init(&attr) != 0 ||
        pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) != 0 ||
        pthread_barrier_init(&shared->round_barrier, &attr, (unsigned)procs) != 0)
        fail("cannot set up a barrier between the processes");
    pthread_barrierattr_destroy(&attr);
    /* No OpenMP or BLAS thread exists yet in this process: forking is safe. */
    fflush(NULL);
    pid_t children[COMPUTE_MAX_CPUS];
    for (int p = 0; p < procs; p++) {
        children[p] = fork();
        if (children[p] < 0)
            fail("fork: %s", strerror(errno));
        if (children[p] == 0) {
            run_process(s, &ranks[p], shared, p);
            _exit(0);
        }
    }
    int failed = 0;
    for (int p = 0; p < procs; p++) {
        int status;
        if (waitpid(children[p], &status, 0) != children[p] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            failed = 1;
    }
    if (failed)
        fail("a measuring process failed (its message is above)");
    for (int i = 0; i < s->count; i++)
        for (int p = 0; p < procs; p++)
            write_rows(&out, s, p, procs, ranks[p].cpu_count, i,
                       &shared->t_comp_s[((size_t)i * procs + p) * s->reps]);
    if (out.locked && close(out.fd) != 0)
        fail("-o: cannot close the output: %s", strerror(errno));
    pthread_barrier_destroy(&shared->round_barrier);
    munmap(shared, shared_bytes);
    return 0;
}

/* --blas: the BLAS this build uses and how it runs one thread per call, for
 * scripts (one "key: value" per line); exit status 0, or 2 when refused. */
static int print_blas(void)
{
    char message[2048];
    int status = compute_blas_check(message, sizeof message);
    compute_blas_info blas;
    compute_blas_get_info(&blas);
    printf("name: %s\nversion: %s\nlibrary: %s\nthreading: %s\nthreads_reported: %d\n"
           "cpu_per_wall: %.3f\ncpu_per_caller_cpu: %.3f\nmeasured_s: %.4f\nwindows: %d\n"
           "background_cpu_per_wall: %.3f\none_thread_per_call: %s\ncpu_topology: %s\n",
           blas.name, blas.version, blas.library, blas.threading, blas.threads_reported,
           blas.cpu_per_wall, blas.cpu_per_caller_cpu, blas.measured_s, blas.windows,
           blas.background_cpu_per_wall, blas.one_thread_per_call ? "yes" : "no",
           compute_cpu_topology_source());
    if (status != 0)
        fprintf(stderr, "compute_ref: refusing to run: %s\n", message);
    return status == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    static settings s; /* large: not on the stack */
    parse_arguments(argc, argv, &s);
    if (s.blas_only)
        return print_blas();
    if (s.source == source_run)
        return run_reference(&s);

    char message[2048];
    if (compute_blas_check(message, sizeof message) != 0) {
        fprintf(stderr, "compute_ref: refusing to run: %s\n", message);
        return 2;
    }
    fprintf(stderr, "compute_ref: %s; cores from %s\n", message, compute_cpu_topology_source());
    char error[512];
    if (s.threads == 0) {
        int allowed[COMPUTE_MAX_CPUS];
        s.threads = compute_allowed_cpus(allowed, COMPUTE_MAX_CPUS, error, sizeof error);
        if (s.threads < 0)
            fail("%s", error);
    }
    compute_options team_options = {
        .threads = s.threads,
        .cpu_ids = s.cpu_count > 0 ? s.cpu_ids : NULL,
    };
    compute_team *team = compute_team_create(&team_options, error, sizeof error);
    if (team == NULL) {
        fprintf(stderr, "compute_ref: --threads %d%s: %s\n", s.threads,
                s.cpu_count > 0 ? " --cpus" : "", error);
        return 2;
    }

    output out;
    open_output(&out, s.output_path);
    size_t previous_n = compute_calib_defaults().start_n;
    for (int i = 0; i < s.count; i++) {
        size_t matrix_n = s.sizes[i];
        if (s.source == source_targets) {
            matrix_n = calibrate_target(team, &s, s.targets_s[i], previous_n);
            previous_n = matrix_n;
        }
        s.sizes[i] = matrix_n;
        double t_comp_s[max_reps];
        measure_size(team, matrix_n, s.warmup_steps, s.reps, t_comp_s);
        write_rows(&out, &s, 0, 1, compute_team_threads(team), i, t_comp_s);
    }
    if (out.locked && close(out.fd) != 0)
        fail("-o: cannot close '%s': %s", s.output_path, strerror(errno));
    compute_team_destroy(team);
    return 0;
}
