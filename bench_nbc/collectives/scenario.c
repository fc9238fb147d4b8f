/* Scenarios: several operations of the table in flight together (see
 * collectives.h). A scenario is a row of the table below; its parts are
 * prepared as operations of their own, each on its communicator at its
 * share of the scenario's size S, and the sizes, options and buffers of the
 * scenario are those of its parts together. */
#include "bench_nbc/collectives/collectives.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ----
 * A part's size is weight x S (bytes; for synthetic parts, ns), or its
 * fixed_bytes whatever S is. */
static const nbc_scenario fsdp = {
    /* FSDP/ZeRO data parallelism: the next layer's parameters gathered while
     * the last layer's gradients are reduced and scattered, one shard of S
     * bytes per rank each. */
    .parts = {{"iallgather", SCENARIO_COMM_RUN, 1.0},
              {"ireduce_scatter_block", SCENARIO_COMM_RUN, 1.0}},
    .part_count = 2,
};
static const nbc_scenario halo_reduce = {
    /* A solver's halo exchange (S bytes to each grid neighbour) beside the
     * global reduction of a few norms: 8 doubles, whatever the halo's size
     * (a share of S would grow the norms with the grid). */
    .parts = {{"ineighbor_alltoall", SCENARIO_COMM_RUN, 1.0},
              {"iallreduce", SCENARIO_COMM_DUP, .fixed_bytes = 64}},
    .part_count = 2,
};
static const nbc_scenario two_comms = {
    /* Two communicators in use at once: a reduction over all the ranks (on
     * a duplicate) and one over each half of them. */
    .parts = {{"iallreduce", SCENARIO_COMM_DUP, 1.0}, {"iallreduce", SCENARIO_COMM_HALF, 1.0}},
    .part_count = 2,
};
static const nbc_scenario synthetic_mix = {
    /* The known answer: one part overlaps perfectly, the other not at all
     * (docs/collectives.md derives the ratios). */
    .parts = {{"synthetic_perfect", SCENARIO_COMM_RUN, 1.0},
              {"synthetic_serial", SCENARIO_COMM_RUN, 1.0}},
    .part_count = 2,
};

#define SCENARIO(name_, def_, meaning_, ...)                                                       \
    {                                                                                              \
        .name = name_, .size_meaning = "SCENARIO: " meaning_, .operation = "scenario",             \
        .sizable = true, .scenario = &def_, __VA_ARGS__                                            \
    }

/* clang-format off */
static const nbc_collective table[] = {
    SCENARIO("scenario_fsdp", fsdp,
             "FSDP/ZeRO: parameters gathered while gradients are reduced, S = each rank's shard"),
    SCENARIO("scenario_halo_reduce", halo_reduce,
             "a solver's halo exchange (S to each neighbour) beside the reduction of 8 norms"),
    SCENARIO("scenario_two_comms", two_comms,
             "reductions over all the ranks and over each half of them at once"),
    SCENARIO("scenario_synthetic_mix", synthetic_mix,
             "the known answer: half the duration overlaps",
             .synthetic = true),
};
/* clang-format on */
enum { table_size = sizeof table / sizeof table[0] };
_Static_assert((int)table_size <= (int)NBC_MAX_SCENARIOS, "raise NBC_MAX_SCENARIOS");

static const char *const comm_names[SCENARIO_COMM_COUNT] = {
    [SCENARIO_COMM_RUN] = "run", [SCENARIO_COMM_DUP] = "dup", [SCENARIO_COMM_HALF] = "half"};

const char *const *nbc_scenario_comm_names(void)
{
    return comm_names;
}

/* A scenario whose parts this library cannot run (a persistent part
 * without MPI-4) is not offered, so run.collective refuses it, naming the
 * missing part (nbc_scenario_unavailable). */
const scenario_part *nbc_scenario_missing_part(const nbc_collective *scenario,
                                               nbc_operation_find_fn *find)
{
    for (int i = 0; i < scenario->scenario->part_count; i++)
        if (!find(scenario->scenario->parts[i].collective))
            return &scenario->scenario->parts[i];
    return NULL;
}

size_t nbc_scenarios_offer(const nbc_collective *candidates, size_t count,
                           nbc_operation_find_fn *find, nbc_collective *offered)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (!nbc_scenario_missing_part(&candidates[i], find))
            offered[n++] = candidates[i];
    return n;
}

const nbc_collective *nbc_scenarios(size_t *count)
{
    static nbc_collective offered[table_size];
    static size_t offered_count;
    static bool listed;
    if (!listed) {
        offered_count = nbc_scenarios_offer(table, table_size, nbc_operation_find, offered);
        listed = true;
    }
    *count = offered_count;
    return offered;
}

int nbc_scenario_refusal(const nbc_collective *scenario, nbc_operation_find_fn *find, char *why,
                         size_t whylen)
{
    const scenario_part *missing = nbc_scenario_missing_part(scenario, find);
    if (!missing)
        return -1;
    snprintf(why, whylen,
             "is a scenario this MPI library cannot run: its part %s is not in this build's "
             "collectives table (persistent collectives need MPI-4; bench_nbc --list shows what "
             "it has)",
             missing->collective);
    return 0;
}

