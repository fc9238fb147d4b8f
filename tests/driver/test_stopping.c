/* Unit tests of adaptive repetitions' stopping rule (bench_nbc/stopping.c):
 * the rule on given intervals (least blocks, fixed count, precision, cap,
 * budget, an interval not known yet), the proof that only the interval's
 * width decides and never where it lies, and the rule fed by the analysis's
 * own estimator on simulated cells whose truth and noise are known: the same
 * noise around r_overhead 0 or 1 gives the same width and the same stop;
 * more noise needs more blocks; a loose target stops at the least blocks, a
 * tight one runs more, an unreachable one stops at the cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_nbc/stopping.h"

static const nbc_stop_rule adaptive = {
    .min_blocks = 10, .max_blocks = 40, .half_width = 0.05, .cell_budget_s = 30};

static nbc_stop_state state_of(int blocks, double elapsed_s, double centre, double half_width)
{
    return (nbc_stop_state){.blocks = blocks,
                            .elapsed_s = elapsed_s,
                            .ci_lo = centre - half_width,
                            .ci_hi = centre + half_width};
}

static void test_least_blocks_always_run(void **unused)
{
    (void)unused;
    /* narrow, over budget, at the cap: still fewer than the least blocks */
    nbc_stop_rule rule = adaptive;
    rule.max_blocks = 5;
    for (int blocks = 0; blocks < rule.min_blocks; blocks++) {
        nbc_stop_state s = state_of(blocks, 1e6, 0.5, 0);
        assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_CONTINUE);
    }
}

static void test_fixed_count(void **unused)
{
    (void)unused;
    nbc_stop_rule rule = adaptive;
    rule.half_width = 0;
    nbc_stop_state wide = state_of(10, 0, 0.5, 10);
    assert_int_equal(nbc_stop_decide(&rule, &wide), NBC_STOP_FIXED);
    wide.ci_lo = wide.ci_hi = NAN;
    assert_int_equal(nbc_stop_decide(&rule, &wide), NBC_STOP_FIXED);
    wide.blocks = 9;
    assert_int_equal(nbc_stop_decide(&rule, &wide), NBC_STOP_CONTINUE);
    assert_string_equal(nbc_stop_reason_name(NBC_STOP_FIXED), "fixed");
}

static void test_precision_max_budget(void **unused)
{
    (void)unused;
    nbc_stop_state s = state_of(10, 1, 0.2, 0.05);
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_PRECISION);
    s = state_of(10, 1, 0.2, 0.0501);
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_CONTINUE);
    s = state_of(40, 1, 0.2, 0.0501);
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_MAX);
    /* narrow enough at the cap: precision, the reason that says more */
    s = state_of(40, 1, 0.2, 0.04);
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_PRECISION);
    s = state_of(20, 30.5, 0.2, 0.2);
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_BUDGET);
    s = state_of(20, 29.5, 0.2, 0.2);
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_CONTINUE);
    nbc_stop_rule no_budget = adaptive;
    no_budget.cell_budget_s = 0;
    s = state_of(20, 1e9, 0.2, 0.2);
    assert_int_equal(nbc_stop_decide(&no_budget, &s), NBC_STOP_CONTINUE);
    /* no interval yet (too few usable blocks): not narrow */
    s = (nbc_stop_state){.blocks = 12, .ci_lo = NAN, .ci_hi = NAN};
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_CONTINUE);
    s.blocks = 40;
    assert_int_equal(nbc_stop_decide(&adaptive, &s), NBC_STOP_MAX);
    const char *names[NBC_STOP_COUNT] = {"continue", "fixed", "precision", "max", "budget", "late"};
    for (int r = 0; r < NBC_STOP_COUNT; r++)
        assert_string_equal(nbc_stop_reason_name((nbc_stop_reason)r), names[r]);
}

/* The decision is the same wherever the interval lies, on either side of
 * every diagnosis threshold (-0.1, 0.3, 1 for r_overhead) and across them:
 * the width alone matters. */
