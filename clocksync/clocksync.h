/* clocksync: a global clock across MPI ranks and a window barrier.
 *
 * Section 4.2 of the BenchNBC paper. Rank 0's clock is the reference
 * ("global time"). Every other rank estimates its offset to rank 0 from many
 * round trips, keeping the fastest ones: directly (method linear) or along a
 * tree (method hierarchical). Calibration points (offset at a local
 * time) form a piecewise-linear clock model:
 *   - post-mortem, timestamps are *interpolated* between the points around them
 *     (start and end of a run, plus any resyncs);
 *   - in real time (the window barrier), global time is *extrapolated* past
 *     the last point along the longest baseline the model trusts (from its
 *     baseline point to the last point; see "Error bound" below), at least
 *     drift_gap_s long so the drift estimate is not dominated by noise.
 *
 * Error bound of the real-time model (clocksync_model_error_bound_ns). A
 * point's offset errs by at most its bound_ns (b). Extrapolating tau past the
 * last point L along the baseline from point F, the slope errs by at most
 * (b_F + b_L) / (t_L - t_F), so the offset errs by at most
 *   e(tau) = b_L + u tau,  u = (b_F + b_L) / (t_L - t_F)          (drift uncertainty)
 * as long as the true drift stays constant. Each new point checks that: its
 * measured offset minus the prediction (its residual) beyond e plus its own
 * bound means the drift changed, and the baseline restarts at the previous
 * point. Between points, interpolation errs by at most the larger bound of
 * the two. The run keeps u tau small next to its lateness tolerance by
 * recalibrating (clocksync_resync_due): each new point lengthens the
 * baseline, so u falls as the run goes on.
 *
 * Likely bound (spread_ns, s). b assumes the worst a round trip allows: all
 * of it spent one way. Measured, it is ~100 times the error the residuals
 * show (over TCP, b ~ 8 us for errors ~0.1 us). A round trip's offset errs
 * by e = (d_back - d_out) / 2; when the two directions' delays are alike in
 * distribution and independent between round trips (the same path both
 * ways: what every round-trip method assumes, a constant asymmetry being
 * invisible to it), e is symmetric about 0, so the m fastest round trips'
 * offsets o_(1) <= ... <= o_(m) all lie on one side of the truth with
 * probability 2 x 2^-m (a sign test; selecting by duration, d_out + d_back,
 * keeps the symmetry). Otherwise the truth lies within [o_(1), o_(m)], and
 * so does the estimate x (a median or mean of some of them):
 *   s = max(x - o_(1), o_(m) - x)
 * bounds |x - truth| with probability >= 1 - 2^(1 - m); m = 9 or more gives
 * 99.6 % per measurement, 99.2 % for the two points of a drift estimate
 * (a union bound). The extrapolation's likely error is then u' tau,
 * u' = (s_F + s_L) / (t_L - t_F) (clocksync_model_skew_error_ns), which the
 * start-skew lateness and the resync schedule use; b and u stay the hard
 * bound the post-mortem checks and the residual test use.
 *
 * The module knows nothing of collectives or GEMM. Everything here is in
 * integer nanoseconds of a local monotonic clock unless a name says otherwise.
 */
#ifndef CLOCKSYNC_H
#define CLOCKSYNC_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- Local clock ------------------------------------------------------ */

/* A local clock is a function, so tests can substitute a clock with a known
 * offset and drift. */
typedef struct clocksync_clock {
    int64_t (*now_ns)(void *ctx);
    void *ctx;
} clocksync_clock;

/* CLOCK_MONOTONIC_RAW where the system has it (not slewed by NTP), else
 * CLOCK_MONOTONIC: never steps, shared by processes of one machine (and one
 * time namespace), which lets tests measure the true skew. */
clocksync_clock clocksync_monotonic_clock(void);
int64_t clocksync_monotonic_ns(void);
/* The name of the source clocksync_monotonic_ns reads, e.g. "CLOCK_MONOTONIC_RAW". */
const char *clocksync_clock_source(void);
/* Cost of one read of `clock` in ns (best of several rounds of reads). */
double clocksync_clock_read_ns(const clocksync_clock *clock);

static inline int64_t clocksync_clock_now_ns(const clocksync_clock *clock)
{
    return clock->now_ns(clock->ctx);
}

/* A clock that runs at (1 + drift_ppm * 1e-6) times `base` and is offset_ns
 * ahead of it; for tests and for clocksync_check's simulated skew. */
