/* Calibration: the matrix size whose step takes a target time (paper
 * section 5.1: iterate on the median of several runs until within 10 %). */
#include "compute/compute.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Enough to bracket 1 us to 10 s from n = 64 with room for noise. */
enum { most_reps = 1000, most_iterations = 1000 };
/* Medians taken of a candidate whose first median is implausible (see
 * implausible): the median of these counts. */
enum { implausible_medians = 3 };
/* Largest growth of n from one candidate to the next (8^3 = 512 x the time):
 * the cubic model is poor at small n, where the fork/join overhead dominates. */
static const double most_growth = 8.0;

static const char *const status_names[] = {
    [COMPUTE_CALIB_CONVERGED] = "converged", [COMPUTE_CALIB_NOT_CONVERGED] = "not_converged",
    [COMPUTE_CALIB_TOO_SMALL] = "too_small", [COMPUTE_CALIB_TOO_LARGE] = "too_large",
    [COMPUTE_CALIB_ERROR] = "error",
};

const char *compute_calib_status_name(compute_calib_status status)
{
    if ((unsigned)status >= sizeof status_names / sizeof *status_names)
        return "unknown";
    return status_names[status];
}

compute_calib_options compute_calib_defaults(void)
{
    return (compute_calib_options){
        .tolerance = 0.10,
        .reps = 5,
        .max_iterations = 20,
        .max_matrix_n = 0,
        .start_n = 64,
        .floor_n = 0,
        .floor_t_s = 0,
    };
}

typedef struct point {
    size_t matrix_n; /* 0: none yet */
    double t_s;
} point;

static int compare_doubles(const void *left, const void *right)
{
    double a = *(const double *)left;
    double b = *(const double *)right;
    return (a > b) - (a < b);
}

int compute_measure_median(compute_measure_fn measure, void *context, size_t matrix_n, int reps,
                           double *median_s)
{
    if (reps < 1 || reps > most_reps)
        return -1;
    double *samples = malloc(sizeof *samples * (size_t)reps);
    if (samples == NULL)
        return -1;
    for (int rep = 0; rep < reps; rep++) {
        if (measure(context, matrix_n, &samples[rep]) != 0) {
            free(samples);
            return -1;
        }
    }
    qsort(samples, (size_t)reps, sizeof *samples, compare_doubles);
    *median_s = reps % 2 ? samples[reps / 2] : (samples[reps / 2 - 1] + samples[reps / 2]) / 2;
    free(samples);
    return 0;
}

static size_t clamp_n(double n, size_t lowest, size_t highest)
{
    if (!(n >= (double)lowest)) /* also catches NaN */
        return lowest;
    if (n >= (double)highest)
        return highest;
    return (size_t)llround(n);
}

/* Next n to measure, strictly between the bracketing points when both exist,
 * never below lowest_n; 0 when no integer is left between them. */
static size_t next_candidate(point below, point above, double target_s, size_t lowest_n,
                             size_t max_matrix_n)
{
    if (below.matrix_n > 0 && above.matrix_n > 0) {
        if (above.matrix_n - below.matrix_n <= 1)
            return 0;
        /* t = c n^p through both points: p is 3 for large n, less where the
         * step's fixed overhead still counts. Noise can make it nonsense:
         * bisect then. */
        double exponent =
            log(above.t_s / below.t_s) / log((double)above.matrix_n / (double)below.matrix_n);
        double n = exponent > 0.5 && isfinite(exponent)
                       ? (double)below.matrix_n * pow(target_s / below.t_s, 1.0 / exponent)
                       : ((double)below.matrix_n + (double)above.matrix_n) / 2;
        return clamp_n(n, below.matrix_n + 1, above.matrix_n - 1);
    }
    /* One side only: refit c = t / n^3 from that measurement. */
    point known = below.matrix_n > 0 ? below : above;
    double n = (double)known.matrix_n * cbrt(target_s / known.t_s);
    if (below.matrix_n > 0) {
        double highest = fmin((double)below.matrix_n * most_growth, (double)max_matrix_n);
        return clamp_n(n, below.matrix_n + 1, (size_t)highest);
    }
    double lowest = fmax((double)above.matrix_n / most_growth, (double)lowest_n);
    return clamp_n(n, (size_t)lowest, above.matrix_n - 1);
}

/* A step's time grows like n^3 (the flops), a little faster across cache
 * sizes: never like n^4. A bracket steeper than that holds a disturbed
 * measurement (another program took the core), and would trap the search. */
static bool steeper_than_gemm(point below, point above)
{
    double size_ratio = (double)above.matrix_n / (double)below.matrix_n;
    return above.t_s / below.t_s > pow(size_ratio, 4);
}

static int check_options(const compute_calib_options *options, double target_s, char *error,
                         size_t error_size)
{
    if (!(target_s > 0) || !isfinite(target_s)) {
        snprintf(error, error_size, "compute: calibration target %g s, must be > 0", target_s);
        return -1;
    }
    if (!(options->tolerance > 0 && options->tolerance < 1)) {
        snprintf(error, error_size, "compute: calibration tolerance %g, allowed: 0 < x < 1",
                 options->tolerance);
        return -1;
    }
    if (options->reps < 1 || options->reps > most_reps) {
        snprintf(error, error_size, "compute: calibration reps %d, allowed: 1 to %d", options->reps,
                 most_reps);
        return -1;
    }
    if (options->max_iterations < 1 || options->max_iterations > most_iterations) {
        snprintf(error, error_size, "compute: calibration max_iterations %d, allowed: 1 to %d",
                 options->max_iterations, most_iterations);
        return -1;
    }
    if (options->max_matrix_n < 1) {
        snprintf(error, error_size,
                 "compute: calibration max_matrix_n is 0: memory allows no matrix at all");
        return -1;
    }
    return 0;
}

