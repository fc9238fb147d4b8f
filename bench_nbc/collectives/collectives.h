/* The collectives table: one descriptor per operation the driver can time.
 *
 * A "message size" S (bytes) maps to buffers per descriptor; `size_meaning`
 * says what S is for each. Buffers of one size are allocated once, outside
 * timed regions, and touched before use.
 *
 * Options (run.root, run.datatype, run.in_place) apply to every descriptor
 * that has a use for them: nbc_collective_check_options says which do.
 *
 * Neighbourhood collectives run on a periodic 2-D Cartesian grid over the
 * ranks (MPI_Dims_create(ranks, 2), no reordering): each rank has
 * COLL_GRID_NEIGHBORS neighbours, in MPI's order for Cartesian topologies
 * (dimension 0 negative, dimension 0 positive, dimension 1 negative,
 * dimension 1 positive); a neighbour may be the same rank twice, or the
 * rank itself.
 *
 * Sizes: counts beyond an int use MPI-4's large-count calls (MPI_Ibcast_c,
 * MPI_Bcast_init_c, ...) when the library has them (MPI_VERSION >= 4);
 * otherwise a contiguous datatype of 2^k elements makes the int count fit
 * (S is then rounded down to a multiple of 2^k elements; reductions sum with
 * an operation of their own over that datatype). */
#ifndef BENCH_NBC_COLLECTIVES_H
#define BENCH_NBC_COLLECTIVES_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct coll_instance coll_instance;
typedef struct nbc_scenario nbc_scenario;

/* Element types of run.datatype. COLL_AUTO: bytes, or doubles when the
 * operation reduces (MPI_SUM). */
typedef enum { COLL_AUTO, COLL_BYTE, COLL_INT, COLL_DOUBLE, COLL_DATATYPE_COUNT } coll_datatype;

/* Where MPI_IN_PLACE goes when the standard allows it. */
typedef enum {
    COLL_IN_PLACE_NEVER, /* not allowed (ibcast, ibarrier, neighbourhood collectives) */
    COLL_IN_PLACE_SEND,  /* sendbuf: the input is taken from, and replaced in, the receive buffer */
    COLL_IN_PLACE_RECV,  /* recvbuf at the root (iscatter): the root keeps its own block */
} coll_in_place;

typedef struct nbc_collective {
    const char *name;         /* as in the configuration, e.g. "ibcast" */
    const char *size_meaning; /* what the byte size S is, for --help and docs */
    const char *operation;    /* the MPI operation, e.g. "bcast" for ibcast and bcast_init:
                                 its data check rule (datacheck.c); NULL: synthetic */
    int send_blocks;          /* S-byte blocks in the send buffer: 0, 1, COLL_P, COLL_NEIGHBORS */
    int recv_blocks;          /* same for the receive buffer */
    bool reduces;             /* data are combined with MPI_SUM: numeric types only */
    bool has_root;            /* rank run.root is the root */
    bool persistent;          /* MPI-4 persistent: initialized once per size, MPI_Start */
    bool sizable;             /* false: the size changes nothing (ibarrier) */
    bool synthetic;           /* a known-answer stand-in, not an MPI operation */
    bool helper_thread;       /* synthetic: a thread spins on the computing core */
    bool neighborhood;        /* runs on the periodic 2-D Cartesian grid */
    bool byte_displacements;  /* the w-variants: displacements in bytes, one datatype per peer */
    coll_in_place in_place;   /* run.in_place: where MPI_IN_PLACE goes, or never */
    /* Starts the operation on prepared buffers: a nonblocking call, or
     * MPI_Start of the persistent request made by `init`. */
    int (*start)(coll_instance *inst, MPI_Request *request);
    /* The same with MPI-4 large counts (NULL: the library has none). */
    int (*start_c)(coll_instance *inst, MPI_Request *request);
    /* Persistent collectives only: creates inst->persistent_request. */
    int (*init)(coll_instance *inst);
    int (*init_c)(coll_instance *inst);
    /* Completes a started operation; NULL means MPI_Wait. */
    int (*wait)(coll_instance *inst, MPI_Request *request);
    /* A scenario (scenario.c): its parts are started together and completed
     * together; NULL for one operation. */
    const nbc_scenario *scenario;
} nbc_collective;

/* A block count of COLL_P means one S-byte block per rank, COLL_NEIGHBORS
 * one per neighbour on the grid. */
