/* analysis: heatmap geometry shared by every map (nbc-analyze,
 * nbc-compare): the log-scaled axes of target times, the data file of one
 * map and the panel that draws it. */
#include "analysis/figures/figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The room around a heatmap's plot area at PLOT_FONT_PT (inches): left, the
 * y label and tick labels; right, the colour box, its ticks and label;
 * below, the tick and axis labels; one title line. */
static const double margin_left_in = 0.75, margin_right_in = 0.75, margin_below_in = 1.0,
                    title_line_in = PLOT_FONT_PT * 1.25 / 72.0;
/* The right margin gnuplot draws at most (the shared colour bar's room). */
static const double drawn_margin_right_in = 62.0 / 72.0;
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

static void format_physical(const heat_axis *axis, long long value, char *out, size_t out_size);

int heat_axis_set_physical_alt(heat_axis *axis, const double *targets_s, const long long *values,
                               size_t n, analysis_error *err)
{
    free(axis->physical_alt);
    axis->physical_alt = NULL;
    if (!axis->physical)
        return ANALYSIS_OK;
    long long *alt = calloc(axis->count ? axis->count : 1, sizeof *alt);
    if (!alt)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (axis)");
    for (size_t i = 0; i < n; i++) {
        size_t k = heat_axis_index(axis, targets_s[i]);
        if (k < axis->count && alt[k] <= 0 && values[i] > 0)
            alt[k] = values[i];
    }
    bool differs = false;
    for (size_t k = 0; k < axis->count; k++) {
        char first[32], second[32];
        format_physical(axis, axis->physical[k], first, sizeof first);
        format_physical(axis, alt[k], second, sizeof second);
        if (strcmp(first, second) == 0)
            alt[k] = 0; /* reads the same: shown once */
        else
            differs = true;
    }
    if (differs)
        axis->physical_alt = alt;
    else
        free(alt);
    return ANALYSIS_OK;
}

