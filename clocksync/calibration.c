/* One calibration, whatever the method and the transport: the rounds of
 * round trips, a point per sweep from the fastest of them, the line of each
 * rank to its parent, and the lines composed down to rank 0 (paper section
 * 4.2; the tree as in HCA3, Hunold and Carpen-Amarie). */
#include "clocksync/method.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The method table: adding a method is adding a row (and its file). */
static const cs_method *const methods[] = {&cs_method_linear, &cs_method_hierarchical};
enum { METHOD_COUNT = sizeof methods / sizeof *methods };

const cs_method *cs_method_get(int method)
{
    return method >= 0 && method < METHOD_COUNT ? methods[method] : NULL;
}

int clocksync_method_count(void)
{
    return METHOD_COUNT;
}

const char *clocksync_method_name(int method)
{
    const cs_method *m = cs_method_get(method);
    return m ? m->name : NULL;
}

int clocksync_method_find(const char *name)
{
    for (int i = 0; i < METHOD_COUNT; i++)
        if (strcmp(methods[i]->name, name) == 0)
            return i;
    return -1;
}

int cs_method_parent(const cs_method *method, int rank, int size)
{
    for (int round = 0; round < method->rounds(size); round++) {
        bool serves;
        int peer = method->peer(round, rank, size, &serves);
        if (peer >= 0 && !serves)
            return peer;
    }
    return -1;
}

cs_sample cs_sample_make(int64_t t_sent, int64_t t_ref, int64_t t_back)
{
    double midpoint = (double)t_sent + 0.5 * (double)(t_back - t_sent);
    return (cs_sample){
        .rtt_ns = (double)(t_back - t_sent),
        .offset_ns = (double)t_ref - midpoint,
        .midpoint_ns = midpoint,
    };
}

static int compare_rtt(const void *a, const void *b)
{
    double x = ((const cs_sample *)a)->rtt_ns, y = ((const cs_sample *)b)->rtt_ns;
    return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The fastest twentieth (at least 5), sorted first: their offsets are the
 * least disturbed by queueing. Returns how many. */
static int keep_fastest(cs_sample *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, compare_rtt);
    return n / 20 > 5 ? n / 20 : (n < 5 ? n : 5);
}

/* The likely bound of an estimate x from samples sorted fastest first
 * (clocksync.h, "Likely bound"): over the m = max(9, keep) fastest,
 * max(x - o_(1), o_(m) - x); with fewer than 9 samples the hard bound. */
static const int spread_min_samples = 9;
static double spread_bound_ns(const cs_sample *samples, int n, int keep, double x, double hard_ns)
{
    int m = keep > spread_min_samples ? keep : spread_min_samples;
    if (n < m)
        return hard_ns;
    double lo = x, hi = x;
    for (int i = 0; i < m; i++) {
        lo = fmin(lo, samples[i].offset_ns);
        hi = fmax(hi, samples[i].offset_ns);
    }
    return fmax(x - lo, hi - x);
}

clocksync_point cs_estimate_median_at_mean(cs_sample *samples, int n)
{
    int keep = keep_fastest(samples, n);
    double offsets[keep > 0 ? keep : 1];
    double midpoint_sum = 0;
    for (int i = 0; i < keep; i++) {
        offsets[i] = samples[i].offset_ns;
        midpoint_sum += samples[i].midpoint_ns;
    }
    qsort(offsets, (size_t)keep, sizeof offsets[0], compare_double);
    double median =
        keep % 2 ? offsets[keep / 2] : 0.5 * (offsets[keep / 2 - 1] + offsets[keep / 2]);
    double bound_ns = samples[keep - 1].rtt_ns / 2;
    return (clocksync_point){
        .local_ns = (int64_t)llround(midpoint_sum / keep),
        .offset_ns = median,
        .latency_ns = samples[0].rtt_ns / 2,
        .bound_ns = bound_ns,
        .spread_ns = spread_bound_ns(samples, n, keep, median, bound_ns),
    };
}

clocksync_point cs_estimate_mean(cs_sample *samples, int n)
{
    int keep = keep_fastest(samples, n);
    double offset_sum = 0, midpoint_sum = 0;
    for (int i = 0; i < keep; i++) {
        offset_sum += samples[i].offset_ns;
        midpoint_sum += samples[i].midpoint_ns;
    }
    double bound_ns = samples[keep - 1].rtt_ns / 2;
    return (clocksync_point){
        .local_ns = (int64_t)llround(midpoint_sum / keep),
        .offset_ns = offset_sum / keep,
        .latency_ns = samples[0].rtt_ns / 2,
        .bound_ns = bound_ns,
        .spread_ns = spread_bound_ns(samples, n, keep, offset_sum / keep, bound_ns),
    };
}

/* What the driver knows of one local rank during a calibration. */
typedef struct local_rank {
    clocksync_point sweep[2];
    int sweeps_done;
    int parent;
    clocksync_map pair; /* own clock -> parent's */
    clocksync_map map;  /* own clock -> rank 0's */
    bool has_map;
} local_rank;

/* The line to the parent: the sweeps' mean point; the drift since the last
 * calibration when there was one, else between the two sweeps (which lie
 * symmetrically around the instant, so the mean is the point then). */
