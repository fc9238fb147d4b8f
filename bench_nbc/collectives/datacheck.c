/* Data check of the collectives (see datacheck.h).
 *
 * Every element a rank sends is a function of (sending rank, send block,
 * index in the block); what a rank must find in result block j at index i
 * is then a function of the same three, given by the descriptor's rule:
 * which ranks the element comes from (one rank for data movement, a range
 * of ranks summed for reductions) and which of their send blocks.
 *
 * Patterns. Bytes: a 64-bit mix of the triple (eight bytes per mix), so a block
 * from the wrong rank, the wrong block or a shifted segment (pipelined
 * algorithms move power-of-two pieces) differs almost everywhere. Doubles:
 * (rank + 1) * 1024 + h(block, index) with h < 1024: small integers, so
 * every partial sum is exact in any order and the sum over a range of ranks
 * has a closed form. Poison: the byte's complement (a missing write is
 * wrong at every element), and -0.5 for doubles (never an integer sum). */
#include "bench_nbc/collectives/datacheck.h"

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { RANK_WEIGHT = 1024 }; /* numbers: the rank term, above the index term */
/* Never an integer sum of the patterns (all positive). */
static const double poison_double = -0.5;
static const int poison_int = -1;

/* Ranks [*first, *end) whose send blocks feed result block j on this rank. */
typedef void source_ranks(const coll_instance *inst, int j, int *first, int *end);

static void root_rank(const coll_instance *inst, int j, int *first, int *end)
{
    (void)j;
    *first = inst->root;
    *end = inst->root + 1;
}
static void rank_of_block(const coll_instance *inst, int j, int *first, int *end)
{
    (void)inst;
    *first = j;
    *end = j + 1;
}
static void neighbor_of_block(const coll_instance *inst, int j, int *first, int *end)
{
    *first = inst->neighbors[j];
    *end = inst->neighbors[j] + 1;
}
static void all_ranks(const coll_instance *inst, int j, int *first, int *end)
{
    (void)j;
    *first = 0;
    *end = inst->ranks;
}
static void ranks_up_to_me(const coll_instance *inst, int j, int *first, int *end)
{
    (void)j;
    *first = 0;
    *end = inst->rank + 1;
}
static void ranks_before_me(const coll_instance *inst, int j, int *first, int *end)
{
    (void)j;
    *first = 0;
    *end = inst->rank;
}

/* Whether the standard defines the result on this rank. */
typedef bool defined_on(const coll_instance *inst);

static bool every_rank(const coll_instance *inst)
{
    (void)inst;
    return true;
}
static bool root_only(const coll_instance *inst)
{
    return inst->rank == inst->root;
}
static bool not_rank_0(const coll_instance *inst) /* MPI_Exscan leaves rank 0 undefined */
{
    return inst->rank != 0;
}

/* Which send block of the source ranks feeds result block j. */
typedef int source_block(const coll_instance *inst, int j);

static int block_0(const coll_instance *inst, int j)
{
    (void)inst, (void)j;
    return 0;
}
static int my_rank_block(const coll_instance *inst, int j)
{
    (void)j;
    return inst->rank;
}
/* On the grid the block a rank receives from its neighbour in one
 * direction is the one that neighbour sends in the opposite direction
 * (blocks 2d and 2d + 1 of dimension d). */
static int opposite_block(const coll_instance *inst, int j)
{
    (void)inst;
    return j ^ 1;
}

typedef struct rule {
    source_ranks *sources; /* NULL: moves no data */
    bool sums;             /* MPI_SUM of the sources' blocks, else exactly one source */
    source_block *block;   /* the sources' block */
    defined_on *defined;
} rule;

static const rule bcast = {root_rank, false, block_0, every_rank};
static const rule reduce = {all_ranks, true, block_0, root_only};
static const rule allreduce = {all_ranks, true, block_0, every_rank};
static const rule allgather = {rank_of_block, false, block_0, every_rank};
static const rule alltoall = {rank_of_block, false, my_rank_block, every_rank};
static const rule gather = {rank_of_block, false, block_0, root_only};
static const rule scatter = {root_rank, false, my_rank_block, every_rank};
static const rule reduce_scatter_block = {all_ranks, true, my_rank_block, every_rank};
static const rule scan = {ranks_up_to_me, true, block_0, every_rank};
static const rule exscan = {ranks_before_me, true, block_0, not_rank_0};
static const rule neighbor_allgather = {neighbor_of_block, false, block_0, every_rank};
static const rule neighbor_alltoall = {neighbor_of_block, false, opposite_block, every_rank};
static const rule no_data = {NULL, false, block_0, every_rank};

