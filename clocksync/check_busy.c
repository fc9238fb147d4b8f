/* clocksync_check's busy thread (--busy-thread): a thread of the rank that
 * polls on the rank's core the whole run, as a library's progress thread
 * does (MPICH_ASYNC_PROGRESS), so that the barrier beside one is measured
 * with any library. Part of the tool, not of the library. */
#include "clocksync/check_run.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

struct check_busy {
    pthread_t thread;
    atomic_bool stop;
};

static void *poll_until_stopped(void *arg)
{
    check_busy *busy = arg;
    while (!atomic_load_explicit(&busy->stop, memory_order_relaxed))
        ;
    return NULL;
}

int check_busy_start(int rank, check_busy **out, char *why, size_t why_size)
{
    static check_busy busy; /* one per process: the tool starts one */
    /* The rank and its busy thread on one core of the rank's CPU set, the
     * rank-th (modulo its size): ranks launched unbound on one node each
     * take another core, as a deployment's binding gives them. */
    cpu_set_t allowed, set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(why, why_size, "reading the rank's CPU set: %s", strerror(errno));
        return -1;
    }
    int count = CPU_COUNT(&allowed), nth = rank % (count > 0 ? count : 1);
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed) && seen++ == nth)
            CPU_SET(cpu, &set);
    int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (err) {
        snprintf(why, why_size, "binding the rank to its core: %s", strerror(err));
        return -1;
    }
    atomic_init(&busy.stop, false);
    pthread_attr_t attr;
    if ((err = pthread_attr_init(&attr)) != 0 ||
        (err = pthread_attr_setaffinity_np(&attr, sizeof set, &set)) != 0 ||
        (err = pthread_create(&busy.thread, &attr, poll_until_stopped, &busy)) != 0) {
        snprintf(why, why_size, "starting the busy thread: %s", strerror(err));
        return -1;
    }
    pthread_attr_destroy(&attr);
    *out = &busy;
    return 0;
}

void check_busy_stop(check_busy *busy)
{
    if (!busy)
        return;
    atomic_store(&busy->stop, true);
    pthread_join(busy->thread, NULL);
}
