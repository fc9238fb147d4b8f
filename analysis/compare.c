/* analysis: nbc-compare, two or more runs side by side on their common cells
 * and identical colour scales, a difference map for two runs, a summary. */
#include "analysis/analysis_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct compare_run {
    const char *dir;
    char label[128];
    run_meta meta;
    cell_table cells;
    impact_table impact;
    bool have_impact;
} compare_run;

/* A cell present in every run: its index in each run's table. */
typedef struct common_cell {
    double comm_target_s;
    double comp_target_s;
    size_t *index; /* run_count entries */
} common_cell;

static const double diff_saturation = 1.0;    /* one serialized-overlap distance */
static const double diff_dark_fraction = 0.2; /* white labels on the dark ends */
static const char diff_palette[] = "(-1 '#2166ac', -0.5 '#92c5de', 0 '#f7f7f7', 0.5 '#f4a582', "
                                   "1 '#b2182b')"; /* blue: second run better, red: worse */

static int read_optional(const char *dir, const char *name, char **buf, size_t *len, bool *present,
                         char *path, size_t path_size, analysis_error *err)
{
    bool missing;
    *present = false;
    int status = analysis_path(path, path_size, dir, name, err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, buf, len, &missing, err);
    if (status != ANALYSIS_OK && missing)
        return ANALYSIS_OK;
    *present = status == ANALYSIS_OK;
    return status;
}

static void make_label(compare_run *run)
{
    size_t n = strlen(run->dir);
    while (n > 1 && run->dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && run->dir[start - 1] != '/')
        start--;
    size_t length = n - start < sizeof run->label - 1 ? n - start : sizeof run->label - 1;
    for (size_t i = 0; i < length; i++) /* the label goes into CSV and titles */
        run->label[i] = run->dir[start + i] == ',' ? ';' : run->dir[start + i];
    run->label[length] = '\0';
}

static int load_compare_run(compare_run *run, const analysis_options *options, analysis_error *err)
{
    char path[4200];
    char *buf = NULL;
    size_t len;
    bool present;
    struct stat st;
    make_label(run);
    if (stat(run->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: not a run folder (no such directory)",
                             run->dir);
    int status = read_optional(run->dir, "cells.csv", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && !present) {
        /* not analyzed yet: the same code as nbc-analyze, tables only */
        analysis_options tables_only = *options;
        tables_only.plots = false;
        if (options->report)
            fprintf(options->report, "%s has no cells.csv yet: analyzing it first\n", run->dir);
        status = analysis_analyze_run(run->dir, &tables_only, err);
        if (status == ANALYSIS_OK)
            status =
                read_optional(run->dir, "cells.csv", &buf, &len, &present, path, sizeof path, err);
    }
    if (status == ANALYSIS_OK)
        status = analysis_parse_cells(buf, len, path, &run->cells, err);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK && run->cells.count == 0)
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no cells", path);
    if (status == ANALYSIS_OK)
        status = read_optional(run->dir, "meta.json", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && present)
        status = analysis_parse_meta(buf, len, path, &run->meta, err);
    else if (status == ANALYSIS_OK)
        analysis_warn("%s: no meta.json: the titles lack the library and deployment", run->dir);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK)
        status =
            read_optional(run->dir, "impact.csv", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && present) {
        status = analysis_parse_impact(buf, len, path, &run->impact, err);
        run->have_impact = status == ANALYSIS_OK;
    }
    free(buf);
    return status;
}

static size_t find_cell(const cell_table *cells, double comm_target_s, double comp_target_s)
{
    for (size_t i = 0; i < cells->count; i++)
        if (analysis_same_target(cells->cells[i].comm_target_s, comm_target_s) &&
            analysis_same_target(cells->cells[i].comp_target_s, comp_target_s))
            return i;
    return cells->count;
}

