/* The window barrier's wait against a simulated clock whose sleep wakes
 * late (as a virtual CPU or a core in a deep idle state does): where it
 * spins it leaves on time whatever the wake-up latency; where it must
 * sleep, the spin that follows from the measured latency covers it; a spin
 * of a fixed 60 us does not. A spin that loses the core to another process
 * (a simulated preemption) makes the barrier sleep, until enough clean
 * barriers have passed (test_wait_governor.c). Also through
 * clocksync_window_barrier on one rank, with the sleep injected through
 * the options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <mpi.h>

#include "clocksync/clocksync.h"

/* Time moves by read_cost_ns per read and by what a sleep takes: the
 * request plus an overshoot, overshoot_ns but every tail_every-th sleep
 * tail_ns (0: never). */
/* A preemption: the first read at or after preempt_at_ns (0: none) finds
 * the clock preempt_ns later, the thread having lost the core, and counts
 * an involuntary switch unless host_steal (a virtual CPU the host took:
 * the guest sees no switch). */
typedef struct sim_time {
    int64_t now_ns, read_cost_ns, overshoot_ns, tail_ns;
    int tail_every, sleeps;
    int64_t preempt_at_ns, preempt_ns;
    bool host_steal;
    long switches;
} sim_time;

static int64_t sim_now(void *ctx)
{
    sim_time *t = ctx;
    t->now_ns += t->read_cost_ns;
    if (t->preempt_at_ns > 0 && t->now_ns >= t->preempt_at_ns) {
        t->now_ns += t->preempt_ns;
        t->switches += !t->host_steal;
        t->preempt_at_ns = 0;
    }
    return t->now_ns;
}

static long sim_switches(void *ctx)
{
    return ((sim_time *)ctx)->switches;
}

static void sim_sleep(void *ctx, int64_t ns)
{
    sim_time *t = ctx;
    t->sleeps++;
    bool tail = t->tail_every > 0 && t->sleeps % t->tail_every == 0;
    t->now_ns += ns + (tail ? t->tail_ns : t->overshoot_ns);
}

static const int64_t margin_ns = 200000;

static int64_t late_after_wait(sim_time *t, const clocksync_barrier_wait *wait)
{
    clocksync_clock clock = {sim_now, t};
    clocksync_sleeper sleeper = {sim_sleep, t, NULL};
    int64_t deadline_ns = t->now_ns + clocksync_barrier_wait_margin_ns(wait, margin_ns);
    return clocksync_wait_until(&clock, &sleeper, wait, deadline_ns, NULL) - deadline_ns;
}

static void measured_overshoot_is_median_and_p99(void **state)
{
    (void)state;
    /* 1 sleep in 50 wakes 3 ms late (a host's slice), the others 30 us. */
    sim_time t = {.now_ns = 1000,
                  .read_cost_ns = 0,
                  .overshoot_ns = 30000,
                  .tail_ns = 3000000,
                  .tail_every = 50};
    clocksync_clock clock = {sim_now, &t};
    clocksync_sleeper sleeper = {sim_sleep, &t, NULL};
    clocksync_wakeup w;
    assert_int_equal(clocksync_wakeup_measure(&clock, &sleeper, 200, &w), 0);
    assert_int_equal(w.samples, 200);
    assert_true(w.median_ns == 30000);
    /* 4 of 200 at 3 ms: the p99 (the second largest) is one of them. */
    assert_true(w.p99_ns == 3000000);
    assert_true(w.max_ns == 3000000);
    assert_int_equal(clocksync_wakeup_measure(&clock, &sleeper, 0, &w), -1);
}

static void a_barrier_that_spins_leaves_on_time_however_late_sleeps_wake(void **state)
{
    (void)state;
    clocksync_wakeup w = {.median_ns = 100000, .p99_ns = 4000000, .samples = 200};
    clocksync_barrier_wait spin = clocksync_barrier_wait_plan(0, &w);
    assert_true(spin.sleep_min_ns == 0);
    sim_time t = {.now_ns = 5000, .read_cost_ns = 25, .overshoot_ns = 100000};
    int64_t late_ns = late_after_wait(&t, &spin);
    assert_true(late_ns >= 0 && late_ns <= 25);
    assert_int_equal(t.sleeps, 0);
    /* A fixed rule on the same clock, sleep until 60 us before, then spin:
     * a 100 us overshoot leaves 40 us late, four times a 10 us tolerance. */
    clocksync_barrier_wait fixed = {.sleep_min_ns = 1, .spin_ns = 60000};
    t.sleeps = 0;
    late_ns = late_after_wait(&t, &fixed);
    assert_int_equal(t.sleeps, 1);
    assert_true(late_ns >= 40000 - 25 && late_ns <= 40000 + 25);
}

