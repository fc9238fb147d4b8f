/* Known-answer "collectives" (issue: validation): rows of the collectives
 * table whose behaviour is known, so the whole pipeline can be checked
 * against the answer. Their "byte size" is the communication duration in
 * nanoseconds, so the same calibration code finds it.
 *   synthetic_perfect  the operation runs without the CPU while the rank
 *                      computes; the wait only sleeps until it is over:
 *                      perfect overlap (r_overhead ~ 0, r_comm ~ 0).
 *   synthetic_serial   nothing happens at the start; the wait performs the
 *                      whole duration on the CPU: no progress (r_overhead ~ 1).
 *   synthetic_steal    a helper thread, on the computing core, spins for the
 *                      duration from the start: the computation slows down
 *                      (r_comp_slowdown > 1) while communication progresses. */
#include "bench_nbc/collectives.h"
#include "clocksync/clocksync.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct synthetic_engine {
    int64_t deadline_ns; /* CLOCK_MONOTONIC instant the operation completes */
    /* synthetic_steal's spinning helper */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool has_thread, work, done, quit;
};

static int64_t duration_ns(const coll_instance *inst)
{
    return (int64_t)inst->bytes;
}

static void sleep_until(int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void spin_until(int64_t deadline_ns)
{
    while (clocksync_monotonic_ns() < deadline_ns)
        ;
}

int synthetic_start_perfect(coll_instance *inst, MPI_Request *request)
{
    inst->synthetic->deadline_ns = clocksync_monotonic_ns() + duration_ns(inst);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int synthetic_wait_perfect(coll_instance *inst, MPI_Request *request)
{
    (void)request;
    sleep_until(inst->synthetic->deadline_ns);
    return MPI_SUCCESS;
}

int synthetic_start_serial(coll_instance *inst, MPI_Request *request)
{
    (void)inst;
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int synthetic_wait_serial(coll_instance *inst, MPI_Request *request)
{
    (void)request;
    spin_until(clocksync_monotonic_ns() + duration_ns(inst));
    return MPI_SUCCESS;
}

/* The helper inherits the affinity of the thread that prepared the
 * instance: the main thread, which is compute thread 0 on its core. */
static void *steal_main(void *arg)
{
    struct synthetic_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->work && !e->quit)
            pthread_cond_wait(&e->cond, &e->lock);
        if (e->quit)
            break;
        int64_t deadline = e->deadline_ns;
        pthread_mutex_unlock(&e->lock);
        spin_until(deadline);
        pthread_mutex_lock(&e->lock);
        e->work = false;
        e->done = true;
        pthread_cond_broadcast(&e->cond);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

int synthetic_start_steal(coll_instance *inst, MPI_Request *request)
{
    struct synthetic_engine *e = inst->synthetic;
    pthread_mutex_lock(&e->lock);
    e->deadline_ns = clocksync_monotonic_ns() + duration_ns(inst);
    e->done = false;
    e->work = true;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int synthetic_wait_steal(coll_instance *inst, MPI_Request *request)
{
    (void)request;
    struct synthetic_engine *e = inst->synthetic;
    pthread_mutex_lock(&e->lock);
    while (!e->done)
        pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
    return MPI_SUCCESS;
}

int synthetic_prepare(coll_instance *inst, bool with_thread)
{
    struct synthetic_engine *e = calloc(1, sizeof *e);
    if (!e)
        return -1;
    inst->synthetic = e;
    if (!with_thread)
        return 0;
    int rc = pthread_mutex_init(&e->lock, NULL);
    if (rc == 0)
        rc = pthread_cond_init(&e->cond, NULL);
    if (rc == 0)
        rc = pthread_create(&e->thread, NULL, steal_main, e);
    e->has_thread = rc == 0;
    return rc == 0 ? 0 : -1;
}

void synthetic_release(coll_instance *inst)
{
    struct synthetic_engine *e = inst->synthetic;
    if (!e)
        return;
    if (e->has_thread) {
        pthread_mutex_lock(&e->lock);
        e->quit = true;
        pthread_cond_broadcast(&e->cond);
        pthread_mutex_unlock(&e->lock);
        pthread_join(e->thread, NULL);
        pthread_cond_destroy(&e->cond);
        pthread_mutex_destroy(&e->lock);
    }
    free(e);
    inst->synthetic = NULL;
}
