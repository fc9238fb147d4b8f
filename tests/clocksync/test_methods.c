/* Unit tests of the clock synchronization methods on simulated ranks (no
 * MPI run): known offsets and drifts, latencies of min + an exponential
 * tail; the errors must stay within what the simulated jitter allows. Also
 * the composition of two lines, and the configuration key's choices against
 * the method table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "clocksync/clocksync.h"

/* ---- Composition of lines ------------------------------------------------ */

static double apply(const clocksync_map *m, double from_ns)
{
    return from_ns + m->offset_ns + m->slope * (from_ns - (double)m->at_ns);
}

static void composed_lines_equal_applying_both(void **state)
{
    (void)state;
    /* A rank 3 ms behind its parent and 30 ppm slow; the parent 2 s ahead
     * of rank 0 and 45 ppm fast (offsets as to - from: the parent's clock
     * reads 2 s more, so its offset to rank 0 is -2 s). */
    const int64_t uptime_ns = 360000LL * 1000000000LL;
    clocksync_map child = {.at_ns = uptime_ns, .offset_ns = 3e6, .slope = 30e-6};
    clocksync_map parent = {
        .at_ns = uptime_ns + 3000000 + 5000, .offset_ns = -2e9, .slope = -45e-6};
    clocksync_map both = clocksync_map_compose(&parent, &child);
    assert_true(both.at_ns == child.at_ns);
    for (double dx = -3600e9; dx <= 3600e9; dx += 600e9) {
        double x = (double)uptime_ns + dx;
        double expected = apply(&parent, apply(&child, x));
        /* Doubles at 4e14 ns resolve 0.06 ns; an hour of 45 ppm is 162 ms. */
        if (fabs(apply(&both, x) - expected) > 0.5)
            fail_msg("at %+.0f s: composed %.3f, both applied %.3f", dx * 1e-9, apply(&both, x),
                     expected);
        assert_true(fabs((double)llround(clocksync_map_offset_ns(&both, (int64_t)x)) -
                         (expected - x)) < 1.5);
    }
    /* The identity (rank 0's line) changes nothing, on either side. */
    clocksync_map identity = {0};
    clocksync_map left = clocksync_map_compose(&identity, &child);
    clocksync_map right = clocksync_map_compose(&child, &identity);
    assert_true(left.offset_ns == child.offset_ns && left.slope == child.slope);
    assert_true(fabs(apply(&right, (double)uptime_ns) - apply(&child, (double)uptime_ns)) < 0.5);
}

/* ---- The methods on simulated ranks -------------------------------------- */

/* Offsets up to +-1 ms and drifts up to +-20 ppm, spread over the ranks. */
enum { MAX_RANKS = 64 };
static double offsets_ns[MAX_RANKS], drifts_ppm[MAX_RANKS];
static const double max_drift_ppm = 20;

static int setup_clocks(void **state)
{
    (void)state;
    for (int r = 0; r < MAX_RANKS; r++) {
        offsets_ns[r] = 1e6 * sin(1.0 + r * 2.3);
        drifts_ppm[r] = max_drift_ppm * cos(0.5 + r * 1.7);
    }
    return 0;
}

static clocksync_sim_options sim_options(int ranks, const char *method, double tail_ns)
{
    clocksync_sim_options o;
    clocksync_sim_options_default(&o);
    o.ranks = ranks;
    o.method = clocksync_method_find(method);
    o.roundtrips = 400;
    o.latency_min_ns = 1500;
    o.latency_tail_ns = tail_ns;
    o.offset_ns = offsets_ns;
    o.drift_ppm = drifts_ppm;
    o.gap_s = 10;
    o.horizon_s = 60;
    assert_true(o.method >= 0);
    return o;
}

/* The bound of one calibration's error on a rank `hops` measurements from
 * rank 0. A round trip's offset is off by half the difference of its two
 * latencies, at most half its extra time over 2 x min. The fastest 5 % are
 * kept: with 400 round trips the chance that one has an extra time above
 * the 10 % quantile of the sum of two exponential tails (0.532 tail) is
 * below 1e-9, so each hop is off by at most 0.266 tail. A point's instant
 * may stand a round's duration from its offset's under drift (linear's
 * median), and the first calibration composes with a drift known only from
 * its two sweeps (off by up to two hop errors over their distance, at least
 * a round, applied over at most a round): 0.532 tail more per hop. 2 ns:
 * rounding of the clock readings. */
static double calibration_bound_ns(const clocksync_sim_options *o, int hops, bool first)
{
    double round_ns = o->roundtrips * 2 * (o->latency_min_ns + 4 * o->latency_tail_ns);
    return hops * 0.266 * o->latency_tail_ns * (first ? 3 : 1) + max_drift_ppm * 1e-6 * round_ns +
           2 * hops;
}