enum { COLL_P = -1, COLL_NEIGHBORS = -2 };
enum { COLL_GRID_DIMS = 2, COLL_GRID_NEIGHBORS = 2 * COLL_GRID_DIMS };

typedef struct coll_options {
    int root;                /* run.root: the root of rooted operations */
    coll_datatype datatype;  /* run.datatype */
    bool in_place;           /* run.in_place */
    double background_share; /* run.background_share: synthetic_intermittent's starts that
                                complete in the background (0 to 1) */
} coll_options;

/* Counts and displacements (uniform: block j at j x count) as the int calls
 * and as the large-count calls take them; arrays have one entry per peer. */
typedef struct coll_counts {
    int count;
    int *counts, *displs, *byte_displs;
} coll_counts;
typedef struct coll_counts_c {
    MPI_Count count;
    MPI_Count *counts;
    MPI_Aint *displs, *byte_displs;
} coll_counts_c;

/* Buffers and counts of one collective at one size on one communicator. */
struct coll_instance {
    const nbc_collective *coll;
    coll_options options;
    MPI_Comm comm;     /* the communicator the operation runs on */
    MPI_Comm topology; /* the Cartesian grid this instance created, or MPI_COMM_NULL */
    int rank, ranks;
    int root;                  /* options.root for rooted operations, else 0 */
    size_t bytes;              /* S, rounded to the element (or unit) size: one block */
    size_t elements;           /* elements of the element type per block */
    size_t element_bytes;      /* size of the element type */
    coll_datatype element;     /* the element type (never COLL_AUTO) */
    MPI_Datatype datatype;     /* the element type, or a contiguous unit of it */
    MPI_Datatype *datatypes;   /* w-variants: `datatype` once per peer */
    MPI_Op op;                 /* MPI_SUM, or a sum over the unit datatype */
    bool large;                /* counts beyond int: the _c calls are used */
    bool in_place;             /* this rank passes MPI_IN_PLACE */
    int send_blocks;           /* S-byte blocks allocated for sending (this rank) */
    int recv_blocks;           /* and receiving, or the in-place buffer */
    void *send, *recv;         /* the buffers */
    void *send_arg, *recv_arg; /* what the call gets: the buffer or MPI_IN_PLACE */
    size_t send_bytes, recv_bytes;
    int peers;                          /* entries of the per-peer arrays: ranks or neighbours */
    int neighbors[COLL_GRID_NEIGHBORS]; /* neighbourhood collectives: ranks of the neighbours */
    coll_counts n;
    coll_counts_c n_c;
    MPI_Datatype unit_type; /* the contiguous unit this instance created, or MPI_DATATYPE_NULL */
    MPI_Op unit_op;         /* the operation this instance created, or MPI_OP_NULL */
    MPI_Request persistent_request;
    struct synthetic_engine *synthetic; /* synthetic collectives only */
    coll_instance *parts;               /* a scenario's parts, one instance each */
    int part_count;
    MPI_Comm *part_comms; /* the communicators the scenario created, or MPI_COMM_NULL */
};

/* Every descriptor this MPI library supports, in table order. */
const nbc_collective *nbc_collectives(size_t *count);
/* An operation or a scenario by name, or NULL. */
const nbc_collective *nbc_collective_find(const char *name);
/* An operation of the table (not a scenario) by name, or NULL. */
const nbc_collective *nbc_operation_find(const char *name);
/* Names of every descriptor (for the configuration's allowed values); the
 * array is static. */
const char *const *nbc_collective_names(size_t *count);
/* Names of run.datatype's values, indexed by coll_datatype; static. */
const char *const *nbc_collective_datatype_names(size_t *count);
/* The coll_datatype of a name, or -1. */
int nbc_collective_datatype_find(const char *name);

/* The options' problem with this collective on `ranks` ranks: -1 with one
 * message naming the key, its value and what is allowed ("config: run.root:
 * "2" is not a rank ... (allowed: 0 to 1)"), else 0. */
int nbc_collective_check_options(const nbc_collective *coll, const coll_options *options, int ranks,
                                 char *err, size_t errlen);

/* Size of one element of the collective with these options (S is rounded
 * down to a multiple of it). */
size_t nbc_collective_unit_bytes(const nbc_collective *coll, const coll_options *options);
/* Largest S the descriptor can take on `ranks` ranks (what MPI's counts and
 * addresses can express; memory is the caller's rule). */
