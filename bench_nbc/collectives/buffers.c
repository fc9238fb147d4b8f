/* A collective's buffers for the run's options (collectives.h): the
 * element types, the options checked against the row, the sizes of the
 * buffers for a byte count, and an instance prepared (buffers touched,
 * counts set) and released. The rows themselves are collectives.c's. */
#include "bench_nbc/collectives/collectives.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- element types ---- */

static const struct {
    const char *name;
    size_t bytes;
    bool numeric;
} datatypes[COLL_DATATYPE_COUNT] = {
    [COLL_AUTO] = {"auto", 0, true},
    [COLL_BYTE] = {"byte", 1, false},
    [COLL_INT] = {"int", sizeof(int), true},
    [COLL_DOUBLE] = {"double", sizeof(double), true},
};

const char *const *nbc_collective_datatype_names(size_t *count)
{
    static const char *names[COLL_DATATYPE_COUNT];
    for (size_t i = 0; i < COLL_DATATYPE_COUNT; i++)
        names[i] = datatypes[i].name;
    *count = COLL_DATATYPE_COUNT;
    return names;
}

int nbc_collective_datatype_find(const char *name)
{
    for (int i = 0; i < COLL_DATATYPE_COUNT; i++)
        if (strcmp(datatypes[i].name, name) == 0)
            return i;
    return -1;
}

static MPI_Datatype mpi_datatype(coll_datatype element)
{
    switch (element) {
    case COLL_INT:
        return MPI_INT;
    case COLL_DOUBLE:
        return MPI_DOUBLE;
    default:
        return MPI_BYTE;
    }
}

static const coll_options default_options = {
    .root = 0, .datatype = COLL_AUTO, .in_place = false, .background_share = 0.85};

static coll_datatype element_of(const nbc_collective *coll, const coll_options *options)
{
    if (options->datatype != COLL_AUTO)
        return options->datatype;
    return coll->reduces ? COLL_DOUBLE : COLL_BYTE;
}

size_t nbc_collective_unit_bytes(const nbc_collective *coll, const coll_options *options)
{
    if (coll->scenario)
        return scenario_unit_bytes(coll, options ? options : &default_options);
    return datatypes[element_of(coll, options ? options : &default_options)].bytes;
}

/* ---- options ---- */

/* "config: run.KEY: "VALUE" PROBLEM (allowed: ALLOWED)", as config.c words it. */
static int option_fail(char *err, size_t errlen, const char *key, const char *value,
                       const char *problem, const char *allowed)
{
    snprintf(err, errlen, "config: run.%s: \"%s\" %s (allowed: %s)", key, value, problem, allowed);
    return -1;
}

static void join_names(char *out, size_t outlen, bool (*pick)(const nbc_collective *))
{
    out[0] = '\0';
    size_t count;
    const nbc_collective *table = nbc_collectives(&count);
    for (size_t i = 0; i < count; i++) {
        size_t used = strlen(out);
        if (pick(&table[i]) && used + 1 < outlen)
            snprintf(out + used, outlen - used, "%s%s", used ? ", " : "", table[i].name);
    }
}
static bool takes_in_place(const nbc_collective *coll)
{
    return coll->in_place != COLL_IN_PLACE_NEVER;
}
static bool moves_bytes(const nbc_collective *coll)
{
    return coll->sizable && !coll->synthetic && !coll->reduces;
}

int nbc_collective_check_options(const nbc_collective *coll, const coll_options *options, int ranks,
                                 char *err, size_t errlen)
{
    if (coll->scenario)
        return scenario_check_options(coll, options, ranks, err, errlen);
    char value[32], allowed[2048];
    if (options->root < 0 || options->root >= ranks) {
        snprintf(value, sizeof value, "%d", options->root);
        snprintf(allowed, sizeof allowed, "0 to %d", ranks - 1);
        char problem[128];
        snprintf(problem, sizeof problem, "is not a rank of this run's %d ranks", ranks);
        return option_fail(err, errlen, "root", value, problem, allowed);
    }
    const char *type_name = datatypes[options->datatype].name;
    if (coll->reduces && !datatypes[options->datatype].numeric) {
        char problem[256];
        snprintf(problem, sizeof problem,
                 "cannot be reduced: %s sums its data (MPI_SUM needs numbers)", coll->name);
        return option_fail(err, errlen, "datatype", type_name, problem,
                           "auto, int, double for reductions");
    }
    if (options->datatype != COLL_AUTO && !coll->reduces && !moves_bytes(coll)) {
        char problem[256];
        snprintf(problem, sizeof problem, "has no meaning for %s, which moves no data", coll->name);
        return option_fail(err, errlen, "datatype", type_name, problem, "auto");
    }
    if (options->in_place && !takes_in_place(coll)) {
        char problem[256];
        join_names(allowed, sizeof allowed, takes_in_place);
        snprintf(problem, sizeof problem,
                 "is not allowed for %s: the MPI standard has no MPI_IN_PLACE for it; "
                 "run.in_place = true is for",
                 coll->name);
        return option_fail(err, errlen, "in_place", "true", problem, allowed);
    }
    return 0;
}

