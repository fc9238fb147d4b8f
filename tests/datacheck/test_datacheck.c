/* Unit tests of the data check without communication: the instances of all
 * ranks live in this process, the test moves the data the way the MPI
 * standard says each collective does (sums computed from the filled send
 * buffers, not from the check's closed form), then breaks it the ways real
 * bugs would: a missing transfer, a shifted segment, swapped blocks, the
 * wrong block, a rank counted twice, scan and exscan confused, a modified
 * send buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench_nbc/collectives/collectives.h"
#include "bench_nbc/collectives/datacheck.h"

enum { MAX_RANKS = 4 };

typedef struct group {
    coll_instance rank[MAX_RANKS];
    int ranks;
    char err[512];
} group;

static int block_total(int blocks, int ranks)
{
    if (blocks == COLL_P)
        return ranks;
    return blocks == COLL_NEIGHBORS ? COLL_GRID_NEIGHBORS : blocks;
}

/* What coll_instance_prepare sets up, without MPI, with the defaults
 * (root 0, auto datatype, not in place). */
static void group_make(group *g, const char *name, int ranks, int count)
{
    const nbc_collective *coll = nbc_collective_find(name);
    assert_non_null(coll);
    size_t element = coll->reduces ? sizeof(double) : 1;
    g->ranks = ranks;
    for (int r = 0; r < ranks; r++) {
        coll_instance *inst = &g->rank[r];
        *inst = (coll_instance){.coll = coll, .rank = r, .ranks = ranks, .elements = (size_t)count};
        inst->element = coll->reduces ? COLL_DOUBLE : COLL_BYTE;
        inst->element_bytes = element;
        inst->bytes = (size_t)count * element;
        inst->peers = ranks;
        inst->send_blocks = block_total(coll->send_blocks, ranks);
        inst->recv_blocks = block_total(coll->recv_blocks, ranks);
        inst->send_bytes = (size_t)inst->send_blocks * inst->bytes;
        inst->recv_bytes = (size_t)inst->recv_blocks * inst->bytes;
        inst->send = malloc(inst->send_bytes + 1);
        inst->recv = malloc(inst->recv_bytes + 1);
        coll_counts *n = &inst->n;
        coll_counts_c *n_c = &inst->n_c;
        n->count = count;
        n_c->count = count;
        n->counts = malloc((size_t)ranks * sizeof(int));
        n->displs = malloc((size_t)ranks * sizeof(int));
        n->byte_displs = malloc((size_t)ranks * sizeof(int));
        n_c->counts = malloc((size_t)ranks * sizeof(MPI_Count));
        n_c->displs = malloc((size_t)ranks * sizeof(MPI_Aint));
        n_c->byte_displs = malloc((size_t)ranks * sizeof(MPI_Aint));
        assert_true(inst->send && inst->recv && n->counts && n->displs && n->byte_displs &&
                    n_c->counts && n_c->displs && n_c->byte_displs);
        for (int j = 0; j < ranks; j++) {
            n->counts[j] = count;
            n->displs[j] = j * count;
            n->byte_displs[j] = j * (int)inst->bytes;
            n_c->counts[j] = count;
            n_c->displs[j] = j * count;
            n_c->byte_displs[j] = j * (MPI_Aint)inst->bytes;
        }
        assert_int_equal(nbc_datacheck_fill(inst), 0);
    }
}

static void group_free(group *g)
{
    for (int r = 0; r < g->ranks; r++) {
        coll_instance *inst = &g->rank[r];
        free(inst->send);
        free(inst->recv);
        free(inst->n.counts);
        free(inst->n.displs);
        free(inst->n.byte_displs);
        free(inst->n_c.counts);
        free(inst->n_c.displs);
        free(inst->n_c.byte_displs);
    }
}

static int verify(group *g, int r)
{
    g->err[0] = '\0';
    return nbc_datacheck_verify(&g->rank[r], g->err, sizeof g->err);
}

