/* One attempt of a measurement behind the window barrier (Algorithm 1 of
 * the paper and its two references), judged late when any rank left the
 * barrier late; the caller redoes what a late attempt spoils (sweep.c: the
 * whole block). */
#include "bench_nbc/collectives/datacheck.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct test_context {
    coll_requests *requests;
    int error;
} test_context;

/* Manual progression (progress.mode=test:K): thread 0 calls MPI_Testall
 * over the start's requests (one, or a scenario's parts) between compute
 * chunks; once they completed they are MPI_REQUEST_NULL and the later tests
 * return at once. */
static void test_between_chunks(void *context)
{
    test_context *t = context;
    if (t->requests && t->error == MPI_SUCCESS)
        t->error = coll_instance_test_all(t->requests);
}

static int compute(nbc_run *run, size_t matrix_n, double t_comp_s, coll_requests *requests)
{
    compute_step_timing timing;
    int rc;
    if (run->progress == NBC_PROGRESS_TEST) {
        /* The reference runs the same chunks (with nothing to test), so the
         * chunking costs the same on both sides of r_comp_slowdown. */
        test_context t = {.requests = requests, .error = MPI_SUCCESS};
        int chunks =
            deploy_test_chunks(run->test_chunks, run->cfg->progress.test_period_us, t_comp_s);
        rc = compute_step_chunked(run->team, matrix_n, chunks, test_between_chunks, &t, &timing);
        if (t.error != MPI_SUCCESS)
            return t.error;
    } else {
        rc = compute_step(run->team, matrix_n, &timing);
    }
    return rc == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* BENCH_NBC_FAULT=hang:RANK:CELL makes RANK stop in the wait of CELL's
 * overlap measurement, as if a message were lost: the watchdog test. */
static void simulate_hang(void)
{
    for (;;)
        sleep(1);
}

/* BENCH_NBC_FAULT=late:RANK:CELL makes RANK say it left every window
 * barrier of CELL twice the tolerance late, as a rank descheduled while
 * spinning would: every attempt is late and the retries run out. */
static void simulate_late_exit(clocksync_barrier_result *barrier, int64_t tolerance_ns)
{
    barrier->exit_late_ns += 2 * tolerance_ns;
    barrier->on_time = false;
}

static void activate_progress(nbc_run *run)
{
    if (run->progress_thread)
        progress_thread_activate(run->progress_thread);
}

/* The timed region of one kind; timestamps on the clock the model converts. */
static int measure_once(nbc_run *run, nbc_kind kind, coll_instance *inst, size_t matrix_n,
                        double t_comp_s, nbc_sample *s)
{
    const clocksync_ctx *sync = run->sync;
    coll_requests requests = {.count = 0};
    int err = MPI_SUCCESS;
    /* The suite's progress thread, parked across the barrier, is woken right
     * after t1, in every kind alike: woken before t1 on a shared core, it
     * took the core for its slice as the rank left the barrier, and the
     * start skew made the attempt late. */
    switch (nbc_kind_measures(kind)) {
    case KIND_COMM_REF: /* I<coll> directly followed by MPI_Wait (section 5.1) */
        s->t_ns[0] = clocksync_now_local_ns(sync);
        activate_progress(run);
        watchdog_phase(run->watchdog, PHASE_START);
        err = coll_instance_start_all(inst, &requests);
        s->t_ns[1] = s->t_ns[2] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_WAIT);
        if (err == MPI_SUCCESS)
            err = coll_instance_wait_all(inst, &requests);
        s->t_ns[3] = clocksync_now_local_ns(sync);
        break;
    case KIND_COMP_REF:
        s->t_ns[0] = s->t_ns[1] = clocksync_now_local_ns(sync);
        activate_progress(run);
        watchdog_phase(run->watchdog, PHASE_COMPUTE);
        err = compute(run, matrix_n, t_comp_s, NULL);
        s->t_ns[2] = s->t_ns[3] = clocksync_now_local_ns(sync);
        break;
    case KIND_OVERLAP: /* Algorithm 1: t1; I<coll>; t2; compute; t3; Wait; t4 */
        s->t_ns[0] = clocksync_now_local_ns(sync);
        activate_progress(run);
        watchdog_phase(run->watchdog, PHASE_START);
        err = coll_instance_start_all(inst, &requests);
        s->t_ns[1] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_COMPUTE);
        if (err == MPI_SUCCESS)
            err = compute(run, matrix_n, t_comp_s, &requests);
        s->t_ns[2] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_WAIT);
        if (run->fault_hang)
            simulate_hang(); /* fault injection for the watchdog's test */
        if (err == MPI_SUCCESS)
            err = coll_instance_wait_all(inst, &requests);
        s->t_ns[3] = clocksync_now_local_ns(sync);
        break;
    default:
        err = MPI_ERR_ARG;
    }
    if (run->progress_thread)
        progress_thread_deactivate(run->progress_thread);
    return err;
}

