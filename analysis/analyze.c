/* analysis: the whole pipeline of nbc-analyze on one run folder. */
#include "analysis/analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

analysis_options analysis_default_options(void)
{
    return (analysis_options){
        .plots = true,
        .r_overhead_max = 2.0, /* section 5.2: red beyond serialized, saturating at 2 */
        .report = stdout,
        .rules = analysis_default_rules(),
    };
}

static void report_summary(FILE *out, const char *run_dir, const cell_table *cells,
                           const cell_rules *rules, bool impact)
{
    size_t per_class[DIAG_COUNT] = {0}, valid = 0;
    long attempts = 0, late = 0;
    double *overheads = malloc((cells->count ? cells->count : 1) * sizeof *overheads);
    for (size_t i = 0; i < cells->count; i++) {
        const cell_metrics *c = &cells->cells[i];
        per_class[c->diagnosis]++;
        attempts += c->attempts;
        late += c->late_attempts;
        if (c->valid && overheads)
            overheads[valid++] = c->r_overhead;
    }
    double median = overheads ? stats_median(overheads, valid) : NAN;
    free(overheads);
    fprintf(out, "%s: %zu cells, %zu valid, median r_overhead %.3g;", run_dir, cells->count, valid,
            median);
    for (int d = 0; d < DIAG_COUNT; d++)
        if (per_class[d])
            fprintf(out, " %s %zu", analysis_diagnosis_name((enum diagnosis)d), per_class[d]);
    fprintf(out, "\nlateness: %ld of %ld attempts discarded (%.2g %%), judged %s\n", late, attempts,
            attempts ? 100.0 * (double)late / (double)attempts : 0.0,
            isnan(rules->late_tolerance) ? "by the driver (raw.csv column late)"
                                         : "again (--late-tolerance)");
    if (!isnan(rules->late_tolerance))
        fprintf(out,
                "late tolerance re-applied: %g of min(t_comm_s, t_comp_s), at least "
                "meta.json barrier_precision_ns\n",
                rules->late_tolerance);
    fprintf(out, "wrote: %s/cells.csv, cells_by_rank.csv%s\n", run_dir,
            impact ? ", impact.csv" : "");
}

/* Ranks should enter each attempt together (the window barrier, section
 * 4.2); a start skew beyond this share of the shorter reference inflates the
 * spans and deserves a word. */
static const double start_skew_warning_share = 0.1;

static void warn_start_skew(const char *run_dir, const cell_table *cells)
{
    size_t skewed = 0;
    double worst_s = 0;
    for (size_t i = 0; i < cells->count; i++) {
        const cell_metrics *c = &cells->cells[i];
        double shorter = fmin(c->t_comm_ref, c->t_comp_ref);
        if (c->start_skew_s > start_skew_warning_share * shorter) {
            skewed++;
            worst_s = fmax(worst_s, c->start_skew_s);
        }
    }
    if (skewed)
        analysis_warn("%s: in %zu of %zu cells the ranks started the overlap steps more "
                      "than %.0f %% of the shorter reference apart (up to %.3g ms, column "
                      "start_skew_s): the window barrier did not hold and the spans include "
                      "that skew",
                      run_dir, skewed, cells->count, 100 * start_skew_warning_share, worst_s * 1e3);
}

/* An impact.csv or impact figure from an earlier analysis must not outlive
 * the data it came from. */
static void remove_stale_impact(const char *run_dir)
{
    static const char *const stale[] = {"impact.csv",       "plots/impact.gp",  "plots/impact.dat",
                                        "plots/impact.png", "plots/impact.svg", "plots/impact.pdf"};
    analysis_error ignored;
    for (size_t i = 0; i < sizeof stale / sizeof *stale; i++) {
        char path[4200];
        if (analysis_path(path, sizeof path, run_dir, stale[i], &ignored) == ANALYSIS_OK)
            unlink(path);
    }
}

int analysis_analyze_run(const char *run_dir, const analysis_options *options, analysis_error *err)
{
    run_inputs in;
    cell_table cells = {0};
    impact_table impact = {0};
    bool with_impact = false;
    int status = analysis_load_run(run_dir, &in, err);
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_compute_cells(&in, &options->rules, &cells, err);
    if (status == ANALYSIS_OK && in.have_passive && in.have_compute_ref) {
        status = analysis_compute_impact(&in, &impact, err);
        with_impact = status == ANALYSIS_OK;
    }
    if (status == ANALYSIS_OK && !with_impact)
        remove_stale_impact(run_dir);
    if (status == ANALYSIS_OK)
        status = analysis_write_tables(run_dir, &cells, with_impact ? &impact : NULL, err);
    if (status == ANALYSIS_OK)
        warn_start_skew(run_dir, &cells);
    if (status == ANALYSIS_OK && options->report)
        report_summary(options->report, run_dir, &cells, &options->rules, with_impact);
    if (status == ANALYSIS_OK)
        status = analysis_plot_run(run_dir, &in.meta, &cells, with_impact ? &impact : NULL, options,
                                   err);
    analysis_impact_table_free(&impact);
    analysis_cell_table_free(&cells);
    analysis_run_inputs_free(&in);
    return status;
}
