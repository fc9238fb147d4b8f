/* The global clock of a run over MPI and the window barrier (section 4.2 of
 * the paper). The offsets are measured by the method the options choose
 * (calibration.c and its method table), over MPI (transport_mpi.c). */
#include "clocksync/method.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

/* The margin never shrinks below the configured one and never grows past
 * this: a barrier a second ahead means something else is wrong. */
static const double barrier_margin_max_s = 1.0;
static const double barrier_margin_shrink = 0.95;
/* Wake-up latency samples at start: 200 sleeps of 0.5 ms, about 0.1 s;
 * their p99 is the second largest. */
static const int wakeup_samples = 200;
/* The time slice the barrier asks of the scheduler while it waits (Linux
 * >= 6.12, EEVDF: a task asking a shorter slice preempts the running one
 * when it wakes; CFS and older kernels ignore it, their wake-up placement
 * already favours a sleeper). Asked at the first wait that sleeps and kept
 * until the context is freed: restored at the barrier's exit, the slice
 * change reschedules at once, and the busy thread takes the core for its
 * slice at the instant the measurement starts (kept barriers then started
 * milliseconds apart beside MPICH's progress thread). A rank that sleeps
 * in one barrier sleeps in the next ones too, so the slice is the run's. */
static const uint64_t barrier_slice_ns = 100000;

/* struct sched_attr of sched_setattr(2), declared by the C library only
 * from glibc 2.41. */
typedef struct sched_attr_v1 {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
} sched_attr_v1;

/* Asks a short slice for the calling thread when it is a normal
 * (SCHED_OTHER) thread; false when nothing was changed. */
static bool ask_short_slice(sched_attr_v1 *saved)
{
#if defined(SYS_sched_getattr) && defined(SYS_sched_setattr)
    /* defined even where a checker does not know what sched_getattr writes */
    memset(saved, 0, sizeof *saved);
    if (syscall(SYS_sched_getattr, 0, saved, sizeof *saved, 0) != 0 || saved->sched_policy != 0)
        return false;
    sched_attr_v1 shorter = *saved;
    shorter.size = sizeof shorter;
    shorter.sched_runtime = barrier_slice_ns;
    return syscall(SYS_sched_setattr, 0, &shorter, 0) == 0;
#else
    (void)saved;
    return false;
#endif
}

static void restore_slice(sched_attr_v1 *saved)
{
#if defined(SYS_sched_setattr)
    saved->size = sizeof *saved;
    (void)syscall(SYS_sched_setattr, 0, saved, 0);
#else
    (void)saved;
#endif
}

struct clocksync_ctx {
    MPI_Comm comm;
    int rank, size;
    clocksync_options options;
    clocksync_clock clock;
    clocksync_model model;
    double margin_s;
    const cs_method *method;
    cs_transport transport;
    cs_rank_state state;
    clocksync_sleeper sleeper;
    clocksync_wakeup wakeup;
    clocksync_barrier_wait wait;      /* the deployment's */
    clocksync_wait_governor governor; /* the wait the machine allows */
    bool slice_short;                 /* barrier_slice_ns asked, slice_saved to restore */
    sched_attr_v1 slice_saved;
};

/* One calibration: on each rank, its offset to rank 0 now. */
static int calibrate_now(clocksync_ctx *ctx, bool commit, clocksync_point *point)
{
    return cs_calibrate(ctx->method, &ctx->transport, ctx->options.roundtrips, &ctx->state, commit,
                        point);
}

void clocksync_options_default(clocksync_options *options)
{
    *options = (clocksync_options){
        .method = 0,
        .roundtrips = 1000,
        .drift_gap_s = 1.0,
        .barrier_margin_s = 200e-6,
    };
}

/* clocksync_create, which measures the wake-up latency unless `parent`
 * gives it (a sub-context: the same processes, the same machine). */
