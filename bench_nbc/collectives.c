/* The collectives table (see collectives.h). Each row is one operation; the
 * start functions only map the prepared buffers onto the MPI call. */
#include "bench_nbc/collectives.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT 0

static int start_ibarrier(coll_instance *c, MPI_Request *r)
{
    return MPI_Ibarrier(c->comm, r);
}
static int start_ibcast(coll_instance *c, MPI_Request *r)
{
    return MPI_Ibcast(c->send, c->count, c->datatype, ROOT, c->comm, r);
}
static int start_ireduce(coll_instance *c, MPI_Request *r)
{
    return MPI_Ireduce(c->send, c->recv, c->count, c->datatype, MPI_SUM, ROOT, c->comm, r);
}
static int start_iallreduce(coll_instance *c, MPI_Request *r)
{
    return MPI_Iallreduce(c->send, c->recv, c->count, c->datatype, MPI_SUM, c->comm, r);
}
static int start_iallgather(coll_instance *c, MPI_Request *r)
{
    return MPI_Iallgather(c->send, c->count, c->datatype, c->recv, c->count, c->datatype, c->comm,
                          r);
}
static int start_ialltoall(coll_instance *c, MPI_Request *r)
{
    return MPI_Ialltoall(c->send, c->count, c->datatype, c->recv, c->count, c->datatype, c->comm,
                         r);
}
static int start_igather(coll_instance *c, MPI_Request *r)
{
    return MPI_Igather(c->send, c->count, c->datatype, c->recv, c->count, c->datatype, ROOT,
                       c->comm, r);
}
static int start_iscatter(coll_instance *c, MPI_Request *r)
{
    return MPI_Iscatter(c->send, c->count, c->datatype, c->recv, c->count, c->datatype, ROOT,
                        c->comm, r);
}
static int start_ireduce_scatter_block(coll_instance *c, MPI_Request *r)
{
    return MPI_Ireduce_scatter_block(c->send, c->recv, c->count, c->datatype, MPI_SUM, c->comm, r);
}
static int start_iscan(coll_instance *c, MPI_Request *r)
{
    return MPI_Iscan(c->send, c->recv, c->count, c->datatype, MPI_SUM, c->comm, r);
}
static int start_iexscan(coll_instance *c, MPI_Request *r)
{
    return MPI_Iexscan(c->send, c->recv, c->count, c->datatype, MPI_SUM, c->comm, r);
}
static int start_iallgatherv(coll_instance *c, MPI_Request *r)
{
    return MPI_Iallgatherv(c->send, c->count, c->datatype, c->recv, c->counts, c->displs,
                           c->datatype, c->comm, r);
}
static int start_ialltoallv(coll_instance *c, MPI_Request *r)
{
    return MPI_Ialltoallv(c->send, c->counts, c->displs, c->datatype, c->recv, c->counts, c->displs,
                          c->datatype, c->comm, r);
}
static int start_igatherv(coll_instance *c, MPI_Request *r)
{
    return MPI_Igatherv(c->send, c->count, c->datatype, c->recv, c->counts, c->displs, c->datatype,
                        ROOT, c->comm, r);
}
static int start_iscatterv(coll_instance *c, MPI_Request *r)
{
    return MPI_Iscatterv(c->send, c->counts, c->displs, c->datatype, c->recv, c->count, c->datatype,
                         ROOT, c->comm, r);
}

#if MPI_VERSION >= 4
/* MPI-4 persistent collectives: the request is built once per size. */
static int start_persistent(coll_instance *c, MPI_Request *r)
{
    int err = MPI_Start(&c->persistent_request);
    *r = c->persistent_request;
    return err;
}
static int init_bcast(coll_instance *c)
{
    return MPI_Bcast_init(c->send, c->count, c->datatype, ROOT, c->comm, MPI_INFO_NULL,
                          &c->persistent_request);
}
static int init_reduce(coll_instance *c)
{
    return MPI_Reduce_init(c->send, c->recv, c->count, c->datatype, MPI_SUM, ROOT, c->comm,
                           MPI_INFO_NULL, &c->persistent_request);
}
static int init_allreduce(coll_instance *c)
{
    return MPI_Allreduce_init(c->send, c->recv, c->count, c->datatype, MPI_SUM, c->comm,
                              MPI_INFO_NULL, &c->persistent_request);
}
static int init_allgather(coll_instance *c)
{
    return MPI_Allgather_init(c->send, c->count, c->datatype, c->recv, c->count, c->datatype,
                              c->comm, MPI_INFO_NULL, &c->persistent_request);
}
static int init_alltoall(coll_instance *c)
{
    return MPI_Alltoall_init(c->send, c->count, c->datatype, c->recv, c->count, c->datatype,
                             c->comm, MPI_INFO_NULL, &c->persistent_request);
}
static int init_barrier(coll_instance *c)
{
    return MPI_Barrier_init(c->comm, MPI_INFO_NULL, &c->persistent_request);
}
#endif

