/* analysis: metrics per cell, their readings, tables and figures of a run folder.
 *
 * MPI-free: reads the files a run wrote (docs/formats.md), so it can be
 * re-run on old results. Sections 3, 3.3, 4.1 and 5.2 of the BenchNBC paper
 * (papers/003_afcca100ea8c099c.txt) are the specification; equation numbers
 * in comments refer to it. analysis/README.md documents every output.
 *
 * Every function that can fail returns an analysis_status and, on failure,
 * fills an analysis_error with one message naming the file, line and column
 * (or key) at fault. Warnings (a missing optional file, a skipped row) go to
 * stderr and do not fail.
 */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "schema/classes.h"

enum analysis_status {
    ANALYSIS_OK = 0,
    ANALYSIS_ERR_SYSTEM = 1, /* I/O or allocation failure, gnuplot failed */
    ANALYSIS_ERR_INPUT = 2,  /* bad input: missing folder, malformed file */
    ANALYSIS_NO_GNUPLOT = 3, /* metrics and scripts written, figures not drawn */
};

typedef struct analysis_error {
    char text[1024];
} analysis_error;

#define ANALYSIS_NAME_MAX 64 /* collective, host and similar short names */

/* ---- raw.csv ------------------------------------------------------------ */

/* The first three kinds are those of the metrics; the null controls repeat a
 * reference in the same block (a second comm_ref, a second comp_ref, the two
 * exchanged on a coin flip), so null / reference has a truth of exactly 1:
 * they test the intervals and are never used in the metrics. */
enum raw_kind {
    RAW_KIND_COMM_REF,
    RAW_KIND_COMP_REF,
    RAW_KIND_OVERLAP,
    RAW_KIND_COMM_NULL,
    RAW_KIND_COMP_NULL,
    RAW_KIND_OVERLAP_NULL,
    RAW_KIND_COUNT
};
enum { RAW_KIND_MAIN_COUNT = RAW_KIND_COMM_NULL }; /* the kinds every usable block holds */
const char *analysis_raw_kind_name(enum raw_kind kind);

/* A block is one pass over the three kinds; the warm-up block is recorded
 * and never used in metrics. */
enum raw_role { RAW_ROLE_WARMUP, RAW_ROLE_MEASURE, RAW_ROLE_COUNT };
const char *analysis_raw_role_name(enum raw_role role);

/* What identifies a cell; identical on every row of the cell. */
typedef struct raw_cell {
    long cell; /* grid position: comm_index * comp_count + comp_index */
    char collective[ANALYSIS_NAME_MAX];
    double comm_target_s;
    double comp_target_s;
    long long bytes;
    long long matrix_n;
    long first_line; /* where the cell first appears, for messages */
} raw_cell;

/* One rank's record of one attempt (docs/formats.md, raw.csv). */
typedef struct raw_row {
    size_t cell_index; /* into raw_table.cells */
    long line;         /* 1-based line in raw.csv */
    long block;
    enum raw_role role;
    enum raw_kind kind;
    long attempt;
    long long seq;
    double wall_start_s;
    long rank;
    int64_t t_ns[4]; /* t1..t4, global time */
    int64_t deadline_ns;
    int64_t exit_late_ns;
    int64_t tolerance_ns;
    /* The start skew the driver judged (raw.csv start_skew_ns, the same on
     * every rank of an attempt, >= 0); -1 in a file written before it was
     * recorded. */
    int64_t start_skew_ns;
    bool late; /* the driver discarded this attempt */
} raw_row;

/* After a successful parse, cells are sorted by cell number and rows by
 * (cell, block, kind, attempt, rank); no two rows share those five keys, the
 * rows of a (cell, block) share one role and the rows of an attempt one late
 * flag. */
typedef struct raw_table {
    raw_cell *cells;
    size_t cell_count;
    raw_row *rows;
    size_t row_count;
} raw_table;