/* The rule of each operation (the descriptor's `operation`): a persistent row shares the rule of
 * its nonblocking twin; the v- and w-variants that of their regular twin (their counts are uniform,
 * checked below), ireduce_scatter (uniform recvcounts) that of
 * ireduce_scatter_block. */
static const struct {
    const char *operation;
    const rule *rule;
} rules[] = {
    {"bcast", &bcast},
    {"reduce", &reduce},
    {"allreduce", &allreduce},
    {"allgather", &allgather},
    {"alltoall", &alltoall},
    {"gather", &gather},
    {"scatter", &scatter},
    {"reduce_scatter_block", &reduce_scatter_block},
    {"scan", &scan},
    {"exscan", &exscan},
    {"barrier", &no_data},
    {"allgatherv", &allgather},
    {"alltoallv", &alltoall},
    {"alltoallw", &alltoall},
    {"gatherv", &gather},
    {"scatterv", &scatter},
    {"reduce_scatter", &reduce_scatter_block},
    {"neighbor_allgather", &neighbor_allgather},
    {"neighbor_allgatherv", &neighbor_allgather},
    {"neighbor_alltoall", &neighbor_alltoall},
    {"neighbor_alltoallv", &neighbor_alltoall},
    {"neighbor_alltoallw", &neighbor_alltoall},
};

static const rule *rule_of(const nbc_collective *coll)
{
    if (coll->synthetic)
        return &no_data; /* known-answer stand-ins move no data */
    for (size_t i = 0; coll->operation && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].operation, coll->operation) == 0)
            return rules[i].rule;
    return NULL;
}

/* ---- patterns ---- */

/* MurmurHash3's finalizer: every input bit flips about half the output bits. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t key(uint64_t rank_plus_1, int block, size_t index)
{
    return (uint64_t)index + rank_plus_1 * 0x9e3779b97f4a7c15ULL +
           (uint64_t)(block + 1) * 0xc2b2ae3d27d4eb4fULL;
}

/* Bytes 8w..8w+7 of a block: one hash gives eight bytes (byte k of the
 * block is bits 8 (k % 8) and up of word k / 8). */
static uint64_t byte_word(int rank, int block, size_t word)
{
    return mix64(key((uint64_t)rank + 1, block, word));
}

/* The index term of a double: the same on every rank, so sums stay closed. */
static uint64_t double_index_term(int block, size_t index)
{
    return mix64(key(0, block, index)) >> 54; /* 10 bits: < RANK_WEIGHT */
}

/* Sum of send block `block` at `index` over ranks [first, end): the rank
 * terms (r + 1) * RANK_WEIGHT add up to RANK_WEIGHT * (T(end) - T(first))
 * with T(k) = k (k + 1) / 2. Exact below 2^53: up to ~4 million ranks. */
static double sum_value(int first, int end, int block, size_t index)
{
    uint64_t t_end = (uint64_t)end * (uint64_t)(end + 1) / 2;
    uint64_t t_first = (uint64_t)first * (uint64_t)(first + 1) / 2;
    return (double)(RANK_WEIGHT * (t_end - t_first) +
                    (uint64_t)(end - first) * double_index_term(block, index));
}

/* ---- buffers ---- */

typedef struct check_context {
    const coll_instance *inst;
    const rule *rule;
    bool numbers; /* typed sums (int, double), else bytes whatever the type */
} check_context;

/* One buffer, its blocks and what each element must hold. */
typedef struct buffer_view {
    const char *what; /* for messages, e.g. "receive buffer" */
    void *data;
    int blocks;
    bool is_result; /* holds the rule's result, else this rank's contribution */
} buffer_view;

static bool result_in_send(const nbc_collective *coll)
{
    return coll->recv_blocks == 0 && coll->send_blocks != 0; /* ibcast's one buffer */
}

static int block_total(int block_count, int ranks)
{
    if (block_count == COLL_P)
        return ranks;
    return block_count == COLL_NEIGHBORS ? COLL_GRID_NEIGHBORS : block_count;
}

/* The send buffer (this rank's contribution) and the result buffer. In
 * place the receive buffer holds both (its result blocks are checked; the
 * rest, e.g. reduce_scatter's other input blocks, is undefined after), or
 * at iscatter's root only the send buffer is left. */
