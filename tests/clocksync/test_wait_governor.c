/* The window barrier's choice between spinning and sleeping, from what its
 * spins see, against a simulated clock: a spin that loses the core to
 * another runnable process (a gap in the clock's reads of at least the
 * least slice, with an involuntary context switch) switches the wait to the
 * sleep of a shared core; a shorter gap (a kernel thread) does not; clean
 * barriers switch it back, after more of them each time the load returns
 * at once; a gap without a switch (the host took the virtual CPU) leaves
 * the spin alone; a deployment that sleeps already is left as it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clocksync/clocksync.h"

/* Each read costs read_cost_ns; the first read at or after preempt_at_ns
 * (0: none) finds the clock preempt_ns later and, unless host_steal, one
 * more involuntary switch. */
typedef struct sim_time {
    int64_t now_ns, read_cost_ns, preempt_at_ns, preempt_ns;
    bool host_steal;
    long switches;
    int sleeps;
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

static void sim_sleep(void *ctx, int64_t ns)
{
    sim_time *t = ctx;
    t->sleeps++;
    t->now_ns += ns + 10000; /* wakes 10 us late */
}

static long sim_switches(void *ctx)
{
    return ((sim_time *)ctx)->switches;
}

static const clocksync_wakeup wakeup = {.median_ns = 10000, .p99_ns = 10000, .samples = 200};
static const int64_t margin_ns = 200000;

/* One barrier's wait through the governor, preempted for `preempt_ns`
 * (0: not) 5 us before its deadline, inside the spin of either wait (a
 * sleep wakes 10 us late into a spin of 20 us); the governor's decision. */
static int barrier(sim_time *t, clocksync_wait_governor *gov, int64_t preempt_ns,
                   clocksync_wait_watch *watch)
{
    clocksync_clock clock = {sim_now, t};
    clocksync_sleeper sleeper = {sim_sleep, t, sim_switches};
    const clocksync_barrier_wait *wait = clocksync_wait_governor_wait(gov);
    int64_t deadline_ns = t->now_ns + clocksync_barrier_wait_margin_ns(wait, margin_ns);
    if (preempt_ns > 0) {
        t->preempt_at_ns = deadline_ns - 5000;
        t->preempt_ns = preempt_ns;
    }
    clocksync_wait_until(&clock, &sleeper, wait, deadline_ns, watch);
    return clocksync_wait_governor_update(gov, watch);
}

static void the_spin_sees_a_lost_core(void **state)
{
    (void)state;
    sim_time t = {.now_ns = 1000, .read_cost_ns = 25};
    clocksync_wait_governor gov;
    clocksync_barrier_wait spin = clocksync_barrier_wait_plan(0, &wakeup);
    clocksync_wait_governor_init(&gov, &spin, &wakeup);
    clocksync_wait_watch w;
    assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_KEPT);
    assert_false(w.lost_core);
    assert_true(w.switches == 0 && w.longest_gap_ns <= 25 + 25);
    assert_int_equal(barrier(&t, &gov, 2000000, &w), CLOCKSYNC_WAIT_FELL_BACK);
    assert_true(w.lost_core && w.switches == 1 && w.longest_gap_ns >= 2000000);
}

static void a_preempted_spin_sleeps_until_clean_barriers_pass(void **state)
{
    (void)state;
    sim_time t = {.now_ns = 1000, .read_cost_ns = 25};
    clocksync_wait_governor gov;
    clocksync_barrier_wait spin = clocksync_barrier_wait_plan(0, &wakeup);
    clocksync_wait_governor_init(&gov, &spin, &wakeup);
    clocksync_wait_watch w;
    for (int i = 0; i < 10; i++)
        assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_KEPT);
    assert_int_equal(t.sleeps, 0);
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_FELL_BACK);
    /* The next barrier sleeps a shared core's 8 ms, then spins. */
    const clocksync_barrier_wait *wait = clocksync_wait_governor_wait(&gov);
    assert_true(wait->sleep_min_ns == 8000000 && wait->spin_ns == 20000);
    for (int i = 0; i < 31; i++)
        assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_KEPT);
    assert_int_equal(t.sleeps, 31);
    assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_RETURNED);
    assert_true(clocksync_wait_governor_wait(&gov)->sleep_min_ns == 0);
    assert_true(gov.spun == 11 && gov.slept == 32 && gov.fallbacks == 1 && gov.returns == 1);
    assert_true(gov.first_fallback_at == 11 && gov.first_switches == 1);
    /* The load is back at once: twice as many clean barriers next time. */
    assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_KEPT);
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_FELL_BACK);
    int kept = 0;
    while (barrier(&t, &gov, 0, &w) == CLOCKSYNC_WAIT_KEPT)
        kept++;
    assert_int_equal(kept + 1, 64);
    /* A preempted sleeping barrier starts the count again. */
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_FELL_BACK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_KEPT);
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_KEPT);
    kept = 0;
    while (barrier(&t, &gov, 0, &w) == CLOCKSYNC_WAIT_KEPT)
        kept++;
    assert_int_equal(kept + 1, 128);
    /* 32 clean spins after a return: the load has gone, 32 again. */
    for (int i = 0; i < 40; i++)
        assert_int_equal(barrier(&t, &gov, 0, &w), CLOCKSYNC_WAIT_KEPT);
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_FELL_BACK);
    assert_int_equal(gov.clean_needed, 32);
}

