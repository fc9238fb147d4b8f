/* analysis: the figures of section 5.2, drawn by gnuplot. For every figure a
 * script (NAME.gp) and its data (NAME*.dat) are written into plots/, so a
 * user can tweak and re-run them; gnuplot then renders PNG, SVG and PDF. */
#include "analysis/analysis_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* room for the tick labels, axis label and colour box of one panel */
enum { PLOT_MARGIN_X_PX = 330 };

static const double r_comm_max = 1.5;   /* > 1: slower than the reference (eq. 4) */
static const double slowdown_max = 1.5; /* 50 % slower computation, as in the paper's fig. 9 */
/* an interval as wide as serialized is from perfect overlap says nothing */
static const double interval_width_max = 1.0;

typedef struct plot_ctx {
    const char *plots_dir;
    const cell_table *cells;
    heat_axis x_axis;
    heat_axis y_axis;
    char title_tail[400]; /* library, ranks x threads, deployment */
    int width_px;
    int height_px;
    plot_palette palette;
    diagnosis_thresholds thresholds; /* the run's: off_target_max_error in the map's title */
} plot_ctx;

static void compact_library(const run_meta *meta, char *out, size_t out_size)
{
    const char *text = meta->mpi_library_version[0] ? meta->mpi_library_version : meta->mpi;
    size_t o = 0;
    bool space = false;
    /* the version's first clause is the readable part ("Open MPI v4.1.4") */
    for (size_t i = 0; text[i] && text[i] != ';' && o + 1 < out_size && o < 40; i++) {
        bool is_space = text[i] == ' ' || text[i] == '\t';
        if (is_space && (space || o == 0))
            continue;
        out[o++] = is_space ? ' ' : text[i];
        space = is_space;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    if (o == 0)
        snprintf(out, out_size, "library unknown");
}

void plot_title_tail(const run_meta *meta, const cell_table *cells, const char *separator,
                     char *out, size_t out_size)
{
    char library[64];
    compact_library(meta, library, sizeof library);
    long ranks = meta->ranks;
    for (size_t i = 0; ranks == 0 && i < cells->count; i++)
        ranks = cells->cells[i].ranks;
    char threads[32] = "?";
    if (meta->threads_per_rank > 0)
        snprintf(threads, sizeof threads, "%ld", meta->threads_per_rank);
    snprintf(out, out_size, "%s, %ld rank%s x %s thread%s%s%s deployment%s", library, ranks,
             ranks == 1 ? "" : "s", threads, meta->threads_per_rank == 1 ? "" : "s", separator,
             meta->deployment[0] ? meta->deployment : "unknown",
             meta->synthetic ? ", SYNTHETIC data" : "");
}

static int plot_path(const plot_ctx *ctx, const char *name, char *out, size_t out_size,
                     analysis_error *err)
{
    return analysis_path(out, out_size, ctx->plots_dir, name, err);
}

/* A figure's data into plots/name; the buffer is freed. */
static int write_plot_data(const plot_ctx *ctx, const char *name, strbuf *data, analysis_error *err)
{
    char path[4200];
    int status = data->ok ? plot_path(ctx, name, path, sizeof path, err)
                          : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, data->data, data->len, err);
    strbuf_free(data);
    return status;
}

static int write_script(const plot_ctx *ctx, const char *base, const char *comment, int width_px,
                        int height_px, strbuf *body, analysis_error *err)
{
    strbuf script = {0};
    char path[4200], name[128];
    snprintf(name, sizeof name, "%s.gp", base);
    plot_emit_script(&script, base, comment, width_px, height_px, body->data ? body->data : "");
    int status = body->ok && script.ok
                     ? plot_path(ctx, name, path, sizeof path, err)
                     : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, script.data, script.len, err);
    strbuf_free(&script);
    return status;
}

const char *plot_invalid_label(const cell_metrics *cell)
{
    static const struct {
        unsigned reasons;
        const char *label;
    } labels[] = {
        {INVALID_UNREACHABLE, "unreach."},
        {INVALID_NOT_MEASURED, "not run"},
        {INVALID_LATE, "late"},
    };
    for (size_t i = 0; i < sizeof labels / sizeof *labels; i++)
        if (cell->invalid_reasons == labels[i].reasons)
            return labels[i].label;
    return "invalid";
}

