/* Sizes for target times (sections 4.3 and 5.1 of the paper): the message
 * size of the collective and the matrix size of the computation, each found
 * by measuring its reference on all ranks. Every rank computes the same
 * decisions from the same (allreduced) measurements, so they stay in step. */
#include "bench_nbc/driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- communication ---------------------------------------------------- */

typedef struct size_point {
    double bytes, t_s;
} size_point;

/* A calibration point's measurement, judged late on the same scale as the
 * sweep's (its own expected time is the shorter reference here). The sizes
 * are a search, not a result: when the retries run out the last attempt
 * still guides it, and nothing of the calibration goes to raw.csv. */
static int calibration_measure(nbc_run *run, nbc_kind kind, coll_instance *inst, size_t matrix_n,
                               double expected_s, nbc_sample *sample)
{
    static const int64_t calibration_floor_ns = 10000;
    nbc_measure_spec spec = {
        .kind = kind,
        .inst = inst,
        .matrix_n = matrix_n,
        .expected_s = expected_s,
        .tolerance_ns = nbc_lateness_tolerance_ns(run->cfg->run.late_tolerance, expected_s,
                                                  expected_s, calibration_floor_ns),
    };
    nbc_attempt_log log = {0};
    bool kept;
    int rc = nbc_measure(run, &spec, &log, &kept);
    if (rc == MPI_SUCCESS)
        *sample = log.items[log.count - 1].sample;
    nbc_attempt_log_free(&log);
    return rc;
}

/* Median over runs_per_point of the comm reference span at `bytes`. */
static int measure_comm(nbc_run *run, size_t bytes, double expected_s, double *median_s,
                        size_t *used_bytes)
{
    coll_instance inst;
    char err[256];
    int failed = coll_instance_prepare(&inst, run->coll, run->comm, bytes, err, sizeof err) != 0;
    int any_failed;
    int rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (any_failed) {
        if (failed)
            fprintf(stderr, "bench_nbc: rank %d: %s\n", run->rank, err);
        if (!failed)
            coll_instance_release(&inst);
        return MPI_ERR_NO_MEM;
    }
    int runs = run->cfg->calibration.runs_per_point;
    double spans[runs];
    for (int i = 0; i < runs && rc == MPI_SUCCESS; i++) {
        nbc_sample s;
        rc = calibration_measure(run, KIND_COMM_REF, &inst, 0, expected_s, &s);
        if (rc == MPI_SUCCESS)
            rc = nbc_global_span_s(run, s.t_ns[0], s.t_ns[3], &spans[i]);
    }
    *used_bytes = inst.bytes;
    coll_instance_release(&inst);
    *median_s = nbc_median(spans, runs);
    return rc;
}

/* Size where the quadratic t = a + b s + c s^2 through three points reaches
 * target (the paper's interpolation); NAN when the fit has no root inside
 * (lo, hi). */
static double quadratic_root(const size_point p[3], double target, double lo, double hi)
{
    /* Newton's divided differences. */
    double d01 = (p[1].t_s - p[0].t_s) / (p[1].bytes - p[0].bytes);
    double d12 = (p[2].t_s - p[1].t_s) / (p[2].bytes - p[1].bytes);
    double c = (d12 - d01) / (p[2].bytes - p[0].bytes);
    double b = d01 - c * (p[0].bytes + p[1].bytes);
    double a = p[0].t_s - b * p[0].bytes - c * p[0].bytes * p[0].bytes;
    double roots[2];
    int n = 0;
    if (fabs(c) < 1e-300) {
        if (b != 0)
            roots[n++] = (target - a) / b;
    } else {
        double disc = b * b - 4 * c * (a - target);
        if (disc >= 0) {
            roots[n++] = (-b + sqrt(disc)) / (2 * c);
            roots[n++] = (-b - sqrt(disc)) / (2 * c);
        }
    }
    for (int i = 0; i < n; i++)
        if (roots[i] > lo && roots[i] < hi)
            return roots[i];
    return NAN;
}

/* The search state: the tightest sizes known to be too fast (lo) and too
 * slow (hi) for the target, and every point measured (sorted by size). */
typedef struct comm_search {
    size_point *pts;
    int n;
    size_point lo, hi; /* bytes 0: no such point yet */
    double last_width; /* hi - lo after the previous step */
} comm_search;

static void search_add(comm_search *s, double bytes, double t, double target)
{
    int at = s->n++;
    while (at > 0 && s->pts[at - 1].bytes > bytes) {
        s->pts[at] = s->pts[at - 1];
        at--;
    }
    s->pts[at] = (size_point){bytes, t};
    /* Noise can contradict an earlier bound: the newest measurement wins. */
    if (t < target) {
        if (bytes > s->lo.bytes)
            s->lo = s->pts[at];
        if (s->hi.bytes > 0 && s->hi.bytes <= bytes)
            s->hi = (size_point){0, 0};
    } else {
        if (s->hi.bytes == 0 || bytes < s->hi.bytes)
            s->hi = s->pts[at];
        if (s->lo.bytes >= bytes)
            s->lo = (size_point){0, 0};
    }
}

/* Next size to try: grow or shrink until the target is bracketed, then the
 * quadratic through the bracket and its nearest neighbour (the paper's
 * interpolation), with a bisection whenever a step failed to halve the
 * bracket, so noise cannot stall the search. */
