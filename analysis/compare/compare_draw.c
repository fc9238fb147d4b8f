/* analysis: nbc-compare's figures: the configurations' r_overhead maps side by
 * side, the difference maps of two configurations and r_overhead against
 * the rank count (comparison.c). */
#include "analysis/compare/compare_internal.h"
#include "analysis/figures/figures.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int write_heat(const char *out_dir, const char *name, const heat_axis *x_axis,
                      const heat_axis *y_axis, const heat_value *values, size_t n,
                      const heat_scale *scale, double cell_pt, analysis_error *err)
{
    char path[4200];
    int status = analysis_path(path, sizeof path, out_dir, name, err);
    if (status == ANALYSIS_OK)
        status = heat_write_data(path, x_axis, y_axis, values, n, scale, cell_pt, err);
    return status;
}

/* The caption's legend of the invalid cells' labels, where they are
 * abbreviated and one is on the map. */
static const char *invalid_legend(const heat_value *values, size_t n, double cell_pt)
{
    for (size_t i = 0; i < n; i++)
        if (!values[i].valid && plot_invalid_abbreviated(cell_pt))
            return plot_invalid_legend;
    return "";
}

/* What the compared runs had in flight (meta.json's scenario, a title's
 * second line): the parts when every configuration with a scenario has the
 * same, else each configuration's ("1: ...; 2: ..."); "" when none has one. */
static void scenario_line(const compare_run *runs, const compare_config *configs,
                          size_t config_count, char *out, size_t out_size)
{
    out[0] = '\0';
    const char *first = NULL;
    bool same = true;
    for (size_t c = 0; c < config_count; c++) {
        const char *parts = runs[configs[c].first_run].meta.scenario;
        if (parts[0] && first)
            same &= strcmp(parts, first) == 0;
        else if (parts[0])
            first = parts;
    }
    if (!first)
        return;
    if (same) {
        snprintf(out, out_size, "%s", first);
        return;
    }
    for (size_t c = 0; c < config_count; c++) {
        size_t used = strlen(out);
        snprintf(out + used, out_size - used, "%s%zu: %s", c ? "; " : "", c + 1,
                 runs[configs[c].first_run].meta.scenario[0]
                     ? runs[configs[c].first_run].meta.scenario
                     : runs[configs[c].first_run].meta.collective);
    }
}

/* The files' title (caption's first line): what, then the configurations
 * compared (library, version, deployment, collective) and what was in
 * flight (a scenario's parts). */
static int write_script(const char *out_dir, const char *base, const char *comment,
                        const compare_config *configs, size_t config_count, const char *scenario,
                        double width_in, double height_in, const strbuf *body, const char *caption,
                        analysis_error *err)
{
    strbuf title = {0};
    strbuf_printf(&title, "%s", comment);
    for (size_t c = 0; c < config_count; c++)
        strbuf_printf(&title, "%s%s", c ? " vs " : "; ", configs[c].label);
    if (scenario[0])
        strbuf_printf(&title, "; %s", scenario);
    int status = title.ok ? plot_write_figure(out_dir, base, title.data, width_in, height_in, body,
                                              caption, err)
                          : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", base);
    strbuf_free(&title);
    return status;
}

int grid_build(figure_grid *g, const common_cell *common, size_t n, analysis_error *err)
{
    /* zeroed: with no common cell, the one entry is still initialized */
    double *targets = calloc(n ? n : 1, sizeof *targets);
    if (!targets)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        targets[i] = common[i].comm_target_s;
    int status = heat_axis_build(&g->x_axis, targets, n, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < n; i++)
        targets[i] = common[i].comp_target_s;
    if (status == ANALYSIS_OK)
        status = heat_axis_build(&g->y_axis, targets, n, err);
    free(targets);
    return status;
}

/* The second line under the times: the bytes (x) and GEMM orders (y) run r
 * used at the common cells; alt: as a second run's beside those set. */
