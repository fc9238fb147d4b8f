/* Fuzz target: the analysis' raw-record reader (analysis_parse_raw, the
 * parser of raw.csv) and the metrics computed from what it accepts
 * (analysis_compute_cells, no calibration files, ranks taken from the rows).
 * Promises checked (analysis.h): on failure a message and an empty table;
 * on success cells sorted by number, rows sorted by (cell, kind, rep, rank)
 * with no two rows sharing those keys, every row pointing at a cell, the
 * times of a row not decreasing; one metrics row per cell, every rank row
 * pointing at a cell, and no negative duration (spans run from a first start
 * to a last end, and a row's times do not decrease), whatever the times. */
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
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->rep != b->rep)
        return a->rep < b->rep ? -1 : 1;
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
        for (int t = 1; t < 4; t++)
            fuzz_require(row->t_ns[t - 1] <= row->t_ns[t], TARGET,
                         "the times of a row do not decrease");
        if (r > 0)
            fuzz_require(compare_row_keys(&table->rows[r - 1], row) < 0, TARGET,
                         "rows sorted by (cell, kind, rep, rank), no duplicates");
    }
}

static void require_metrics(const run_inputs *in)
{
    diagnosis_thresholds thresholds = analysis_default_thresholds();
    cell_table cells;
    analysis_error err = {""};
    int status = analysis_compute_cells(in, &thresholds, &cells, &err);
    if (status != ANALYSIS_OK) {
        fuzz_require(err.text[0] != '\0', TARGET, "a failure of the metrics has a message");
        return;
    }
    fuzz_require(cells.count == in->raw.cell_count, TARGET, "one metrics row per cell");
    for (size_t c = 0; c < cells.count; c++) {
        const cell_metrics *cell = &cells.cells[c];
        fuzz_require((unsigned)cell->diagnosis < DIAG_COUNT, TARGET,
                     "a cell has a known diagnosis");
        const double durations[] = {cell->t_comm_ref,  cell->t_comp_ref, cell->t_measured,
                                    cell->t_call,      cell->t_comp,     cell->t_wait,
                                    cell->start_skew_s};
        for (size_t i = 0; i < sizeof durations / sizeof *durations; i++)
            require_duration(durations[i]);
    }
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
    require_metrics(&in);
    analysis_raw_table_free(&in.raw);
    return 0;
}
