/* Fuzz target: the analysis' raw-record reader (analysis_parse_raw, the
 * parser of raw.csv) and the metrics computed from what it accepts
 * (analysis_compute_cells, ranks taken from the rows): without calibration
 * files, judged by the driver's late column; then with calibration rows made
 * from the cells' targets (some not converged, so the grid gains unreachable
 * cells) and judged again with a tolerance the input's last byte picks.
 * Promises checked (analysis.h): on failure a message
 * and an empty table; on success cells sorted by number, rows sorted by
 * (cell, block, kind, attempt, rank) with no two rows sharing those keys,
 * every row pointing at a cell, the times of a row not decreasing, the rows
 * of a block sharing a role and those of an attempt a late flag; one metrics
 * row per cell (more with the grid, those without rows invalid for that
 * reason), every rank row pointing at a cell, late attempts never more
 * than attempts, and no negative duration (spans run from a first start to
 * a last end, and a row's times do not decrease), whatever the times; no
 * interval upside down, every reading the band of its r_overhead (one
 * launch: one_launch or invalid), null blocks some of the blocks, every
 * block value pointing at a cell. The bootstrap runs 20 resamples a cell (not 2000): the code paths
 * are the same, the fuzzer runs a hundred times faster. */
#include "fuzz/fuzz.h"

#include "analysis/analysis.h"

#include <math.h>
#include <string.h>

#define TARGET "raw"

static void require_duration(double value_s)
{
    fuzz_require(isnan(value_s) || value_s >= 0, TARGET, "a duration is never negative");
}

static int compare_row_keys(const raw_row *a, const raw_row *b)
{
    if (a->cell_index != b->cell_index)
        return a->cell_index < b->cell_index ? -1 : 1;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->attempt != b->attempt)
        return a->attempt < b->attempt ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static void require_sorted_table(const raw_table *table)
{
    fuzz_require(table->row_count > 0 && table->cell_count > 0, TARGET,
                 "an accepted raw.csv has rows and cells");
    for (size_t c = 1; c < table->cell_count; c++)
        fuzz_require(table->cells[c - 1].cell < table->cells[c].cell, TARGET,
                     "cells sorted by number, each once");
    for (size_t r = 0; r < table->row_count; r++) {
        const raw_row *row = &table->rows[r];
        fuzz_require(row->cell_index < table->cell_count, TARGET, "a row points at a cell");
        fuzz_require((unsigned)row->kind < RAW_KIND_COUNT, TARGET, "a row has a known kind");
        fuzz_require((unsigned)row->role < RAW_ROLE_COUNT, TARGET, "a row has a known role");
        fuzz_require(row->exit_late_ns >= 0 && row->tolerance_ns >= 0, TARGET,
                     "lateness and tolerance are not negative");
        for (int t = 1; t < 4; t++)
            fuzz_require(row->t_ns[t - 1] <= row->t_ns[t], TARGET,
                         "the times of a row do not decrease");
        if (r == 0)
            continue;
        const raw_row *previous = &table->rows[r - 1];
        fuzz_require(compare_row_keys(previous, row) < 0, TARGET,
                     "rows sorted by (cell, block, kind, attempt, rank), no duplicates");
        bool same_block = previous->cell_index == row->cell_index && previous->block == row->block;
        fuzz_require(!same_block || previous->role == row->role, TARGET, "a block has one role");
        fuzz_require(!same_block || previous->kind != row->kind ||
                         previous->attempt != row->attempt || previous->late == row->late,
                     TARGET, "an attempt has one late flag");
    }
}

static void require_interval(metric_bounds interval, const char *promise)
{
    fuzz_require(!(interval.lo > interval.hi), TARGET, promise);
}

static void require_intervals(const cell_metrics *cell)
{
    require_interval(cell->r_overhead_ci, "an interval is not upside down");
    require_interval(cell->r_comm_ci, "an interval is not upside down");
    require_interval(cell->r_comp_slowdown_ci, "an interval is not upside down");
    require_interval(cell->r_overhead_mean_ci, "an interval is not upside down");
    require_interval(cell->comm_null_ci, "an interval is not upside down");
    require_interval(cell->comp_null_ci, "an interval is not upside down");
    fuzz_require(cell->comm_null_blocks <= cell->blocks && cell->comp_null_blocks <= cell->blocks,
                 TARGET, "null blocks are some of the blocks");
}

/* The reading is the band of r_overhead (never one that contradicts it),
 * one launch never confident. */
static void require_reading(const cell_metrics *cell)
{
    verdict_class band = VERDICT_INVALID;
    bool banded = cell->valid && verdict_band_of(cell->r_overhead, &band);
    fuzz_require(cell->overlap == (banded ? band : VERDICT_INVALID), TARGET,
                 "overlap is the band of r_overhead, invalid without one");
    fuzz_require(cell->class == (banded ? VERDICT_ONE_LAUNCH : VERDICT_INVALID), TARGET,
                 "one launch's class is one_launch or invalid");
    double share = cell->ended_block_share;
    metric_bounds ci = cell->ended_block_share_ci;
    fuzz_require(isnan(share) || (0 <= ci.lo && ci.lo <= share && share <= ci.hi && ci.hi <= 1),
                 TARGET, "ended_block_share lies in its interval, inside [0, 1]");
}

