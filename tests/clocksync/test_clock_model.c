/* Unit tests of the clock model with synthetic clocks of known offset and
 * drift: with exact calibration points the conversions are arithmetic, so
 * they must be exact to 1 ns; with points measured through asymmetric
 * latencies, the errors must stay within what those errors allow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clocksync/clocksync.h"

/* A plausible uptime: large values are where double rounding would bite. */
static const int64_t uptime_ns = 360000LL * 1000000000LL;

/* The truth for a clock that is offset_ns ahead of the reference at
 * origin_ns (reference time) and runs drift_ppm fast. */
typedef struct true_clock {
    int64_t origin_ns, offset_ns;
    double drift_ppm;
} true_clock;

static int64_t true_local(const true_clock *c, int64_t global_ns)
{
    int64_t since = global_ns - c->origin_ns;
    return global_ns + c->offset_ns + (int64_t)llround((double)since * c->drift_ppm * 1e-6);
}

static clocksync_point point_at(const true_clock *c, int64_t global_ns)
{
    int64_t local = true_local(c, global_ns);
    return (clocksync_point){.local_ns = local, .offset_ns = (double)(global_ns - local)};
}

static void assert_within_ns(int64_t expected, int64_t actual, int64_t tolerance)
{
    int64_t diff = expected > actual ? expected - actual : actual - expected;
    if (diff > tolerance)
        fail_msg("expected %lld, got %lld (off by %lld ns)", (long long)expected, (long long)actual,
                 (long long)diff);
}

static void empty_model_is_identity(void **state)
{
    (void)state;
    clocksync_model m;
    clocksync_model_init(&m);
    assert_int_equal(clocksync_model_to_global(&m, uptime_ns), uptime_ns);
    assert_int_equal(clocksync_model_to_local(&m, uptime_ns), uptime_ns);
    assert_true(clocksync_model_drift_ppm(&m) == 0.0);
    assert_true(isinf(clocksync_model_drift_bound_ppm(&m))); /* no drift known */
    clocksync_model_free(&m);
}

static void one_point_is_a_constant_offset(void **state)
{
    (void)state;
    clocksync_model m;
    clocksync_model_init(&m);
    assert_int_equal(
        clocksync_model_add_point(&m, (clocksync_point){.local_ns = uptime_ns, .offset_ns = -5e9}),
        0);
    assert_int_equal(clocksync_model_to_global(&m, uptime_ns + 123), uptime_ns + 123 - 5000000000);
    assert_int_equal(clocksync_model_to_local(&m, uptime_ns), uptime_ns + 5000000000);
    clocksync_model_free(&m);
}

static void offset_and_drift_are_recovered_exactly(void **state)
{
    (void)state;
    const true_clock clocks[] = {
        {uptime_ns, 5000000000LL, 0.0}, /* unshare --time --monotonic=5 */
        {uptime_ns, 0, 100.0},          /* faketime x1.0001 */
        {uptime_ns, -1234567, -37.5},   /* both, slow */
        {uptime_ns, 987654321, 250.0},
    };
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        clocksync_model m;
        clocksync_model_init(&m);
        /* Calibrations at the start and 60 s later. */
        assert_int_equal(clocksync_model_add_point(&m, point_at(&clocks[c], uptime_ns)), 0);
        assert_int_equal(
            clocksync_model_add_point(&m, point_at(&clocks[c], uptime_ns + 60000000000LL)), 0);
        assert_true(fabs(clocksync_model_drift_ppm(&m) - clocks[c].drift_ppm) < 1e-3);
        /* Interpolation inside, extrapolation up to an hour on both sides. */
        for (int64_t g = uptime_ns - 3600000000000LL; g <= uptime_ns + 3600000000000LL;
             g += 7777777777LL) {
            int64_t local = true_local(&clocks[c], g);
            assert_within_ns(g, clocksync_model_to_global(&m, local), 1);
            assert_within_ns(local, clocksync_model_to_local(&m, g), 1);
        }
        clocksync_model_free(&m);
    }
}