typedef double (*cell_value_fn)(const cell_metrics *cell);
static double value_r_overhead(const cell_metrics *c)
{
    return c->r_overhead;
}
static double value_r_comm(const cell_metrics *c)
{
    return c->r_comm;
}
static double value_r_comp_slowdown(const cell_metrics *c)
{
    return c->r_comp_slowdown;
}
static double value_r_overhead_width(const cell_metrics *c)
{
    return c->r_overhead_ci.hi - c->r_overhead_ci.lo;
}

static int write_heat_file(const plot_ctx *ctx, const char *name, cell_value_fn value,
                           const heat_scale *scale, analysis_error *err)
{
    const cell_table *cells = ctx->cells;
    heat_value *values = malloc((cells->count ? cells->count : 1) * sizeof *values);
    if (!values)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (heatmap)");
    for (size_t i = 0; i < cells->count; i++)
        values[i] = (heat_value){cells->cells[i].comm_target_s,
                                 cells->cells[i].comp_target_s,
                                 value(&cells->cells[i]),
                                 cells->cells[i].valid,
                                 plot_invalid_label(&cells->cells[i]),
                                 cells->cells[i].diagnosis == DIAG_UNCERTAIN};
    char path[4200];
    int status = plot_path(ctx, name, path, sizeof path, err);
    if (status == ANALYSIS_OK)
        status =
            heat_write_data(path, &ctx->x_axis, &ctx->y_axis, values, cells->count, scale, err);
    free(values);
    return status;
}

static const char *run_collective(const run_meta *meta, const cell_table *cells)
{
    if (meta->collective[0])
        return meta->collective;
    return cells->count ? cells->cells[0].collective : "?";
}

/* The third title line of the value maps: what the hatching means. */
static void uncertainty_note(const plot_ctx *ctx, char *out, size_t out_size)
{
    const uncertainty_summary *u = &ctx->cells->uncertainty;
    snprintf(out, out_size,
             "hatched, '?': uncertain (not confirmed at a false-discovery rate of %g over %ld "
             "cells; or under %ld blocks)",
             u->false_discovery_rate, u->family_cells, u->min_blocks);
}

/* Section 5.2's r_overhead map, and beside it the width of each cell's 95 %
 * interval: a value is read with its uncertainty. */
static int plot_overhead(const plot_ctx *ctx, const run_meta *meta, double r_max,
                         analysis_error *err)
{
    char title[900], label[100], stops[200], note[300];
    uncertainty_note(ctx, note, sizeof note);
    snprintf(title, sizeof title,
             "%s: overhead ratio r_overhead (0 overlap, 1 serialized) and its interval\n%s\n%s",
             run_collective(meta, ctx->cells), ctx->title_tail, note);
    snprintf(label, sizeof label, "r_overhead (saturates at %g)", r_max);
    heat_scale scale = plot_overhead_scale(ctx->palette, label, r_max, stops, sizeof stops);
    char width_label[100];
    snprintf(width_label, sizeof width_label, "%.0f %% interval width (saturates at %g)",
             100 * ctx->cells->uncertainty.rules.confidence, interval_width_max);
    heat_scale width = plot_sequential_scale(ctx->palette, width_label, 0, interval_width_max);
    int status = write_heat_file(ctx, "overhead.dat", value_r_overhead, &scale, err);
    if (status == ANALYSIS_OK)
        status = write_heat_file(ctx, "overhead_ci_width.dat", value_r_overhead_width, &width, err);
    if (status != ANALYSIS_OK)
        return status;
    char quoted[1000];
    plot_quote(title, quoted, sizeof quoted);
    strbuf body = {0};
    strbuf_printf(&body, "    set multiplot layout 1,2 title \"%s\"\n", quoted);
    heat_emit_panel(&body, "overhead.dat", &ctx->x_axis, &ctx->y_axis, &scale, "r_overhead");
    heat_emit_panel(&body, "overhead_ci_width.dat", &ctx->x_axis, &ctx->y_axis, &width,
                    "r_overhead_ci_hi - r_overhead_ci_lo");
    strbuf_printf(&body, "    unset multiplot\n");
    status =
        write_script(ctx, "overhead",
                     "Overhead ratio heatmap (paper eq. 1, section 5.2) and the width of "
                     "its interval",
                     2 * ctx->width_px - PLOT_MARGIN_X_PX / 3, ctx->height_px + 70, &body, err);
    strbuf_free(&body);
    return status;
}

