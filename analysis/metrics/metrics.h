/* analysis/metrics: a run's cells (paper sections 3 and 4.1, eqs. 1, 3,
 * 4): the rules that turn raw records into cells, cells.csv's row
 * (cell_metrics) and table (cell_table), sched.csv's interference, and a
 * cell's overlap reading (reading.c: the verdict's rule, on one launch or
 * over launches). Times in seconds unless a name says otherwise. */
#ifndef ANALYSIS_METRICS_METRICS_H
#define ANALYSIS_METRICS_METRICS_H

#include "analysis/inputs/inputs.h"
#include "analysis/stats/stats.h"
#include "schema/classes.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- Metrics ------------------------------------------------------------------ */

/* Thresholds of the per-run analysis; the values and their reasons are in
 * analysis_default_thresholds(). */
typedef struct cell_thresholds {
    double off_target_max_error; /* |reference / target - 1| above: flagged */
} cell_thresholds;

cell_thresholds analysis_default_thresholds(void);

/* How intervals are computed (README.md, "Uncertainty"): a bootstrap over
 * whole blocks, the expanded percentile interval per cell. */
typedef struct uncertainty_rules {
    long resamples;    /* bootstrap resamples per cell */
    long long seed;    /* of the generator; each cell draws its own stream */
    double confidence; /* of each cell's interval */
} uncertainty_rules;

uncertainty_rules analysis_default_uncertainty(void);

/* How a run's records become cells. */
typedef struct cell_rules {
    cell_thresholds thresholds;
    uncertainty_rules uncertainty;
    /* NAN: every attempt is judged by raw.csv's `late` column (the driver's
     * decision). A number eps >= 0: every measured attempt is judged again,
     * late when its ranks' largest exit_late_ns, or its start_skew_ns,
     * exceeds max(eps * min(t_comm_s, t_comp_s of the cell's calibration
     * rows), meta.json barrier_precision_ns)
     * (nbc-analyze --late-tolerance; needs both calibration files and the
     * meta.json key). */
    double late_tolerance;
} cell_rules;

cell_rules analysis_default_rules(void);

/* Bits of cell_metrics.invalid_reasons. */
enum invalid_reason {
    INVALID_COMM_CALIBRATION = 1 << 0,
    INVALID_COMP_CALIBRATION = 1 << 1,
    INVALID_LATE = 1 << 2,
    INVALID_NO_BLOCKS = 1 << 3,
    INVALID_UNREACHABLE = 1 << 4,
    INVALID_NOT_MEASURED = 1 << 5,
};
/* "none" or the reasons joined with '+', e.g. "comm_calibration+late". */
void analysis_invalid_reasons_text(unsigned reasons, char *out, size_t out_size);
/* The reverse; false when a word is not a reason. */
bool analysis_invalid_reasons_from_text(const char *text, unsigned *reasons);

/* One row of cells.csv (README.md lists the columns and their statistics).
 * Times in seconds; NAN where undefined. "Span": max(end) - min(start) over
 * ranks (section 4.1); "slowest local": the largest of the ranks' own
 * durations. Both are taken per block, then the median over blocks. */
