/* analysis: the overlap frontier's files (frontier.h): frontier.csv and the
 * figure of one run (nbc-analyze), compare_frontier.csv and the figure of
 * several (nbc-compare). Both read what nbc-analyze wrote (cells.csv,
 * meta.json). */
#include "analysis/figures/figures.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"
#include "analysis/tables/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run's frontier and what names it. */
typedef struct frontier_series {
    char label[200];
    char key[200]; /* the figure's legend entry (the label where one run is drawn) */
    run_meta meta;
    cell_table cells;
    frontier_table table;
} frontier_series;

static void series_free(frontier_series *s)
{
    frontier_table_free(&s->table);
    analysis_cell_table_free(&s->cells);
}

/* cells.csv (required) and meta.json (titles only) of run_dir, and the
 * frontier of its cells. */
static int load_series(const char *run_dir, double threshold, frontier_series *s,
                       analysis_error *err)
{
    *s = (frontier_series){0};
    char path[4200], *buf = NULL;
    size_t len = 0;
    bool missing = false;
    int status = analysis_path(path, sizeof path, run_dir, "cells.csv", err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, &buf, &len, &missing, err);
    if (status == ANALYSIS_OK)
        status = analysis_parse_cells(buf, len, path, &s->cells, err);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK && s->cells.count == 0)
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no cells", path);
    if (status == ANALYSIS_OK)
        status = analysis_path(path, sizeof path, run_dir, "meta.json", err);
    if (status == ANALYSIS_OK) {
        analysis_error ignored; /* without meta.json the title says "library unknown" */
        if (analysis_read_file(path, &buf, &len, &missing, &ignored) == ANALYSIS_OK)
            status = analysis_parse_meta(buf, len, path, &s->meta, err);
        free(buf);
    }
    if (status == ANALYSIS_OK)
        status = frontier_compute(&s->cells, threshold, &s->table, err);
    plot_short_tail(&s->meta, s->label, sizeof s->label);
    snprintf(s->key, sizeof s->key, "%s", s->label);
    return status;
}

/* ---- The figure ------------------------------------------------------------ */

/* Paul Tol's "bright" colours and a marker per series, as the impact figure */
static const char *const series_colours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44",
                                             "#66ccee", "#aa3377", "#bbbbbb"};
enum { SERIES_COLOURS = sizeof series_colours / sizeof *series_colours };
static const int series_points[SERIES_COLOURS] = {7, 5, 9, 11, 13, 4, 6};

typedef struct extent {
    double comm_lo_s, comm_hi_s, comp_lo_s, comp_hi_s;
} extent;

static extent grid_extent(const frontier_series *series, size_t count)
{
    extent e = {INFINITY, 0, INFINITY, 0};
    for (size_t k = 0; k < count; k++)
        for (size_t i = 0; i < series[k].cells.count; i++) {
            const cell_metrics *c = &series[k].cells.cells[i];
            e.comm_lo_s = fmin(e.comm_lo_s, c->comm_target_s);
            e.comm_hi_s = fmax(e.comm_hi_s, c->comm_target_s);
            e.comp_lo_s = fmin(e.comp_lo_s, c->comp_target_s);
            e.comp_hi_s = fmax(e.comp_hi_s, c->comp_target_s);
        }
    return e;
}

/* Where a row is drawn (ms): the frontier with its bar; none below the
 * grid, not_determined at the cell that broke the row. The bar's ends
 * outside the grid (nan: below the smallest column, inf: above the last)
 * reach the frame. */
