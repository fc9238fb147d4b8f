/* When a cell has measured enough blocks (adaptive repetitions, run.half_width):
 * the stopping rule and what it reads. No MPI: the sweep (sweep.c) gathers a
 * cell's records on rank 0, asks this module, and broadcasts the answer; the
 * unit test calls the same functions.
 *
 * The rule aims at the decision the map makes of the cell (analysis/README.md,
 * "Diagnosis" and "Stopping"): a cell stops once its class is decided at a
 * per-look level that keeps the map's false-discovery rate, or once
 * r_overhead's interval is narrow enough, and early when its first blocks
 * show that run.max_repetitions could not decide it. It looks only after
 * complete Williams cycles (every 6 blocks from run.repetitions on), so a
 * stop never leaves an order of the design over-represented, and a bounded
 * number of looks is spent. Only complete blocks are counted. */
#ifndef BENCH_NBC_STOPPING_H
#define BENCH_NBC_STOPPING_H

#include <stddef.h>

/* Why a cell stopped (sweep.csv `stop`, docs/formats.md). */
typedef enum {
    NBC_STOP_CONTINUE,     /* not stopped: measure another block */
    NBC_STOP_FIXED,        /* run.half_width = 0: run.repetitions blocks */
    NBC_STOP_PRECISION,    /* the interval is as narrow as run.half_width */
    NBC_STOP_DECIDED,      /* the class's p-value is below the per-look level */
    NBC_STOP_UNRESOLVABLE, /* projected to the blocks it can still afford, neither */
    NBC_STOP_MAX,          /* run.max_repetitions blocks */
    NBC_STOP_BUDGET,       /* run.cell_budget_s exceeded */
    NBC_STOP_LATE,         /* an attempt ran out of retries: the cell is invalid */
    NBC_STOP_COUNT
} nbc_stop_reason;

/* "continue", "fixed", "precision", "decided", "unresolvable", "max",
 * "budget", "late". */
const char *nbc_stop_reason_name(nbc_stop_reason reason);

typedef struct nbc_stop_rule {
    int min_blocks;        /* run.repetitions: always measured, the first look */
    int max_blocks;        /* run.max_repetitions */
    double half_width;     /* run.half_width; 0: a fixed min_blocks */
    double cell_budget_s;  /* run.cell_budget_s; 0: none */
    int look_blocks;       /* blocks between looks: one Williams cycle (6) */
    int decide_min_blocks; /* the analysis's min_blocks: no decision on fewer */
    double look_level;     /* the per-look level of "decided" (nbc_stop_rule_of) */
} nbc_stop_rule;

/* The rule of the configuration: looks every 6 blocks from min_blocks,
 * decisions from the analysis's min_blocks on, and a per-look level of
 * q / looks, q the analysis's false-discovery rate and looks the number of
 * looks at which a cell can be decided before max_blocks (Bonferroni over
 * the looks: a cell whose truth is in another class stops "decided" at
 * some look with probability at most q). */
nbc_stop_rule nbc_stop_rule_of(int min_blocks, int max_blocks, double half_width,
                               double cell_budget_s);

/* A cell after a complete block. */
typedef struct nbc_stop_state {
    int blocks;          /* measured blocks done (the warm-up not counted) */
    double elapsed_s;    /* since the cell started, its warm-up included */
    double ci_lo, ci_hi; /* 95 % interval of r_overhead so far; NAN: none yet */
    double p;            /* the analysis's diagnosis_p of the point class; NAN: none */
    double p_group;      /* its diagnosis_group_p (the class's group); NAN: none */
} nbc_stop_state;

/* Whether blocks is a look: min_blocks, then every look_blocks. */
int nbc_stop_is_look(const nbc_stop_rule *rule, int blocks);

/* The rule, in this order: fewer than min_blocks: continue; half_width 0:
 * fixed; at a look, from decide_min_blocks on: p <= look_level: decided;
 * p_group <= look_level and the class not decidable: decided (the
 * analysis can claim the group); ci_hi - ci_lo <= 2 half_width: precision,
 * unless a class or group not yet decided is decidable; unresolvable when
 * neither the interval would be narrow enough nor the class or its group
 * decidable. Decidable: projected to the blocks the cell can still reach
 * (max_blocks, or fewer the budget affords at its pace so far) with
 * standard errors shrinking as 1/sqrt(blocks), the p would reach
 * look_level one standard error closer than measured; then at any block:
 * max_blocks reached: max; elapsed_s > cell_budget_s > 0: budget; else
 * continue. A NAN interval is not narrow, a NAN p not decided. */
nbc_stop_reason nbc_stop_decide(const nbc_stop_rule *rule, const nbc_stop_state *state);

/* What the stopping rule reads of one cell, by the analysis's own estimator
 * (analysis_compute_cells with its default bootstrap and seed): the 95 %
 * interval of r_overhead and the p-value of the cell's point class
 * (diagnosis_p; NAN under the analysis's min_blocks or without a class).
 * raw_csv holds raw.csv's header and the cell's rows (docs/formats.md),
 * ranks the run's ranks. NAN bounds when the cell has no interval (fewer
 * than 2 usable blocks). 0, or -1 with a message in err. */
int nbc_stop_estimate(const char *raw_csv, size_t len, long ranks, nbc_stop_state *state, char *err,
                      size_t errlen);

#endif
