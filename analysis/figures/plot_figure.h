/* analysis: what the figures of one run (plot.c's analysis_plot_run) share:
 * the run's axes, titles and sizes, and the writers of a figure's data and
 * script. Only the figure files of analysis/ include it. */
#ifndef ANALYSIS_PLOT_FIGURE_H
#define ANALYSIS_PLOT_FIGURE_H

#include "analysis/figures/figures.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"

typedef struct plot_ctx {
    const char *plots_dir;
    const cell_table *cells;
    heat_axis x_axis;
    heat_axis y_axis;
    char title_tail[400]; /* library, ranks x threads, deployment: the captions */
    char short_tail[160]; /* library, deployment: the titles */
    const char *scenario; /* a scenario's parts, the titles' second line; "" for one operation */
    figure_size size;     /* printed size (--figure-size) */
    bool titles;          /* --no-titles: none */
    plot_palette palette;
    cell_thresholds thresholds; /* the run's: off_target_max_error in the map's title */
} plot_ctx;

/* A figure's data into plots/name; the buffer is freed. */
int plot_write_data(const plot_ctx *ctx, const char *name, strbuf *data, analysis_error *err);
/* NAME.gp and NAME.caption.txt: the caption ends with the run's
 * provenance, which the short title leaves out. */
int plot_write_script(const plot_ctx *ctx, const char *base, const char *comment, double width_in,
                      double height_in, strbuf *body, const char *caption, analysis_error *err);
/* The figure's title ("ibcast r_overhead, MPICH 4.0.2, basic"; a scenario's
 * parts below it) into out, or none under --no-titles; the title lines it
 * takes. collective may be NULL. */
int plot_short_title(const plot_ctx *ctx, const char *what, const char *collective, char *out,
                     size_t out_size);
/* The run's collective (meta.json, else its first cell's). */
const char *plot_run_collective(const run_meta *meta, const cell_table *cells);

/* The MPI impact figure (plot_impact.c) and one cell's distribution over
 * blocks (plot_ecdf.c, --ecdf). */
int plot_impact(const plot_ctx *ctx, const impact_table *impact, analysis_error *err);
int plot_ecdf(const plot_ctx *ctx, const run_meta *meta, long cell_number, analysis_error *err);

#endif
