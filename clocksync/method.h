/* Internal to clocksync/: the calibration driver, the methods it runs and the
 * transports it runs them over. Not part of the module's API (clocksync.h).
 *
 * A method is a schedule of rounds: in each round some ranks measure one
 * peer (the server) with round trips. A transport carries the round trips
 * and the lines sent down the tree; MPI (transport_mpi.c) plays one rank per
 * process, the simulation (transport_sim.c) every rank in one process. The
 * driver (calibration.c) loops over the rounds for each rank the transport
 * plays, so the same code runs on both. */
#ifndef CLOCKSYNC_METHOD_H
#define CLOCKSYNC_METHOD_H

#include "clocksync/clocksync.h"

/* One round trip seen by the client, on its own clock. */
typedef struct cs_sample {
    double rtt_ns, offset_ns, midpoint_ns;
} cs_sample;

/* The client sent at t_sent, the server read its clock at t_ref, the answer
 * came back at t_back; the server is assumed to read halfway through. */
cs_sample cs_sample_make(int64_t t_sent, int64_t t_ref, int64_t t_back);

typedef struct cs_transport_ops {
    const char *name;
    /* Called by both ends (self is client or server); n round trips; the
     * client's samples are written when self is the client. */
    int (*pingpong)(void *ctx, int self, int client, int server, int n, cs_sample *samples);
    int (*send_map)(void *ctx, int self, int peer, const clocksync_map *map);
    int (*recv_map)(void *ctx, int self, int peer, clocksync_map *map);
    int64_t (*now_ns)(void *ctx, int self);
} cs_transport_ops;

/* The ranks first_local .. first_local + n_local - 1 of size are played here. */
typedef struct cs_transport {
    const cs_transport_ops *ops;
    void *ctx;
    int size, first_local, n_local;
} cs_transport;

/* What a rank keeps from one calibration to the next. */
typedef struct cs_rank_state {
    bool has_pair;
    clocksync_point pair; /* the last offset to its parent */
} cs_rank_state;

typedef clocksync_point (*cs_estimator)(cs_sample *samples, int n);
/* The median offset of the fastest round trips at their mean midpoint. */
clocksync_point cs_estimate_median_at_mean(cs_sample *samples, int n);
/* The mean offset of the fastest round trips at their mean midpoint: the
 * offset of a drifting clock at that instant (a median would belong to
 * another instant); the fastest have bounded errors, so no outlier. */
clocksync_point cs_estimate_mean(cs_sample *samples, int n);

typedef struct cs_method {
    const char *name, *description;
    /* 1, or 2: the rounds run forwards, then backwards. */
    int sweeps;
    int (*rounds)(int size);
    /* The peer of rank in round, -1 when idle; *serves: rank answers the
     * peer's round trips (its parent in the composition). A rank is a client
     * once per sweep, and its server is rank 0 or a client of an earlier
     * round. */
    int (*peer)(int round, int rank, int size, bool *serves);
    cs_estimator estimate;
} cs_method;

extern const cs_method cs_method_linear, cs_method_hierarchical;
/* NULL when out of range. */
const cs_method *cs_method_get(int method);
/* The rank's parent (its server), -1 for rank 0. */
int cs_method_parent(const cs_method *method, int rank, int size);

/* One calibration: points[i] is the offset to rank 0 of the transport's
 * i-th local rank. commit: update states (a residual check does not).
 * Returns MPI_SUCCESS or the transport's error. */
int cs_calibrate(const cs_method *method, const cs_transport *transport, int roundtrips,
                 cs_rank_state *states, bool commit, clocksync_point *points);

int cs_transport_mpi_make(cs_transport *transport, MPI_Comm comm, const clocksync_clock *clock);
void cs_transport_mpi_free(cs_transport *transport);

#endif