static void piecewise_interpolation_follows_each_segment(void **state)
{
    (void)state;
    /* The drift changes at each resync: 20 ppm, then -40 ppm, then 5 ppm. */
    const double drift_ppm[] = {20.0, -40.0, 5.0};
    const int64_t segment_ns = 300000000000LL; /* a resync every 5 minutes */
    clocksync_model m;
    clocksync_model_init(&m);
    int64_t global = uptime_ns, local = uptime_ns + 42000;
    int64_t knots_global[4], knots_local[4];
    for (int i = 0; i < 4; i++) {
        knots_global[i] = global;
        knots_local[i] = local;
        clocksync_point p = {.local_ns = local, .offset_ns = (double)(global - local)};
        assert_int_equal(clocksync_model_add_point(&m, p), 0);
        if (i < 3) {
            global += segment_ns;
            local += segment_ns + (int64_t)llround(segment_ns * drift_ppm[i] * 1e-6);
        }
    }
    for (int i = 0; i < 3; i++) {
        for (int step = 0; step <= 10; step++) {
            int64_t dg = segment_ns / 10 * step;
            int64_t local_t =
                knots_local[i] + dg + (int64_t)llround((double)dg * drift_ppm[i] * 1e-6);
            assert_within_ns(knots_global[i] + dg, clocksync_model_to_global(&m, local_t), 1);
            assert_within_ns(local_t, clocksync_model_to_local(&m, knots_global[i] + dg), 1);
        }
    }
    /* Beyond the last point: extrapolated along the last segment (5 ppm). */
    int64_t later = 60000000000LL;
    int64_t local_later = knots_local[3] + later + (int64_t)llround(later * 5.0 * 1e-6);
    assert_within_ns(knots_global[3] + later, clocksync_model_to_global(&m, local_later), 1);
    clocksync_model_free(&m);
}

static void points_must_move_forward(void **state)
{
    (void)state;
    clocksync_model m;
    clocksync_model_init(&m);
    assert_int_equal(clocksync_model_add_point(&m, (clocksync_point){.local_ns = 100}), 0);
    assert_int_equal(
        clocksync_model_add_point(&m, (clocksync_point){.local_ns = 100, .offset_ns = 5}), -1);
    assert_int_equal(
        clocksync_model_add_point(&m, (clocksync_point){.local_ns = 50, .offset_ns = 5}), -1);
    /* Growing past the initial capacity keeps every point. */
    for (int i = 1; i <= 100; i++)
        assert_int_equal(
            clocksync_model_add_point(&m, (clocksync_point){.local_ns = 100 + i, .offset_ns = i}),
            0);
    assert_int_equal(m.n_points, 101);
    clocksync_model_free(&m);
}

/* ---- Points measured with a latency error, drift that changes ---------- */

/* A rank's clock against the reference (global time): offset_ns ahead at
 * origin_ns, running drift_ppm[0] fast, drift_ppm[i] from the global instant
 * change_ns[i - 1] on. Doubles: at 4e14 ns they resolve 0.06 ns. */
typedef struct drifting_clock {
    double origin_ns, offset_ns;
    int segments;
    double change_ns[3];
    double drift_ppm[4];
} drifting_clock;

/* Local reading at the global instant global_ns. */
static double local_at(const drifting_clock *c, double global_ns)
{
    double global = c->origin_ns, local = c->origin_ns + c->offset_ns;
    for (int i = 0;; i++) {
        double rate = 1 + c->drift_ppm[i] * 1e-6;
        if (i == c->segments - 1 || global_ns <= c->change_ns[i])
            return local + (global_ns - global) * rate;
        local += (c->change_ns[i] - global) * rate;
        global = c->change_ns[i];
    }
}

/* The global instant at which the clock reads local_ns. */
static double global_at(const drifting_clock *c, double local_ns)
{
    double global = c->origin_ns, local = c->origin_ns + c->offset_ns;
    for (int i = 0;; i++) {
        double rate = 1 + c->drift_ppm[i] * 1e-6;
        double local_end = i < c->segments - 1 ? local + (c->change_ns[i] - global) * rate : 0;
        if (i == c->segments - 1 || local_ns <= local_end)
            return global + (local_ns - local) / rate;
        local = local_end;
        global = c->change_ns[i];
    }
}

/* One calibration round trip the way clocksync's calibration makes it: the
 * rank reads its clock and sends at global send_ns, the ping takes
 * forward_ns, rank 0 answers with its (global) time, the pong takes
 * back_ns; the offset is rank 0's time minus the midpoint of the round
 * trip. Symmetric latency makes it exact; otherwise it is off by
 * (forward - back) / 2, which half the round trip (latency_ns) bounds. */
typedef struct measured_point {
    clocksync_point point;
    double error_ns; /* measured offset minus the true offset at point.local_ns */
} measured_point;

