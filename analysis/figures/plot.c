/* analysis: the figures of section 5.2, drawn by gnuplot. For every figure a
 * script (NAME.gp) and its data (NAME*.dat) are written into plots/, so a
 * user can tweak and re-run them; gnuplot then renders PNG, SVG and PDF. */
#include "analysis/figures/figures.h"
#include "analysis/figures/plot_figure.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const double r_comm_max = 1.5;   /* > 1: slower than the reference (eq. 4) */
static const double slowdown_max = 1.5; /* 50 % slower computation, as in the paper's fig. 9 */
/* an interval as wide as serialized is from perfect overlap says nothing */
static const double interval_width_max = 1.0;

static int plot_path(const plot_ctx *ctx, const char *name, char *out, size_t out_size,
                     analysis_error *err)
{
    return analysis_path(out, out_size, ctx->plots_dir, name, err);
}

int plot_write_data(const plot_ctx *ctx, const char *name, strbuf *data, analysis_error *err)
{
    char path[4200];
    int status = data->ok ? plot_path(ctx, name, path, sizeof path, err)
                          : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, data->data, data->len, err);
    strbuf_free(data);
    return status;
}

int plot_write_script(const plot_ctx *ctx, const char *base, const char *comment, double width_in,
                      double height_in, strbuf *body, const char *caption, analysis_error *err)
{
    strbuf text = {0}, title = {0};
    strbuf_printf(&text, "%s\n%s", caption, ctx->title_tail);
    /* the files' title (caption's first line): what, library, deployment
     * and, for a scenario, what was in flight */
    strbuf_printf(&title, "%s; %s%s%s", comment, ctx->short_tail, ctx->scenario[0] ? "; " : "",
                  ctx->scenario);
    int status = text.ok && title.ok
                     ? plot_write_figure(ctx->plots_dir, base, title.data, width_in, height_in,
                                         body, text.data, err)
                     : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", base);
    strbuf_free(&text);
    strbuf_free(&title);
    return status;
}

/* The lines a figure's title takes: none under --no-titles, a second one
 * for a scenario's parts. */
static int title_lines(const plot_ctx *ctx)
{
    return ctx->titles ? (ctx->scenario[0] ? 2 : 1) : 0;
}

int plot_short_title(const plot_ctx *ctx, const char *what, const char *collective, char *out,
                     size_t out_size)
{
    char quoted[700], text[600];
    snprintf(text, sizeof text, "%s%s%s, %s%s%s", collective ? collective : "",
             collective ? " " : "", what, ctx->short_tail, ctx->scenario[0] ? "\n" : "",
             ctx->scenario);
    plot_quote(text, quoted, sizeof quoted);
    snprintf(out, out_size, "%s", ctx->titles ? quoted : "");
    return title_lines(ctx);
}

typedef double (*cell_value_fn)(const cell_metrics *cell);
/* +1 (-1) where the cell is surely above (below) a saturating scale. */
typedef int (*cell_beyond_fn)(const cell_metrics *cell, const heat_scale *scale);
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
/* r_overhead's interval wholly beyond an end: noise about 1 is not worse
 * than serialized, nor noise about 0 imprecision. */
static int beyond_r_overhead(const cell_metrics *c, const heat_scale *scale)
{
    return scale->saturate_high && c->r_overhead_ci.lo > scale->max  ? 1
           : scale->saturate_low && c->r_overhead_ci.hi < scale->min ? -1
                                                                     : 0;
}
static int beyond_value(const cell_metrics *c, const heat_scale *scale, double value)
{
    (void)c;
    return scale->saturate_high && value > scale->max  ? 1
           : scale->saturate_low && value < scale->min ? -1
                                                       : 0;
}
static int beyond_r_overhead_width(const cell_metrics *c, const heat_scale *scale)
{
    return beyond_value(c, scale, value_r_overhead_width(c));
}

/* The room of a cell's label on a map of panels panels. */
static double cell_width_pt(const plot_ctx *ctx, size_t panels)
{
    return heat_cell_width_pt(&ctx->size, &ctx->x_axis, &ctx->y_axis, panels, title_lines(ctx));
}