static void views(const check_context *c, buffer_view *send, buffer_view *result)
{
    const coll_instance *inst = c->inst;
    const nbc_collective *coll = inst->coll;
    int result_blocks = block_total(coll->recv_blocks, inst->ranks);
    *send = (buffer_view){"send buffer", inst->send, inst->send_blocks, false};
    *result =
        (buffer_view){"receive buffer", inst->recv,
                      result_blocks < inst->recv_blocks ? result_blocks : inst->recv_blocks, true};
    if (!c->rule->sources) {
        send->blocks = result->blocks = 0;
    } else if (result_in_send(coll)) {
        *result = (buffer_view){"broadcast buffer", inst->send, send->blocks, true};
        send->blocks = 0; /* the same memory, checked as the result */
    }
}

/* Ranks [*first, *end) and their send block that block j of the view
 * comes from. */
static void origin_of(const check_context *c, const buffer_view *b, int j, int *first, int *end,
                      int *block)
{
    const coll_instance *inst = c->inst;
    if (!b->is_result) { /* this rank's own block j */
        *first = inst->rank;
        *end = inst->rank + 1;
        *block = j;
        return;
    }
    c->rule->sources(inst, j, first, end);
    *block = c->rule->block(inst, j);
}

/* Byte k of a word is bits 8k..8k+7 whatever the host's byte order (MPI_BYTE
 * is not converted between hosts). */
static uint64_t load_word(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return le64toh(v);
}

static void store_word(unsigned char *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof v);
}

static unsigned byte_at(int rank, int block, size_t index)
{
    return (unsigned)(byte_word(rank, block, index / 8) >> (8 * (index % 8))) & 0xffu;
}

/* The poison of a byte is its complement: wrong at every byte. */
static void write_bytes(unsigned char *d, size_t count, int rank, int block, bool poison)
{
    uint64_t flip = poison ? ~(uint64_t)0 : 0;
    size_t full = count / 8;
    for (size_t w = 0; w < full; w++)
        store_word(d + 8 * w, byte_word(rank, block, w) ^ flip);
    for (size_t i = 8 * full; i < count; i++)
        d[i] = (unsigned char)(byte_at(rank, block, i) ^ (unsigned)flip);
}

static double load_number(const check_context *c, const void *data, size_t i)
{
    if (c->inst->element == COLL_INT)
        return ((const int *)data)[i];
    return ((const double *)data)[i];
}

static void store_number(const check_context *c, void *data, size_t i, double v)
{
    if (c->inst->element == COLL_INT)
        ((int *)data)[i] = (int)v;
    else
        ((double *)data)[i] = v;
}

/* Elements of a block: bytes, or numbers. */
static size_t block_length(const check_context *c)
{
    return c->numbers ? c->inst->elements : c->inst->bytes;
}

/* One block at `to`: the sum over ranks [first, end) of their block
 * `block`, or the poison. */
static void write_block(const check_context *c, void *to, int first, int end, int block,
                        bool poison)
{
    size_t count = block_length(c);
    if (!c->numbers) {
        write_bytes(to, count, first, block, poison);
        return;
    }
    double poison_value = c->inst->element == COLL_INT ? poison_int : poison_double;
    for (size_t i = 0; i < count; i++)
        store_number(c, to, i, poison ? poison_value : sum_value(first, end, block, i));
}

static void *block_address(const check_context *c, void *data, int j)
{
    return (unsigned char *)data + (size_t)j * c->inst->bytes;
}

static void write_view(const check_context *c, const buffer_view *b, bool poison)
{
    for (int j = 0; j < b->blocks; j++) {
        int first, end, block;
        origin_of(c, b, j, &first, &end, &block);
        write_block(c, block_address(c, b->data, j), first, end, block, poison);
    }
}

/* In place the receive buffer starts with this rank's contribution: its
 * send blocks at blocks 0.. (alltoall, reduce_scatter, the one-block
 * reductions), or its one block at block `rank` (allgather, gather). */
static void write_in_place_input(const check_context *c)
{
    const coll_instance *inst = c->inst;
    int inputs = block_total(inst->coll->send_blocks, inst->ranks);
    int at = inputs == 1 && block_total(inst->coll->recv_blocks, inst->ranks) > 1 ? inst->rank : 0;
    for (int j = 0; j < inputs; j++)
        write_block(c, block_address(c, inst->recv, at + j), inst->rank, inst->rank + 1, j, false);
}