size_t nbc_collective_max_bytes(const nbc_collective *coll, const coll_options *options, int ranks);
/* Blocks of S in the largest single buffer any rank passes to MPI (ibcast:
 * 1; ialltoall: ranks); 0 when the size changes nothing. A library's size
 * limit per buffer divided by it is the largest S. */
int nbc_collective_largest_buffer_blocks(const nbc_collective *coll, const coll_options *options,
                                         int ranks);
/* Bytes the rank that allocates most (the root, for rooted operations)
 * allocates for size S: send and receive buffers (the data check verifies
 * them in place and needs no other). */
uint64_t nbc_collective_buffer_bytes(const nbc_collective *coll, const coll_options *options,
                                     uint64_t bytes, int ranks);
/* The same as a sum of blocks of S bytes ("send 1 + receive 4 blocks of S"). */
void nbc_collective_describe_buffers(const nbc_collective *coll, const coll_options *options,
                                     int ranks, char *out, size_t outlen);

/* Allocates and touches the buffers for size S (options NULL: defaults).
 * 0, or -1 with a message (out of memory, a failed MPI call). Collective
 * over comm for neighbourhood collectives (the grid is created). */
int coll_instance_prepare(coll_instance *inst, const nbc_collective *coll, MPI_Comm comm,
                          size_t bytes, const coll_options *options, char *err, size_t errlen);
void coll_instance_release(coll_instance *inst);

/* One operation (not a scenario): its start and its completion. */
static inline int coll_instance_start(coll_instance *inst, MPI_Request *request)
{
    return inst->large ? inst->coll->start_c(inst, request) : inst->coll->start(inst, request);
}
static inline int coll_instance_wait(coll_instance *inst, MPI_Request *request)
{
    return inst->coll->wait ? inst->coll->wait(inst, request)
                            : MPI_Wait(request, MPI_STATUS_IGNORE);
}

/* The requests of one start: one per operation, one per part of a scenario. */
enum { COLL_MAX_REQUESTS = 4 };
typedef struct coll_requests {
    MPI_Request r[COLL_MAX_REQUESTS];
    int count;
} coll_requests;
/* Starts the operation, or every part of a scenario in its order. */
int coll_instance_start_all(coll_instance *inst, coll_requests *requests);
/* Completes what the start began: MPI_Wait, a scenario's parts with one
 * MPI_Waitall (parts with a wait of their own, the synthetic ones, each
 * with it, in the parts' order). */
int coll_instance_wait_all(coll_instance *inst, coll_requests *requests);
/* MPI_Testall over the requests (progress.mode=test); completed requests
 * are MPI_REQUEST_NULL, so testing again returns at once. */
int coll_instance_test_all(coll_requests *requests);

/* ---- scenarios (scenario.c) ----
 * A scenario is several operations of the table in flight together, as real
 * codes keep them: started one after the other, completed with MPI_Waitall.
 * Each part names an operation, its communicator and its size: a weight
 * of the scenario's size S (the part's S is weight x S, at least one
 * element), or a fixed byte count whatever S is (a few norms reduced beside
 * a halo exchange). S is what the calibration searches; a fixed part adds
 * the same load at every S. */
typedef enum {
    SCENARIO_COMM_RUN,  /* the run's communicator */
    SCENARIO_COMM_DUP,  /* a duplicate of it (MPI_Comm_dup): its own matching */
    SCENARIO_COMM_HALF, /* this rank's half of it (MPI_Comm_split: the first ceil(P/2) ranks
                           and the others) */
    SCENARIO_COMM_COUNT
} scenario_comm;
enum { SCENARIO_MAX_PARTS = COLL_MAX_REQUESTS, NBC_MAX_SCENARIOS = 16 };
typedef struct scenario_part {
    const char *collective; /* a row of the table, e.g. "iallgather" */
    scenario_comm comm;
    double weight;      /* the part's size is weight x S (fixed_bytes = 0) */
    size_t fixed_bytes; /* > 0: the part's size in bytes whatever S is (weight unused) */
} scenario_part;
struct nbc_scenario {
    scenario_part parts[SCENARIO_MAX_PARTS];
    int part_count;
};
/* The scenarios this library can run (every part is in its table), in order. */
const nbc_collective *nbc_scenarios(size_t *count);
/* An operation of a table by name, or NULL (nbc_operation_find, or a test's table). */
typedef const nbc_collective *nbc_operation_find_fn(const char *name);
/* The offering rule, over any candidates and operation table: the
 * candidates whose every part `find` knows, copied in order into offered
 * (room for count); returns how many. */