static void a_barrier_that_sleeps_spins_for_the_measured_wakeup(void **state)
{
    (void)state;
    sim_time t = {.now_ns = 5000, .read_cost_ns = 25, .overshoot_ns = 100000};
    clocksync_clock clock = {sim_now, &t};
    clocksync_sleeper sleeper = {sim_sleep, &t, NULL};
    clocksync_wakeup w;
    assert_int_equal(clocksync_wakeup_measure(&clock, &sleeper, 50, &w), 0);
    clocksync_barrier_wait wait = clocksync_barrier_wait_plan(8e-3, &w);
    assert_true(wait.sleep_min_ns == 8000000);
    /* 2 x the p99, which includes one clock read (25 ns) */
    assert_true(w.p99_ns >= 100000 && w.p99_ns <= 100025);
    assert_true(wait.spin_ns >= 200000 && wait.spin_ns <= 200050);
    assert_false(wait.spin_capped);
    /* The margin makes room for the whole sleep and the spin. */
    assert_true(clocksync_barrier_wait_margin_ns(&wait, margin_ns) == 8000000 + wait.spin_ns);
    t.sleeps = 0;
    int64_t late_ns = late_after_wait(&t, &wait);
    assert_int_equal(t.sleeps, 1);
    assert_true(late_ns >= 0 && late_ns <= 25);
    /* A small overshoot still spins the floor, 20 us. */
    w.p99_ns = 1000;
    assert_true(clocksync_barrier_wait_plan(8e-3, &w).spin_ns == 20000);
    /* A spin longer than 0.5 ms would lose the core to the thread the
     * barrier slept for: a wake-up that needs one is not covered, and
     * says so. */
    w.p99_ns = 250000;
    assert_false(clocksync_barrier_wait_plan(8e-3, &w).spin_capped);
    w.p99_ns = 5e6;
    clocksync_barrier_wait capped = clocksync_barrier_wait_plan(8e-3, &w);
    assert_true(capped.spin_capped && capped.spin_ns == 500000);
}

/* The same through the MPI barrier on one rank: the context measures the
 * injected sleep at creation and its barrier never sleeps where nothing
 * shares the core. */
static void window_barrier_with_a_late_waking_sleep(void **state)
{
    (void)state;
    for (int sleeps = 0; sleeps < 2; sleeps++) {
        sim_time t = {.now_ns = 5000, .read_cost_ns = 25, .overshoot_ns = 150000};
        clocksync_clock clock = {sim_now, &t};
        clocksync_sleeper sleeper = {sim_sleep, &t, NULL};
        clocksync_options opt;
        clocksync_options_default(&opt);
        opt.sleeper = &sleeper;
        opt.barrier_sleep_min_s = sleeps ? 8e-3 : 0;
        clocksync_ctx *ctx;
        assert_int_equal(clocksync_create(&ctx, MPI_COMM_SELF, &opt, &clock), MPI_SUCCESS);
        double p99_ns = clocksync_get_wakeup(ctx)->p99_ns; /* plus one clock read */
        assert_true(p99_ns >= 150000 && p99_ns <= 150025);
        int64_t spin_ns = clocksync_get_barrier_wait(ctx)->spin_ns;
        assert_true(sleeps ? spin_ns >= 300000 && spin_ns <= 300050 : spin_ns == 0);
        int before = t.sleeps;
        for (int i = 0; i < 20; i++) {
            clocksync_barrier_result r;
            assert_int_equal(clocksync_window_barrier(ctx, 10000, &r), MPI_SUCCESS);
            assert_true(r.on_time);
            assert_true(r.exit_late_ns <= 25);
        }
        assert_int_equal(t.sleeps - before, sleeps ? 20 : 0);
        clocksync_free(ctx);
    }
}

static int wait_changes[3];

static void count_wait_change(const clocksync_wait_governor *gov, int change)
{
    (void)gov;
    wait_changes[change]++;
}

/* A rank whose spin loses the core sleeps through the next barriers, is
 * told so, counts them, and spins again after clean ones. */
static void window_barrier_falls_back_to_sleep_where_its_spin_is_preempted(void **state)
{
    (void)state;
    sim_time t = {.now_ns = 5000, .read_cost_ns = 25, .overshoot_ns = 20000};
    clocksync_clock clock = {sim_now, &t};
    clocksync_sleeper sleeper = {sim_sleep, &t, sim_switches};
    clocksync_options opt;
    clocksync_options_default(&opt);
    opt.sleeper = &sleeper;
    opt.on_wait_change = count_wait_change;
    clocksync_ctx *ctx;
    assert_int_equal(clocksync_create(&ctx, MPI_COMM_SELF, &opt, &clock), MPI_SUCCESS);
    const clocksync_wait_governor *gov = clocksync_get_wait_governor(ctx);
    int before = t.sleeps;
    clocksync_barrier_result r;
    /* Preempted 50 us into the spin for 3 ms: late, and sleeping next. */
    t.preempt_at_ns = t.now_ns + 50000;
    t.preempt_ns = 3000000;
    assert_int_equal(clocksync_window_barrier(ctx, 10000, &r), MPI_SUCCESS);
    assert_false(r.on_time);
    assert_int_equal(wait_changes[CLOCKSYNC_WAIT_FELL_BACK], 1);
    assert_true(gov->first_fallback_at == 1 && gov->first_switches == 1);
    assert_true(gov->first_gap_ns >= 3000000);
    for (int i = 0; i < 32; i++) {
        assert_int_equal(clocksync_window_barrier(ctx, 10000, &r), MPI_SUCCESS);
        assert_true(r.on_time);
    }
    assert_int_equal(t.sleeps - before, 32);
    assert_int_equal(wait_changes[CLOCKSYNC_WAIT_RETURNED], 1);
    assert_true(gov->spun == 1 && gov->slept == 32);
    /* Spinning again: no sleep. */
    assert_int_equal(clocksync_window_barrier(ctx, 10000, &r), MPI_SUCCESS);
    assert_int_equal(t.sleeps - before, 32);
    assert_true(gov->spun == 2 && gov->fallbacks == 1 && gov->returns == 1);
    clocksync_free(ctx);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measured_overshoot_is_median_and_p99),
        cmocka_unit_test(a_barrier_that_spins_leaves_on_time_however_late_sleeps_wake),
        cmocka_unit_test(a_barrier_that_sleeps_spins_for_the_measured_wakeup),
        cmocka_unit_test(window_barrier_with_a_late_waking_sleep),
        cmocka_unit_test(window_barrier_falls_back_to_sleep_where_its_spin_is_preempted),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (MPI_Finalize() != MPI_SUCCESS)
        return 1;
    return failed ? 1 : 0;
}