static void a_gap_shorter_than_a_slice_keeps_the_spin(void **state)
{
    (void)state;
    /* A kernel thread that ran 300 us on the core (a switch, but less than
     * the least slice a competing task gets): the spin is kept; a 1 ms gap
     * with a switch is a task that shares the core, and it falls back. */
    sim_time t = {.now_ns = 1000, .read_cost_ns = 25};
    clocksync_wait_governor gov;
    clocksync_barrier_wait spin = clocksync_barrier_wait_plan(0, &wakeup);
    clocksync_wait_governor_init(&gov, &spin, &wakeup);
    clocksync_wait_watch w;
    assert_int_equal(barrier(&t, &gov, 300000, &w), CLOCKSYNC_WAIT_KEPT);
    assert_true(!w.lost_core && w.switches == 1 && w.longest_gap_ns >= 300000);
    assert_int_equal(barrier(&t, &gov, 1000000, &w), CLOCKSYNC_WAIT_FELL_BACK);
    assert_true(w.lost_core);
    assert_true(gov.fallbacks == 1 && t.sleeps == 0);
}

static void a_gap_without_a_switch_keeps_the_spin(void **state)
{
    (void)state;
    sim_time t = {.now_ns = 1000, .read_cost_ns = 25, .host_steal = true};
    clocksync_wait_governor gov;
    clocksync_barrier_wait spin = clocksync_barrier_wait_plan(0, &wakeup);
    clocksync_wait_governor_init(&gov, &spin, &wakeup);
    clocksync_wait_watch w;
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_KEPT);
    assert_true(w.longest_gap_ns >= 3000000 && w.switches == 0 && !w.lost_core);
    /* Where switches are not known, the gap alone is a lost core. */
    clocksync_clock clock = {sim_now, &t};
    clocksync_sleeper blind = {sim_sleep, &t, NULL};
    t.preempt_at_ns = t.now_ns + 50000;
    clocksync_wait_until(&clock, &blind, &spin, t.now_ns + margin_ns, &w);
    assert_true(w.switches == -1 && w.lost_core);
}

static void a_deployment_that_sleeps_keeps_its_wait(void **state)
{
    (void)state;
    sim_time t = {.now_ns = 1000, .read_cost_ns = 25};
    clocksync_wait_governor gov;
    clocksync_barrier_wait sleep = clocksync_barrier_wait_plan(8e-3, &wakeup);
    clocksync_wait_governor_init(&gov, &sleep, &wakeup);
    clocksync_wait_watch w;
    assert_int_equal(barrier(&t, &gov, 3000000, &w), CLOCKSYNC_WAIT_KEPT);
    assert_true(w.lost_core);
    assert_true(clocksync_wait_governor_wait(&gov)->sleep_min_ns == 8000000);
    assert_true(gov.slept == 1 && gov.spun == 0 && gov.fallbacks == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_spin_sees_a_lost_core),
        cmocka_unit_test(a_preempted_spin_sleeps_until_clean_barriers_pass),
        cmocka_unit_test(a_gap_shorter_than_a_slice_keeps_the_spin),
        cmocka_unit_test(a_gap_without_a_switch_keeps_the_spin),
        cmocka_unit_test(a_deployment_that_sleeps_keeps_its_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