static double next_comm_size(comm_search *s, double target, double last_bytes, double last_t,
                             double unit, double max_bytes)
{
    double ratio = target / (last_t > 0 ? last_t : 1e-9);
    if (s->hi.bytes == 0) /* everything too fast: grow, at most 16x a step */
        return fmin(max_bytes, last_bytes * fmin(16.0, fmax(2.0, ratio)));
    if (s->lo.bytes == 0) /* everything too slow: shrink */
        return fmax(unit, s->hi.bytes * fmax(1.0 / 16, fmin(0.5, target / s->hi.t_s)));
    double lo = s->lo.bytes, hi = s->hi.bytes, width = hi - lo;
    bool bisect = s->last_width > 0 && width > 0.5 * s->last_width;
    s->last_width = width;
    if (bisect)
        return 0.5 * (lo + hi);
    /* Three points: lo, hi and the measured point nearest to the bracket. */
    size_point three[3] = {s->lo, s->hi, {0, 0}};
    double best_gap = INFINITY;
    for (int i = 0; i < s->n; i++) {
        double b = s->pts[i].bytes;
        double gap = b < lo ? lo - b : (b > hi ? b - hi : INFINITY);
        if (gap < best_gap) {
            best_gap = gap;
            three[2] = s->pts[i];
        }
    }
    if (isfinite(best_gap)) {
        /* Divided differences want the points in size order. */
        if (three[2].bytes < lo) {
            size_point third = three[2];
            three[2] = three[1];
            three[1] = three[0];
            three[0] = third;
        }
        double root = quadratic_root(three, target, lo, hi);
        if (!isnan(root))
            return root;
    }
    return lo + (target - s->lo.t_s) * (hi - lo) / (s->hi.t_s - s->lo.t_s);
}

int nbc_calibrate_comm(nbc_run *run, double target_s, size_t start_bytes,
                       nbc_comm_calibration *result)
{
    const nbc_config *cfg = run->cfg;
    double unit = run->coll->reduces ? (double)sizeof(double) : 1.0;
    double max_bytes = fmin((double)cfg->calibration.max_bytes,
                            (double)nbc_collective_max_bytes(run->coll, run->ranks));
    int max_points = cfg->calibration.max_iterations;
    comm_search search = {.pts = calloc((size_t)max_points, sizeof(size_point))};
    if (!search.pts)
        return MPI_ERR_NO_MEM;
    *result = (nbc_comm_calibration){.target_s = target_s};
    double best_error = INFINITY;
    double bytes = fmax(unit, fmin(max_bytes, (double)start_bytes));
    int rc = MPI_SUCCESS;
    while (search.n < max_points) {
        size_t used;
        double t;
        rc = measure_comm(run, (size_t)bytes, target_s, &t, &used);
        if (rc != MPI_SUCCESS)
            break;
        result->iterations = search.n + 1;
        double error = fabs(t - target_s) / target_s;
        if (error < best_error) {
            best_error = error;
            result->bytes_closest = used;
            result->t_s = t;
        }
        if (error <= cfg->calibration.tolerance) {
            result->converged = true;
            break;
        }
        if (!run->coll->sizable)
            break; /* the size changes nothing: one measurement says it all */
        search_add(&search, (double)used, t, target_s);
        double next = next_comm_size(&search, target_s, (double)used, t, unit, max_bytes);
        next = fmax(unit, floor(next / unit) * unit);
        /* A size already measured (or stuck at a bound) brings nothing new. */
        bool seen = false;
        for (int i = 0; i < search.n; i++)
            seen |= search.pts[i].bytes == next;
        if (seen)
            break;
        bytes = next;
    }
    free(search.pts);
    result->bytes = result->converged ? result->bytes_closest : 0;
    return rc;
}

/* ---- computation ------------------------------------------------------- */

typedef struct comp_measure_context {
    nbc_run *run;
    double target_s;
    int error;
} comp_measure_context;

/* compute_measure_fn: one comp reference on every rank, its span across
 * ranks (the slowest thread of the slowest rank). */
static int measure_comp(void *context, size_t matrix_n, double *t_s)
{
    comp_measure_context *c = context;
    nbc_run *run = c->run;
    int failed = compute_team_reserve(run->team, matrix_n) != 0, any_failed;
    int rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc == MPI_SUCCESS && any_failed) {
        if (failed)
            fprintf(stderr, "bench_nbc: rank %d: %s\n", run->rank, compute_team_error(run->team));
        rc = MPI_ERR_NO_MEM;
    }
    nbc_sample s;
    if (rc == MPI_SUCCESS)
        rc = calibration_measure(run, KIND_COMP_REF, NULL, matrix_n, c->target_s, &s);
    if (rc == MPI_SUCCESS)
        rc = nbc_global_span_s(run, s.t_ns[1], s.t_ns[2], t_s);
    c->error = rc;
    return rc == MPI_SUCCESS ? 0 : -1;
}

int nbc_calibrate_comp(nbc_run *run, double target_s, size_t start_n, size_t max_n,
                       compute_calib_result *result, char *err, size_t errlen)
{
    compute_calib_options options = compute_calib_defaults();
    options.tolerance = run->cfg->calibration.tolerance;
    options.reps = run->cfg->calibration.runs_per_point;
    options.max_iterations = run->cfg->calibration.max_iterations;
    options.max_matrix_n = max_n;
    options.start_n = start_n;
    comp_measure_context context = {.run = run, .target_s = target_s, .error = MPI_SUCCESS};
    if (compute_calibrate(&options, target_s, measure_comp, &context, result, err, errlen) != 0)
        return context.error != MPI_SUCCESS ? context.error : MPI_ERR_OTHER;
    return MPI_SUCCESS;
}