/* Parses the whole text of raw.csv (buf need not be NUL-terminated and may
 * hold any bytes: this is the entry point for fuzzing). file_name is only used
 * in messages. The header of an older bench_nbc (rep, retries) is refused
 * with a message saying so. On failure the table is left empty. */
int analysis_parse_raw(const char *buf, size_t len, const char *file_name, raw_table *table,
                       analysis_error *err);
void analysis_raw_table_free(raw_table *table);

/* nbc-trace: every attempt of one cell (its `cell` number) as Chrome trace /
 * Perfetto JSON on out: a track (tid) per rank, a complete event per
 * attempt named after its kind with args block, role, attempt, seq, late,
 * exit_late_ns, and its phases start (t1..t2), compute (t2..t3), wait
 * (t3..t4) nested inside when they last. ANALYSIS_ERR_INPUT when the cell
 * is not in the table. */
int analysis_trace_cell(const raw_table *table, long cell, FILE *out, analysis_error *err);

/* ---- The other input files ------------------------------------------------ */

typedef struct calib_comm_row {
    char collective[ANALYSIS_NAME_MAX];
    double comm_target_s;
    long long bytes;
    double t_comm_s; /* the calibrated time (a span, section 4.1) */
    bool converged;
    bool size_given; /* grid.comm_sizes gave bytes; comm_target_s is t_comm_s */
} calib_comm_row;

typedef struct calib_comp_row {
    double comp_target_s;
    long long matrix_n;
    double t_comp_s;
    bool converged;
} calib_comp_row;

/* When a computation-only step was timed: after calibration (before the
 * sweep) or after the sweep. */
enum run_phase { PHASE_BEFORE, PHASE_AFTER, PHASE_COUNT };
const char *analysis_phase_name(enum run_phase phase);

typedef struct passive_row {
    char host[ANALYSIS_NAME_MAX];
    long rank;
    long threads;
    long long matrix_n;
    double comp_target_s;
    enum run_phase phase;
    long warmup_steps;
    long reps;
    long step; /* 0 .. reps-1 */
    double t_comp_s;
    /* The scheduler's counters over the step (ns), NAN when the file has
     * no such column (an older bench_nbc) or the rank could not read them
     * (-1 there): the computing threads' CPU time and run-queue delay, the
     * progress and library threads' CPU time. */
    double window_ns;
    double compute_cpu_ns;
    double compute_run_delay_ns;
    double progress_cpu_ns;
} passive_row;

typedef struct compute_ref_row {
    char host[ANALYSIS_NAME_MAX];
    long proc;
    long procs;
    long threads;
    long long matrix_n;
    double comp_target_s;
    enum run_phase phase;
    long warmup_steps;
    long reps;
    long step; /* 0 .. reps-1 */
    double t_comp_s;
    bool aa; /* phase "aa", the A/A partner just before: phase is PHASE_BEFORE */
} compute_ref_row;

int analysis_parse_calib_comm(const char *buf, size_t len, const char *file_name,
                              calib_comm_row **rows, size_t *count, analysis_error *err);
int analysis_parse_calib_comp(const char *buf, size_t len, const char *file_name,
                              calib_comp_row **rows, size_t *count, analysis_error *err);
int analysis_parse_passive(const char *buf, size_t len, const char *file_name, passive_row **rows,
                           size_t *count, analysis_error *err);
/* compute_ref.csv may be several nodes' files concatenated: a repeated header
 * line is skipped. */
int analysis_parse_compute_ref(const char *buf, size_t len, const char *file_name,
                               compute_ref_row **rows, size_t *count, analysis_error *err);

/* sweep.csv: how many blocks the driver ran in a cell and why it stopped. */
typedef struct sweep_row {
    long cell;
    long blocks;
    char stop[ANALYSIS_NAME_MAX]; /* nbc_stop_reason_name: fixed, precision, decided, ... */
} sweep_row;

int analysis_parse_sweep(const char *buf, size_t len, const char *file_name, sweep_row **rows,
                         size_t *count, analysis_error *err);

