/* analysis: the whole pipeline of nbc-analyze on one run folder. */
#include "analysis/analyze/analyze.h"
#include "analysis/figures/figures.h"
#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"
#include "analysis/tables/tables.h"

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
        .figure = {3.5, 0}, /* one journal column */
        .titles = true,
        .rules = analysis_default_rules(),
    };
}

/* The null controls (README.md, "Null controls"): the share of cells whose
 * interval of null / reference covers its truth, 1. */
static void null_coverage_text(strbuf *sb, const cell_table *cells, const char *prefix)
{
    static const char *const pairs[NULL_PAIR_COUNT] = {
        [NULL_COMM] = "comm_null / comm_ref, r_comm's denominator",
        [NULL_COMP] = "comp_null / comp_ref, r_comp_slowdown's denominator",
    };
    const uncertainty_summary *u = &cells->uncertainty;
    for (int p = 0; p < NULL_PAIR_COUNT; p++) {
        if (u->null_cells[p] == 0) {
            strbuf_printf(sb,
                          "%snull-control coverage: none (%s: no valid cell has 2 blocks "
                          "holding both)\n",
                          prefix, pairs[p]);
            continue;
        }
        double blocks[2] = {0}; /* the fewest and most null blocks of those cells */
        bool first = true;
        for (size_t i = 0; i < cells->count; i++) {
            const cell_metrics *c = &cells->cells[i];
            double ci_lo = p == NULL_COMM ? c->comm_null_ci.lo : c->comp_null_ci.lo;
            double n = (double)(p == NULL_COMM ? c->comm_null_blocks : c->comp_null_blocks);
            if (!c->valid || isnan(ci_lo))
                continue;
            blocks[0] = first || n < blocks[0] ? n : blocks[0];
            blocks[1] = first || n > blocks[1] ? n : blocks[1];
            first = false;
        }
        strbuf_printf(sb,
                      "%snull-control coverage: %.0f %% (%s: %ld of %ld valid cells' %.0f %% "
                      "intervals cover 1, from %.0f to %.0f null blocks a cell)\n",
                      prefix, 100.0 * (double)u->null_covered[p] / (double)u->null_cells[p],
                      pairs[p], u->null_covered[p], u->null_cells[p], 100 * u->rules.confidence,
                      blocks[0], blocks[1]);
    }
}

/* Blocks per measured cell and why the driver stopped each (sweep.csv,
 * adaptive repetitions): "blocks: 12 to 40 a cell; stopped: max 3, ...". */
static void blocks_text(strbuf *sb, const cell_table *cells)
{
    long least = -1, most = -1;
    const char *reasons[8];
    size_t counts[8] = {0}, kinds = 0;
    for (size_t i = 0; i < cells->count; i++) {
        const cell_metrics *c = &cells->cells[i];
        if (strcmp(c->stop, "none") == 0)
            continue; /* not measured */
        least = least < 0 || c->blocks < least ? c->blocks : least;
        most = c->blocks > most ? c->blocks : most;
        size_t k = 0;
        while (k < kinds && strcmp(reasons[k], c->stop) != 0)
            k++;
        if (k == kinds && kinds < sizeof reasons / sizeof *reasons)
            reasons[kinds++] = c->stop;
        if (k < kinds)
            counts[k]++;
    }
    if (least < 0)
        return;
    strbuf_printf(sb, "blocks: %ld to %ld usable a cell; stopped:", least, most);
    for (size_t k = 0; k < kinds; k++)
        strbuf_printf(sb, "%s %s %zu", k ? "," : "", reasons[k], counts[k]);
    strbuf_printf(sb, "\n");
}

/* r_MPI_impact at the run's largest computation size (never a median over
 * the sizes: the scheduler's slice lets a short step escape what slows a
 * long one), with its interval and its A/A pair's beside it (README.md,
 * "MPI impact"). One launch: figures, not a verdict. */
static void impact_text(strbuf *sb, const impact_table *impact)
{
    const impact_row *r = analysis_impact_largest(impact->rows, impact->count);
    if (!r)
        return;
    strbuf_printf(sb, "r_MPI_impact (eq. 2) at the largest computation size (%g ms, host %s): %.3g",
                  r->comp_target_s * 1e3, r->host, r->r_mpi_impact);
    if (!isnan(r->r_mpi_impact_ci.lo))
        strbuf_printf(sb, ", 95 %% [%.3g, %.3g]", r->r_mpi_impact_ci.lo, r->r_mpi_impact_ci.hi);
    if (isnan(r->r_aa))
        strbuf_printf(sb, "; A/A pair: none (compute_ref.csv lacks the phase before or its A/A "
                          "partner, phase aa)\n");
    else
        strbuf_printf(sb,
                      "; A/A pair (compute_ref before / its A/A partner just before it, no MPI "
                      "at all) %.3g, 95 %% [%.3g, %.3g]\n",
                      r->r_aa, r->r_aa_ci.lo, r->r_aa_ci.hi);
    /* One run folder is one launch: what differs between launches (placement,
     * the machine's state) is in none of these intervals. */
    strbuf_printf(sb, "one launch: these intervals hold within it; to report impact, repeat "
                      "launches (nbc-run launches = N): the study's impact.csv pools them\n");
}

