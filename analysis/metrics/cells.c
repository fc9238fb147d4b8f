/* analysis: metrics per cell (paper sections 3 and 4.1) from its usable
 * blocks (metrics_blocks.c), and the run's table of cells over the grid
 * (metrics_grid.c); metrics_internal.h maps the four files. README.md, "How
 * the metrics are computed", is the specification of this file. */
#include "analysis/metrics/metrics_internal.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- Cell metrics ------------------------------------------------------------- */

/* The median over usable blocks of one field of block_stats. */
static double median_field(const cell_work *w, size_t offset, double *scratch)
{
    for (size_t i = 0; i < w->block_count; i++)
        scratch[i] = *(const double *)((const char *)&w->blocks[i] + offset);
    return stats_median(scratch, w->block_count);
}
#define MEDIAN_OF(w, field, scratch) median_field(w, offsetof(block_stats, field), scratch)

/* The per-block statistics of a cell as series (intervals.c), and the null
 * pairs over the blocks holding both: values holds SERIES_COUNT + 4 arrays
 * of block_count values. */
static void cell_series_of(const cell_work *w, double *values, cell_series *s)
{
    size_t n = w->block_count;
    static const size_t offsets[SERIES_COUNT] = {
        [SERIES_COMM_SPAN] = offsetof(block_stats, comm_span),
        [SERIES_COMP_SPAN] = offsetof(block_stats, comp_span),
        [SERIES_MEASURED_SPAN] = offsetof(block_stats, measured_span),
        [SERIES_COMM_LOCAL] = offsetof(block_stats, comm_local),
        [SERIES_COMP_LOCAL] = offsetof(block_stats, comp_local),
        [SERIES_MPI_LOCAL] = offsetof(block_stats, mpi_local),
        [SERIES_COMP_OVERLAP_LOCAL] = offsetof(block_stats, comp_overlap_local),
        [SERIES_COMP_OF_MPI_RANK] = offsetof(block_stats, comp_of_mpi_rank),
        [SERIES_MPI_FROM_LAST] = offsetof(block_stats, mpi_from_last),
    };
    *s = (cell_series){.n = n};
    for (int i = 0; i < SERIES_COUNT; i++) {
        double *series = values + (size_t)i * n;
        for (size_t b = 0; b < n; b++)
            series[b] = *(const double *)((const char *)&w->blocks[b] + offsets[i]);
        s->values[i] = series;
    }
    /* a null control against its reference's same statistic (eqs. 3, 4
     * denominators) */
    static const size_t reference_offsets[NULL_PAIR_COUNT] = {
        [NULL_COMM] = offsetof(block_stats, comm_local),
        [NULL_COMP] = offsetof(block_stats, comp_local),
    };
    for (int p = 0; p < NULL_PAIR_COUNT; p++) {
        double *null = values + (size_t)(SERIES_COUNT + 2 * p) * n, *reference = null + n;
        size_t k = 0;
        for (size_t b = 0; b < n; b++) {
            if (isnan(w->blocks[b].null_local[p]))
                continue;
            null[k] = w->blocks[b].null_local[p];
            reference[k++] = *(const double *)((const char *)&w->blocks[b] + reference_offsets[p]);
        }
        s->null_n[p] = k;
        s->null_values[p][0] = null;
        s->null_values[p][1] = reference;
    }
}

/* The definitions of README.md ("How the metrics are computed"): per block
 * spans and slowest-local times, the median over blocks of each, then every
 * ratio is a ratio of medians (the paper's estimand, section 5.1) whose
 * numerator and denominator are the same statistic:
 *   r_overhead      (eq. 1) = (median overlap span - max(median comm span,
 *                   median comp span)) / min(the same two);
 *   r_comm          (eq. 4) = median slowest (t2-t1) + max(0, t4 -
 *                   max over ranks of t3) in overlap (the wait from the
 *                   last rank's arrival at it) / median slowest local
 *                   t4-t1 in comm_ref; r_comm_local_wait the same with
 *                   each rank's own wait t4-t3;
 *   r_comp_slowdown (eq. 3) = median slowest local t3-t2 in overlap /
 *                   median slowest local t3-t2 in comp_ref.
 * cell_quantities (intervals.c) holds the formulas, so the bootstrap
 * resamples the very same function. */