/* The cells of the first run that every other run has too. */
static int common_cells(const compare_run *runs, size_t run_count, common_cell **out, size_t *count,
                        analysis_error *err)
{
    const cell_table *first = &runs[0].cells;
    common_cell *common = calloc(first->count, sizeof *common);
    size_t *indexes = malloc(first->count * run_count * sizeof *indexes);
    if (!common || !indexes) {
        free(common);
        free(indexes);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (common cells)");
    }
    size_t n = 0;
    for (size_t i = 0; i < first->count; i++) {
        common_cell c = {first->cells[i].comm_target_s, first->cells[i].comp_target_s,
                         indexes + n * run_count};
        bool everywhere = find_cell(first, c.comm_target_s, c.comp_target_s) == i;
        for (size_t r = 0; r < run_count && everywhere; r++) {
            c.index[r] = find_cell(&runs[r].cells, c.comm_target_s, c.comp_target_s);
            everywhere = c.index[r] < runs[r].cells.count;
        }
        if (everywhere)
            common[n++] = c;
    }
    *out = common;
    *count = n;
    if (n == 0) {
        free(indexes);
        free(common);
        *out = NULL;
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "the runs have no cell in common (no pair of communication and "
                             "computation targets appears in all of them)");
    }
    return ANALYSIS_OK;
}

static void free_common(common_cell *common)
{
    if (common)
        free(common[0].index); /* one block for all indexes */
    free(common);
}

typedef struct run_summary {
    size_t cells;
    size_t valid;
    size_t certain;   /* valid and not uncertain: what the numbers below count */
    size_t uncertain; /* valid but uncertain */
    double overlap_share;
    double median_r_overhead;
    double worst_r_overhead;
    double worst_comm_target_s;
    double worst_comp_target_s;
    double median_r_mpi_impact;
} run_summary;

static run_summary summarize(const compare_run *run, size_t r, const common_cell *common, size_t n,
                             double *scratch)
{
    run_summary s = {.cells = n,
                     .worst_r_overhead = NAN,
                     .worst_comm_target_s = NAN,
                     .worst_comp_target_s = NAN};
    size_t overlap = 0;
    for (size_t i = 0; i < n; i++) {
        const cell_metrics *c = &run->cells.cells[common[i].index[r]];
        if (!c->valid || isnan(c->r_overhead))
            continue;
        s.valid++;
        if (c->diagnosis == DIAG_UNCERTAIN) {
            s.uncertain++;
            continue; /* a run is summarized by what it is sure of */
        }
        scratch[s.certain++] = c->r_overhead;
        overlap += c->diagnosis == DIAG_OVERLAP;
        if (isnan(s.worst_r_overhead) || c->r_overhead > s.worst_r_overhead) {
            s.worst_r_overhead = c->r_overhead;
            s.worst_comm_target_s = c->comm_target_s;
            s.worst_comp_target_s = c->comp_target_s;
        }
    }
    s.overlap_share = s.certain ? (double)overlap / (double)s.certain : NAN;
    s.median_r_overhead = stats_median(scratch, s.certain);
    size_t impacts = 0;
    for (size_t i = 0; run->have_impact && i < run->impact.count; i++)
        if (isfinite(run->impact.rows[i].r_mpi_impact))
            scratch[impacts++] = run->impact.rows[i].r_mpi_impact;
    s.median_r_mpi_impact = stats_median(scratch, impacts);
    return s;
}

static const char *meta_or(const char *value, const char *fallback)
{
    return value[0] ? value : fallback;
}

