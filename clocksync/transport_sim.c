/* The calibration's transport in simulation: every rank in one process, no
 * MPI. Each virtual rank has a true clock (offset and drift against rank
 * 0's, which is global time) and a cursor: the global instant up to which
 * it has run. A round trip starts when both ends are free and takes two
 * one-way latencies of min + an exponential tail. Messages are counted, and
 * so is the longest chain of messages each rank's cursor depends on. */
#include "clocksync/method.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Global time at the start: a plausible uptime, where rounding to ns and
 * double precision are what they are on a real machine. */
static const double origin_ns = 360000e9;

typedef struct sim_rank {
    double offset_ns, rate; /* local = origin + offset + rate (global - origin) */
    double cursor_ns;       /* global time up to which the rank has run */
    int64_t chain;          /* messages on the longest chain that led here */
    clocksync_map inbox;    /* a line sent down by the parent */
    double inbox_arrival_ns;
    int64_t inbox_chain;
} sim_rank;

typedef struct sim {
    sim_rank *ranks;
    double latency_min_ns, latency_tail_ns;
    uint64_t rng;
    int64_t messages;
} sim;

/* splitmix64: a small, good generator with a state a seed fills. */
static uint64_t next_random(sim *s)
{
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double uniform(sim *s)
{
    return ((double)(next_random(s) >> 11) + 1.0) * 0x1.0p-53;
}

static double latency_ns(sim *s)
{
    return s->latency_min_ns - s->latency_tail_ns * log(uniform(s));
}

static double true_local(const sim_rank *r, double global_ns)
{
    return origin_ns + r->offset_ns + r->rate * (global_ns - origin_ns);
}

static double true_global(const sim_rank *r, double local_ns)
{
    return origin_ns + (local_ns - origin_ns - r->offset_ns) / r->rate;
}

/* What the rank's clock reads at a global instant: whole ns. */
static int64_t reading(const sim_rank *r, double global_ns)
{
    return (int64_t)llround(true_local(r, global_ns));
}

static int sim_pingpong(void *ctx, int self, int client, int server, int n, cs_sample *samples)
{
    sim *s = ctx;
    if (self != client)
        return MPI_SUCCESS; /* the client's call plays both ends */
    sim_rank *c = &s->ranks[client], *v = &s->ranks[server];
    double now = fmax(c->cursor_ns, v->cursor_ns);
    for (int i = 0; i < n; i++) {
        int64_t t_sent = reading(c, now);
        now += latency_ns(s);
        int64_t t_ref = reading(v, now);
        now += latency_ns(s);
        samples[i] = cs_sample_make(t_sent, t_ref, reading(c, now));
    }
    c->cursor_ns = v->cursor_ns = now;
    c->chain = v->chain = (c->chain > v->chain ? c->chain : v->chain) + 2 * (int64_t)n;
    s->messages += 2 * (int64_t)n;
    return MPI_SUCCESS;
}

static int sim_send_map(void *ctx, int self, int peer, const clocksync_map *map)
{
    sim *s = ctx;
    sim_rank *to = &s->ranks[peer];
    to->inbox = *map;
    to->inbox_arrival_ns = s->ranks[self].cursor_ns + latency_ns(s);
    to->inbox_chain = s->ranks[self].chain + 1;
    s->messages++;
    return MPI_SUCCESS;
}

static int sim_recv_map(void *ctx, int self, int peer, clocksync_map *map)
{
    (void)peer;
    sim *s = ctx;
    sim_rank *r = &s->ranks[self];
    r->cursor_ns = fmax(r->cursor_ns, r->inbox_arrival_ns);
    r->chain = r->chain > r->inbox_chain ? r->chain : r->inbox_chain;
    *map = r->inbox;
    return MPI_SUCCESS;
}

static int64_t sim_now_ns(void *ctx, int self)
{
    sim *s = ctx;
    return reading(&s->ranks[self], s->ranks[self].cursor_ns);
}

static const cs_transport_ops sim_ops = {
    .name = "sim",
    .pingpong = sim_pingpong,
    .send_map = sim_send_map,
    .recv_map = sim_recv_map,
    .now_ns = sim_now_ns,
};

void clocksync_sim_options_default(clocksync_sim_options *options)
{
    *options = (clocksync_sim_options){
        .ranks = 16,
        .method = 0,
        .roundtrips = 1000,
        .latency_min_ns = 1500,
        .latency_tail_ns = 200,
        .max_offset_ns = 1e6,
        .max_drift_ppm = 20,
        .gap_s = 30,
        .horizon_s = 60,
        .seed = 1,
    };
}

void clocksync_sim_result_free(clocksync_sim_result *result)
{
    free(result->error_sync_ns);
    free(result->error_horizon_ns);
    free(result->bound_horizon_ns);
    free(result->likely_horizon_ns);
    free(result->hops);
    *result = (clocksync_sim_result){0};
}

/* Every rank starts its calibration at start_ns; returns the one's
 * duration and fills messages and the critical chain. */
static int run_calibration(const cs_method *method, cs_transport *t, sim *s, int roundtrips,
                           cs_rank_state *states, clocksync_point *points, double start_ns,
                           clocksync_sim_result *result)
{
    for (int r = 0; r < t->size; r++) {
        s->ranks[r].cursor_ns = start_ns;
        s->ranks[r].chain = 0;
    }
    s->messages = 0;
    int err = cs_calibrate(method, t, roundtrips, states, true, points);
    double end_ns = start_ns;
    int64_t chain = 0;
    for (int r = 0; r < t->size; r++) {
        end_ns = fmax(end_ns, s->ranks[r].cursor_ns);
        chain = s->ranks[r].chain > chain ? s->ranks[r].chain : chain;
    }
    result->messages = s->messages;
    result->critical_messages = chain;
    result->sync_s = (end_ns - start_ns) * 1e-9;
    return err;
}

/* Model minus truth for rank r at the global instant g. */
static double model_error_ns(const clocksync_model *m, const sim_rank *r, double g)
{
    int64_t local = reading(r, g);
    return (double)clocksync_model_to_global(m, local) - true_global(r, (double)local);
}

int clocksync_simulate(const clocksync_sim_options *o, clocksync_sim_result *result)
{
    *result = (clocksync_sim_result){0};
    const cs_method *method = cs_method_get(o->method);
    if (!method || o->ranks < 1 || o->roundtrips < 1 || o->latency_min_ns < 0 ||
        o->latency_tail_ns < 0 || !(fabs(o->max_drift_ppm) < 1e5) || o->gap_s < 0)
        return -1;
    int p = o->ranks;
    sim s = {
        .latency_min_ns = o->latency_min_ns, .latency_tail_ns = o->latency_tail_ns, .rng = o->seed};
    s.ranks = calloc((size_t)p, sizeof *s.ranks);
    cs_rank_state *states = calloc((size_t)p, sizeof *states);
    clocksync_point *points = malloc((size_t)p * sizeof *points);
    clocksync_model *models = calloc((size_t)p, sizeof *models);
    result->error_sync_ns = calloc((size_t)p, sizeof *result->error_sync_ns);
    result->error_horizon_ns = calloc((size_t)p, sizeof *result->error_horizon_ns);
    result->bound_horizon_ns = calloc((size_t)p, sizeof *result->bound_horizon_ns);
    result->likely_horizon_ns = calloc((size_t)p, sizeof *result->likely_horizon_ns);
    result->hops = calloc((size_t)p, sizeof *result->hops);
    int err = s.ranks && states && points && models && result->error_sync_ns &&
                      result->error_horizon_ns && result->bound_horizon_ns &&
                      result->likely_horizon_ns && result->hops
                  ? 0
                  : -1;
    for (int r = 0; err == 0 && r < p; r++) {
        double offset = o->offset_ns ? o->offset_ns[r] : o->max_offset_ns * (2 * uniform(&s) - 1);
        double drift = o->drift_ppm ? o->drift_ppm[r] : o->max_drift_ppm * (2 * uniform(&s) - 1);
        s.ranks[r] = (sim_rank){.offset_ns = r ? offset : 0, .rate = 1 + (r ? drift : 0) * 1e-6};
    }
    cs_transport t = {.ops = &sim_ops, .ctx = &s, .size = p, .first_local = 0, .n_local = p};
    double second_start_ns = origin_ns + o->gap_s * 1e9;
    for (int pass = 0; pass < 2 && err == 0; pass++) {
        double start_ns = pass ? second_start_ns : origin_ns;
        if (pass && start_ns < origin_ns + result->sync_s * 1e9)
            err = -1; /* the second calibration would begin before the first ended */
        else if (run_calibration(method, &t, &s, o->roundtrips, states, points, start_ns, result) !=
                 MPI_SUCCESS)
            err = -1;
        for (int r = 0; err == 0 && r < p; r++)
            if (clocksync_model_add_point(&models[r], points[r]) != 0)
                err = -1;
    }
    if (err == 0) {
        double sync_end_ns = second_start_ns + result->sync_s * 1e9;
        for (int r = 1; r < p; r++) {
            result->error_sync_ns[r] = model_error_ns(&models[r], &s.ranks[r], sync_end_ns);
            double horizon_ns = sync_end_ns + o->horizon_s * 1e9;
            result->error_horizon_ns[r] = model_error_ns(&models[r], &s.ranks[r], horizon_ns);
            const clocksync_model *m = &models[r];
            int64_t local = reading(&s.ranks[r], horizon_ns);
            result->bound_horizon_ns[r] = clocksync_model_error_bound_ns(m, local);
            result->likely_horizon_ns[r] =
                m->points[m->n_points - 1].spread_ns + clocksync_model_skew_error_ns(m, local);
            for (int q = r; q > 0; q = cs_method_parent(method, q, p))
                result->hops[r]++;
        }
    }
    for (int r = 0; models && r < p; r++)
        clocksync_model_free(&models[r]);
    free(models);
    free(points);
    free(states);
    free(s.ranks);
    if (err != 0)
        clocksync_sim_result_free(result);
    return err;
}