/* ---- sizes ---- */

static int block_total(int block_count, int ranks)
{
    if (block_count == COLL_P)
        return ranks;
    return block_count == COLL_NEIGHBORS ? COLL_GRID_NEIGHBORS : block_count;
}

/* Blocks a rank allocates, and whether it passes MPI_IN_PLACE: in place,
 * the receive buffer holds the input too (reduce_scatter's ranks x S), or
 * at iscatter's root the send buffer keeps the root's own block. */
static void rank_layout(const nbc_collective *coll, const coll_options *options, int rank,
                        int ranks, bool *in_place, int *send_blocks, int *recv_blocks)
{
    *send_blocks = block_total(coll->send_blocks, ranks);
    *recv_blocks = block_total(coll->recv_blocks, ranks);
    *in_place = options->in_place && coll->in_place != COLL_IN_PLACE_NEVER &&
                (!coll->has_root || rank == options->root);
    if (!*in_place)
        return;
    if (coll->in_place == COLL_IN_PLACE_SEND) {
        *recv_blocks = *send_blocks > *recv_blocks ? *send_blocks : *recv_blocks;
        *send_blocks = 0;
    } else {
        *recv_blocks = 0;
    }
}

/* The most blocks any rank allocates: the root's, or another rank's. */
static int most_blocks(const nbc_collective *coll, const coll_options *options, int ranks)
{
    int most = 0;
    for (int k = 0; k < 2 && k < ranks; k++) {
        bool in_place;
        int send, recv;
        rank_layout(coll, options, (options->root + k) % ranks, ranks, &in_place, &send, &recv);
        if (send + recv > most)
            most = send + recv;
    }
    return most;
}

int nbc_collective_largest_buffer_blocks(const nbc_collective *coll, const coll_options *options,
                                         int ranks)
{
    if (!options)
        options = &default_options;
    if (coll->scenario)
        return scenario_largest_buffer_blocks(coll, options, ranks);
    if (!coll->sizable)
        return 0;
    int largest = 0;
    for (int k = 0; k < 2 && k < ranks; k++) {
        bool in_place;
        int send, recv;
        rank_layout(coll, options, (options->root + k) % ranks, ranks, &in_place, &send, &recv);
        largest = send > largest ? send : largest;
        largest = recv > largest ? recv : largest;
    }
    return largest;
}

uint64_t nbc_collective_buffer_bytes(const nbc_collective *coll, const coll_options *options,
                                     uint64_t bytes, int ranks)
{
    if (!options)
        options = &default_options;
    if (coll->scenario)
        return scenario_buffer_bytes(coll, options, bytes, ranks);
    if (!coll->sizable)
        return 0;
    uint64_t unit = nbc_collective_unit_bytes(coll, options);
    bytes = bytes / unit * unit;
    return (uint64_t)most_blocks(coll, options, ranks) * (bytes ? bytes : unit);
}

void nbc_collective_describe_buffers(const nbc_collective *coll, const coll_options *options,
                                     int ranks, char *out, size_t outlen)
{
    if (!options)
        options = &default_options;
    if (coll->scenario) {
        scenario_describe_buffers(coll, options, ranks, out, outlen);
        return;
    }
    int best = -1, best_send = 0, best_recv = 0;
    for (int k = 0; k < 2 && k < ranks; k++) {
        bool in_place;
        int send, recv;
        rank_layout(coll, options, (options->root + k) % ranks, ranks, &in_place, &send, &recv);
        if (send + recv > best)
            best = send + recv, best_send = send, best_recv = recv;
    }
    snprintf(out, outlen, "send %d + receive %d blocks of S", best_send, best_recv);
}

