/* analysis: nbc-compare. Run folders are grouped into configurations (the
 * library, deployment, collective and measurement configuration of
 * meta.json); the runs of one configuration are its launches. Two levels:
 * each launch's estimate of a cell (cells.csv, a ratio of medians with its
 * block-bootstrap interval), then each configuration's estimate across its
 * launches with an interval that holds launch-to-launch variation
 * (README.md, "Launches"). Configurations are drawn side by side on their
 * common cells; two configurations get difference maps whose cells are
 * significant when the difference's interval excludes 0. */
#include "analysis/compare/compare_internal.h"
#include "analysis/analyze/analyze.h"
#include "analysis/figures/figures.h"
#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Tables ------------------------------------------------------------- */

typedef struct run_summary {
    size_t cells;
    size_t valid;
    size_t certain;   /* valid and confirmed: what overlap_share counts */
    size_t uncertain; /* valid, r_overhead's interval leaving its band */
    double overlap_share;
    double median_r_overhead; /* over every valid cell, as summary.txt's */
    double worst_r_overhead;
    double worst_comm_target_s;
    double worst_comp_target_s;
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
        scratch[s.valid++] = c->r_overhead;
        if (isnan(s.worst_r_overhead) || c->r_overhead > s.worst_r_overhead) {
            s.worst_r_overhead = c->r_overhead;
            s.worst_comm_target_s = c->comm_target_s;
            s.worst_comp_target_s = c->comp_target_s;
        }
        if (!verdict_cell_inside_band(c)) {
            s.uncertain++;
            continue;
        }
        s.certain++;
        overlap += strcmp(verdict_class_get(c->overlap)->group, "overlap") == 0;
    }
    s.overlap_share = s.certain ? (double)overlap / (double)s.certain : NAN;
    s.median_r_overhead = stats_median(scratch, s.valid);
    return s;
}

static int write_summary(const compare_run *runs, size_t run_count, const common_cell *common,
                         size_t n, const char *out_dir, FILE *report, analysis_error *err)
{
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    strbuf csv = {0};
    strbuf_printf(&csv, "run,mpi,deployment,collective,cells,valid_cells,overlap_share,"
                        "median_r_overhead,worst_r_overhead,worst_comm_target_s,"
                        "worst_comp_target_s,certain_cells,uncertain_cells,configuration,"
                        "launch\n");
    /* the run column as wide as its longest label, so that long folder
     * names do not push the other columns out of line */
    int label_width = 3;
    for (size_t r = 0; r < run_count; r++)
        label_width =
            (int)strlen(runs[r].label) > label_width ? (int)strlen(runs[r].label) : label_width;
    if (report)
        fprintf(report, "%-*s %-8s %-10s %-12s %5s %5s %7s %8s %9s %9s %-17s %6s\n", label_width,
                "run", "mpi", "deployment", "collective", "cells", "valid", "certain", "overlap*",
                "median_r", "worst_r", "worst at (ms)", "config");
    int status = ANALYSIS_OK;
    for (size_t r = 0; r < run_count && status == ANALYSIS_OK; r++) {
        const compare_run *run = &runs[r];
        run_summary s = summarize(run, r, common, n, scratch);
        const char *mpi = meta_or(run->meta.mpi, "?");
        const char *deployment = meta_or(run->meta.deployment, "?");
        const char *collective =
            meta_or(run->meta.collective, run->cells.count ? run->cells.cells[0].collective : "?");
        strbuf_printf(&csv, "%s,%s,%s,%s,%zu,%zu,%.4g,%.6g,%.6g,%.9g,%.9g,%zu,%zu,%zu,%zu\n",
                      run->label, mpi, deployment, collective, s.cells, s.valid, s.overlap_share,
                      s.median_r_overhead, s.worst_r_overhead, s.worst_comm_target_s,
                      s.worst_comp_target_s, s.certain, s.uncertain, run->config + 1, run->launch);
        if (report) {
            char worst_at[64] = "-";
            if (!isnan(s.worst_r_overhead))
                snprintf(worst_at, sizeof worst_at, "comm %g comp %g", s.worst_comm_target_s * 1e3,
                         s.worst_comp_target_s * 1e3);
            char config[32];
            snprintf(config, sizeof config, "%zu.%zu", run->config + 1, run->launch);
            fprintf(report, "%-*s %-8s %-10s %-12s %5zu %5zu %7zu %7.0f%% %9.3g %9.3g %-17s %6s\n",
                    label_width, run->label, mpi, deployment, collective, s.cells, s.valid,
                    s.certain, 100.0 * s.overlap_share, s.median_r_overhead, s.worst_r_overhead,
                    worst_at, config);
        }
    }
    free(scratch);
    if (report)
        fprintf(report, "* overlap share over the certain cells (valid, interval inside its band: "
                        "column certain); median and worst r_overhead over every valid cell\n");
    char path[4200];
    if (status == ANALYSIS_OK)
        status = csv.ok ? analysis_path(path, sizeof path, out_dir, "summary.csv", err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, csv.data, csv.len, err);
    strbuf_free(&csv);
    return status;
}