static measured_point measure_point(const drifting_clock *c, double send_ns, double forward_ns,
                                    double back_ns)
{
    double sent = round(local_at(c, send_ns));
    double back = round(local_at(c, send_ns + forward_ns + back_ns));
    double midpoint = sent + 0.5 * (back - sent);
    double offset = (send_ns + forward_ns) - midpoint;
    clocksync_point p = {.local_ns = (int64_t)llround(midpoint),
                         .offset_ns = offset,
                         .latency_ns = 0.5 * (back - sent)};
    double true_offset = global_at(c, (double)p.local_ns) - (double)p.local_ns;
    return (measured_point){p, offset - true_offset};
}

/* What a point's error can be at most, from what the rank knows: its
 * latency (half the round trip) bounds the asymmetry; the clock drifts
 * during the round trip (drift x round trip) and the midpoint is rounded
 * to whole ns (1 ns). */
static double point_error_bound_ns(const clocksync_point *p, double max_drift_ppm)
{
    return p->latency_ns + fabs(max_drift_ppm) * 1e-6 * 2 * p->latency_ns + 1;
}

/* Model error at the global instant global_ns: converting the local
 * reading then (whole ns, as timestamps are) gives global_ns + error. The
 * reading and the result are rounded to ns: up to 1 ns of it is rounding. */
static double model_error_ns(const clocksync_model *m, const drifting_clock *c, double global_ns)
{
    int64_t local = (int64_t)llround(local_at(c, global_ns));
    return (double)clocksync_model_to_global(m, local) - global_at(c, (double)local);
}

static const double minute_ns = 60e9;

static void interpolated_time_is_as_good_as_its_points(void **state)
{
    (void)state;
    const drifting_clock clocks[] = {
        {.origin_ns = uptime_ns, .offset_ns = 5e9, .segments = 1, .drift_ppm = {0}},
        {.origin_ns = uptime_ns, .offset_ns = 0, .segments = 1, .drift_ppm = {100}},
        {.origin_ns = uptime_ns, .offset_ns = -1234567, .segments = 1, .drift_ppm = {-37.5}},
        {.origin_ns = uptime_ns, .offset_ns = 987654321, .segments = 1, .drift_ppm = {250}},
    };
    double worst_ns = 0;
    for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++) {
        const drifting_clock *c = &clocks[i];
        /* Start and end calibrations a minute apart; the ping is slower at
         * the start (offset measured 1 us high), the pong at the end
         * (2 us low). */
        measured_point a = measure_point(c, uptime_ns, 3000, 1000);
        measured_point b = measure_point(c, uptime_ns + minute_ns, 800, 4800);
        double bound_a = point_error_bound_ns(&a.point, c->drift_ppm[0]);
        double bound_b = point_error_bound_ns(&b.point, c->drift_ppm[0]);
        assert_true(fabs(a.error_ns) <= bound_a && fabs(b.error_ns) <= bound_b);
        assert_true(fabs(a.error_ns - 1000) < 2 && fabs(b.error_ns + 2000) < 2);
        clocksync_model m;
        clocksync_model_init(&m);
        assert_int_equal(clocksync_model_add_point(&m, a.point), 0);
        assert_int_equal(clocksync_model_add_point(&m, b.point), 0);
        for (double g = uptime_ns + 1000; g < uptime_ns + minute_ns; g += 777777777) {
            /* Interpolation weighs the two points' offsets, so its error is
             * the same weighing of their errors: never beyond the larger of
             * the two bounds; +1 ns for rounding the result. */
            double error = model_error_ns(&m, c, g);
            double f = (local_at(c, g) - (double)a.point.local_ns) /
                       (double)(b.point.local_ns - a.point.local_ns);
            double expected = (1 - f) * a.error_ns + f * b.error_ns;
            if (fabs(error) > fmax(bound_a, bound_b) + 1 || fabs(error - expected) > 2)
                fail_msg("clock %zu at %.0f s: off by %.1f ns, expected %.1f (bounds %.0f, %.0f)",
                         i, (g - uptime_ns) * 1e-9, error, expected, bound_a, bound_b);
            worst_ns = fmax(worst_ns, fabs(error));
            /* The inverse (a deadline in global time to local time) is off
             * by as much, seen from the other side, times the clock rate. */
            int64_t local = clocksync_model_to_local(&m, (int64_t)llround(g));
            double local_error = (double)local - local_at(c, round(g));
            assert_true(fabs(local_error + expected * (1 + c->drift_ppm[0] * 1e-6)) <= 2);
        }
        clocksync_model_free(&m);
    }
    printf("figure: clock model: points off by +1 us and -2 us (latency 2 us, 2.8 us): "
           "interpolated times off by %.0f ns at most\n",
           worst_ns);
}

