/* analysis: heatmap geometry shared by every map (nbc-analyze,
 * nbc-compare): the log-scaled axes of target times, the data file of one
 * map and the panel that draws it. */
#include "analysis/analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The room around a heatmap's plot area at PLOT_FONT_PT (inches): left, the
 * y label and tick labels; right, the colour box, its ticks and label;
 * below, the tick and axis labels; one title line. */
static const double margin_left_in = 0.75, margin_right_in = 0.75, margin_below_in = 1.0,
                    title_line_in = PLOT_FONT_PT * 1.25 / 72.0;
/* Panels go side by side when each gets this width, else one above the other. */
static const double side_by_side_min_in = 3.2;

/* ---- Heatmap grid --------------------------------------------------------------- */

double heat_axis_position(double target_s)
{
    return log2(target_s * 1e3); /* log2 of milliseconds: same scale on both axes */
}

int heat_axis_build(heat_axis *axis, const double *targets_s, size_t n, analysis_error *err)
{
    *axis = (heat_axis){0};
    double *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (axis)");
    memcpy(sorted, targets_s, n * sizeof *sorted);
    stats_sort(sorted, n);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (distinct == 0 || !analysis_same_target(sorted[distinct - 1], sorted[i]))
            sorted[distinct++] = sorted[i];
    axis->targets_s = sorted;
    axis->count = distinct;
    return ANALYSIS_OK;
}

int heat_axis_set_physical(heat_axis *axis, const double *targets_s, const long long *values,
                           size_t n, bool is_bytes, analysis_error *err)
{
    free(axis->physical);
    axis->physical = calloc(axis->count ? axis->count : 1, sizeof *axis->physical);
    if (!axis->physical)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (axis)");
    axis->physical_is_bytes = is_bytes;
    for (size_t i = 0; i < n; i++) {
        size_t k = heat_axis_index(axis, targets_s[i]);
        if (k < axis->count && axis->physical[k] <= 0 && values[i] > 0)
            axis->physical[k] = values[i];
    }
    return ANALYSIS_OK;
}

void heat_axis_free(heat_axis *axis)
{
    free(axis->targets_s);
    free(axis->physical);
    *axis = (heat_axis){0};
}

size_t heat_axis_index(const heat_axis *axis, double target_s)
{
    for (size_t i = 0; i < axis->count; i++)
        if (analysis_same_target(axis->targets_s[i], target_s))
            return i;
    return axis->count;
}

/* A cell spans halfway to its neighbours on the log scale. */
void heat_axis_bounds(const heat_axis *axis, size_t i, double *lo, double *hi)
{
    double x = heat_axis_position(axis->targets_s[i]);
    double left = i > 0 ? (x - heat_axis_position(axis->targets_s[i - 1])) / 2 : NAN;
    double right = i + 1 < axis->count ? (heat_axis_position(axis->targets_s[i + 1]) - x) / 2 : NAN;
    if (isnan(left))
        left = isnan(right) ? 0.5 : right;
    if (isnan(right))
        right = left;
    *lo = x - left;
    *hi = x + right;
}

static void axis_range(const heat_axis *axis, double *lo, double *hi)
{
    double unused;
    heat_axis_bounds(axis, 0, lo, &unused);
    heat_axis_bounds(axis, axis->count - 1, &unused, hi);
}

static void format_value(double value, char *out, size_t out_size)
{
    double magnitude = fabs(value);
    int decimals = magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0;
    /* a value that rounds to zero reads "0.00", not "-0.00" */
    if (magnitude < 0.5 * pow(10, -decimals))
        value = 0;
    snprintf(out, out_size, "%.*f", decimals, value);
}

/* White labels on the dark ends of a scale (the low end only for a
 * sequential map), black elsewhere. */
static unsigned label_colour(const heat_scale *scale, double value)
{
    if (scale->white_band)
        return value >= scale->white_lo && value <= scale->white_hi ? 0xffffffu : 0x000000u;
    /* a log scale's ends are measured on its log */
    double lo = scale->log ? log(scale->min) : scale->min;
    double hi = scale->log ? log(scale->max) : scale->max;
    double v = scale->log ? (value > 0 ? log(value) : lo) : value;
    double span = hi - lo;
    bool dark = v <= lo + scale->dark_fraction * span ||
                (!scale->dark_low_only && v >= hi - scale->dark_fraction * span);
    return scale->dark_fraction > 0 && dark ? 0xffffffu : 0x000000u;
}

