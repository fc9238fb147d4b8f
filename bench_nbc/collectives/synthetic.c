/* Known-answer "collectives": rows of the collectives table whose
 * behaviour is known, so the whole pipeline can be checked against the
 * answer. Their "byte size" S is a duration in nanoseconds, so the same
 * calibration code finds it; rank k works (1 + k/10) S, so the ranks are
 * skewed as in a real collective and the answers test the spans and the
 * slowest-rank statistics, not one rank's view.
 *   synthetic_perfect  the operation runs without the CPU while the rank
 *                      computes; the wait only polls until it is over:
 *                      perfect overlap (r_overhead ~ 0, r_comm ~ 0).
 *   synthetic_serial   nothing happens at the start; the wait performs the
 *                      whole duration on the CPU: no progress (r_overhead ~ 1).
 *   synthetic_steal    a helper thread pinned to the core of compute thread 0
 *                      burns the duration in CPU time from the start: the
 *                      operation progresses, by taking that CPU time from the
 *                      computation (r_comp_slowdown > 1). It runs SCHED_FIFO
 *                      where allowed (root, or an RLIMIT_RTPRIO), so it takes
 *                      the core at once as an interrupt-driven progress
 *                      engine would; otherwise the scheduler may let a short
 *                      computation finish first (EEVDF does not preempt for
 *                      a waking thread), and the answer is less clear-cut.
 *   synthetic_intermittent  in a share q (run.background_share) of its
 *                      starts it runs as synthetic_perfect, in the others as
 *                      synthetic_serial: the two regimes of a progress thread
 *                      on a shared core, which in some blocks completes the
 *                      collective during the computation and in others is
 *                      held until the wait. Its truth, from eq. 1 on median
 *                      spans (the analysis's estimand): a background block
 *                      spans max(T_comp, T_comm), a held one T_comp + T_comm,
 *                      and both references are the duration either way, so
 *                      the median span is the background one when q > 1/2
 *                      (r_overhead 0, r_comm max(0, 1 - T_comp/T_comm)) and
 *                      the held one when q < 1/2 (r_overhead 1, r_comm 1);
 *                      eq. 1 on the mean span reads 1 - q. */
#include "bench_nbc/collectives/collectives.h"
#include "clocksync/clocksync.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct synthetic_engine {
    int64_t deadline_ns;       /* perfect: end on clocksync_monotonic_ns; steal: CPU time to burn */
    uint64_t starts;           /* intermittent: starts so far */
    bool background;           /* intermittent: this start runs as synthetic_perfect */
    synthetic_steal_sink sink; /* steal under the sleep kernel: no helper spins */
    bool modelled;
    int64_t modelled_end_ns;
    /* synthetic_steal's spinning helper */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool has_thread, work, done, quit;
};

static int64_t duration_ns(const coll_instance *inst)
{
    return (int64_t)inst->bytes + (int64_t)inst->bytes * inst->rank / 10;
}

/* Sleeps until deadline_ns of the measuring clock (clocksync_monotonic_ns,
 * which clock_nanosleep cannot take when it is CLOCK_MONOTONIC_RAW): relative
 * sleeps until the deadline has passed. */
static void sleep_until(int64_t deadline_ns)
{
    for (int64_t left_ns; (left_ns = deadline_ns - clocksync_monotonic_ns()) > 0;) {
        struct timespec ts = {.tv_sec = left_ns / 1000000000, .tv_nsec = left_ns % 1000000000};
        nanosleep(&ts, NULL);
    }
}