static void check_errors(const char *method, int ranks, double tail_ns)
{
    clocksync_sim_options o = sim_options(ranks, method, tail_ns);
    clocksync_sim_result res;
    assert_int_equal(clocksync_simulate(&o, &res), 0);
    double worst_sync = 0, worst_horizon = 0;
    for (int r = 1; r < ranks; r++) {
        double b0 = calibration_bound_ns(&o, res.hops[r], true);
        double b1 = calibration_bound_ns(&o, res.hops[r], false);
        /* Right after the second calibration: its point. Later: the drift
         * between the two points, each off by its bound, carried on. */
        double after_ns = o.horizon_s * 1e9 + res.sync_s * 1e9;
        double horizon_bound = b1 + (b0 + b1) * after_ns / (o.gap_s * 1e9);
        if (fabs(res.error_sync_ns[r]) > b1 || fabs(res.error_horizon_ns[r]) > horizon_bound)
            fail_msg("%s, %d ranks, tail %.0f ns: rank %d (%d hops) off by %.1f ns at sync "
                     "(bound %.1f), %.1f ns %.0f s later (bound %.1f)",
                     method, ranks, tail_ns, r, res.hops[r], res.error_sync_ns[r], b1,
                     res.error_horizon_ns[r], o.horizon_s, horizon_bound);
        worst_sync = fmax(worst_sync, fabs(res.error_sync_ns[r]));
        worst_horizon = fmax(worst_horizon, fabs(res.error_horizon_ns[r]));
    }
    printf("figure: %s on %d simulated ranks, tail %.0f ns: worst error %.1f ns at sync, "
           "%.1f ns %.0f s later\n",
           method, ranks, tail_ns, worst_sync, worst_horizon, o.horizon_s);
    clocksync_sim_result_free(&res);
}

/* The likely bound (clocksync.h, "Likely bound"): over many simulated runs
 * with known clocks (drifts up to 100 ppm, offsets up to 1 s), latencies
 * of a TCP link here (7 us + an exponential tail of 1 us mean) and a short
 * run's schedule (200 round trips, points 1 s apart, 10 s of
 * extrapolation), s_L + u' tau covers the true error at the horizon in at
 * least 99 % of the ranks (the sign test's 99.2 % for two points), the hard
 * bound b_L + u tau in all, and the likely bound is the tighter by far. */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void likely_bound_covers_99_percent(void **state)
{
    (void)state;
    enum { RUNS = 200, RANKS = 9, POINTS = RUNS * (RANKS - 1) };
    static double ratio[POINTS], tightness[POINTS];
    const char *methods[] = {"linear", "hierarchical"};
    for (int m = 0; m < 2; m++) {
        long covered = 0, hard_covered = 0, n = 0;
        for (int run = 0; run < RUNS; run++) {
            clocksync_sim_options o;
            clocksync_sim_options_default(&o);
            o.ranks = RANKS;
            o.method = clocksync_method_find(methods[m]);
            o.roundtrips = 200;
            o.latency_min_ns = 7000;
            o.latency_tail_ns = 1000;
            o.max_offset_ns = 1e9;
            o.max_drift_ppm = 100;
            o.gap_s = 1;
            o.horizon_s = 10;
            o.seed = 1000 + (uint64_t)run;
            clocksync_sim_result res;
            assert_int_equal(clocksync_simulate(&o, &res), 0);
            for (int r = 1; r < RANKS; r++, n++) {
                double error = fabs(res.error_horizon_ns[r]);
                covered += error <= res.likely_horizon_ns[r];
                hard_covered += error <= res.bound_horizon_ns[r];
                ratio[n] = res.bound_horizon_ns[r] / res.likely_horizon_ns[r];
                tightness[n] = res.likely_horizon_ns[r] / fmax(error, 1);
            }
            clocksync_sim_result_free(&res);
        }
        qsort(ratio, (size_t)n, sizeof *ratio, compare_doubles);
        qsort(tightness, (size_t)n, sizeof *tightness, compare_doubles);
        printf(
            "figure: %s, %ld simulated ranks, 100 ppm, 10 s past the points: likely bound covers "
            "%.2f %% (hard bound %.2f %%), hard / likely median %.1f, likely / |error| median "
            "%.1f\n",
            methods[m], n, 100.0 * (double)covered / (double)n,
            100.0 * (double)hard_covered / (double)n, ratio[n / 2], tightness[n / 2]);
        assert_true((double)covered >= 0.99 * (double)n);
        assert_int_equal(hard_covered, n);
        assert_true(ratio[n / 2] > 2);
    }
}

static void symmetric_latency_recovers_clocks_to_rounding(void **state)
{
    (void)state;
    /* No jitter: every round trip is exact up to rounding to whole ns, and
     * the tree's lines compose at one instant: a few ns at most, up to 6
     * hops deep, whatever the drift. */
    const char *methods[] = {"linear", "hierarchical"};
    for (int m = 0; m < 2; m++) {
        for (int ranks = 2; ranks <= MAX_RANKS; ranks = ranks * 2 + 1) {
            clocksync_sim_options o = sim_options(ranks, methods[m], 0);
            clocksync_sim_result res;
            assert_int_equal(clocksync_simulate(&o, &res), 0);
            for (int r = 1; r < ranks; r++)
                if (fabs(res.error_sync_ns[r]) > 2.0 * res.hops[r] + 2 ||
                    fabs(res.error_horizon_ns[r]) > 4.0 * res.hops[r] + 4)
                    fail_msg("%s, %d ranks, no jitter: rank %d off by %.2f ns, %.2f ns later",
                             methods[m], ranks, r, res.error_sync_ns[r], res.error_horizon_ns[r]);
            clocksync_sim_result_free(&res);
        }
    }
}

