/* When a cell has measured enough blocks: a fixed run.repetitions by default
 * (run.half_width = 0, the count the study verdict's error rates are stated
 * for, analysis/README.md "The verdict"), or adaptive repetitions on request
 * (run.half_width > 0): the stopping rule and what it reads. No MPI: the
 * sweep (sweep.c) gathers a cell's records on rank 0, asks this module, and
 * broadcasts the answer; the unit test calls the same functions.
 *
 * The adaptive rule reads one number, the half-width of r_overhead's
 * interval (eq. 1): a cell stops once it is as narrow as run.half_width
 * (`precision`), at run.max_repetitions blocks (`max`) or past
 * run.cell_budget_s (`budget`). It never reads a class: the overlap reading
 * is the band of r_overhead (analysis/verdict), and a per-launch interval
 * narrowed to a width says nothing that the launches do not repeat. It
 * looks only after complete Williams cycles (every 6 blocks from
 * run.repetitions on), so a stop never leaves an order of the design
 * over-represented. Only complete blocks are counted. */
#ifndef BENCH_NBC_STOPPING_H
#define BENCH_NBC_STOPPING_H

#include <stdbool.h>
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
    int min_blocks;       /* run.repetitions: always measured, the first look */
    int max_blocks;       /* run.max_repetitions */
    double half_width;    /* run.half_width; 0: a fixed min_blocks */
    double cell_budget_s; /* run.cell_budget_s; 0: none */
    int look_blocks;      /* blocks between looks: one Williams cycle (6) */
} nbc_stop_rule;

/* The rule of the configuration: looks every 6 blocks from min_blocks. */
nbc_stop_rule nbc_stop_rule_of(int min_blocks, int max_blocks, double half_width,
                               double cell_budget_s);

/* A cell after a complete block. */
typedef struct nbc_stop_state {
    int blocks;          /* measured blocks done (the warm-up not counted) */
    double elapsed_s;    /* since the cell started, its warm-up included */
    double ci_lo, ci_hi; /* 95 % interval of r_overhead so far; NAN: none yet */
} nbc_stop_state;

/* Whether blocks is a look: min_blocks, then every look_blocks. */
int nbc_stop_is_look(const nbc_stop_rule *rule, int blocks);

/* The rule, in this order: fewer than min_blocks: continue; half_width 0:
 * fixed; at a look, ci_hi - ci_lo <= 2 half_width: precision; then at any
 * block: max_blocks reached: max; elapsed_s over cell_budget_s (when > 0):
 * budget; else continue. A NAN interval is not narrow. */
nbc_stop_reason nbc_stop_decide(const nbc_stop_rule *rule, const nbc_stop_state *state);

/* The 95 % interval of r_overhead of one cell by the analysis's own
 * estimator (analysis_compute_cells with its default bootstrap and seed),
 * the interval cells.csv reports. raw_csv holds raw.csv's header and the
 * cell's rows (docs/formats.md), ranks the run's ranks. NAN bounds when the
 * cell has no interval (fewer than 2 usable blocks). 0, or -1 with a
 * message in err. */
int nbc_stop_estimate(const char *raw_csv, size_t len, long ranks, nbc_stop_state *state, char *err,
                      size_t errlen);

#endif
