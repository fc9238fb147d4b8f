/* analysis: helpers shared by the module's own files. Not part of the public
 * API (analysis.h); no other module includes this. */
#ifndef ANALYSIS_INTERNAL_H
#define ANALYSIS_INTERNAL_H

#include "analysis/analysis.h"
#include "schema/schema.h"

#include <stdarg.h>

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

/* ---- Command lines (nbc-analyze, nbc-compare; tool_options.c) -------------- */

/* The options both tools take: getopt_long codes and their help lines. */
/* The cells table of a run in `format` (harness_table.c). */
int analysis_print_table(FILE *out, table_format format, const char *run_dir, const run_meta *meta,
                         const cell_table *cells, analysis_error *err);

enum {
    CLI_NO_PLOTS = 'n',
    CLI_OVERHEAD_MAX = 'm',
    CLI_PALETTE = 'p',
    CLI_VERSION = 'V',
    CLI_FIGURE_SIZE = 0x300, /* long options only */
    CLI_NO_TITLES,
};
const char *cli_common_help(void);
/* Applies a common option: 1 when opt was one (applied), 0 when it is not,
 * -1 when its value is bad (the message is printed). */
int cli_common_option(const char *program, int opt, const char *arg, analysis_options *options);
/* Prints a run's outcome; returns the exit status so far (the worst). A
 * missing gnuplot is reported but is not a failure. */
int cli_report_status(const char *program, int status, const analysis_error *err, int worst);

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

/* ---- Statistics ---------------------------------------------------------- */

/* Median and quartiles with linear interpolation between order statistics
 * (the usual "type 7" definition). Sorts values in place; NAN when n == 0. */
double stats_median(double *values, size_t n);
double stats_quantile_sorted(const double *sorted, size_t n, double q);
void stats_sort(double *values, size_t n);

/* Student's t quantile with df degrees of freedom (df >= 1), and the
 * standard normal distribution function. */
double stats_student_quantile(double p, long df);
double stats_normal_cdf(double x);

/* Sarle's bimodality coefficient (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3)))
 * with the sample skewness g and excess kurtosis k; NAN below 4 values. */
double stats_bimodality(const double *values, size_t n);

/* The share of sorted values outside Tukey's fences (quartiles -+ 1.5 IQR);
 * those inside are sorted[first_inside .. first_inside + inside). */
double stats_outside_fences(const double *sorted, size_t n, size_t *first_inside, size_t *inside);

/* ---- Block bootstrap (bootstrap.c) ----------------------------------------- */

/* A reproducible generator (xoshiro256**): a seed and a stream number (one
 * per cell and purpose) give the same draws on every machine. */
typedef struct boot_rng {
    uint64_t s[4];
} boot_rng;
void boot_rng_seed(boot_rng *rng, uint64_t seed, uint64_t stream);
/* A uniform draw in [0, n), n > 0. */
size_t boot_below(boot_rng *rng, size_t n);

enum { BOOT_MAX_SERIES = 12 };

/* Quantities computed from the medians (and the means) of a resample's
 * series; out has quantity_count entries. */
typedef void (*boot_statistic_fn)(const double *medians, const double *means, const void *ctx,
                                  double *out);

/* n blocks, series_count values per block: whole blocks are resampled, so
 * the values of one block stay together. */
typedef struct boot_problem {
    size_t n;
    size_t series_count;                   /* at most BOOT_MAX_SERIES */
    const double *series[BOOT_MAX_SERIES]; /* n values each */
    unsigned mean_mask;                    /* series whose mean is needed too */
    size_t quantity_count;
    boot_statistic_fn statistic;
    const void *ctx;
} boot_problem;

/* resamples x quantity_count replicates, row by row, into out. */
int boot_replicates(const boot_problem *problem, long resamples, boot_rng *rng, double *out,
                    analysis_error *err);

/* What the replicates of one quantity say: its interval at `confidence`
 * from n blocks (the percentile interval corrected for the bootstrap's
 * narrowness, README.md) and the replicates' standard deviation; NAN when
 * n < 2 or a replicate is not a number. The replicates are reordered. */
typedef struct boot_summary {
    metric_bounds ci;
    double se;
} boot_summary;
boot_summary boot_summarize(double *replicates, size_t count, size_t n, double confidence);

/* ---- A cell's estimates and intervals (intervals.c) ------------------------- */

/* The per-block statistics the metrics are medians of (README.md, "The
 * statistics"): spans across ranks and slowest local times. */