static void linear_within_the_jitter_bound(void **state)
{
    (void)state;
    check_errors("linear", 16, 200);
    check_errors("linear", 16, 2000);
}

static void hierarchical_within_the_jitter_bound(void **state)
{
    (void)state;
    check_errors("hierarchical", 16, 200);
    check_errors("hierarchical", 13, 200); /* not a power of two */
    check_errors("hierarchical", MAX_RANKS, 2000);
}

static int popcount(int x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static void message_counts_follow_the_schedules(void **state)
{
    (void)state;
    for (int ranks = 2; ranks <= MAX_RANKS; ranks = ranks * 2 + 3) {
        int n = 400, rounds = 0;
        while ((1 << rounds) < ranks)
            rounds++;
        clocksync_sim_options o = sim_options(ranks, "linear", 200);
        o.roundtrips = n;
        clocksync_sim_result lin, tree;
        assert_int_equal(clocksync_simulate(&o, &lin), 0);
        o.method = clocksync_method_find("hierarchical");
        assert_int_equal(clocksync_simulate(&o, &tree), 0);
        /* Linear: one round trip chain through rank 0. */
        assert_int_equal(lin.messages, 2LL * n * (ranks - 1));
        assert_int_equal(lin.critical_messages, lin.messages);
        /* Tree: every rank measured twice, a line sent to each rank whose
         * parent is not rank 0; the path: two sweeps of the rounds, then
         * at most one line per round. */
        int lines = 0;
        for (int r = 1; r < ranks; r++) {
            lines += (r & (r - 1)) != 0;
            assert_int_equal(tree.hops[r], popcount(r));
            assert_int_equal(lin.hops[r], 1);
        }
        assert_int_equal(tree.messages, 2LL * 2 * n * (ranks - 1) + lines);
        assert_true(tree.critical_messages >= 2LL * 2 * n * rounds);
        assert_true(tree.critical_messages <= 2LL * 2 * n * rounds + rounds);
        clocksync_sim_result_free(&lin);
        clocksync_sim_result_free(&tree);
    }
}

static void bad_simulation_options_are_refused(void **state)
{
    (void)state;
    clocksync_sim_options o = sim_options(4, "linear", 200);
    clocksync_sim_result res;
    o.method = clocksync_method_count();
    assert_int_equal(clocksync_simulate(&o, &res), -1);
    o = sim_options(4, "linear", 200);
    o.ranks = 0;
    assert_int_equal(clocksync_simulate(&o, &res), -1);
    /* A second calibration due before the first ends. */
    o = sim_options(64, "linear", 200);
    o.gap_s = 0.01;
    assert_int_equal(clocksync_simulate(&o, &res), -1);
}

/* ---- The configuration key ------------------------------------------------ */

static void config_choices_are_the_method_table(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[1024], assignment[128], allowed[512] = "";
    assert_int_equal(nbc_config_init(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.clocksync.method, clocksync_method_find("linear"));
    for (int i = 0; i < clocksync_method_count(); i++) {
        snprintf(assignment, sizeof assignment, "clocksync.method=%s", clocksync_method_name(i));
        if (nbc_config_set(&cfg, assignment, err, sizeof err) != 0)
            fail_msg("%s refused: %s", assignment, err);
        assert_int_equal(cfg.clocksync.method, i);
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "",
                 clocksync_method_name(i));
    }
    /* The refusal lists the allowed values: exactly the table's. */
    assert_int_not_equal(nbc_config_set(&cfg, "clocksync.method=ring", err, sizeof err), 0);
    char expected[600];
    snprintf(expected, sizeof expected, "(allowed: %s)", allowed);
    if (!strstr(err, "clocksync.method") || !strstr(err, expected))
        fail_msg("message '%s' lacks the key or '%s'", err, expected);
    assert_null(clocksync_method_name(clocksync_method_count()));
    assert_int_equal(clocksync_method_find("ring"), -1);
    nbc_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(composed_lines_equal_applying_both),
        cmocka_unit_test(symmetric_latency_recovers_clocks_to_rounding),
        cmocka_unit_test(linear_within_the_jitter_bound),
        cmocka_unit_test(likely_bound_covers_99_percent),
        cmocka_unit_test(hierarchical_within_the_jitter_bound),
        cmocka_unit_test(message_counts_follow_the_schedules),
        cmocka_unit_test(bad_simulation_options_are_refused),
        cmocka_unit_test(config_choices_are_the_method_table),
    };
    return cmocka_run_group_tests(tests, setup_clocks, NULL);
}