static void drift_change_between_points_bends_away_from_the_chord(void **state)
{
    (void)state;
    /* Resyncs every 5 minutes; the drift changes inside each interval
     * (thermal change): 20 ppm, -40 ppm from 2 min, 5 ppm from 8 min. */
    const double interval_ns = 5 * minute_ns;
    drifting_clock c = {.origin_ns = uptime_ns,
                        .offset_ns = 42000,
                        .segments = 3,
                        .change_ns = {uptime_ns + 2 * minute_ns, uptime_ns + 8 * minute_ns},
                        .drift_ppm = {20, -40, 5}};
    measured_point points[3];
    clocksync_model m;
    clocksync_model_init(&m);
    const double forward_ns[3] = {1500, 900, 2500}, back_ns[3] = {900, 2100, 2500};
    for (int i = 0; i < 3; i++) {
        points[i] = measure_point(&c, uptime_ns + i * interval_ns, forward_ns[i], back_ns[i]);
        assert_int_equal(clocksync_model_add_point(&m, points[i].point), 0);
    }
    /* Between two points the true offset runs at drift d1 for a time k, then
     * d2 for the rest of the interval L; the chord meets it at both ends and
     * is farthest from it at the change: |d1 - d2| k (L - k) / L. On top of
     * that, the points' own errors weighed as above. */
    double worst_ns[2] = {0, 0}, chord_bound_ns[2];
    for (int seg = 0; seg < 2; seg++) {
        double k = c.change_ns[seg] - (uptime_ns + seg * interval_ns);
        chord_bound_ns[seg] = fabs(c.drift_ppm[seg] - c.drift_ppm[seg + 1]) * 1e-6 * k *
                              (interval_ns - k) / interval_ns;
        double point_bound = fmax(point_error_bound_ns(&points[seg].point, 40),
                                  point_error_bound_ns(&points[seg + 1].point, 40));
        for (double g = uptime_ns + seg * interval_ns; g <= uptime_ns + (seg + 1) * interval_ns;
             g += interval_ns / 60) {
            double error = model_error_ns(&m, &c, g);
            if (fabs(error) > chord_bound_ns[seg] + point_bound + 1)
                fail_msg("segment %d at %.0f s: off by %.0f ns, bound %.0f + %.0f", seg,
                         (g - uptime_ns) * 1e-9, error, chord_bound_ns[seg], point_bound);
            worst_ns[seg] = fmax(worst_ns[seg], fabs(error));
        }
        /* The bound is reached at the change, where the samples pass: the
         * model does bend away (a model that followed the true drift would
         * need more points than it has). */
        assert_true(worst_ns[seg] >= chord_bound_ns[seg] - point_bound - 1);
    }
    printf("figure: clock model: a drift change of 60 ppm 2 min into a 5 min resync interval "
           "puts interpolated times up to %.1f us off (bound %.1f us)\n",
           worst_ns[0] * 1e-3, chord_bound_ns[0] * 1e-3);
    clocksync_model_free(&m);
}