static void assert_all_pass(group *g)
{
    for (int r = 0; r < g->ranks; r++)
        if (verify(g, r) != 0)
            fail_msg("rank %d: %s", r, g->err);
}

static void assert_fails_with(group *g, int r, const char *text)
{
    assert_int_equal(verify(g, r), -1);
    if (!strstr(g->err, text))
        fail_msg("rank %d: '%s' does not contain '%s'", r, g->err, text);
}

static unsigned char *block_of(void *buf, const coll_instance *inst, int j)
{
    return (unsigned char *)buf + (size_t)j * inst->bytes;
}

/* Data movement: result block j of rank r := send block `block(r, j)` of
 * rank `source(r, j)`. */
static void move_blocks(group *g, int (*source)(int r, int j), int (*block)(int r, int j))
{
    for (int r = 0; r < g->ranks; r++) {
        coll_instance *to = &g->rank[r];
        for (int j = 0; j < block_total(to->coll->recv_blocks, g->ranks); j++) {
            const coll_instance *from = &g->rank[source(r, j)];
            memcpy(block_of(to->recv, to, j), block_of(from->send, from, block(r, j)), to->bytes);
        }
    }
}
static int rank_j(int r, int j)
{
    (void)r;
    return j;
}
static int block_0(int r, int j)
{
    (void)r, (void)j;
    return 0;
}
static int block_r(int r, int j)
{
    (void)j;
    return r;
}

/* Reductions: result of rank r := sum over ranks [first(r), end(r)) of their
 * send block `block(r)`, plus `extra` (a rank counted twice). */
static void sum_blocks(group *g, int (*first)(int r, int ranks), int (*end)(int r, int ranks),
                       int (*block)(int r, int j), int extra_rank)
{
    for (int r = 0; r < g->ranks; r++) {
        coll_instance *to = &g->rank[r];
        for (int i = 0; i < (int)to->elements; i++) {
            double sum = 0;
            for (int k = first(r, g->ranks); k < end(r, g->ranks); k++)
                sum += ((double *)block_of(g->rank[k].send, &g->rank[k], block(r, 0)))[i];
            if (extra_rank >= 0)
                sum += ((double *)block_of(g->rank[extra_rank].send, &g->rank[extra_rank],
                                           block(r, 0)))[i];
            ((double *)to->recv)[i] = sum;
        }
    }
}
static int zero(int r, int ranks)
{
    (void)r, (void)ranks;
    return 0;
}
static int all(int r, int ranks)
{
    (void)r;
    return ranks;
}
static int up_to_me(int r, int ranks)
{
    (void)ranks;
    return r + 1;
}
static int before_me(int r, int ranks)
{
    (void)ranks;
    return r;
}

static void every_descriptor_is_supported(void **state)
{
    (void)state;
    size_t count;
    const nbc_collective *table = nbc_collectives(&count);
    char err[256];
    for (size_t i = 0; i < count; i++)
        if (nbc_datacheck_supports(&table[i], err, sizeof err) != 0)
            fail_msg("%s", err);
}

static void unknown_or_contradicting_rules_are_named(void **state)
{
    (void)state;
    char err[256];
    nbc_collective mystery = *nbc_collective_find("iallgather");
    mystery.name = "imystery";
    mystery.operation = "mystery";
    assert_int_equal(nbc_datacheck_supports(&mystery, err, sizeof err), -1);
    assert_non_null(strstr(err, "no rule for collective 'imystery'"));
    nbc_collective reducing = *nbc_collective_find("iallgather");
    reducing.reduces = true;
    assert_int_equal(nbc_datacheck_supports(&reducing, err, sizeof err), -1);
    assert_non_null(strstr(err, "rule for 'iallgather' contradicts its descriptor"));
    nbc_collective rootless = *nbc_collective_find("iscatter");
    rootless.has_root = false;
    assert_int_equal(nbc_datacheck_supports(&rootless, err, sizeof err), -1);
    assert_non_null(strstr(err, "root"));
}

