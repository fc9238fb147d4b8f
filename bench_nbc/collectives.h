/* The collectives table: one descriptor per operation the driver can time.
 *
 * A "message size" S (bytes) maps to buffers per descriptor; `size_meaning`
 * says what S is for each. Buffers of one size are allocated once, outside
 * timed regions, and touched before use. */
#ifndef BENCH_NBC_COLLECTIVES_H
#define BENCH_NBC_COLLECTIVES_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct coll_instance coll_instance;

typedef struct nbc_collective {
    const char *name;         /* as in the configuration, e.g. "ibcast" */
    const char *size_meaning; /* what the byte size S is, for --help and docs */
    int send_blocks;          /* S-byte blocks in the send buffer: 0, 1, or COLL_P */
    int recv_blocks;          /* same for the receive buffer */
    bool reduces;             /* data are doubles combined with MPI_SUM */
    bool has_root;            /* rank 0 is the root */
    bool persistent;          /* MPI-4 persistent: initialized once per size, MPI_Start */
    bool sizable;             /* false: the size changes nothing (ibarrier) */
    bool synthetic;           /* a known-answer stand-in, not an MPI operation */
    /* Starts the operation on prepared buffers: a nonblocking call, or
     * MPI_Start of the persistent request made by `init`. */
    int (*start)(coll_instance *inst, MPI_Request *request);
    /* Persistent collectives only: creates inst->persistent_request. */
    int (*init)(coll_instance *inst);
    /* Completes a started operation; NULL means MPI_Wait. */
    int (*wait)(coll_instance *inst, MPI_Request *request);
} nbc_collective;

/* A block count of COLL_P means one S-byte block per rank. */
enum { COLL_P = -1 };

/* Buffers and counts of one collective at one size on one communicator. */
struct coll_instance {
    const nbc_collective *coll;
    MPI_Comm comm;
    int rank, ranks;
    size_t bytes;          /* S, rounded to the element size */
    int count;             /* elements per block */
    MPI_Datatype datatype; /* MPI_BYTE, or MPI_DOUBLE when reducing */
    void *send, *recv;
    size_t send_bytes, recv_bytes;
    int *counts, *displs; /* per rank, for the v-variants */
    MPI_Request persistent_request;
    struct synthetic_engine *synthetic; /* synthetic collectives only */
};

/* Every descriptor this MPI library supports, in table order. */
const nbc_collective *nbc_collectives(size_t *count);
const nbc_collective *nbc_collective_find(const char *name);
/* Names of every descriptor (for the configuration's allowed values); the
 * array is static. */
const char *const *nbc_collective_names(size_t *count);

/* Largest S the descriptor can take on `ranks` ranks (MPI counts are int). */
size_t nbc_collective_max_bytes(const nbc_collective *coll, int ranks);
/* Bytes one rank allocates for size S. */
size_t nbc_collective_buffer_bytes(const nbc_collective *coll, size_t bytes, int ranks);

/* Allocates and touches the buffers for size S. 0, or -1 with a message
 * (out of memory, or S too large for int counts). */
int coll_instance_prepare(coll_instance *inst, const nbc_collective *coll, MPI_Comm comm,
                          size_t bytes, char *err, size_t errlen);
void coll_instance_release(coll_instance *inst);
static inline int coll_instance_start(coll_instance *inst, MPI_Request *request)
{
    return inst->coll->start(inst, request);
}
static inline int coll_instance_wait(coll_instance *inst, MPI_Request *request)
{
    return inst->coll->wait ? inst->coll->wait(inst, request)
                            : MPI_Wait(request, MPI_STATUS_IGNORE);
}

/* synthetic.c: the known-answer rows of the table (their size is a
 * duration in nanoseconds). */
int synthetic_prepare(coll_instance *inst, bool with_thread);
void synthetic_release(coll_instance *inst);
/* With the sleep kernel (compute.kernel = sleep) a helper spinning on a core
 * takes nothing from a sleeping computation: synthetic_steal then gives its
 * duration to the computation's running step through this sink instead
 * (the driver wires it to compute_team_add_stolen_ns), which is what the
 * spinning helper does to a dgemm at real-time priority. */
typedef struct synthetic_steal_sink {
    void *context;
    void (*add_ns)(void *context, int64_t stolen_ns);
    void (*clear)(void *context); /* the operation ended: drop what no step took */
} synthetic_steal_sink;
void synthetic_model_steal(coll_instance *inst, const synthetic_steal_sink *sink);
int synthetic_start_perfect(coll_instance *inst, MPI_Request *request);
int synthetic_wait_perfect(coll_instance *inst, MPI_Request *request);
int synthetic_start_serial(coll_instance *inst, MPI_Request *request);
int synthetic_wait_serial(coll_instance *inst, MPI_Request *request);
int synthetic_start_steal(coll_instance *inst, MPI_Request *request);
int synthetic_wait_steal(coll_instance *inst, MPI_Request *request);

#endif