/* After the wait, outside the timed region: every rank checks what it
 * received; a wrong element on any rank fails the run on all of them. */
static int verify_data(nbc_run *run, const coll_instance *inst)
{
    char err[512];
    int bad = nbc_datacheck_verify(inst, err, sizeof err) != 0, any_bad;
    if (bad)
        fprintf(stderr, "bench_nbc: %s\n", err);
    int rc = MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, run->comm);
    return rc != MPI_SUCCESS ? rc : (any_bad ? MPI_ERR_OTHER : MPI_SUCCESS);
}

int64_t nbc_lateness_tolerance_ns(double late_tolerance, double t_comm_s, double t_comp_s,
                                  int64_t precision_ns)
{
    /* Lateness skews the start of a measurement; the error it adds to
     * r_overhead (eq. 1) is divided by the shorter reference, so that is
     * what it is judged against. */
    int64_t share_ns = (int64_t)(late_tolerance * fmin(t_comm_s, t_comp_s) * 1e9);
    return share_ns > precision_ns ? share_ns : precision_ns;
}

void nbc_attempt_log_free(nbc_attempt_log *log)
{
    free(log->items);
    *log = (nbc_attempt_log){0};
}

static nbc_attempt *attempt_log_add(nbc_attempt_log *log)
{
    if (log->count == log->capacity) {
        size_t capacity = log->capacity ? 2 * log->capacity : 64;
        nbc_attempt *items = realloc(log->items, capacity * sizeof *items);
        if (!items)
            return NULL;
        log->items = items;
        log->capacity = capacity;
    }
    nbc_attempt *a = &log->items[log->count++];
    *a = (nbc_attempt){0};
    return a;
}