static int write_summary(const compare_run *runs, size_t run_count, const common_cell *common,
                         size_t n, const char *out_dir, FILE *report, analysis_error *err)
{
    size_t scratch_size = n;
    for (size_t r = 0; r < run_count; r++)
        scratch_size = runs[r].impact.count > scratch_size ? runs[r].impact.count : scratch_size;
    double *scratch = malloc((scratch_size ? scratch_size : 1) * sizeof *scratch);
    if (!scratch)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    strbuf csv = {0};
    strbuf_printf(&csv, "run,mpi,deployment,collective,cells,valid_cells,overlap_share,"
                        "median_r_overhead,worst_r_overhead,worst_comm_target_s,"
                        "worst_comp_target_s,median_r_mpi_impact,certain_cells,"
                        "uncertain_cells\n");
    if (report)
        fprintf(report, "%-28s %-8s %-10s %-12s %5s %5s %7s %8s %9s %9s %-17s %9s\n", "run", "mpi",
                "deployment", "collective", "cells", "valid", "certain", "overlap", "median_r",
                "worst_r", "worst at (ms)", "r_impact");
    for (size_t r = 0; r < run_count; r++) {
        const compare_run *run = &runs[r];
        run_summary s = summarize(run, r, common, n, scratch);
        const char *mpi = meta_or(run->meta.mpi, "?");
        const char *deployment = meta_or(run->meta.deployment, "?");
        const char *collective =
            meta_or(run->meta.collective, run->cells.count ? run->cells.cells[0].collective : "?");
        strbuf_printf(&csv, "%s,%s,%s,%s,%zu,%zu,%.4g,%.6g,%.6g,%.9g,%.9g,%.6g,%zu,%zu\n",
                      run->label, mpi, deployment, collective, s.cells, s.valid, s.overlap_share,
                      s.median_r_overhead, s.worst_r_overhead, s.worst_comm_target_s,
                      s.worst_comp_target_s, s.median_r_mpi_impact, s.certain, s.uncertain);
        if (report) {
            char worst_at[64] = "-";
            if (!isnan(s.worst_r_overhead))
                snprintf(worst_at, sizeof worst_at, "comm %g comp %g", s.worst_comm_target_s * 1e3,
                         s.worst_comp_target_s * 1e3);
            fprintf(report,
                    "%-28s %-8s %-10s %-12s %5zu %5zu %7zu %7.0f%% %9.3g %9.3g %-17s %9.3g\n",
                    run->label, mpi, deployment, collective, s.cells, s.valid, s.certain,
                    100.0 * s.overlap_share, s.median_r_overhead, s.worst_r_overhead, worst_at,
                    s.median_r_mpi_impact);
        }
    }
    free(scratch);
    char path[4200];
    int status = csv.ok ? analysis_path(path, sizeof path, out_dir, "summary.csv", err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, csv.data, csv.len, err);
    strbuf_free(&csv);
    return status;
}

/* The bootstrap of a difference needs both runs' blocks, which cells.csv
 * does not hold: a difference is called significant when the two cells'
 * intervals of r_overhead do not overlap (README.md, nbc-compare). */
static bool significant_difference(const cell_metrics *a, const cell_metrics *b)
{
    metric_bounds x = a->r_overhead_ci, y = b->r_overhead_ci;
    if (isnan(x.lo) || isnan(x.hi) || isnan(y.lo) || isnan(y.hi))
        return false;
    return x.hi < y.lo || y.hi < x.lo;
}

static int write_heat(const char *out_dir, const char *name, const heat_axis *x_axis,
                      const heat_axis *y_axis, const heat_value *values, size_t n,
                      const heat_scale *scale, analysis_error *err)
{
    char path[4200];
    int status = analysis_path(path, sizeof path, out_dir, name, err);
    if (status == ANALYSIS_OK)
        status = heat_write_data(path, x_axis, y_axis, values, n, scale, err);
    return status;
}

static int write_script(const char *out_dir, const char *base, const char *comment, int width_px,
                        int height_px, const strbuf *body, analysis_error *err)
{
    strbuf script = {0};
    char path[4200], name[128];
    snprintf(name, sizeof name, "%s.gp", base);
    plot_emit_script(&script, base, comment, width_px, height_px, body->data ? body->data : "");
    int status = script.ok && body->ok
                     ? analysis_path(path, sizeof path, out_dir, name, err)
                     : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, script.data, script.len, err);
    strbuf_free(&script);
    return status;
}

