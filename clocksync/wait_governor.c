/* Whether the window barrier spins or sleeps, from what its spins see of
 * the scheduler (clocksync.h, clocksync_wait_governor). No MPI. */
#include "clocksync/clocksync.h"

/* The sleep after a lost spin: longer than the slice of the process the
 * spin lost the core to (as deploy/plan.c's for a busy thread sharing the
 * core: 6 ms measured enough, 3 ms not), so the barrier wakes owed CPU
 * time and takes the core back at once. */
static const double fallback_sleep_s = 8e-3;
/* Clean barriers before spinning again: doubled while the spin keeps
 * losing the core soon after its return, so a lasting load costs one lost
 * spin in up to 1024 barriers, a passing one 32 sleeping barriers. */
static const int clean_base = 32, clean_max = 1024;

void clocksync_wait_governor_init(clocksync_wait_governor *gov,
                                  const clocksync_barrier_wait *planned,
                                  const clocksync_wakeup *wakeup)
{
    *gov = (clocksync_wait_governor){.planned = *planned, .clean_needed = clean_base};
    gov->fallback = planned->sleep_min_ns > 0
                        ? *planned
                        : clocksync_barrier_wait_plan(fallback_sleep_s, wakeup);
}

const clocksync_barrier_wait *clocksync_wait_governor_wait(const clocksync_wait_governor *gov)
{
    return gov->fell_back ? &gov->fallback : &gov->planned;
}

int clocksync_wait_governor_update(clocksync_wait_governor *gov, const clocksync_wait_watch *watch)
{
    gov->barriers++;
    bool lost = watch->lost_core;
    if (gov->planned.sleep_min_ns > 0) { /* the deployment sleeps: nothing to decide */
        gov->slept++;
        return CLOCKSYNC_WAIT_KEPT;
    }
    if (gov->fell_back) {
        gov->slept++;
        gov->clean = lost ? 0 : gov->clean + 1;
        if (gov->clean < gov->clean_needed)
            return CLOCKSYNC_WAIT_KEPT;
        gov->fell_back = false;
        gov->spun_since_return = 0;
        gov->returns++;
        return CLOCKSYNC_WAIT_RETURNED;
    }
    gov->spun++;
    gov->spun_since_return++;
    if (!lost) {
        if (gov->returns > 0 && gov->spun_since_return == clean_base)
            gov->clean_needed = clean_base; /* the load has gone: trust the spin again */
        return CLOCKSYNC_WAIT_KEPT;
    }
    if (gov->returns > 0 && gov->spun_since_return <= clean_base) {
        gov->clean_needed *= 2;
        if (gov->clean_needed > clean_max)
            gov->clean_needed = clean_max;
    }
    if (gov->fallbacks++ == 0) {
        gov->first_fallback_at = gov->barriers;
        gov->first_gap_ns = watch->longest_gap_ns;
        gov->first_switches = watch->switches;
    }
    gov->fell_back = true;
    gov->clean = 0;
    return CLOCKSYNC_WAIT_FELL_BACK;
}