/* Whether two panels fit one figure at the printed size: side by side, or
 * stacked no taller than a column takes; else each is a figure. */
static bool panels_fit(const plot_ctx *ctx)
{
    heat_layout layout =
        heat_figure_layout(&ctx->size, &ctx->x_axis, &ctx->y_axis, 2, title_lines(ctx));
    return layout.rows == 1 || ctx->size.height_in > 0 ||
           layout.height_in <= PLOT_PRINT_HEIGHT_MAX_IN;
}

/* The panels of a two-panel map's figure. */
static size_t map_panels(const plot_ctx *ctx)
{
    return panels_fit(ctx) ? 2 : 1;
}

/* Whether the run has an invalid cell (the maps then explain their labels). */
static bool any_invalid(const cell_table *cells)
{
    for (size_t i = 0; i < cells->count; i++)
        if (!cells->cells[i].valid)
            return true;
    return false;
}

/* The two-panel maps' data (overhead, concurrency). */
static int write_heat_file(const plot_ctx *ctx, const char *name, cell_value_fn value,
                           cell_beyond_fn beyond, const heat_scale *scale, analysis_error *err)
{
    double cell_pt = cell_width_pt(ctx, map_panels(ctx));
    const cell_table *cells = ctx->cells;
    heat_value *values = malloc((cells->count ? cells->count : 1) * sizeof *values);
    if (!values)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (heatmap)");
    for (size_t i = 0; i < cells->count; i++)
        values[i] = (heat_value){cells->cells[i].comm_target_s,
                                 cells->cells[i].comp_target_s,
                                 value(&cells->cells[i]),
                                 cells->cells[i].valid,
                                 plot_invalid_label(&cells->cells[i], cell_pt),
                                 !verdict_cell_inside_band(&cells->cells[i]),
                                 beyond ? beyond(&cells->cells[i], scale) : 0};
    char path[4200];
    int status = plot_path(ctx, name, path, sizeof path, err);
    if (status == ANALYSIS_OK)
        status = heat_write_data(path, &ctx->x_axis, &ctx->y_axis, values, cells->count, scale,
                                 cell_pt, err);
    free(values);
    return status;
}

const char *plot_run_collective(const run_meta *meta, const cell_table *cells)
{
    if (meta->collective[0])
        return meta->collective;
    return cells->count ? cells->cells[0].collective : "?";
}

/* The caption's sentences on the marks: the cells whose interval leaves
 * their band, and those beyond a saturated end (extra, or ""). */
static void uncertainty_note(const char *extra, char *out, size_t out_size)
{
    snprintf(out, out_size,
             "Dashed outline: r_overhead's 95 %% interval leaves its band (hidden, partial, "
             "none); the value is the estimate.%s Dashed diagonal: equal communication and "
             "computation times.",
             extra);
}

/* One map of a two-panel pair. */
typedef struct map_panel {
    const char *data;
    const heat_scale *scale;
    const char *title;
    const char *base; /* its own figure's, where the pair does not fit one */
} map_panel;

/* Two heatmaps of the run's grid, side by side or stacked
 * (heat_figure_layout) in base, or each its own figure where stacked they
 * would be taller than PLOT_PRINT_HEIGHT_MAX_IN. */
static int two_panels(const plot_ctx *ctx, const char *base, const char *comment,
                      const char *title_what, const char *collective, const map_panel panels[2],
                      const char *extra_note, analysis_error *err)
{
    char title[700], note[900];
    int lines = plot_short_title(ctx, title_what, collective, title, sizeof title);
    size_t count = map_panels(ctx);
    heat_layout layout = heat_figure_layout(&ctx->size, &ctx->x_axis, &ctx->y_axis, count, lines);
    uncertainty_note(extra_note, note, sizeof note);
    if (any_invalid(ctx->cells) && plot_invalid_abbreviated(cell_width_pt(ctx, count)))
        snprintf(note + strlen(note), sizeof note - strlen(note), "%s", plot_invalid_legend);
    int status = ANALYSIS_OK;
    for (size_t figure = 0; status == ANALYSIS_OK && figure < 3 - count; figure++) {
        strbuf body = {0};
        strbuf_printf(&body, "    set multiplot layout %d,%d title \"%s\"\n", layout.rows,
                      layout.cols, title);
        for (size_t p = count == 2 ? 0 : figure; p < (count == 2 ? 2 : figure + 1); p++) {
            /* each panel's title names its colour bar: the bar needs no label */
            heat_scale bar = *panels[p].scale;
            bar.label = "";
            heat_emit_panel(&body, panels[p].data, &ctx->x_axis, &ctx->y_axis, &bar,
                            panels[p].title);
        }
        strbuf_printf(&body, "    unset multiplot\n");
        status = plot_write_script(ctx, count == 2 ? base : panels[figure].base, comment,
                                   layout.width_in, layout.height_in, &body, note, err);
        strbuf_free(&body);
    }
    return status;
}