/* Entries of the per-peer arrays. */
static int peer_count(const nbc_collective *coll, int ranks)
{
    return coll->neighborhood ? COLL_GRID_NEIGHBORS : ranks;
}

size_t nbc_collective_max_bytes(const nbc_collective *coll, const coll_options *options, int ranks)
{
    if (!options)
        options = &default_options;
    if (coll->scenario)
        return scenario_max_bytes(coll, options, ranks);
    if (!coll->sizable)
        return 0;
    if (coll->synthetic)
        return INT_MAX; /* a duration in ns */
    int blocks = most_blocks(coll, options, ranks);
    size_t most = (size_t)PTRDIFF_MAX / (size_t)(blocks ? blocks : 1);
    /* Without large-count calls ialltoallw's byte displacements are ints. */
    int peers = peer_count(coll, ranks);
    if (!coll->start_c && coll->byte_displacements && !coll->neighborhood && peers > 1 &&
        (size_t)INT_MAX / (size_t)(peers - 1) < most)
        most = (size_t)INT_MAX / (size_t)(peers - 1);
    return most / nbc_collective_unit_bytes(coll, options) *
           nbc_collective_unit_bytes(coll, options);
}

/* ---- preparing an instance ---- */

/* Sums of the contiguous units of the fallback for large reductions (MPI's
 * predefined operations only take predefined datatypes). */