static void series_data(strbuf *data, const frontier_series *s, double x_scale, const extent *e)
{
    double bottom_ms = 0.5 * e->comp_lo_s * 1e3, top_ms = 2 * e->comp_hi_s * 1e3;
    for (size_t i = 0; i < s->table.count; i++) {
        const frontier_row *r = &s->table.rows[i];
        double y = r->comp_target_s * 1e3;
        if (r->status == FRONTIER_NONE)
            y = bottom_ms * M_SQRT2;
        else if (r->status == FRONTIER_NOT_DETERMINED)
            y = r->break_comp_target_s * 1e3;
        double lo = isfinite(r->comp_ci_lo_s) ? r->comp_ci_lo_s * 1e3 : bottom_ms;
        double hi = isnan(r->comp_ci_hi_s)   ? bottom_ms
                    : isinf(r->comp_ci_hi_s) ? top_ms
                                             : r->comp_ci_hi_s * 1e3;
        if (r->status == FRONTIER_NONE || r->status == FRONTIER_NOT_DETERMINED)
            lo = hi = y; /* no frontier: no bar */
        strbuf_printf(data, "%.6g %.6g %.6g %.6g %d %s\n", r->comm_target_s * 1e3 * x_scale, y,
                      fmin(lo, y), fmax(hi, y), (int)r->status, frontier_status_name(r->status));
    }
}

static void emit_ticks(strbuf *body, const char *axis, const frontier_series *series, size_t count,
                       bool comm)
{
    strbuf_printf(body, "    set %s (", axis);
    double seen[64];
    size_t n = 0;
    for (size_t k = 0; k < count; k++)
        for (size_t i = 0; i < series[k].cells.count && n < sizeof seen / sizeof *seen; i++) {
            const cell_metrics *c = &series[k].cells.cells[i];
            double t = comm ? c->comm_target_s : c->comp_target_s;
            bool known = false;
            for (size_t j = 0; j < n && !known; j++)
                known = analysis_same_target(seen[j], t);
            if (known)
                continue;
            char ms[32];
            plot_format_ms(t, ms, sizeof ms);
            strbuf_printf(body, "%s\"%s\" %.6g", n ? ", " : "", ms, t * 1e3);
            seen[n++] = t;
        }
    strbuf_printf(body, ")\n");
}

static size_t undetermined_rows(const frontier_table *table)
{
    size_t n = 0;
    for (size_t i = 0; i < table->count; i++)
        n += table->rows[i].status == FRONTIER_NOT_DETERMINED;
    return n;
}

/* Why the runs' frontiers have nothing to draw (into why, a sentence), or
 * false when a row of one has a frontier in the grid. */
static bool nothing_to_draw(const frontier_series *series, size_t count, double threshold,
                            char *why, size_t why_size)
{
    size_t rows = 0, none = 0;
    for (size_t k = 0; k < count; k++)
        for (size_t i = 0; i < series[k].table.count; i++) {
            enum frontier_status s = series[k].table.rows[i].status;
            if (s == FRONTIER_WITHIN || s == FRONTIER_BEYOND_GRID)
                return false;
            rows++;
            none += s == FRONTIER_NONE;
        }
    snprintf(why, why_size,
             "no communication target has a frontier in the grid: of %zu rows, %zu have "
             "r_overhead above %g at the smallest computation target and %zu are not "
             "determined (an invalid cell or one without an estimate first)",
             rows, none, threshold, rows - none);
    return true;
}

/* dir/base.{dat,gp,caption.txt}, a point series per run; gnuplot when
 * options->plots. scenario: what was in flight ("" for one operation), the
 * title's second line. Nothing drawn where no row has a frontier (why
 * into dir/not_drawn.txt, *drawn false). */