static int grid_physical(figure_grid *g, const compare_run *runs, size_t r,
                         const common_cell *common, size_t n, bool alt, analysis_error *err)
{
    double *targets = malloc((n ? n : 1) * sizeof *targets);
    long long *values = malloc((n ? n : 1) * sizeof *values);
    int status =
        targets && values ? ANALYSIS_OK : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (int axis = 0; status == ANALYSIS_OK && axis < 2; axis++) {
        for (size_t i = 0; i < n; i++) {
            const cell_metrics *c = &runs[r].cells.cells[common[i].index[r]];
            targets[i] = axis == 0 ? common[i].comm_target_s : common[i].comp_target_s;
            values[i] = axis == 0 ? c->bytes : c->matrix_n;
        }
        heat_axis *a = axis == 0 ? &g->x_axis : &g->y_axis;
        status = alt ? heat_axis_set_physical_alt(a, targets, values, n, err)
                     : heat_axis_set_physical(a, targets, values, n, axis == 0, err);
    }
    free(targets);
    free(values);
    return status;
}

/* compare_overhead's figure of every configuration (shown SIZE_MAX) or of
 * configuration shown alone: its script and caption. */
static int write_overhead_figure(const compare_config *configs, size_t config_count, size_t shown,
                                 const char *scenario, const heat_layout *layout, bool saturated,
                                 const char *legend, const char *note, const strbuf *body,
                                 const char *out_dir, analysis_error *err)
{
    strbuf caption = {0};
    strbuf_printf(&caption,
                  "Dashed outline: the reading is not confident (the study verdict's rule: the "
                  "band of the launches' mean r_overhead, confident where its t-interval over "
                  "2 or more launches of the same sizes lies in it; one launch never is).%s",
                  saturated ? " Colours saturate beyond 0 and 1; a triangle up: the "
                              "launches' interval lies above 1 (worse than "
                              "serialized), down: below 0 (imprecision)."
                            : "");
    strbuf_printf(&caption,
                  " Under the times: the message bytes and GEMM order (in brackets) of each "
                  "panel's configuration.%s%s",
                  legend, note);
    char base[64], comment[200];
    overhead_figure_name(shown == SIZE_MAX ? 0 : shown, base, sizeof base);
    if (shown == SIZE_MAX) {
        snprintf(comment, sizeof comment,
                 "r_overhead of each configuration side by side (identical colour scale)");
    } else {
        /* the figures of the others, named: they share this colour scale */
        snprintf(comment, sizeof comment,
                 "r_overhead of configuration %zu of %zu (the colour scale of the others' "
                 "figures)",
                 shown + 1, config_count);
        strbuf_printf(&caption, " A figure per configuration, on one colour scale:");
        for (size_t k = 0; k < config_count; k++) {
            char other[64];
            overhead_figure_name(k, other, sizeof other);
            strbuf_printf(&caption, "%s %s (%zu)", k ? "," : "", other, k + 1);
        }
        strbuf_printf(&caption, ".");
    }
    int status =
        caption.ok
            ? write_script(out_dir, base, comment, shown == SIZE_MAX ? configs : configs + shown,
                           shown == SIZE_MAX ? config_count : 1, scenario, layout->width_in,
                           layout->height_in, body, caption.data, err)
            : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    strbuf_free(&caption);
    return status;
}

/* The name of compare_overhead's figure k (0-based) of a comparison drawn
 * as a figure per configuration: the first keeps the name. */
void overhead_figure_name(size_t k, char *out, size_t out_size)
{
    if (k == 0)
        snprintf(out, out_size, "compare_overhead");
    else
        snprintf(out, out_size, "compare_overhead_%zu", k + 1);
}

/* The panels of compare_overhead's figures at the printed size: every
 * configuration in one figure, side by side or stacked, and stacked taller
 * than a column takes shrunk to it where a cell still holds its value with
 * two decimals; else one panel a figure (*layout and *fitted for that). */
static size_t overhead_panels(const analysis_options *options, const figure_grid *g,
                              size_t config_count, int lines, figure_size *fitted,
                              heat_layout *layout)
{
    *fitted = options->figure;
    *layout = heat_figure_layout(fitted, &g->x_axis, &g->y_axis, config_count, lines);
    if (fitted->height_in > 0 || layout->rows == 1 || layout->height_in <= PLOT_PRINT_HEIGHT_MAX_IN)
        return config_count;
    fitted->height_in = PLOT_PRINT_HEIGHT_MAX_IN;
    if (plot_label_fits("-0.00",
                        heat_cell_width_pt(fitted, &g->x_axis, &g->y_axis, config_count, lines))) {
        *layout = heat_figure_layout(fitted, &g->x_axis, &g->y_axis, config_count, lines);
        return config_count;
    }
    *fitted = options->figure;
    *layout = heat_figure_layout(fitted, &g->x_axis, &g->y_axis, 1, lines);
    return 1;
}