/* Section 5.2's r_overhead map, and beside it the width of each cell's 95 %
 * interval: a value is read with its uncertainty. */
static int plot_overhead(const plot_ctx *ctx, const run_meta *meta, double r_max,
                         analysis_error *err)
{
    char label[100], stops[400];
    snprintf(label, sizeof label, "r_overhead");
    heat_scale scale = plot_overhead_scale(ctx->palette, label, r_max, stops, sizeof stops);
    char width_label[100];
    snprintf(width_label, sizeof width_label, "width of the %.0f %% interval",
             100 * ctx->cells->uncertainty.rules.confidence);
    heat_scale width = plot_width_scale(ctx->palette, width_label, interval_width_max);
    int status =
        write_heat_file(ctx, "overhead.dat", value_r_overhead, beyond_r_overhead, &scale, err);
    if (status == ANALYSIS_OK)
        status = write_heat_file(ctx, "overhead_ci_width.dat", value_r_overhead_width,
                                 beyond_r_overhead_width, &width, err);
    if (status != ANALYSIS_OK)
        return status;
    char extra[400] = "";
    if (scale.saturate_high)
        snprintf(extra, sizeof extra,
                 " Colours saturate beyond 0 and 1 and beyond an interval width of %g; a "
                 "triangle up: the interval lies above 1 (worse than serialized) or the width "
                 "exceeds %g; down: the interval lies below 0 (imprecision).",
                 interval_width_max, interval_width_max);
    const map_panel panels[2] = {
        {"overhead.dat", &scale, "r_overhead", "overhead"},
        {"overhead_ci_width.dat", &width, "interval width", "overhead_ci_width"}};
    return two_panels(ctx, "overhead",
                      "Overhead ratio r_overhead (paper eq. 1, section 5.2: 0 overlap, 1 "
                      "serialized) and the width of its interval",
                      "r_overhead", plot_run_collective(meta, ctx->cells), panels, extra, err);
}

static int plot_concurrency(const plot_ctx *ctx, const run_meta *meta, analysis_error *err)
{
    heat_scale comm = plot_ratio_scale(ctx->palette, "r_comm (1: unchanged)", r_comm_max);
    heat_scale slow =
        plot_ratio_scale(ctx->palette, "r_comp_slowdown (1: unchanged)", slowdown_max);
    int status = write_heat_file(ctx, "r_comm.dat", value_r_comm, NULL, &comm, err);
    if (status == ANALYSIS_OK)
        status =
            write_heat_file(ctx, "r_comp_slowdown.dat", value_r_comp_slowdown, NULL, &slow, err);
    if (status != ANALYSIS_OK)
        return status;
    const map_panel panels[2] = {
        {"r_comm.dat", &comm, "r_comm", "concurrency"},
        {"r_comp_slowdown.dat", &slow, "r_comp_slowdown", "concurrency_slowdown"}};
    return two_panels(ctx, "concurrency",
                      "Concurrency ratios r_comm (eq. 4) and r_comp_slowdown (eq. 3), section "
                      "5.2, on a log scale centred at 1 (unchanged)",
                      "concurrency", plot_run_collective(meta, ctx->cells), panels, "", err);
}

/* "comm 2.6 ms", "comp 41 ms", both, or "" when neither reference is
 * flagged off its target (comm_off_target, comp_off_target); where that
 * would not fit a cell cell_pt wide, "c2.6", "p41" (*abbreviated set). */