static void test_only_the_width_decides(void **unused)
{
    (void)unused;
    const double half_widths[] = {
        0,   0.01, 0.049, 0.051,
        0.1, 0.3,  2}; /* not at 0.05 itself: c + h - (c - h) rounds either side of 2h */
    const int blocks[] = {9, 10, 11, 25, 40};
    const double elapsed[] = {0, 29, 31};
    int decisions[NBC_STOP_COUNT] = {0};
    for (size_t h = 0; h < sizeof half_widths / sizeof *half_widths; h++)
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
            for (size_t e = 0; e < sizeof elapsed / sizeof *elapsed; e++) {
                nbc_stop_state at_zero = state_of(blocks[b], elapsed[e], 0, half_widths[h]);
                nbc_stop_reason expected = nbc_stop_decide(&adaptive, &at_zero);
                decisions[expected]++;
                for (double centre = -0.5; centre <= 1.5; centre += 0.025) {
                    nbc_stop_state s = state_of(blocks[b], elapsed[e], centre, half_widths[h]);
                    assert_int_equal(nbc_stop_decide(&adaptive, &s), expected);
                }
            }
    /* the grid exercised every reason the rule gives */
    assert_true(decisions[NBC_STOP_CONTINUE] > 0 && decisions[NBC_STOP_PRECISION] > 0 &&
                decisions[NBC_STOP_MAX] > 0 && decisions[NBC_STOP_BUDGET] > 0);
}

/* ---- Simulated cells through the analysis's estimator ---------------------------- */

/* splitmix64, then Box-Muller: reproducible normal draws. */
static double uniform01(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *state)
{
    return sqrt(-2 * log(uniform01(state))) * cos(2 * M_PI * uniform01(state));
}

/* A cell of 2 ranks, 4 ms communication x 8 ms computation, `blocks`
 * measured blocks after a warm-up: references with ref_noise relative
 * noise, the overlap span longer + r_true x shorter plus noise of `noise` x
 * shorter; the draws depend on the seed only, not on r_true. raw.csv's
 * text. */
static char *simulated_cell(int blocks, double r_true, double noise, double ref_noise,
                            uint64_t seed, size_t *len)
{
    const double comm_ns = 4e6, comp_ns = 8e6;
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    assert_non_null(f);
    fprintf(f, "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,"
               "attempt,seq,wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,exit_late_ns,"
               "tolerance_ns,late\n");
    const char *kinds[3] = {"comm_ref", "comp_ref", "overlap"};
    long long base = 1000000, seq = 0;
    for (int b = 0; b <= blocks; b++) {
        double comm = comm_ns * (1 + ref_noise * normal(&seed));
        double comp = comp_ns * (1 + ref_noise * normal(&seed));
        double over = comp_ns + (r_true + noise * normal(&seed)) * comm_ns;
        for (int k = 0; k < 3; k++, seq++) {
            long long t[4];
            if (k == 0)
                t[0] = base, t[1] = t[2] = base + 1000, t[3] = base + (long long)comm;
            else if (k == 1)
                t[0] = t[1] = base, t[2] = t[3] = base + (long long)comp;
            else
                t[0] = base, t[1] = base + 1000, t[2] = base + (long long)fmin(comp, over),
                t[3] = base + (long long)over;
            for (int rank = 0; rank < 2; rank++)
                fprintf(f,
                        "3,ibcast,0.004,0.008,1000,100,%d,%s,%s,0,%lld,1700000000.000000,%d,%lld,"
                        "%lld,%lld,%lld,%lld,0,80000,0\n",
                        b, b ? "measure" : "warmup", kinds[k], seq, rank, t[0], t[1], t[2], t[3],
                        base);
            base += 20000000;
        }
    }
    assert_int_equal(fclose(f), 0);
    return text;
}

static double half_width_of(int blocks, double r_true, double noise, double ref_noise,
                            uint64_t seed)
{
    size_t len;
    char *text = simulated_cell(blocks, r_true, noise, ref_noise, seed, &len), err[1024];
    double lo, hi;
    int status = nbc_stop_interval(text, len, 2, &lo, &hi, err, sizeof err);
    if (status != 0)
        fail_msg("%s", err);
    free(text);
    return (hi - lo) / 2;
}

