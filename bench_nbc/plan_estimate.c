/* The cost of a configuration before it runs (plan_estimate.h). */
#include "bench_nbc/plan_estimate.h"

#include <math.h>

/* Kinds of a block: comm_ref, comp_ref and overlap; a block holding the
 * null controls repeats the three (run.null_share of the blocks). */
enum { KINDS = 3 };
/* Besides its step, every attempt waits out the window barrier's margin
 * (clocksync.barrier_margin_us) and its bookkeeping, which this bounds from
 * above (docs/measurements.md, "The plan estimate's constants"). */
static const double attempt_overhead_s = 0.3e-3;
/* Where a busy library thread shares the core (the deployment plan's
 * barrier_sleep_min_s), the barrier's margin is at least that sleep and the
 * barrier's spin, and the wake-up after it may wait out the busy thread's
 * scheduler slice, which this takes at the top of what was measured. The
 * spin follows the wake-up latency each rank measures at start
 * (clocksync_barrier_wait_plan: at least 20 us, twice the p99); before the
 * run this assumes a p99 of 100 us, small next to the sleep either way. */
static const double barrier_spin_s = 200e-6;
static const double busy_slice_s = 5e-3;
/* A late attempt redoes its block (run.late_tolerance): the most assumes a
 * third more attempts than blocks x kinds, above the redos measured. */
static const double redo_factor = 4.0 / 3.0;
/* A look of the stopping rule (the analysis's bootstrap of the cell):
 * 5-30 ms, more for more blocks. */
static const double look_s = 0.03;
/* A calibration search tries at least one size and at most
 * calibration.max_iterations, each run runs_per_point times at about its
 * target (up to 4 x runs_per_point for an imprecise one). */
static const int imprecise_runs_factor = 4;

/* One block of a cell: the three kinds, the overlap at least the longer
 * reference (perfect overlap) and at most their sum (serialized). */
static void block_s(const nbc_config *cfg, double barrier_sleep_min_s, double comm_s, double comp_s,
                    double out[2])
{
    double margin_s = cfg->clocksync.barrier_margin_us * 1e-6;
    if (barrier_sleep_min_s > 0)
        margin_s = fmax(margin_s, barrier_sleep_min_s + barrier_spin_s);
    double attempt_s[2] = {margin_s + attempt_overhead_s,
                           margin_s + attempt_overhead_s +
                               (barrier_sleep_min_s > 0) * busy_slice_s};
    double per_block = 1 + cfg->run.null_share; /* null controls in that share */
    out[0] = per_block * (comm_s + comp_s + fmax(comm_s, comp_s) + KINDS * attempt_s[0]);
    out[1] = redo_factor * per_block * (comm_s + comp_s + (comm_s + comp_s) + KINDS * attempt_s[1]);
}

/* The blocks a cell runs, warm-up included: fixed, or from run.repetitions
 * to run.max_repetitions (fewer when the cell budget ends it first). */
static void cell_s(const nbc_config *cfg, double barrier_sleep_min_s, double comm_s, double comp_s,
                   double out[2])
{
    double block[2];
    block_s(cfg, barrier_sleep_min_s, comm_s, comp_s, block);
    int lo = cfg->run.repetitions, hi = cfg->run.half_width > 0 ? cfg->run.max_repetitions : lo;
    out[0] = (lo + 1) * block[0];
    out[1] = (hi + 1) * block[1];
    if (cfg->run.half_width > 0) {
        /* one look a Williams cycle (6 blocks) from run.repetitions on */
        out[0] += look_s;
        out[1] += look_s * (1 + (hi - lo) / 6);
        /* the budget stops a cell at the end of the block that passed it */
        double budget_s = cfg->run.cell_budget_s;
        if (budget_s > 0 && out[1] > budget_s + block[1])
            out[1] = fmax(out[0], budget_s + block[1]);
    }
}

/* With grid.comm_sizes the collective's times are unknown before it runs:
 * the range takes them from S over the fastest and the slowest bandwidth
 * this estimate assumes of one collective step (a shared-memory copy to a
 * slow network). */
static const double fastest_bytes_per_s = 20e9, slowest_bytes_per_s = 0.5e9;

/* The communication axis's step time at point i: least (k = 0), most (1). */
static double comm_point_s(const nbc_config *cfg, size_t i, int k)
{
    if (cfg->grid.comm_size_count == 0)
        return cfg->grid.comm_times_s[i];
    return (double)cfg->grid.comm_sizes_bytes[i] /
           (k == 0 ? fastest_bytes_per_s : slowest_bytes_per_s);
}

static double comm_sum_s(const nbc_config *cfg, int k)
{
    double total = 0;
    for (size_t i = 0; i < nbc_comm_axis_count(cfg); i++)
        total += comm_point_s(cfg, i, k);
    return total;
}

static double sum(const double *values, size_t n)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += values[i];
    return total;
}

nbc_plan_estimate nbc_plan_estimate_of(const nbc_config *cfg, double barrier_sleep_min_s)
{
    nbc_plan_estimate e = {
        .cells_per_run = nbc_comm_axis_count(cfg) * cfg->grid.comp_count,
        .runs = (cfg->run.collectives_count ? cfg->run.collectives_count : 1) *
                (cfg->run.ranks_count ? cfg->run.ranks_count : 1),
        .blocks_lo = cfg->run.repetitions,
        .blocks_hi = cfg->run.half_width > 0 ? cfg->run.max_repetitions : cfg->run.repetitions,
    };
    double sweep[2] = {0, 0};
    for (size_t i = 0; i < nbc_comm_axis_count(cfg); i++)
        for (size_t j = 0; j < cfg->grid.comp_count; j++)
            for (int k = 0; k < 2; k++) {
                double cell[2];
                cell_s(cfg, barrier_sleep_min_s, comm_point_s(cfg, i, k), cfg->grid.comp_times_s[j],
                       cell);
                sweep[k] += cell[k];
            }
    double comp = sum(cfg->grid.comp_times_s, cfg->grid.comp_count);
    int runs = cfg->calibration.runs_per_point;
    /* the sizes: the computation once for the job (checked once; at most
     * NBC_COMP_CHECK_ROUNDS more calibrations and checks), the messages once
     * a run; a given message size is measured, not searched: a pilot and
     * the measurement kept, one size each */
    bool given = cfg->grid.comm_size_count > 0;
    int comm_points = given ? 2 : cfg->calibration.max_iterations;
    double sizes[2];
    for (int k = 0; k < 2; k++) {
        double comm = comm_sum_s(cfg, k);
        double least = given ? comm_points * comm : comm;
        double most = imprecise_runs_factor * comm_points * comm;
        sizes[k] = runs * (k == 0 ? 2 * comp + (double)e.runs * least
                                  : imprecise_runs_factor * (NBC_COMP_CHECK_ROUNDS + 1) *
                                            (cfg->calibration.max_iterations + 1) * comp +
                                        (double)e.runs * most);
    }
    /* the passive step (eq. 2): a warm-up round and the repetitions (at
     * least 5), one step of every size a round, before and after the sweep */
    int rounds = (cfg->run.repetitions < 5 ? 5 : cfg->run.repetitions) + 1;
    double passive = 2 * rounds * comp;
    /* the clock: two calibrations drift_gap_s apart at the start, one at the end */
    double clock = 2 * cfg->clocksync.drift_gap_s;
    for (int k = 0; k < 2; k++) {
        e.sweep_s[k] = sweep[k] * (double)e.runs;
        e.calibration_s[k] = sizes[k] + (double)e.runs * passive;
        e.job_s[k] = e.sweep_s[k] + e.calibration_s[k] + clock;
    }
    return e;
}