/* compare_overhead: each configuration's r_overhead (its launches' mean)
 * side by side, or a figure each (overhead_figure_name) where together
 * they would not fit a column's 5 in; *figures: how many. */
int draw_configurations(const compare_run *runs, const compare_config *configs, size_t config_count,
                        const common_cell *common, size_t n, const level_estimate *est,
                        const level_class *classes, figure_grid *g, const char *out_dir,
                        const analysis_options *options, const char *note, heat_value *values,
                        size_t *figures, analysis_error *err)
{
    char stops[400], label[100];
    snprintf(label, sizeof label, "r_overhead");
    heat_scale scale =
        plot_overhead_scale(options->palette, label, options->r_overhead_max, stops, sizeof stops);
    char scenario[600], title_text[700], quoted[800];
    scenario_line(runs, configs, config_count, scenario, sizeof scenario);
    int lines = options->titles ? (scenario[0] ? 2 : 1) : 0;
    figure_size fitted;
    heat_layout layout;
    size_t panels = overhead_panels(options, g, config_count, lines, &fitted, &layout);
    bool split = panels < config_count;
    *figures = split ? config_count : 1;
    /* a normalized figure says so in its title, the factors in its caption */
    snprintf(title_text, sizeof title_text, "%s%s%s",
             options->normalize_cores ? "r_overhead, compute normalized"
                                      : "r_overhead, one colour scale",
             scenario[0] ? "\n" : "", scenario);
    plot_quote(title_text, quoted, sizeof quoted);
    double cell_pt = heat_cell_width_pt(&fitted, &g->x_axis, &g->y_axis, panels, lines);
    strbuf body = {0}; /* the figure being written */
    const char *legend = "";
    int status = ANALYSIS_OK;
    for (size_t c = 0; status == ANALYSIS_OK && c < config_count; c++) {
        if (c == 0 || split) {
            strbuf_printf(&body, "    set multiplot layout %d,%d title \"%s\"\n", layout.rows,
                          layout.cols, options->titles ? quoted : "");
            /* every panel keeps the colour bar's room (characters at the
             * figures' font), so the panels without it have the same plot
             * area */
            strbuf_printf(&body, "    set rmargin 11\n");
        }
        const compare_run *first = &runs[configs[c].first_run];
        /* each panel under its configuration's bytes and GEMM orders */
        status = grid_physical(g, runs, configs[c].first_run, common, n, false, err);
        for (size_t i = 0; status == ANALYSIS_OK && i < n; i++) {
            const level_estimate *e = estimate_at(est, n, c, 0, i); /* r_overhead */
            const cell_metrics *cell = &first->cells.cells[common[i].index[configs[c].first_run]];
            values[i] = (heat_value){common[i].comm_target_s, common[i].comp_target_s, e->estimate,
                                     e->launches > 0, plot_invalid_label(cell, cell_pt),
                                     unconfirmed(&classes[c * n + i]),
                                     /* the launches' interval wholly beyond 0..1 */
                                     e->launches > 0 && e->ci.lo > scale.max   ? 1
                                     : e->launches > 0 && e->ci.hi < scale.min ? -1
                                                                               : 0};
        }
        if (!legend[0])
            legend = invalid_legend(values, n, cell_pt);
        char name[64], title[700], launches[64] = "";
        snprintf(name, sizeof name, "compare_overhead_%zu.dat", c + 1);
        if (status == ANALYSIS_OK)
            status =
                write_heat(out_dir, name, &g->x_axis, &g->y_axis, values, n, &scale, cell_pt, err);
        if (configs[c].launches > 1)
            snprintf(launches, sizeof launches, " (%zu launches)", configs[c].launches);
        char tail[160];
        plot_short_tail(&first->meta, tail, sizeof tail);
        snprintf(title, sizeof title, "%s %s%s",
                 meta_or(first->meta.collective, first->cells.cells[0].collective), tail, launches);
        /* one colour bar, beside the last panel: the panels share it */
        heat_scale shown = scale;
        shown.hide_colorbox = !split && c + 1 < config_count;
        shown.shared_bar = true;
        heat_emit_panel(&body, name, &g->x_axis, &g->y_axis, &shown, title);
        if (status == ANALYSIS_OK && (split || c + 1 == config_count)) {
            strbuf_printf(&body, "    unset multiplot\n");
            status = write_overhead_figure(configs, config_count, split ? c : SIZE_MAX, scenario,
                                           &layout, scale.saturate_high, legend, note, &body,
                                           out_dir, err);
            strbuf_free(&body);
            body = (strbuf){0};
        }
    }
    strbuf_free(&body);
    return status;
}

