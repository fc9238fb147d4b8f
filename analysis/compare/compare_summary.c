/* analysis: nbc-compare's figures per configuration over its launches
 * (configuration_summary.csv and the table on the report): the readings
 * and the MPI impact at the largest computation size, each computed by the
 * code that writes a study's verdict.csv and impact.csv
 * (verdict_summary_of_runs), so that the comparison, the verdict and the
 * report print the same number for the same quantity. */
#include "analysis/compare/compare_internal.h"
#include "analysis/verdict/verdict.h"

#include <math.h>
#include <stdlib.h>

/* "[lo, hi]" or "-" without an interval. */
static void interval_text(char *out, size_t size, double lo, double hi)
{
    if (isnan(lo) || isnan(hi))
        snprintf(out, size, "-");
    else
        snprintf(out, size, "[%.2f, %.2f]", lo, hi);
}

static void print_header(FILE *report)
{
    fprintf(report, "over the launches (the code of the study's verdict.csv and impact.csv):\n");
    fprintf(report, "%6s %8s %5s %9s %9s %11s %-34s %-14s %s\n", "config", "launches", "cells",
            "confident", "(overlap)", "suggest ov*", "r_impact at the largest size [95 %]",
            "A/A band", "estimable");
}

static void print_row(FILE *report, size_t config, const verdict_summary *s)
{
    char impact[96] = "-", band[48], range[48];
    interval_text(band, sizeof band, s->aa_lo, s->aa_hi);
    if (s->have_impact) {
        interval_text(range, sizeof range, s->r_mpi_impact_lo, s->r_mpi_impact_hi);
        snprintf(impact, sizeof impact, "%.2f %s at %g ms", s->r_mpi_impact, range,
                 s->comp_target_s * 1e3);
    }
    fprintf(report, "%6zu %8ld %5zu %9zu %9zu %11zu %-34s %-14s %s\n", config, s->launches,
            s->cells, s->confident, s->confident_overlap, s->suggest_overlap, impact,
            s->have_impact ? band : "-",
            !s->have_impact ? "-"
            : s->estimable  ? "yes"
                            : "no (not estimable here)");
}

int write_configuration_summary(const compare_run *runs, size_t run_count,
                                const compare_config *configs, size_t config_count,
                                const char *out_dir, const analysis_options *options,
                                analysis_error *err)
{
    const char **dirs = malloc((run_count ? run_count : 1) * sizeof *dirs);
    if (!dirs)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (configuration summary)");
    strbuf csv = {0};
    strbuf_printf(&csv, "configuration,label,launches,cells,confident,confident_overlap,"
                        "suggest_overlap,suggest_none,invalid,comp_target_s,r_mpi_impact,"
                        "r_mpi_impact_lo,r_mpi_impact_hi,aa_lo,aa_hi,cpu_wait_share,estimable\n");
    if (options->report)
        print_header(options->report);
    int status = ANALYSIS_OK;
    for (size_t c = 0; c < config_count && status == ANALYSIS_OK; c++) {
        size_t n = 0;
        for (size_t r = 0; r < run_count; r++)
            if (runs[r].config == c)
                dirs[n++] = runs[r].dir;
        verdict_summary s;
        status = verdict_summary_of_runs(dirs, n, &options->rules.uncertainty, &s, err);
        if (status != ANALYSIS_OK)
            break;
        strbuf_printf(
            &csv, "%zu,%s,%ld,%zu,%zu,%zu,%zu,%zu,%zu,%.9g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n",
            c + 1, configs[c].label, s.launches, s.cells, s.confident, s.confident_overlap,
            s.suggest_overlap, s.suggest_none, s.invalid, s.comp_target_s, s.r_mpi_impact,
            s.r_mpi_impact_lo, s.r_mpi_impact_hi, s.aa_lo, s.aa_hi, s.cpu_wait_share, s.estimable);
        if (options->report)
            print_row(options->report, c + 1, &s);
    }
    free(dirs);
    if (status == ANALYSIS_OK && options->report)
        fprintf(options->report,
                "* suggest ov: not confident readings whose r_overhead lies in a band of overlap; "
                "(overlap): confident readings in one\n");
    if (status == ANALYSIS_OK)
        status = write_text(out_dir, "configuration_summary.csv", &csv, err);
    strbuf_free(&csv);
    return status;
}
