/* The collectives table (see collectives.h). Each row is one operation; the
 * start functions only map the prepared buffers onto the MPI call. The
 * buffers a row asks for are buffers.c's. */
#include "bench_nbc/collectives/collectives.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the calls ----
 * Each operation's arguments are written once, as a macro of the counts
 * (N: c->n for the int calls, c->n_c for the large-count ones), and
 * expanded into its nonblocking call and, with MPI-4, its large-count,
 * persistent and large-count persistent calls. */

#if MPI_VERSION >= 4
#define LARGE_AND_PERSISTENT(op, Nonblocking, Persistent, ARGS)                                    \
    static int start_c_##op(coll_instance *c, MPI_Request *r)                                      \
    {                                                                                              \
        return MPI_##Nonblocking##_c(ARGS(c->n_c), c->comm, r);                                    \
    }                                                                                              \
    static int init_##op(coll_instance *c)                                                         \
    {                                                                                              \
        return MPI_##Persistent##_init(ARGS(c->n), c->comm, MPI_INFO_NULL,                         \
                                       &c->persistent_request);                                    \
    }                                                                                              \
    static int init_c_##op(coll_instance *c)                                                       \
    {                                                                                              \
        return MPI_##Persistent##_init_c(ARGS(c->n_c), c->comm, MPI_INFO_NULL,                     \
                                         &c->persistent_request);                                  \
    }
#define START_C(op) start_c_##op
#else
#define LARGE_AND_PERSISTENT(op, Nonblocking, Persistent, ARGS)
#define START_C(op) NULL
#endif

#define CALLS(op, Nonblocking, Persistent, ARGS)                                                   \
    static int start_##op(coll_instance *c, MPI_Request *r)                                        \
    {                                                                                              \
        return MPI_##Nonblocking(ARGS(c->n), c->comm, r);                                          \
    }                                                                                              \
    LARGE_AND_PERSISTENT(op, Nonblocking, Persistent, ARGS)

/* clang-format off */
#define BCAST_ARGS(N)      c->send, N.count, c->datatype, c->root
#define REDUCE_ARGS(N)     c->send_arg, c->recv_arg, N.count, c->datatype, c->op, c->root
#define ALLREDUCE_ARGS(N)  c->send_arg, c->recv_arg, N.count, c->datatype, c->op
#define ALLGATHER_ARGS(N)  c->send_arg, N.count, c->datatype, c->recv_arg, N.count, c->datatype
#define ALLGATHERV_ARGS(N) c->send_arg, N.count, c->datatype, c->recv_arg, N.counts, N.displs, \
                           c->datatype
#define ALLTOALLV_ARGS(N)  c->send_arg, N.counts, N.displs, c->datatype, c->recv_arg, N.counts, \
                           N.displs, c->datatype
#define ALLTOALLW_ARGS(N)  c->send_arg, N.counts, N.byte_displs, c->datatypes, c->recv_arg, \
                           N.counts, N.byte_displs, c->datatypes
#define GATHER_ARGS(N)     ALLGATHER_ARGS(N), c->root
#define GATHERV_ARGS(N)    ALLGATHERV_ARGS(N), c->root
#define SCATTERV_ARGS(N)   c->send_arg, N.counts, N.displs, c->datatype, c->recv_arg, N.count, \
                           c->datatype, c->root
#define REDUCE_SCATTER_ARGS(N) c->send_arg, c->recv_arg, N.counts, c->datatype, c->op
/* Its byte displacements are MPI_Aint in both forms. */
#define NEIGHBOR_ALLTOALLW_ARGS(N) c->send, N.counts, c->n_c.byte_displs, c->datatypes, c->recv, \
                                   N.counts, c->n_c.byte_displs, c->datatypes