/* Two tables into out_dir; both buffers are freed. */
static int write_two_texts(const char *out_dir, const char *first_name, strbuf *first,
                           const char *second_name, strbuf *second, analysis_error *err)
{
    int status = write_text(out_dir, first_name, first, err);
    if (status == ANALYSIS_OK)
        status = write_text(out_dir, second_name, second, err);
    strbuf_free(first);
    strbuf_free(second);
    return status;
}

/* configurations.csv (one row per configuration) and
 * configuration_cells.csv (its estimates per common cell), and the
 * configurations on the report. */
static int write_configurations(const compare_run *runs, size_t run_count,
                                const compare_config *configs, size_t config_count,
                                const common_cell *common, size_t n, const level_estimate *est,
                                const level_class *classes, const char *out_dir, FILE *report,
                                analysis_error *err)
{
    strbuf list = {0}, cells = {0};
    strbuf_printf(&list, "configuration,label,launches,runs\n");
    strbuf_printf(&cells, "configuration,comm_target_s,comp_target_s,launches");
    for (size_t m = 0; m < METRIC_COUNT; m++)
        strbuf_printf(&cells, ",%s,%s_ci_lo,%s_ci_hi", compare_metrics[m].name,
                      compare_metrics[m].name, compare_metrics[m].name);
    strbuf_printf(&cells, ",uncertain,class,overlap\n");
    for (size_t c = 0; c < config_count; c++) {
        strbuf_printf(&list, "%zu,%s,%zu,", c + 1, configs[c].label, configs[c].launches);
        if (report)
            fprintf(report, "configuration %zu: %s, %zu launch%s (", c + 1, configs[c].label,
                    configs[c].launches, configs[c].launches == 1 ? "" : "es");
        for (size_t r = 0, k = 0; r < run_count; r++) {
            if (runs[r].config != c)
                continue;
            strbuf_printf(&list, "%s%s", k ? ";" : "", runs[r].label);
            if (report)
                fprintf(report, "%s%s", k ? ", " : "", runs[r].label);
            k++;
        }
        strbuf_printf(&list, "\n");
        size_t measured = 0, open = 0;
        for (size_t i = 0; i < n; i++) {
            measured += classes[c * n + i].class != VERDICT_INVALID;
            open += unconfirmed(&classes[c * n + i]);
        }
        if (report)
            fprintf(report, ")%s; readings not confident in %zu of %zu valid cells%s\n",
                    configs[c].launches == 1
                        ? ": one launch, its intervals do not cover launch-to-launch variation"
                        : "",
                    open, measured, configs[c].launches == 1 ? " (the run's own)" : "");
        for (size_t i = 0; i < n; i++) {
            long launches = estimate_at(est, n, c, 0, i)->launches;
            strbuf_printf(&cells, "%zu,%.9g,%.9g,%ld", c + 1, common[i].comm_target_s,
                          common[i].comp_target_s, launches);
            for (size_t m = 0; m < METRIC_COUNT; m++) {
                const level_estimate *e = estimate_at(est, n, c, m, i);
                strbuf_printf(&cells, ",%.6g,%.6g,%.6g", e->estimate, e->ci.lo, e->ci.hi);
            }
            const level_class *k = &classes[c * n + i];
            strbuf_printf(&cells, ",%d,%s,%s\n", unconfirmed(k) ? 1 : 0,
                          verdict_class_name(k->class), verdict_class_name(k->overlap));
        }
    }
    return write_two_texts(out_dir, "configurations.csv", &list, "configuration_cells.csv", &cells,
                           err);
}