enum block_series {
    SERIES_COMM_SPAN,          /* comm_ref: max(t4) - min(t1), section 4.1 */
    SERIES_COMP_SPAN,          /* comp_ref: max(t3) - min(t2) */
    SERIES_MEASURED_SPAN,      /* overlap: max(t4) - min(t1) */
    SERIES_COMM_LOCAL,         /* comm_ref: slowest local t4 - t1 */
    SERIES_COMP_LOCAL,         /* comp_ref: slowest local t3 - t2 */
    SERIES_MPI_LOCAL,          /* overlap: slowest local (t2 - t1) + (t4 - t3) */
    SERIES_COMP_OVERLAP_LOCAL, /* overlap: slowest local t3 - t2 */
    SERIES_COMP_OF_MPI_RANK,   /* overlap: t3 - t2 of the rank of SERIES_MPI_LOCAL */
    /* overlap: slowest (t2 - t1) + max(0, t4 - max over ranks of t3), the
     * MPI time from the last rank's arrival at the wait (eq. 4) */
    SERIES_MPI_FROM_LAST,
    SERIES_COUNT
};

/* What cells.csv takes from the medians. */
enum cell_quantity {
    Q_R_OVERHEAD,        /* eq. 1 */
    Q_R_COMM,            /* eq. 4, the wait from the last rank's arrival */
    Q_R_COMP_SLOWDOWN,   /* eq. 3 */
    Q_COMM_TARGET_ERROR, /* t_comm_ref / comm_target_s - 1 */
    Q_COMP_TARGET_ERROR, /* t_comp_ref / comp_target_s - 1 */
    Q_R_OVERHEAD_MEAN,   /* eq. 1 on the mean overlap span */
    Q_R_COMM_LOCAL_WAIT, /* eq. 4 on each rank's own wait t4 - t3 */
    Q_COUNT
};

/* The quantities from the medians of the series and the means of those in
 * CELL_MEAN_SERIES (the overlap span): the one
 * definition of eqs. 1, 3 and 4 (estimates and resamples alike). */
enum { CELL_MEAN_SERIES = 1u << SERIES_MEASURED_SPAN };
void cell_quantities(const double median[SERIES_COUNT], const double mean[SERIES_COUNT],
                     double comm_target_s, double comp_target_s, double q[Q_COUNT]);

/* One measured cell's usable blocks as series, and its null pairs (null,
 * reference) over the blocks holding both. */
typedef struct cell_series {
    size_t n;
    const double *values[SERIES_COUNT];
    size_t null_n[NULL_PAIR_COUNT];
    const double *null_values[NULL_PAIR_COUNT][2];
} cell_series;

/* A cell's estimates of the quantities and their intervals at the rules'
 * confidence (NAN for a cell without blocks). */
typedef struct cell_uncertainty {
    double estimate[Q_COUNT];
    boot_summary interval[Q_COUNT];
} cell_uncertainty;

/* The bootstrap of one cell: its quantities' intervals into u and the
 * cell's _ci columns, the distribution of eq. 1 over blocks, the null
 * ratios and their intervals. */
int cell_intervals(const cell_series *series, const cell_rules *rules, cell_metrics *cell,
                   cell_uncertainty *u, analysis_error *err);

/* After every cell: each cell's target flags and the run's summary. */
void summarize_run(cell_table *cells, const cell_rules *rules);

/* Relative comparison of targets written with different precision. */
bool analysis_same_target(double a, double b);

/* ---- Heatmaps (plot.c, used by compare_draw.c) ---------------------------- */

/* The grid of distinct targets: positions on a log2 scale of milliseconds. */
typedef struct heat_axis {
    double *targets_s; /* sorted, distinct */
    size_t count;
    long long *physical; /* per target: message bytes (x) or GEMM order (y), 0 unknown;
                          * NULL: none (heat_axis_set_physical) */
    bool physical_is_bytes;
    long long *physical_alt; /* a second run's values where they read differently (a
                              * difference map); NULL: none (heat_axis_set_physical_alt) */
    bool physical_given;     /* the bytes are the axis (grid.comm_sizes), the times measured */
} heat_axis;

int heat_axis_build(heat_axis *axis, const double *targets_s, size_t n, analysis_error *err);
void heat_axis_free(heat_axis *axis);
/* The second physical quantity of each target (cells.csv's bytes for the
 * communication axis, matrix_n for the computation axis): the first
 * positive value among the n (target, value) pairs; drawn under the times. */
int heat_axis_set_physical(heat_axis *axis, const double *targets_s, const long long *values,
                           size_t n, bool is_bytes, analysis_error *err);
/* A second run's values beside the first's (heat_axis_set_physical first):
 * kept only at the targets where they read differently at the ticks'
 * precision; none differing: no second values. */
int heat_axis_set_physical_alt(heat_axis *axis, const double *targets_s, const long long *values,
                               size_t n, analysis_error *err);
/* Position of a target time on a heatmap axis: log2 of milliseconds, the
 * same scale on both axes. */
