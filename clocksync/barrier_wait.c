/* How the window barrier waits for its deadline, and the machine's wake-up
 * latency that decides how long it spins (clocksync.h, "Waiting"). No MPI:
 * the clock and the sleep are substitutable, so a test gives a sleep that
 * wakes late and a clock that is simulated. */
#include "clocksync/clocksync.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* Where the barrier sleeps, it spins at least this long and this many times
 * the measured overshoot's p99: the p99 alone would leave one wake-up in a
 * hundred after the deadline, the factor covers the tail between p99 and
 * the worst of a few thousand barriers. */
static const int64_t spin_floor_ns = 20000;
static const double spin_p99_factor = 2.0;
/* ... and at most this: shorter than the least slice Linux gives a task
 * (0.75 ms, EEVDF's base slice), so the barrier that woke with the core
 * keeps it to the deadline beside the busy thread it slept for. */
static const int64_t spin_cap_ns = 500000;
/* The sleeps of the measurement: as long as the barrier's shortest, long
 * enough that a core reaches a deep idle state (they are entered after
 * tens to hundreds of microseconds idle). */
static const int64_t wakeup_request_ns = 500000;

static void system_sleep_ns(void *ctx, int64_t ns)
{
    (void)ctx;
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
        ;
}

static long system_involuntary_switches(void *ctx)
{
    (void)ctx;
    struct rusage usage;
    return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_nivcsw : -1;
}

clocksync_sleeper clocksync_system_sleeper(void)
{
    return (clocksync_sleeper){.sleep_ns = system_sleep_ns,
                               .ctx = NULL,
                               .involuntary_switches = system_involuntary_switches};
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int clocksync_wakeup_measure(const clocksync_clock *clock, const clocksync_sleeper *sleeper,
                             int samples, clocksync_wakeup *out)
{
    if (samples < 1)
        return -1;
    double *over_ns = malloc((size_t)samples * sizeof *over_ns);
    if (!over_ns)
        return -1;
    for (int i = 0; i < samples; i++) {
        int64_t before_ns = clocksync_clock_now_ns(clock);
        sleeper->sleep_ns(sleeper->ctx, wakeup_request_ns);
        int64_t slept_ns = clocksync_clock_now_ns(clock) - before_ns;
        over_ns[i] = (double)(slept_ns > wakeup_request_ns ? slept_ns - wakeup_request_ns : 0);
    }
    qsort(over_ns, (size_t)samples, sizeof *over_ns, compare_double);
    /* Nearest rank: the p99 of 200 samples is the second largest. */
    int p99 = (int)ceil(0.99 * samples) - 1;
    *out = (clocksync_wakeup){
        .median_ns = samples % 2 ? over_ns[samples / 2]
                                 : 0.5 * (over_ns[samples / 2 - 1] + over_ns[samples / 2]),
        .p99_ns = over_ns[p99 < 0 ? 0 : p99],
        .max_ns = over_ns[samples - 1],
        .samples = samples,
        .request_ns = wakeup_request_ns};
    free(over_ns);
    return 0;
}

clocksync_barrier_wait clocksync_barrier_wait_plan(double barrier_sleep_min_s,
                                                   const clocksync_wakeup *wakeup)
{
    int64_t sleep_min_ns = (int64_t)(barrier_sleep_min_s * 1e9);
    if (sleep_min_ns <= 0)
        return (clocksync_barrier_wait){.sleep_min_ns = 0, .spin_ns = 0};
    double wanted_ns = wakeup ? spin_p99_factor * wakeup->p99_ns : 0;
    int64_t spin_ns = wanted_ns > (double)spin_floor_ns ? (int64_t)ceil(wanted_ns) : spin_floor_ns;
    /* A longer spin would lose the core to the thread it slept for: the
     * wake-up then cannot be covered. */
    bool capped = spin_ns > spin_cap_ns;
    return (clocksync_barrier_wait){.sleep_min_ns = sleep_min_ns,
                                    .spin_ns = capped ? spin_cap_ns : spin_ns,
                                    .spin_capped = capped};
}

int64_t clocksync_barrier_wait_margin_ns(const clocksync_barrier_wait *wait, int64_t margin_ns)
{
    int64_t least_ns = wait->sleep_min_ns > 0 ? wait->sleep_min_ns + wait->spin_ns : 0;
    return margin_ns > least_ns ? margin_ns : least_ns;
}

/* A gap between two reads of the clock this long is the thread off the
 * core: a read takes tens of ns, an interrupt a few us. */
static const int64_t lost_core_gap_ns = 100000;
/* The least slice the scheduler gives another runnable task (EEVDF's base
 * slice, 0.75 ms): a gap this long with a switch is a task that shares the
 * core, which sleeping yields to; a shorter one is a kernel thread or a
 * daemon's wake-up (tens to hundreds of us on a virtual machine), which
 * sleeping would only add its wake-up latency to. */
static const int64_t least_slice_ns = 750000;

static long switches_now(const clocksync_sleeper *sleeper)
{
    return sleeper->involuntary_switches ? sleeper->involuntary_switches(sleeper->ctx) : -1;
}

int64_t clocksync_wait_until(const clocksync_clock *clock, const clocksync_sleeper *sleeper,
                             const clocksync_barrier_wait *wait, int64_t deadline_local_ns,
                             clocksync_wait_watch *watch)
{
    int64_t now_ns = clocksync_clock_now_ns(clock);
    /* Relative: the clock may be any clocksync_clock; the spin ends on it. */
    if (wait->sleep_min_ns > 0 && deadline_local_ns - now_ns > wait->spin_ns) {
        sleeper->sleep_ns(sleeper->ctx, deadline_local_ns - now_ns - wait->spin_ns);
        now_ns = clocksync_clock_now_ns(clock);
    }
    if (!watch) {
        while (now_ns < deadline_local_ns)
            now_ns = clocksync_clock_now_ns(clock);
        return now_ns;
    }
    long switches_before = switches_now(sleeper);
    *watch = (clocksync_wait_watch){.longest_gap_ns = 0, .switches = -1, .lost_core = false};
    bool lost = false;
    while (now_ns < deadline_local_ns) {
        int64_t prev_ns = now_ns;
        now_ns = clocksync_clock_now_ns(clock);
        if (now_ns - prev_ns > watch->longest_gap_ns)
            watch->longest_gap_ns = now_ns - prev_ns;
        /* Read once, at the first gap: the switch that made it is counted. */
        if (!lost && now_ns - prev_ns >= lost_core_gap_ns) {
            lost = true;
            long after = switches_now(sleeper);
            watch->switches = after >= 0 && switches_before >= 0 ? after - switches_before : -1;
        }
    }
    if (!lost && switches_before >= 0)
        watch->switches = 0;
    /* Another task took the core for a slice; a gap without a switch is the
     * host's (a virtual CPU descheduled) or an interrupt's, a shorter one a
     * passing kernel thread's: no sleep helps those. */
    watch->lost_core = lost && watch->switches != 0 && watch->longest_gap_ns >= least_slice_ns;
    return now_ns;
}