static int plot_concurrency(const plot_ctx *ctx, const run_meta *meta, analysis_error *err)
{
    heat_scale comm = plot_sequential_scale(ctx->palette, "r_comm", 0, r_comm_max);
    heat_scale slow = plot_sequential_scale(ctx->palette, "r_comp_slowdown", 1, slowdown_max);
    int status = write_heat_file(ctx, "r_comm.dat", value_r_comm, &comm, err);
    if (status == ANALYSIS_OK)
        status = write_heat_file(ctx, "r_comp_slowdown.dat", value_r_comp_slowdown, &slow, err);
    if (status != ANALYSIS_OK)
        return status;
    char title[900], left[120], right[120], note[300];
    uncertainty_note(ctx, note, sizeof note);
    snprintf(title, sizeof title, "%s: concurrency ratios\n%s\n%s",
             run_collective(meta, ctx->cells), ctx->title_tail, note);
    snprintf(left, sizeof left, "r_comm (0 best, >1 slower)");
    snprintf(right, sizeof right, "r_comp_slowdown (1 best)");
    char quoted[1000];
    plot_quote(title, quoted, sizeof quoted);
    strbuf body = {0};
    strbuf_printf(&body, "    set multiplot layout 1,2 title \"%s\"\n", quoted);
    heat_emit_panel(&body, "r_comm.dat", &ctx->x_axis, &ctx->y_axis, &comm, left);
    heat_emit_panel(&body, "r_comp_slowdown.dat", &ctx->x_axis, &ctx->y_axis, &slow, right);
    strbuf_printf(&body, "    unset multiplot\n");
    status =
        write_script(ctx, "concurrency",
                     "Concurrency ratios r_comm (eq. 4, left) and r_comp_slowdown (eq. 3, "
                     "right), section 5.2",
                     2 * ctx->width_px - PLOT_MARGIN_X_PX / 3, ctx->height_px + 70, &body, err);
    strbuf_free(&body);
    return status;
}

/* The class the diagnosis map shows in a cell: invalid, or the class its
 * estimates give (diagnosis_point; a reference off its target is a flag,
 * the cell is annotated with the time it reached). */
static enum diagnosis shown_class(const cell_metrics *c)
{
    return !c->valid ? DIAG_INVALID : c->diagnosis_point;
}

/* "comm 2.6 ms", "comp 41 ms", both, or "" when neither reference is
 * flagged off its target (comm_off_target, comp_off_target). */
static void off_target_note(const cell_metrics *c, char *out, size_t out_size)
{
    bool comm = c->comm_off_target, comp = c->comp_off_target;
    out[0] = '\0';
    if (comm && comp)
        snprintf(out, out_size, "comm %.2g, comp %.2g ms", c->t_comm_ref * 1e3,
                 c->t_comp_ref * 1e3);
    else if (comm || comp)
        snprintf(out, out_size, "%s %.2g ms", comm ? "comm" : "comp",
                 (comm ? c->t_comm_ref : c->t_comp_ref) * 1e3);
}

/* What the map says and how sure it is, counted over its cells. */
typedef struct diagnosis_counts {
    size_t measured;
    size_t unconfirmed;
    size_t off_target;
} diagnosis_counts;

/* diagnosis.dat: one block (gnuplot index) per shown class, present[d] its
 * index or -1; columns x y xlo xhi ylo yhi label label_colour confirmed
 * note. */
