/* analysis: metrics per cell, diagnosis, tables and figures of a run folder.
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

enum raw_kind { RAW_KIND_COMM_REF, RAW_KIND_COMP_REF, RAW_KIND_OVERLAP, RAW_KIND_COUNT };
const char *analysis_raw_kind_name(enum raw_kind kind);

/* What identifies a cell; identical on every row of the cell. */
typedef struct raw_cell {
    long cell;
    char collective[ANALYSIS_NAME_MAX];
    double comm_target_s;
    double comp_target_s;
    long long bytes;
    long long matrix_n;
    long first_line; /* where the cell first appears, for messages */
} raw_cell;

typedef struct raw_row {
    size_t cell_index; /* into raw_table.cells */
    long line;         /* 1-based line in raw.csv */
    long rep;
    long rank;
    long retries;
    enum raw_kind kind;
    int64_t t_ns[4]; /* t1..t4, global time */
} raw_row;

/* After a successful parse, cells are sorted by cell number and rows by
 * (cell, kind, rep, rank); no two rows share those four keys. */
typedef struct raw_table {
    raw_cell *cells;
    size_t cell_count;
    raw_row *rows;
    size_t row_count;
} raw_table;

/* Parses the whole text of raw.csv (buf need not be NUL-terminated and may
 * hold any bytes: this is the entry point for fuzzing). file_name is only used
 * in messages. On failure the table is left empty. */
int analysis_parse_raw(const char *buf, size_t len, const char *file_name, raw_table *table,
                       analysis_error *err);
void analysis_raw_table_free(raw_table *table);

/* ---- The other input files ------------------------------------------------ */

typedef struct calib_comm_row {
    char collective[ANALYSIS_NAME_MAX];
    double comm_target_s;
    long long bytes;
    bool converged;
} calib_comm_row;

typedef struct calib_comp_row {
    double comp_target_s;
    bool converged;
} calib_comp_row;

typedef struct passive_row {
    char host[ANALYSIS_NAME_MAX];
    long rank;
    long threads;
    long long matrix_n;
    double comp_target_s;
    double t_comp_s;
} passive_row;

typedef struct compute_ref_row {
    char host[ANALYSIS_NAME_MAX];
    long threads;
    long long matrix_n;
    double t_comp_s;
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

/* meta.json: the keys the analysis reads (docs/formats.md). */
typedef struct run_meta {
    bool present;
    char status[32];
    char collective[ANALYSIS_NAME_MAX];
    bool synthetic;
    char mpi[32];
    char mpi_library_version[256];
    long ranks; /* 0 when unknown */
    long nodes;
    long threads_per_rank;
    char deployment[32];
    char progress[32];
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
} run_inputs;

int analysis_load_run(const char *run_dir, run_inputs *in, analysis_error *err);
void analysis_run_inputs_free(run_inputs *in);

/* ---- Metrics and diagnosis ------------------------------------------------ */

enum diagnosis {
    DIAG_OVERLAP,
    DIAG_NO_PROGRESS,
    DIAG_COMP_SLOWDOWN,
    DIAG_CONTENTION,
    DIAG_NOISE,
    DIAG_INVALID,
    DIAG_COUNT
};
const char *analysis_diagnosis_name(enum diagnosis diagnosis);
/* Returns false when name is not one of the names above. */
bool analysis_diagnosis_from_name(const char *name, enum diagnosis *diagnosis);

/* Thresholds of the diagnosis rules (section 3.3) and of validity; the values
 * and their reasons are in analysis_default_thresholds() and README.md. */
typedef struct diagnosis_thresholds {
    double overlap_max_r_overhead;
    double progressed_max_r_comm;
    double slowed_min_r_comp_slowdown;
    double slowed_min_share_of_overhead;
    double contention_min_r_comm;
    double noise_min_effect;
    double late_retries_max_per_rep;
} diagnosis_thresholds;

diagnosis_thresholds analysis_default_thresholds(void);

/* Bits of cell_metrics.invalid_reasons. */
enum invalid_reason {
    INVALID_COMM_CALIBRATION = 1 << 0,
    INVALID_COMP_CALIBRATION = 1 << 1,
    INVALID_LATE_RETRIES = 1 << 2,
    INVALID_NO_REPETITIONS = 1 << 3,
};
/* "none" or the reasons joined with '+', e.g. "comm_calibration+late_retries". */
void analysis_invalid_reasons_text(unsigned reasons, char *out, size_t out_size);

/* One row of cells.csv. Times in seconds; NAN where undefined. */
typedef struct cell_metrics {
    long cell;
    char collective[ANALYSIS_NAME_MAX];
    double comm_target_s;
    double comp_target_s;
    long long bytes;
    long long matrix_n;
    long reps;  /* overlap repetitions used */
    long ranks; /* ranks seen in the cell */
    bool valid;
    unsigned invalid_reasons;
    double t_comm_ref;
    double t_comp_ref;
    double t_measured;
    double t_call;
    double t_comp;
    double t_wait;
    double r_overhead;
    double r_comm;
    double r_comp_slowdown;
    double r_overhead_iqr;
    double overlap_osu_pct;
    double overlap_imb_pct;
    enum diagnosis diagnosis;
    long late_retries;
    double start_skew_s; /* median over overlap repetitions of max(t1) - min(t1) */
} cell_metrics;

/* One row of cells_by_rank.csv: a rank's own medians. */
typedef struct rank_metrics {
    size_t cell_index; /* into cell_table.cells */
    long rank;
    long reps;
    double t_comm_ref;
    double t_comp_ref;
    double t_measured;
    double t_call;
    double t_comp;
    double t_wait;
    double r_comm;
    double r_comp_slowdown;
    long deciding_reps; /* repetitions in which this rank finished last */
} rank_metrics;

typedef struct cell_table {
    cell_metrics *cells;
    size_t count;
    rank_metrics *ranks;
    size_t rank_count;
} cell_table;

/* Applies the rules of section 3.3, in the order of README.md. */
enum diagnosis analysis_diagnose(const cell_metrics *cell, const diagnosis_thresholds *thresholds);

/* Metrics of every cell of the run (section 4.1 spans, eqs. 1, 3, 4). */
int analysis_compute_cells(const run_inputs *in, const diagnosis_thresholds *thresholds,
                           cell_table *cells, analysis_error *err);
void analysis_cell_table_free(cell_table *cells);

/* One row of impact.csv (eq. 2). */
typedef struct impact_row {
    char host[ANALYSIS_NAME_MAX];
    long long matrix_n;
    double comp_target_s;
    double t_comp_ref_s;
    double t_comp_passive_mpi_s;
    double r_mpi_impact;
} impact_row;

typedef struct impact_table {
    impact_row *rows;
    size_t count;
} impact_table;

/* Joins passive.csv and compute_ref.csv on host and matrix_n. Needs both
 * (in->have_passive and in->have_compute_ref). */
int analysis_compute_impact(const run_inputs *in, impact_table *impact, analysis_error *err);
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

typedef struct analysis_options {
    bool plots;            /* draw figures (scripts and data are always written) */
    double r_overhead_max; /* colour saturation of r_overhead maps, > 1 */
    FILE *report;          /* one-line summaries go here (NULL: none) */
    diagnosis_thresholds thresholds;
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
