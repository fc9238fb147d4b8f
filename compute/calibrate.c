/* Calibration: the matrix size whose step takes a target time (paper
 * section 5.1: iterate on several runs of each candidate until within
 * 10 %; the paper keeps their median, here their 10 % trimmed mean, see
 * compute.h). */
#include "compute/compute.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Enough to bracket 1 us to 10 s from n = 64 with room for noise. */
enum { most_reps = 1000, most_iterations = 1000 };
/* Estimates taken of a candidate whose first estimate is implausible (see
 * implausible): their median counts. */
enum { implausible_estimates = 3 };
/* Brackets steeper than a GEMM whose older end is dropped, at most: a
 * disturbed candidate costs two (it drops the end before it, the next
 * candidate drops it), two disturbed ones four. Steeper again after that is
 * the step itself: a step that is bimodal on a core shared with a busy
 * thread grows faster than n^4 where its share of slow runs rises. */
enum { most_steep_drops = 4 };
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
        .max_reps = 40,
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
    /* Still imprecise after the most runs (compute_point_imprecise): the
     * step is bimodal here, not disturbed for a while, and measuring it
     * again would tell no more. */
    bool imprecise;
    double t_se_s; /* t_s's standard error; 0 for the floor (not measured here) */
    int runs;
} point;

static int compare_point_times(const void *left, const void *right)
{
    double a = ((const compute_point *)left)->t_s;
    double b = ((const compute_point *)right)->t_s;
    return (a > b) - (a < b);
}

static int compare_doubles(const void *left, const void *right)
{
    double a = *(const double *)left;
    double b = *(const double *)right;
    return (a > b) - (a < b);
}

/* The i-th of the sorted times, winsorized: the `trimmed` fastest count as
 * the fastest kept one, the `trimmed` slowest as the slowest kept one. */
static double winsorized(const double *sorted_s, int count, int trimmed, int i)
{
    int at = i < trimmed ? trimmed : i >= count - trimmed ? count - trimmed - 1 : i;
    return sorted_s[at];
}

double compute_trimmed_mean(double *times_s, int count, double *standard_error_s)
{
    qsort(times_s, (size_t)count, sizeof *times_s, compare_doubles);
    int trimmed = count / 10, kept = count - 2 * trimmed;
    double sum = 0;
    for (int i = trimmed; i < count - trimmed; i++)
        sum += times_s[i];
    if (standard_error_s) {
        /* Tukey and McLaughlin: the winsorized sample's standard deviation
         * over (1 - 2 g) sqrt(n), g the share trimmed from each end. */
        double winsorized_mean = 0, square = 0;
        for (int i = 0; i < count; i++)
            winsorized_mean += winsorized(times_s, count, trimmed, i) / count;
        for (int i = 0; i < count; i++) {
            double deviation = winsorized(times_s, count, trimmed, i) - winsorized_mean;
            square += deviation * deviation;
        }
        double deviation_s = count > 1 ? sqrt(square / (count - 1)) : INFINITY;
        *standard_error_s = deviation_s / ((double)kept / count * sqrt(count));
    }
    return sum / kept;
}

bool compute_point_imprecise(const compute_point *point, const compute_point_rule *rule)
{
    return point->standard_error_s > rule->precision_s && point->runs >= rule->most_runs &&
           rule->most_runs > rule->runs;
}

double compute_point_slack_s(const compute_point *point, const compute_point_rule *rule)
{
    /* At most the tolerance band itself (4 x precision_s): beyond, the
     * estimate could not tell neighbouring targets apart. */
    return compute_point_imprecise(point, rule)
               ? fmin(2 * point->standard_error_s, 4 * rule->precision_s)
               : 0;
}