static void diagnosis_data(const plot_ctx *ctx, strbuf *data, int present[DIAG_COUNT],
                           size_t *blocks, diagnosis_counts *counts)
{
    const cell_table *cells = ctx->cells;
    strbuf_printf(data, "# x y xlo xhi ylo yhi label label_colour confirmed note; one block "
                        "(gnuplot index) per class shown\n");
    for (int d = 0; d < DIAG_COUNT; d++) {
        present[d] = -1;
        for (size_t i = 0; i < cells->count; i++) {
            const cell_metrics *c = &cells->cells[i];
            if ((int)shown_class(c) != d)
                continue;
            size_t xi = heat_axis_index(&ctx->x_axis, c->comm_target_s);
            size_t yi = heat_axis_index(&ctx->y_axis, c->comp_target_s);
            double xlo, xhi, ylo, yhi;
            heat_axis_bounds(&ctx->x_axis, xi, &xlo, &xhi);
            heat_axis_bounds(&ctx->y_axis, yi, &ylo, &yhi);
            if (present[d] < 0) {
                strbuf_printf(data, "%s# %s\n", *blocks ? "\n\n" : "",
                              analysis_diagnosis_name((enum diagnosis)d));
                present[d] = (int)(*blocks)++;
            }
            unsigned label;
            plot_diagnosis_colour(ctx->palette, d, &label);
            bool measured = d != DIAG_INVALID;
            /* confirmed: the analysis's claim (diagnosis) is the class shown */
            bool confirmed = !measured || c->diagnosis == (enum diagnosis)d;
            char note[64] = "";
            if (measured)
                off_target_note(c, note, sizeof note);
            counts->measured += measured;
            counts->unconfirmed += !confirmed;
            counts->off_target += note[0] != '\0';
            strbuf_printf(data, "%.6f %.6f %.6f %.6f %.6f %.6f \"%s\" %u %d \"%s\"\n",
                          heat_axis_position(c->comm_target_s),
                          heat_axis_position(c->comp_target_s), xlo, xhi, ylo, yhi,
                          measured ? plot_diagnosis_short_label(d) : plot_invalid_label(c), label,
                          confirmed ? 1 : 0, note);
        }
    }
}

/* The diagnosis map: the estimates' class in every measured cell, a dashed
 * inner outline where the analysis did not confirm it, the error rate of
 * the confirmed classes, invalid cells grey with their reason. */
static int plot_diagnosis(const plot_ctx *ctx, const run_meta *meta, analysis_error *err)
{
    const cell_table *cells = ctx->cells;
    strbuf data = {0};
    size_t blocks = 0;
    int present[DIAG_COUNT];
    diagnosis_counts counts = {0};
    diagnosis_data(ctx, &data, present, &blocks, &counts);
    int status = write_plot_data(ctx, "diagnosis.dat", &data, err);
    if (status != ANALYSIS_OK)
        return status;

    char title[1200], off_target[160] = "";
    const uncertainty_summary *u = &cells->uncertainty;
    if (counts.off_target)
        snprintf(off_target, sizeof off_target,
                 "\nsmall text: the reference reached, over %.0f %% from its target",
                 100 * ctx->thresholds.off_target_max_error);
    snprintf(title, sizeof title,
             "%s: diagnosis (section 3.3)\n%s\ncolour: the class of the estimates, in every "
             "measured cell\nconfirmed at a false-discovery rate of %g over %ld cells\n(%ld "
             "confirmed, %.2g expected wrong); dashed: not confirmed\n(or under %ld blocks, or "
             "unresolvable)%s",
             run_collective(meta, cells), ctx->title_tail, u->false_discovery_rate, u->family_cells,
             u->confirmed_cells, u->expected_wrong, u->min_blocks, off_target);
    strbuf body = {0};
    plot_emit_canvas_title(&body, title);
    heat_emit_grid(&body, &ctx->x_axis, &ctx->y_axis, "");
    /* below the map, so the map and its title stay centred */
    strbuf_printf(&body, "    unset colorbox\n"
                         "    set bmargin 11\n"
                         "    set key at screen 0.5,0.015 center bottom horizontal maxrows 3 box "
                         "opaque reverse Left width 1 samplen 2\n");
    const char *separator = "    plot ";
    unsigned unused;
    for (int d = 0; d < DIAG_COUNT; d++) {
        if (present[d] < 0)
            continue;
        /* invalid cells are hatched grey, never a colour */
        strbuf_printf(&body,
                      "%s'diagnosis.dat' index %d using 1:2:3:4:5:6 with boxxyerror %s lc rgb "
                      "'%s' title '%s (%s)'",
                      separator, present[d],
                      d == DIAG_INVALID ? "fs pattern 4 border lc rgb 'white'"
                                        : "fs solid 1.0 border lc rgb 'white'",
                      d == DIAG_INVALID ? "#7f7f7f"
                                        : plot_diagnosis_colour(ctx->palette, d, &unused),
                      analysis_diagnosis_name((enum diagnosis)d),
                      d == DIAG_INVALID ? "grey" : plot_diagnosis_short_label(d));
        separator = ", \\\n        ";
    }
    int font_pt = heat_label_font_pt(&ctx->x_axis, &ctx->y_axis);
    /* the mark of a class not confirmed: a dashed outline inside the cell,
     * its colour and label kept */
    strbuf_printf(&body,
                  "%s'diagnosis.dat' using ($9==0?$1:NaN):2:($3+0.1*($4-$3)):($4-0.1*($4-$3)):"
                  "($5+0.1*($6-$5)):($6-0.1*($6-$5)) with boxxyerror fs empty lc rgb '#303030' "
                  "dt (4,3) lw 1.5 title 'not confirmed (%zu of %zu)'",
                  separator, counts.unconfirmed, counts.measured);
    strbuf_printf(&body,
                  ", \\\n        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle"
                  ", \\\n        'diagnosis.dat' using 1:2:7:8 with labels font ',%d' tc rgb "
                  "variable notitle"
                  ", \\\n        'diagnosis.dat' using 1:($2-0.3*($6-$5)):10:8 with labels font "
                  "',%d' tc rgb variable notitle\n",
                  font_pt, font_pt > 8 ? font_pt - 3 : 6);
    strbuf_printf(&body, "    unset multiplot\n");
    status = write_script(ctx, "diagnosis", "Diagnosis map (section 3.3 rules, analysis/README.md)",
                          ctx->width_px, ctx->height_px + 180, &body, err);
    strbuf_free(&body);
    return status;
}