int nbc_scenario_unavailable(const char *name, char *why, size_t whylen)
{
    for (size_t i = 0; i < table_size; i++)
        if (strcmp(table[i].name, name) == 0)
            return nbc_scenario_refusal(&table[i], nbc_operation_find, why, whylen);
    return -1;
}

const nbc_collective *nbc_scenario_part(const nbc_collective *scenario, int part)
{
    return nbc_operation_find(scenario->scenario->parts[part].collective);
}

int nbc_scenario_part_ranks(const scenario_part *part, int ranks)
{
    if (part->comm != SCENARIO_COMM_HALF)
        return ranks;
    int first = (ranks + 1) / 2; /* the first half: ranks 0 .. first - 1 */
    return ranks > 1 ? ranks - first : ranks;
}

size_t nbc_scenario_part_bytes(const scenario_part *part, size_t bytes)
{
    return part->fixed_bytes ? part->fixed_bytes : (size_t)floor(part->weight * (double)bytes);
}

void nbc_scenario_describe_parts(const nbc_collective *scenario, char *out, size_t outlen)
{
    out[0] = '\0';
    for (int i = 0; i < scenario->scenario->part_count; i++) {
        const scenario_part *part = &scenario->scenario->parts[i];
        char size[48];
        if (part->fixed_bytes)
            snprintf(size, sizeof size, "%zu bytes", part->fixed_bytes);
        else if (part->weight == 1)
            snprintf(size, sizeof size, "S");
        else
            snprintf(size, sizeof size, "%g S", part->weight);
        size_t used = strlen(out);
        snprintf(out + used, outlen - used, "%s%s (%s, %s)", i ? " + " : "", part->collective, size,
                 comm_names[part->comm]);
    }
}

/* ---- sizes and options ---- */

int scenario_check_options(const nbc_collective *coll, const coll_options *options, int ranks,
                           char *err, size_t errlen)
{
    /* run.root is a rank of the run (the first part's check words it); a
     * part without a root gets 0, as its communicator may be smaller. */
    if (options->root < 0 || options->root >= ranks)
        return nbc_collective_check_options(nbc_scenario_part(coll, 0), options, ranks, err,
                                            errlen);
    for (int i = 0; i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        const nbc_collective *op = nbc_scenario_part(coll, i);
        coll_options mine = *options;
        mine.root = op->has_root ? options->root : 0;
        if (nbc_collective_check_options(op, &mine, nbc_scenario_part_ranks(part, ranks), err,
                                         errlen) != 0)
            return -1;
    }
    return 0;
}

/* The largest element of the weighted parts: S below it gives some part
 * nothing (a fixed part's size does not follow S). */
size_t scenario_unit_bytes(const nbc_collective *coll, const coll_options *options)
{
    size_t unit = 1;
    for (int i = 0; i < coll->scenario->part_count; i++) {
        if (coll->scenario->parts[i].fixed_bytes)
            continue;
        size_t u = nbc_collective_unit_bytes(nbc_scenario_part(coll, i), options);
        unit = u > unit ? u : unit;
    }
    return unit;
}

size_t scenario_s_of_part_bytes(const scenario_part *part, size_t part_most)
{
    if (part->fixed_bytes) /* the part's size is not S's: all S or none */
        return part->fixed_bytes <= part_most ? SIZE_MAX : 0;
    double s = (double)part_most / part->weight;
    return s >= (double)SIZE_MAX ? SIZE_MAX : (size_t)s;
}

size_t scenario_max_bytes(const nbc_collective *coll, const coll_options *options, int ranks)
{
    size_t most = SIZE_MAX;
    for (int i = 0; i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        size_t part_most = nbc_collective_max_bytes(nbc_scenario_part(coll, i), options,
                                                    nbc_scenario_part_ranks(part, ranks));
        size_t s = scenario_s_of_part_bytes(part, part_most);
        most = s < most ? s : most;
    }
    return most;
}

/* Blocks of S in the largest buffer of any part: a part of weight w with
 * b blocks of its own size holds w x b blocks of S; a fixed part none. */
int scenario_largest_buffer_blocks(const nbc_collective *coll, const coll_options *options,
                                   int ranks)
{
    double largest = 0;
    for (int i = 0; i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        double blocks = part->fixed_bytes
                            ? 0
                            : part->weight * nbc_collective_largest_buffer_blocks(
                                                 nbc_scenario_part(coll, i), options,
                                                 nbc_scenario_part_ranks(part, ranks));
        largest = blocks > largest ? blocks : largest;
    }
    return (int)ceil(largest);
}

uint64_t scenario_buffer_bytes(const nbc_collective *coll, const coll_options *options,
                               uint64_t bytes, int ranks)
{
    uint64_t total = 0;
    for (int i = 0; i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        total += nbc_collective_buffer_bytes(nbc_scenario_part(coll, i), options,
                                             nbc_scenario_part_bytes(part, (size_t)bytes),
                                             nbc_scenario_part_ranks(part, ranks));
    }
    return total;
}