static int draw_comparison(const compare_run *runs, size_t run_count, const common_cell *common,
                           size_t n, const char *out_dir, const analysis_options *options,
                           bool *with_diff, analysis_error *err)
{
    heat_value *values = malloc(n * sizeof *values);
    double *targets = calloc(n, sizeof *targets);
    heat_axis x_axis = {0}, y_axis = {0};
    int status =
        values && targets ? ANALYSIS_OK : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (size_t i = 0; status == ANALYSIS_OK && i < n; i++)
        targets[i] = common[i].comm_target_s;
    if (status == ANALYSIS_OK)
        status = heat_axis_build(&x_axis, targets, n, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < n; i++)
        targets[i] = common[i].comp_target_s;
    if (status == ANALYSIS_OK)
        status = heat_axis_build(&y_axis, targets, n, err);

    int width_px = 0, height_px = 0;
    plot_heat_size(x_axis.count, y_axis.count, &width_px, &height_px);
    char palette[200], label[100];
    plot_overhead_palette(options->r_overhead_max, palette, sizeof palette);
    snprintf(label, sizeof label, "r_overhead (saturates at %g)", options->r_overhead_max);
    heat_scale scale = {label, -1, options->r_overhead_max, palette, 0};
    strbuf body = {0};
    strbuf_printf(&body,
                  "    set multiplot layout 1,%zu title \"r_overhead on the %zu common "
                  "cells, same colour scale\"\n",
                  run_count, n);
    for (size_t r = 0; status == ANALYSIS_OK && r < run_count; r++) {
        for (size_t i = 0; i < n; i++) {
            const cell_metrics *c = &runs[r].cells.cells[common[i].index[r]];
            values[i] = (heat_value){c->comm_target_s,      c->comp_target_s,
                                     c->r_overhead,         c->valid,
                                     plot_invalid_label(c), c->diagnosis == DIAG_UNCERTAIN};
        }
        char name[64], tail[400], title[700];
        snprintf(name, sizeof name, "compare_overhead_%zu.dat", r + 1);
        status = write_heat(out_dir, name, &x_axis, &y_axis, values, n, &scale, err);
        plot_title_tail(&runs[r].meta, &runs[r].cells, "\n", tail, sizeof tail);
        snprintf(title, sizeof title, "%s: %s\n%s", runs[r].label,
                 meta_or(runs[r].meta.collective, runs[r].cells.cells[0].collective), tail);
        heat_emit_panel(&body, name, &x_axis, &y_axis, &scale, title);
    }
    strbuf_printf(&body, "    unset multiplot\n");
    if (status == ANALYSIS_OK)
        status = write_script(out_dir, "compare_overhead",
                              "r_overhead of each run side by side (identical colour scale)",
                              (int)run_count * (width_px + 60), height_px + 70, &body, err);
    strbuf_free(&body);

    *with_diff = run_count == 2;
    if (status == ANALYSIS_OK && *with_diff) {
        for (size_t i = 0; i < n; i++) {
            const cell_metrics *a = &runs[0].cells.cells[common[i].index[0]];
            const cell_metrics *b = &runs[1].cells.cells[common[i].index[1]];
            values[i] = (heat_value){a->comm_target_s,
                                     a->comp_target_s,
                                     b->r_overhead - a->r_overhead,
                                     a->valid && b->valid,
                                     NULL,
                                     !significant_difference(a, b)};
        }
        char title[700], diff_label[100];
        snprintf(title, sizeof title,
                 "r_overhead of the second run minus the first\nfirst: %s\nsecond: %s\nblue: "
                 "the second overlaps better, red: worse\nhatched, '?': not significant (the "
                 "two runs' 95 %% intervals overlap)",
                 runs[0].label, runs[1].label);
        snprintf(diff_label, sizeof diff_label, "difference of r_overhead (saturates at +-%g)",
                 diff_saturation);
        heat_scale diff = {diff_label, -diff_saturation, diff_saturation, diff_palette,
                           diff_dark_fraction};
        status = write_heat(out_dir, "diff_overhead.dat", &x_axis, &y_axis, values, n, &diff, err);
        plot_emit_canvas_title(&body, title);
        heat_emit_panel(&body, "diff_overhead.dat", &x_axis, &y_axis, &diff, "");
        strbuf_printf(&body, "    unset multiplot\n");
        /* wide enough for the longest title line (about 10.5 px a character) */
        size_t longest = 0, current = 0;
        for (const char *c = title; *c; c++) {
            current = *c == '\n' ? 0 : current + 1;
            longest = current > longest ? current : longest;
        }
        int title_px = (int)(10.5 * (double)longest) + 40;
        if (status == ANALYSIS_OK)
            status = write_script(out_dir, "diff_overhead",
                                  "Difference of r_overhead between two runs (second minus first)",
                                  width_px + 60 > title_px ? width_px + 60 : title_px, height_px,
                                  &body, err);
        strbuf_free(&body);
    }
    heat_axis_free(&x_axis);
    heat_axis_free(&y_axis);
    free(values);
    free(targets);
    return status;
}