static void extrapolation_carries_the_slope_error(void **state)
{
    (void)state;
    /* After the last point the model goes on along the last segment. Its
     * slope is off by (error_b - error_a) / L, so tau after the last point
     * the time is off by error_b + (error_b - error_a) tau / L: bounded by
     * bound_b + (bound_a + bound_b) tau / L, plus |d_after - d| tau when the
     * drift changes after the last point. Real time extrapolates from
     * points drift_gap_s (1 s) apart until the first resync: the figure
     * shows what that costs. */
    const double gaps_ns[] = {1e9, minute_ns};
    double carried_at_5_min_ns[2] = {0, 0};
    for (int gi = 0; gi < 2; gi++) {
        double gap_ns = gaps_ns[gi];
        drifting_clock c = {.origin_ns = uptime_ns,
                            .offset_ns = -3e6,
                            .segments = 2,
                            .change_ns = {uptime_ns + gap_ns + minute_ns},
                            .drift_ppm = {80, 83}};
        measured_point a = measure_point(&c, uptime_ns, 1200, 800);
        measured_point b = measure_point(&c, uptime_ns + gap_ns, 700, 1300);
        double bound_a = point_error_bound_ns(&a.point, 83);
        double bound_b = point_error_bound_ns(&b.point, 83);
        clocksync_model m;
        clocksync_model_init(&m);
        assert_int_equal(clocksync_model_add_point(&m, a.point), 0);
        assert_int_equal(clocksync_model_add_point(&m, b.point), 0);
        double length = (double)(b.point.local_ns - a.point.local_ns);
        for (double tau = 0; tau <= 10 * minute_ns; tau += minute_ns / 4) {
            double g = uptime_ns + gap_ns + tau;
            double error = model_error_ns(&m, &c, g);
            double since_b = local_at(&c, g) - (double)b.point.local_ns;
            /* The true drift after the change departs from the model's. */
            double after_change = fmax(0, g - c.change_ns[0]);
            double drift_gap = fabs(c.drift_ppm[1] - c.drift_ppm[0]) * 1e-6 * after_change;
            double bound = bound_b + (bound_a + bound_b) * since_b / length + drift_gap + 1;
            double expected = b.error_ns + (b.error_ns - a.error_ns) * since_b / length;
            if (fabs(error) > bound)
                fail_msg("gap %.0f s, %.0f s after the last point: off by %.0f ns, bound %.0f",
                         gap_ns * 1e-9, tau * 1e-9, error, bound);
            /* Before the drift changes the error is exactly the carried one. */
            if (after_change == 0 && fabs(error - expected) > 2)
                fail_msg("gap %.0f s, %.0f s after: off by %.1f ns, expected %.1f", gap_ns * 1e-9,
                         tau * 1e-9, error, expected);
            if (tau == 5 * minute_ns)
                carried_at_5_min_ns[gi] = expected;
        }
        clocksync_model_free(&m);
    }
    printf("figure: clock model: points off by +0.2 us and -0.3 us, extrapolated 5 min past "
           "the last: %.0f us off when they are 1 s apart (drift_gap_s), %.1f us when 1 min "
           "apart\n",
           carried_at_5_min_ns[0] * 1e-3, carried_at_5_min_ns[1] * 1e-3);
}

static int64_t fake_now(void *ctx)
{
    return *(int64_t *)ctx;
}

/* Points of a clock with a constant drift, each off by up to its bound,
 * on the schedule of a run (start, drift_gap_s, then doubling): the
 * extrapolation follows the longest baseline, so 60 s past a point taken
 * 60 s in, it errs far less than along the last segment would, and never
 * more than the bound it states. */
static void extrapolation_uses_the_longest_baseline_within_its_bound(void **state)
{
    (void)state;
    drifting_clock c = {
        .origin_ns = uptime_ns, .offset_ns = 2e6, .segments = 1, .drift_ppm = {100}};
    const double at_s[] = {0, 1, 2, 4, 8, 16, 32, 64};
    /* Asymmetric latencies that alternate in sign: the worst case for a
     * slope between neighbours. */
    clocksync_model m;
    clocksync_model_init(&m);
    for (size_t i = 0; i < sizeof at_s / sizeof *at_s; i++) {
        double forward = i % 2 ? 1500 : 500, back = i % 2 ? 500 : 1500;
        measured_point p = measure_point(&c, uptime_ns + at_s[i] * 1e9, forward, back);
        p.point.bound_ns = point_error_bound_ns(&p.point, 100);
        assert_int_equal(clocksync_model_add_point(&m, p.point), 0);
        if (i >= 2) /* the model predicted this point within its bound */
            assert_true(fabs(m.points[i].residual_ns) <=
                        m.points[i].predicted_error_ns + m.points[i].bound_ns);
    }
    assert_int_equal(m.baseline, 0); /* constant drift: the baseline never restarts */
    const clocksync_point *last = &m.points[m.n_points - 1];
    double worst_ns = 0;
    for (double tau_s = 0; tau_s <= 64; tau_s += 4) {
        int64_t local = last->local_ns + (int64_t)(tau_s * 1e9);
        double error =
            fabs((double)clocksync_model_to_global(&m, local) - global_at(&c, (double)local));
        double bound = clocksync_model_error_bound_ns(&m, local);
        if (error > bound + 1)
            fail_msg("%.0f s past the last point: off by %.0f ns, bound %.0f ns", tau_s, error,
                     bound);
        worst_ns = fmax(worst_ns, error);
        assert_within_ns(local, clocksync_model_to_local(&m, clocksync_model_to_global(&m, local)),
                         1);
    }
    /* u = (b_F + b_L) / (t_L - t_F): the first and last points' bounds over 64 s. */
    double u =
        (m.points[0].bound_ns + last->bound_ns) / (double)(last->local_ns - m.points[0].local_ns);
    assert_true(fabs(clocksync_model_drift_uncertainty(&m) - u) <= 1e-15);
    /* the drift's bound over the whole model is that u in ppm, and holds the
     * drift the points were off by */
    assert_true(fabs(clocksync_model_drift_bound_ppm(&m) - u * 1e6) <= 1e-9);
    assert_true(fabs(clocksync_model_drift_ppm(&m) - 100) <= clocksync_model_drift_bound_ppm(&m));
    assert_true(fabs(clocksync_model_extrapolation_error_ns(&m, last->local_ns + 10000000000LL) -
                     u * 1e10) <= 1e-3);
    assert_true(clocksync_model_extrapolation_error_ns(&m, last->local_ns - 1) == 0);
    printf("figure: clock model: 8 points over 64 s off by +-0.5 us, 64 s further on: off by at "
           "most %.2f us, bound %.2f us\n",
           worst_ns * 1e-3,
           clocksync_model_error_bound_ns(&m, last->local_ns + 64000000000LL) * 1e-3);
    clocksync_model_free(&m);
}