typedef struct clocksync_skewed_clock {
    clocksync_clock base;
    int64_t origin_ns; /* base time at which the two clocks differ by offset_ns */
    int64_t offset_ns;
    double drift_ppm;
} clocksync_skewed_clock;
clocksync_clock clocksync_skewed_clock_make(clocksync_skewed_clock *state);

/* ---- Clock model (pure arithmetic, no MPI) ------------------------------ */

/* global = local + offset at the point's local time. */
typedef struct clocksync_point {
    int64_t local_ns;
    double offset_ns;
    double latency_ns; /* one-way latency to rank 0 when the point was taken */
    /* The offset's error from the round trips alone is at most this: a kept
     * round trip errs by at most half its duration (the reference was read
     * between send and return), so the slowest kept one's half, summed over
     * the measurements down to rank 0. (The clocks' drift during a sweep adds
     * drift times its length.) */
    double bound_ns;
    /* A likely bound on the same error, "Likely bound" below: covers it
     * with probability >= 1 - 2^(1 - m) per measurement, m >= 9 fastest
     * round trips (99.6 %); bound_ns when there were fewer. Summed down the
     * tree as bound_ns. */
    double spread_ns;
    /* Filled by clocksync_model_add_point from the model before the point:
     * the error bound it predicted for this instant (e above; 0 for the
     * first two points, which make the baseline) and the measured offset
     * minus its prediction. */
    double predicted_error_ns;
    double residual_ns;
} clocksync_point;

typedef struct clocksync_model {
    clocksync_point *points; /* sorted by strictly increasing local_ns */
    int n_points;
    int capacity;
    int baseline; /* index of F: where extrapolation's baseline starts */
} clocksync_model;

void clocksync_model_init(clocksync_model *model);
void clocksync_model_free(clocksync_model *model);
/* Appends a point taken after every existing one. Returns 0, or -1 when the
 * point is not later than the last one or memory runs out. */
int clocksync_model_add_point(clocksync_model *model, clocksync_point point);
/* Piecewise-linear: interpolation between the two points around `local_ns`,
 * extrapolation along the first segment before them and along the baseline
 * (F to L) after them; one point means a constant offset, none means the
 * identity. */
int64_t clocksync_model_to_global(const clocksync_model *model, int64_t local_ns);
/* The inverse of clocksync_model_to_global. */
int64_t clocksync_model_to_local(const clocksync_model *model, int64_t global_ns);
/* Offset predicted at local_ns, in ns (fractional). */
double clocksync_model_offset_ns(const clocksync_model *model, int64_t local_ns);
/* How fast this clock runs relative to the reference, from the first to the
 * last point: +100 means 100 ppm fast. 0 with fewer than two points. */
double clocksync_model_drift_ppm(const clocksync_model *model);
/* The bound on that drift's error, in ppm: the two points' bounds over the
 * time between them, (b_first + b_last) / (t_last - t_first) ("Error
 * bound" above, over the whole model); INFINITY with fewer than two points. */
double clocksync_model_drift_bound_ppm(const clocksync_model *model);
/* u of the error bound (header comment), as a fraction (1e-6 per ppm);
 * INFINITY with fewer than two points, 0 with none. */
double clocksync_model_drift_uncertainty(const clocksync_model *model);
/* The bound on the offset's error at local_ns (header comment): e(tau)
 * past the last point, the larger of the two points' bounds between them,
 * the first point's bound plus u times the distance before it; 0 without
 * points; INFINITY past a single point (no drift known). */
double clocksync_model_error_bound_ns(const clocksync_model *model, int64_t local_ns);
/* The part of that bound that the time since the last point adds (u tau;
 * 0 at or before the last point): what recalibrating removes. */
double clocksync_model_extrapolation_error_ns(const clocksync_model *model, int64_t local_ns);
/* The likely bound on that part (u' tau, "Likely bound" above), with u' =
 * (s_F + s_L) / (t_L - t_F); 0 without points, INFINITY past a single one.
 * What the start skew is widened by and the resync schedule keeps small. */
double clocksync_model_skew_error_ns(const clocksync_model *model, int64_t local_ns);

/* A clock against another over a short span, as a line:
 *   to = from + offset_ns + slope (from - at_ns)
 * slope is the drift as a fraction (1e-6 per ppm). A rank's relation to its
 * parent and the parent's to rank 0 compose into the rank's to rank 0. */
