/* The watchdog: a thread per rank that notices when a measurement, a
 * barrier or a collective has not returned long after it should have (a
 * lost message, a dead node, a library deadlock) and ends the job with a
 * message saying which cell, which rank and which call, instead of letting
 * it hang until the batch system's time limit. */
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const nbc_phase_names[PHASE_COUNT] = {
    [PHASE_IDLE] = "nothing",
    [PHASE_BARRIER] = "the window barrier",
    [PHASE_START] = "the start call",
    [PHASE_COMPUTE] = "the computation",
    [PHASE_WAIT] = "the wait",
    [PHASE_SETTLE] = "the late-rank check (MPI_Allreduce)",
    [PHASE_CALIBRATION] = "the clock calibration",
};

struct watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool quit;
    int rank;
    double factor, floor_s;
    atomic_int phase;      /* nbc_phase, written by the main thread */
    atomic_llong armed_ns; /* CLOCK_MONOTONIC when armed, 0 when not */
    atomic_llong limit_ns; /* how long the armed section may take */
    char context[256];     /* what is being measured (under lock) */
    double expected_s;
    watchdog_fire_fn on_fire;
    void *on_fire_context;
};

static int64_t now_ns(void)
{
    return clocksync_monotonic_ns();
}

static void *watchdog_main(void *arg)
{
    watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->quit) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200000000; /* look five times a second */
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        int rc = pthread_cond_timedwait(&w->wake, &w->lock, &until);
        if (rc != 0 && rc != ETIMEDOUT)
            break;
        int64_t armed = atomic_load(&w->armed_ns), limit = atomic_load(&w->limit_ns);
        if (w->quit || armed == 0 || now_ns() - armed <= limit)
            continue;
        char message[1024];
        snprintf(message, sizeof message,
                 "watchdog: rank %d: %s has not returned after %.1f s in %s (expected about "
                 "%.3g s; the limit is watchdog.factor x that, at least watchdog.floor_s = %.1f "
                 "s); ending the job",
                 w->rank, nbc_phase_names[atomic_load(&w->phase)],
                 (double)(now_ns() - armed) * 1e-9, w->context, w->expected_s,
                 (double)limit * 1e-9);
        pthread_mutex_unlock(&w->lock);
        /* Rank 0 writes the run's status first; the others give it time. */
        if (w->rank != 0)
            sleep(2);
        fprintf(stderr, "bench_nbc: %s\n", message);
        fflush(stderr);
        if (w->on_fire)
            w->on_fire(w->on_fire_context, message);
        MPI_Abort(MPI_COMM_WORLD, 4);
        _exit(4);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

watchdog *watchdog_start(int rank, double factor, double floor_s, watchdog_fire_fn on_fire,
                         void *on_fire_context, char *err, size_t errlen)
{
    watchdog *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory for the watchdog");
        return NULL;
    }
    *w = (watchdog){.rank = rank,
                    .factor = factor,
                    .floor_s = floor_s,
                    .on_fire = on_fire,
                    .on_fire_context = on_fire_context};
    snprintf(w->context, sizeof w->context, "set-up");
    int rc = pthread_mutex_init(&w->lock, NULL);
    if (rc == 0)
        rc = pthread_cond_init(&w->wake, NULL);
    if (rc == 0)
        rc = pthread_create(&w->thread, NULL, watchdog_main, w);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the watchdog thread: %s", strerror(rc));
        free(w);
        return NULL;
    }
    return w;
}

void watchdog_context(watchdog *w, const char *context)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    snprintf(w->context, sizeof w->context, "%s", context);
    pthread_mutex_unlock(&w->lock);
}

void watchdog_arm(watchdog *w, double expected_s)
{
    if (!w)
        return;
    double limit_s = expected_s * w->factor;
    if (limit_s < w->floor_s)
        limit_s = w->floor_s;
    pthread_mutex_lock(&w->lock);
    w->expected_s = expected_s;
    pthread_mutex_unlock(&w->lock);
    atomic_store(&w->limit_ns, (long long)(limit_s * 1e9));
    atomic_store(&w->armed_ns, now_ns());
}

void watchdog_phase(watchdog *w, nbc_phase phase)
{
    if (w)
        atomic_store_explicit(&w->phase, phase, memory_order_relaxed);
}

void watchdog_disarm(watchdog *w)
{
    if (!w)
        return;
    atomic_store(&w->armed_ns, 0);
    atomic_store_explicit(&w->phase, PHASE_IDLE, memory_order_relaxed);
}

int watchdog_stop(watchdog *w)
{
    if (!w)
        return 0;
    pthread_mutex_lock(&w->lock);
    w->quit = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    int rc = pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
    return rc;
}