/* Broadcast: poison caught; segments shifted by 256, 1024 or 4096 bytes
 * (pipelined algorithms) caught at the first byte of the shifted segment. */
static void bcast_missing_data_and_shifted_segments(void **state)
{
    (void)state;
    static const size_t shifts[] = {256, 1024, 4096};
    group g;
    group_make(&g, "ibcast", 3, 3 * 4096 + 1);
    assert_int_equal(verify(&g, 0), 0); /* the root holds its data */
    assert_fails_with(&g, 1, "ibcast rank 1 byte 0 of the broadcast buffer");
    assert_fails_with(&g, 2, "12289 of 12289 bytes wrong");
    for (int r = 1; r < 3; r++)
        memcpy(g.rank[r].send, g.rank[0].send, g.rank[0].bytes);
    assert_all_pass(&g);
    for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
        unsigned char *to = g.rank[2].send, *from = g.rank[0].send;
        memcpy(to + shifts[s], from, shifts[s]); /* segment 0 written at segment 1 */
        char where[64];
        snprintf(where, sizeof where, "byte %zu of", shifts[s]);
        assert_fails_with(&g, 2, where);
        memcpy(to, from, g.rank[0].bytes);
    }
    group_free(&g);
}

static void allgather_swapped_blocks(void **state)
{
    (void)state;
    group g;
    group_make(&g, "iallgather", 3, 7);
    move_blocks(&g, rank_j, block_0);
    assert_all_pass(&g);
    unsigned char tmp[7];
    coll_instance *r0 = &g.rank[0];
    memcpy(tmp, block_of(r0->recv, r0, 1), 7);
    memcpy(block_of(r0->recv, r0, 1), block_of(r0->recv, r0, 2), 7);
    memcpy(block_of(r0->recv, r0, 2), tmp, 7);
    assert_fails_with(&g, 0, "byte 7 of the receive buffer (block 1 index 0, sent by rank 1");
    assert_fails_with(&g, 0, "14 of 21 bytes wrong");
    group_free(&g);
}

static void alltoall_wrong_block(void **state)
{
    (void)state;
    group g;
    group_make(&g, "ialltoall", 3, 5);
    move_blocks(&g, rank_j, block_0); /* every peer's block 0, as in allgather */
    assert_int_equal(verify(&g, 0), 0);
    assert_fails_with(&g, 1, "(block 0 index 0, sent by rank 0 as its block 1)");
    move_blocks(&g, rank_j, block_r);
    assert_all_pass(&g);
    group_free(&g);
}

static void scatter_and_gather(void **state)
{
    (void)state;
    group g;
    group_make(&g, "iscatterv", 3, 9);
    assert_fails_with(&g, 0, "iscatterv rank 0 byte 0 of the receive buffer");
    for (int r = 0; r < 3; r++)
        memcpy(g.rank[r].recv, block_of(g.rank[0].send, &g.rank[0], r), 9);
    assert_all_pass(&g);
    group_free(&g);
    group_make(&g, "igather", 3, 9);
    for (int j = 0; j < 3; j++)
        memcpy(block_of(g.rank[0].recv, &g.rank[0], j), g.rank[j].send, 9);
    assert_all_pass(&g); /* non-root receive buffers are still poisoned: undefined */
    memset(g.rank[0].recv, 0, 1);
    assert_fails_with(&g, 0, "igather rank 0 byte 0");
    group_free(&g);
}

static void reductions_count_every_rank_once(void **state)
{
    (void)state;
    group g;
    group_make(&g, "iallreduce", 4, 33);
    sum_blocks(&g, zero, all, block_0, -1);
    assert_all_pass(&g);
    sum_blocks(&g, zero, all, block_0, 2);
    assert_fails_with(&g, 3,
                      "iallreduce rank 3 element 0 of the receive buffer (block 0 index 0, "
                      "sum of block 0 over ranks 0..3)");
    group_free(&g);
    group_make(&g, "ireduce", 4, 33);
    sum_blocks(&g, zero, all, block_0, -1);
    ((double *)g.rank[1].recv)[0] = 12345.5; /* off the root: undefined */
    assert_all_pass(&g);
    group_free(&g);
    group_make(&g, "ireduce_scatter_block", 4, 3);
    sum_blocks(&g, zero, all, block_0, -1);
    assert_int_equal(verify(&g, 0), 0);
    assert_fails_with(&g, 2, "sum of block 2 over ranks 0..3");
    sum_blocks(&g, zero, all, block_r, -1);
    assert_all_pass(&g);
    group_free(&g);
}

