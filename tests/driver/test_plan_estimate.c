/* bench_nbc --plan's estimate (bench_nbc/plan_estimate.c): the cells, the
 * blocks and the durations follow from the targets and the repetition
 * settings as plan_estimate.h says. */
#include "config/config.h"
#include "bench_nbc/plan_estimate.h"

// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
// clang-format on
#include <stdio.h>

static void configure(nbc_config *cfg, const char *const *sets, size_t count)
{
    char err[1024];
    assert_int_equal(nbc_config_init(cfg, err, sizeof err), 0);
    for (size_t i = 0; i < count; i++) {
        if (nbc_config_set(cfg, sets[i], err, sizeof err) != 0)
            fail_msg("%s: %s", sets[i], err);
    }
}

/* A fixed number of blocks: the least sweep is every cell's blocks with a
 * perfect overlap, the most with a serialized one. */
static void test_fixed_blocks(void **state)
{
    (void)state;
    static const char *const sets[] = {
        "grid.comm_times=1ms,2ms,2", "grid.comp_times=4ms", "run.repetitions=6",
        "run.half_width=0",          "run.null_share=0",    "clocksync.barrier_margin_us=0"};
    nbc_config cfg;
    configure(&cfg, sets, sizeof sets / sizeof *sets);
    nbc_plan_estimate e = nbc_plan_estimate_of(&cfg, 0);
    assert_int_equal(e.cells_per_run, 2);
    assert_int_equal(e.runs, 1);
    assert_int_equal(e.blocks_lo, 6);
    assert_int_equal(e.blocks_hi, 6);
    /* 7 blocks (one warm-up) of comm + comp + overlap, each kind with 0.3 ms
     * of bookkeeping: (1 + 4 + 4 + 0.9) + (2 + 4 + 4 + 0.9) ms at least, the
     * overlap serialized and a third of the attempts redone at most */
    double lo = 7 * (9.9e-3 + 10.9e-3), hi = 4.0 / 3 * 7 * (10.9e-3 + 12.9e-3);
    assert_float_equal(e.sweep_s[0], lo, 1e-9);
    assert_float_equal(e.sweep_s[1], hi, 1e-9);
    assert_true(e.job_s[0] > e.sweep_s[0] && e.job_s[1] >= e.job_s[0]);
    /* The computation's 4 ms: its calibration and its check at least (runs
     * per point each), calibrated again NBC_COMP_CHECK_ROUNDS times at most. */
    double per_point = cfg.calibration.runs_per_point * 4e-3;
    assert_true(e.calibration_s[0] >= 2 * per_point);
    assert_true(e.calibration_s[1] >=
                (NBC_COMP_CHECK_ROUNDS + 1) * (cfg.calibration.max_iterations + 1) * per_point);
    nbc_config_free(&cfg);
}

/* Adaptive repetitions: up to run.max_repetitions, the cell budget caps a
 * cell; several collectives are several runs. */
static void test_adaptive_and_runs(void **state)
{
    (void)state;
    static const char *const sets[] = {"grid.comm_times=64ms",
                                       "grid.comp_times=64ms",
                                       "run.repetitions=12",
                                       "run.max_repetitions=40",
                                       "run.half_width=0.1",
                                       "run.cell_budget_s=3s",
                                       "run.collectives=ibcast,iallreduce"};
    nbc_config cfg;
    configure(&cfg, sets, sizeof sets / sizeof *sets);
    nbc_plan_estimate e = nbc_plan_estimate_of(&cfg, 0);
    assert_int_equal(e.runs, 2);
    assert_int_equal(e.blocks_hi, 40);
    /* 41 serialized blocks of 64 ms kinds would be about 26 s a cell: the
     * budget ends it after 3 s and the block that passed it */
    assert_true(e.sweep_s[1] / 2 < 3.0 + 2.0);
    assert_true(e.sweep_s[0] / 2 > 13 * 3 * 64e-3);
    nbc_config_free(&cfg);
}

/* Where the deployment's window barrier sleeps (a busy library thread on
 * the compute core), every attempt lasts at least that sleep: the least
 * sweep grows by blocks x kinds x the sleep beyond the margin. */
static void test_barrier_sleep(void **state)
{
    (void)state;
    static const char *const sets[] = {"grid.comm_times=1ms", "grid.comp_times=1ms",
                                       "run.repetitions=6",   "run.half_width=0",
                                       "run.null_share=0",    "clocksync.barrier_margin_us=200"};
    nbc_config cfg;
    configure(&cfg, sets, sizeof sets / sizeof *sets);
    nbc_plan_estimate quiet = nbc_plan_estimate_of(&cfg, 0),
                      busy = nbc_plan_estimate_of(&cfg, 8e-3);
    /* 7 blocks x 3 kinds, each waiting 8 ms + 200 us of spin (the spin
     * after a sleep for a 100 us wake-up p99) instead of 200 us */
    assert_float_equal(busy.sweep_s[0] - quiet.sweep_s[0], 7 * 3 * (8.2e-3 - 0.2e-3), 1e-9);
    assert_true(busy.sweep_s[1] > busy.sweep_s[0] && busy.job_s[1] > quiet.job_s[1]);
    nbc_config_free(&cfg);
}

/* Given message sizes: the range takes their times from S over the
 * fastest and the slowest bandwidth assumed, so it widens with S. */
static void test_comm_sizes(void **state)
{
    (void)state;
    static const char *const sets[] = {"grid.comm_times=", "grid.comm_sizes=1MiB,16MiB",
                                       "grid.comp_times=1ms,2ms,2", "run.half_width=0"};
    nbc_config cfg;
    configure(&cfg, sets, sizeof sets / sizeof *sets);
    nbc_plan_estimate e = nbc_plan_estimate_of(&cfg, 0);
    assert_int_equal(e.cells_per_run, 4);
    assert_true(e.sweep_s[0] > 0 && e.sweep_s[1] > e.sweep_s[0]);
    /* 16 MiB at the slowest 0.5 GB/s is 34 ms a step, serialized in the
     * overlap: the most is above 13 blocks x 2 x 34 ms for that size alone */
    assert_true(e.sweep_s[1] > 13 * 2 * 16777216 / 0.5e9);
    nbc_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_blocks),
        cmocka_unit_test(test_adaptive_and_runs),
        cmocka_unit_test(test_barrier_sleep),
        cmocka_unit_test(test_comm_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