/* Blocks one at a time, as the sweep does: how many the cell runs. */
static int blocks_run(const nbc_stop_rule *rule, double r_true, double noise, double ref_noise,
                      uint64_t seed, nbc_stop_reason *reason)
{
    for (int blocks = 1;; blocks++) {
        nbc_stop_state s = {.blocks = blocks, .ci_lo = NAN, .ci_hi = NAN};
        if (blocks >= rule->min_blocks) {
            size_t len;
            char *text = simulated_cell(blocks, r_true, noise, ref_noise, seed, &len), err[1024];
            assert_int_equal(nbc_stop_interval(text, len, 2, &s.ci_lo, &s.ci_hi, err, sizeof err),
                             0);
            free(text);
        }
        *reason = nbc_stop_decide(rule, &s);
        if (*reason != NBC_STOP_CONTINUE)
            return blocks;
    }
}

static void test_estimator_value_free(void **unused)
{
    (void)unused;
    /* the same draws around 0 (perfect overlap) and 1 (serialized), exact
     * references (their noise would enter eq. 1 in proportion to r): the
     * interval moves, its width does not, nor the blocks run */
    for (uint64_t seed = 1; seed <= 5; seed++) {
        double at_zero = half_width_of(12, 0, 0.05, 0, seed);
        double at_one = half_width_of(12, 1, 0.05, 0, seed);
        assert_true(at_zero > 0);
        /* (up to the nanoseconds the times are rounded to: 1 ns / 4 ms) */
        assert_true(fabs(at_zero - at_one) <= 1e-6);
        nbc_stop_reason r0, r1;
        nbc_stop_rule rule = adaptive;
        rule.half_width = 0.03;
        assert_int_equal(blocks_run(&rule, 0, 0.05, 0, seed, &r0),
                         blocks_run(&rule, 1, 0.05, 0, seed, &r1));
        assert_int_equal(r0, r1);
    }
    /* an interval needs 2 usable blocks */
    size_t len;
    char *text = simulated_cell(1, 0, 0.05, 0.01, 1, &len), err[1024];
    double lo, hi;
    assert_int_equal(nbc_stop_interval(text, len, 2, &lo, &hi, err, sizeof err), 0);
    assert_true(isnan(lo) && isnan(hi));
    free(text);
    /* rows that are not raw.csv: an error, not a number */
    assert_int_not_equal(nbc_stop_interval("cell\n1\n", 7, 2, &lo, &hi, err, sizeof err), 0);
    assert_non_null(strstr(err, "r_overhead"));
}

static void test_loose_tight_unreachable(void **unused)
{
    (void)unused;
    nbc_stop_rule rule = {.min_blocks = 10, .max_blocks = 40, .cell_budget_s = 0};
    nbc_stop_reason reason;
    int sum_loose = 0, sum_tight = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        double at_min = half_width_of(10, 0.5, 0.1, 0.01, seed);
        rule.half_width = 2 * at_min; /* loose: met at once */
        int loose = blocks_run(&rule, 0.5, 0.1, 0.01, seed, &reason);
        assert_int_equal(loose, 10);
        assert_int_equal(reason, NBC_STOP_PRECISION);
        rule.half_width = 0.5 * at_min; /* tight: more blocks, within the cap */
        int tight = blocks_run(&rule, 0.5, 0.1, 0.01, seed, &reason);
        assert_true(tight > 10);
        sum_loose += loose;
        sum_tight += tight;
        rule.half_width = 1e-6; /* unreachable */
        assert_int_equal(blocks_run(&rule, 0.5, 0.1, 0.01, seed, &reason), 40);
        assert_int_equal(reason, NBC_STOP_MAX);
    }
    /* 4x less noise: the tight target of the noisier cell is met sooner */
    rule.half_width = 0.5 * half_width_of(10, 0.5, 0.1, 0.01, 1);
    int quiet = blocks_run(&rule, 0.5, 0.025, 0.01, 1, &reason);
    assert_int_equal(reason, NBC_STOP_PRECISION);
    assert_true(quiet < blocks_run(&rule, 0.5, 0.1, 0.01, 1, &reason));
    printf("figure: blocks run, loose target %.1f, tight target %.1f (mean of 4 cells)\n",
           sum_loose / 4.0, sum_tight / 4.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_least_blocks_always_run),
        cmocka_unit_test(test_fixed_count),
        cmocka_unit_test(test_precision_max_budget),
        cmocka_unit_test(test_only_the_width_decides),
        cmocka_unit_test(test_estimator_value_free),
        cmocka_unit_test(test_loose_tight_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