int heat_write_data(const char *path, const heat_axis *x_axis, const heat_axis *y_axis,
                    const heat_value *values, size_t n, const heat_scale *scale,
                    analysis_error *err)
{
    strbuf sb = {0};
    strbuf_printf(&sb, "# x y xlo xhi ylo yhi value valid label label_colour uncertain\n"
                       "# x, y: log2 of the target times in ms; one line per cell\n");
    for (size_t i = 0; i < n; i++) {
        const heat_value *v = &values[i];
        size_t xi = heat_axis_index(x_axis, v->comm_target_s);
        size_t yi = heat_axis_index(y_axis, v->comp_target_s);
        if (xi == x_axis->count || yi == y_axis->count)
            continue;
        double xlo, xhi, ylo, yhi;
        heat_axis_bounds(x_axis, xi, &xlo, &xhi);
        heat_axis_bounds(y_axis, yi, &ylo, &yhi);
        bool shown = v->valid && isfinite(v->value);
        char label[32];
        if (shown)
            format_value(v->value, label, sizeof label);
        else
            snprintf(label, sizeof label, "%s", v->invalid_label ? v->invalid_label : "invalid");
        bool uncertain = shown && v->uncertain;
        strbuf_printf(&sb, "%.6f %.6f %.6f %.6f %.6f %.6f %.6g %d \"%s\" %u %d\n",
                      heat_axis_position(v->comm_target_s), heat_axis_position(v->comp_target_s),
                      xlo, xhi, ylo, yhi, shown ? v->value : 0.0, shown ? 1 : 0, label,
                      shown ? label_colour(scale, v->value) : 0u, uncertain ? 1 : 0);
    }
    if (!sb.ok) {
        strbuf_free(&sb);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", path);
    }
    int status = analysis_write_file_atomic(path, sb.data, sb.len, err);
    strbuf_free(&sb);
    return status;
}

void plot_format_ms(double target_s, char *out, size_t out_size)
{
    snprintf(out, out_size, "%g", target_s * 1e3);
}

/* Bytes in decimal units, two significant digits, the unit's letter only
 * ("64", "5.4M"): a tick label must fit a cell. */
static void format_bytes(long long bytes, char *out, size_t out_size)
{
    static const char *const units[] = {"", "k", "M", "G", "T"};
    double value = (double)bytes;
    size_t u = 0;
    while (value >= 999.5 && u + 1 < sizeof units / sizeof *units) {
        value /= 1000;
        u++;
    }
    snprintf(out, out_size, value >= 99.5 ? "%.0f%s" : "%.2g%s", value, units[u]);
}

/* The target times, and under each the bytes or the GEMM order used. */
static void emit_tics(strbuf *sb, const char *which, const heat_axis *axis)
{
    strbuf_printf(sb, "    set %s (", which);
    for (size_t i = 0; i < axis->count; i++) {
        char ms[32], second[40] = "";
        plot_format_ms(axis->targets_s[i], ms, sizeof ms);
        long long physical = axis->physical ? axis->physical[i] : 0;
        if (physical > 0 && axis->physical_given) { /* the size first: it is the target */
            format_bytes(physical, second, sizeof second);
            strbuf_printf(sb, "%s\"%s\\n%.2g\" %.6f", i ? ", " : "", second,
                          axis->targets_s[i] * 1e3, heat_axis_position(axis->targets_s[i]));
            continue;
        }
        if (physical > 0 && axis->physical_is_bytes) {
            format_bytes(physical, second + 2, sizeof second - 2);
            memcpy(second, "\\n", 2);
        } else if (physical > 0) {
            snprintf(second, sizeof second, "\\n(%lld)", physical);
        }
        strbuf_printf(sb, "%s\"%s%s\" %.6f", i ? ", " : "", ms, second,
                      heat_axis_position(axis->targets_s[i]));
    }
    strbuf_printf(sb, ")\n");
}

/* Axes, ticks and the t_comp = t_comm diagonal shared by every heatmap. */
void heat_emit_grid(strbuf *sb, const heat_axis *x_axis, const heat_axis *y_axis, const char *title)
{
    double xlo, xhi, ylo, yhi;
    axis_range(x_axis, &xlo, &xhi);
    axis_range(y_axis, &ylo, &yhi);
    char quoted[600];
    plot_quote(title, quoted, sizeof quoted);
    strbuf_printf(sb,
                  "    set title \"%s\"\n"
                  "    set size ratio -1\n"
                  "    set xrange [%.6f:%.6f]\n"
                  "    set yrange [%.6f:%.6f]\n"
                  "    set xlabel '%s'\n"
                  "    set ylabel '%s'\n"
                  "    set tics out nomirror scale 0.5\n"
                  "    set key off\n",
                  quoted, xlo, xhi, ylo, yhi,
                  x_axis->physical_given ? "message size (bytes), time measured (ms)"
                  : x_axis->physical     ? "communication: ms, bytes"
                                         : "communication target (ms)",
                  y_axis->physical ? "computation: ms (GEMM order)" : "computation target (ms)");
    emit_tics(sb, "xtics", x_axis);
    emit_tics(sb, "ytics", y_axis);
    /* long lists (beyond 12 columns) turn their labels to keep them apart */
    if (x_axis->count > 12)
        strbuf_printf(sb, "    set xtics rotate by 45 right\n");
    strbuf_printf(sb,
                  "    diagonal(x) = (x >= %.6f && x <= %.6f) ? x : NaN\n"
                  "    set samples 400\n",
                  fmax(xlo, ylo), fmin(xhi, yhi));
}