/* differences.csv (per metric and cell), summary_differences.csv and the
 * printed lines (per metric) for two configurations. */
static int write_differences(const compare_config *configs, const common_cell *common, size_t n,
                             const level_estimate *est, const char *out_dir, FILE *report,
                             analysis_error *err)
{
    strbuf cells = {0}, summary = {0};
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (differences)");
    bool two_level = configs[0].launches >= 2 && configs[1].launches >= 2;
    const char *method = two_level ? "launches" : "intervals";
    strbuf_printf(&cells, "metric,comm_target_s,comp_target_s,valid,difference,ci_lo,ci_hi,"
                          "significant\n");
    strbuf_printf(&summary, "metric,first,second,launches_first,launches_second,cells,"
                            "valid_cells,median_difference,significant_cells,method\n");
    if (report)
        fprintf(report, "differences, configuration 2 (%s) minus 1 (%s), %s:\n", configs[1].label,
                configs[0].label,
                two_level ? "95 % intervals from the launches (t, the smaller configuration's "
                            "launches - 1 degrees of freedom)"
                          : "significant where the 95 % intervals do not overlap (one launch: "
                            "launch-to-launch variation is not covered)");
    for (size_t m = 0; m < METRIC_COUNT; m++) {
        size_t valid = 0, significant = 0;
        for (size_t i = 0; i < n; i++) {
            cell_difference d =
                difference_of(estimate_at(est, n, 0, m, i), estimate_at(est, n, 1, m, i));
            strbuf_printf(&cells, "%s,%.9g,%.9g,%d,%.6g,%.6g,%.6g,%d\n", compare_metrics[m].name,
                          common[i].comm_target_s, common[i].comp_target_s, d.valid ? 1 : 0,
                          d.value, d.ci.lo, d.ci.hi, d.significant ? 1 : 0);
            if (d.valid)
                scratch[valid++] = d.value;
            significant += d.significant;
        }
        double median = stats_median(scratch, valid);
        strbuf_printf(&summary, "%s,%s,%s,%zu,%zu,%zu,%zu,%.6g,%zu,%s\n", compare_metrics[m].name,
                      configs[0].label, configs[1].label, configs[0].launches, configs[1].launches,
                      n, valid, median, significant, method);
        if (report)
            fprintf(report,
                    "  %-16s median difference %+.3g, significant in %zu of %zu valid cells "
                    "(launches %zu and %zu)\n",
                    compare_metrics[m].name, median, significant, valid, configs[0].launches,
                    configs[1].launches);
    }
    free(scratch);
    return write_two_texts(out_dir, "differences.csv", &cells, "summary_differences.csv", &summary,
                           err);
}

