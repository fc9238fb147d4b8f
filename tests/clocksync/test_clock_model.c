/* Unit tests of the clock model with synthetic clocks of known offset and
 * drift: the conversions are arithmetic, so they must be exact to 1 ns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
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
    clocksync_model_free(&m);
}

static void one_point_is_a_constant_offset(void **state)
{
    (void)state;
    clocksync_model m;
    clocksync_model_init(&m);
    assert_int_equal(clocksync_model_add_point(&m, (clocksync_point){uptime_ns, -5e9, 0}), 0);
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
    assert_int_equal(clocksync_model_add_point(&m, (clocksync_point){100, 0, 0}), 0);
    assert_int_equal(clocksync_model_add_point(&m, (clocksync_point){100, 5, 0}), -1);
    assert_int_equal(clocksync_model_add_point(&m, (clocksync_point){50, 5, 0}), -1);
    /* Growing past the initial capacity keeps every point. */
    for (int i = 1; i <= 100; i++)
        assert_int_equal(clocksync_model_add_point(&m, (clocksync_point){100 + i, i, 0}), 0);
    assert_int_equal(m.n_points, 101);
    clocksync_model_free(&m);
}

static int64_t fake_now(void *ctx)
{
    return *(int64_t *)ctx;
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