/* A drift that changes shows as a residual beyond the predicted bound: the
 * baseline restarts at the point before, and extrapolation follows the new
 * drift. */
static void a_changed_drift_restarts_the_baseline(void **state)
{
    (void)state;
    true_clock c = {.origin_ns = uptime_ns, .offset_ns = 42000, .drift_ppm = 20};
    clocksync_model m;
    clocksync_model_init(&m);
    int64_t step_ns = 10000000000LL;
    for (int i = 0; i < 3; i++)
        assert_int_equal(clocksync_model_add_point(&m, point_at(&c, uptime_ns + i * step_ns)), 0);
    assert_int_equal(m.baseline, 0);
    /* From the third point on the clock runs 30 ppm fast. */
    int64_t change_g = uptime_ns + 2 * step_ns, change_l = true_local(&c, change_g);
    true_clock after = {.origin_ns = change_g, .offset_ns = change_l - change_g, .drift_ppm = 30};
    assert_int_equal(clocksync_model_add_point(&m, point_at(&after, change_g + step_ns)), 0);
    assert_int_equal(m.baseline, 2);
    /* 10 ppm faster for 10 s: the offset (global - local) 100 us below the prediction */
    assert_true(fabs(m.points[3].residual_ns + 100000) < 10);
    int64_t later_g = change_g + 3 * step_ns;
    assert_within_ns(later_g, clocksync_model_to_global(&m, true_local(&after, later_g)), 1);
    clocksync_model_free(&m);
}

static void skewed_clock_has_its_offset_and_drift(void **state)
{
    (void)state;
    int64_t base_now = uptime_ns;
    clocksync_skewed_clock s = {
        .base = {.now_ns = fake_now, .ctx = &base_now},
        .origin_ns = uptime_ns,
        .offset_ns = 1500000,
        .drift_ppm = 50.0,
    };
    clocksync_clock clock = clocksync_skewed_clock_make(&s);
    assert_int_equal(clocksync_clock_now_ns(&clock), uptime_ns + 1500000);
    base_now = uptime_ns + 10000000000LL; /* 10 s later: 500 us more */
    assert_int_equal(clocksync_clock_now_ns(&clock), base_now + 1500000 + 500000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_model_is_identity),
        cmocka_unit_test(one_point_is_a_constant_offset),
        cmocka_unit_test(offset_and_drift_are_recovered_exactly),
        cmocka_unit_test(piecewise_interpolation_follows_each_segment),
        cmocka_unit_test(points_must_move_forward),
        cmocka_unit_test(skewed_clock_has_its_offset_and_drift),
        cmocka_unit_test(interpolated_time_is_as_good_as_its_points),
        cmocka_unit_test(drift_change_between_points_bends_away_from_the_chord),
        cmocka_unit_test(extrapolation_carries_the_slope_error),
        cmocka_unit_test(extrapolation_uses_the_longest_baseline_within_its_bound),
        cmocka_unit_test(a_changed_drift_restarts_the_baseline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
