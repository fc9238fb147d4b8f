/* The calibration's transport over MPI: this process plays its own rank. */
#include "clocksync/method.h"

#include <stdlib.h>

enum { TAG_PING = 7101, TAG_PONG = 7102, TAG_MAP = 7103 };

typedef struct mpi_transport {
    MPI_Comm comm;
    clocksync_clock clock;
} mpi_transport;

/* The client sends an empty ping, the server answers with its clock. */
static int mpi_pingpong(void *ctx, int self, int client, int server, int n, cs_sample *samples)
{
    mpi_transport *t = ctx;
    int err = MPI_SUCCESS;
    if (self == server) {
        for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
            err = MPI_Recv(NULL, 0, MPI_BYTE, client, TAG_PING, t->comm, MPI_STATUS_IGNORE);
            int64_t t_ref = clocksync_clock_now_ns(&t->clock);
            if (err == MPI_SUCCESS)
                err = MPI_Send(&t_ref, 1, MPI_INT64_T, client, TAG_PONG, t->comm);
        }
        return err;
    }
    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        int64_t t_ref, t_sent = clocksync_clock_now_ns(&t->clock);
        err = MPI_Send(NULL, 0, MPI_BYTE, server, TAG_PING, t->comm);
        if (err == MPI_SUCCESS)
            err = MPI_Recv(&t_ref, 1, MPI_INT64_T, server, TAG_PONG, t->comm, MPI_STATUS_IGNORE);
        samples[i] = cs_sample_make(t_sent, t_ref, clocksync_clock_now_ns(&t->clock));
    }
    return err;
}

/* As bytes: the ranks of a run share one architecture. */
static int mpi_send_map(void *ctx, int self, int peer, const clocksync_map *map)
{
    (void)self;
    mpi_transport *t = ctx;
    return MPI_Send(map, (int)sizeof *map, MPI_BYTE, peer, TAG_MAP, t->comm);
}

static int mpi_recv_map(void *ctx, int self, int peer, clocksync_map *map)
{
    (void)self;
    mpi_transport *t = ctx;
    return MPI_Recv(map, (int)sizeof *map, MPI_BYTE, peer, TAG_MAP, t->comm, MPI_STATUS_IGNORE);
}

static int64_t mpi_now_ns(void *ctx, int self)
{
    (void)self;
    mpi_transport *t = ctx;
    return clocksync_clock_now_ns(&t->clock);
}

static const cs_transport_ops mpi_ops = {
    .name = "mpi",
    .pingpong = mpi_pingpong,
    .send_map = mpi_send_map,
    .recv_map = mpi_recv_map,
    .now_ns = mpi_now_ns,
};

int cs_transport_mpi_make(cs_transport *transport, MPI_Comm comm, const clocksync_clock *clock)
{
    mpi_transport *t = malloc(sizeof *t);
    if (!t)
        return MPI_ERR_NO_MEM;
    *t = (mpi_transport){.comm = comm, .clock = *clock};
    int rank, size, err = MPI_Comm_rank(comm, &rank);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_size(comm, &size);
    if (err != MPI_SUCCESS) {
        free(t);
        return err;
    }
    *transport =
        (cs_transport){.ops = &mpi_ops, .ctx = t, .size = size, .first_local = rank, .n_local = 1};
    return MPI_SUCCESS;
}

void cs_transport_mpi_free(cs_transport *transport)
{
    free(transport->ctx);
    transport->ctx = NULL;
}