static clocksync_map pair_line(const local_rank *l, int sweeps, const cs_rank_state *state)
{
    const clocksync_point *a = &l->sweep[0], *b = &l->sweep[sweeps - 1];
    clocksync_map line = {
        .at_ns = a->local_ns + (int64_t)llround(0.5 * (double)(b->local_ns - a->local_ns)),
        .offset_ns = 0.5 * (a->offset_ns + b->offset_ns),
        .bound_ns = fmax(a->bound_ns, b->bound_ns),
        .spread_ns = fmax(a->spread_ns, b->spread_ns),
    };
    if (state->has_pair && line.at_ns != state->pair.local_ns)
        line.slope =
            (line.offset_ns - state->pair.offset_ns) / (double)(line.at_ns - state->pair.local_ns);
    else if (b->local_ns != a->local_ns)
        line.slope = (b->offset_ns - a->offset_ns) / (double)(b->local_ns - a->local_ns);
    return line;
}

static int measure(const cs_method *method, const cs_transport *t, int roundtrips, local_rank *loc,
                   cs_sample *samples)
{
    int rounds = method->rounds(t->size);
    for (int sweep = 0; sweep < method->sweeps; sweep++) {
        for (int i = 0; i < rounds; i++) {
            int round = sweep % 2 ? rounds - 1 - i : i;
            for (int l = 0; l < t->n_local; l++) {
                int rank = t->first_local + l;
                bool serves;
                int peer = method->peer(round, rank, t->size, &serves);
                if (peer < 0)
                    continue;
                int err = t->ops->pingpong(t->ctx, rank, serves ? peer : rank, serves ? rank : peer,
                                           roundtrips, samples);
                if (err != MPI_SUCCESS)
                    return err;
                if (serves)
                    continue;
                if (loc[l].sweeps_done >= method->sweeps)
                    return MPI_ERR_INTERN; /* a schedule with two parents */
                loc[l].sweep[loc[l].sweeps_done++] = method->estimate(samples, roundtrips);
                loc[l].parent = peer;
            }
        }
    }
    return MPI_SUCCESS;
}

/* Down the tree in the order of the rounds: a parent's line to rank 0 is
 * known before its children's (rank 0's is the identity: no message). */
static int compose(const cs_method *method, const cs_transport *t, local_rank *loc)
{
    int rounds = method->rounds(t->size);
    for (int round = 0; round < rounds; round++) {
        for (int l = 0; l < t->n_local; l++) {
            int rank = t->first_local + l;
            bool serves;
            int peer = method->peer(round, rank, t->size, &serves);
            if (peer < 0 || !serves || rank == 0)
                continue;
            if (!loc[l].has_map)
                return MPI_ERR_INTERN; /* served before being measured */
            int err = t->ops->send_map(t->ctx, rank, peer, &loc[l].map);
            if (err != MPI_SUCCESS)
                return err;
        }
        for (int l = 0; l < t->n_local; l++) {
            int rank = t->first_local + l;
            bool serves;
            int peer = method->peer(round, rank, t->size, &serves);
            if (peer < 0 || serves || loc[l].has_map)
                continue;
            clocksync_map parent = {0};
            if (peer != 0) {
                int err = t->ops->recv_map(t->ctx, rank, peer, &parent);
                if (err != MPI_SUCCESS)
                    return err;
            }
            loc[l].map = clocksync_map_compose(&parent, &loc[l].pair);
            loc[l].has_map = true;
        }
    }
    return MPI_SUCCESS;
}

int cs_calibrate(const cs_method *method, const cs_transport *t, int roundtrips,
                 cs_rank_state *states, bool commit, clocksync_point *points)
{
    local_rank *loc = calloc((size_t)t->n_local, sizeof *loc);
    cs_sample *samples = malloc((size_t)roundtrips * sizeof *samples);
    int err = loc && samples ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS)
        err = measure(method, t, roundtrips, loc, samples);
    for (int l = 0; err == MPI_SUCCESS && l < t->n_local; l++) {
        bool is_root = t->first_local + l == 0;
        if (!is_root && loc[l].sweeps_done != method->sweeps)
            err = MPI_ERR_INTERN; /* a rank the schedule never measured */
        else if (!is_root)
            loc[l].pair = pair_line(&loc[l], method->sweeps, &states[l]);
    }
    if (err == MPI_SUCCESS)
        err = compose(method, t, loc);
    for (int l = 0; err == MPI_SUCCESS && l < t->n_local; l++) {
        int rank = t->first_local + l;
        if (rank == 0) {
            points[l] = (clocksync_point){.local_ns = t->ops->now_ns(t->ctx, rank)};
            continue;
        }
        double latency_ns = loc[l].sweep[0].latency_ns;
        for (int s = 1; s < method->sweeps; s++)
            latency_ns = fmin(latency_ns, loc[l].sweep[s].latency_ns);
        points[l] = (clocksync_point){
            .local_ns = loc[l].map.at_ns,
            .offset_ns = loc[l].map.offset_ns,
            .latency_ns = latency_ns,
            .bound_ns = loc[l].map.bound_ns,
            .spread_ns = loc[l].map.spread_ns,
        };
        if (commit)
            states[l] = (cs_rank_state){
                .has_pair = true,
                .pair = {.local_ns = loc[l].pair.at_ns, .offset_ns = loc[l].pair.offset_ns},
            };
    }
    free(samples);
    free(loc);
    return err;
}