/* ---- Output folder and the whole comparison ----------------------------- */

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
    if (status == ANALYSIS_OK && options->normalize_cores)
        status = normalize_cores(runs, run_count, out_dir, options->report, err);
    compare_config *configs = NULL;
    size_t config_count = 0;
    if (status == ANALYSIS_OK)
        status = group_runs(runs, run_count, &configs, &config_count, err);
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
    level_estimate *est = NULL;
    level_class *classes = NULL;
    if (status == ANALYSIS_OK) {
        est = estimate_all(runs, run_count, config_count, common, n);
        classes = classify_all(runs, run_count, config_count, common, n);
        if (!est || !classes)
            status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (estimates)");
    }
    if (status == ANALYSIS_OK)
        status = write_summary(runs, run_count, common, n, out_dir, options->report, err);
    if (status == ANALYSIS_OK)
        status = write_configurations(runs, run_count, configs, config_count, common, n, est,
                                      classes, out_dir, options->report, err);
    if (status == ANALYSIS_OK)
        status = write_configuration_summary(runs, run_count, configs, config_count, out_dir,
                                             options, err);
    bool with_diff = config_count == 2;
    if (status == ANALYSIS_OK && with_diff)
        status = write_differences(configs, common, n, est, out_dir, options->report, err);
    if (status == ANALYSIS_OK)
        status = write_equal_work(runs, run_count, configs, config_count, common, n, out_dir,
                                  options->report, err);
    char note[1200];
    normalize_note(runs, run_count, options->normalize_cores, note, sizeof note);
    figure_grid grid = {0};
    heat_value *values = malloc((n ? n : 1) * sizeof *values);
    if (status == ANALYSIS_OK && !values)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    if (status == ANALYSIS_OK)
        status = grid_build(&grid, common, n, err);
    size_t overhead_figures = 1;
    if (status == ANALYSIS_OK)
        status = draw_configurations(runs, configs, config_count, common, n, est, classes, &grid,
                                     out_dir, options, note, values, &overhead_figures, err);
    /* drawn as one figure: the figures of an earlier, split drawing go (not
     * their data, which the one figure reads) */
    for (size_t k = 1; status == ANALYSIS_OK && overhead_figures == 1 && k < config_count; k++) {
        char base[64];
        overhead_figure_name(k, base, sizeof base);
        status = plot_remove_figure(out_dir, base, false, err);
    }
    for (size_t m = 0; status == ANALYSIS_OK && with_diff && m < METRIC_COUNT; m++)
        status = draw_difference(runs, configs, common, n, est, m, &grid, out_dir, options, note,
                                 values, err);
    bool by_ranks = false;
    if (status == ANALYSIS_OK)
        status = write_rank_scaling(runs, configs, config_count, n, est, out_dir, &options->figure,
                                    &by_ranks, err);
    if (status == ANALYSIS_OK && options->plots && by_ranks) {
        status = plot_run_gnuplot(out_dir, "overhead_vs_ranks.gp", err);
        if (status == ANALYSIS_OK && options->report)
            fprintf(options->report, "figure: %s/overhead_vs_ranks.{png,svg,pdf}\n", out_dir);
    }
    if (status == ANALYSIS_OK && options->plots) {
        strbuf names = {0};
        for (size_t k = 0; status == ANALYSIS_OK && k < overhead_figures; k++) {
            char base[64], script[80];
            overhead_figure_name(k, base, sizeof base);
            snprintf(script, sizeof script, "%s.gp", base);
            strbuf_printf(&names, "%s%s", k ? "," : "", base);
            status = plot_run_gnuplot(out_dir, script, err);
        }
        for (size_t m = 0; status == ANALYSIS_OK && with_diff && m < METRIC_COUNT; m++) {
            char script[64];
            snprintf(script, sizeof script, "diff_%s.gp", compare_metrics[m].map);
            strbuf_printf(&names, ",diff_%s", compare_metrics[m].map);
            status = plot_run_gnuplot(out_dir, script, err);
        }
        if (status == ANALYSIS_OK && !names.ok)
            status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (figure names)");
        bool several = status == ANALYSIS_OK && strchr(names.data, ',');
        if (status == ANALYSIS_OK && options->report)
            fprintf(options->report, "figures: %s/%s%s%s.{png,svg,pdf}\n", out_dir,
                    several ? "{" : "", names.data, several ? "}" : "");
        strbuf_free(&names);
    }
    heat_axis_free(&grid.x_axis);
    heat_axis_free(&grid.y_axis);
    free(values);
    free(est);
    free(classes);
    free_common(common);
    free(configs);
    for (size_t r = 0; r < run_count; r++) {
        analysis_cell_table_free(&runs[r].cells);
        analysis_impact_table_free(&runs[r].impact);
        verdict_launch_grid_free(&runs[r].launches);
    }
    free(runs);
    return status;
}