static void require_metrics(const run_inputs *in, double late_tolerance)
{
    cell_rules rules = analysis_default_rules();
    rules.late_tolerance = late_tolerance;
    rules.uncertainty.resamples = 20;
    cell_table cells;
    analysis_error err = {""};
    int status = analysis_compute_cells(in, &rules, &cells, &err);
    if (status != ANALYSIS_OK) {
        fuzz_require(err.text[0] != '\0', TARGET, "a failure of the metrics has a message");
        return;
    }
    bool grid = in->have_calib_comm;
    fuzz_require(grid ? cells.count >= in->raw.cell_count : cells.count == in->raw.cell_count,
                 TARGET, "one metrics row per cell (and per grid point)");
    for (size_t c = 0; c < cells.count; c++) {
        const cell_metrics *cell = &cells.cells[c];
        fuzz_require(cell->attempts > 0 || !cell->valid, TARGET, "a cell without rows is invalid");
        if (cell->invalid_reasons & (INVALID_UNREACHABLE | INVALID_NOT_MEASURED))
            fuzz_require(grid && cell->attempts == 0 && cell->overlap == VERDICT_INVALID, TARGET,
                         "only grid points without rows are unreachable or not measured");
        require_reading(cell);
        fuzz_require(cell->late_attempts >= 0 && cell->late_attempts <= cell->attempts, TARGET,
                     "late attempts are some of the attempts");
        fuzz_require(cell->valid == (cell->invalid_reasons == 0), TARGET,
                     "a cell is valid when it has no reason not to be");
        const double durations[] = {
            cell->t_comm_ref,       cell->t_comp_ref,       cell->t_measured,      cell->t_call,
            cell->t_comp,           cell->t_wait,           cell->start_skew_s,    cell->t_mpi,
            cell->t_comm_ref_local, cell->t_comp_ref_local, cell->t_measured_local};
        for (size_t i = 0; i < sizeof durations / sizeof *durations; i++)
            require_duration(durations[i]);
        require_intervals(cell);
    }
    long blocks = 0;
    for (size_t c = 0; c < cells.count; c++)
        blocks += cells.cells[c].blocks;
    fuzz_require(cells.block_count == (size_t)blocks, TARGET, "every usable block has its values");
    for (size_t b = 0; b < cells.block_count; b++)
        fuzz_require(cells.blocks[b].cell_index < cells.count, TARGET,
                     "a block's values point at a cell");
    for (size_t r = 0; r < cells.rank_count; r++) {
        const rank_metrics *rank = &cells.ranks[r];
        fuzz_require(rank->cell_index < cells.count, TARGET, "a rank row points at a cell");
        const double durations[] = {rank->t_comm_ref, rank->t_comp_ref, rank->t_measured,
                                    rank->t_call,     rank->t_comp,     rank->t_wait};
        for (size_t i = 0; i < sizeof durations / sizeof *durations; i++)
            require_duration(durations[i]);
    }
    analysis_cell_table_free(&cells);
}

/* Calibration rows at the cells' targets, a third of them not converged,
 * and the window barrier's precision in meta.json; false when out of memory. */
static bool with_calibrations(run_inputs *in, uint8_t choice)
{
    size_t n = in->raw.cell_count;
    in->calib_comm = calloc(n, sizeof *in->calib_comm);
    in->calib_comp = calloc(n, sizeof *in->calib_comp);
    if (!in->calib_comm || !in->calib_comp)
        return false;
    for (size_t i = 0; i < n; i++) {
        const raw_cell *cell = &in->raw.cells[i];
        bool converged = (i + choice) % 3 != 0;
        in->calib_comm[i] = (calib_comm_row){.comm_target_s = cell->comm_target_s,
                                             .bytes = converged ? cell->bytes : 0,
                                             .t_comm_s = cell->comm_target_s,
                                             .converged = converged};
        memcpy(in->calib_comm[i].collective, cell->collective, sizeof cell->collective);
        in->calib_comp[i] = (calib_comp_row){.comp_target_s = cell->comp_target_s,
                                             .matrix_n = cell->matrix_n,
                                             .t_comp_s = cell->comp_target_s,
                                             .converged = true};
    }
    in->calib_comm_count = in->calib_comp_count = n;
    in->have_calib_comm = in->have_calib_comp = true;
    in->meta.barrier_precision_ns = (double)choice * 1000.0;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_inputs in = {0};
    analysis_error err = {""};
    int status = analysis_parse_raw((const char *)data, size, "raw.csv", &in.raw, &err);
    if (status != ANALYSIS_OK) {
        fuzz_require(status == ANALYSIS_ERR_INPUT || status == ANALYSIS_ERR_SYSTEM, TARGET,
                     "a failure is bad input or a system error");
        fuzz_require(err.text[0] != '\0', TARGET, "a failure has a message");
        fuzz_require(in.raw.cells == NULL && in.raw.rows == NULL && in.raw.cell_count == 0 &&
                         in.raw.row_count == 0,
                     TARGET, "a failure leaves the table empty");
        return 0;
    }
    require_sorted_table(&in.raw);
    in.meta.barrier_precision_ns = NAN;
    require_metrics(&in, NAN);
    if (with_calibrations(&in, data[size - 1]))
        require_metrics(&in, (double)(data[size - 1] % 8) * 0.01);
    free(in.calib_comm);
    free(in.calib_comp);
    analysis_raw_table_free(&in.raw);
    return 0;
}