/* What tells configuration k of a pair from the other, as a reader names
 * it: the deployment ("progress"), else the library ("Open MPI 4.1.4"),
 * else its whole label. */
static void side_name(const compare_run *runs, const compare_config *configs, size_t k, char *out,
                      size_t out_size)
{
    const run_meta *mine = &runs[configs[k].first_run].meta,
                   *other = &runs[configs[1 - k].first_run].meta;
    char library[2][160];
    plot_library_name(mine, library[0], sizeof library[0]);
    plot_library_name(other, library[1], sizeof library[1]);
    if (mine->deployment[0] && strcmp(mine->deployment, other->deployment) != 0)
        snprintf(out, out_size, "%s", mine->deployment);
    else if (strcmp(library[0], library[1]) != 0)
        snprintf(out, out_size, "%s", library[0]);
    else
        snprintf(out, out_size, "%.150s", configs[k].label);
}

/* diff_<metric>: the second configuration minus the first, hatched where
 * not significant. */
int draw_difference(const compare_run *runs, const compare_config *configs,
                    const common_cell *common, size_t n, const level_estimate *est, size_t m,
                    figure_grid *g, const char *out_dir, const analysis_options *options,
                    const char *note, heat_value *values, analysis_error *err)
{
    const compare_metric *metric = &compare_metrics[m];
    bool two_level = configs[0].launches >= 2 && configs[1].launches >= 2;
    for (size_t i = 0; i < n; i++) {
        cell_difference d =
            difference_of(estimate_at(est, n, 0, m, i), estimate_at(est, n, 1, m, i));
        values[i] = (heat_value){common[i].comm_target_s,
                                 common[i].comp_target_s,
                                 d.value,
                                 d.valid,
                                 NULL,
                                 !d.significant,
                                 0};
    }
    /* the second configuration's bytes change the layout: set them first */
    int status = grid_physical(g, runs, configs[0].first_run, common, n, false, err);
    if (status == ANALYSIS_OK)
        status = grid_physical(g, runs, configs[1].first_run, common, n, true, err);
    char scenario[600];
    scenario_line(runs, configs, 2, scenario, sizeof scenario);
    int lines = options->titles ? (scenario[0] ? 2 : 1) : 0;
    double cell_pt = heat_cell_width_pt(&options->figure, &g->x_axis, &g->y_axis, 1, lines);
    char caption[2700], label[120], data[64], base[64], title[1000] = "";
    snprintf(caption, sizeof caption,
             "%s of the second configuration minus the first. First: %s (%zu launch%s); second: "
             "%s (%zu launch%s). Blue: the second lower, red: higher. Dashed outline: not "
             "significant (%s). Under the times: the first configuration's message bytes and "
             "GEMM order (in brackets); where the second's read differently, its bytes on a "
             "third line and its order after a slash.%s%s",
             metric->name, configs[0].label, configs[0].launches,
             configs[0].launches == 1 ? "" : "es", configs[1].label, configs[1].launches,
             configs[1].launches == 1 ? "" : "es",
             two_level ? "the difference's 95 % interval over the launches holds 0"
                       : "the 95 % intervals overlap; one launch: launch-to-launch variation "
                         "not covered",
             invalid_legend(values, n, cell_pt), note);
    snprintf(label, sizeof label, "difference of %s", metric->name);
    char second[160], first[160];
    side_name(runs, configs, 1, second, sizeof second);
    side_name(runs, configs, 0, first, sizeof first);
    if (options->titles)
        snprintf(title, sizeof title, "%s: %s - %s%s%s%s", metric->name, second, first,
                 options->normalize_cores ? ", normalized" : "", scenario[0] ? "\n" : "", scenario);
    snprintf(data, sizeof data, "diff_%s.dat", metric->map);
    snprintf(base, sizeof base, "diff_%s", metric->map);
    heat_scale diff = plot_diverging_scale(options->palette, label, metric->saturation);
    if (status == ANALYSIS_OK)
        status = write_heat(out_dir, data, &g->x_axis, &g->y_axis, values, n, &diff, cell_pt, err);
    heat_layout layout = heat_figure_layout(&options->figure, &g->x_axis, &g->y_axis, 1, lines);
    strbuf body = {0};
    plot_emit_canvas_title(&body, title);
    heat_emit_panel(&body, data, &g->x_axis, &g->y_axis, &diff, "");
    strbuf_printf(&body, "    unset multiplot\n");
    char comment[160];
    snprintf(comment, sizeof comment,
             "Difference of %s between two configurations (second minus first)", metric->name);
    if (status == ANALYSIS_OK)
        status = write_script(out_dir, base, comment, configs, 2, scenario, layout.width_in,
                              layout.height_in, &body, caption, err);
    strbuf_free(&body);
    return status;
}