static void summary_text(strbuf *sb, const char *run_dir, const cell_table *cells,
                         const cell_rules *rules, const impact_table *impact)
{
    size_t per_band[VERDICT_CLASS_COUNT] = {0}, valid = 0, inside = 0, off_target = 0;
    long attempts = 0, late = 0, discarded = 0;
    double *overheads = malloc((cells->count ? cells->count : 1) * sizeof *overheads);
    for (size_t i = 0; i < cells->count; i++) {
        const cell_metrics *c = &cells->cells[i];
        per_band[c->overlap]++;
        inside += verdict_cell_inside_band(c);
        off_target += c->valid && (c->comm_off_target || c->comp_off_target);
        attempts += c->attempts;
        late += c->late_attempts;
        discarded += c->discarded_attempts;
        if (c->valid && overheads)
            overheads[valid++] = c->r_overhead;
    }
    double median = overheads ? stats_median(overheads, valid) : NAN;
    free(overheads);
    strbuf_printf(sb, "%s: %zu cells, %zu valid, median r_overhead %.3g;", run_dir, cells->count,
                  valid, median);
    for (int k = 0; k < VERDICT_CLASS_COUNT; k++)
        if (per_band[k])
            strbuf_printf(sb, " %s %zu", verdict_class_name((verdict_class)k), per_band[k]);
    const uncertainty_summary *u = &cells->uncertainty;
    strbuf_printf(sb,
                  "\nintervals: %.0f %% per cell from %ld resamples of whole blocks (seed %lld)\n"
                  "reading: the band of r_overhead (hidden below 0.25, partial below 0.75, none); "
                  "one launch: a reading, never confident (a study's verdict.csv decides over "
                  "launches); %zu of %zu valid cells' intervals inside their band; off target "
                  "(flagged): %zu\n",
                  100 * u->rules.confidence, u->rules.resamples, u->rules.seed, inside, valid,
                  off_target);
    null_coverage_text(sb, cells, "");
    blocks_text(sb, cells);
    /* the driver's lateness line, word for word (bench_nbc/measure/sweep.c) */
    double per_attempt = attempts ? 100.0 / (double)attempts : 0.0;
    strbuf_printf(sb,
                  "lateness: %ld of %ld attempts late (%.1f %%), %ld discarded with the passes "
                  "they ended (%.1f %%); judged %s\n",
                  late, attempts, per_attempt * (double)late, discarded,
                  per_attempt * (double)discarded,
                  isnan(rules->late_tolerance) ? "by the driver (raw.csv column late)"
                                               : "again (--late-tolerance)");
    if (!isnan(rules->late_tolerance))
        strbuf_printf(sb,
                      "late tolerance re-applied: %g of min(t_comm_s, t_comp_s), at least "
                      "meta.json barrier_precision_ns\n",
                      rules->late_tolerance);
    if (impact)
        impact_text(sb, impact);
    strbuf_printf(sb, "wrote: %s/cells.csv, cells_by_rank.csv, summary.txt%s\n", run_dir,
                  impact ? ", impact.csv" : "");
}

/* The summary into RUN_DIR/summary.txt and (unless quiet) the report; the
 * null-control coverage also to stderr, the log. */
static int write_summary(const char *run_dir, const cell_table *cells, const cell_rules *rules,
                         const impact_table *impact, FILE *report, analysis_error *err)
{
    int status = ANALYSIS_OK;
    strbuf sb = {0}, log = {0};
    summary_text(&sb, run_dir, cells, rules, impact);
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s: ", run_dir);
    null_coverage_text(&log, cells, prefix);
    char path[4200];
    status = sb.ok && log.ok ? analysis_path(path, sizeof path, run_dir, "summary.txt", err)
                             : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, sb.data, sb.len, err);
    if (status == ANALYSIS_OK) {
        fputs(log.data, stderr);
        if (report)
            fputs(sb.data, report);
    }
    strbuf_free(&sb);
    strbuf_free(&log);
    return status;
}

/* RUN_DIR/cells.txt, the cells table a harness reads (docs/formats.md), and
 * the same on stdout in options->table's format. */