typedef struct cell_metrics {
    long cell;
    char collective[ANALYSIS_NAME_MAX];
    double comm_target_s;
    double comp_target_s;
    long long bytes;
    long long matrix_n;
    long blocks; /* measured blocks used */
    long ranks;  /* ranks seen in the cell */
    bool valid;
    unsigned invalid_reasons;
    double t_comm_ref; /* median comm_ref span */
    double t_comp_ref; /* median comp_ref span (t2 to t3) */
    double t_measured; /* median overlap span */
    double t_call;     /* on the rank with the most MPI time, see t_mpi */
    double t_comp;     /* slowest local t3 - t2 in overlap (eq. 3 numerator) */
    double t_wait;
    double r_overhead;      /* eq. 1 on spans */
    double r_comm;          /* eq. 4: t_mpi / t_comm_ref_local */
    double r_comp_slowdown; /* eq. 3: t_comp / t_comp_ref_local */
    double r_overhead_iqr;
    double overlap_osu_pct;
    double overlap_imb_pct;
    verdict_class overlap, class; /* r_overhead's band; one_launch (verdict_cell_reading) */
    double ended_block_share;     /* blocks ended by the last arrival (verdict.h), 95 % interval */
    metric_bounds ended_block_share_ci;
    long attempts;            /* attempts of the measured blocks */
    long late_attempts;       /* of them, judged late (discarded) */
    long discarded_attempts;  /* of them, late or in a pass a late one ended (not a column) */
    double late_share;        /* late_attempts / attempts */
    double tolerance_ns;      /* lateness tolerance the attempts were judged by */
    double start_skew_s;      /* median over blocks of max(t1) - min(t1) in overlap */
    double t_mpi;             /* slowest (t2 - t1) + max(0, t4 - max(t3)) in overlap (eq. 4
                               * numerator: the wait from the last rank's arrival) */
    double t_comm_ref_local;  /* slowest local t4 - t1 in comm_ref (eq. 4 denominator) */
    double t_comp_ref_local;  /* slowest local t3 - t2 in comp_ref (eq. 3 denominator) */
    double t_measured_local;  /* slowest local t4 - t1 in overlap (the peers' t_overall) */
    double comm_target_error; /* t_comm_ref / comm_target_s - 1 */
    double comp_target_error; /* t_comp_ref / comp_target_s - 1 */
    /* the references more than off_target_max_error from their targets:
     * a fact about the axis, flagged; the cell is classified all the same */
    bool comm_off_target;
    bool comp_off_target;
    /* the communication target is the message size (grid.comm_sizes;
     * calib_comm.csv size_given): comm_target_s is the time measured at it.
     * Not in cells.csv (its comm_target_error is nan then). */
    bool comm_size_given;
    /* Uncertainty (README.md): each cell's 95 % intervals (block bootstrap,
     * expanded percentile) */
    metric_bounds r_overhead_ci; /* holds what foreign_wait_s can move eq. 1 */
    /* the largest over the three kinds of the median over blocks of the
     * worst rank's wait for a CPU other processes held; NAN: not read */
    double foreign_wait_s;
    metric_bounds r_comm_ci;
    metric_bounds r_comp_slowdown_ci;
    /* eq. 4 on each rank's own wait t4 - t3 (a rank done computing first
     * counts its wait for the others), and its 95 % interval */
    double r_comm_local_wait;
    metric_bounds r_comm_local_wait_ci;
    /* beyond the median: eq. 1 per block, with the median references */
    double r_overhead_mean;
    metric_bounds r_overhead_mean_ci;
    double r_overhead_p90;
    double r_overhead_outlier_share; /* blocks outside Tukey's fences */
    double r_overhead_bimodality;    /* Sarle's coefficient */
    bool r_overhead_bimodal;         /* it exceeds 5/9 */
    /* null controls: median null / median reference, slowest local times */
    long comm_null_blocks;
    double comm_null_ratio;
    metric_bounds comm_null_ci;
    long comp_null_blocks;
    double comp_null_ratio;
    metric_bounds comp_null_ci;
    long long bootstrap_seed;
    /* sweep.csv: why the driver stopped the cell; "unknown" without a row,
     * "none" for a cell not measured */
    char stop[ANALYSIS_NAME_MAX];
    /* eq. 2 over the whole job at the cell's matrix_n (impact/run.c), NAN
     * without passive.csv and compute_ref.csv */
    double r_mpi_impact;
    metric_bounds r_mpi_impact_ci;
    /* sched.csv (README.md, "Interference"); NAN / false without it */
    double compute_delay_share; /* median over blocks of the computing threads' worst
                                 * run-queue delay / step window (overlap, comp_ref) */
    bool interference;          /* compute_delay_share far beyond the run's norm */
    double library_cpu_share;   /* the library threads' CPU time / window, overlap steps */
} cell_metrics;

/* One row of cells_by_rank.csv: a rank's own medians. */
typedef struct rank_metrics {
    size_t cell_index; /* into cell_table.cells */
    long rank;
    long blocks;
    double t_comm_ref;
    double t_comp_ref;
    double t_measured;
    double t_call;
    double t_comp;
    double t_wait;
    double r_comm; /* wait from the last rank's arrival, as the cell's */
    double r_comp_slowdown;
    long deciding_blocks;     /* blocks in which this rank's overlap ended last */
    double r_comm_local_wait; /* on its own wait t4 - t3 */
} rank_metrics;

/* One usable block of a measured cell: the spans of its three kinds (for the
 * distribution plots, nbc-analyze --ecdf). */
