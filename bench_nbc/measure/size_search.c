/* The message size search of the communication calibration (see
 * size_search.h). */
#include "bench_nbc/measure/size_search.h"

#include <math.h>
#include <stdlib.h>

double size_search_quadratic_root(const size_search_point p[3], double target_s, double lo,
                                  double hi)
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
            roots[n++] = (target_s - a) / b;
    } else {
        double disc = b * b - 4 * c * (a - target_s);
        /* On nearly straight data c is rounding noise and -b + sqrt(disc)
         * cancels: q = -(b + sign(b) sqrt(disc)) / 2 adds numbers of one
         * sign, and the roots are q / c and (a - target) / q (Numerical
         * Recipes, section 5.6). The root (-b + sqrt(disc)) / (2c) comes
         * first, as it always did. */
        double q = -0.5 * (b + copysign(sqrt(disc), b));
        if (disc >= 0 && q != 0) {
            double q_root = q / c, other_root = (a - target_s) / q;
            roots[n++] = b < 0 ? q_root : other_root;
            roots[n++] = b < 0 ? other_root : q_root;
        } else if (disc >= 0) {
            roots[n++] = 0; /* b = 0 and a = target */
        }
    }
    for (int i = 0; i < n; i++)
        if (roots[i] > lo && roots[i] < hi)
            return roots[i];
    return NAN;
}

/* The smallest size the search may try: one unit, or the first multiple of
 * the unit above the floor. */
static double lowest_bytes(const size_search_options *o)
{
    double unit = (double)o->unit_bytes;
    return o->floor_bytes > 0 ? (floor((double)o->floor_bytes / unit) + 1) * unit : unit;
}

int size_search_init(size_search *s, const size_search_options *options, size_t start_bytes)
{
    int capacity = options->max_points > 0 ? options->max_points : 1;
    *s = (size_search){.options = *options,
                       .points = calloc((size_t)capacity, sizeof(size_search_point)),
                       .closest_error = INFINITY};
    if (!s->points)
        return -1;
    /* A collective without a size (a barrier) has no largest size either:
     * it is measured once, at any size. */
    if (options->size_irrelevant) {
        s->next_bytes = (size_t)lowest_bytes(options);
        s->done = options->max_points <= 0;
        return 0;
    }
    s->next_bytes =
        (size_t)fmax(lowest_bytes(options), fmin((double)options->max_bytes, (double)start_bytes));
    s->done = options->max_points <= 0 || lowest_bytes(options) > (double)options->max_bytes;
    return 0;
}

void size_search_free(size_search *s)
{
    free(s->points);
    s->points = NULL;
}

size_t size_search_next_bytes(const size_search *s)
{
    return s->next_bytes;
}

bool size_search_done(const size_search *s)
{
    return s->done;
}

static int find_point(const size_search *s, double bytes)
{
    for (int i = 0; i < s->n_points; i++)
        if (s->points[i].bytes == bytes)
            return i;
    return -1;
}

/* Adds a point (kept sorted by size), or replaces a size measured again,
 * and tightens the bracket. */
static void add_point(size_search *s, double bytes, double t)
{
    double target = s->options.target_s;
    int at = find_point(s, bytes);
    if (at >= 0) {
        s->points[at].t_s = t;
        s->points[at].measured_again = true;
    } else {
        at = s->n_points++;
        while (at > 0 && s->points[at - 1].bytes > bytes) {
            s->points[at] = s->points[at - 1];
            at--;
        }
        s->points[at] = (size_search_point){.bytes = bytes, .t_s = t};
    }
    s->points[at].measurement = s->measurements;
    /* Noise can contradict an earlier bound: the newest measurement wins
     * (a bound measured again is replaced by its new time). */
    if (t < target) {
        if (bytes >= s->lo.bytes)
            s->lo = s->points[at];
        if (s->hi.bytes > 0 && s->hi.bytes <= bytes)
            s->hi = (size_search_point){0};
    } else {
        if (s->hi.bytes == 0 || bytes <= s->hi.bytes)
            s->hi = s->points[at];
        if (s->lo.bytes >= bytes)
            s->lo = (size_search_point){0};
    }
}

/* Next size to try (before rounding to the unit): grow or shrink until the
 * target is bracketed, then the quadratic through the bracket and its
 * nearest neighbour, with a bisection whenever a step failed to halve the
 * bracket. */