static void cell_ratios(cell_metrics *c, const cell_work *w, const cell_series *s, double *scratch,
                        double estimate[Q_COUNT])
{
    double median[SERIES_COUNT], mean[SERIES_COUNT] = {0};
    for (int i = 0; i < SERIES_COUNT; i++) {
        memcpy(scratch, s->values[i], s->n * sizeof *scratch);
        median[i] = stats_median(scratch, s->n);
        for (size_t b = 0; b < s->n; b++)
            mean[i] += s->values[i][b] / (double)s->n;
    }
    cell_quantities(median, mean, c->comm_target_s, c->comp_target_s, estimate);
    c->t_comm_ref = median[SERIES_COMM_SPAN];
    c->t_comp_ref = median[SERIES_COMP_SPAN];
    c->t_measured = median[SERIES_MEASURED_SPAN];
    c->t_comm_ref_local = median[SERIES_COMM_LOCAL];
    c->t_comp_ref_local = median[SERIES_COMP_LOCAL];
    c->t_mpi = median[SERIES_MPI_FROM_LAST];
    c->t_comp = median[SERIES_COMP_OVERLAP_LOCAL];
    c->t_call = MEDIAN_OF(w, call, scratch);
    c->t_wait = MEDIAN_OF(w, wait, scratch);
    c->t_measured_local = MEDIAN_OF(w, measured_local, scratch);
    c->start_skew_s = MEDIAN_OF(w, start_skew, scratch);
    c->r_overhead = estimate[Q_R_OVERHEAD];
    c->r_comm = estimate[Q_R_COMM];
    c->r_comp_slowdown = estimate[Q_R_COMP_SLOWDOWN];
    c->comm_target_error = estimate[Q_COMM_TARGET_ERROR];
    c->comp_target_error = estimate[Q_COMP_TARGET_ERROR];

    /* The peers' percentages on one statistic, the slowest local times (the
     * peers average local times over ranks): t_pure = t_comm_ref_local,
     * t_overall = t_measured_local, t_cpu = t_comp.
     * OSU (osu_util.c, print_stats_nbc): max(0, 100 - 100 (t_overall -
     * t_cpu) / t_pure). */
    double pure = c->t_comm_ref_local, overall = c->t_measured_local, cpu = c->t_comp;
    c->overlap_osu_pct = fmax(0.0, 100.0 * (1.0 - (overall - cpu) / pure));
    /* IMB-NBC (IMB_output.c, IMB_display_times, NBC branch): 100 max(0,
     * min(1, (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU))). */
    c->overlap_imb_pct = 100.0 * fmax(0.0, fmin(1.0, (pure + cpu - overall) / fmax(pure, cpu)));
}

/* The tolerance --late-tolerance applies to a cell (cell_rules). */
static int judge_for_cell(const run_inputs *in, const cell_rules *rules, const raw_cell *cell,
                          lateness_judge *judge, analysis_error *err)
{
    *judge = (lateness_judge){.again = !isnan(rules->late_tolerance)};
    if (!judge->again)
        return ANALYSIS_OK;
    const calib_comm_row *comm = find_calib_comm(in, cell->collective, cell->comm_target_s);
    const calib_comp_row *comp = find_calib_comp(in, cell->comp_target_s);
    if (!comm || !isfinite(comm->t_comm_s) || !comp || !isfinite(comp->t_comp_s))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "--late-tolerance: cell %ld (%s, %g s x %g s) has no calibrated "
                             "time in %s: the tolerance is a share of min(t_comm_s, t_comp_s)",
                             cell->cell, cell->collective, cell->comm_target_s, cell->comp_target_s,
                             !comm || !isfinite(comm->t_comm_s) ? "calib_comm.csv"
                                                                : "calib_comp.csv");
    judge->tolerance_ns = fmax(rules->late_tolerance * fmin(comm->t_comm_s, comp->t_comp_s) * 1e9,
                               in->meta.barrier_precision_ns);
    return ANALYSIS_OK;
}