static int create_ctx(clocksync_ctx **out, MPI_Comm comm, const clocksync_options *options,
                      const clocksync_clock *clock, const clocksync_ctx *parent)
{
    if (!cs_method_get(options->method))
        return MPI_ERR_ARG;
    clocksync_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return MPI_ERR_NO_MEM;
    ctx->method = cs_method_get(options->method);
    ctx->comm = comm;
    ctx->options = *options;
    ctx->clock = clock ? *clock : clocksync_monotonic_clock();
    ctx->margin_s = options->barrier_margin_s;
    ctx->sleeper = options->sleeper ? *options->sleeper : clocksync_system_sleeper();
    ctx->options.sleeper = NULL; /* copied: the caller's may go */
    clocksync_model_init(&ctx->model);
    /* The barrier's sleep ends when asked, not up to 50 us later (the
     * default timer slack of a thread). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    int err = MPI_Comm_rank(comm, &ctx->rank);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_size(comm, &ctx->size);
    if (err == MPI_SUCCESS)
        err = cs_transport_mpi_make(&ctx->transport, comm, &ctx->clock);
    if (parent) {
        ctx->sleeper = parent->sleeper;
        ctx->wakeup = parent->wakeup;
    } else if (err == MPI_SUCCESS && clocksync_wakeup_measure(&ctx->clock, &ctx->sleeper,
                                                              wakeup_samples, &ctx->wakeup) != 0) {
        err = MPI_ERR_NO_MEM;
    }
    ctx->wait = clocksync_barrier_wait_plan(options->barrier_sleep_min_s, &ctx->wakeup);
    clocksync_wait_governor_init(&ctx->governor, &ctx->wait, &ctx->wakeup);
    if (err != MPI_SUCCESS) {
        free(ctx);
        return err;
    }
    *out = ctx;
    return MPI_SUCCESS;
}

int clocksync_create(clocksync_ctx **out, MPI_Comm comm, const clocksync_options *options,
                     const clocksync_clock *clock)
{
    return create_ctx(out, comm, options, clock, NULL);
}

int clocksync_create_sub(clocksync_ctx **out, const clocksync_ctx *parent, MPI_Comm comm)
{
    int err = create_ctx(out, comm, &parent->options, &parent->clock, parent);
    if (err != MPI_SUCCESS)
        return err;
    (*out)->margin_s = parent->margin_s;
    /* The machine's load as the parent last saw it; the counts start anew. */
    clocksync_wait_governor *gov = &(*out)->governor;
    gov->fell_back = parent->governor.fell_back;
    gov->clean_needed = parent->governor.clean_needed;
    for (int i = 0; i < parent->model.n_points; i++)
        if (clocksync_model_add_point(&(*out)->model, parent->model.points[i]) != 0) {
            clocksync_free(*out);
            return MPI_ERR_NO_MEM;
        }
    return MPI_SUCCESS;
}

int clocksync_adopt_later_points(clocksync_ctx *ctx, const clocksync_ctx *parent)
{
    const clocksync_model *own = &ctx->model;
    int64_t last_ns = own->n_points ? own->points[own->n_points - 1].local_ns : INT64_MIN;
    for (int i = 0; i < parent->model.n_points; i++)
        if (parent->model.points[i].local_ns > last_ns &&
            clocksync_model_add_point(&ctx->model, parent->model.points[i]) != 0)
            return -1;
    return 0;
}

void clocksync_free(clocksync_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->slice_short)
        restore_slice(&ctx->slice_saved);
    clocksync_model_free(&ctx->model);
    cs_transport_mpi_free(&ctx->transport);
    free(ctx);
}

int clocksync_calibrate(clocksync_ctx *ctx)
{
    clocksync_point point;
    int err = calibrate_now(ctx, true, &point);
    if (err != MPI_SUCCESS)
        return err;
    return clocksync_model_add_point(&ctx->model, point) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
        ;
}

int clocksync_prepare_realtime(clocksync_ctx *ctx)
{
    int64_t gap_ns = (int64_t)(ctx->options.drift_gap_s * 1e9);
    const clocksync_model *m = &ctx->model;
    bool fresh_enough =
        m->n_points >= 2 &&
        m->points[m->n_points - 1].local_ns - m->points[m->n_points - 2].local_ns >= gap_ns;
    /* Every rank decides alike from its own points, which were taken in the
     * same collective calls; rank 0's verdict is broadcast to be certain. */
    int must_calibrate = !fresh_enough;
    int err = MPI_Bcast(&must_calibrate, 1, MPI_INT, 0, ctx->comm);
    if (err != MPI_SUCCESS || !must_calibrate)
        return err;
    if (m->n_points > 0) {
        int64_t wait_ns =
            m->points[m->n_points - 1].local_ns + gap_ns - clocksync_clock_now_ns(&ctx->clock);
        if (wait_ns > 0)
            sleep_ns(wait_ns);
    }
    return clocksync_calibrate(ctx);
}