static int draw(const char *dir, const char *base, const frontier_series *series, size_t count,
                double threshold, const char *title, const char *scenario, const char *caption_tail,
                const analysis_options *options, bool *drawn, analysis_error *err)
{
    char why[400];
    *drawn = !nothing_to_draw(series, count, threshold, why, sizeof why);
    int recorded = plot_record_not_drawn(dir, base, *drawn ? NULL : why, err);
    if (recorded != ANALYSIS_OK || !*drawn)
        return recorded;
    extent e = grid_extent(series, count);
    strbuf data = {0}, body = {0};
    strbuf_printf(&data, "# comm_target_ms comp_frontier_ms ci_lo_ms ci_hi_ms status_code status; "
                         "one block (gnuplot index) per run\n");
    for (size_t k = 0; k < count; k++) {
        /* runs side by side around each communication target */
        double x_scale = pow(2.0, 0.12 * ((double)k - 0.5 * (double)(count - 1)));
        strbuf_printf(&data, "%s# %s\n", k ? "\n\n" : "", series[k].label);
        series_data(&data, &series[k], x_scale, &e);
    }
    char name[160], path[4200];
    snprintf(name, sizeof name, "%s.dat", base);
    int status = data.ok ? analysis_path(path, sizeof path, dir, name, err)
                         : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, data.data, data.len, err);
    strbuf_free(&data);

    int title_lines = options->titles ? (scenario[0] ? 2 : 1) : 0;
    double width_in = options->figure.width_in;
    double height_in = options->figure.height_in > 0 ? options->figure.height_in
                                                     : 0.75 * width_in + 0.2 * (title_lines + 1);
    /* the title centred on the page: the plot area is narrower than it */
    char full_title[800], comment[400];
    snprintf(full_title, sizeof full_title, "%s%s%s", title, scenario[0] ? "\n" : "", scenario);
    plot_emit_canvas_title(&body, options->titles ? full_title : "");
    strbuf_printf(&body,
                  "    set logscale xy 2\n"
                  "    set xrange [%.6g:%.6g]\n"
                  "    set yrange [%.6g:%.6g]\n"
                  "    set xlabel 'communication time, target (ms)'\n"
                  "    set ylabel 'hidden computation (ms)'\n"
                  "    set grid\n"
                  "    set tics out nomirror\n"
                  "    set key %s below horizontal font ',%d'\n"
                  "    set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead dt 2 "
                  "lc rgb '#808080'\n"
                  "    set arrow 2 from graph 0, first %.6g to graph 1, first %.6g nohead dt 2 "
                  "lc rgb '#808080'\n",
                  e.comm_lo_s * 1e3 / M_SQRT2, e.comm_hi_s * 1e3 * M_SQRT2, e.comp_lo_s * 1e3 / 2,
                  e.comp_hi_s * 1e3 * 2, count > 1 ? "on" : "off", PLOT_LABEL_PT, e.comp_lo_s * 1e3,
                  e.comp_lo_s * 1e3, e.comp_hi_s * 1e3, e.comp_hi_s * 1e3);
    emit_ticks(&body, "xtics", series, count, true);
    emit_ticks(&body, "ytics", series, count, false);
    strbuf_printf(&body, "    plot ");
    /* several runs: each a curve through its frontiers (a row without one
     * breaks it), told apart by colour and marker */
    const char *style = count > 1 ? "yerrorlines" : "yerrorbars";
    for (size_t k = 0; k < count; k++) {
        char label[400];
        plot_quote(series[k].key, label, sizeof label);
        size_t c = k % SERIES_COLOURS;
        strbuf_printf(
            &body,
            "%s'%s' index %zu using 1:($5<=%d?$2:NaN):3:4 with %s pt %d ps 0.8 lw 1.5 "
            "lc rgb '%s' title \"%s\", \\\n"
            "        '' index %zu using 1:($5==%d?$2*1.15:NaN) with points pt 8 ps 0.6 lc rgb "
            "'%s' notitle, \\\n"
            "        '' index %zu using 1:($5==%d?$2:NaN) with points pt 10 ps 0.8 lc rgb '%s' "
            "notitle",
            k ? ", \\\n        " : "", name, k, FRONTIER_BEYOND_GRID, style, series_points[c],
            series_colours[c], label, k, FRONTIER_BEYOND_GRID, series_colours[c], k, FRONTIER_NONE,
            series_colours[c]);
        /* Only where a row has one: gnuplot 5.4 crashes on a label series
         * whose every point is NaN. */
        if (undetermined_rows(&series[k].table) > 0)
            strbuf_printf(&body,
                          ", \\\n        '' index %zu using 1:($5==%d?$2:NaN):(\"?\") with labels "
                          "tc rgb '%s' font ',%d' notitle",
                          k, FRONTIER_NOT_DETERMINED, series_colours[c], PLOT_FONT_PT);
    }
    strbuf_printf(&body, "\n    unset multiplot\n");
    strbuf caption = {0};
    strbuf_printf(&caption,
                  "Per communication target, the largest computation target up to which every "
                  "cell has r_overhead <= %.3g (eq. 1); bars: from where every cell's 95 %% "
                  "interval is at or below it to where every interval's low end is (a bar "
                  "reaching the frame: not bounded by the grid); open triangle above a point: "
                  "hidden at every column (beyond_grid); down triangle below the grid: not hidden "
                  "at the smallest; '?': an invalid cell or one without an estimate breaks the "
                  "row (not determined); dashed: the grid's smallest and largest computation "
                  "targets.%s%s",
                  threshold, caption_tail[0] ? "\n" : "", caption_tail);
    if (status == ANALYSIS_OK && !caption.ok)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", base);
    snprintf(comment, sizeof comment, "Overlap frontier (r_overhead, paper eq. 1)%s%s",
             scenario[0] ? "; " : "", scenario);
    if (status == ANALYSIS_OK)
        status =
            plot_write_figure(dir, base, comment, width_in, height_in, &body, caption.data, err);
    strbuf_free(&body);
    strbuf_free(&caption);
    snprintf(name, sizeof name, "%s.gp", base);
    if (status == ANALYSIS_OK && options->plots)
        status = plot_run_gnuplot(dir, name, err);
    return status;
}

