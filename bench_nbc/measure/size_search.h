/* size_search: the message size whose collective takes a target time
 * (sections 4.3 and 5.1 of the BenchNBC paper), as a search that is told
 * measurements and answers with the next size to measure. No MPI: the
 * caller measures (bench_nbc/measure/calibrate.c), tests simulate the collective.
 *
 * The search grows (or shrinks) the size until the target is bracketed by a
 * size too fast and a size too slow, then fits the quadratic
 * t = a + b s + c s^2 through the bracket and its nearest measured neighbour
 * (the paper's interpolation), bisecting instead whenever the last step
 * failed to halve the bracket, so noise cannot stall it. A bracket that
 * closes to within half the tolerance without reaching the target holds a
 * jump: an algorithm switch, or ends measured while the machine ran at
 * different speeds (a busy neighbour). Its ends are then measured once
 * more each, the older first, and the search goes on from what they say
 * now. It stops when a
 * measurement is within the tolerance (widened by the caller's slack for an
 * imprecise measurement), when the next size was measured
 * already (a bound such as max_bytes reached, or the search converged on a
 * size) or after max_points measurements.
 *
 * Sizes are in bytes, times in seconds. */
#ifndef BENCH_NBC_SIZE_SEARCH_H
#define BENCH_NBC_SIZE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct size_search_options {
    double target_s;
    double tolerance;     /* relative: |t - target| / target within it is reached */
    size_t unit_bytes;    /* sizes are multiples of it (a reduction's element), >= 1 */
    size_t max_bytes;     /* the largest size to try (ignored when size_irrelevant) */
    size_t floor_bytes;   /* sizes tried exceed it (0: none): a shorter target's size, so
                             the sizes rise with their targets where a step is bimodal */
    int max_points;       /* measurements at most, >= 1 */
    bool size_irrelevant; /* the collective takes no size: one measurement says it all */
} size_search_options;

typedef struct size_search_point {
    double bytes, t_s;
    int measurement;     /* the measurement (from 1) that gave t_s */
    bool measured_again; /* t_s replaced an earlier measurement of this size */
} size_search_point;

/* The state, read-only for callers except through the functions below. */
typedef struct size_search {
    size_search_options options;
    size_search_point *points; /* measured, sorted by size */
    int n_points;
    size_search_point lo, hi;  /* tightest too fast / too slow sizes; bytes 0: none yet */
    double last_width;         /* hi - lo after the previous interpolation step */
    bool bracket_closed;       /* hi and lo closed in without reaching the target */
    int ends_to_measure_again; /* of the bracket that closed last */
    size_t next_bytes;         /* the size to measure next (while not done) */
    bool done;
    /* Result so far. */
    int measurements;
    bool converged; /* a measurement was within the tolerance */
    size_t closest_bytes;
    double closest_t_s;   /* measured at closest_bytes */
    double closest_error; /* |closest_t_s - target| / target; infinite before any */
} size_search;

/* Starts a search at start_bytes (clamped to [unit_bytes, max_bytes]).
 * 0, or -1 when memory runs out. */
int size_search_init(size_search *search, const size_search_options *options, size_t start_bytes);
void size_search_free(size_search *search);

/* The size to measure next; meaningful while size_search_done is false. */
size_t size_search_next_bytes(const size_search *search);
bool size_search_done(const size_search *search);

/* Records that the collective took t_s at used_bytes (the size actually
 * measured: a collective may round the size it was asked for) and chooses
 * the next size. t_s within tolerance * target + slack_s of the target
 * reaches it: slack_s is 0 for a precise measurement, twice the standard
 * error of one that stayed imprecise (compute_point_slack_s). Returns true
 * while the search goes on. */
bool size_search_record(size_search *search, size_t used_bytes, double t_s, double slack_s);

/* Whether the search's closest size is worth measuring: it reached the
 * target, or missed it by at most off_target_max_error (relative), which
 * the analysis still reads as the target, flagged off target. */
bool size_search_measurable(const size_search *search, double off_target_max_error);

/* The size where the quadratic through three points (sorted by size)
 * reaches target_s, strictly inside (lo, hi); NAN when it has no root there. */
double size_search_quadratic_root(const size_search_point points[3], double target_s, double lo,
                                  double hi);

#endif