typedef struct block_values {
    size_t cell_index; /* into cell_table.cells */
    long block;
    bool repeat; /* a null block's second triple (comm_null, comp_null, overlap_null) */
    double comm_span;
    double comp_span;
    double measured_span;
    double comm_local;         /* comm_ref: slowest local t4 - t1 (eq. 4 denominator) */
    double comp_local;         /* comp_ref: slowest local t3 - t2 (eq. 3 denominator) */
    double mpi_from_last;      /* overlap: slowest (t2 - t1) + max(0, t4 - max(t3)) */
    double comp_overlap_local; /* overlap: slowest local t3 - t2 */
    /* per kind of the metrics (comm_ref, comp_ref, overlap): the worst
     * rank's wait for a CPU another process held (raw.csv foreign_wait_ns,
     * in s); NAN: not read */
    double foreign_wait[RAW_KIND_MAIN_COUNT];
} block_values;

/* Eq. 1: (t_measured - max(t_comm_ref, t_comp_ref)) / min(t_comm_ref,
 * t_comp_ref), the one definition every reading of r_overhead calls. */
double eq1_r_overhead(double comm_span, double comp_span, double measured_span);

/* Per kind of the metrics, the median over blocks[0..n) of the worst
 * rank's foreign wait (s): 1, or 0 when a block's was not read, -1 out of
 * memory. */
int block_foreign_waits(const block_values *blocks, size_t n, double wait[RAW_KIND_MAIN_COUNT]);

/* What waits for a CPU inside the steps can move eq. 1 (README.md, "Foreign
 * waits"): each of the three spans (comm_ref, comp_ref, overlap) may be too
 * long by up to its wait[kind]; eq. 1 at every combination of the spans with
 * and without it. *down, *up: the largest shift below and above the
 * estimate (>= 0). false when a span less its wait is not positive (no
 * bound). */
bool eq1_foreign_shifts(double comm_span, double comp_span, double measured_span,
                        const double wait[RAW_KIND_MAIN_COUNT], double *down, double *up);

/* The two null controls: comm_null / comm_ref and comp_null / comp_ref. */
enum null_pair { NULL_COMM, NULL_COMP, NULL_PAIR_COUNT };

/* What the intervals rest on (README.md, "Uncertainty"). */
typedef struct uncertainty_summary {
    uncertainty_rules rules;
    long off_target_cells;              /* valid cells with a flag comm/comp_off_target */
    long null_cells[NULL_PAIR_COUNT];   /* valid cells with a null interval */
    long null_covered[NULL_PAIR_COUNT]; /* ... whose interval covers 1 */
} uncertainty_summary;

typedef struct cell_table {
    cell_metrics *cells;
    size_t count;
    rank_metrics *ranks;
    size_t rank_count;
    block_values *blocks;
    size_t block_count;
    uncertainty_summary uncertainty;
    double run_delay_share_norm; /* median compute_delay_share over cells; NAN: no sched.csv */
} cell_table;

/* Metrics of every cell of the run (section 4.1 spans, eqs. 1, 3, 4), and
 * the grid cells raw.csv lacks (from the calibration files), invalid. */
int analysis_compute_cells(const run_inputs *in, const cell_rules *rules, cell_table *cells,
                           analysis_error *err);
void analysis_cell_table_free(cell_table *cells);

/* ---- sched.csv: the scheduler's counters per attempt (README.md,
 * "Interference") ---- */
enum sched_role {
    SCHED_ROLE_MAIN,
    SCHED_ROLE_COMPUTE,
    SCHED_ROLE_SUITE_PROGRESS,
    SCHED_ROLE_WATCHDOG,
    SCHED_ROLE_LIBRARY,
    SCHED_ROLE_OTHER,
    SCHED_ROLE_COUNT
};

/* The columns of one sched.csv row the analysis uses. */
typedef struct sched_row {
    long cell, block, attempt, rank, thread;
    enum raw_kind kind;
    enum sched_role role;
    long long window_ns, cpu_ns, run_delay_ns; /* -1: unavailable */
} sched_row;

int analysis_parse_sched(const char *buf, size_t len, const char *file_name, sched_row **rows,
                         size_t *count, analysis_error *err);

/* When a cell is flagged `interference`: its compute_delay_share is above
 * both min_delay_share and min_ratio_to_norm x the run's median. */
typedef struct interference_rules {
    double min_delay_share;
    double min_ratio_to_norm;
} interference_rules;

interference_rules analysis_default_interference(void);

/* Fills compute_delay_share, interference, library_cpu_share of every cell
 * (and the table's norm) from sched.csv's rows (count 0: NAN, false). */
int analysis_sched_apply(const sched_row *rows, size_t count, const interference_rules *rules,
                         cell_table *cells, analysis_error *err);