/* ---- nbc-analyze and nbc-compare ---------------------------------------------- */

int frontier_write_run(const char *run_dir, double threshold, const analysis_options *options,
                       analysis_error *err)
{
    frontier_series s;
    int status = load_series(run_dir, threshold, &s, err);
    strbuf csv = {0};
    char path[4200], plots_dir[4200], title[400], tail[400];
    bool drawn = false;
    if (status == ANALYSIS_OK) {
        frontier_csv_text(&csv, &s.table);
        status = csv.ok ? analysis_path(path, sizeof path, run_dir,
                                        schema_file_name(SCHEMA_FRONTIER), err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (frontier.csv)");
    }
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, csv.data, csv.len, err);
    strbuf_free(&csv);
    if (status == ANALYSIS_OK)
        status = analysis_path(plots_dir, sizeof plots_dir, run_dir, "plots", err);
    if (status == ANALYSIS_OK)
        status = analysis_make_dir(plots_dir, err);
    if (status == ANALYSIS_OK) {
        snprintf(title, sizeof title, "%s overlap frontier, %s", s.cells.cells[0].collective,
                 s.label);
        plot_title_tail(&s.meta, &s.cells, ", ", tail, sizeof tail);
        status = draw(plots_dir, "frontier", &s, 1, threshold, title, s.meta.scenario, tail,
                      options, &drawn, err);
    }
    if (status == ANALYSIS_OK && options->report && drawn)
        fprintf(options->report, "frontier: %s/%s, %s/frontier.{png,svg,pdf} (r_overhead <= %g)\n",
                run_dir, schema_file_name(SCHEMA_FRONTIER), plots_dir, threshold);
    else if (status == ANALYSIS_OK && options->report)
        fprintf(options->report, "frontier: %s/%s; figure not drawn (%s/%s says why)\n", run_dir,
                schema_file_name(SCHEMA_FRONTIER), plots_dir, PLOT_NOT_DRAWN_FILE);
    series_free(&s);
    return status;
}

/* text into the CSV field out, each comma written as ';' (labels read
 * "library, deployment"; the file's fields are never quoted). */