typedef struct clocksync_map {
    int64_t at_ns;
    double offset_ns;
    double slope;
    double bound_ns;  /* of offset_ns's error, as clocksync_point's; composing adds them */
    double spread_ns; /* its likely bound, as clocksync_point's; composing adds them */
} clocksync_map;

/* The offset the map gives at `from_ns` (to minus from). */
double clocksync_map_offset_ns(const clocksync_map *map, int64_t from_ns);
/* outer after inner: from inner's clock to outer's "to" clock, anchored at
 * inner's at_ns. */
clocksync_map clocksync_map_compose(const clocksync_map *outer, const clocksync_map *inner);

/* ---- Methods: how the offsets to rank 0 are measured --------------------- */

/* linear: rank 0 does `roundtrips` round trips with every other rank in
 * turn (O(p) rounds). hierarchical: ranks measure their parent in a binomial
 * tree (ceil(log2 p) rounds, twice, the second time in reverse order, so
 * every pair is centred on the same instant), and the parent-to-rank-0
 * lines are composed down the tree (in the spirit of HCA3, Hunold and
 * Carpen-Amarie). Both give each rank one point per calibration. */
int clocksync_method_count(void);
/* NULL when method is out of range. */
const char *clocksync_method_name(int method);
/* The method's index, or -1 for an unknown name. */
int clocksync_method_find(const char *name);

/* ---- Simulation: the methods on virtual ranks, without MPI --------------- */

/* Virtual ranks in one process, each with its own clock (offset and drift
 * against rank 0's) and a one-way latency of min + an exponential tail,
 * driving the same calibration code as the MPI ranks. Two calibrations
 * gap_s apart (start to start), as the start and drift calibrations of a
 * run, then each rank's model is checked against the truth. */
typedef struct clocksync_sim_options {
    int ranks;
    int method;
    int roundtrips;
    double latency_min_ns, latency_tail_ns; /* tail: mean of the exponential part */
    double max_offset_ns, max_drift_ppm;    /* ranks >= 1 drawn uniformly in +-these */
    const double *offset_ns, *drift_ppm;    /* or given per rank (rank 0's ignored); may be NULL */
    double gap_s;
    double horizon_s; /* error checked this long after the second calibration */
    uint64_t seed;
} clocksync_sim_options;

void clocksync_sim_options_default(clocksync_sim_options *options);

typedef struct clocksync_sim_result {
    int64_t messages;          /* of one calibration, all ranks */
    int64_t critical_messages; /* on its longest chain of dependent messages */
    double sync_s;             /* simulated duration of one calibration */
    /* Per rank (rank 0: 0): model minus true global time, in ns. */
    double *error_sync_ns;    /* right after the second calibration */
    double *error_horizon_ns; /* horizon_s later (drift extrapolation) */
    /* The model's bounds on that error then: hard (b_L + u tau) and likely
     * (s_L + u' tau), "Error bound" and "Likely bound" above. */
    double *bound_horizon_ns, *likely_horizon_ns;
    int *hops; /* measurements between the rank and rank 0 */
} clocksync_sim_result;

/* Returns 0, or -1 for bad options or no memory. */
int clocksync_simulate(const clocksync_sim_options *options, clocksync_sim_result *result);
void clocksync_sim_result_free(clocksync_sim_result *result);

/* ---- Waiting for a deadline (no MPI) -------------------------------------- */

/* A sleep is a function too: the barrier's wait is then tested against a
 * sleep that wakes late and a simulated clock. */
typedef struct clocksync_sleeper {
    void (*sleep_ns)(void *ctx, int64_t ns); /* sleeps at least ns, maybe longer */
    void *ctx;
    /* How many times the scheduler took the core from the calling thread
     * so far (involuntary context switches); NULL: not known, a gap in the
     * spin is then taken for one. */
    long (*involuntary_switches)(void *ctx);
} clocksync_sleeper;

/* clock_nanosleep on CLOCK_MONOTONIC, resumed after a signal; the thread's
 * involuntary context switches from getrusage(RUSAGE_THREAD). */
clocksync_sleeper clocksync_system_sleeper(void);

/* The machine's wake-up latency: how much later than asked a sleep of
 * request_ns ends (a virtual CPU that halted and waits for its host, a core
 * in a deep idle state, the timer slack), measured on `clock`. */
