/* analysis/inputs: the bottom room of the analysis. The files a run folder
 * holds (docs/formats.md: raw.csv, calib_comm.csv, calib_comp.csv,
 * passive.csv, compute_ref.csv, sweep.csv, meta.json) read into tables, and
 * what every room above shares: the error type, messages, files, growable
 * strings and the CSV reader of schema/columns.def. No statistics, no
 * metrics.
 *
 * MPI-free: reads the files a run wrote, so it can be re-run on old
 * results. Every function that can fail returns an analysis_status and, on
 * failure, fills an analysis_error with one message naming the file, line
 * and column (or key) at fault. Warnings (a missing optional file, a
 * skipped row) go to stderr and do not fail. */
#ifndef ANALYSIS_INPUTS_INPUTS_H
#define ANALYSIS_INPUTS_INPUTS_H

#include "schema/schema.h"

#include <stdarg.h>
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
    /* The part of t1..t4 this rank's main thread waited for a CPU another
     * process held (raw.csv foreign_wait_ns, >= 0); -1 when not read or in
     * a file written before it was recorded. */
    int64_t foreign_wait_ns;
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

/* ---- Messages ------------------------------------------------------------ */

/* Formats err and returns status, so callers can `return fail(...)`. */
int analysis_fail(analysis_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void analysis_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A value as it may be shown in a message: printable, escaped, shortened. */
void analysis_quote(const char *value, size_t len, char *out, size_t out_size);

/* Names of flag bits: "none" or the names of the set bits joined by '+'. */
typedef struct bit_name {
    unsigned bit;
    const char *name;
} bit_name;
void bits_text(const bit_name *names, size_t count, unsigned bits, char *out, size_t out_size);

/* ---- Files --------------------------------------------------------------- */

/* Reads a whole file. Returns ANALYSIS_OK, ANALYSIS_ERR_INPUT when it does not
 * exist (*missing set) or ANALYSIS_ERR_SYSTEM. The buffer is NUL-terminated. */
int analysis_read_file(const char *path, char **buf, size_t *len, bool *missing,
                       analysis_error *err);
/* dir + "/" + name into out; fails when it does not fit. */
int analysis_path(char *out, size_t out_size, const char *dir, const char *name,
                  analysis_error *err);
/* Writes text to path through path.tmp and a rename. */
int analysis_write_file_atomic(const char *path, const char *text, size_t len, analysis_error *err);
int analysis_make_dir(const char *path, analysis_error *err);

/* A growable string: appends never fail silently (ok turns false). */
typedef struct strbuf {
    char *data;
    size_t len;
    size_t capacity;
    bool ok;
} strbuf;
void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_free(strbuf *sb);

/* ---- CSV ----------------------------------------------------------------- */

/* Cells a sweep can reach by far (raw.csv, sweep.csv); beyond them the file
 * is not a run's. */
static const long long raw_max_cells = 1 << 20;

#define CSV_MAX_FIELDS 128

/* What a reader reads of one file of schema/columns.def: the columns it
 * needs (the file may have more, in any order; columns are found by name).
 * A missing column listed in new_columns means the file predates the
 * format: the message says it was written by an older writer. */
typedef struct csv_schema {
    schema_file file;
    const schema_column *columns;
    size_t column_count;
    bool skip_repeated_header;
    const schema_column *new_columns;
    size_t new_column_count;
} csv_schema;
/* `array, its length` for the initializers of csv_schema. */
#define CSV_COLUMNS(array) (array), (sizeof(array) / sizeof *(array))

typedef struct csv_record {
    const char *file_name;
    long line;
    size_t field_count;
    char *fields[CSV_MAX_FIELDS];
    const char *header[CSV_MAX_FIELDS];
    schema_column first;             /* the file's first column */
    size_t column_count;             /* and how many it has */
    size_t position[CSV_MAX_FIELDS]; /* column - first -> field position, or SIZE_MAX */
} csv_record;

/* The field position of `column` in the record's header (SIZE_MAX: none). */
size_t csv_field_position(const csv_record *record, schema_column column);

typedef int (*csv_row_fn)(const csv_record *record, void *ctx, analysis_error *err);

/* Calls row_fn for every data line. Errors name file, line and column. */
int csv_parse(const char *buf, size_t len, const char *file_name, const csv_schema *schema,
              csv_row_fn row_fn, void *ctx, analysis_error *err);

/* Field accessors by the schema's column; they report bad values (and a
 * column the file lacks that the reader did not require). */
int csv_long(const csv_record *record, schema_column column, long long min, long long max,
             long long *out, analysis_error *err);
int csv_double(const csv_record *record, schema_column column, bool allow_nan, double *out,
               analysis_error *err);
int csv_string(const csv_record *record, schema_column column, char *out, size_t out_size,
               analysis_error *err);
/* A field that must be one of names[0..count): its index into *out; the
 * message lists the allowed names. */
int csv_name(const csv_record *record, schema_column column, const char *const *names, size_t count,
             int *out, analysis_error *err);

/* Rows of one type collected by a row function: csv_parse_rows hands its
 * row function a csv_rows as ctx; the function parses a row and csv_push-es
 * it. On failure *rows is NULL. */
typedef struct csv_rows {
    void *rows;
    size_t count;
    size_t capacity;
    size_t elem_size;
} csv_rows;
int csv_push(void *rows_ctx, const void *elem, analysis_error *err);
int csv_parse_rows(const char *buf, size_t len, const char *file_name, const csv_schema *schema,
                   csv_row_fn fn, size_t elem_size, void **rows, size_t *count,
                   analysis_error *err);

/* Appends one element to a growable array of elem_size elements. */
int analysis_grow(void **array, size_t *capacity, size_t count, size_t elem_size,
                  analysis_error *err);

/* Relative comparison of targets written with different precision. */
bool analysis_same_target(double a, double b);

#endif