cell_metrics empty_cell(long number, const char *collective, double comm_target_s,
                        double comp_target_s, long long bytes, long long matrix_n)
{
    cell_metrics c = {
        .cell = number,
        .comm_target_s = comm_target_s,
        .comp_target_s = comp_target_s,
        .bytes = bytes,
        .matrix_n = matrix_n,
    };
    double *undefined[] = {
        &c.t_comm_ref,
        &c.t_comp_ref,
        &c.t_measured,
        &c.t_call,
        &c.t_comp,
        &c.t_wait,
        &c.r_overhead,
        &c.r_comm,
        &c.r_comp_slowdown,
        &c.r_overhead_iqr,
        &c.overlap_osu_pct,
        &c.overlap_imb_pct,
        &c.late_share,
        &c.tolerance_ns,
        &c.start_skew_s,
        &c.t_mpi,
        &c.t_comm_ref_local,
        &c.t_comp_ref_local,
        &c.t_measured_local,
        &c.comm_target_error,
        &c.comp_target_error,
        &c.r_overhead_ci.lo,
        &c.r_overhead_ci.hi,
        &c.foreign_wait_s,
        &c.r_comm_ci.lo,
        &c.r_comm_ci.hi,
        &c.r_comm_local_wait,
        &c.r_comm_local_wait_ci.lo,
        &c.r_comm_local_wait_ci.hi,
        &c.r_comp_slowdown_ci.lo,
        &c.r_comp_slowdown_ci.hi,
        &c.r_overhead_mean,
        &c.r_overhead_mean_ci.lo,
        &c.r_overhead_mean_ci.hi,
        &c.r_overhead_p90,
        &c.r_overhead_outlier_share,
        &c.r_overhead_bimodality,
        &c.comm_null_ratio,
        &c.comm_null_ci.lo,
        &c.comm_null_ci.hi,
        &c.comp_null_ratio,
        &c.comp_null_ci.lo,
        &c.comp_null_ci.hi,
        &c.r_mpi_impact,
        &c.r_mpi_impact_ci.lo,
        &c.r_mpi_impact_ci.hi,
    };
    for (size_t i = 0; i < sizeof undefined / sizeof *undefined; i++)
        *undefined[i] = NAN;
    c.overlap = c.class = VERDICT_INVALID;
    c.ended_block_share = c.ended_block_share_ci.lo = c.ended_block_share_ci.hi = NAN;
    snprintf(c.collective, sizeof c.collective, "%s", collective);
    snprintf(c.stop, sizeof c.stop, "none");
    return c;
}

/* ---- One measured cell ----------------------------------------------------------- */

typedef struct run_counts {
    long flag_disagreements;
    size_t short_blocks;
    size_t incomplete_blocks;
} run_counts;

/* Where a cell's outputs go: its row, its ranks' rows, its blocks, its
 * estimates and intervals. */
typedef struct cell_outputs {
    cell_table *table;
    size_t rank_capacity;
    size_t block_capacity;
    cell_uncertainty *uncertainty; /* one per cell of the table */
} cell_outputs;

static int add_block_value(cell_outputs *out, size_t cell_index, long block, bool repeat,
                           const block_stats *b, analysis_error *err)
{
    cell_table *t = out->table;
    int status = analysis_grow((void **)&t->blocks, &out->block_capacity, t->block_count,
                               sizeof *t->blocks, err);
    if (status != ANALYSIS_OK)
        return status;
    t->blocks[t->block_count] = (block_values){
        .cell_index = cell_index,
        .block = block,
        .repeat = repeat,
        .comm_span = b->comm_span,
        .comp_span = b->comp_span,
        .measured_span = b->measured_span,
        .comm_local = b->comm_local,
        .comp_local = b->comp_local,
        .mpi_from_last = b->mpi_from_last,
        .comp_overlap_local = b->comp_overlap_local,
    };
    memcpy(t->blocks[t->block_count].foreign_wait, b->foreign_wait, sizeof b->foreign_wait);
    t->block_count++;
    return ANALYSIS_OK;
}

/* The cell's blocks, then the null blocks' second triples. */
static int add_block_values(const cell_work *w, size_t cell_index, cell_outputs *out,
                            analysis_error *err)
{
    int status = ANALYSIS_OK;
    for (size_t b = 0; status == ANALYSIS_OK && b < w->block_count; b++)
        status = add_block_value(out, cell_index, w->block_numbers[b], false, &w->blocks[b], err);
    for (size_t b = 0; status == ANALYSIS_OK && b < w->repeat_count; b++)
        status = add_block_value(out, cell_index, w->repeat_numbers[b], true, &w->repeats[b], err);
    return status;
}