static int make_dirs(const char *path, analysis_error *err)
{
    char partial[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof partial)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "-o: '%s' is not a usable folder name", path);
    memcpy(partial, path, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (partial[i] != '/')
            continue;
        partial[i] = '\0';
        struct stat st;
        if (stat(partial, &st) != 0 && mkdir(partial, 0777) != 0 && errno != EEXIST)
            return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: cannot create folder: %s", partial,
                                 strerror(errno));
        partial[i] = '/';
    }
    return analysis_make_dir(path, err);
}

int analysis_compare_runs(const char *const *run_dirs, size_t run_count, const char *out_dir,
                          const analysis_options *options, analysis_error *err)
{
    if (run_count < 2)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "nbc-compare needs at least two run folders (got %zu)", run_count);
    compare_run *runs = calloc(run_count, sizeof *runs);
    if (!runs)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    int status = make_dirs(out_dir, err);
    for (size_t r = 0; status == ANALYSIS_OK && r < run_count; r++) {
        runs[r].dir = run_dirs[r];
        status = load_compare_run(&runs[r], options, err);
        for (size_t q = 0; status == ANALYSIS_OK && q < r; q++)
            if (strcmp(runs[q].label, runs[r].label) == 0) { /* same name, other parent */
                size_t used = strlen(runs[r].label);
                used = used < sizeof runs[r].label - 24 ? used : sizeof runs[r].label - 24;
                snprintf(runs[r].label + used, sizeof runs[r].label - used, "#%zu", r + 1);
            }
    }
    common_cell *common = NULL;
    size_t n = 0;
    if (status == ANALYSIS_OK)
        status = common_cells(runs, run_count, &common, &n, err);
    if (status == ANALYSIS_OK && options->report) {
        bool differ = false;
        for (size_t r = 0; r < run_count; r++)
            differ = differ || runs[r].cells.count != n;
        if (differ) {
            fprintf(options->report, "grids differ: comparing the %zu cells common to all runs (",
                    n);
            for (size_t r = 0; r < run_count; r++)
                fprintf(options->report, "%s%s has %zu", r ? ", " : "", runs[r].label,
                        runs[r].cells.count);
            fprintf(options->report, ")\n");
        }
    }
    if (status == ANALYSIS_OK)
        status = write_summary(runs, run_count, common, n, out_dir, options->report, err);
    bool with_diff = false;
    if (status == ANALYSIS_OK)
        status = draw_comparison(runs, run_count, common, n, out_dir, options, &with_diff, err);
    if (status == ANALYSIS_OK && options->plots) {
        status = plot_run_gnuplot(out_dir, "compare_overhead.gp", err);
        if (status == ANALYSIS_OK && with_diff)
            status = plot_run_gnuplot(out_dir, "diff_overhead.gp", err);
        if (status == ANALYSIS_OK && options->report)
            fprintf(options->report, "figures: %s/%s.{png,svg,pdf}\n", out_dir,
                    with_diff ? "{compare_overhead,diff_overhead}" : "compare_overhead");
    }
    free_common(common);
    for (size_t r = 0; r < run_count; r++) {
        analysis_cell_table_free(&runs[r].cells);
        analysis_impact_table_free(&runs[r].impact);
    }
    free(runs);
    return status;
}
