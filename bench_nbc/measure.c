/* One measurement behind the window barrier (Algorithm 1 of the paper and
 * its two references), redone when any rank arrived late at the barrier. */
#include "bench_nbc/datacheck.h"
#include "bench_nbc/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *const nbc_kind_names[KIND_COUNT] = {"comm_ref", "comp_ref", "overlap"};

typedef struct test_context {
    MPI_Request *request;
    int error;
} test_context;

/* Manual progression (progress.mode=test:K): thread 0 calls MPI_Test between
 * compute chunks; once the request completed it is MPI_REQUEST_NULL and the
 * later tests return at once. */
static void test_between_chunks(void *context)
{
    test_context *t = context;
    int done;
    if (t->request && t->error == MPI_SUCCESS)
        t->error = MPI_Test(t->request, &done, MPI_STATUS_IGNORE);
}

static int compute(nbc_run *run, size_t matrix_n, MPI_Request *request)
{
    compute_step_timing timing;
    int rc;
    if (run->progress == NBC_PROGRESS_TEST) {
        /* The reference runs the same chunks (with nothing to test), so the
         * chunking costs the same on both sides of r_comp_slowdown. */
        test_context t = {.request = request, .error = MPI_SUCCESS};
        rc = compute_step_chunked(run->team, matrix_n, run->test_chunks, test_between_chunks, &t,
                                  &timing);
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

/* The timed region of one kind; timestamps on the clock the model converts. */
static int measure_once(nbc_run *run, nbc_kind kind, coll_instance *inst, size_t matrix_n,
                        nbc_sample *s)
{
    const clocksync_ctx *sync = run->sync;
    MPI_Request request = MPI_REQUEST_NULL;
    int err = MPI_SUCCESS;
    if (run->progress_thread)
        progress_thread_activate(run->progress_thread);
    switch (kind) {
    case KIND_COMM_REF: /* I<coll> directly followed by MPI_Wait (section 5.1) */
        s->t_ns[0] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_START);
        err = coll_instance_start(inst, &request);
        s->t_ns[1] = s->t_ns[2] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_WAIT);
        if (err == MPI_SUCCESS)
            err = coll_instance_wait(inst, &request);
        s->t_ns[3] = clocksync_now_local_ns(sync);
        break;
    case KIND_COMP_REF:
        s->t_ns[0] = s->t_ns[1] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_COMPUTE);
        err = compute(run, matrix_n, NULL);
        s->t_ns[2] = s->t_ns[3] = clocksync_now_local_ns(sync);
        break;
    case KIND_OVERLAP: /* Algorithm 1: t1; I<coll>; t2; compute; t3; Wait; t4 */
        s->t_ns[0] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_START);
        err = coll_instance_start(inst, &request);
        s->t_ns[1] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_COMPUTE);
        if (err == MPI_SUCCESS)
            err = compute(run, matrix_n, &request);
        s->t_ns[2] = clocksync_now_local_ns(sync);
        watchdog_phase(run->watchdog, PHASE_WAIT);
        if (run->fault_hang)
            simulate_hang(); /* fault injection for the watchdog's test */
        if (err == MPI_SUCCESS)
            err = coll_instance_wait(inst, &request);
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

/* Ranks may leave the window barrier this share of the measured duration
 * apart (never less than the floor): 1 % skew is below the noise of a
 * repetition, and a tighter bound retries forever on a busy node. */
static const double barrier_exit_share = 0.01;
static const int64_t barrier_exit_floor_ns = 10000;

int nbc_measure(nbc_run *run, nbc_kind kind, coll_instance *inst, size_t matrix_n,
                double expected_s, nbc_sample *sample, int *retries)
{
    *retries = 0;
    bool moves_data = inst && kind != KIND_COMP_REF;
    for (;;) {
        /* Every start gets fresh data, so a retried start that delivered
         * nothing cannot pass on the previous one's. */
        if (run->check && moves_data && nbc_datacheck_fill(inst) != 0)
            return MPI_ERR_OTHER;
        watchdog_arm(run->watchdog, expected_s);
        watchdog_phase(run->watchdog, PHASE_BARRIER);
        clocksync_barrier_result barrier;
        int64_t tolerance_ns = (int64_t)(expected_s * barrier_exit_share * 1e9);
        if (tolerance_ns < barrier_exit_floor_ns)
            tolerance_ns = barrier_exit_floor_ns;
        int err = clocksync_window_barrier(run->sync, tolerance_ns, &barrier);
        if (err == MPI_SUCCESS)
            err = measure_once(run, kind, inst, matrix_n, sample);
        /* Whether every rank was on time is only asked after the timed
         * region, so it adds nothing before it. */
        bool any_late = false;
        watchdog_phase(run->watchdog, PHASE_SETTLE);
        if (err == MPI_SUCCESS)
            err = clocksync_barrier_settle(run->sync, &barrier, &any_late);
        watchdog_disarm(run->watchdog);
        if (err != MPI_SUCCESS)
            return err;
        if (!any_late || *retries >= run->max_retries)
            return run->check && moves_data ? verify_data(run, inst) : MPI_SUCCESS;
        ++*retries;
    }
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

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double nbc_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

bool nbc_stop_requested(const nbc_run *run)
{
    int mine = *run->stop_signal != 0, any = 0;
    if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, run->comm) != MPI_SUCCESS)
        MPI_Abort(run->comm, 1);
    return any != 0;
}