static void spin_until(int64_t deadline_ns)
{
    while (clocksync_monotonic_ns() < deadline_ns)
        ;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Fixed work, as a library's own progress is: the duration in this thread's
 * CPU time, so a neighbour that takes the core lengthens it as it lengthens
 * the computation. A spin until a wall-clock deadline would not: the
 * neighbour's share of the core would fall into the spin for free in the
 * overlap step and in comm_ref, but into the computation in comp_ref, and
 * eq. 1 would read the difference as overlap. */
static void burn_cpu_ns(int64_t cpu_ns)
{
    int64_t until_cpu_ns = thread_cpu_ns() + cpu_ns;
    while (thread_cpu_ns() < until_cpu_ns)
        ;
}

int synthetic_start_perfect(coll_instance *inst, MPI_Request *request)
{
    inst->synthetic->deadline_ns = clocksync_monotonic_ns() + duration_ns(inst);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* The wait polls until the end, as a busy-polling library's MPI_Wait does,
 * so the rank stays runnable through comm_ref and the overlap step alike.
 * A sleeping wait would not: beside a process that shares the core, a rank
 * that wakes right after its computation has used its share of the core
 * waits for the neighbour's slice (up to a few ms), one that wakes after
 * sleeping all of comm_ref does not, and eq. 1 would read that lateness as
 * missing overlap. Under the sleep kernel (ranks sharing few cores) it
 * sleeps, as the computation does. */
int synthetic_wait_perfect(coll_instance *inst, MPI_Request *request)
{
    (void)request;
    if (inst->synthetic->modelled)
        sleep_until(inst->synthetic->deadline_ns);
    else
        spin_until(inst->synthetic->deadline_ns);
    return MPI_SUCCESS;
}

int synthetic_start_serial(coll_instance *inst, MPI_Request *request)
{
    (void)inst;
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* Under the sleep kernel the computation is wall time (it sleeps), and so
 * is this wait: ranks sharing few cores would stretch CPU time in the
 * references and the steps at random. */
int synthetic_wait_serial(coll_instance *inst, MPI_Request *request)
{
    (void)request;
    if (inst->synthetic->modelled)
        spin_until(clocksync_monotonic_ns() + duration_ns(inst));
    else
        burn_cpu_ns(duration_ns(inst));
    return MPI_SUCCESS;
}

/* The start's turn: frac((start + 1) x (golden ratio - 1)) < q, a Weyl
 * sequence, so every run of n starts holds q n background ones to within
 * about log n, where random draws miss by sqrt(n). The overlap steps, which
 * the block order interleaves with comm_ref's starts at random, are spread
 * less evenly, still better than random: simulated, the held blocks are
 * the majority of 12 overlap steps in 2.6 % of the cells at q = 0.75 (5.4 %
 * for random draws) and in none of 20,000 at q = 0.85 (0.5 %). */
bool synthetic_background_turn(uint64_t start, double background_share)
{
    const double golden_minus_one = 0.6180339887498949;
    double phase = (double)(start + 1) * golden_minus_one;
    return phase - (double)(uint64_t)phase < background_share;
}

int synthetic_start_intermittent(coll_instance *inst, MPI_Request *request)
{
    struct synthetic_engine *e = inst->synthetic;
    e->background = synthetic_background_turn(e->starts++, inst->options.background_share);
    if (e->background)
        return synthetic_start_perfect(inst, request);
    return synthetic_start_serial(inst, request);
}

int synthetic_wait_intermittent(coll_instance *inst, MPI_Request *request)
{
    if (inst->synthetic->background)
        return synthetic_wait_perfect(inst, request);
    return synthetic_wait_serial(inst, request);
}

/* How long after the start the helper begins to take the core. */
static const int64_t steal_delay_ns = 100000;

/* Burns the duration in CPU time, not wall time: on a core it shares with
 * the computation it takes exactly that much from it. */
static void *steal_main(void *arg)
{
    struct synthetic_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->work && !e->quit)
            pthread_cond_wait(&e->cond, &e->lock);
        if (e->quit)
            break;
        int64_t budget_ns = e->deadline_ns; /* the duration, for this engine */
        pthread_mutex_unlock(&e->lock);
        /* Let the start call return first: a real-time helper would
         * otherwise do all its work inside it, like a blocking call. */
        sleep_until(clocksync_monotonic_ns() + steal_delay_ns);
        burn_cpu_ns(budget_ns);
        pthread_mutex_lock(&e->lock);
        e->work = false;
        e->done = true;
        pthread_cond_broadcast(&e->cond);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

void synthetic_model_steal(coll_instance *inst, const synthetic_steal_sink *sink)
{
    for (int i = 0; i < inst->part_count; i++)
        synthetic_model_steal(&inst->parts[i], sink);
    if (inst->synthetic) {
        inst->synthetic->sink = *sink;
        inst->synthetic->modelled = true;
    }
}

int synthetic_start_steal(coll_instance *inst, MPI_Request *request)
{
    struct synthetic_engine *e = inst->synthetic;
    *request = MPI_REQUEST_NULL;
    if (e->modelled) {
        e->sink.add_ns(e->sink.context, duration_ns(inst));
        e->modelled_end_ns = clocksync_monotonic_ns() + steal_delay_ns + duration_ns(inst);
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&e->lock);
    e->deadline_ns = duration_ns(inst);
    e->done = false;
    e->work = true;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
    return MPI_SUCCESS;
}

int synthetic_wait_steal(coll_instance *inst, MPI_Request *request)
{
    (void)request;
    struct synthetic_engine *e = inst->synthetic;
    if (e->modelled) {
        /* the helper would be done then; a step that did not run meanwhile
         * lost nothing to it */
        sleep_until(e->modelled_end_ns);
        e->sink.clear(e->sink.context);
        return MPI_SUCCESS;
    }
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
    /* The core the caller (compute thread 0) runs on: the helper competes
     * with the computation there. */
    int cpu = sched_getcpu();
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc == 0 && cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        rc = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    }
    if (rc == 0)
        rc = pthread_mutex_init(&e->lock, NULL);
    if (rc == 0)
        rc = pthread_cond_init(&e->cond, NULL);
    if (rc == 0) {
        pthread_attr_t fifo = attr;
        struct sched_param priority = {.sched_priority = 1};
        bool realtime = pthread_attr_setinheritsched(&fifo, PTHREAD_EXPLICIT_SCHED) == 0 &&
                        pthread_attr_setschedpolicy(&fifo, SCHED_FIFO) == 0 &&
                        pthread_attr_setschedparam(&fifo, &priority) == 0;
        rc = realtime ? pthread_create(&e->thread, &fifo, steal_main, e) : EPERM;
        if (rc == EPERM) /* not allowed real-time: an ordinary thread */
            rc = pthread_create(&e->thread, &attr, steal_main, e);
    }
    pthread_attr_destroy(&attr);
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