static size_t units_bytes(int len, const MPI_Datatype *datatype)
{
    MPI_Count unit_bytes = 0;
    MPI_Type_size_x(*datatype, &unit_bytes); /* the unit was committed: cannot fail */
    return (size_t)len * (size_t)unit_bytes;
}
static void sum_int_units(void *in, void *inout, int *len, MPI_Datatype *datatype)
{
    size_t n = units_bytes(*len, datatype) / sizeof(int);
    for (size_t i = 0; i < n; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}
static void sum_double_units(void *in, void *inout, int *len, MPI_Datatype *datatype)
{
    size_t n = units_bytes(*len, datatype) / sizeof(double);
    for (size_t i = 0; i < n; i++)
        ((double *)inout)[i] += ((const double *)in)[i];
}

/* Allocates and touches a buffer (first touch by this thread, outside any
 * timed region); numbers get 1 everywhere, a value that stays finite. */
static void *touched_buffer(size_t bytes, coll_datatype element, bool reduces)
{
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return NULL;
    if (reduces && element == COLL_DOUBLE)
        for (size_t i = 0; i < bytes / sizeof(double); i++)
            ((double *)buf)[i] = 1.0;
    else if (reduces && element == COLL_INT)
        for (size_t i = 0; i < bytes / sizeof(int); i++)
            ((int *)buf)[i] = 1;
    else
        memset(buf, 0x5a, bytes);
    return buf;
}

/* The periodic 2-D grid and this rank's neighbours in MPI's order. */
static int make_grid(coll_instance *inst, MPI_Comm comm)
{
    int dims[COLL_GRID_DIMS] = {0}, periods[COLL_GRID_DIMS] = {1, 1};
    int rc = MPI_Dims_create(inst->ranks, COLL_GRID_DIMS, dims);
    if (rc == MPI_SUCCESS)
        rc = MPI_Cart_create(comm, COLL_GRID_DIMS, dims, periods, 0, &inst->topology);
    for (int d = 0; rc == MPI_SUCCESS && d < COLL_GRID_DIMS; d++)
        rc = MPI_Cart_shift(inst->topology, d, 1, &inst->neighbors[2 * d],
                            &inst->neighbors[2 * d + 1]);
    if (rc == MPI_SUCCESS)
        inst->comm = inst->topology;
    return rc;
}

/* The largest value an int count or displacement of the instance takes. */
static size_t largest_int_value(const coll_instance *inst, size_t elements_per_count)
{
    size_t count = inst->elements / elements_per_count;
    size_t value = count * (size_t)(inst->peers > 1 ? inst->peers - 1 : 1);
    if (value < count)
        value = count;
    if (inst->coll->byte_displacements && !inst->coll->neighborhood && inst->peers > 1 &&
        inst->bytes * (size_t)(inst->peers - 1) > value)
        value = inst->bytes * (size_t)(inst->peers - 1);
    return value;
}

/* Counts as the calls take them: MPI-4's large counts when an int cannot
 * hold them, else ints of the element type or of a contiguous unit of it. */
static int set_counts(coll_instance *inst, char *err, size_t errlen)
{
    const nbc_collective *coll = inst->coll;
    MPI_Datatype base = mpi_datatype(inst->element);
    inst->datatype = base;
    inst->op = MPI_SUM;
    size_t unit = 1;
    if (largest_int_value(inst, 1) > INT_MAX) {
        if (coll->start_c && (!coll->persistent || coll->init_c)) {
            inst->large = true;
        } else {
            while (largest_int_value(inst, unit) > INT_MAX && unit < (size_t)INT_MAX / 2 + 1)
                unit *= 2;
            inst->elements = inst->elements / unit * unit;
            inst->bytes = inst->elements * inst->element_bytes;
            if (largest_int_value(inst, unit) > INT_MAX) {
                snprintf(err, errlen, "%s: %zu bytes on %d ranks overflow MPI's int displacements",
                         coll->name, inst->bytes, inst->ranks);
                return -1;
            }
            if (MPI_Type_contiguous((int)unit, base, &inst->unit_type) != MPI_SUCCESS ||
                MPI_Type_commit(&inst->unit_type) != MPI_SUCCESS ||
                (coll->reduces &&
                 MPI_Op_create(inst->element == COLL_INT ? sum_int_units : sum_double_units, 1,
                               &inst->unit_op) != MPI_SUCCESS)) {
                snprintf(err, errlen, "%s: cannot build a datatype of %zu elements", coll->name,
                         unit);
                return -1;
            }
            inst->datatype = inst->unit_type;
            if (coll->reduces)
                inst->op = inst->unit_op;
        }
    }
    size_t count = inst->elements / unit;
    inst->n.count = inst->large ? 0 : (int)count;
    inst->n_c.count = (MPI_Count)count;
    for (int j = 0; j < inst->peers; j++) {
        inst->datatypes[j] = inst->datatype;
        inst->n_c.counts[j] = (MPI_Count)count;
        inst->n_c.displs[j] = (MPI_Aint)((size_t)j * count);
        inst->n_c.byte_displs[j] = (MPI_Aint)((size_t)j * inst->bytes);
        if (!inst->large) {
            inst->n.counts[j] = (int)count;
            inst->n.displs[j] = (int)((size_t)j * count);
            /* Only ialltoallw's int byte displacements must fit (checked above). */
            size_t byte_displ = (size_t)j * inst->bytes;
            inst->n.byte_displs[j] = byte_displ <= INT_MAX ? (int)byte_displ : -1;
        }
    }
    return 0;
}

static int allocate(coll_instance *inst, char *err, size_t errlen)
{
    const nbc_collective *coll = inst->coll;
    size_t peers = (size_t)inst->peers;
    inst->send_bytes = (size_t)inst->send_blocks * inst->bytes;
    inst->recv_bytes = (size_t)inst->recv_blocks * inst->bytes;
    inst->send = touched_buffer(inst->send_bytes, inst->element, coll->reduces);
    inst->recv = touched_buffer(inst->recv_bytes, inst->element, coll->reduces);
    inst->datatypes = malloc(peers * sizeof *inst->datatypes);
    inst->n.counts = malloc(peers * sizeof(int));
    inst->n.displs = malloc(peers * sizeof(int));
    inst->n.byte_displs = malloc(peers * sizeof(int));
    inst->n_c.counts = malloc(peers * sizeof(MPI_Count));
    inst->n_c.displs = malloc(peers * sizeof(MPI_Aint));
    inst->n_c.byte_displs = malloc(peers * sizeof(MPI_Aint));
    if (!inst->send || !inst->recv || !inst->datatypes || !inst->n.counts || !inst->n.displs ||
        !inst->n.byte_displs || !inst->n_c.counts || !inst->n_c.displs || !inst->n_c.byte_displs) {
        snprintf(err, errlen, "%s: cannot allocate %zu + %zu bytes of buffers", coll->name,
                 inst->send_bytes, inst->recv_bytes);
        return -1;
    }
    inst->send_arg = inst->send;
    inst->recv_arg = inst->recv;
    if (inst->in_place && coll->in_place == COLL_IN_PLACE_SEND)
        inst->send_arg = MPI_IN_PLACE;
    else if (inst->in_place)
        inst->recv_arg = MPI_IN_PLACE;
    return 0;
}

int coll_instance_prepare(coll_instance *inst, const nbc_collective *coll, MPI_Comm comm,
                          size_t bytes, const coll_options *options, char *err, size_t errlen)
{
    if (!options)
        options = &default_options;
    *inst = (coll_instance){.coll = coll,
                            .options = *options,
                            .comm = comm,
                            .topology = MPI_COMM_NULL,
                            .unit_type = MPI_DATATYPE_NULL,
                            .unit_op = MPI_OP_NULL,
                            .persistent_request = MPI_REQUEST_NULL};
    if (MPI_Comm_rank(comm, &inst->rank) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &inst->ranks) != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: cannot query the communicator", coll->name);
        return -1;
    }
    if (coll->scenario)
        return scenario_prepare(inst, bytes, err, errlen);
    /* Collective, so before anything that may fail on one rank alone. */
    if (coll->neighborhood && make_grid(inst, comm) != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: cannot create the periodic 2-D grid of %d ranks", coll->name,
                 inst->ranks);
        coll_instance_release(inst);
        return -1;
    }
    if (nbc_collective_check_options(coll, options, inst->ranks, err, errlen) != 0) {
        coll_instance_release(inst);
        return -1;
    }
    inst->root = coll->has_root ? options->root : 0;
    inst->element = element_of(coll, options);
    inst->element_bytes = datatypes[inst->element].bytes;
    inst->peers = peer_count(coll, inst->ranks);
    if (!coll->sizable) {
        bytes = 0;
    } else if (bytes > nbc_collective_max_bytes(coll, options, inst->ranks)) {
        snprintf(err, errlen, "%s: %zu bytes on %d ranks overflow MPI's counts", coll->name, bytes,
                 inst->ranks);
        coll_instance_release(inst);
        return -1;
    }
    if (coll->synthetic) {
        inst->elements = bytes; /* a duration, not a buffer */
        inst->bytes = bytes;
    } else {
        inst->elements = bytes / inst->element_bytes;
        if (coll->sizable && inst->elements == 0)
            inst->elements = 1;
        inst->bytes = inst->elements * inst->element_bytes;
    }
    rank_layout(coll, options, inst->rank, inst->ranks, &inst->in_place, &inst->send_blocks,
                &inst->recv_blocks);
    if (coll->synthetic)
        inst->send_blocks = inst->recv_blocks = 0;
    if (allocate(inst, err, errlen) != 0 || set_counts(inst, err, errlen) != 0) {
        coll_instance_release(inst);
        return -1;
    }
    if (coll->synthetic && synthetic_prepare(inst, coll->helper_thread) != 0) {
        snprintf(err, errlen, "%s: cannot start its helper", coll->name);
        coll_instance_release(inst);
        return -1;
    }
    int (*init)(coll_instance *) = inst->large ? coll->init_c : coll->init;
    if (init && init(inst) != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: the persistent request could not be created", coll->name);
        coll_instance_release(inst);
        return -1;
    }
    return 0;
}