CALLS(bcast, Ibcast, Bcast, BCAST_ARGS)
CALLS(reduce, Ireduce, Reduce, REDUCE_ARGS)
CALLS(allreduce, Iallreduce, Allreduce, ALLREDUCE_ARGS)
CALLS(allgather, Iallgather, Allgather, ALLGATHER_ARGS)
CALLS(allgatherv, Iallgatherv, Allgatherv, ALLGATHERV_ARGS)
CALLS(alltoall, Ialltoall, Alltoall, ALLGATHER_ARGS)
CALLS(alltoallv, Ialltoallv, Alltoallv, ALLTOALLV_ARGS)
CALLS(alltoallw, Ialltoallw, Alltoallw, ALLTOALLW_ARGS)
CALLS(gather, Igather, Gather, GATHER_ARGS)
CALLS(gatherv, Igatherv, Gatherv, GATHERV_ARGS)
CALLS(scatter, Iscatter, Scatter, GATHER_ARGS)
CALLS(scatterv, Iscatterv, Scatterv, SCATTERV_ARGS)
CALLS(reduce_scatter_block, Ireduce_scatter_block, Reduce_scatter_block, ALLREDUCE_ARGS)
CALLS(reduce_scatter, Ireduce_scatter, Reduce_scatter, REDUCE_SCATTER_ARGS)
CALLS(scan, Iscan, Scan, ALLREDUCE_ARGS)
CALLS(exscan, Iexscan, Exscan, ALLREDUCE_ARGS)
/* Neighbourhood collectives: MPI_IN_PLACE is not allowed, c->comm is the grid. */
CALLS(neighbor_allgather, Ineighbor_allgather, Neighbor_allgather, ALLGATHER_ARGS)
CALLS(neighbor_allgatherv, Ineighbor_allgatherv, Neighbor_allgatherv, ALLGATHERV_ARGS)
CALLS(neighbor_alltoall, Ineighbor_alltoall, Neighbor_alltoall, ALLGATHER_ARGS)
CALLS(neighbor_alltoallv, Ineighbor_alltoallv, Neighbor_alltoallv, ALLTOALLV_ARGS)
CALLS(neighbor_alltoallw, Ineighbor_alltoallw, Neighbor_alltoallw, NEIGHBOR_ALLTOALLW_ARGS)
/* clang-format on */

static int start_ibarrier(coll_instance *c, MPI_Request *r)
{
    return MPI_Ibarrier(c->comm, r);
}

#if MPI_VERSION >= 4
/* MPI-4 persistent collectives: the request is built once per size. */
static int start_persistent(coll_instance *c, MPI_Request *r)
{
    int err = MPI_Start(&c->persistent_request);
    *r = c->persistent_request;
    return err;
}
static int init_barrier(coll_instance *c)
{
    return MPI_Barrier_init(c->comm, MPI_INFO_NULL, &c->persistent_request);
}
#endif

/* ---- the table ---- */

/* What S means, shared by an operation's rows (the persistent ones add
 * PERSISTENT_NOTE). */
#define M_BCAST    "bytes broadcast from the root (run.root) to every rank"
#define M_REDUCE   "bytes of numbers per rank reduced (MPI_SUM) to the root (run.root)"
#define M_REDUCED  "bytes of numbers reduced (MPI_SUM) per rank"
#define M_PER_RANK "bytes each rank contributes (receive buffer: ranks x S)"
#define M_PER_PEER "bytes each rank sends to each rank (send and receive: ranks x S)"
#define M_W        " (byte displacements, one datatype per rank)"
#define M_GATHER   "bytes each rank sends to the root (the root receives ranks x S)"
#define M_SCATTER  "bytes the root sends to each rank (the root sends ranks x S)"
#define M_RS_BLOCK "bytes of numbers each rank receives (sends ranks x S, MPI_SUM)"
#define M_RS       "bytes of numbers each rank receives, as recvcounts (sends ranks x S, MPI_SUM)"
#define M_NBR_SEND                                                                                 \
    "bytes each rank sends to its 4 neighbours on the periodic 2-D grid of "                       \
    "MPI_Dims_create(ranks, 2) "                                                                   \
    "(receives 4 x S)"
#define M_NBR_PEER                                                                                 \
    "bytes each rank sends to each of its 4 neighbours on the periodic 2-D "                       \
    "grid of MPI_Dims_create(ranks, 2) "                                                           \
    "(send and receive: 4 x S)"
#define M_BARRIER       "none: a barrier moves no data, its time cannot be calibrated"
#define PERSISTENT_NOTE " (persistent, MPI-4)"

/* Rows: a nonblocking operation (NBC), a persistent one (PERSISTENT,
 * MPI-4), a known-answer stand-in (SYNTHETIC). Block counts: 0, 1, COLL_P
 * or COLL_NEIGHBORS; the last arguments set the other fields. */
#define NBC(name_, op_, meaning_, send_, recv_, ...)                                               \
    {                                                                                              \
        .name = name_, .size_meaning = meaning_, .operation = #op_, .send_blocks = send_,          \
        .recv_blocks = recv_, .sizable = true, .start = start_##op_, .start_c = START_C(op_),      \
        __VA_ARGS__                                                                                \
    }
