/* compute_ref's command line (compute_ref.c is the program): its settings,
 * the parsing of its options and of a calib_comp.csv's sizes, and the two
 * ways it ends on an error (bad input: 2, a failure: 1), named so that
 * every part of the program words them alike. Not a library: the program's
 * own header. */
#ifndef COMPUTE_COMPUTE_REF_OPTIONS_H
#define COMPUTE_COMPUTE_REF_OPTIONS_H

#include "compute/compute.h"

#include <stdbool.h>
#include <stddef.h>

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
    double process_warmup_s; /* GEMM before the first measured round */
    int threads;             /* 0: one per allowed core */
    int cpu_ids[COMPUTE_MAX_CPUS];
    int cpu_count; /* 0: --cpus not given */
    int reps;
    double tolerance;
    const char *output_path; /* NULL: stdout */
    bool blas_only;          /* --blas */
} settings;

/* Bad input: "compute_ref: MESSAGE (compute_ref --help lists the options)", exit status 2. */
_Noreturn void bad_usage(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Failure at run time: "compute_ref: MESSAGE", exit status 1. */
_Noreturn void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Whole-string integer in [lowest, highest]; false otherwise. */
bool parse_size(const char *text, unsigned long long lowest, unsigned long long highest,
                unsigned long long *value);
/* Index of `name` among the comma-separated fields of a header line, or -1. */
int column_index(char *header, const char *name);
/* The distinct matrix_n values of a calib_comp.csv, in file order. */
void read_sizes_file(settings *s, const char *path);
/* The command line into s; --help and --version print and exit 0, bad
 * input exits 2. */
void parse_arguments(int argc, char **argv, settings *s);

#endif