/* The first wrong element of a view and how many are wrong. */
typedef struct mismatch {
    size_t wrong, total;
    int block;
    size_t index;
    double expected, got;
} mismatch;

static void note(mismatch *m, int block, size_t index, double expected, double got)
{
    if (m->wrong++ > 0)
        return;
    m->block = block;
    m->index = index;
    m->expected = expected;
    m->got = got;
}

static void compare_bytes(const unsigned char *d, size_t count, int rank, int block, int j,
                          mismatch *m)
{
    size_t full = count / 8;
    for (size_t w = 0; w < full; w++) {
        if (load_word(d + 8 * w) == byte_word(rank, block, w))
            continue;
        for (size_t i = 8 * w; i < 8 * w + 8; i++)
            if (d[i] != byte_at(rank, block, i))
                note(m, j, i, byte_at(rank, block, i), d[i]);
    }
    for (size_t i = 8 * full; i < count; i++)
        if (d[i] != byte_at(rank, block, i))
            note(m, j, i, byte_at(rank, block, i), d[i]);
}

static bool find_mismatch(const check_context *c, const buffer_view *b, mismatch *m)
{
    size_t count = block_length(c);
    *m = (mismatch){.total = (size_t)b->blocks * count};
    for (int j = 0; j < b->blocks; j++) {
        int first, end, block;
        origin_of(c, b, j, &first, &end, &block);
        const void *d = block_address(c, b->data, j);
        if (!c->numbers) {
            compare_bytes(d, count, first, block, j, m);
            continue;
        }
        for (size_t i = 0; i < count; i++) {
            double want = sum_value(first, end, block, i), got = load_number(c, d, i);
            if (got != want)
                note(m, j, i, want, got);
        }
    }
    return m->wrong > 0;
}

static void format_value(const check_context *c, double v, char *out, size_t outlen)
{
    if (c->numbers)
        snprintf(out, outlen, "%.17g", v);
    else
        snprintf(out, outlen, "0x%02x", (unsigned)v);
}

static void report(const check_context *c, const buffer_view *b, const mismatch *m, char *err,
                   size_t errlen)
{
    const char *unit = c->numbers ? "element" : "byte";
    int first, end, block;
    origin_of(c, b, m->block, &first, &end, &block);
    char source[96], expected[32], got[32];
    if (!b->is_result)
        snprintf(source, sizeof source, "this rank's data");
    else if (c->rule->sums)
        snprintf(source, sizeof source, "sum of block %d over ranks %d..%d", block, first, end - 1);
    else
        snprintf(source, sizeof source, "sent by rank %d as its block %d", first, block);
    format_value(c, m->expected, expected, sizeof expected);
    format_value(c, m->got, got, sizeof got);
    snprintf(err, errlen,
             "data check failed: %s rank %d %s %zu of the %s (block %d index %zu, %s): "
             "expected %s got %s; %zu of %zu %ss wrong",
             c->inst->coll->name, c->inst->rank, unit,
             (size_t)m->block * block_length(c) + m->index, b->what, m->block, m->index, source,
             expected, got, m->wrong, m->total, unit);
}

/* Block j at j x count: what the per-peer counts and displacements
 * describe as prepared (coll_instance_prepare), in the calls' units. */
static int check_uniform_layout(const coll_instance *inst, char *err, size_t errlen)
{
    const coll_counts_c *n = &inst->n_c;
    for (int r = 0; n->counts && n->displs && r < inst->peers; r++) {
        bool large_right = n->counts[r] == n->count && n->displs[r] == (MPI_Aint)r * n->count &&
                           n->byte_displs[r] == (MPI_Aint)((size_t)r * inst->bytes);
        bool int_right =
            inst->large ||
            (inst->n.counts[r] == inst->n.count && inst->n.displs[r] == r * inst->n.count &&
             (inst->n.byte_displs[r] < 0 ||
              (size_t)inst->n.byte_displs[r] == (size_t)r * inst->bytes));
        if (large_right && int_right)
            continue;
        snprintf(err, errlen,
                 "data check: %s: peer %d's count %lld and displacement %lld are not the "
                 "uniform %lld and %lld the check assumes",
                 inst->coll->name, r, (long long)n->counts[r], (long long)n->displs[r],
                 (long long)n->count, (long long)r * (long long)n->count);
        return -1;
    }
    return 0;
}

/* ---- API ---- */