static double next_size(size_search *s, double last_bytes, double last_t)
{
    double target = s->options.target_s;
    double lowest = lowest_bytes(&s->options), max_bytes = (double)s->options.max_bytes;
    double ratio = target / (last_t > 0 ? last_t : 1e-9);
    if (s->hi.bytes == 0) /* everything too fast: grow, at most 16x a step */
        return fmin(max_bytes, last_bytes * fmin(16.0, fmax(2.0, ratio)));
    if (s->lo.bytes == 0) /* everything too slow: shrink */
        return fmax(lowest, s->hi.bytes * fmax(1.0 / 16, fmin(0.5, target / s->hi.t_s)));
    double lo = s->lo.bytes, hi = s->hi.bytes, width = hi - lo;
    bool bisect = s->last_width > 0 && width > 0.5 * s->last_width;
    s->last_width = width;
    if (bisect)
        return 0.5 * (lo + hi);
    /* Three points: lo, hi and the measured point nearest to the bracket. */
    size_search_point three[3] = {s->lo, s->hi, {.bytes = 0}};
    double best_gap = INFINITY;
    for (int i = 0; i < s->n_points; i++) {
        double b = s->points[i].bytes;
        double gap = b < lo ? lo - b : (b > hi ? b - hi : INFINITY);
        if (gap < best_gap) {
            best_gap = gap;
            three[2] = s->points[i];
        }
    }
    if (isfinite(best_gap)) {
        /* Divided differences want the points in size order. */
        if (three[2].bytes < lo) {
            size_search_point third = three[2];
            three[2] = three[1];
            three[1] = three[0];
            three[0] = third;
        }
        double root = size_search_quadratic_root(three, target, lo, hi);
        if (!isnan(root))
            return root;
    }
    return lo + (target - s->lo.t_s) * (hi - lo) / (s->hi.t_s - s->lo.t_s);
}

/* Whether the bracket has closed without reaching the target: to within
 * half the tolerance (where a smooth curve would have put a size within the
 * tolerance) or onto sizes measured already. */
static bool bracket_closed(const size_search *s, bool repeats)
{
    if (s->lo.bytes == 0 || s->hi.bytes == 0)
        return false;
    return repeats || s->hi.bytes <= s->lo.bytes * (1 + s->options.tolerance / 2);
}

/* The bracket end measured longer ago (lo and hi are copied from their
 * points whenever those are measured). */
static double older_end_bytes(const size_search *s)
{
    return s->lo.measurement < s->hi.measurement ? s->lo.bytes : s->hi.bytes;
}

bool size_search_record(size_search *s, size_t used_bytes, double t_s, double slack_s)
{
    if (s->done)
        return false;
    const size_search_options *o = &s->options;
    s->measurements++;
    double error = fabs(t_s - o->target_s) / o->target_s;
    bool reached = fabs(t_s - o->target_s) <= o->tolerance * o->target_s + slack_s;
    /* A size that reaches the target is the result, even when (with a
     * slack) an earlier size looked closer by its estimate alone. */
    if (reached || error < s->closest_error) {
        s->closest_error = error;
        s->closest_bytes = used_bytes;
        s->closest_t_s = t_s;
    }
    if (reached) {
        s->converged = true;
        s->done = true;
        return false;
    }
    if (o->size_irrelevant) {
        s->done = true;
        return false;
    }
    add_point(s, (double)used_bytes, t_s);
    double unit = (double)o->unit_bytes;
    double next = next_size(s, (double)used_bytes, t_s);
    next = fmax(lowest_bytes(o), floor(next / unit) * unit);
    /* A size already measured (or stuck at a bound) brings nothing new,
     * unless it is a bracket end to measure again. */
    bool repeats = find_point(s, next) >= 0;
    bool closed = bracket_closed(s, repeats);
    if (closed && !s->bracket_closed)
        s->ends_to_measure_again = 2;
    s->bracket_closed = closed;
    if (closed && s->ends_to_measure_again > 0) {
        next = older_end_bytes(s);
        s->ends_to_measure_again--;
    } else if (repeats) {
        s->done = true;
    }
    if (s->measurements >= o->max_points)
        s->done = true;
    if (!s->done)
        s->next_bytes = (size_t)next;
    return !s->done;
}

bool size_search_measurable(const size_search *s, double off_target_max_error)
{
    return s->converged || (s->closest_bytes > 0 && s->closest_error <= off_target_max_error);
}