#define PERSISTENT(name_, op_, meaning_, send_, recv_, ...)                                        \
    {                                                                                              \
        .name = name_, .size_meaning = meaning_ PERSISTENT_NOTE, .operation = #op_,                \
        .send_blocks = send_, .recv_blocks = recv_, .persistent = true, .sizable = true,           \
        .start = start_persistent, .start_c = start_persistent, .init = init_##op_,                \
        .init_c = init_c_##op_, __VA_ARGS__                                                        \
    }
#define SYNTHETIC(name_, meaning_, start_, wait_, ...)                                             \
    {                                                                                              \
        .name = name_, .size_meaning = meaning_, .sizable = true, .synthetic = true,               \
        .start = start_, .wait = wait_, __VA_ARGS__                                                \
    }
#define ROOTED    .has_root = true
#define REDUCES   .reduces = true
#define IN_PLACE  .in_place = COLL_IN_PLACE_SEND
#define NEIGHBORS .neighborhood = true
#define W         .byte_displacements = true
#define P         COLL_P
#define NB        COLL_NEIGHBORS

/* clang-format off */
static const nbc_collective table[] = {
    NBC("ibcast", bcast, M_BCAST, 1, 0, ROOTED),
    NBC("ireduce", reduce, M_REDUCE, 1, 1, ROOTED, REDUCES, IN_PLACE),
    NBC("iallreduce", allreduce, M_REDUCED, 1, 1, REDUCES, IN_PLACE),
    NBC("iallgather", allgather, M_PER_RANK, 1, P, IN_PLACE),
    NBC("ialltoall", alltoall, M_PER_PEER, P, P, IN_PLACE),
    NBC("igather", gather, M_GATHER, 1, P, ROOTED, IN_PLACE),
    NBC("iscatter", scatter, M_SCATTER, P, 1, ROOTED, .in_place = COLL_IN_PLACE_RECV),
    NBC("ireduce_scatter_block", reduce_scatter_block, M_RS_BLOCK, P, 1, REDUCES, IN_PLACE),
    NBC("iscan", scan, M_REDUCED, 1, 1, REDUCES, IN_PLACE),
    NBC("iexscan", exscan, M_REDUCED, 1, 1, REDUCES, IN_PLACE),
    {.name = "ibarrier", .size_meaning = M_BARRIER, .operation = "barrier", .start = start_ibarrier},
    NBC("iallgatherv", allgatherv, M_PER_RANK, 1, P, IN_PLACE),
    NBC("ialltoallv", alltoallv, M_PER_PEER, P, P, IN_PLACE),
    NBC("igatherv", gatherv, M_GATHER, 1, P, ROOTED, IN_PLACE),
    NBC("iscatterv", scatterv, M_SCATTER, P, 1, ROOTED, .in_place = COLL_IN_PLACE_RECV),
    NBC("ireduce_scatter", reduce_scatter, M_RS, P, 1, REDUCES, IN_PLACE),
    NBC("ialltoallw", alltoallw, M_PER_PEER M_W, P, P, IN_PLACE, W),
    NBC("ineighbor_allgather", neighbor_allgather, M_NBR_SEND, 1, NB, NEIGHBORS),
    NBC("ineighbor_allgatherv", neighbor_allgatherv, M_NBR_SEND, 1, NB, NEIGHBORS),
    NBC("ineighbor_alltoall", neighbor_alltoall, M_NBR_PEER, NB, NB, NEIGHBORS),
    NBC("ineighbor_alltoallv", neighbor_alltoallv, M_NBR_PEER, NB, NB, NEIGHBORS),
    NBC("ineighbor_alltoallw", neighbor_alltoallw, M_NBR_PEER M_W, NB, NB, NEIGHBORS, W),
#if MPI_VERSION >= 4
    PERSISTENT("bcast_init", bcast, M_BCAST, 1, 0, ROOTED),
    PERSISTENT("reduce_init", reduce, M_REDUCE, 1, 1, ROOTED, REDUCES, IN_PLACE),
    PERSISTENT("allreduce_init", allreduce, M_REDUCED, 1, 1, REDUCES, IN_PLACE),
    PERSISTENT("allgather_init", allgather, M_PER_RANK, 1, P, IN_PLACE),
    PERSISTENT("alltoall_init", alltoall, M_PER_PEER, P, P, IN_PLACE),
    {.name = "barrier_init", .size_meaning = "none (persistent barrier, MPI-4)", .operation = "barrier",
     .persistent = true, .start = start_persistent, .init = init_barrier},
    PERSISTENT("gather_init", gather, M_GATHER, 1, P, ROOTED, IN_PLACE),
    PERSISTENT("scatter_init", scatter, M_SCATTER, P, 1, ROOTED, .in_place = COLL_IN_PLACE_RECV),
    PERSISTENT("reduce_scatter_block_init", reduce_scatter_block, M_RS_BLOCK, P, 1, REDUCES,
               IN_PLACE),
    PERSISTENT("scan_init", scan, M_REDUCED, 1, 1, REDUCES, IN_PLACE),
    PERSISTENT("exscan_init", exscan, M_REDUCED, 1, 1, REDUCES, IN_PLACE),
    PERSISTENT("allgatherv_init", allgatherv, M_PER_RANK, 1, P, IN_PLACE),
    PERSISTENT("alltoallv_init", alltoallv, M_PER_PEER, P, P, IN_PLACE),
    PERSISTENT("gatherv_init", gatherv, M_GATHER, 1, P, ROOTED, IN_PLACE),
    PERSISTENT("scatterv_init", scatterv, M_SCATTER, P, 1, ROOTED,
               .in_place = COLL_IN_PLACE_RECV),
    PERSISTENT("reduce_scatter_init", reduce_scatter, M_RS, P, 1, REDUCES, IN_PLACE),
    PERSISTENT("alltoallw_init", alltoallw, M_PER_PEER M_W, P, P, IN_PLACE, W),
    PERSISTENT("neighbor_allgather_init", neighbor_allgather, M_NBR_SEND, 1, NB, NEIGHBORS),
    PERSISTENT("neighbor_allgatherv_init", neighbor_allgatherv, M_NBR_SEND, 1, NB, NEIGHBORS),
    PERSISTENT("neighbor_alltoall_init", neighbor_alltoall, M_NBR_PEER, NB, NB, NEIGHBORS),
    PERSISTENT("neighbor_alltoallv_init", neighbor_alltoallv, M_NBR_PEER, NB, NB, NEIGHBORS),
    PERSISTENT("neighbor_alltoallw_init", neighbor_alltoallw, M_NBR_PEER M_W, NB, NB, NEIGHBORS,
               W),
#endif
    SYNTHETIC("synthetic_perfect",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): runs without the CPU, "
              "the wait sleeps until it ends (perfect overlap)",
              synthetic_start_perfect, synthetic_wait_perfect),
    SYNTHETIC("synthetic_serial",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): the wait does it all "
              "on the CPU (no progress)",
              synthetic_start_serial, synthetic_wait_serial),
    SYNTHETIC("synthetic_steal",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): a thread spins on the "
              "computing core from the start (computation slowdown)",
              synthetic_start_steal, synthetic_wait_steal, .helper_thread = true),
    SYNTHETIC("synthetic_intermittent",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): in a share "
              "run.background_share of the starts it runs without the CPU (as synthetic_perfect), "
              "in the others the wait does it all on the CPU (as synthetic_serial)",
              synthetic_start_intermittent, synthetic_wait_intermittent),
};
/* clang-format on */
enum { table_size = sizeof table / sizeof table[0] };

const nbc_collective *nbc_collectives(size_t *count)
{
    *count = table_size;
    return table;
}

const nbc_collective *nbc_operation_find(const char *name)
{
    for (size_t i = 0; i < table_size; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* The operations, then the scenarios (scenario.c). */
const nbc_collective *nbc_collective_find(const char *name)
{
    const nbc_collective *op = nbc_operation_find(name);
    if (op)
        return op;
    size_t n;
    const nbc_collective *scenarios = nbc_scenarios(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(scenarios[i].name, name) == 0)
            return &scenarios[i];
    return NULL;
}

const char *const *nbc_collective_names(size_t *count)
{
    static const char *names[table_size + NBC_MAX_SCENARIOS];
    size_t n;
    const nbc_collective *scenarios = nbc_scenarios(&n);
    for (size_t i = 0; i < table_size; i++)
        names[i] = table[i].name;
    for (size_t i = 0; i < n && i < NBC_MAX_SCENARIOS; i++)
        names[table_size + i] = scenarios[i].name;
    *count = table_size + (n < NBC_MAX_SCENARIOS ? n : NBC_MAX_SCENARIOS);
    return names;
}