void scenario_describe_buffers(const nbc_collective *coll, const coll_options *options, int ranks,
                               char *out, size_t outlen)
{
    out[0] = '\0';
    for (int i = 0; i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        char what[128];
        nbc_collective_describe_buffers(nbc_scenario_part(coll, i), options,
                                        nbc_scenario_part_ranks(part, ranks), what, sizeof what);
        size_t used = strlen(out);
        char size[64];
        if (part->fixed_bytes)
            snprintf(size, sizeof size, "S = %zu bytes", part->fixed_bytes);
        else
            snprintf(size, sizeof size, "S x %g", part->weight);
        snprintf(out + used, outlen - used, "%s%s: %s (%s)", used ? "; " : "", part->collective,
                 what, size);
    }
}

/* ---- starting and completing (one operation, or a scenario's parts) ---- */

int coll_instance_start_all(coll_instance *inst, coll_requests *requests)
{
    if (!inst->parts) {
        requests->count = 1;
        return coll_instance_start(inst, &requests->r[0]);
    }
    int err = MPI_SUCCESS;
    requests->count = 0;
    for (int i = 0; i < inst->part_count && err == MPI_SUCCESS; i++)
        err = coll_instance_start(&inst->parts[i], &requests->r[requests->count++]);
    return err;
}

int coll_instance_wait_all(coll_instance *inst, coll_requests *requests)
{
    if (!inst->parts)
        return coll_instance_wait(inst, &requests->r[0]);
    /* A synthetic part's request is MPI_REQUEST_NULL, which MPI_Waitall
     * passes over; its own wait does what it stands for. */
    /* Statuses, not MPI_STATUSES_IGNORE: GCC's access check takes MPICH's
     * (MPI_Status *)1 for an empty array. */
    MPI_Status statuses[COLL_MAX_REQUESTS];
    int err = MPI_Waitall(requests->count, requests->r, statuses);
    for (int i = 0; i < requests->count && err == MPI_SUCCESS; i++)
        if (inst->parts[i].coll->wait)
            err = inst->parts[i].coll->wait(&inst->parts[i], &requests->r[i]);
    return err;
}

int coll_instance_test_all(coll_requests *requests)
{
    int done;
    MPI_Status statuses[COLL_MAX_REQUESTS]; /* see coll_instance_wait_all */
    return MPI_Testall(requests->count, requests->r, &done, statuses);
}

/* ---- preparing ---- */

/* The part's communicator: collective over comm, in the parts' order on
 * every rank. */
static int part_comm(const scenario_part *part, MPI_Comm comm, int rank, int ranks, MPI_Comm *made,
                     MPI_Comm *use)
{
    *made = MPI_COMM_NULL;
    *use = comm;
    if (part->comm == SCENARIO_COMM_DUP) {
        int rc = MPI_Comm_dup(comm, made);
        *use = *made;
        return rc;
    }
    if (part->comm == SCENARIO_COMM_HALF) {
        int rc = MPI_Comm_split(comm, rank < (ranks + 1) / 2 ? 0 : 1, rank, made);
        *use = *made;
        return rc;
    }
    return MPI_SUCCESS;
}

int scenario_prepare(coll_instance *inst, size_t bytes, char *err, size_t errlen)
{
    const nbc_collective *coll = inst->coll;
    const nbc_scenario *sc = coll->scenario;
    const coll_options *options = &inst->options;
    MPI_Comm comm = inst->comm;
    inst->bytes = bytes;
    inst->parts = calloc((size_t)sc->part_count, sizeof *inst->parts);
    inst->part_comms = malloc((size_t)sc->part_count * sizeof *inst->part_comms);
    if (!inst->parts || !inst->part_comms) {
        free(inst->parts);
        free(inst->part_comms);
        inst->parts = NULL;
        inst->part_comms = NULL;
        snprintf(err, errlen, "%s: out of memory", coll->name);
        return -1;
    }
    for (int i = 0; i < sc->part_count; i++)
        inst->part_comms[i] = MPI_COMM_NULL;
    /* Every part is prepared even after one failed, so that the collective
     * calls inside (communicators, grids) match on every rank. */
    int failed = 0;
    for (int i = 0; i < sc->part_count; i++) {
        const scenario_part *part = &sc->parts[i];
        MPI_Comm use;
        char part_err[256];
        if (part_comm(part, comm, inst->rank, inst->ranks, &inst->part_comms[i], &use) !=
            MPI_SUCCESS) {
            if (!failed)
                snprintf(err, errlen, "%s: cannot create the %s communicator of %s", coll->name,
                         comm_names[part->comm], part->collective);
            failed = 1;
            use = comm;
        }
        inst->part_count = i + 1;
        if (coll_instance_prepare(&inst->parts[i], nbc_scenario_part(coll, i), use,
                                  nbc_scenario_part_bytes(part, bytes), options, part_err,
                                  sizeof part_err) != 0) {
            if (!failed)
                snprintf(err, errlen, "%s: %s", coll->name, part_err);
            failed = 1;
        }
    }
    if (failed) {
        coll_instance_release(inst);
        return -1;
    }
    return 0;
}