/* ---- Distribution of one cell (--ecdf) ------------------------------------------ */

static void ecdf_block(strbuf *data, const char *name, double *values, size_t n, double scale)
{
    stats_sort(values, n);
    strbuf_printf(data, "# %s\n%.9g 0\n", name, values[0] * scale);
    for (size_t k = 0; k < n; k++)
        strbuf_printf(data, "%.9g %.6f\n", values[k] * scale, (double)(k + 1) / (double)n);
    strbuf_printf(data, "\n\n");
}

/* The empirical distribution over blocks of eq. 1 (with the median
 * references, as r_overhead_iqr) beside those of the three spans: what the
 * median and its interval summarize. */
static int plot_ecdf(const plot_ctx *ctx, const run_meta *meta, long cell_number,
                     analysis_error *err)
{
    const cell_table *cells = ctx->cells;
    size_t index = 0;
    while (index < cells->count && cells->cells[index].cell != cell_number)
        index++;
    if (index == cells->count)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "--ecdf: no cell %ld", cell_number);
    const cell_metrics *c = &cells->cells[index];
    size_t n = 0;
    for (size_t b = 0; b < cells->block_count; b++)
        n += cells->blocks[b].cell_index == index;
    enum { OVERHEAD, COMM, COMP, MEASURED, SERIES };
    double *values = malloc((n ? n : 1) * SERIES * sizeof *values);
    if (!values)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (ecdf)");
    double longer = fmax(c->t_comm_ref, c->t_comp_ref),
           shorter = fmin(c->t_comm_ref, c->t_comp_ref);
    size_t k = 0;
    for (size_t b = 0; b < cells->block_count; b++) {
        const block_values *v = &cells->blocks[b];
        if (v->cell_index != index)
            continue;
        values[OVERHEAD * n + k] = (v->measured_span - longer) / shorter;
        values[COMM * n + k] = v->comm_span;
        values[COMP * n + k] = v->comp_span;
        values[MEASURED * n + k] = v->measured_span;
        k++;
    }
    strbuf data = {0};
    strbuf_printf(&data,
                  "# cell %ld: value cumulative_share; blocks (gnuplot index): eq. 1 per "
                  "block, comm_ref, comp_ref and overlap spans (ms)\n",
                  cell_number);
    static const char *const names[SERIES] = {"r_overhead per block", "comm_ref span (ms)",
                                              "comp_ref span (ms)", "overlap span (ms)"};
    for (int i = 0; i < SERIES && n > 0; i++)
        ecdf_block(&data, names[i], values + (size_t)i * n, n, i == OVERHEAD ? 1 : 1e3);
    free(values);
    char name[64], data_name[80];
    snprintf(name, sizeof name, "ecdf_cell_%ld", cell_number);
    snprintf(data_name, sizeof data_name, "%s.dat", name);
    int status = write_plot_data(ctx, data_name, &data, err);
    if (status != ANALYSIS_OK)
        return status;

    char title[900], quoted[1000];
    snprintf(title, sizeof title,
             "%s, cell %ld: communication %g ms x computation %g ms, %ld blocks, diagnosis %s\n%s",
             run_collective(meta, cells), cell_number, c->comm_target_s * 1e3,
             c->comp_target_s * 1e3, c->blocks, analysis_diagnosis_name(c->diagnosis),
             ctx->title_tail);
    plot_quote(title, quoted, sizeof quoted);
    char left[400];
    snprintf(left, sizeof left,
             "r_overhead %.3g, %.0f %% interval [%.3g, %.3g] (dashed); mean %.3g (dotted), "
             "p90 %.3g\noutside Tukey's fences %.0f %%, bimodality coefficient %.2f%s",
             c->r_overhead, 100 * cells->uncertainty.rules.confidence, c->r_overhead_ci.lo,
             c->r_overhead_ci.hi, c->r_overhead_mean, c->r_overhead_p90,
             100 * c->r_overhead_outlier_share, c->r_overhead_bimodality,
             c->r_overhead_bimodal ? " (bimodal)" : "");
    char left_quoted[500];
    plot_quote(left, left_quoted, sizeof left_quoted);
    strbuf body = {0};
    strbuf_printf(&body,
                  "    set multiplot layout 1,2 title \"%s\"\n"
                  "    set key bottom right\n"
                  "    set grid\n"
                  "    set yrange [0:1]\n"
                  "    set ylabel 'share of blocks'\n"
                  "    set xlabel 'r_overhead of one block (eq. 1, median references)'\n"
                  "    set title \"%s\" font ',11'\n",
                  quoted, left_quoted);
    const double lines[] = {c->r_overhead, c->r_overhead_ci.lo, c->r_overhead_ci.hi,
                            c->r_overhead_mean};
    static const char *const styles[] = {"lw 2 lc rgb '#d73027'", "lw 1.5 dt 2 lc rgb '#d73027'",
                                         "lw 1.5 dt 2 lc rgb '#d73027'",
                                         "lw 1.5 dt 3 lc rgb '#4575b4'"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (isfinite(lines[i]))
            strbuf_printf(&body, "    set arrow from %.9g, graph 0 to %.9g, graph 1 nohead %s\n",
                          lines[i], lines[i], styles[i]);
    strbuf_printf(&body,
                  "    plot '%s' index 0 using 1:2 with steps lw 2 lc rgb '#303030' title "
                  "'blocks'\n"
                  "    unset arrow\n"
                  "    set title 'the three kinds, span of each block' font ',11'\n"
                  "    set xlabel 'duration (ms)'\n"
                  "    set logscale x 2\n"
                  "    plot '%s' index 1 using 1:2 with steps lw 2 lc rgb '#4575b4' title "
                  "'comm_ref', '%s' index 2 using 1:2 with steps lw 2 lc rgb '#1a9850' title "
                  "'comp_ref', '%s' index 3 using 1:2 with steps lw 2 lc rgb '#d73027' title "
                  "'overlap'\n"
                  "    unset logscale x\n"
                  "    unset multiplot\n",
                  data_name, data_name, data_name, data_name);
    status = write_script(ctx, name, "Distribution over blocks of one cell (nbc-analyze --ecdf)",
                          1500, 620, &body, err);
    strbuf_free(&body);
    return status;
}