double heat_axis_position(double target_s);
/* Index of target_s among the axis's targets, axis->count if absent. */
size_t heat_axis_index(const heat_axis *axis, double target_s);
/* The edges of cell i: halfway to its neighbours on the log scale. */
void heat_axis_bounds(const heat_axis *axis, size_t i, double *lo, double *hi);
/* A target time in ms as a tick label ("0.5", "16"). */
void plot_format_ms(double target_s, char *out, size_t out_size);
/* Axes, ticks and the t_comp = t_comm diagonal shared by every heatmap. */
void heat_emit_grid(strbuf *script, const heat_axis *x_axis, const heat_axis *y_axis,
                    const char *title);

/* One cell of a heatmap data file. */
typedef struct heat_value {
    double comm_target_s;
    double comp_target_s;
    double value;
    bool valid;
    const char *invalid_label; /* shown on an invalid cell; NULL: "invalid" */
    bool uncertain;            /* hatched, its label followed by '?' */
    int beyond;                /* +1, -1: surely above, below the scale's saturated end */
} heat_value;

/* The label of an invalid cell: its reason when it is the only one
 * ("unreachable", "late"), else "invalid"; all abbreviated ("unr.") where
 * the longest would not fit a cell cell_pt wide. */
const char *plot_invalid_label(const cell_metrics *cell, double cell_pt);
/* Whether the invalid cells' labels are abbreviated in cells cell_pt wide,
 * and the caption's sentence that explains the abbreviations. */
bool plot_invalid_abbreviated(double cell_pt);
extern const char plot_invalid_legend[];

/* A colour scale: name, range and palette stops (value, colour). */
typedef struct heat_scale {
    const char *label;
    double min;
    double max;
    const char *palette;  /* gnuplot "defined (...)" list, over [min, max] */
    double dark_fraction; /* labels are white this close to either end */
    bool dark_low_only;   /* ... to the low end only (a sequential map, dark to light) */
    bool log;             /* a log colour scale (ratios: centred at 1) */
    const char *tics;     /* the colour box's ticks, a gnuplot list; NULL: automatic */
    bool white_band;      /* labels white in [white_lo, white_hi] only (not the ends rule) */
    double white_lo, white_hi;
    bool hide_colorbox; /* panels sharing one colour bar: all but one hide it */
    bool shared_bar;    /* ... and the one shown sits in the right margin (set rmargin) */
    /* values beyond max (min) take its colour, the end tick reads ">= max"
     * ("<= min") and cells whose heat_value.beyond says so are marked */
    bool saturate_high, saturate_low;
} heat_scale;

/* Writes "x y xlo xhi ylo yhi value valid label textcolour uncertain beyond" lines;
 * the values with fewer decimals where two would not fit cell_pt (0: no
 * limit, heat_cell_width_pt). */
int heat_write_data(const char *path, const heat_axis *x_axis, const heat_axis *y_axis,
                    const heat_value *values, size_t n, const heat_scale *scale, double cell_pt,
                    analysis_error *err);

/* The width (pt) of text in the figures' font at font_pt. */
double plot_text_width_pt(const char *text, double font_pt);
/* Whether a cell label at PLOT_LABEL_PT fits a cell cell_pt wide (0: any). */
bool plot_label_fits(const char *text, double cell_pt);

/* The mark of a cell whose r_overhead interval leaves its band, the same on
 * every map: a layer drawing an outline inside columns 3-6 (xlo xhi ylo
 * yhi) of quoted_file's lines where the gnuplot expression condition holds,
 * titled key_title (NULL: notitle). */
void heat_emit_uncertain_layer(strbuf *script, const char *quoted_file, const char *condition,
                               const char *key_title);
/* Emits the commands that draw one heatmap panel from data_file. */
void heat_emit_panel(strbuf *script, const char *data_file, const heat_axis *x_axis,
                     const heat_axis *y_axis, const heat_scale *scale, const char *title);

/* Script prologue and epilogue that render the body once per output format
 * (PNG, SVG, PDF): body must be a sequence of commands. */
void plot_emit_script(strbuf *script, const char *base_name, const char *comment, double width_in,
                      double height_in, const char *body);
/* Text of every figure (pt at the printed size): PLOT_FONT_PT for titles,
 * axes and keys, PLOT_LABEL_PT for the values in cells; 7 pt is the
 * smallest a journal prints. */
enum { PLOT_FONT_PT = 8, PLOT_LABEL_PT = 7 };
/* The tallest figure a journal's column takes (in): stacked panels taller
 * are shrunk to it or drawn as separate figures. */
#define PLOT_PRINT_HEIGHT_MAX_IN 5.0

/* plots/not_drawn.txt (docs/formats.md): a line "NAME<TAB>why" per figure
 * that had nothing to show. plot_record_not_drawn sets base's line (reason
 * NULL: removes it) and, for a figure not drawn, deletes its files of an
 * earlier analysis. */