static void off_target_note(const cell_metrics *c, double cell_pt, char *out, size_t out_size,
                            bool *abbreviated)
{
    bool comm = c->comm_off_target, comp = c->comp_off_target;
    double comm_ms = c->t_comm_ref * 1e3, comp_ms = c->t_comp_ref * 1e3;
    out[0] = '\0';
    if (comm && comp)
        snprintf(out, out_size, "comm %.2g, comp %.2g ms", comm_ms, comp_ms);
    else if (comm || comp)
        snprintf(out, out_size, "%s %.2g ms", comm ? "comm" : "comp", comm ? comm_ms : comp_ms);
    if (plot_label_fits(out, cell_pt))
        return;
    *abbreviated = true;
    if (comm && comp)
        snprintf(out, out_size, "c%.2g p%.2g", comm_ms, comp_ms);
    else
        snprintf(out, out_size, "%s%.2g", comm ? "c" : "p", comm ? comm_ms : comp_ms);
}

/* What the map says and how sure it is, counted over its cells. */
typedef struct band_counts {
    size_t measured;
    size_t spanning;
    size_t off_target;
    bool invalid;           /* a cell invalid */
    bool notes_abbreviated; /* an off-target note abbreviated */
} band_counts;

/* A band's label colour: white on the dark classes of schema/classes.def. */
static unsigned band_label_colour(verdict_class k)
{
    return k == VERDICT_HIDDEN || k == VERDICT_NONE || k == VERDICT_INVALID ? 0xffffffu : 0;
}

/* bands.dat: one block (gnuplot index) per band shown (cells.csv
 * overlap), present[k] its index or -1; columns x y xlo xhi ylo yhi label
 * label_colour inside note. */
static void band_data(const plot_ctx *ctx, strbuf *data, int present[VERDICT_CLASS_COUNT],
                      size_t *blocks, band_counts *counts)
{
    const cell_table *cells = ctx->cells;
    double cell_pt = cell_width_pt(ctx, 1);
    strbuf_printf(data, "# x y xlo xhi ylo yhi label label_colour inside note; one block "
                        "(gnuplot index) per band shown\n");
    for (int k = 0; k < VERDICT_CLASS_COUNT; k++) {
        present[k] = -1;
        for (size_t i = 0; i < cells->count; i++) {
            const cell_metrics *c = &cells->cells[i];
            if ((int)c->overlap != k)
                continue;
            size_t xi = heat_axis_index(&ctx->x_axis, c->comm_target_s);
            size_t yi = heat_axis_index(&ctx->y_axis, c->comp_target_s);
            double xlo, xhi, ylo, yhi;
            heat_axis_bounds(&ctx->x_axis, xi, &xlo, &xhi);
            heat_axis_bounds(&ctx->y_axis, yi, &ylo, &yhi);
            if (present[k] < 0) {
                strbuf_printf(data, "%s# %s\n", *blocks ? "\n\n" : "",
                              verdict_class_name((verdict_class)k));
                present[k] = (int)(*blocks)++;
            }
            bool measured = k != VERDICT_INVALID;
            bool inside = !measured || verdict_cell_inside_band(c);
            char note[64] = "";
            if (measured)
                off_target_note(c, cell_pt, note, sizeof note, &counts->notes_abbreviated);
            counts->invalid |= !measured;
            counts->measured += measured;
            counts->spanning += !inside;
            counts->off_target += note[0] != '\0';
            strbuf_printf(data, "%.6f %.6f %.6f %.6f %.6f %.6f \"%s\" %u %d \"%s\"\n",
                          heat_axis_position(c->comm_target_s),
                          heat_axis_position(c->comp_target_s), xlo, xhi, ylo, yhi,
                          measured ? verdict_class_get((verdict_class)k)->abbrev
                                   : plot_invalid_label(c, cell_pt),
                          band_label_colour((verdict_class)k), inside ? 1 : 0, note);
        }
    }
}

