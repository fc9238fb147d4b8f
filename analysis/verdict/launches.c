/* One launch's estimates of every cell (verdict.h, verdict_launch_grid):
 * its raw records analyzed once, each cell's blocks read by
 * verdict_launch_of. The study's verdict.csv and nbc-compare both combine
 * these, so a configuration's reading of a cell is one number wherever it
 * is printed. */
#include "analysis/verdict/verdict.h"
#include "analysis/inputs/inputs.h"

#include <stdlib.h>

void verdict_launch_grid_free(verdict_launch_grid *g)
{
    free(g->cells);
    *g = (verdict_launch_grid){0};
}

int verdict_launch_grid_load(const char *run_dir, verdict_launch_grid *out, analysis_error *err)
{
    *out = (verdict_launch_grid){0};
    run_inputs in;
    cell_table cells;
    int status = analysis_load_run(run_dir, &in, err);
    if (status != ANALYSIS_OK)
        return status;
    cell_rules rules = analysis_default_rules();
    /* The launch estimates are means of the blocks, not the per-run
     * bootstrap: the fewest resamples the library takes keep it quick. */
    rules.uncertainty.resamples = 200;
    status = analysis_compute_cells(&in, &rules, &cells, err);
    if (status != ANALYSIS_OK) {
        analysis_run_inputs_free(&in);
        return status;
    }
    out->cells = calloc(cells.count ? cells.count : 1, sizeof *out->cells);
    if (!out->cells)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (size_t i = 0; out->cells && i < cells.count; i++) {
        const cell_metrics *c = &cells.cells[i];
        /* blocks of one cell are consecutive (metrics/cells.c appends them cell by cell) */
        size_t first = 0, n = 0;
        for (size_t b = 0; b < cells.block_count; b++)
            if (cells.blocks[b].cell_index == i && n++ == 0)
                first = b;
        verdict_launch l =
            verdict_launch_of(n ? &cells.blocks[first] : NULL, n, c->bytes, c->matrix_n);
        l.valid = l.valid && c->valid;
        out->cells[i] = (verdict_launch_cell){.cell = c->cell,
                                              .comm_target_s = c->comm_target_s,
                                              .comp_target_s = c->comp_target_s,
                                              .est = l};
    }
    out->count = out->cells ? cells.count : 0;
    analysis_cell_table_free(&cells);
    analysis_run_inputs_free(&in);
    return status;
}

verdict_launch verdict_launch_grid_cell(const verdict_launch_grid *g, long cell)
{
    for (size_t i = 0; i < g->count; i++)
        if (g->cells[i].cell == cell)
            return g->cells[i].est;
    return (verdict_launch){.valid = false};
}
