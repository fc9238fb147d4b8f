/* When a cell has measured enough blocks: a fixed run.repetitions by default
 * (run.half_width = 0, the count the study verdict's error rates are stated
 * for, analysis/README.md "The verdict"), or adaptive repetitions on request
 * (run.half_width > 0): the stopping rule and what it reads. No MPI: the sweep (sweep.c) gathers a
 * cell's records on rank 0, asks this module, and broadcasts the answer; the
 * unit test calls the same functions.
 *
 * The rule aims at the decision the map makes of the cell (analysis/README.md,
 * "Diagnosis" and "Stopping"): a cell stops once its class is decided at a
 * per-look level that keeps the map's false-discovery rate, or once
 * r_overhead's interval is narrow enough, and early when its first blocks
 * show that run.max_repetitions could not decide it (`unresolvable`), or
 * that its budget cannot afford the blocks that would (`budget`). Time
 * follows the decision: a claim expected to be decided in the blocks three
 * budgets afford gets them. It looks only after
 * complete Williams cycles (every 6 blocks from run.repetitions on), so a
 * stop never leaves an order of the design over-represented, and a bounded
 * number of looks is spent. Only complete blocks are counted. */
#ifndef BENCH_NBC_STOPPING_H
#define BENCH_NBC_STOPPING_H

#include <stdbool.h>
#include <stddef.h>

/* Why a cell stopped (sweep.csv `stop`, docs/formats.md). */
typedef enum {
    NBC_STOP_CONTINUE,     /* not stopped: measure another block */
    NBC_STOP_FIXED,        /* run.half_width = 0: run.repetitions blocks */
    NBC_STOP_PRECISION,    /* the interval is as narrow as run.half_width */
    NBC_STOP_DECIDED,      /* the class's p-value is below the per-look level */
    NBC_STOP_UNRESOLVABLE, /* projected to run.max_repetitions blocks, neither */
    NBC_STOP_MAX,          /* run.max_repetitions blocks */
    NBC_STOP_BUDGET,       /* the budget in force exceeded, or too short for
                            * the blocks that would settle the cell */
    NBC_STOP_LATE,         /* an attempt ran out of retries: the cell is invalid */
    NBC_STOP_COUNT
} nbc_stop_reason;

/* "continue", "fixed", "precision", "decided", "unresolvable", "max",
 * "budget", "late". */
const char *nbc_stop_reason_name(nbc_stop_reason reason);

typedef struct nbc_stop_rule {
    int min_blocks;           /* run.repetitions: always measured, the first look */
    int max_blocks;           /* run.max_repetitions */
    double half_width;        /* run.half_width; 0: a fixed min_blocks */
    double cell_budget_s;     /* run.cell_budget_s; 0: none */
    int look_blocks;          /* blocks between looks: one Williams cycle (6) */
    int decide_min_blocks;    /* the analysis's min_blocks: no decision on fewer */
    double look_level;        /* the per-look level of "decided" (nbc_stop_rule_of) */
    double extended_budget_s; /* the budget of a cell whose claim is expected to be
                               * decided in the blocks it affords
                               * (nbc_stop_extends_budget); 0: none */
} nbc_stop_rule;

/* How many times run.cell_budget_s a cell may take while its claim, not
 * decided yet, is expected to be decided in the blocks that many budgets
 * afford (analysis/README.md, "Stopping": 3 s leave this machine's cells
 * 12 to 36 blocks, the 64 ms row 12, and a claim at p 0.03 after 12
 * blocks, or intermittent at regime shares near one half, needs 24 to 40). */
#define NBC_STOP_EXTENDED_BUDGET_FACTOR 3.0

/* The rule of the configuration: looks every 6 blocks from min_blocks,
 * decisions from the analysis's min_blocks on, and a per-look level of
 * q / looks, q the analysis's false-discovery rate and looks the number of
 * looks at which a cell can be decided before max_blocks (Bonferroni over
 * the looks: a cell whose truth is in another class stops "decided" at
 * some look with probability at most q). A cell whose claim is expected
 * to be decided may run NBC_STOP_EXTENDED_BUDGET_FACTOR times
 * cell_budget_s (extended_budget_s). */
nbc_stop_rule nbc_stop_rule_of(int min_blocks, int max_blocks, double half_width,
                               double cell_budget_s);