/* The folders of one collective at several rank counts (a job's
 * run.ranks, or runs launched at different sizes): r_overhead against the
 * rank count, a line per collective, over the cells common to all runs
 * (overhead_vs_ranks.csv, .dat and .gp). *drawn: whether there was one. */
int write_rank_scaling(const compare_run *runs, const compare_config *configs, size_t config_count,
                       size_t n, const level_estimate *est, const char *out_dir,
                       const figure_size *size, bool *drawn, analysis_error *err)
{
    *drawn = false;
    const char **names = calloc(config_count ? config_count : 1, sizeof *names);
    if (!names)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    size_t lines = 0;
    strbuf csv = {0}, dat = {0};
    strbuf_printf(&csv, "collective,ranks,r_overhead_mean,r_overhead_min,r_overhead_max,cells\n");
    for (size_t c = 0; c < config_count; c++) {
        const char *coll = runs[configs[c].first_run].meta.collective;
        bool seen = false, several = false;
        for (size_t l = 0; l < lines; l++)
            seen = seen || strcmp(names[l], coll) == 0;
        for (size_t d = 0; d < config_count; d++)
            several = several || (strcmp(runs[configs[d].first_run].meta.collective, coll) == 0 &&
                                  runs[configs[d].first_run].meta.ranks !=
                                      runs[configs[c].first_run].meta.ranks);
        if (seen || !several || !coll[0])
            continue;
        /* This collective's configurations, by increasing rank count. */
        strbuf_printf(&dat, "%s# %s\n", lines ? "\n\n" : "", coll);
        long previous = 0;
        for (;;) {
            long next = 0;
            size_t at = config_count;
            for (size_t d = 0; d < config_count; d++) {
                const run_meta *m = &runs[configs[d].first_run].meta;
                if (strcmp(m->collective, coll) == 0 && m->ranks > previous &&
                    (next == 0 || m->ranks < next))
                    next = m->ranks, at = d;
            }
            if (at == config_count)
                break;
            previous = next;
            double sum = 0, lo = INFINITY, hi = -INFINITY;
            size_t cells = 0;
            for (size_t i = 0; i < n; i++) {
                double v = estimate_at(est, n, at, 0, i)->estimate; /* metric 0: r_overhead */
                if (isfinite(v)) {
                    sum += v, cells++;
                    lo = fmin(lo, v), hi = fmax(hi, v);
                }
            }
            if (cells == 0)
                continue;
            strbuf_printf(&csv, "%s,%ld,%.6g,%.6g,%.6g,%zu\n", coll, next, sum / cells, lo, hi,
                          cells);
            strbuf_printf(&dat, "%ld %.6g %.6g %.6g\n", next, sum / cells, lo, hi);
        }
        names[lines++] = coll;
    }
    int status = ANALYSIS_OK;
    if (lines > 0) {
        strbuf body = {0};
        plot_emit_ranks_lines(&body, "overhead_vs_ranks.dat", names, lines);
        status = write_text(out_dir, "overhead_vs_ranks.csv", &csv, err);
        if (status == ANALYSIS_OK)
            status = write_text(out_dir, "overhead_vs_ranks.dat", &dat, err);
        char scenario[600];
        scenario_line(runs, configs, config_count, scenario, sizeof scenario);
        if (status == ANALYSIS_OK)
            status = write_script(out_dir, "overhead_vs_ranks",
                                  "r_overhead against the rank count, a line per collective", NULL,
                                  0, scenario, size->width_in,
                                  size->height_in > 0 ? size->height_in : 0.65 * size->width_in,
                                  &body, "Bars: the lowest and highest cell.", err);
        strbuf_free(&body);
        *drawn = status == ANALYSIS_OK;
    }
    strbuf_free(&csv);
    strbuf_free(&dat);
    free(names);
    return status;
}