size_t nbc_scenarios_offer(const nbc_collective *candidates, size_t count,
                           nbc_operation_find_fn *find, nbc_collective *offered);
/* The first part of a scenario that `find` lacks, or NULL when it has them all. */
const scenario_part *nbc_scenario_missing_part(const nbc_collective *scenario,
                                               nbc_operation_find_fn *find);
/* Why a scenario cannot run with the operations `find` knows: 0 with why
 * ("is a scenario this MPI library cannot run: its part bcast_init is not
 * in this build's collectives table ..."), or -1 when it can. */
int nbc_scenario_refusal(const nbc_collective *scenario, nbc_operation_find_fn *find, char *why,
                         size_t whylen);
/* nbc_scenario_refusal for the scenario of the table named `name`: 0 with
 * why set, or -1 when it is no such scenario (unknown, or offered). */
int nbc_scenario_unavailable(const char *name, char *why, size_t whylen);
/* The parts as --list prints them: "ineighbor_alltoall (S, run) + iallreduce
 * (64 bytes, dup)" (a weighted part's size "S" or "0.5 S"). */
void nbc_scenario_describe_parts(const nbc_collective *scenario, char *out, size_t outlen);
/* The communicators' names ("run", "dup", "half"), indexed by scenario_comm. */
const char *const *nbc_scenario_comm_names(void);
/* A part's descriptor: never NULL for a scenario nbc_scenarios lists. */
const nbc_collective *nbc_scenario_part(const nbc_collective *scenario, int part);
/* Ranks of a part's communicator when the run has `ranks`. */
int nbc_scenario_part_ranks(const scenario_part *part, int ranks);
/* Byte size of a part for the scenario's size S: its fixed bytes, or
 * weight x S rounded down. */
size_t nbc_scenario_part_bytes(const scenario_part *part, size_t bytes);
/* The scenario counterparts of the nbc_collective_* size and option calls. */
int scenario_check_options(const nbc_collective *coll, const coll_options *options, int ranks,
                           char *err, size_t errlen);
size_t scenario_unit_bytes(const nbc_collective *coll, const coll_options *options);
size_t scenario_max_bytes(const nbc_collective *coll, const coll_options *options, int ranks);
/* The largest S at which a part stays within part_most bytes of its own:
 * part_most / weight; a fixed part allows every S (SIZE_MAX) or none (0). */
size_t scenario_s_of_part_bytes(const scenario_part *part, size_t part_most);
int scenario_largest_buffer_blocks(const nbc_collective *coll, const coll_options *options,
                                   int ranks);
uint64_t scenario_buffer_bytes(const nbc_collective *coll, const coll_options *options,
                               uint64_t bytes, int ranks);
void scenario_describe_buffers(const nbc_collective *coll, const coll_options *options, int ranks,
                               char *out, size_t outlen);
/* coll_instance_prepare of a scenario, once inst holds its descriptor,
 * options, communicator and rank: creates the parts' communicators and
 * prepares every part at its share of S (collective over inst->comm); 0, or
 * -1 with a message. */
int scenario_prepare(coll_instance *inst, size_t bytes, char *err, size_t errlen);

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
/* A scenario's synthetic parts are modelled the same way. */
void synthetic_model_steal(coll_instance *inst, const synthetic_steal_sink *sink);
int synthetic_start_perfect(coll_instance *inst, MPI_Request *request);
int synthetic_wait_perfect(coll_instance *inst, MPI_Request *request);
int synthetic_start_serial(coll_instance *inst, MPI_Request *request);
int synthetic_wait_serial(coll_instance *inst, MPI_Request *request);
int synthetic_start_steal(coll_instance *inst, MPI_Request *request);
int synthetic_wait_steal(coll_instance *inst, MPI_Request *request);
int synthetic_start_intermittent(coll_instance *inst, MPI_Request *request);
int synthetic_wait_intermittent(coll_instance *inst, MPI_Request *request);
/* Whether synthetic_intermittent's start number `start` (0, 1, ...) of an
 * instance completes in the background at this share: the same answer on
 * every rank, which start the same collectives in the same order. */
bool synthetic_background_turn(uint64_t start, double background_share);

#endif
