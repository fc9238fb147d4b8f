/* When a cell has measured enough blocks (adaptive repetitions, run.half_width):
 * the stopping rule and the interval it reads. No MPI: the sweep (sweep.c)
 * gathers a cell's records on rank 0, asks this module, and broadcasts the
 * answer; the unit test calls the same functions.
 *
 * The rule looks at the width of the 95 % interval of r_overhead, never at
 * the estimate: stopping once the interval cleared a diagnosis threshold
 * (optional stopping) would bias the diagnosis toward the side the noise
 * happened to push it. Only complete blocks are counted. */
#ifndef BENCH_NBC_STOPPING_H
#define BENCH_NBC_STOPPING_H

#include <stddef.h>

/* Why a cell stopped (sweep.csv `stop`, docs/formats.md). */
typedef enum {
    NBC_STOP_CONTINUE,  /* not stopped: measure another block */
    NBC_STOP_FIXED,     /* run.half_width = 0: run.repetitions blocks */
    NBC_STOP_PRECISION, /* the interval is as narrow as run.half_width */
    NBC_STOP_MAX,       /* run.max_repetitions blocks */
    NBC_STOP_BUDGET,    /* run.cell_budget_s exceeded */
    NBC_STOP_LATE,      /* an attempt ran out of retries: the cell is invalid */
    NBC_STOP_COUNT
} nbc_stop_reason;

/* "continue", "fixed", "precision", "max", "budget", "late". */
const char *nbc_stop_reason_name(nbc_stop_reason reason);

typedef struct nbc_stop_rule {
    int min_blocks;       /* run.repetitions: always measured */
    int max_blocks;       /* run.max_repetitions */
    double half_width;    /* run.half_width; 0: a fixed min_blocks */
    double cell_budget_s; /* run.cell_budget_s; 0: none */
} nbc_stop_rule;

/* A cell after a complete block. */
typedef struct nbc_stop_state {
    int blocks;          /* measured blocks done (the warm-up not counted) */
    double elapsed_s;    /* since the cell started, its warm-up included */
    double ci_lo, ci_hi; /* 95 % interval of r_overhead so far; NAN: none yet */
} nbc_stop_state;

/* The rule, in this order: fewer than min_blocks: continue; half_width 0:
 * fixed; ci_hi - ci_lo <= 2 half_width: precision; max_blocks reached:
 * max; elapsed_s > cell_budget_s > 0: budget; else continue. A NAN
 * interval is not narrow. */
nbc_stop_reason nbc_stop_decide(const nbc_stop_rule *rule, const nbc_stop_state *state);

/* The 95 % interval of r_overhead of one cell, by the analysis's own
 * estimator (analysis_compute_cells with its default bootstrap and seed):
 * raw_csv holds raw.csv's header and the cell's rows (docs/formats.md),
 * ranks the run's ranks. NAN bounds when the cell has no interval (fewer
 * than 2 usable blocks). 0, or -1 with a message in err. */
int nbc_stop_interval(const char *raw_csv, size_t len, long ranks, double *ci_lo, double *ci_hi,
                      char *err, size_t errlen);

#endif