/* Invalid cells: grey and hatched, labelled "invalid", never coloured as data. */
static void emit_invalid_layers(strbuf *sb, const char *quoted_file)
{
    strbuf_printf(
        sb,
        ", \\\n        \"%s\" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs solid 1.0 "
        "border lc rgb 'white' lc rgb '#d9d9d9' notitle"
        ", \\\n        \"%s\" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs "
        "transparent pattern 4 noborder lc rgb '#7f7f7f' notitle",
        quoted_file, quoted_file);
}

/* Uncertain cells (README.md, "Uncertainty"): a dashed outline inside the
 * cell, as on the diagnosis map; colour and value stay readable. */
static void emit_uncertain_layer(strbuf *sb, const char *quoted_file)
{
    strbuf_printf(sb,
                  ", \\\n        \"%s\" using ($11==1?$1:NaN):2:($3+0.1*($4-$3)):($4-0.1*($4-$3)):"
                  "($5+0.1*($6-$5)):($6-0.1*($6-$5)) with boxxyerror fs empty lc rgb '#303030' "
                  "dt (3,2) lw 1 notitle",
                  quoted_file);
}
/* A one-panel multiplot: its title is centred on the page, not on the
 * (narrow, square-celled) plot area, so long titles are not cut. */
void plot_emit_canvas_title(strbuf *sb, const char *title)
{
    char quoted[800];
    plot_quote(title, quoted, sizeof quoted);
    strbuf_printf(sb, "    set multiplot layout 1,1 title \"%s\"\n", quoted);
}

void heat_emit_panel(strbuf *sb, const char *data_file, const heat_axis *x_axis,
                     const heat_axis *y_axis, const heat_scale *scale, const char *title)
{
    char file[600], label[300];
    plot_quote(data_file, file, sizeof file);
    plot_quote(scale->label, label, sizeof label);
    heat_emit_grid(sb, x_axis, y_axis, title);
    strbuf_printf(sb,
                  "    set cbrange [%g:%g]\n"
                  "    set palette defined %s\n"
                  "    set cblabel \"%s\"\n"
                  "    set xlabel offset 0,%g\n"
                  "    %s colorbox\n",
                  scale->min, scale->max, scale->palette, label, x_axis->physical ? -0.6 : 0.0,
                  scale->hide_colorbox ? "unset" : "set");
    /* a shared bar sits in the right margin every panel keeps, so the
     * panels' plot areas are alike */
    if (scale->shared_bar && !scale->hide_colorbox)
        strbuf_printf(sb, "    set colorbox user origin graph 1.04, graph 0 size graph 0.05, "
                          "graph 1\n");
    if (scale->log) {
        /* centred at 1: the saturations, their square roots and 1 */
        double s = scale->max, r = sqrt(s);
        strbuf_printf(sb,
                      "    set logscale cb\n"
                      "    set cbtics (\"%.2g\" %g, \"%.2g\" %g, \"1\" 1, \"%.2g\" %g, \"%.2g\" "
                      "%g)\n",
                      1 / s, 1 / s, 1 / r, 1 / r, r, r, s, s);
    } else if (scale->tics) {
        strbuf_printf(sb, "    unset logscale cb\n    set cbtics %s\n", scale->tics);
    } else {
        strbuf_printf(sb, "    unset logscale cb\n    set cbtics autofreq\n");
    }
    strbuf_printf(sb,
                  "    plot \"%s\" using 1:2:3:4:5:6:($8==1?$7:NaN) with boxxyerror fs solid 1.0 "
                  "border lc rgb 'white' lc palette notitle",
                  file);
    emit_invalid_layers(sb, file);
    emit_uncertain_layer(sb, file);
    strbuf_printf(sb,
                  ", \\\n        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle"
                  ", \\\n        \"%s\" using 1:2:($8==1?$9:\"\"):10 with labels font ',%d' tc rgb "
                  "variable notitle\n",
                  file, PLOT_LABEL_PT);
}

/* ---- Running gnuplot ----------------------------------------------------------------- */

heat_layout heat_figure_layout(const figure_size *size, const heat_axis *x_axis,
                               const heat_axis *y_axis, size_t panels, int title_lines)
{
    heat_layout out = {1, 1, size->width_in, size->height_in};
    if (panels > 1 && size->width_in / (double)panels >= side_by_side_min_in)
        out.cols = (int)panels;
    else
        out.rows = (int)(panels ? panels : 1);
    double xlo, xhi, ylo, yhi;
    axis_range(x_axis, &xlo, &xhi);
    axis_range(y_axis, &ylo, &yhi);
    /* square cells (set size ratio -1): the plot area's height follows its width */
    double area_in = size->width_in / out.cols - margin_left_in - margin_right_in;
    double panel_in = area_in * (yhi - ylo) / (xhi - xlo) + margin_below_in + title_line_in;
    if (out.height_in <= 0)
        out.height_in = out.rows * panel_in + title_lines * title_line_in + 0.1;
    return out;
}