/* The same from RUN_DIR/sched.csv; a run without one leaves NAN, false. */
int analysis_sched_cells(const char *run_dir, cell_table *cells, analysis_error *err);

/* ---- A cell's reading (reading.c): the verdict's rule (README.md, "The
 * verdict"). One decision quantity, r_overhead (eq. 1), read against the
 * bands of schema/classes.def; the why (r_comm, eq. 4, from the last
 * rank's arrival; the share of blocks in which the collective had ended by
 * then; r_comp_slowdown, eq. 3) stated beside it with intervals, never
 * tested as sub-classes. A launch gives one estimate per quantity and cell
 * (the means of its triples' times: the blocks and the null blocks' second
 * triples), and the interval is Student's t over
 * the launch estimates (df = launches - 1). A single launch gives a
 * reading, never a confident class. Pure: no I/O (the simulation test runs
 * it). ---- */

/* A block counts as "ended by the last arrival" when the MPI time it kept
 * from the last rank's arrival at the wait on (call + wait, as r_comm
 * counts it) is at most this share of the collective's reference: what a
 * start call and a wake-up cost when the collective had completed in the
 * background, against 1 when it had not progressed at all. */
#define VERDICT_ENDED_MAX_R_COMM 0.3

/* The confidence of every interval of the verdict, and so the bound on the
 * rate of confident readings whose claim (a band, or a group's bands)
 * excludes the truth (1 - it). */
#define VERDICT_CONFIDENCE 0.95

/* One launch's estimates of one cell. */
typedef struct verdict_launch {
    bool valid;      /* the cell measured validly in this launch */
    long long bytes; /* the work the launch measured */
    long long matrix_n;
    long blocks;
    double r_overhead;      /* eq. 1 on the means of the blocks' spans */
    double r_comm;          /* eq. 4: mean MPI time from the last arrival / mean local comm_ref */
    double ended_share;     /* blocks with their own r_comm <= VERDICT_ENDED_MAX_R_COMM */
    double r_comp_slowdown; /* eq. 3: mean local t_comp / mean local comp_ref */
    /* what the blocks' mean foreign waits can move r_overhead below and
     * above (eq1_foreign_shifts; 0 when not read) */
    double r_overhead_down, r_overhead_up;
} verdict_launch;

/* A launch's estimates from a cell's usable blocks (n of them); invalid
 * with fewer than 2 blocks or a non-positive reference. */
verdict_launch verdict_launch_of(const block_values *blocks, size_t n, long long bytes,
                                 long long matrix_n);

typedef struct verdict_interval {
    double value; /* mean of the launch estimates */
    double lo;    /* t-interval at VERDICT_CONFIDENCE; NAN with fewer than 2 */
    double hi;
} verdict_interval;

/* Student's t interval of the mean of x[0..n-1] (NANs skipped). */
verdict_interval verdict_t_interval(const double *x, size_t n, double confidence);

/* A configuration's cell over its launches. */
typedef struct verdict_reading {
    long launches;     /* valid launches the reading rests on */
    long launches_run; /* launches that measured the cell */
    bool sizes_agree;  /* every valid launch measured the same bytes and matrix_n */
    long long bytes;   /* of the first valid launch */
    long long matrix_n;
    verdict_interval r_overhead, r_comm, ended_share, r_comp_slowdown;
    verdict_class overlap; /* the band of r_overhead's value; VERDICT_INVALID: none */
    verdict_class class;   /* confident: the claim of overlap's group (hidden_or_partial,
                            * or none); else uncertain, one_launch or invalid */
    bool confident;        /* >= 2 launches of one size and r_overhead's interval inside
                            * the bands of overlap's group (classes.def) */
} verdict_reading;

verdict_reading verdict_combine(const verdict_launch *launches, size_t n, double confidence);

/* One launch's reading of a cell, the study's rule on a single launch
 * (cells.csv overlap, class, ended_block_share): overlap is the band of the
 * cell's point r_overhead (the one cells.csv prints beside its interval),
 * class one_launch, never confident; both invalid for a cell not valid or
 * without an r_overhead. ended_block_share as verdict_launch_of counts it
 * over the cell's usable blocks[0..n), with its Wilson interval at
 * VERDICT_CONFIDENCE. */
void verdict_cell_reading(cell_metrics *cell, const block_values *blocks, size_t n);

/* Whether a cell's 95 % interval of r_overhead lies inside the band of its
 * reading (the rule that makes a verdict over launches confident); false
 * for an invalid cell or one without an interval. */
bool verdict_cell_inside_band(const cell_metrics *cell);

#endif