#define PLOT_NOT_DRAWN_FILE "not_drawn.txt"
int plot_record_not_drawn(const char *dir, const char *base, const char *reason,
                          analysis_error *err);
/* Removes dir/base.{png,svg,pdf,gp,caption.txt} where they exist, and
 * base.dat with with_data (not where another figure draws it). */
int plot_remove_figure(const char *dir, const char *base, bool with_data, analysis_error *err);
/* dir/base.gp (plot_emit_script) and dir/base.caption.txt: comment, then
 * caption (docs/formats.md). */
int plot_write_figure(const char *dir, const char *base, const char *comment, double width_in,
                      double height_in, const strbuf *body, const char *caption,
                      analysis_error *err);

/* After gnuplot: dir/base.caption.txt's first line (the title) and the
 * rest (the caption) into base.svg's <title> and <desc> and base.pdf's
 * Title and Subject (analysis/plot_meta.c). No caption file: nothing. */
int plot_figure_metadata(const char *dir, const char *base, analysis_error *err);

/* Starts a one-panel multiplot whose title is centred on the page (not on
 * the narrow plot area); the body ends it with "unset multiplot". */
void plot_emit_canvas_title(strbuf *script, const char *title);

/* Escapes text for a double-quoted gnuplot string ("\n" starts a line). */
void plot_quote(const char *text, char *out, size_t out_size);
/* nbc-compare's r_overhead against the rank count: one line per collective,
 * data block `i` of data_file (x ranks, y mean, error bars min and max
 * over the common cells) titled names[i]. */
void plot_emit_ranks_lines(strbuf *script, const char *data_file, const char *const *names,
                           size_t count);

/* The canvas of panels heatmaps of one grid at the printed size: side by
 * side where each gets a readable width, else one above the other; the
 * height (unless the size fixes it) from square cells and title_lines. */
typedef struct heat_layout {
    int rows, cols; /* of the multiplot */
    double width_in, height_in;
} heat_layout;
heat_layout heat_figure_layout(const figure_size *size, const heat_axis *x_axis,
                               const heat_axis *y_axis, size_t panels, int title_lines);
/* The narrowest cell's width (pt) at the printed size of that layout: the
 * room of a cell's label. */
double heat_cell_width_pt(const figure_size *size, const heat_axis *x_axis, const heat_axis *y_axis,
                          size_t panels, int title_lines);

/* The r_overhead palette: blue < 0, green 0, yellow 1, red from r_max on. */
void plot_overhead_palette(double r_max, char *out, size_t out_size);

/* --palette NAME: 0 and *out set, or -1 when NAME is none of
 * plot_palette_names() ("default, viridis, cividis"). */
int plot_palette_parse(const char *name, plot_palette *out);
const char *plot_palette_names(void);
const char *plot_palette_name(plot_palette palette);
/* The scales of the heatmaps in a palette: r_overhead's (its stops written
 * into stops, which the scale points to; over [0, 1] saturated at both ends,
 * the paper palette's over [-1, r_max]), a best (low)
 * to worst (high) map, and a difference map over [-saturation, saturation]. */
heat_scale plot_overhead_scale(plot_palette palette, const char *label, double r_max, char *stops,
                               size_t stops_size);
heat_scale plot_sequential_scale(plot_palette palette, const char *label, double min, double max);
heat_scale plot_diverging_scale(plot_palette palette, const char *label, double saturation);
/* A ratio's scale (r_comm, r_comp_slowdown): log, centred at 1 (unchanged),
 * from 1/saturation to saturation, a diverging map. */
heat_scale plot_ratio_scale(plot_palette palette, const char *label, double saturation);
/* An interval width's scale: sequential from 0 (exact) to max, saturated
 * above max. */
heat_scale plot_width_scale(plot_palette palette, const char *label, double max);

/* "library, R ranks x T threads" separator "D deployment[, SYNTHETIC data]". */
void plot_title_tail(const run_meta *meta, const cell_table *cells, const char *separator,
                     char *out, size_t out_size);
/* A figure title's tail: the library and the deployment ("MPICH 4.0.2, basic"). */
void plot_short_tail(const run_meta *meta, char *out, size_t out_size);
/* The library as its users name it ("MPICH 4.0.2", "Open MPI 4.1.4"):
 * meta.json's mpi_library_name, else read from the raw version text
 * ("MPICH Version: 4.0.2", "Open MPI v4.1.4, package: ..."), else the
 * profile; "library unknown" without any. */
void plot_library_name(const run_meta *meta, char *out, size_t out_size);

/* Runs `gnuplot script` inside dir. ANALYSIS_NO_GNUPLOT when gnuplot is not
 * installed (err says how to install it). */
int plot_run_gnuplot(const char *dir, const char *script, analysis_error *err);
bool plot_gnuplot_available(void);

#endif
