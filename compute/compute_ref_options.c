/* compute_ref's command line (compute_ref_options.h): the usage text, the
 * options parsed and checked, the sizes of a calib_comp.csv. */
#include "compute/compute_ref_options.h"

#include "cli/cli.h"
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

/* Prints "compute_ref: <message><suffix>" and exits with `status`. */
static _Noreturn void exit_with(int status, const char *suffix, const char *format, va_list args)
{
    fputs("compute_ref: ", stderr);
    vfprintf(stderr, format, args);
    fputs(suffix, stderr);
    exit(status);
}

/* Bad input: exit status 2. */
_Noreturn void bad_usage(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    exit_with(2, " (compute_ref --help lists the options)\n", format, args);
}

/* Failure at run time: exit status 1. */
_Noreturn void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    exit_with(1, "\n", format, args);
}

/* Whole-string integer in [lowest, highest]; false otherwise. */
bool parse_size(const char *text, unsigned long long lowest, unsigned long long highest,
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
int column_index(char *header, const char *name)
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
void read_sizes_file(settings *s, const char *path)
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

void parse_arguments(int argc, char **argv, settings *s)
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
                    .warmup_steps = 1,
                    /* --run: the run's compute.ref_warmup_s (configs/default.conf's
                     * value; a run of an older bench_nbc has none) */
                    .process_warmup_s = 1.0};
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