typedef struct clocksync_wakeup {
    double median_ns, p99_ns, max_ns;
    int samples;
    int64_t request_ns;
} clocksync_wakeup;

/* `samples` sleeps of 0.5 ms. 0, or -1 when samples < 1 or out of memory. */
int clocksync_wakeup_measure(const clocksync_clock *clock, const clocksync_sleeper *sleeper,
                             int samples, clocksync_wakeup *out);

/* How the window barrier waits. Where no thread shares the caller's core
 * (barrier_sleep_min_s = 0) it spins the whole margin: a sleep would wake
 * late by the machine's wake-up latency, which on a virtual machine reaches
 * a host's time slice. Where a busy thread shares it, the barrier sleeps at
 * least sleep_min_ns (that thread's slice, clocksync_options) and spins the
 * last spin_ns = max(20 us, 2 x the wake-up p99), at most 0.5 ms (a longer
 * spin would lose the core to the busy thread again); spin_capped when the
 * cap cut it: the wake-up cannot be covered, and the barrier will often
 * leave late. */
typedef struct clocksync_barrier_wait {
    int64_t sleep_min_ns; /* 0: spin only */
    int64_t spin_ns;
    bool spin_capped;
} clocksync_barrier_wait;

clocksync_barrier_wait clocksync_barrier_wait_plan(double barrier_sleep_min_s,
                                                   const clocksync_wakeup *wakeup);
/* The margin a barrier of this wait uses: at least sleep + spin where it sleeps. */
int64_t clocksync_barrier_wait_margin_ns(const clocksync_barrier_wait *wait, int64_t margin_ns);
/* What a wait saw of the scheduler while it spun: the longest time between
 * two consecutive reads of the clock (a read takes tens of ns: a gap of
 * 100 us or more is the thread off the core) and the involuntary context
 * switches from the spin's start to the end of the first such gap (-1: not
 * known). lost_core: such a gap with a switch in it (or not known), another
 * task ran on the core. */
typedef struct clocksync_wait_watch {
    int64_t longest_gap_ns;
    long switches;
    bool lost_core;
} clocksync_wait_watch;

/* Waits on `clock` until deadline_local_ns as `wait` says; returns the
 * clock's time when it left (>= the deadline). `watch` (may be NULL) gets
 * what the spin saw; the switches are read before the spin and, only when
 * a gap appears, at its end, so a clean spin leaves without a system call. */
int64_t clocksync_wait_until(const clocksync_clock *clock, const clocksync_sleeper *sleeper,
                             const clocksync_barrier_wait *wait, int64_t deadline_local_ns,
                             clocksync_wait_watch *watch);

/* The rule "spin where nothing else wants the core" held to what the
 * machine does, not only to what the deployment says (wait_governor.c).
 * A barrier that spins (the deployment's wait) and loses the core during
 * its spin (a gap of at least the least slice, 0.75 ms, with an
 * involuntary context switch: another process was runnable on the core,
 * and a spinner loses it at the end of each slice) falls back to the wait of a shared core: sleep
 * at least 8 ms, then the short spin of clocksync_barrier_wait_plan. It spins again after
 * `clean_needed` barriers whose final spin kept the core: 32, doubled (up to 1024) each time the
 * spin loses the core again within 32 barriers of its return, reset to 32 when it does not. A gap
 * without a switch (a virtual CPU the host took, a long interrupt), or a shorter one (a kernel
 * thread), is not a task that shares the core: a sleep would not help, the barrier keeps spinning.
 * Each rank decides alone: the deadline is common, the way to wait for it is each rank's (the
 * margin is the largest any rank needs). Where the deployment sleeps already, nothing changes. */
typedef struct clocksync_wait_governor {
    clocksync_barrier_wait planned;  /* the deployment's */
    clocksync_barrier_wait fallback; /* after a lost spin */
    bool fell_back;
    int clean, clean_needed; /* clean barriers since the fallback, and needed */
    int spun_since_return;   /* spinning barriers since the last return */
    long spun, slept;        /* barriers that spun their margin, that slept */
    long fallbacks, returns;
    long barriers;          /* all barriers so far */
    long first_fallback_at; /* 1-based barrier number; 0: never */
    int64_t first_gap_ns;   /* what the spin lost then */
    long first_switches;
} clocksync_wait_governor;