int clocksync_measure_residual(clocksync_ctx *ctx, double *measured_offset_ns,
                               double *predicted_offset_ns)
{
    clocksync_point point;
    int err = calibrate_now(ctx, false, &point);
    if (err != MPI_SUCCESS)
        return err;
    *measured_offset_ns = point.offset_ns;
    *predicted_offset_ns =
        ctx->rank == 0 ? 0.0 : clocksync_model_offset_ns(&ctx->model, point.local_ns);
    return MPI_SUCCESS;
}

const clocksync_model *clocksync_get_model(const clocksync_ctx *ctx)
{
    return &ctx->model;
}

const char *clocksync_get_method_name(const clocksync_ctx *ctx)
{
    return ctx->method->name;
}

const clocksync_clock *clocksync_get_clock(const clocksync_ctx *ctx)
{
    return &ctx->clock;
}

int64_t clocksync_now_local_ns(const clocksync_ctx *ctx)
{
    return clocksync_clock_now_ns(&ctx->clock);
}

const clocksync_wakeup *clocksync_get_wakeup(const clocksync_ctx *ctx)
{
    return &ctx->wakeup;
}

const clocksync_barrier_wait *clocksync_get_barrier_wait(const clocksync_ctx *ctx)
{
    return &ctx->wait;
}

const clocksync_wait_governor *clocksync_get_wait_governor(const clocksync_ctx *ctx)
{
    return &ctx->governor;
}

int64_t clocksync_now_global_ns(const clocksync_ctx *ctx)
{
    return clocksync_model_to_global(&ctx->model, clocksync_clock_now_ns(&ctx->clock));
}

int clocksync_window_barrier(clocksync_ctx *ctx, int64_t exit_tolerance_ns,
                             clocksync_barrier_result *result)
{
    /* A margin the barrier sleeps through at least barrier_sleep_min_s of
     * (clocksync.h): on Linux's EEVDF scheduler a thread that ran more than
     * its share (the computation, the polling inside MPI calls) and sleeps
     * for less than the busy thread's slice wakes with negative lag, is not
     * eligible, and waits that slice out (3-5 ms here) however short a slice
     * it asks; one that slept longer wakes owed time and preempts at once. */
    const clocksync_barrier_wait *wait = clocksync_wait_governor_wait(&ctx->governor);
    int64_t margin_ns = clocksync_barrier_wait_margin_ns(wait, (int64_t)(ctx->margin_s * 1e9));
    int64_t proposal = clocksync_now_global_ns(ctx) + margin_ns, deadline;
    int err = MPI_Allreduce(&proposal, &deadline, 1, MPI_INT64_T, MPI_MAX, ctx->comm);
    if (err != MPI_SUCCESS)
        return err;
    int64_t local_deadline = clocksync_model_to_local(&ctx->model, deadline);
    int64_t now = clocksync_clock_now_ns(&ctx->clock);
    result->arrived_in_time = now <= local_deadline;
    if (wait->sleep_min_ns > 0 && !ctx->slice_short)
        ctx->slice_short = ask_short_slice(&ctx->slice_saved);
    clocksync_wait_watch watch;
    now = clocksync_wait_until(&ctx->clock, &ctx->sleeper, wait, local_deadline, &watch);
    /* After the exit, decided from this spin: the next barrier's wait. */
    int change = clocksync_wait_governor_update(&ctx->governor, &watch);
    if (change != CLOCKSYNC_WAIT_KEPT && ctx->options.on_wait_change)
        ctx->options.on_wait_change(&ctx->governor, change);
    /* One rule whatever the cause: a rank that arrived after the deadline,
     * or was descheduled while it spun, starts the measurement skewed by
     * its exit lateness. */
    result->exit_late_ns = now - local_deadline;
    result->on_time = result->exit_late_ns <= exit_tolerance_ns;
    result->deadline_global_ns = deadline;
    result->exit_local_ns = now;
    result->margin_s = ctx->margin_s;
    return MPI_SUCCESS;
}