/* Distinct hosts of the impact table, in order of first appearance. */
static size_t impact_hosts(const impact_table *impact, const char **hosts, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < impact->count; i++) {
        bool seen = false;
        for (size_t h = 0; h < n && !seen; h++)
            seen = strcmp(hosts[h], impact->rows[i].host) == 0;
        if (!seen && n == max)
            analysis_warn("impact figure: more than %zu hosts, host %s not drawn", max,
                          impact->rows[i].host);
        else if (!seen)
            hosts[n++] = impact->rows[i].host;
    }
    return n;
}

static int plot_impact(const plot_ctx *ctx, const impact_table *impact, analysis_error *err)
{
    enum { MAX_HOSTS = 16 };
    const char *hosts[MAX_HOSTS];
    size_t host_count = impact_hosts(impact, hosts, MAX_HOSTS);
    heat_axis sizes;
    double *targets = malloc(impact->count * sizeof *targets);
    if (!targets)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact)");
    for (size_t i = 0; i < impact->count; i++)
        targets[i] = impact->rows[i].comp_target_s;
    int status = heat_axis_build(&sizes, targets, impact->count, err);
    free(targets);
    if (status != ANALYSIS_OK)
        return status;

    /* bars side by side per computation size, one colour per host */
    double bar_width = 0.8 / (double)host_count, highest = 1.0;
    strbuf data = {0};
    strbuf_printf(&data, "# x r_mpi_impact label ci_lo ci_hi; one block (gnuplot index) per "
                         "host\n");
    for (size_t h = 0; h < host_count; h++) {
        strbuf_printf(&data, "%s# %s\n", h ? "\n\n" : "", hosts[h]);
        for (size_t i = 0; i < impact->count; i++) {
            const impact_row *r = &impact->rows[i];
            if (strcmp(r->host, hosts[h]) != 0)
                continue;
            double x = (double)heat_axis_index(&sizes, r->comp_target_s) - 0.4 +
                       bar_width * ((double)h + 0.5);
            strbuf_printf(&data, "%.4f %.6g \"%.2f\" %.6g %.6g\n", x, r->r_mpi_impact,
                          r->r_mpi_impact, r->r_mpi_impact_ci.lo, r->r_mpi_impact_ci.hi);
            highest = fmax(highest, fmax(r->r_mpi_impact, r->r_mpi_impact_ci.hi));
        }
    }
    status = write_plot_data(ctx, "impact.dat", &data, err);

    char title[700], quoted[800];
    snprintf(title, sizeof title,
             "MPI impact on computation r_MPI_impact = t_passive_mpi / t_ref (1: no impact), "
             "95 %% intervals\n%s",
             ctx->title_tail);
    plot_quote(title, quoted, sizeof quoted);
    strbuf body = {0};
    strbuf_printf(&body,
                  "    set title \"%s\"\n"
                  "    set xrange [-0.6:%zu.6]\n"
                  "    set yrange [0:%.3f]\n"
                  "    set xlabel 'computation time, target (ms)'\n"
                  "    set ylabel 'r_MPI_impact'\n"
                  "    set grid ytics\n"
                  "    set tics out nomirror\n"
                  "    set boxwidth %.4f absolute\n"
                  "    set bmargin 6\n"
                  "    set key %s at screen 0.5,0.015 center bottom horizontal box\n"
                  "    set xtics (",
                  quoted, sizes.count - 1, highest * 1.15, bar_width * 0.9, "on");
    for (size_t i = 0; i < sizes.count; i++) {
        char ms[32];
        plot_format_ms(sizes.targets_s[i], ms, sizeof ms);
        strbuf_printf(&body, "%s\"%s\" %zu", i ? ", " : "", ms, i);
    }
    static const char *const host_colours[] = {"#4575b4", "#91bfdb", "#fc8d59", "#d73027",
                                               "#7b3294", "#1a9850", "#8c510a", "#666666"};
    strbuf_printf(&body, ")\n    plot ");
    for (size_t h = 0; h < host_count; h++) {
        char host[200];
        plot_quote(hosts[h], host, sizeof host);
        strbuf_printf(&body,
                      "'impact.dat' index %zu using 1:2 with boxes fs solid 0.85 border lc rgb "
                      "'#303030' fc rgb '%s' title \"%s\", \\\n        "
                      "'impact.dat' index %zu using 1:2:4:5 with yerrorbars pt 0 lc rgb "
                      "'#303030' notitle, \\\n        "
                      "'impact.dat' index %zu using 1:2:3 with labels offset 0,0.8 font ',%d' "
                      "notitle, \\\n        ",
                      h, host_colours[h % (sizeof host_colours / sizeof *host_colours)], host, h, h,
                      host_count > 2 ? 9 : 12);
    }
    strbuf_printf(&body, "1 with lines lw 3 lc rgb '#d73027' title 'no impact (1)'\n");
    int width = 260 + (int)sizes.count * (host_count > 1 ? 150 : 110);
    if (status == ANALYSIS_OK)
        status = write_script(ctx, "impact", "MPI impact on computation (paper eq. 2, fig. 9)",
                              width < 700 ? 700 : width, 600, &body, err);
    strbuf_free(&body);
    heat_axis_free(&sizes);
    return status;
}