/* A cell after a complete block. */
typedef struct nbc_stop_state {
    int blocks;          /* measured blocks done (the warm-up not counted) */
    double elapsed_s;    /* since the cell started, its warm-up included */
    double ci_lo, ci_hi; /* 95 % interval of r_overhead so far; NAN: none yet */
    double p;            /* the analysis's diagnosis_p of the point class; NAN: none */
    double p_group;      /* its diagnosis_group_p (the class's group); NAN: none */
    /* Where the estimates show two regimes (analysis_two_regimes: the
     * claim intermittent is open to the cell): the smaller of
     * progressed_block_share and held_block_share; 0: one regime */
    double regime_share;
    bool group_is_intermittent; /* p_group is intermittent's (cells.csv two_regimes) */
    /* Between looks: whether the budget in force is extended_budget_s, as
     * nbc_stop_extends_budget said at the last look (the sweep carries it);
     * at a look the rule decides it afresh */
    bool budget_extended;
} nbc_stop_state;

/* Whether blocks is a look: min_blocks, then every look_blocks. */
int nbc_stop_is_look(const nbc_stop_rule *rule, int blocks);

/* The rule, in this order: fewer than min_blocks: continue; half_width 0:
 * fixed; at a look, from decide_min_blocks on: p <= look_level: decided;
 * p_group <= look_level and the class not decidable, or the cell in two
 * regimes: decided (the analysis can claim the group, or intermittent);
 * ci_hi - ci_lo <= 2 half_width: precision, unless a class or group not
 * yet decided is decidable; when neither the interval would be narrow
 * enough nor the class or its group decidable: budget if they are
 * expected to be in max_blocks (as nbc_stop_extends_budget expects) or a
 * p is within the false-discovery rate (the budget in force is what stops
 * the cell), unresolvable if neither (below max_blocks; at it: max).
 * Decidable:
 * projected to the blocks the cell can still reach (max_blocks, or fewer
 * the budget in force affords at its pace so far), with standard errors
 * shrinking as 1/sqrt(blocks), the p would reach look_level; a cell in
 * two regimes' group also when intermittent's exact binomial p at the
 * reachable blocks and the measured regime_share would (p_group itself
 * only when it is the group's, not intermittent's). Before a cell is
 * given up both are granted one standard error more than measured (not
 * for the reason it is given up with). Then
 * at any block: max_blocks reached: max; elapsed_s over the budget in
 * force (cell_budget_s > 0, or extended_budget_s where extended): budget;
 * else continue. A NAN interval is not narrow, a NAN p not decided. */
nbc_stop_reason nbc_stop_decide(const nbc_stop_rule *rule, const nbc_stop_state *state);

/* At a look: whether the budget in force is extended_budget_s: neither the
 * cell's class nor its coarser claim is decided yet, and one is expected
 * to be in the blocks extended_budget_s affords at the cell's pace
 * (max_blocks at most): the class's p or the group's p (as for decidable,
 * no standard error granted) or, where the
 * blocks show two regimes, intermittent's exact p (granted one standard
 * error of the share: the smaller measured share is biased low). Between
 * looks the sweep carries the answer in budget_extended. */
bool nbc_stop_extends_budget(const nbc_stop_rule *rule, const nbc_stop_state *state);

/* The budget in force of a cell: at a look as nbc_stop_extends_budget
 * says, between looks as budget_extended says. 0: none. */
double nbc_stop_budget_s(const nbc_stop_rule *rule, const nbc_stop_state *state);

/* What the stopping rule reads of one cell, by the analysis's own estimator
 * (analysis_compute_cells with its default bootstrap and seed): the 95 %
 * interval of r_overhead, the p-values of the cell's point class and of
 * its coarser claim (diagnosis_p, diagnosis_group_p; NAN under the
 * analysis's min_blocks or without a class) and, where that claim is
 * intermittent, regime_share.
 * raw_csv holds raw.csv's header and the cell's rows (docs/formats.md),
 * ranks the run's ranks. NAN bounds when the cell has no interval (fewer
 * than 2 usable blocks). 0, or -1 with a message in err. */
int nbc_stop_estimate(const char *raw_csv, size_t len, long ranks, nbc_stop_state *state, char *err,
                      size_t errlen);

#endif