static void csv_field(const char *text, char *out, size_t out_size)
{
    snprintf(out, out_size, "%s", text);
    for (char *c = out; *c; c++)
        *c = *c == ',' || *c == '\n' ? ';' : *c;
}

/* out_dir/compare_frontier.csv: each run's frontier.csv rows after its
 * label and folder name. */
static int write_compare_csv(const frontier_series *series, const char *const *folders,
                             size_t run_count, const char *out_dir, analysis_error *err)
{
    strbuf csv = {0};
    char header[1200], label[sizeof series->label], folder[400], path[4200];
    if (schema_header(SCHEMA_COMPARE_FRONTIER, header, sizeof header) < 0)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "compare_frontier.csv: header too long");
    strbuf_printf(&csv, "%s\n", header);
    for (size_t k = 0; k < run_count; k++) {
        csv_field(series[k].label, label, sizeof label);
        csv_field(folders[k], folder, sizeof folder);
        for (size_t i = 0; i < series[k].table.count; i++) {
            strbuf_printf(&csv, "%s,%s,", label, folder);
            frontier_csv_row(&csv, &series[k].table.rows[i]);
        }
    }
    int status =
        csv.ok ? analysis_path(path, sizeof path, out_dir,
                               schema_file_name(SCHEMA_COMPARE_FRONTIER), err)
               : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (compare_frontier.csv)");
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, csv.data, csv.len, err);
    strbuf_free(&csv);
    return status;
}

/* A run's legend entry before runs that read alike are numbered: its
 * library where the runs' differ, its deployment where theirs do or where
 * neither does. */
static void bare_key(const frontier_series *s, bool libraries, bool deployments, char *out,
                     size_t out_size)
{
    char library[160];
    plot_library_name(&s->meta, library, sizeof library);
    snprintf(out, out_size, "%.150s%s%.40s", libraries ? library : "",
             libraries && deployments ? ", " : "",
             deployments || !libraries ? (s->meta.deployment[0] ? s->meta.deployment : "?") : "");
}

/* The legend's entries of several runs (series[k].key): only what tells
 * them apart, so that an entry fits the key beside its marker at a
 * column's width (gnuplot warns, and overflows, where one does not): the
 * library where libraries differ, the deployment where deployments do (or
 * where nothing does), and "#i" among runs that would still read alike;
 * where one is still too wide, the runs' numbers. What they share goes to
 * common ("" or ", LIBRARY"), each entry's run into curves (the caption). */
static void legend_keys(frontier_series *series, size_t count, const char *const *folders,
                        double width_in, char *common, size_t common_size, strbuf *curves)
{
    char first[160], library[160];
    bool libraries = false, deployments = false;
    plot_library_name(&series[0].meta, first, sizeof first);
    for (size_t k = 1; k < count; k++) {
        plot_library_name(&series[k].meta, library, sizeof library);
        libraries |= strcmp(library, first) != 0;
        deployments |= strcmp(series[k].meta.deployment, series[0].meta.deployment) != 0;
    }
    snprintf(common, common_size, "%s%s", libraries ? "" : ", ", libraries ? "" : first);
    /* the entry's room: the plot area less the marker's sample and spacing */
    double room_pt = width_in * 72.0 - 110.0;
    bool fits = true;
    for (size_t k = 0; k < count; k++) {
        char mine[192], theirs[192];
        bare_key(&series[k], libraries, deployments, mine, sizeof mine);
        size_t alike = 0, rank = 0;
        for (size_t j = 0; j < count; j++) {
            bare_key(&series[j], libraries, deployments, theirs, sizeof theirs);
            alike += j != k && strcmp(theirs, mine) == 0;
            rank += j < k && strcmp(theirs, mine) == 0;
        }
        if (alike > 0)
            snprintf(series[k].key, sizeof series[k].key, "%.190s #%zu", mine, rank + 1);
        else
            snprintf(series[k].key, sizeof series[k].key, "%s", mine);
        fits &= plot_text_width_pt(series[k].key, PLOT_LABEL_PT) <= room_pt;
    }
    strbuf_printf(curves, " Curves:");
    for (size_t k = 0; k < count; k++) {
        if (!fits)
            snprintf(series[k].key, sizeof series[k].key, "%zu", k + 1);
        /* a label of runs that read alike already ends with its folder */
        char folder[420];
        snprintf(folder, sizeof folder, " (%.400s)", folders[k]);
        size_t l = strlen(series[k].label), f = strlen(folder);
        bool named = l >= f && strcmp(series[k].label + l - f, folder) == 0;
        strbuf_printf(curves, "%s %s: %s%s", k ? ";" : "", series[k].key, series[k].label,
                      named ? "" : folder);
    }
    strbuf_printf(curves, ".");
}