static const char per_rank[] = "bytes each rank contributes (receive buffer: ranks x S)";
static const char per_peer[] = "bytes each rank sends to each rank (send and receive: ranks x S)";
static const char reduced[] = "bytes of doubles reduced (MPI_SUM) per rank";

/* Rows: a nonblocking operation (NBC), a persistent one (MPI-4), a
 * known-answer stand-in (SYNTHETIC). Block counts: 0, 1, or COLL_P. */
#define NBC(name_, meaning_, send_, recv_, reduces_, root_, start_)                                \
    {                                                                                              \
        .name = name_, .size_meaning = meaning_, .send_blocks = send_, .recv_blocks = recv_,       \
        .reduces = reduces_, .has_root = root_, .sizable = true, .start = start_                   \
    }
#define PERSISTENT(name_, meaning_, send_, recv_, reduces_, root_, init_)                          \
    {                                                                                              \
        .name = name_, .size_meaning = meaning_, .send_blocks = send_, .recv_blocks = recv_,       \
        .reduces = reduces_, .has_root = root_, .persistent = true, .sizable = true,               \
        .start = start_persistent, .init = init_                                                   \
    }
#define SYNTHETIC(name_, meaning_, start_, wait_)                                                  \
    {                                                                                              \
        .name = name_, .size_meaning = meaning_, .sizable = true, .synthetic = true,               \
        .start = start_, .wait = wait_                                                             \
    }

static const nbc_collective table[] = {
    NBC("ibcast", "bytes broadcast from rank 0 to every rank", 1, 0, false, true, start_ibcast),
    NBC("ireduce", "bytes of doubles reduced (MPI_SUM) to rank 0", 1, 1, true, true, start_ireduce),
    NBC("iallreduce", reduced, 1, 1, true, false, start_iallreduce),
    NBC("iallgather", per_rank, 1, COLL_P, false, false, start_iallgather),
    NBC("ialltoall", per_peer, COLL_P, COLL_P, false, false, start_ialltoall),
    NBC("igather", "bytes each rank sends to rank 0 (rank 0 receives ranks x S)", 1, COLL_P, false,
        true, start_igather),
    NBC("iscatter", "bytes rank 0 sends to each rank (rank 0 sends ranks x S)", COLL_P, 1, false,
        true, start_iscatter),
    NBC("ireduce_scatter_block", "bytes of doubles each rank receives (sends ranks x S, MPI_SUM)",
        COLL_P, 1, true, false, start_ireduce_scatter_block),
    NBC("iscan", reduced, 1, 1, true, false, start_iscan),
    NBC("iexscan", reduced, 1, 1, true, false, start_iexscan),
    {.name = "ibarrier",
     .size_meaning = "none: a barrier moves no data, its time cannot be calibrated",
     .start = start_ibarrier},
    NBC("iallgatherv", per_rank, 1, COLL_P, false, false, start_iallgatherv),
    NBC("ialltoallv", per_peer, COLL_P, COLL_P, false, false, start_ialltoallv),
    NBC("igatherv", "bytes each rank sends to rank 0 (rank 0 receives ranks x S)", 1, COLL_P, false,
        true, start_igatherv),
    NBC("iscatterv", "bytes rank 0 sends to each rank (rank 0 sends ranks x S)", COLL_P, 1, false,
        true, start_iscatterv),
#if MPI_VERSION >= 4
    PERSISTENT("bcast_init", "bytes broadcast from rank 0 (persistent, MPI-4)", 1, 0, false, true,
               init_bcast),
    PERSISTENT("reduce_init", "bytes of doubles reduced to rank 0 (persistent, MPI-4)", 1, 1, true,
               true, init_reduce),
    PERSISTENT("allreduce_init", "bytes of doubles reduced (persistent, MPI-4)", 1, 1, true, false,
               init_allreduce),
    PERSISTENT("allgather_init", "bytes each rank contributes (persistent, MPI-4)", 1, COLL_P,
               false, false, init_allgather),
    PERSISTENT("alltoall_init", "bytes each rank sends to each rank (persistent, MPI-4)", COLL_P,
               COLL_P, false, false, init_alltoall),
    {.name = "barrier_init",
     .size_meaning = "none (persistent barrier, MPI-4)",
     .persistent = true,
     .start = start_persistent,
     .init = init_barrier},
#endif
    SYNTHETIC("synthetic_perfect",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): runs without the CPU, "
              "the wait sleeps until it "
              "ends (perfect overlap)",
              synthetic_start_perfect, synthetic_wait_perfect),
    SYNTHETIC("synthetic_serial",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): the wait does it all "
              "on the CPU (no progress)",
              synthetic_start_serial, synthetic_wait_serial),
    SYNTHETIC("synthetic_steal",
              "SYNTHETIC, size = duration in ns (rank k: (1 + k/10) x size): a thread spins on the "
              "computing core from the "
              "start (computation slowdown)",
              synthetic_start_steal, synthetic_wait_steal),
};
enum { table_size = sizeof table / sizeof table[0] };