/* meta.json: the keys the analysis reads (docs/formats.md). */
typedef struct run_meta {
    bool present;
    char status[32];
    char collective[ANALYSIS_NAME_MAX];
    /* a scenario's parts, for the titles: "iallgather (S) + ireduce_scatter_block
       (S), run comm"; "" for one operation */
    char scenario[256];
    bool synthetic;
    char mpi[32];
    char mpi_library_version[256];
    /* the library as its users name it ("MPICH 4.0.2"): mpi_library_name,
     * else mpi_library's display_name and version; "" in older folders */
    char mpi_library_name[160];
    long ranks; /* 0 when unknown */
    long nodes;
    long threads_per_rank;
    char deployment[32];
    char progress[32];
    double late_tolerance;       /* NAN when absent */
    double barrier_precision_ns; /* NAN when absent */
    /* what makes runs launches of one configuration (nbc-compare) */
    char library_profile[32];  /* mpi_library.profile, else `mpi` */
    char library_version[256]; /* mpi_library.version, else mpi_library_version */
    uint64_t config_digest;    /* of `config` without run.seed, run.results_dir, run.force,
                                  and of `collective_settings` */
} run_meta;

int analysis_parse_meta(const char *buf, size_t len, const char *file_name, run_meta *meta,
                        analysis_error *err);

/* Everything read from one run folder. The have_* flags say which optional
 * files were present. */
typedef struct run_inputs {
    char dir[4096];
    run_meta meta;
    raw_table raw;
    calib_comm_row *calib_comm;
    size_t calib_comm_count;
    bool have_calib_comm;
    calib_comp_row *calib_comp;
    size_t calib_comp_count;
    bool have_calib_comp;
    passive_row *passive;
    size_t passive_count;
    bool have_passive;
    compute_ref_row *compute_ref;
    size_t compute_ref_count;
    bool have_compute_ref;
    sweep_row *sweep;
    size_t sweep_count;
    bool have_sweep;
} run_inputs;

int analysis_load_run(const char *run_dir, run_inputs *in, analysis_error *err);
void analysis_run_inputs_free(run_inputs *in);

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

/* An estimate's interval; NAN bounds when undefined. */
typedef struct metric_bounds {
    double lo;
    double hi;
} metric_bounds;

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
    metric_bounds r_overhead_ci;
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
    /* eq. 2 over the whole job at the cell's matrix_n (impact.c), NAN
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
    double comm_span;
    double comp_span;
    double measured_span;
    double comm_local;         /* comm_ref: slowest local t4 - t1 (eq. 4 denominator) */
    double comp_local;         /* comp_ref: slowest local t3 - t2 (eq. 3 denominator) */
    double mpi_from_last;      /* overlap: slowest (t2 - t1) + max(0, t4 - max(t3)) */
    double comp_overlap_local; /* overlap: slowest local t3 - t2 */
} block_values;

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

/* The standard normal quantile Phi^-1(p), 0 < p < 1. */
double analysis_normal_quantile(double p);

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

/* Bits of impact_row.warnings: the two programs ran unlike steps, or a
 * phase is in one file only. */
enum impact_warning {
    IMPACT_PROCS_DIFFER = 1 << 0,
    IMPACT_THREADS_DIFFER = 1 << 1,
    IMPACT_WARMUP_DIFFER = 1 << 2,
    IMPACT_REPS_DIFFER = 1 << 3,
    IMPACT_PHASE_UNPAIRED = 1 << 4,  /* a phase of one file has no partner in the other */
    IMPACT_STEPS_DIFFER = 1 << 5,    /* ranks or processes with unequal step counts */
    IMPACT_PHASES_DISAGREE = 1 << 6, /* no longer set: the paired interval covers it */
};
void analysis_impact_warnings_text(unsigned warnings, char *out, size_t out_size);