/* What the last update did. */
enum { CLOCKSYNC_WAIT_KEPT, CLOCKSYNC_WAIT_FELL_BACK, CLOCKSYNC_WAIT_RETURNED };

void clocksync_wait_governor_init(clocksync_wait_governor *gov,
                                  const clocksync_barrier_wait *planned,
                                  const clocksync_wakeup *wakeup);
/* The wait the next barrier uses. */
const clocksync_barrier_wait *clocksync_wait_governor_wait(const clocksync_wait_governor *gov);
/* After each barrier: counts it and decides the next one's wait from what
 * its spin saw (watch->lost_core). A CLOCKSYNC_WAIT_* value. */
int clocksync_wait_governor_update(clocksync_wait_governor *gov, const clocksync_wait_watch *watch);

/* ---- Synchronization across ranks (collective calls on `comm`) ---------- */

typedef struct clocksync_options {
    int method;              /* index into the method table (clocksync_method_name) */
    int roundtrips;          /* per rank, sweep and calibration; thousands in total */
    double drift_gap_s;      /* min time between the points of a drift estimate */
    double barrier_margin_s; /* initial window-barrier margin */
    /* The least time the window barrier sleeps before its final spin; 0: none.
     * Where a busy thread shares the caller's core (an MPI progress thread
     * that busy-polls) a sleep shorter than that thread's time slice hands it
     * the core across the deadline: the barrier sleeps longer than a slice so
     * the caller wakes owed CPU time and takes the core back at once. */
    double barrier_sleep_min_s;
    /* How the barrier sleeps; NULL: clocksync_system_sleeper. Tests give one
     * that wakes late. */
    const clocksync_sleeper *sleeper;
    /* Called on the rank whose barrier falls back to sleeping or spins
     * again (a CLOCKSYNC_WAIT_* change), after it left; NULL: none. For
     * the run's log. */
    void (*on_wait_change)(const clocksync_wait_governor *gov, int change);
} clocksync_options;

void clocksync_options_default(clocksync_options *options);

typedef struct clocksync_ctx clocksync_ctx;

/* Creates the context; `clock` may be NULL for the monotonic clock. Takes no
 * calibration yet; measures this rank's wake-up latency (about 0.1 s,
 * clocksync_get_wakeup), which sets the barrier's spin where it sleeps.
 * Returns MPI_SUCCESS or an MPI error code. */
int clocksync_create(clocksync_ctx **ctx, MPI_Comm comm, const clocksync_options *options,
                     const clocksync_clock *clock);
/* Collective on `comm`, whose ranks are among parent's with parent's rank 0
 * as its rank 0 (e.g. the first N ranks): a context on comm starting from a
 * copy of parent's model, options, clock and barrier margin, so a
 * sub-communicator shares one synchronization instead of measuring its own. */
int clocksync_create_sub(clocksync_ctx **ctx, const clocksync_ctx *parent, MPI_Comm comm);
/* Not collective: adds to ctx's model the points of parent's taken after
 * ctx's last (a context made by clocksync_create_sub), so a sub-context
 * gains the parent's end point without measuring one of its own. 0, or -1
 * when out of memory. */
int clocksync_adopt_later_points(clocksync_ctx *ctx, const clocksync_ctx *parent);
void clocksync_free(clocksync_ctx *ctx);

/* Collective. Measures every rank's offset to rank 0 now with the options'
 * method and appends it to the model as a new point. */
int clocksync_calibrate(clocksync_ctx *ctx);
/* Collective. Makes real-time extrapolation trustworthy: when the last two
 * points are less than drift_gap_s apart (or there is only one), sleeps until
 * drift_gap_s after the last point and calibrates again. */
int clocksync_prepare_realtime(clocksync_ctx *ctx);
/* Measures the offset now *without* adding it to the model; returns the
 * measured offset and the model's prediction for the same instant (both 0 on
 * rank 0). Collective. */
int clocksync_measure_residual(clocksync_ctx *ctx, double *measured_offset_ns,
                               double *predicted_offset_ns);

/* Collective. Whether the run should calibrate again now (the same answer
 * on every rank), by the schedule that bounds the real-time model's error:
 *   - the time since the last point reaches the baseline's length (points
 *     at 0, drift_gap_s, then doubling: the baseline grows with the run);
 *   - or it reaches interval_s;
 *   - or the error extrapolation likely adds on any rank (u' tau, "Likely
 *     bound" above) exceeds a quarter of tolerance_ns, the run's smallest lateness
 *     tolerance: two ranks' errors then take at most half of it, the other
 *     half is left to the barrier's exit jitter.
 * interval_s <= 0 turns every rule off (never recalibrate). */