void coll_instance_release(coll_instance *inst)
{
    for (int i = 0; i < inst->part_count; i++)
        coll_instance_release(&inst->parts[i]);
    for (int i = 0; inst->part_comms && i < inst->part_count; i++)
        if (inst->part_comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(&inst->part_comms[i]);
    free(inst->parts);
    free(inst->part_comms);
    if (inst->persistent_request != MPI_REQUEST_NULL)
        MPI_Request_free(&inst->persistent_request);
    synthetic_release(inst);
    if (inst->unit_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&inst->unit_type);
    if (inst->unit_op != MPI_OP_NULL)
        MPI_Op_free(&inst->unit_op);
    if (inst->topology != MPI_COMM_NULL)
        MPI_Comm_free(&inst->topology);
    free(inst->send);
    free(inst->recv);
    free(inst->datatypes);
    free(inst->n.counts);
    free(inst->n.displs);
    free(inst->n.byte_displs);
    free(inst->n_c.counts);
    free(inst->n_c.displs);
    free(inst->n_c.byte_displs);
    *inst = (coll_instance){.persistent_request = MPI_REQUEST_NULL,
                            .topology = MPI_COMM_NULL,
                            .unit_type = MPI_DATATYPE_NULL,
                            .unit_op = MPI_OP_NULL};
}