static int build_axes(plot_ctx *ctx, analysis_error *err)
{
    const cell_table *cells = ctx->cells;
    double *targets = malloc((cells->count ? cells->count : 1) * sizeof *targets);
    if (!targets)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (axes)");
    for (size_t i = 0; i < cells->count; i++)
        targets[i] = cells->cells[i].comm_target_s;
    int status = heat_axis_build(&ctx->x_axis, targets, cells->count, err);
    for (size_t i = 0; i < cells->count; i++)
        targets[i] = cells->cells[i].comp_target_s;
    if (status == ANALYSIS_OK)
        status = heat_axis_build(&ctx->y_axis, targets, cells->count, err);
    free(targets);
    plot_heat_size(ctx->x_axis.count, ctx->y_axis.count, &ctx->width_px, &ctx->height_px);
    return status;
}

int analysis_plot_run(const char *run_dir, const run_meta *meta, const cell_table *cells,
                      const impact_table *impact, const analysis_options *options,
                      analysis_error *err)
{
    char plots_dir[4200];
    int status = analysis_path(plots_dir, sizeof plots_dir, run_dir, "plots", err);
    if (status == ANALYSIS_OK)
        status = analysis_make_dir(plots_dir, err);
    if (status != ANALYSIS_OK)
        return status;
    if (cells->count == 0)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no cells to draw", run_dir);
    plot_ctx ctx = {.plots_dir = plots_dir,
                    .cells = cells,
                    .palette = options->palette,
                    .thresholds = options->rules.thresholds};
    plot_title_tail(meta, cells, ", ", ctx.title_tail, sizeof ctx.title_tail);
    status = build_axes(&ctx, err);
    /* wide enough for the title's second line (about 10.5 px a character) */
    int title_px = (int)(10.5 * (double)strlen(ctx.title_tail)) + 40;
    ctx.width_px = ctx.width_px > title_px ? ctx.width_px : title_px;
    if (status == ANALYSIS_OK)
        status = plot_overhead(&ctx, meta, options->r_overhead_max, err);
    if (status == ANALYSIS_OK)
        status = plot_concurrency(&ctx, meta, err);
    if (status == ANALYSIS_OK)
        status = plot_diagnosis(&ctx, meta, err);
    bool with_impact = impact && impact->count > 0;
    if (status == ANALYSIS_OK && with_impact)
        status = plot_impact(&ctx, impact, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < options->ecdf_count; i++)
        status = plot_ecdf(&ctx, meta, options->ecdf_cells[i], err);
    heat_axis_free(&ctx.x_axis);
    heat_axis_free(&ctx.y_axis);
    if (status != ANALYSIS_OK || !options->plots)
        return status;

    static const char *const scripts[] = {"overhead.gp", "concurrency.gp", "diagnosis.gp",
                                          "impact.gp"};
    size_t script_count = with_impact ? 4 : 3;
    for (size_t i = 0; status == ANALYSIS_OK && i < script_count; i++)
        status = plot_run_gnuplot(plots_dir, scripts[i], err);
    for (size_t i = 0; status == ANALYSIS_OK && i < options->ecdf_count; i++) {
        char script[64];
        snprintf(script, sizeof script, "ecdf_cell_%ld.gp", options->ecdf_cells[i]);
        status = plot_run_gnuplot(plots_dir, script, err);
    }
    if (status == ANALYSIS_OK && options->report)
        fprintf(options->report,
                "figures: %s/{overhead,concurrency,diagnosis%s}.{png,svg,pdf} (%zu cells "
                "each)%s\n",
                plots_dir, with_impact ? ",impact" : "", cells->count,
                options->ecdf_count ? ", ecdf_cell_N.{png,svg,pdf} (--ecdf)" : "");
    return status;
}