static int write_cells_table(const char *run_dir, const run_meta *meta, const cell_table *cells,
                             table_format on_stdout, analysis_error *err)
{
    char *text = NULL, path[4200];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (cells table)");
    int status = analysis_print_table(f, TABLE_TEXT, run_dir, meta, cells, err);
    if (fclose(f) != 0 && status == ANALYSIS_OK)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (cells table)");
    if (status == ANALYSIS_OK)
        status = analysis_path(path, sizeof path, run_dir, "cells.txt", err);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, text, len, err);
    free(text);
    if (status == ANALYSIS_OK && on_stdout != TABLE_NONE)
        status = analysis_print_table(stdout, on_stdout, run_dir, meta, cells, err);
    return status;
}

/* --ecdf names cells by their number; each must have blocks to draw. */
static int check_ecdf_cells(const char *run_dir, const cell_table *cells,
                            const analysis_options *options, analysis_error *err)
{
    for (size_t k = 0; k < options->ecdf_count; k++) {
        bool found = false;
        for (size_t i = 0; i < cells->count && !found; i++)
            found = cells->cells[i].cell == options->ecdf_cells[k] && cells->cells[i].blocks > 0;
        if (!found)
            return analysis_fail(err, ANALYSIS_ERR_INPUT,
                                 "--ecdf: cell %ld has no usable block in %s (allowed: a value "
                                 "of the column `cell` of cells.csv whose `blocks` is above 0)",
                                 options->ecdf_cells[k], run_dir);
    }
    return ANALYSIS_OK;
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

/* Cells whose computing threads waited for their CPU far beyond the run's
 * norm (sched.csv; README.md, "Interference"): said once per run. */
static void warn_interference(const char *run_dir, const cell_table *cells)
{
    size_t flagged = 0;
    double worst = 0;
    for (size_t i = 0; i < cells->count; i++)
        if (cells->cells[i].interference) {
            flagged++;
            worst = fmax(worst, cells->cells[i].compute_delay_share);
        }
    if (flagged)
        analysis_warn("%s: in %zu of %zu cells the computing threads waited for their CPU up "
                      "to %.0f %% of a step (median over blocks; the run's median %.2g %%): "
                      "something else ran on their cores (column interference; sched.csv)",
                      run_dir, flagged, cells->count, 100 * worst,
                      100 * cells->run_delay_share_norm);
}

/* A run without a valid cell says why, by reason (README.md, Validity). */
static void report_no_valid_cell(const char *run_dir, const cell_table *cells, long *valid_out)
{
    long valid = 0;
    unsigned reasons = 0;
    for (size_t i = 0; i < cells->count; i++) {
        valid += cells->cells[i].valid;
        reasons |= cells->cells[i].invalid_reasons;
    }
    if (valid_out)
        *valid_out = valid;
    if (valid > 0 || cells->count == 0)
        return;
    char text[256];
    analysis_invalid_reasons_text(reasons, text, sizeof text);
    analysis_warn("%s: no valid cell: all %zu cells are invalid (reasons: %s; cells.csv column "
                  "invalid_reason)",
                  run_dir, cells->count, text);
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
    if (status == ANALYSIS_OK)
        status = analysis_sched_cells(run_dir, &cells, err);
    if (status == ANALYSIS_OK)
        status = check_ecdf_cells(run_dir, &cells, options, err);
    if (status == ANALYSIS_OK && in.have_passive && in.have_compute_ref) {
        status = analysis_compute_impact(&in, &options->rules.uncertainty, &impact, err);
        with_impact = status == ANALYSIS_OK;
    }
    if (status == ANALYSIS_OK)
        analysis_impact_into_cells(with_impact ? &impact : NULL, &cells);
    if (status == ANALYSIS_OK && !with_impact)
        remove_stale_impact(run_dir);
    if (status == ANALYSIS_OK)
        status = analysis_write_tables(run_dir, &cells, with_impact ? &impact : NULL, err);
    if (status == ANALYSIS_OK) {
        warn_start_skew(run_dir, &cells);
        warn_interference(run_dir, &cells);
        report_no_valid_cell(run_dir, &cells, options->valid_cells);
    }
    if (status == ANALYSIS_OK)
        status = write_summary(run_dir, &cells, &options->rules, with_impact ? &impact : NULL,
                               options->report, err);
    if (status == ANALYSIS_OK)
        status = write_cells_table(run_dir, &in.meta, &cells, options->table, err);
    if (status == ANALYSIS_OK)
        status = analysis_plot_run(run_dir, &in.meta, &cells, with_impact ? &impact : NULL, options,
                                   err);
    analysis_impact_table_free(&impact);
    analysis_cell_table_free(&cells);
    analysis_run_inputs_free(&in);
    return status;
}