static int compute_cell(const run_inputs *in, const raw_cell *raw, const raw_row *rows, size_t n,
                        long expected_ranks, const cell_rules *rules, size_t cell_index,
                        cell_outputs *out, run_counts *counts, analysis_error *err)
{
    cell_metrics *cell = &out->table->cells[cell_index];
    cell_uncertainty *u = &out->uncertainty[cell_index];
    *cell = empty_cell(raw->cell, raw->collective, raw->comm_target_s, raw->comp_target_s,
                       raw->bytes, raw->matrix_n);
    lateness_judge judge;
    cell_work w;
    int status = judge_for_cell(in, rules, raw, &judge, err);
    if (status == ANALYSIS_OK)
        status = collect_blocks(rows, n, &judge, expected_ranks, &w, err);
    if (status != ANALYSIS_OK)
        return status;
    size_t blocks = w.block_count ? w.block_count : 1;
    double *scratch = malloc(blocks * sizeof *scratch);
    double *series_values = malloc((SERIES_COUNT + 2 * NULL_PAIR_COUNT) * blocks * sizeof *scratch);
    if (!scratch || !series_values) {
        free(scratch);
        free(series_values);
        cell_work_free(&w);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu blocks)", w.block_count);
    }
    counts->flag_disagreements += w.flag_disagreements;
    counts->short_blocks += w.short_blocks;
    counts->incomplete_blocks += w.incomplete_blocks;
    cell->blocks = (long)w.block_count;
    cell->ranks = w.ranks;
    cell->attempts = w.attempts;
    cell->late_attempts = w.late_attempts;
    cell->discarded_attempts = w.discarded_attempts;
    cell->late_share = w.attempts ? (double)w.late_attempts / (double)w.attempts : NAN;
    cell->tolerance_ns = judge.again ? judge.tolerance_ns : (double)w.driver_tolerance_ns;
    cell->invalid_reasons = calibration_reasons(in, raw);
    snprintf(cell->stop, sizeof cell->stop, "unknown");
    for (size_t i = 0; i < in->sweep_count; i++)
        if (in->sweep[i].cell == raw->cell)
            snprintf(cell->stop, sizeof cell->stop, "%s", in->sweep[i].stop);
    /* the driver gave up on the cell (a block, or a later visit's warm-up,
     * out of redos) */
    if (w.late_blocks || w.warmup_late || strcmp(cell->stop, "late") == 0)
        cell->invalid_reasons |= INVALID_LATE;
    cell_series series;
    cell_series_of(&w, series_values, &series);
    if (w.block_count)
        cell_ratios(cell, &w, &series, scratch, u->estimate);
    /* A size the axis gives (grid.comm_sizes) is the cell's target: there
     * is no time to miss, so no comm_target_error and never comm_off_target. */
    const calib_comm_row *calib =
        in->have_calib_comm ? find_calib_comm(in, raw->collective, raw->comm_target_s) : NULL;
    cell->comm_size_given = calib && calib->size_given;
    if (cell->comm_size_given)
        cell->comm_target_error = u->estimate[Q_COMM_TARGET_ERROR] = NAN;
    if (!(cell->t_comm_ref > 0 && cell->t_comp_ref > 0 && cell->t_comm_ref_local > 0 &&
          cell->t_comp_ref_local > 0))
        cell->invalid_reasons |= INVALID_NO_BLOCKS;
    cell->valid = cell->invalid_reasons == 0;
    status = cell_intervals(&series, rules, cell, u, err);
    if (status == ANALYSIS_OK)
        status = rank_metrics_of(&w, cell_index, out->table, &out->rank_capacity, err);
    if (status == ANALYSIS_OK)
        status = add_block_values(&w, cell_index, out, err);
    const block_values *first =
        out->table->blocks + out->table->block_count - w.block_count - w.repeat_count;
    /* the foreign waits bound this run's medians, which rest on the blocks
     * alone; the reading's means take the second triples too */
    if (status == ANALYSIS_OK && w.block_count)
        status = cell_foreign_wait(cell, first, w.block_count, err);
    if (status == ANALYSIS_OK)
        verdict_cell_reading(cell, first, w.block_count + w.repeat_count);
    free(scratch);
    free(series_values);
    cell_work_free(&w);
    return status;
}

