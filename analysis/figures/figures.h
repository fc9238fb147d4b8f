/* analysis/figures: every figure, written as gnuplot scripts and data and
 * drawn by gnuplot (paper section 5.2; analysis/README.md, "plots/"): a
 * run's heatmaps (plot*.c), the heatmap pieces nbc-compare draws with, and
 * the overlap frontier (frontier*.c). Also the options of the whole
 * pipeline (analysis_options), whose figure settings are read here. */
#ifndef ANALYSIS_FIGURES_FIGURES_H
#define ANALYSIS_FIGURES_FIGURES_H

#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"
#include "analysis/tables/tables.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* Writes the gnuplot scripts and data of a run's figures into run_dir/plots/
 * and runs gnuplot there (when options->plots). impact may be NULL. */
int analysis_plot_run(const char *run_dir, const run_meta *meta, const cell_table *cells,
                      const impact_table *impact, const analysis_options *options,
                      analysis_error *err);

/* ---- Heatmaps (plot*.c, used by compare/compare_draw.c) ---------------------------- */

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
 * Title and Subject (analysis/figures/plot_meta.c). No caption file: nothing. */
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

/* ---- The overlap frontier (frontier.c, frontier_plot.c; README.md,
 * "Overlap frontier"). For each communication target of a run's grid (a
 * row of cells of one message size), the largest computation target up to which the collective
 * stays hidden: every cell from the smallest computation up to it has r_overhead (eq. 1) at or
 * below a threshold. Its interval comes from the cells' 95 % block-bootstrap intervals: the lower
 * end where every interval's upper end is still at or below the threshold (surely hidden), the
 * upper end where every interval's lower end is (possibly hidden). A cell that is invalid or
 * without an estimate breaks the row: the frontier is then "not determined", never carried across
 * the cell. Times in seconds.
 *
 * Files: frontier.csv (schema/columns.def, docs/formats.md) and the figure
 * plots/frontier.{gp,dat,png,svg,pdf} beside nbc-analyze's others;
 * nbc-compare writes several runs' frontiers in OUT_DIR/compare_frontier.csv
 * and draws them in OUT_DIR/compare_frontier.*.
 * Both read cells.csv alone, so old analyzed runs get a frontier too. ---- */

/* How a row's scan ended (frontier.csv `status`). */
enum frontier_status {
    FRONTIER_WITHIN,         /* hidden up to a column, not at the next one */
    FRONTIER_BEYOND_GRID,    /* hidden at every column: the frontier is at least the last */
    FRONTIER_NONE,           /* not hidden at the smallest computation */
    FRONTIER_NOT_DETERMINED, /* a cell that cannot be read came first */
    FRONTIER_STATUS_COUNT
};
const char *frontier_status_name(enum frontier_status status);

/* One row of frontier.csv: one communication target. */
typedef struct frontier_row {
    double comm_target_s;
    long long bytes;     /* of the row's cells (the first valid one) */
    double t_comm_ref_s; /* median over the row's valid cells of t_comm_ref */
    double threshold;    /* of r_overhead */
    enum frontier_status status;
    double comp_target_s;       /* the frontier; NAN for none and not_determined */
    double comp_ci_lo_s;        /* every interval's upper end at or below the threshold up to it */
    double comp_ci_hi_s;        /* every interval's lower end ...; INFINITY: beyond the grid */
    double next_comp_target_s;  /* the first column not hidden (within, none); else NAN */
    double break_comp_target_s; /* the cell that broke the point scan; NAN when none did */
    char break_reason[ANALYSIS_NAME_MAX]; /* "none", "no_estimate" or the
                                           * invalid reasons ("unreachable", "late", ...) */
    /* at the frontier cell (NAN without one): eq. 1 and its interval, and
     * the time the step took beyond perfect overlap, Delta_measured of
     * section 3.1 = t_measured - max(t_comm_ref, t_comp_ref), with its
     * interval (eq. 1's times min(t_comm_ref, t_comp_ref)) */
    double r_overhead;
    metric_bounds r_overhead_ci;
    double lengthening_s;
    metric_bounds lengthening_ci_s;
    double r_comm; /* eq. 4: the collective's own time there, over its reference */
    metric_bounds r_comm_ci;
} frontier_row;

typedef struct frontier_table {
    frontier_row *rows; /* by communication target, ascending */
    size_t count;
} frontier_table;

/* The default threshold of r_overhead and its reason (README.md). */
double frontier_default_threshold(void);

/* The frontier of every communication target of cells (any order). */
int frontier_compute(const cell_table *cells, double threshold, frontier_table *out,
                     analysis_error *err);
void frontier_table_free(frontier_table *table);

/* frontier.csv's text (header from the schema). */
void frontier_csv_text(strbuf *sb, const frontier_table *table);
/* One row's fields from comm_target_s on, and "\n" (frontier.csv and
 * compare_frontier.csv). */
void frontier_csv_row(strbuf *sb, const frontier_row *r);

/* --frontier-threshold=R: 0 and *out set, else -1 after one message on
 * stderr naming the option and what it allows. */
int frontier_parse_threshold(const char *program, const char *text, double *out);

/* nbc-analyze: frontier.csv and plots/frontier.* of an analyzed run. */
int frontier_write_run(const char *run_dir, double threshold, const analysis_options *options,
                       analysis_error *err);

/* nbc-compare: the frontiers of the runs in out_dir/compare_frontier.csv
 * (schema/columns.def) and one figure, out_dir/compare_frontier.*, a curve
 * per run. */
int frontier_write_compare(const char *const *run_dirs, size_t run_count, const char *out_dir,
                           double threshold, const analysis_options *options, analysis_error *err);

#endif