int nbc_datacheck_supports(const nbc_collective *coll, char *err, size_t errlen)
{
    if (coll->scenario) { /* a scenario: every part */
        for (int i = 0; i < coll->scenario->part_count; i++)
            if (nbc_datacheck_supports(nbc_scenario_part(coll, i), err, errlen) != 0)
                return -1;
        return 0;
    }
    const rule *r = rule_of(coll);
    if (!r) {
        snprintf(err, errlen,
                 "data check: no rule for collective '%s' (add one to "
                 "bench_nbc/collectives/datacheck.c)",
                 coll->name);
        return -1;
    }
    if (coll->synthetic)
        return 0;
    bool no_buffers = coll->send_blocks == 0 && coll->recv_blocks == 0;
    bool uses_root = r->sources == root_rank || r->defined == root_only;
    int result_blocks = result_in_send(coll) ? coll->send_blocks : coll->recv_blocks;
    source_ranks *per_block_source = result_blocks == COLL_P           ? rank_of_block
                                     : result_blocks == COLL_NEIGHBORS ? neighbor_of_block
                                                                       : NULL;
    bool per_block = r->sources == rank_of_block || r->sources == neighbor_of_block;
    source_block *send_block = coll->send_blocks == COLL_P           ? my_rank_block
                               : coll->send_blocks == COLL_NEIGHBORS ? opposite_block
                                                                     : block_0;
    const char *contradiction = NULL;
    if ((r->sources == NULL) != no_buffers)
        contradiction = "they disagree on moving data";
    else if (r->sums != coll->reduces)
        contradiction = "they disagree on reducing";
    else if (uses_root != coll->has_root)
        contradiction = "they disagree on having a root";
    else if (r->sources && (per_block || per_block_source) && r->sources != per_block_source)
        contradiction = "they disagree on one result block per rank or neighbour";
    else if (r->sources && r->block != send_block)
        contradiction = "they disagree on the send blocks";
    if (contradiction) {
        snprintf(err, errlen,
                 "data check: the rule for '%s' contradicts its descriptor: %s (fix "
                 "bench_nbc/collectives/datacheck.c or the table)",
                 coll->name, contradiction);
        return -1;
    }
    return 0;
}

static int context_of(const coll_instance *inst, check_context *c, char *err, size_t errlen)
{
    if (nbc_datacheck_supports(inst->coll, err, errlen) != 0)
        return -1;
    *c = (check_context){.inst = inst, .rule = rule_of(inst->coll), .numbers = inst->coll->reduces};
    return 0;
}

int nbc_datacheck_fill(coll_instance *inst)
{
    if (inst->parts) { /* a scenario: every part */
        for (int i = 0; i < inst->part_count; i++)
            if (nbc_datacheck_fill(&inst->parts[i]) != 0)
                return -1;
        return 0;
    }
    check_context c;
    char ignored[1]; /* nbc_datacheck_supports gives the message */
    if (context_of(inst, &c, ignored, sizeof ignored) != 0)
        return -1;
    buffer_view send, result;
    views(&c, &send, &result);
    write_view(&c, &send, false);
    if (inst->in_place && inst->coll->in_place == COLL_IN_PLACE_SEND && c.rule->sources) {
        /* Every block of the in-place buffer is poisoned, then gets the input. */
        buffer_view whole = result;
        whole.blocks = inst->recv_blocks;
        write_view(&c, &whole, true);
        write_in_place_input(&c);
        return 0;
    }
    /* The result buffer is poisoned, except the root's broadcast buffer:
     * the data it broadcasts. */
    bool root_broadcast = result_in_send(inst->coll) && inst->rank == inst->root;
    write_view(&c, &result, !root_broadcast);
    return 0;
}

int nbc_datacheck_verify(const coll_instance *inst, char *err, size_t errlen)
{
    if (inst->parts) {
        for (int i = 0; i < inst->part_count; i++)
            if (nbc_datacheck_verify(&inst->parts[i], err, errlen) != 0)
                return -1;
        return 0;
    }
    check_context c;
    if (context_of(inst, &c, err, errlen) != 0 || check_uniform_layout(inst, err, errlen) != 0)
        return -1;
    buffer_view send, result;
    views(&c, &send, &result);
    mismatch m;
    if (c.rule->defined(inst) && find_mismatch(&c, &result, &m)) {
        report(&c, &result, &m, err, errlen);
        return -1;
    }
    /* MPI never writes a send buffer: a change means a wrong buffer was
     * passed or the library misbehaved. */
    if (find_mismatch(&c, &send, &m)) {
        report(&c, &send, &m, err, errlen);
        return -1;
    }
    return 0;
}