int analysis_compute_cells(const run_inputs *in, const cell_rules *rules, cell_table *out,
                           analysis_error *err)
{
    const raw_table *raw = &in->raw;
    *out = (cell_table){0};
    if (!isnan(rules->late_tolerance) && !(rules->late_tolerance >= 0))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "--late-tolerance: %g is not allowed (a number >= 0)",
                             rules->late_tolerance);
    const uncertainty_rules *u = &rules->uncertainty;
    if (u->resamples < 1 || !(u->confidence > 0 && u->confidence < 1) || u->seed < 0)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "bootstrap: %ld resamples, confidence %g, seed %lld are not allowed "
                             "(resamples >= 1, 0 < confidence < 1, seed >= 0)",
                             u->resamples, u->confidence, u->seed);
    if (!isnan(rules->late_tolerance) && isnan(in->meta.barrier_precision_ns))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "--late-tolerance needs meta.json's key 'barrier_precision_ns' (the "
                             "floor of the tolerance), which %s",
                             in->meta.present ? "it lacks" : "is missing");
    planned_cell *plan = NULL;
    size_t count = 0;
    int status = plan_cells(in, &plan, &count, err);
    if (status != ANALYSIS_OK)
        return status;
    out->cells = calloc(count ? count : 1, sizeof *out->cells);
    /* rows of raw cell c start at row_start[c] (rows are sorted by cell) */
    size_t *row_start = malloc((raw->cell_count + 1) * sizeof *row_start);
    if (!out->cells || !row_start) {
        free(plan);
        free(row_start);
        free(out->cells);
        out->cells = NULL;
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", count);
    }
    out->count = count;
    for (size_t c = 0, r = 0; c <= raw->cell_count; c++) {
        while (r < raw->row_count && raw->rows[r].cell_index < c)
            r++;
        row_start[c] = r;
    }
    long expected_ranks = expected_ranks_of(in);
    cell_outputs outputs = {.table = out, .uncertainty = malloc(count * sizeof(cell_uncertainty))};
    if (!outputs.uncertainty)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", count);
    run_counts counts = {0};
    for (size_t k = 0; status == ANALYSIS_OK && k < count; k++) {
        cell_uncertainty *u = &outputs.uncertainty[k];
        for (int q = 0; q < Q_COUNT; q++) {
            u->estimate[q] = NAN;
            u->interval[q] = (boot_summary){{NAN, NAN}, NAN};
        }
        if (!plan[k].raw) {
            out->cells[k] = unmeasured_cell(in, &plan[k]);
            continue;
        }
        size_t c = plan[k].raw_index;
        status =
            compute_cell(in, plan[k].raw, raw->rows + row_start[c], row_start[c + 1] - row_start[c],
                         expected_ranks, rules, k, &outputs, &counts, err);
    }
    if (status == ANALYSIS_OK)
        summarize_run(out, rules);
    free(outputs.uncertainty);
    free(plan);
    free(row_start);
    if (status != ANALYSIS_OK) {
        analysis_cell_table_free(out);
        return status;
    }
    if (counts.short_blocks)
        analysis_warn("%zu measured block(s) without all %ld ranks in a kept attempt left out",
                      counts.short_blocks, expected_ranks);
    if (counts.incomplete_blocks)
        analysis_warn("%zu measured block(s) lacking a kind altogether left out (a run cut short "
                      "inside a block?)",
                      counts.incomplete_blocks);
    if (counts.flag_disagreements)
        analysis_warn("%ld attempt(s) whose late flag disagrees with max(exit_late_ns, "
                      "start_skew_ns) > tolerance_ns in raw.csv: the flag (the driver's "
                      "decision) was used",
                      counts.flag_disagreements);
    return ANALYSIS_OK;
}

void analysis_cell_table_free(cell_table *cells)
{
    free(cells->cells);
    free(cells->ranks);
    free(cells->blocks);
    *cells = (cell_table){0};
}