void heat_axis_free(heat_axis *axis)
{
    free(axis->targets_s);
    free(axis->physical);
    free(axis->physical_alt);
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

/* ---- Labels that fit their cells ---------------------------------------------- */

/* Advance widths of DejaVu Sans, the figures' font, in em (its hmtx table):
 * the characters of cell labels; any other counts as the widest, 1 em. */
static const struct {
    const char *chars;
    double em;
} glyph_widths[] = {
    {"0123456789", 0.636}, {".,: ", 0.318}, {"-", 0.361},   {"/", 0.337},     {"?", 0.531},
    {"()", 0.390},         {"_", 0.500},    {"+=", 0.838},  {"%", 0.950},     {"<>", 0.838},
    {"il", 0.278},         {"f", 0.352},    {"t", 0.392},   {"r", 0.411},     {"s", 0.521},
    {"z", 0.525},          {"c", 0.550},    {"k", 0.579},   {"vxy", 0.592},   {"o", 0.612},
    {"a", 0.613},          {"e", 0.615},    {"hnu", 0.634}, {"bdgpq", 0.635}, {"w", 0.818},
    {"m", 0.974},          {"IJ", 0.295},   {"L", 0.557},   {"F", 0.575},     {"PTY", 0.611},
    {"E", 0.632},          {"S", 0.635},    {"K", 0.656},   {"AVXZ", 0.685},  {"B", 0.686},
    {"R", 0.695},          {"C", 0.698},    {"U", 0.732},   {"N", 0.748},     {"H", 0.752},
    {"D", 0.770},          {"G", 0.775},    {"OQ", 0.787},  {"M", 0.863},     {"W", 0.989},
};

double plot_text_width_pt(const char *text, double font_pt)
{
    double em = 0;
    for (const char *p = text; *p; p++) {
        double w = 1.0;
        for (size_t g = 0; g < sizeof glyph_widths / sizeof *glyph_widths; g++)
            if (strchr(glyph_widths[g].chars, *p)) {
                w = glyph_widths[g].em;
                break;
            }
        em += w;
    }
    return em * font_pt;
}

/* The share of a cell's width a label may take: the cells' white borders,
 * and the plot area gnuplot draws a little narrower than planned. */
static const double label_fill = 0.85;

bool plot_label_fits(const char *text, double cell_pt)
{
    return cell_pt <= 0 || plot_text_width_pt(text, PLOT_LABEL_PT) <= label_fill * cell_pt;
}

/* An invalid cell's reason in its cell, in full or abbreviated (all or
 * none, so one legend explains them). */
static const struct {
    unsigned reasons; /* 0: several */
    const char *label, *abbreviation;
} invalid_labels[] = {
    {INVALID_UNREACHABLE, "unreachable", "unr."},
    {INVALID_NOT_MEASURED, "not run", "n/r"},
    {INVALID_LATE, "late", "late"},
    {0, "invalid", "inv."},
};
const char plot_invalid_legend[] =
    " Grey, hatched: invalid (unr.: target unreachable; n/r: not run; inv.: several reasons).";

bool plot_invalid_abbreviated(double cell_pt)
{
    for (size_t i = 0; i < sizeof invalid_labels / sizeof *invalid_labels; i++)
        if (!plot_label_fits(invalid_labels[i].label, cell_pt))
            return true;
    return false;
}

const char *plot_invalid_label(const cell_metrics *cell, double cell_pt)
{
    size_t n = sizeof invalid_labels / sizeof *invalid_labels, i = 0;
    while (i + 1 < n && cell->invalid_reasons != invalid_labels[i].reasons)
        i++;
    return plot_invalid_abbreviated(cell_pt) ? invalid_labels[i].abbreviation
                                             : invalid_labels[i].label;
}

/* Two decimals, fewer where they would not fit the cell. */
static void format_value(double value, double cell_pt, char *out, size_t out_size)
{
    double magnitude = fabs(value);
    int decimals = magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0;
    for (;; decimals--) {
        /* a value that rounds to zero reads "0.00", not "-0.00" */
        double shown = magnitude < 0.5 * pow(10, -decimals) ? 0 : value;
        snprintf(out, out_size, "%.*f", decimals, shown);
        if (decimals == 0 || plot_label_fits(out, cell_pt))
            return;
    }
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
                    const heat_value *values, size_t n, const heat_scale *scale, double cell_pt,
                    analysis_error *err)
{
    strbuf sb = {0};
    strbuf_printf(&sb, "# x y xlo xhi ylo yhi value valid label label_colour uncertain beyond\n"
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
            format_value(v->value, cell_pt, label, sizeof label);
        else
            snprintf(label, sizeof label, "%s",
                     v->invalid_label                    ? v->invalid_label
                     : plot_invalid_abbreviated(cell_pt) ? "inv."
                                                         : "invalid");
        bool uncertain = shown && v->uncertain;
        strbuf_printf(&sb, "%.6f %.6f %.6f %.6f %.6f %.6f %.6g %d \"%s\" %u %d %d\n",
                      heat_axis_position(v->comm_target_s), heat_axis_position(v->comp_target_s),
                      xlo, xhi, ylo, yhi, shown ? v->value : 0.0, shown ? 1 : 0, label,
                      shown ? label_colour(scale, v->value) : 0u, uncertain ? 1 : 0,
                      shown ? v->beyond : 0);
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

/* One physical value as a tick shows it ("5.4M", "279"); "?" unknown. */
static void format_physical(const heat_axis *axis, long long value, char *out, size_t out_size)
{
    if (value <= 0)
        snprintf(out, out_size, "?");
    else if (axis->physical_is_bytes)
        format_bytes(value, out, out_size);
    else
        snprintf(out, out_size, "%lld", value);
}

/* Tick i's label: the target time, and under it the bytes or the GEMM
 * order used; a second run's where it differs: its bytes on a third line,
 * its order after a slash ("(279/301)"), so that the labels stay as narrow
 * as the cells. Lines end with '\n' (gnuplot's escape written as is). */
static void tick_label(const heat_axis *axis, size_t i, char *out, size_t out_size)
{
    char ms[32], first[32], alt[32];
    plot_format_ms(axis->targets_s[i], ms, sizeof ms);
    long long physical = axis->physical ? axis->physical[i] : 0;
    long long other = axis->physical_alt ? axis->physical_alt[i] : 0;
    format_physical(axis, physical, first, sizeof first);
    format_physical(axis, other, alt, sizeof alt);
    if (physical > 0 && axis->physical_given) /* the size first: it is the target */
        snprintf(out, out_size, "%s%s%s\n%.2g", first, other > 0 ? "\n" : "", other > 0 ? alt : "",
                 axis->targets_s[i] * 1e3);
    else if ((physical > 0 || other > 0) && axis->physical_is_bytes)
        snprintf(out, out_size, "%s\n%s%s%s", ms, first, other > 0 ? "\n" : "",
                 other > 0 ? alt : "");
    else if (physical > 0 || other > 0)
        snprintf(out, out_size, "%s\n(%s%s%s)", ms, first, other > 0 ? "/" : "",
                 other > 0 ? alt : "");
    else
        snprintf(out, out_size, "%s", ms);
}

static void emit_tics(strbuf *sb, const char *which, const heat_axis *axis)
{
    strbuf_printf(sb, "    set %s (", which);
    for (size_t i = 0; i < axis->count; i++) {
        char label[128];
        tick_label(axis, i, label, sizeof label);
        strbuf_printf(sb, "%s\"", i ? ", " : "");
        for (const char *p = label; *p; p++) { /* a new line as gnuplot's escape */
            if (*p == '\n')
                strbuf_printf(sb, "\\n");
            else
                strbuf_printf(sb, "%c", *p);
        }
        strbuf_printf(sb, "\" %.6f", heat_axis_position(axis->targets_s[i]));
    }
    strbuf_printf(sb, ")\n");
}

/* The widest line of an axis' tick labels at PLOT_FONT_PT (pt). */
static double widest_tick_pt(const heat_axis *axis)
{
    double widest = 0;
    for (size_t i = 0; i < axis->count; i++) {
        char label[128];
        tick_label(axis, i, label, sizeof label);
        char *save = NULL;
        for (char *line = strtok_r(label, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            widest = fmax(widest, plot_text_width_pt(line, PLOT_FONT_PT));
    }
    return widest;
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
    /* the x label under the tick labels' second (and third) lines */
    strbuf_printf(sb, "    set xlabel offset 0,%g\n",
                  x_axis->physical_alt ? -1.6
                  : x_axis->physical   ? -0.6
                                       : 0.0);
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

/* Uncertain cells (README.md, "Uncertainty"): a dashed black outline on a
 * wider white one inside the cell, seen on the darkest and the lightest
 * colour at a column's width; colour and value stay readable. */
void heat_emit_uncertain_layer(strbuf *sb, const char *quoted_file, const char *condition,
                               const char *key_title)
{
    static const char inset[] =
        "($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5))";
    strbuf_printf(sb,
                  ", \\\n        \"%s\" using (%s?$1:NaN):2:%s with boxxyerror fs empty "
                  "lc rgb 'white' lw 3 notitle"
                  ", \\\n        \"%s\" using (%s?$1:NaN):2:%s with boxxyerror fs empty "
                  "lc rgb 'black' dt (3,2) lw 1.5 ",
                  quoted_file, condition, inset, quoted_file, condition, inset);
    if (key_title)
        strbuf_printf(sb, "title \"%s\"", key_title);
    else
        strbuf_printf(sb, "notitle");
}

/* Cells beyond a saturated end (column 12): a black triangle on a larger
 * white one in the corner, seen on every colour, up where the cell is
 * surely above the scale, down where surely below. */
static void emit_beyond_layer(strbuf *sb, const char *quoted_file)
{
    static const struct {
        const char *condition, *x, *y;
        int point;
    } marks[] = {{"$12>0", "$4-0.22*($4-$3)", "$6-0.22*($6-$5)", 9},
                 {"$12<0", "$3+0.22*($4-$3)", "$5+0.22*($6-$5)", 11}};
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++)
        for (int layer = 0; layer < 2; layer++)
            strbuf_printf(sb,
                          ", \\\n        \"%s\" using (%s?%s:NaN):(%s) with points pt %d ps %s "
                          "lc rgb '%s' notitle",
                          quoted_file, marks[m].condition, marks[m].x, marks[m].y, marks[m].point,
                          layer ? "1.2" : "1.9", layer ? "black" : "white");
}

/* A saturating scale's ticks: its ends (">= max", "<= min" where
 * saturated) and three between. */
static void emit_saturated_tics(strbuf *sb, const heat_scale *scale)
{
    strbuf_printf(sb, "    unset logscale cb\n    set cbtics (");
    for (int k = 0; k <= 4; k++) {
        double v = scale->min + (scale->max - scale->min) * k / 4.0;
        const char *prefix = k == 4 && scale->saturate_high  ? "\xe2\x89\xa5"
                             : k == 0 && scale->saturate_low ? "\xe2\x89\xa4"
                                                             : "";
        strbuf_printf(sb, "%s\"%s%g\" %g", k ? ", " : "", prefix, v, v);
    }
    strbuf_printf(sb, ")\n");
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
                  "    %s colorbox\n",
                  scale->min, scale->max, scale->palette, label,
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
    } else if (scale->saturate_high || scale->saturate_low) {
        emit_saturated_tics(sb, scale);
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
    heat_emit_uncertain_layer(sb, file, "$11==1", NULL);
    if (scale->saturate_high || scale->saturate_low)
        emit_beyond_layer(sb, file);
    strbuf_printf(sb,
                  ", \\\n        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle"
                  ", \\\n        \"%s\" using 1:2:($8==1?$9:\"\"):10 with labels font ',%d' tc rgb "
                  "variable notitle\n",
                  file, PLOT_LABEL_PT);
}

/* ---- Running gnuplot ----------------------------------------------------------------- */

double heat_cell_width_pt(const figure_size *size, const heat_axis *x_axis, const heat_axis *y_axis,
                          size_t panels, int title_lines)
{
    heat_layout layout = heat_figure_layout(size, x_axis, y_axis, panels, title_lines);
    double xlo, xhi, ylo, yhi;
    axis_range(x_axis, &xlo, &xhi);
    axis_range(y_axis, &ylo, &yhi);
    /* the plot area: the panel's width less the margins, or less where a
     * given height holds the square cells. The margins as gnuplot draws
     * them (measured on the SVGs): left, the y tick labels and the y
     * label; right, a colour bar with its label, or a shared bar's room
     * (set rmargin 11). */
    double left_in = fmax(margin_left_in, (widest_tick_pt(y_axis) + 40.0) / 72.0);
    double area_in = size->width_in / layout.cols - left_in - drawn_margin_right_in;
    double height_in = layout.height_in / layout.rows - margin_below_in - title_line_in;
    if (size->height_in > 0)
        area_in = fmin(area_in, height_in * (xhi - xlo) / (yhi - ylo));
    double narrowest = INFINITY;
    for (size_t i = 0; i < x_axis->count; i++) {
        double lo, hi;
        heat_axis_bounds(x_axis, i, &lo, &hi);
        narrowest = fmin(narrowest, hi - lo);
    }
    return x_axis->count ? area_in * 72.0 * narrowest / (xhi - xlo) : 0;
}

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
    /* a second run's bytes: one tick line more */
    double panel_in = area_in * (yhi - ylo) / (xhi - xlo) + margin_below_in + title_line_in +
                      (x_axis->physical_alt ? title_line_in : 0);
    if (out.height_in <= 0)
        out.height_in = out.rows * panel_in + title_lines * title_line_in + 0.1;
    return out;
}