/* After a measurement: the margin doubles when a rank arrived after the
 * deadline, shrinks slowly back otherwise (clocksync.h). */
static void adapt_margin(clocksync_ctx *ctx, bool all_arrived_in_time)
{
    if (!all_arrived_in_time)
        ctx->margin_s = fmin(2 * ctx->margin_s, barrier_margin_max_s);
    else
        ctx->margin_s = fmax(ctx->options.barrier_margin_s, ctx->margin_s * barrier_margin_shrink);
}

int clocksync_barrier_settle(clocksync_ctx *ctx, const clocksync_barrier_result *mine,
                             bool *any_late)
{
    int flags[2] = {mine->on_time, mine->arrived_in_time}, all[2];
    int err = MPI_Allreduce(flags, all, 2, MPI_INT, MPI_LAND, ctx->comm);
    if (err != MPI_SUCCESS)
        return err;
    *any_late = !all[0];
    adapt_margin(ctx, all[1]);
    return MPI_SUCCESS;
}

/* Resync when the extrapolation error exceeds this share of the tolerance
 * (clocksync.h, clocksync_resync_due). */
static const double resync_tolerance_share = 0.25;

int clocksync_settle_attempt(clocksync_ctx *ctx, const clocksync_barrier_result *mine,
                             int64_t start_local_ns, int64_t tolerance_ns, bool *any_late,
                             int64_t *start_skew_ns)
{
    int64_t start_global_ns = clocksync_model_to_global(&ctx->model, start_local_ns);
    /* The widening is capped at the share the resync schedule keeps the
     * error under (checked between cells and between a late block's passes,
     * never inside a block): within a long block the bound grows without a
     * new point, and over TCP, where the points' own
     * bounds are tens of microseconds, it soon passed the whole tolerance
     * (every pass of a cell late, the bound ~100 times the drift error
     * measured on shared memory). */
    double bound_ns = clocksync_model_skew_error_ns(&ctx->model, start_local_ns);
    int64_t error_ns = (int64_t)ceil(fmin(bound_ns, resync_tolerance_share * (double)tolerance_ns));
    /* One reduction (max) for all: the flags negated (max of "not" is
     * "not all"), the latest start plus its error, minus the earliest
     * start minus its error. */
    int64_t mine_v[4] = {!mine->on_time, !mine->arrived_in_time, start_global_ns + error_ns,
                         -(start_global_ns - error_ns)};
    int64_t all[4];
    int err = MPI_Allreduce(mine_v, all, 4, MPI_INT64_T, MPI_MAX, ctx->comm);
    if (err != MPI_SUCCESS)
        return err;
    int64_t skew_ns = all[2] + all[3];
    *any_late = all[0] || skew_ns > tolerance_ns;
    if (start_skew_ns)
        *start_skew_ns = skew_ns;
    adapt_margin(ctx, !all[1]);
    return MPI_SUCCESS;
}

int clocksync_resync_due(clocksync_ctx *ctx, int64_t tolerance_ns, double interval_s, bool *due)
{
    const clocksync_model *m = &ctx->model;
    int mine = 0;
    if (interval_s > 0 && m->n_points > 0) {
        int64_t now_ns = clocksync_clock_now_ns(&ctx->clock);
        int64_t last_ns = m->points[m->n_points - 1].local_ns;
        int64_t since_ns = now_ns - last_ns;
        int64_t baseline_ns = last_ns - m->points[m->baseline].local_ns;
        mine = (double)since_ns * 1e-9 >= interval_s ||
               (m->n_points >= 2 && since_ns >= baseline_ns) ||
               clocksync_model_skew_error_ns(m, now_ns) >
                   resync_tolerance_share * (double)tolerance_ns;
    }
    /* Any rank's error decides: the ranks calibrate together. */
    int any = 0;
    int err = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (err != MPI_SUCCESS)
        return err;
    *due = any;
    return MPI_SUCCESS;
}