int clocksync_resync_due(clocksync_ctx *ctx, int64_t tolerance_ns, double interval_s, bool *due);

const clocksync_model *clocksync_get_model(const clocksync_ctx *ctx);
/* The name of the context's method ("linear", "hierarchical"). */
const char *clocksync_get_method_name(const clocksync_ctx *ctx);
const clocksync_clock *clocksync_get_clock(const clocksync_ctx *ctx);
int64_t clocksync_now_local_ns(const clocksync_ctx *ctx);
/* This rank's wake-up latency, measured by clocksync_create (a sub-context
 * shares its parent's), and the wait the barrier follows from it. */
const clocksync_wakeup *clocksync_get_wakeup(const clocksync_ctx *ctx);
const clocksync_barrier_wait *clocksync_get_barrier_wait(const clocksync_ctx *ctx);
/* How the barrier waited so far on this rank: spun, slept, fell back. */
const clocksync_wait_governor *clocksync_get_wait_governor(const clocksync_ctx *ctx);
/* Global time now, extrapolated from the model (real-time use). */
int64_t clocksync_now_global_ns(const clocksync_ctx *ctx);

/* ---- Window barrier ---------------------------------------------------- */

typedef struct clocksync_barrier_result {
    bool on_time;               /* left within the tolerance after the deadline */
    bool arrived_in_time;       /* arrived before the deadline (left late, maybe) */
    int64_t deadline_global_ns; /* the agreed instant every rank leaves at */
    int64_t exit_local_ns;      /* local clock when this rank left */
    int64_t exit_late_ns;       /* exit_local_ns minus the deadline in local time, >= 0 */
    double margin_s;            /* the margin used */
} clocksync_barrier_result;

/* Collective. Ranks agree on a deadline a margin ahead in global time (the
 * latest of the ranks' proposals, so a rank that arrives late pushes it back),
 * then each waits until its local clock reaches the deadline converted to
 * local time, as clocksync_get_barrier_wait says: spinning the whole margin
 * where nothing shares its core; where a busy thread does (an MPI progress
 * thread, which would keep the core across the deadline for a whole time
 * slice from a rank that spins), sleeping first and spinning for the
 * measured wake-up latency. All ranks leave at the same global instant,
 * unlike MPI_Barrier. A rank that leaves more than exit_tolerance_ns after the deadline (it arrived
 * after it, or was descheduled while spinning) is late: choose the tolerance small next to the
 * duration about to be measured. */
int clocksync_window_barrier(clocksync_ctx *ctx, int64_t exit_tolerance_ns,
                             clocksync_barrier_result *result);

/* Collective. Tells the barrier whether any rank was late in the last
 * measurement: called *after* measuring, so a barrier miss never adds a
 * collective before the timed region. The margin doubles when a rank arrived
 * after the deadline (a rank that only left late was descheduled: a longer
 * wait would not help) and shrinks slowly back after successes. *any_late
 * is true when any rank left later than its tolerance: the caller then
 * discards and redoes the measurement. */
int clocksync_barrier_settle(clocksync_ctx *ctx, const clocksync_barrier_result *mine,
                             bool *any_late);

/* Collective; clocksync_barrier_settle for a measurement that started at
 * start_local_ns on each rank (its t1), in the same single reduction. The
 * measurement is also late when its start skew exceeds tolerance_ns: the
 * spread of the ranks' starts in global time, each widened by its model's
 * likely extrapolation error (u' tau, "Likely bound" above),
 *   start_skew = max_r(g_r + e_r) - min_r(g_r - e_r),
 * e_r capped at a quarter of the tolerance (the share clocksync_resync_due
 * keeps it under between cells and between a late block's passes), known only after the measurement
 * and written to *start_skew_ns (may be NULL). The points' own bounds (b) are left out: post-mortem
 * conversion shares them, they are the method's floor that clocksync_check reports. */
int clocksync_settle_attempt(clocksync_ctx *ctx, const clocksync_barrier_result *mine,
                             int64_t start_local_ns, int64_t tolerance_ns, bool *any_late,
                             int64_t *start_skew_ns);

#endif