int frontier_write_compare(const char *const *run_dirs, size_t run_count, const char *out_dir,
                           double threshold, const analysis_options *options, analysis_error *err)
{
    frontier_series *series = calloc(run_count ? run_count : 1, sizeof *series);
    if (!series)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (frontier)");
    int status = ANALYSIS_OK;
    size_t loaded = 0;
    for (; status == ANALYSIS_OK && loaded < run_count; loaded++)
        status = load_series(run_dirs[loaded], threshold, &series[loaded], err);
    /* two runs of one configuration (launches) keep apart by their folder */
    bool *twin = calloc(run_count ? run_count : 1, sizeof *twin);
    const char **folders = calloc(run_count ? run_count : 1, sizeof *folders);
    if (status == ANALYSIS_OK && (!twin || !folders))
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (frontier)");
    for (size_t k = 0; status == ANALYSIS_OK && k < run_count; k++)
        for (size_t j = 0; j < run_count; j++)
            twin[k] |= j != k && strcmp(series[j].label, series[k].label) == 0;
    for (size_t k = 0; status == ANALYSIS_OK && k < run_count; k++) {
        const char *folder = strrchr(run_dirs[k], '/');
        folder = folder && folder[1] ? folder + 1 : run_dirs[k];
        folders[k] = folder;
        if (twin[k]) {
            char label[sizeof series[k].label];
            snprintf(label, sizeof label, "%.80s (%.100s)", series[k].label, folder);
            snprintf(series[k].label, sizeof series[k].label, "%s", label);
        }
    }
    if (status == ANALYSIS_OK)
        status = write_compare_csv(series, folders, run_count, out_dir, err);
    char title[400], common[200];
    bool drawn = false;
    strbuf tail = {0};
    if (status == ANALYSIS_OK) {
        strbuf_printf(&tail, "A curve per run (compare_frontier.csv), the runs set slightly apart "
                             "around each communication target so that their bars do not hide "
                             "each other.");
        legend_keys(series, run_count, folders, options->figure.width_in, common, sizeof common,
                    &tail);
        snprintf(title, sizeof title, "%s overlap frontiers%s", series[0].cells.cells[0].collective,
                 common);
        status = tail.ok ? draw(out_dir, "compare_frontier", series, run_count, threshold, title,
                                series[0].meta.scenario, tail.data, options, &drawn, err)
                         : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (frontier)");
    }
    strbuf_free(&tail);
    if (status == ANALYSIS_OK && options->report && drawn)
        fprintf(options->report, "frontier: %s/%s, %s/compare_frontier.{png,svg,pdf} (%zu runs)\n",
                out_dir, schema_file_name(SCHEMA_COMPARE_FRONTIER), out_dir, run_count);
    else if (status == ANALYSIS_OK && options->report)
        fprintf(options->report, "frontier: %s/%s; figure not drawn (%s/%s says why)\n", out_dir,
                schema_file_name(SCHEMA_COMPARE_FRONTIER), out_dir, PLOT_NOT_DRAWN_FILE);
    free(twin);
    free(folders);
    for (size_t k = 0; k < loaded; k++)
        series_free(&series[k]);
    free(series);
    return status;
}