/* The band map: the band of r_overhead (cells.csv overlap) in every
 * measured cell, a dashed inner outline where its 95 % interval leaves the
 * band (the rule by which the study verdict calls a reading uncertain),
 * invalid cells grey with their reason. One launch: a reading, never a
 * confident class. */
static int plot_bands(const plot_ctx *ctx, const run_meta *meta, analysis_error *err)
{
    const cell_table *cells = ctx->cells;
    strbuf data = {0};
    size_t blocks = 0;
    int present[VERDICT_CLASS_COUNT];
    band_counts counts = {0};
    band_data(ctx, &data, present, &blocks, &counts);
    int status = plot_write_data(ctx, "bands.dat", &data, err);
    if (status != ANALYSIS_OK)
        return status;

    char caption[1200], off_target[160] = "", title[700];
    if (counts.off_target)
        snprintf(off_target, sizeof off_target,
                 " Small text: the reference reached, over %.0f %% from its target%s.",
                 100 * ctx->thresholds.off_target_max_error,
                 counts.notes_abbreviated ? " (c: communication, p: computation, in ms)" : "");
    snprintf(caption, sizeof caption,
             "Colour: the band of r_overhead (eq. 1) in every measured cell: hidden below 0.25, "
             "partial below 0.75, none above. One launch: a reading, not a verdict (a study's "
             "verdict.csv decides over launches). Dashed outline: its 95 %% interval leaves the "
             "band. Dashed diagonal: equal communication and computation times.%s%s",
             off_target,
             counts.invalid && plot_invalid_abbreviated(cell_width_pt(ctx, 1)) ? plot_invalid_legend
                                                                               : "");
    int lines = plot_short_title(ctx, "overlap bands", plot_run_collective(meta, cells), title,
                                 sizeof title);
    /* the key below the map, one entry a line: the bands shown, the
     * outline and the diagonal */
    int key_rows = 2;
    for (int k = 0; k < VERDICT_CLASS_COUNT; k++)
        key_rows += present[k] >= 0;
    heat_layout layout =
        heat_figure_layout(&ctx->size, &ctx->x_axis, &ctx->y_axis, 1, lines + key_rows);
    strbuf body = {0};
    strbuf_printf(&body, "    set multiplot layout 1,1 title \"%s\"\n", title);
    heat_emit_grid(&body, &ctx->x_axis, &ctx->y_axis, "");
    /* below the map, so the map and its title stay centred */
    strbuf_printf(&body,
                  "    unset colorbox\n"
                  "    set bmargin %d\n"
                  "    set key at screen 0.5,0.01 center bottom vertical reverse Left samplen 1.5 "
                  "font ',%d'\n",
                  key_rows + 5, PLOT_LABEL_PT);
    const char *separator = "    plot ";
    for (int k = 0; k < VERDICT_CLASS_COUNT; k++) {
        if (present[k] < 0)
            continue;
        const verdict_class_info *info = verdict_class_get((verdict_class)k);
        /* invalid cells are hatched grey, never a colour */
        bool invalid = k == VERDICT_INVALID;
        strbuf_printf(
            &body,
            "%s'bands.dat' index %d using 1:2:3:4:5:6 with boxxyerror %s lc rgb "
            "'%s' title '%s (%s)'",
            separator, present[k],
            invalid ? "fs pattern 4 border lc rgb 'white'" : "fs solid 1.0 border lc rgb 'white'",
            invalid ? "#7f7f7f" : info->colour, info->name, invalid ? "grey" : info->abbrev);
        separator = ", \\\n        ";
    }
    int font_pt = PLOT_LABEL_PT;
    char outline_key[80];
    snprintf(outline_key, sizeof outline_key, "interval leaves the band (%zu of %zu)",
             counts.spanning, counts.measured);
    heat_emit_uncertain_layer(&body, "bands.dat", "$9==0", outline_key);
    strbuf_printf(&body,
                  ", \\\n        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' title "
                  "'equal times'"
                  ", \\\n        'bands.dat' using 1:2:7:8 with labels font ',%d' tc rgb "
                  "variable notitle"
                  ", \\\n        'bands.dat' using 1:($2-0.3*($6-$5)):10:8 with labels font "
                  "',%d' tc rgb variable notitle\n",
                  font_pt, font_pt);
    strbuf_printf(&body, "    unset multiplot\n");
    status =
        plot_write_script(ctx, "bands", "Overlap band map (r_overhead, eq. 1; analysis/README.md)",
                          layout.width_in, layout.height_in, &body, caption, err);
    strbuf_free(&body);
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
    long long *values = malloc((cells->count ? cells->count : 1) * sizeof *values);
    if (status == ANALYSIS_OK && !values)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (axes)");
    /* the second physical axis: the bytes and the GEMM order measured */
    for (size_t i = 0; status == ANALYSIS_OK && i < cells->count; i++)
        values[i] = cells->cells[i].matrix_n;
    if (status == ANALYSIS_OK)
        status = heat_axis_set_physical(&ctx->y_axis, targets, values, cells->count, false, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < cells->count; i++) {
        targets[i] = cells->cells[i].comm_target_s;
        values[i] = cells->cells[i].bytes;
    }
    if (status == ANALYSIS_OK)
        status = heat_axis_set_physical(&ctx->x_axis, targets, values, cells->count, true, err);
    for (size_t i = 0; i < cells->count; i++)
        ctx->x_axis.physical_given |= cells->cells[i].comm_size_given;
    free(values);
    free(targets);
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
                    .size = options->figure,
                    .titles = options->titles,
                    .scenario = meta->scenario,
                    .thresholds = options->rules.thresholds};
    plot_title_tail(meta, cells, ", ", ctx.title_tail, sizeof ctx.title_tail);
    status = build_axes(&ctx, err);
    plot_short_tail(meta, ctx.short_tail, sizeof ctx.short_tail);
    if (status == ANALYSIS_OK)
        status = plot_overhead(&ctx, meta, options->r_overhead_max, err);
    if (status == ANALYSIS_OK)
        status = plot_concurrency(&ctx, meta, err);
    if (status == ANALYSIS_OK)
        status = plot_bands(&ctx, meta, err);
    bool with_impact = impact && impact->count > 0;
    if (status == ANALYSIS_OK && with_impact)
        status = plot_impact(&ctx, impact, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < options->ecdf_count; i++)
        status = plot_ecdf(&ctx, meta, options->ecdf_cells[i], err);
    bool split = status == ANALYSIS_OK && map_panels(&ctx) == 1;
    /* a pair drawn as one figure: its halves of an earlier, narrower drawing go */
    if (status == ANALYSIS_OK && !split)
        status = plot_remove_figure(plots_dir, "overhead_ci_width", false, err);
    if (status == ANALYSIS_OK && !split)
        status = plot_remove_figure(plots_dir, "concurrency_slowdown", false, err);
    heat_axis_free(&ctx.x_axis);
    heat_axis_free(&ctx.y_axis);
    if (status != ANALYSIS_OK || !options->plots)
        return status;

    /* the maps, and each second panel drawn as its own figure */
    static const char *const scripts[] = {
        "overhead.gp", "concurrency.gp",       "bands.gp",
        "impact.gp",   "overhead_ci_width.gp", "concurrency_slowdown.gp"};
    for (size_t i = 0; status == ANALYSIS_OK && i < sizeof scripts / sizeof *scripts; i++)
        if ((i != 3 || with_impact) && (i < 4 || split))
            status = plot_run_gnuplot(plots_dir, scripts[i], err);
    for (size_t i = 0; status == ANALYSIS_OK && i < options->ecdf_count; i++) {
        char script[64];
        snprintf(script, sizeof script, "ecdf_cell_%ld.gp", options->ecdf_cells[i]);
        status = plot_run_gnuplot(plots_dir, script, err);
    }
    if (status == ANALYSIS_OK && options->report)
        fprintf(options->report,
                "figures: %s/{overhead,concurrency,bands%s%s}.{png,svg,pdf} (%zu cells "
                "each)%s\n",
                plots_dir, with_impact ? ",impact" : "",
                split ? ",overhead_ci_width,concurrency_slowdown" : "", cells->count,
                options->ecdf_count ? ", ecdf_cell_N.{png,svg,pdf} (--ecdf)" : "");
    return status;
}