enum { FOREIGN_WAIT_MIN_TOLERANCE_NS = 10000 };

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int nbc_measure(nbc_run *run, const nbc_measure_spec *spec, nbc_attempt_log *log, bool *late)
{
    *late = true;
    bool moves_data = spec->inst && nbc_kind_measures(spec->kind) != KIND_COMP_REF;
    /* Every start gets fresh data, so a redone start that delivered nothing
     * cannot pass on the previous one's. */
    if (run->check && moves_data && nbc_datacheck_fill(spec->inst) != 0)
        return MPI_ERR_OTHER;
    nbc_attempt *a = attempt_log_add(log);
    if (!a)
        return MPI_ERR_NO_MEM;
    *a = (nbc_attempt){.seq = run->next_seq++,
                       .block = spec->block,
                       .attempt = spec->attempt,
                       .kind = spec->kind,
                       .tolerance_ns = spec->tolerance_ns,
                       .foreign_wait_ns = -1};
    /* The scheduler's counters (sched.csv) are read before the barrier and
     * after t4, the main thread's run-queue delay also between the barrier
     * and t1 (foreign_wait_ns): never inside t1..t4. */
    nbc_threads_before_attempt(run->threads);
    watchdog_arm(run->watchdog, spec->expected_s);
    watchdog_phase(run->watchdog, PHASE_BARRIER);
    clocksync_barrier_result barrier;
    int err = clocksync_window_barrier(run->sync, spec->tolerance_ns, &barrier);
    a->wall_start_ns = realtime_ns();
    /* The read (one pread, about 1 us) lies between the barrier and t1, so
     * its jitter adds to the start skew: where the lateness tolerance is
     * under ten times that, the wait is left unread (-1). */
    if (spec->tolerance_ns >= FOREIGN_WAIT_MIN_TOLERANCE_NS)
        nbc_threads_at_t1(run->threads);
    if (err == MPI_SUCCESS)
        err = measure_once(run, spec->kind, spec->inst, spec->matrix_n, spec->t_comp_s, &a->sample);
    if (err == MPI_SUCCESS)
        err = nbc_threads_after_attempt(run->threads, a);
    a->foreign_wait_ns = nbc_threads_foreign_wait_ns(run->threads);
    /* Whether every rank was on time is only asked after the timed region,
     * so it adds nothing before it. */
    bool any_late = false;
    watchdog_phase(run->watchdog, PHASE_SETTLE);
    if (err == MPI_SUCCESS && run->fault_late)
        simulate_late_exit(&barrier, spec->tolerance_ns); /* the retries' test */
    if (err == MPI_SUCCESS)
        err = clocksync_settle_attempt(run->sync, &barrier, a->sample.t_ns[0], spec->tolerance_ns,
                                       &any_late, &a->start_skew_ns);
    watchdog_disarm(run->watchdog);
    if (err != MPI_SUCCESS)
        return err;
    a->deadline_global_ns = barrier.deadline_global_ns;
    a->exit_late_ns = barrier.exit_late_ns;
    a->late = any_late;
    *late = any_late;
    return !any_late && run->check && moves_data ? verify_data(run, spec->inst) : MPI_SUCCESS;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int nbc_measure_barrier_precision(nbc_run *run, int count, int64_t *precision_ns)
{
    int64_t *latest = malloc((size_t)count * sizeof *latest);
    if (!latest)
        return MPI_ERR_NO_MEM;
    int err = MPI_SUCCESS;
    for (int i = 0; i < count && err == MPI_SUCCESS; i++) {
        clocksync_barrier_result barrier;
        bool any_late;
        err = clocksync_window_barrier(run->sync, INT64_MAX, &barrier);
        if (err == MPI_SUCCESS)
            err = clocksync_barrier_settle(run->sync, &barrier, &any_late);
        if (err == MPI_SUCCESS)
            err = MPI_Allreduce(&barrier.exit_late_ns, &latest[i], 1, MPI_INT64_T, MPI_MAX,
                                run->comm);
    }
    if (err == MPI_SUCCESS) {
        qsort(latest, (size_t)count, sizeof *latest, compare_int64);
        int64_t p90 = latest[(count * 9) / 10 < count ? (count * 9) / 10 : count - 1];
        /* Below a microsecond the tolerance would judge the clock reads,
         * not the barrier. */
        *precision_ns = p90 > 1000 ? p90 : 1000;
    }
    free(latest);
    return err;
}

static void team_add_stolen_ns(void *team, int64_t stolen_ns)
{
    compute_team_add_stolen_ns(team, stolen_ns);
}

static void team_clear_stolen(void *team)
{
    compute_team_clear_stolen(team);
}

/* Collective: allocates the buffers of a message size; every rank learns
 * whether any could not. */
int nbc_prepare_instance(nbc_run *run, size_t bytes, coll_instance *inst)
{
    char err[256];
    int failed = coll_instance_prepare(inst, run->coll, run->comm, bytes, &run->coll_options, err,
                                       sizeof err) != 0;
    if (!failed && run->coll->synthetic && compute_team_kernel(run->team) == COMPUTE_KERNEL_SLEEP)
        synthetic_model_steal(inst, &(synthetic_steal_sink){.context = run->team,
                                                            .add_ns = team_add_stolen_ns,
                                                            .clear = team_clear_stolen});
    int any_failed;
    int rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc == MPI_SUCCESS && any_failed) {
        if (failed)
            fprintf(stderr, "bench_nbc: rank %d: %s\n", run->rank, err);
        else
            coll_instance_release(inst);
        rc = MPI_ERR_NO_MEM;
    }
    return rc;
}

int nbc_global_span_s(nbc_run *run, int64_t start_local_ns, int64_t end_local_ns, double *span_s)
{
    const clocksync_model *model = clocksync_get_model(run->sync);
    /* One MAX reduction gives both max(end) and min(start) = -max(-start). */
    int64_t mine[2] = {-clocksync_model_to_global(model, start_local_ns),
                       clocksync_model_to_global(model, end_local_ns)};
    int64_t all[2];
    int err = MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, run->comm);
    if (err == MPI_SUCCESS)
        *span_s = (double)(all[1] + all[0]) * 1e-9;
    return err;
}

bool nbc_stop_requested(const nbc_run *run)
{
    int mine = *run->stop_signal != 0, any = 0;
    if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, run->comm) != MPI_SUCCESS)
        MPI_Abort(run->comm, 1);
    return any != 0;
}