static void scan_and_exscan_are_not_confused(void **state)
{
    (void)state;
    group g;
    group_make(&g, "iscan", 4, 17);
    sum_blocks(&g, zero, before_me, block_0, -1);
    assert_fails_with(&g, 0, "iscan rank 0 element 0");
    sum_blocks(&g, zero, up_to_me, block_0, -1);
    assert_all_pass(&g);
    group_free(&g);
    group_make(&g, "iexscan", 4, 17);
    sum_blocks(&g, zero, up_to_me, block_0, -1);
    assert_int_equal(verify(&g, 0), 0); /* rank 0: undefined */
    assert_fails_with(&g, 1, "sum of block 0 over ranks 0..0");
    sum_blocks(&g, zero, before_me, block_0, -1);
    assert_all_pass(&g);
    group_free(&g);
}

static void send_buffer_must_stay_intact(void **state)
{
    (void)state;
    group g;
    group_make(&g, "ialltoallv", 2, 11);
    move_blocks(&g, rank_j, block_r);
    assert_all_pass(&g);
    ((unsigned char *)g.rank[1].send)[13] ^= 0x80;
    assert_fails_with(&g, 1, "byte 13 of the send buffer (block 1 index 2, this rank's data)");
    group_free(&g);
}

/* A restarted (persistent) request that delivers nothing new must not pass
 * on the data of the previous start. */
static void fill_poisons_again_before_each_start(void **state)
{
    (void)state;
    group g;
    group_make(&g, "iallgather", 2, 3);
    move_blocks(&g, rank_j, block_0);
    assert_all_pass(&g);
    assert_int_equal(nbc_datacheck_fill(&g.rank[1]), 0);
    assert_fails_with(&g, 1, "6 of 6 bytes wrong");
    group_free(&g);
}

static void non_uniform_counts_are_refused(void **state)
{
    (void)state;
    group g;
    group_make(&g, "iallgatherv", 2, 4);
    move_blocks(&g, rank_j, block_0);
    g.rank[0].n_c.counts[1] = 3;
    assert_fails_with(&g, 0, "peer 1's count 3 and displacement 4 are not the uniform 4 and 4");
    group_free(&g);
}

static void no_data_means_nothing_to_check(void **state)
{
    (void)state;
    size_t count;
    const nbc_collective *table = nbc_collectives(&count);
    int seen = 0;
    for (size_t i = 0; i < count; i++) {
        if (table[i].send_blocks != 0 || table[i].recv_blocks != 0)
            continue;
        group g;
        group_make(&g, table[i].name, 2, 0);
        assert_all_pass(&g);
        group_free(&g);
        seen++;
    }
    assert_true(seen > 0); /* ibarrier at least */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_descriptor_is_supported),
        cmocka_unit_test(unknown_or_contradicting_rules_are_named),
        cmocka_unit_test(bcast_missing_data_and_shifted_segments),
        cmocka_unit_test(allgather_swapped_blocks),
        cmocka_unit_test(alltoall_wrong_block),
        cmocka_unit_test(scatter_and_gather),
        cmocka_unit_test(reductions_count_every_rank_once),
        cmocka_unit_test(scan_and_exscan_are_not_confused),
        cmocka_unit_test(send_buffer_must_stay_intact),
        cmocka_unit_test(fill_poisons_again_before_each_start),
        cmocka_unit_test(non_uniform_counts_are_refused),
        cmocka_unit_test(no_data_means_nothing_to_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
