/* Adaptive repetitions: the stopping rule and what it reads (stopping.h).
 * The interval is the analysis's, computed by the analysis library from the
 * same rows raw.csv will hold, so the driver stops on the very number
 * nbc-analyze later reports (up to the clock model, which the driver
 * extrapolates and the end of the run interpolates). */
#include "bench_nbc/measure/stopping.h"

#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>

static const char *const reason_names[NBC_STOP_COUNT] = {
    [NBC_STOP_CONTINUE] = "continue",   [NBC_STOP_FIXED] = "fixed",
    [NBC_STOP_PRECISION] = "precision", [NBC_STOP_MAX] = "max",
    [NBC_STOP_BUDGET] = "budget",       [NBC_STOP_LATE] = "late",
};

const char *nbc_stop_reason_name(nbc_stop_reason reason)
{
    return reason >= 0 && reason < NBC_STOP_COUNT ? reason_names[reason] : "unknown";
}

/* One Williams cycle: the sweep runs the 6 orders of the 3 kinds once each
 * every 6 blocks (sweep.c). */
enum { WILLIAMS_CYCLE_BLOCKS = 6 };

int nbc_stop_is_look(const nbc_stop_rule *rule, int blocks)
{
    int every = rule->look_blocks > 0 ? rule->look_blocks : 1;
    return blocks >= rule->min_blocks && (blocks - rule->min_blocks) % every == 0;
}

nbc_stop_rule nbc_stop_rule_of(int min_blocks, int max_blocks, double half_width,
                               double cell_budget_s)
{
    return (nbc_stop_rule){.min_blocks = min_blocks,
                           .max_blocks = max_blocks,
                           .half_width = half_width,
                           .cell_budget_s = cell_budget_s,
                           .look_blocks = WILLIAMS_CYCLE_BLOCKS};
}

nbc_stop_reason nbc_stop_decide(const nbc_stop_rule *rule, const nbc_stop_state *state)
{
    if (state->blocks < rule->min_blocks)
        return NBC_STOP_CONTINUE;
    if (rule->half_width <= 0)
        return NBC_STOP_FIXED;
    if (nbc_stop_is_look(rule, state->blocks) &&
        state->ci_hi - state->ci_lo <= 2 * rule->half_width) /* false for NAN */
        return NBC_STOP_PRECISION;
    if (state->blocks >= rule->max_blocks)
        return NBC_STOP_MAX;
    if (rule->cell_budget_s > 0 && state->elapsed_s > rule->cell_budget_s)
        return NBC_STOP_BUDGET;
    return NBC_STOP_CONTINUE;
}

int nbc_stop_estimate(const char *raw_csv, size_t len, long ranks, nbc_stop_state *state, char *err,
                      size_t errlen)
{
    state->ci_lo = state->ci_hi = NAN;
    run_inputs in = {.meta = {.ranks = ranks, .late_tolerance = NAN, .barrier_precision_ns = NAN}};
    analysis_error aerr = {{0}};
    cell_rules rules = analysis_default_rules();
    cell_table cells = {0};
    int status = analysis_parse_raw(raw_csv, len, "raw.csv (this cell)", &in.raw, &aerr);
    if (status == ANALYSIS_OK)
        status = analysis_compute_cells(&in, &rules, &cells, &aerr);
    if (status == ANALYSIS_OK && cells.count == 1) {
        state->ci_lo = cells.cells[0].r_overhead_ci.lo;
        state->ci_hi = cells.cells[0].r_overhead_ci.hi;
    } else if (status == ANALYSIS_OK) {
        snprintf(aerr.text, sizeof aerr.text, "%zu cells in the rows of one cell", cells.count);
        status = ANALYSIS_ERR_INPUT;
    }
    analysis_cell_table_free(&cells);
    analysis_raw_table_free(&in.raw);
    if (status != ANALYSIS_OK) {
        snprintf(err, errlen, "the interval of r_overhead: %s", aerr.text);
        return -1;
    }
    return 0;
}