/* A first median not to be trusted alone: the smallest n allowed already
 * too long (no smaller n can be tried instead), or a time that grew faster
 * than a GEMM's from the floor's measured time (one slow median of a step
 * that is bimodal on a core shared with a busy thread, or disturbed). */
static bool implausible(const compute_calib_options *options, point at, size_t lowest_n,
                        double target_s)
{
    if (at.matrix_n == lowest_n && lowest_n > 1 && at.t_s > target_s * (1 + options->tolerance))
        return true;
    return options->floor_n > 0 && options->floor_t_s > 0 && at.matrix_n > options->floor_n &&
           steeper_than_gemm((point){options->floor_n, options->floor_t_s}, at);
}

/* The median of implausible_medians medians at `at` (the first one is
 * at.t_s); each further median counts as an iteration. */
static int measure_again(const compute_calib_options *options, compute_measure_fn measure,
                         void *context, point *at, compute_calib_result *result)
{
    double medians[implausible_medians] = {at->t_s};
    for (int i = 1; i < implausible_medians; i++) {
        if (compute_measure_median(measure, context, at->matrix_n, options->reps, &medians[i]) != 0)
            return -1;
        result->iterations++;
    }
    qsort(medians, implausible_medians, sizeof *medians, compare_doubles);
    at->t_s = medians[implausible_medians / 2];
    return 0;
}

static double relative_error(double t_s, double target_s)
{
    return fabs(t_s - target_s) / target_s;
}

static void set_result(compute_calib_result *result, point at, compute_calib_status status)
{
    result->matrix_n = at.matrix_n;
    result->t_s = at.t_s;
    result->gflops_per_thread = compute_gflops(at.matrix_n, at.t_s);
    result->status = status;
    result->converged = status == COMPUTE_CALIB_CONVERGED;
}

int compute_calibrate(const compute_calib_options *options, double target_s,
                      compute_measure_fn measure, void *context, compute_calib_result *result,
                      char *error, size_t error_size)
{
    *result = (compute_calib_result){.target_s = target_s, .status = COMPUTE_CALIB_ERROR};
    if (check_options(options, target_s, error, error_size) != 0)
        return -1;
    point below = {0, 0}, above = {0, 0}, best = {0, 0};
    /* Above the floor, within memory (a floor at the limit leaves the limit). */
    size_t lowest_n =
        options->floor_n < options->max_matrix_n ? options->floor_n + 1 : options->max_matrix_n;
    size_t matrix_n = clamp_n((double)options->start_n, lowest_n, options->max_matrix_n);
    if (options->floor_n > 0 && options->floor_t_s > 0 && options->floor_t_s < target_s &&
        options->floor_n < options->max_matrix_n) {
        /* The shorter target's measured size bounds this one from below. */
        below = (point){options->floor_n, options->floor_t_s};
        matrix_n = next_candidate(below, above, target_s, lowest_n, options->max_matrix_n);
    }
    compute_calib_status status = COMPUTE_CALIB_NOT_CONVERGED;
    size_t measured_again_n = 0; /* each candidate at most once */
    while (result->iterations < options->max_iterations) {
        point at = {matrix_n, 0};
        if (compute_measure_median(measure, context, matrix_n, options->reps, &at.t_s) != 0) {
            snprintf(error, error_size, "compute: calibration measurement at n = %zu failed",
                     matrix_n);
            return -1;
        }
        result->iterations++;
        if (matrix_n != measured_again_n && implausible(options, at, lowest_n, target_s)) {
            measured_again_n = matrix_n;
            if (measure_again(options, measure, context, &at, result) != 0) {
                snprintf(error, error_size, "compute: calibration measurement at n = %zu failed",
                         matrix_n);
                return -1;
            }
            if (best.matrix_n == matrix_n)
                best = at;
        }
        if (best.matrix_n == 0 ||
            relative_error(at.t_s, target_s) < relative_error(best.t_s, target_s))
            best = at;
        if (relative_error(at.t_s, target_s) <= options->tolerance) {
            status = COMPUTE_CALIB_CONVERGED;
            break;
        }
        if (at.t_s < target_s) {
            below = at;
            if (matrix_n >= options->max_matrix_n) {
                best = at;
                status = COMPUTE_CALIB_TOO_LARGE;
                break;
            }
        } else {
            above = at;
            if (matrix_n == lowest_n) {
                best = at;
                status = lowest_n == 1 ? COMPUTE_CALIB_TOO_SMALL : COMPUTE_CALIB_NOT_CONVERGED;
                break;
            }
        }
        if (below.matrix_n > 0 && above.matrix_n > 0 && steeper_than_gemm(below, above)) {
            /* Keep the fresh measurement, measure again around it. */
            if (at.t_s < target_s)
                above = (point){0, 0};
            else
                below = (point){0, 0};
        }
        matrix_n = next_candidate(below, above, target_s, lowest_n, options->max_matrix_n);
        if (matrix_n == 0)
            break; /* adjacent sizes bracket the target: keep the closer */
    }
    set_result(result, best, status);
    return 0;
}