int compute_measure_point(compute_measure_fn measure, void *context, size_t size,
                          const compute_point_rule *rule, compute_point *point)
{
    if (rule->runs < 1 || rule->most_runs < rule->runs || rule->most_runs > most_reps)
        return -1;
    double *times_s = malloc(sizeof *times_s * (size_t)rule->most_runs);
    if (times_s == NULL)
        return -1;
    int count = 0, wanted = rule->runs;
    double standard_error_s = INFINITY;
    for (;;) {
        for (; count < wanted; count++) {
            if (measure(context, size, &times_s[count]) != 0) {
                free(times_s);
                return -1;
            }
        }
        point->t_s = compute_trimmed_mean(times_s, count, &standard_error_s);
        if (standard_error_s <= rule->precision_s || count >= rule->most_runs)
            break;
        /* Another batch of runs: the measurements are sorted now, which is
         * fine, the statistic does not depend on their order. */
        wanted = count + rule->runs < rule->most_runs ? count + rule->runs : rule->most_runs;
    }
    point->standard_error_s = standard_error_s;
    point->runs = count;
    free(times_s);
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
    if (options->max_reps != 0 &&
        (options->max_reps < options->reps || options->max_reps > most_reps)) {
        snprintf(error, error_size, "compute: calibration max_reps %d, allowed: 0 or %d to %d",
                 options->max_reps, options->reps, most_reps);
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

/* A first estimate not to be trusted alone: the smallest n allowed already
 * too long (no smaller n can be tried instead), or a time that grew faster
 * than a GEMM's from the floor's measured time (one slow estimate of a step
 * that is bimodal on a core shared with a busy thread, or disturbed). */
static bool implausible(const compute_calib_options *options, point at, size_t lowest_n,
                        double target_s)
{
    if (at.matrix_n == lowest_n && lowest_n > 1 && at.t_s > target_s * (1 + options->tolerance))
        return true;
    return options->floor_n > 0 && options->floor_t_s > 0 && at.matrix_n > options->floor_n &&
           steeper_than_gemm((point){.matrix_n = options->floor_n, .t_s = options->floor_t_s}, at);
}

/* The median of implausible_estimates estimates at `at` (the first one is
 * at.t_s); each further estimate counts as an iteration. */
static int measure_again(const compute_calib_options *options, double target_s,
                         compute_measure_fn measure, void *context, point *at,
                         compute_calib_result *result)
{
    compute_point estimates[implausible_estimates] = {
        {.t_s = at->t_s, .standard_error_s = at->t_se_s, .runs = at->runs}};
    compute_point_rule rule = compute_calib_point_rule(options, target_s);
    int runs = at->runs;
    for (int i = 1; i < implausible_estimates; i++) {
        if (compute_measure_point(measure, context, at->matrix_n, &rule, &estimates[i]) != 0)
            return -1;
        runs += estimates[i].runs;
        result->iterations++;
    }
    qsort(estimates, implausible_estimates, sizeof *estimates, compare_point_times);
    const compute_point *median = &estimates[implausible_estimates / 2];
    at->t_s = median->t_s;
    at->t_se_s = median->standard_error_s;
    at->runs = runs;
    return 0;
}

compute_point_rule compute_calib_point_rule(const compute_calib_options *options, double target_s)
{
    /* A standard error of a quarter of the tolerance: the estimate's 95 %
     * interval spans half the accepted band, so a precise candidate that is
     * accepted is within the tolerance in fact, not by a lucky draw. */
    return (compute_point_rule){
        .runs = options->reps,
        .most_runs = options->max_reps > options->reps ? options->max_reps : options->reps,
        .precision_s = options->tolerance * target_s / 4,
    };
}

static double relative_error(double t_s, double target_s)
{
    return fabs(t_s - target_s) / target_s;
}

static void set_result(compute_calib_result *result, point at, compute_calib_status status)
{
    result->matrix_n = at.matrix_n;
    result->t_s = at.t_s;
    result->t_se_s = at.t_se_s;
    result->runs = at.runs;
    result->imprecise = at.imprecise;
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
    point below = {.matrix_n = 0}, above = below, best = below;
    /* Above the floor, within memory (a floor at the limit leaves the limit). */
    size_t lowest_n =
        options->floor_n < options->max_matrix_n ? options->floor_n + 1 : options->max_matrix_n;
    size_t matrix_n = clamp_n((double)options->start_n, lowest_n, options->max_matrix_n);
    if (options->floor_n > 0 && options->floor_t_s > 0 && options->floor_t_s < target_s &&
        options->floor_n < options->max_matrix_n) {
        /* The shorter target's measured size bounds this one from below. */
        below = (point){.matrix_n = options->floor_n, .t_s = options->floor_t_s};
        matrix_n = next_candidate(below, above, target_s, lowest_n, options->max_matrix_n);
    }
    compute_point_rule rule = compute_calib_point_rule(options, target_s);
    compute_calib_status status = COMPUTE_CALIB_NOT_CONVERGED;
    size_t measured_again_n = 0; /* each candidate at most once */
    int steep_drops = 0;
    while (result->iterations < options->max_iterations) {
        compute_point measured;
        if (compute_measure_point(measure, context, matrix_n, &rule, &measured) != 0) {
            snprintf(error, error_size, "compute: calibration measurement at n = %zu failed",
                     matrix_n);
            return -1;
        }
        result->iterations++;
        point at = {.matrix_n = matrix_n,
                    .t_s = measured.t_s,
                    .imprecise = compute_point_imprecise(&measured, &rule),
                    .t_se_s = measured.standard_error_s,
                    .runs = measured.runs};
        double slack_s = compute_point_slack_s(&measured, &rule);
        if (matrix_n != measured_again_n && !at.imprecise &&
            implausible(options, at, lowest_n, target_s)) {
            measured_again_n = matrix_n;
            if (measure_again(options, target_s, measure, context, &at, result) != 0) {
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
        if (fabs(at.t_s - target_s) <= options->tolerance * target_s + slack_s) {
            best = at; /* with a slack, an earlier n may look closer by its estimate alone */
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
        if (below.matrix_n > 0 && above.matrix_n > 0 && !below.imprecise && !above.imprecise &&
            steeper_than_gemm(below, above) && steep_drops++ < most_steep_drops) {
            /* Keep the fresh measurement, measure again around it. */
            if (at.t_s < target_s)
                above = (point){.matrix_n = 0};
            else
                below = (point){.matrix_n = 0};
        }
        matrix_n = next_candidate(below, above, target_s, lowest_n, options->max_matrix_n);
        if (matrix_n == 0)
            break; /* adjacent sizes bracket the target: keep the closer */
    }
    set_result(result, best, status);
    return 0;
}

int compute_calib_check(const compute_calib_options *options,
                        const compute_calib_result *calibrated, double max_error,
                        compute_measure_fn measure, void *context, compute_point *again,
                        bool *holds)
{
    compute_point_rule rule = compute_calib_point_rule(options, calibrated->target_s);
    *holds = false;
    if (calibrated->matrix_n == 0 ||
        compute_measure_point(measure, context, calibrated->matrix_n, &rule, again) != 0)
        return -1;
    double slack_s = compute_point_slack_s(again, &rule);
    *holds = fabs(again->t_s - calibrated->target_s) <= max_error * calibrated->target_s + slack_s;
    return 0;
}