/* One row of impact.csv (eq. 2): per host and matrix_n, and per phase both
 * files have, T = the largest over the host's ranks (passive) or processes
 * (compute_ref) of each one's median over its steps; r = T_passive / T_ref
 * per phase (a pair close in time); over the phases their geometric mean,
 * its paired t-interval (impact/paired.h; README.md, "MPI impact"). */
typedef struct impact_row {
    char host[ANALYSIS_NAME_MAX]; /* "all" in impact_table.job */
    long long matrix_n;
    double comp_target_s;
    double t_comp_ref_s;         /* T of compute_ref, mean over the phases used */
    double t_comp_passive_mpi_s; /* T of passive, mean over the phases used */
    double r_mpi_impact;
    metric_bounds r_mpi_impact_ci;
    /* The A/A pair: compute_ref before's T over its partner's just before
     * (NAN without it), interval over the steps (README.md, "MPI impact") */
    double r_aa;
    metric_bounds r_aa_ci;
    double t_ref_aa_s;           /* the A/A partner's T (NAN without it) */
    size_t pairs;                /* impact pairs: the phases used */
    unsigned phases;             /* bit p: phase p is in both files and used */
    double r_phase[PHASE_COUNT]; /* NAN when the phase is not used */
    metric_bounds r_phase_ci[PHASE_COUNT];
    double t_passive_phase_s[PHASE_COUNT]; /* NAN when the phase is not in passive.csv */
    double t_ref_phase_s[PHASE_COUNT];     /* NAN when not in compute_ref.csv */
    long passive_steps;                    /* the fewest steps of a rank in a phase used */
    long ref_steps;                        /* the fewest steps of a process in a phase used */
    long ranks;                            /* the host's ranks in passive.csv */
    long procs;                            /* compute_ref's processes on the host */
    unsigned warnings;
    /* Why, from passive.csv's counters over the passive steps of the phases
     * used (NAN when a step lacks them): the computing threads' run-queue
     * delay / (their CPU time + delay), and the progress and library
     * threads' CPU time / (the computing threads' CPU time + delay). */
    double passive_delay_share;
    double passive_progress_cpu_share;
} impact_row;

/* The median of r_mpi_impact over rows, and of the A/A floor, with 95 %
 * intervals: from a joint bootstrap of the rounds over the job's sizes
 * (joint, analysis_compute_impact), or, from impact.csv's rows alone,
 * [median of the rows' lower ends, median of their upper ends]
 * (analysis_impact_median; README.md, "Median over the sizes"); NAN
 * without a row, the interval NAN when a row has none. */
typedef struct impact_median {
    double r_mpi_impact;
    metric_bounds ci;
    size_t rows; /* rows with a finite r_mpi_impact */
    double r_aa;
    metric_bounds r_aa_ci;
    bool joint;
} impact_median;

typedef struct impact_table {
    impact_row *rows; /* per host and matrix_n: impact.csv */
    size_t count;
    impact_row *job; /* per matrix_n over every host (the cells' r_mpi_impact) */
    size_t job_count;
    impact_median median; /* over job: the joint bootstrap's */
} impact_table;

/* Joins passive.csv and compute_ref.csv on host, matrix_n and phase, with
 * intervals drawn by the rules' bootstrap. Needs both (in->have_passive and
 * in->have_compute_ref). */
int analysis_compute_impact(const run_inputs *in, const uncertainty_rules *rules,
                            impact_table *impact, analysis_error *err);
int analysis_impact_median(const impact_row *rows, size_t count, impact_median *median,
                           analysis_error *err);
/* The row a run's summary names (never a median over the sizes): the
 * largest computation size's, of several hosts the most slowed one; NULL
 * without a finite r_mpi_impact. nbc-verdict's run_largest_impact reads
 * impact.csv by the same rule. */
const impact_row *analysis_impact_largest(const impact_row *rows, size_t count);
/* Copies the job's r_mpi_impact at each cell's matrix_n into the cells. */
void analysis_impact_into_cells(const impact_table *impact, cell_table *cells);
void analysis_impact_table_free(impact_table *impact);