const nbc_collective *nbc_collectives(size_t *count)
{
    *count = table_size;
    return table;
}

const nbc_collective *nbc_collective_find(const char *name)
{
    for (size_t i = 0; i < table_size; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

const char *const *nbc_collective_names(size_t *count)
{
    static const char *names[table_size];
    for (size_t i = 0; i < table_size; i++)
        names[i] = table[i].name;
    *count = table_size;
    return names;
}

static size_t element_size(const nbc_collective *coll)
{
    return coll->reduces ? sizeof(double) : 1;
}

static size_t blocks(int block_count, int ranks)
{
    return block_count == COLL_P ? (size_t)ranks : (size_t)block_count;
}

size_t nbc_collective_max_bytes(const nbc_collective *coll, int ranks)
{
    if (!coll->sizable)
        return 0;
    /* Every count and displacement must fit an int. */
    size_t most_blocks = blocks(coll->send_blocks, ranks) > blocks(coll->recv_blocks, ranks)
                             ? blocks(coll->send_blocks, ranks)
                             : blocks(coll->recv_blocks, ranks);
    return (size_t)INT_MAX / (most_blocks ? most_blocks : 1) * element_size(coll);
}

size_t nbc_collective_buffer_bytes(const nbc_collective *coll, size_t bytes, int ranks)
{
    return (blocks(coll->send_blocks, ranks) + blocks(coll->recv_blocks, ranks)) * bytes;
}

/* Allocates and touches a buffer (first touch by this thread, outside any
 * timed region); reductions get 1.0 everywhere, a value that stays finite. */
static void *touched_buffer(size_t bytes, bool doubles)
{
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return NULL;
    if (doubles)
        for (size_t i = 0; i < bytes / sizeof(double); i++)
            ((double *)buf)[i] = 1.0;
    else
        memset(buf, 0x5a, bytes);
    return buf;
}

int coll_instance_prepare(coll_instance *inst, const nbc_collective *coll, MPI_Comm comm,
                          size_t bytes, char *err, size_t errlen)
{
    *inst = (coll_instance){.coll = coll, .comm = comm, .persistent_request = MPI_REQUEST_NULL};
    if (MPI_Comm_rank(comm, &inst->rank) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &inst->ranks) != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: cannot query the communicator", coll->name);
        return -1;
    }
    size_t elem = element_size(coll);
    if (!coll->sizable)
        bytes = 0;
    if (bytes > nbc_collective_max_bytes(coll, inst->ranks) && coll->sizable) {
        snprintf(err, errlen, "%s: %zu bytes on %d ranks overflow MPI's int counts", coll->name,
                 bytes, inst->ranks);
        return -1;
    }
    inst->count = (int)(bytes / elem);
    if (coll->sizable && inst->count == 0)
        inst->count = 1;
    inst->bytes = (size_t)inst->count * elem;
    inst->datatype = coll->reduces ? MPI_DOUBLE : MPI_BYTE;
    inst->send_bytes = blocks(coll->send_blocks, inst->ranks) * inst->bytes;
    inst->recv_bytes = blocks(coll->recv_blocks, inst->ranks) * inst->bytes;
    inst->send = touched_buffer(inst->send_bytes, coll->reduces);
    inst->recv = touched_buffer(inst->recv_bytes, coll->reduces);
    inst->counts = malloc((size_t)inst->ranks * sizeof(int));
    inst->displs = malloc((size_t)inst->ranks * sizeof(int));
    if (!inst->send || !inst->recv || !inst->counts || !inst->displs) {
        snprintf(err, errlen, "%s: cannot allocate %zu + %zu bytes of buffers", coll->name,
                 inst->send_bytes, inst->recv_bytes);
        coll_instance_release(inst);
        return -1;
    }
    for (int r = 0; r < inst->ranks; r++) {
        inst->counts[r] = inst->count;
        inst->displs[r] = r * inst->count;
    }
    if (coll->synthetic && synthetic_prepare(inst, coll->start == synthetic_start_steal) != 0) {
        snprintf(err, errlen, "%s: cannot start its helper", coll->name);
        coll_instance_release(inst);
        return -1;
    }
    if (coll->init && coll->init(inst) != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: the persistent request could not be created", coll->name);
        coll_instance_release(inst);
        return -1;
    }
    return 0;
}

void coll_instance_release(coll_instance *inst)
{
    if (inst->persistent_request != MPI_REQUEST_NULL)
        MPI_Request_free(&inst->persistent_request);
    synthetic_release(inst);
    free(inst->send);
    free(inst->recv);
    free(inst->counts);
    free(inst->displs);
    *inst = (coll_instance){.persistent_request = MPI_REQUEST_NULL};
}
