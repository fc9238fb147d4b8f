/* Local clocks and the piecewise-linear clock model (section 4.2 of the
 * paper): pure arithmetic, no communication. */
#include "clocksync/clocksync.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* Sources of the local clock, best first: CLOCK_MONOTONIC_RAW is not slewed
 * by NTP (an adjtime in the middle of a measured interval would bias it),
 * CLOCK_MONOTONIC is the fallback where a kernel lacks the raw one. Both
 * never step and are shared by the processes of one machine. */
static const struct {
    clockid_t id;
    const char *name;
} clock_sources[] = {
    {CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW"},
    {CLOCK_MONOTONIC, "CLOCK_MONOTONIC"},
};
enum { CLOCK_SOURCE_COUNT = sizeof clock_sources / sizeof *clock_sources };

/* Index into clock_sources, chosen once (a benign race: every thread
 * chooses the same). */
static int chosen_source = -1;

static int clock_source(void)
{
    if (chosen_source < 0) {
        struct timespec ts;
        int i = 0;
        while (i < CLOCK_SOURCE_COUNT - 1 && clock_gettime(clock_sources[i].id, &ts) != 0)
            i++;
        chosen_source = i;
    }
    return chosen_source;
}

const char *clocksync_clock_source(void)
{
    return clock_sources[clock_source()].name;
}

int64_t clocksync_monotonic_ns(void)
{
    struct timespec ts;
    /* The chosen source was tried once: it cannot fail with a valid pointer. */
    clock_gettime(clock_sources[clock_source()].id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double clocksync_clock_read_ns(const clocksync_clock *clock)
{
    enum { READS = 1000, ROUNDS = 15 };
    double per_read[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        int64_t start = clocksync_clock_now_ns(clock), last = start;
        for (int i = 0; i < READS; i++)
            last = clocksync_clock_now_ns(clock);
        per_read[r] = (double)(last - start) / READS;
    }
    /* The smallest round: the others were interrupted. */
    double best = per_read[0];
    for (int r = 1; r < ROUNDS; r++)
        best = per_read[r] < best ? per_read[r] : best;
    return best;
}

static int64_t monotonic_now(void *unused)
{
    (void)unused;
    return clocksync_monotonic_ns();
}

clocksync_clock clocksync_monotonic_clock(void)
{
    return (clocksync_clock){.now_ns = monotonic_now, .ctx = NULL};
}

static int64_t skewed_now(void *ctx)
{
    const clocksync_skewed_clock *s = ctx;
    int64_t elapsed_ns = clocksync_clock_now_ns(&s->base) - s->origin_ns;
    return s->origin_ns + s->offset_ns + elapsed_ns +
           (int64_t)llround((double)elapsed_ns * s->drift_ppm * 1e-6);
}

clocksync_clock clocksync_skewed_clock_make(clocksync_skewed_clock *state)
{
    return (clocksync_clock){.now_ns = skewed_now, .ctx = state};
}

void clocksync_model_init(clocksync_model *model)
{
    *model = (clocksync_model){0};
}

void clocksync_model_free(clocksync_model *model)
{
    free(model->points);
    *model = (clocksync_model){0};
}

/* A residual beyond the predicted bound by more than this is a changed
 * drift, not rounding (offsets are doubles, instants integers). */
static const double residual_slack_ns = 1.0;

int clocksync_model_add_point(clocksync_model *model, clocksync_point point)
{
    int n = model->n_points;
    if (n > 0 && point.local_ns <= model->points[n - 1].local_ns)
        return -1;
    if (n == model->capacity) {
        int capacity = model->capacity ? 2 * model->capacity : 8;
        clocksync_point *grown = realloc(model->points, (size_t)capacity * sizeof *grown);
        if (!grown)
            return -1;
        model->points = grown;
        model->capacity = capacity;
    }
    point.predicted_error_ns = 0;
    point.residual_ns = 0;
    if (n >= 2) {
        /* What the model predicted for this instant, checked against what
         * was measured (clocksync.h, "Error bound"). */
        point.predicted_error_ns = clocksync_model_error_bound_ns(model, point.local_ns);
        point.residual_ns = point.offset_ns - clocksync_model_offset_ns(model, point.local_ns);
        if (fabs(point.residual_ns) > point.predicted_error_ns + point.bound_ns + residual_slack_ns)
            model->baseline = n - 1; /* the drift changed: restart from the last point */
    }
    model->points[model->n_points++] = point;
    return 0;
}

/* Index i of the segment [i, i+1] that serves local_ns: the one containing it,
 * or the first/last one outside the points. Needs n_points >= 2. */
static int segment_for_local(const clocksync_model *model, int64_t local_ns)
{
    int lo = 0, hi = model->n_points - 2;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (model->points[mid].local_ns <= local_ns)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static double segment_slope(const clocksync_model *model, int i)
{
    const clocksync_point *a = &model->points[i], *b = &model->points[i + 1];
    return (b->offset_ns - a->offset_ns) / (double)(b->local_ns - a->local_ns);
}

/* The slope (d offset / d local) extrapolation follows past the last
 * point: the baseline from point F to L. Needs n_points >= 2. */
static double baseline_slope(const clocksync_model *model)
{
    const clocksync_point *f = &model->points[model->baseline];
    const clocksync_point *l = &model->points[model->n_points - 1];
    return (l->offset_ns - f->offset_ns) / (double)(l->local_ns - f->local_ns);
}

double clocksync_model_offset_ns(const clocksync_model *model, int64_t local_ns)
{
    if (model->n_points == 0)
        return 0.0;
    if (model->n_points == 1)
        return model->points[0].offset_ns;
    const clocksync_point *last = &model->points[model->n_points - 1];
    if (local_ns > last->local_ns)
        return last->offset_ns + baseline_slope(model) * (double)(local_ns - last->local_ns);
    int i = segment_for_local(model, local_ns);
    const clocksync_point *a = &model->points[i];
    return a->offset_ns + segment_slope(model, i) * (double)(local_ns - a->local_ns);
}

int64_t clocksync_model_to_global(const clocksync_model *model, int64_t local_ns)
{
    return local_ns + (int64_t)llround(clocksync_model_offset_ns(model, local_ns));
}

int64_t clocksync_model_to_local(const clocksync_model *model, int64_t global_ns)
{
    if (model->n_points == 0)
        return global_ns;
    if (model->n_points == 1)
        return global_ns - (int64_t)llround(model->points[0].offset_ns);
    const clocksync_point *a = &model->points[model->n_points - 1];
    double slope;
    if ((double)a->local_ns + a->offset_ns < (double)global_ns) {
        slope = baseline_slope(model); /* past the last point, as to_global */
    } else {
        /* Global time of each point is increasing (the slope is > -1), so
         * the same segment search works on it. */
        int lo = 0, hi = model->n_points - 2;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            const clocksync_point *p = &model->points[mid];
            if ((double)p->local_ns + p->offset_ns <= (double)global_ns)
                lo = mid;
            else
                hi = mid - 1;
        }
        a = &model->points[lo];
        slope = segment_slope(model, lo);
    }
    /* global = local + off_a + slope (local - local_a), solved for local. */
    double since_a_ns = ((double)(global_ns - a->local_ns) - a->offset_ns) / (1.0 + slope);
    return a->local_ns + (int64_t)llround(since_a_ns);
}

double clocksync_model_drift_ppm(const clocksync_model *model)
{
    if (model->n_points < 2)
        return 0.0;
    const clocksync_point *a = &model->points[0], *b = &model->points[model->n_points - 1];
    double slope = (b->offset_ns - a->offset_ns) / (double)(b->local_ns - a->local_ns);
    /* d(global)/d(local) = 1 + slope, so local runs 1/(1 + slope) times as fast. */
    return -slope / (1.0 + slope) * 1e6;
}

/* The slope's error bound between two points: (b_F + b_L) / (t_L - t_F)
 * (clocksync.h, "Error bound"). */
static double slope_bound(const clocksync_point *f, const clocksync_point *l)
{
    return (f->bound_ns + l->bound_ns) / (double)(l->local_ns - f->local_ns);
}

double clocksync_model_drift_bound_ppm(const clocksync_model *model)
{
    if (model->n_points < 2)
        return INFINITY;
    return slope_bound(&model->points[0], &model->points[model->n_points - 1]) * 1e6;
}

double clocksync_model_drift_uncertainty(const clocksync_model *model)
{
    if (model->n_points == 0)
        return 0.0;
    if (model->n_points == 1)
        return INFINITY;
    return slope_bound(&model->points[model->baseline], &model->points[model->n_points - 1]);
}

double clocksync_model_extrapolation_error_ns(const clocksync_model *model, int64_t local_ns)
{
    if (model->n_points < 2)
        return model->n_points == 0 ? 0.0 : INFINITY;
    int64_t since_ns = local_ns - model->points[model->n_points - 1].local_ns;
    return since_ns > 0 ? clocksync_model_drift_uncertainty(model) * (double)since_ns : 0.0;
}

double clocksync_model_skew_error_ns(const clocksync_model *model, int64_t local_ns)
{
    if (model->n_points < 2)
        return model->n_points == 0 ? 0.0 : INFINITY;
    const clocksync_point *f = &model->points[model->baseline];
    const clocksync_point *l = &model->points[model->n_points - 1];
    int64_t since_ns = local_ns - l->local_ns;
    /* u' = (s_F + s_L) / (t_L - t_F) (clocksync.h, "Likely bound") */
    double u = (f->spread_ns + l->spread_ns) / (double)(l->local_ns - f->local_ns);
    return since_ns > 0 ? u * (double)since_ns : 0.0;
}

double clocksync_model_error_bound_ns(const clocksync_model *model, int64_t local_ns)
{
    if (model->n_points < 2)
        return model->n_points == 0 ? 0.0 : INFINITY;
    const clocksync_point *first = &model->points[0], *last = &model->points[model->n_points - 1];
    if (local_ns >= last->local_ns) /* e(tau) = b_L + u tau */
        return last->bound_ns + clocksync_model_extrapolation_error_ns(model, local_ns);
    if (local_ns <= first->local_ns)
        return first->bound_ns +
               clocksync_model_drift_uncertainty(model) * (double)(first->local_ns - local_ns);
    int i = segment_for_local(model, local_ns);
    return fmax(model->points[i].bound_ns, model->points[i + 1].bound_ns);
}

double clocksync_map_offset_ns(const clocksync_map *map, int64_t from_ns)
{
    return map->offset_ns + map->slope * (double)(from_ns - map->at_ns);
}

clocksync_map clocksync_map_compose(const clocksync_map *outer, const clocksync_map *inner)
{
    /* y = x + o1 + s1 (x - a1), z = y + o2 + s2 (y - a2): at x = a1,
     * z - x = o1 + o2 + s2 (a1 + o1 - a2); d(z - x)/dx = s1 + s2 (1 + s1). */
    return (clocksync_map){
        .at_ns = inner->at_ns,
        .offset_ns = inner->offset_ns + outer->offset_ns +
                     outer->slope * ((double)(inner->at_ns - outer->at_ns) + inner->offset_ns),
        .slope = inner->slope + outer->slope * (1 + inner->slope),
        .bound_ns = inner->bound_ns + outer->bound_ns,
        .spread_ns = inner->spread_ns + outer->spread_ns,
    };
}