/* ---- Tables ------------------------------------------------------------- */

/* cells.csv and cells_by_rank.csv into run_dir, and impact.csv when impact is
 * not NULL; each written to a temporary file and renamed into place. */
int analysis_write_tables(const char *run_dir, const cell_table *cells, const impact_table *impact,
                          analysis_error *err);

/* Reads back a cells.csv (the columns analysis_write_tables writes); rank
 * rows are not read. */
int analysis_parse_cells(const char *buf, size_t len, const char *file_name, cell_table *cells,
                         analysis_error *err);
/* Reads back an impact.csv. */
int analysis_parse_impact(const char *buf, size_t len, const char *file_name, impact_table *impact,
                          analysis_error *err);

/* ---- Figures and the whole pipeline -------------------------------------- */

/* The colour maps of the figures (--palette): perceptually uniform and
 * colour-blind safe (cividis, the default, or viridis for the value maps,
 * Paul Tol's "sunset" for ratios and differences; the bands take
 * schema/classes.def's colours), or the paper's section 5.2 colours. */
typedef enum plot_palette {
    PLOT_PALETTE_CIVIDIS,
    PLOT_PALETTE_VIRIDIS,
    PLOT_PALETTE_PAPER,
    PLOT_PALETTE_COUNT
} plot_palette;

/* The cells table a harness reads (cells.txt, nbc-analyze --table;
 * docs/formats.md): aligned text, or the same rows as JSON lines. */
typedef enum table_format { TABLE_NONE, TABLE_TEXT, TABLE_JSON, TABLE_FORMAT_COUNT } table_format;
/* "none", "text" or "json": 0, else -1. */
int analysis_table_format_parse(const char *name, table_format *format);

/* The printed size of every figure (--figure-size): a journal column
 * (3.5 in), a page width (7 in) or any WxH; height_in 0: each figure's
 * height follows from its layout. Text is at least 7 pt at that size. */
typedef struct figure_size {
    double width_in;
    double height_in;
} figure_size;
/* "column", "page" or "WxH" in inches (e.g. 5x3): 0, else -1. */
int plot_figure_size_parse(const char *text, figure_size *out);

typedef struct analysis_options {
    bool plots;            /* draw figures (scripts and data are always written) */
    double r_overhead_max; /* colour saturation of r_overhead maps, > 1 */
    plot_palette palette;  /* colour maps of every heatmap */
    figure_size figure;    /* printed size of every figure */
    bool titles;           /* a short title above each figure (the caption file always) */
    bool normalize_cores;  /* nbc-compare: compute times scaled to the most compute cores */
    FILE *report;          /* one-line summaries go here (NULL: none) */
    table_format table;    /* the cells table on stdout too (cells.txt is always written) */
    cell_rules rules;
    const long *ecdf_cells; /* cells whose distribution to draw (--ecdf) */
    size_t ecdf_count;
    long *valid_cells; /* when not NULL: set to the run's valid cells (nbc-analyze's exit 4) */
} analysis_options;

analysis_options analysis_default_options(void);

/* Writes the gnuplot scripts and data of a run's figures into run_dir/plots/
 * and runs gnuplot there (when options->plots). impact may be NULL. */
int analysis_plot_run(const char *run_dir, const run_meta *meta, const cell_table *cells,
                      const impact_table *impact, const analysis_options *options,
                      analysis_error *err);

/* Load, compute, write the tables and (options->plots) draw: nbc-analyze. */
int analysis_analyze_run(const char *run_dir, const analysis_options *options, analysis_error *err);

/* nbc-compare: two or more run folders drawn side by side on their common
 * cells into out_dir; runs without cells.csv are analyzed first. The summary
 * table goes to options->report and out_dir/summary.csv. */
int analysis_compare_runs(const char *const *run_dirs, size_t run_count, const char *out_dir,
                          const analysis_options *options, analysis_error *err);

#endif
