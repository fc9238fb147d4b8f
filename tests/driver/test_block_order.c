/* Unit tests of the kinds a block measures and their order
 * (bench_nbc/measure/block_order.c), over many simulated cells: every kind, null
 * control or not, must have the overlap step's predecessors (never its own
 * measure inside a triple, each of the two others equally often, first of
 * a triple a third of the time), and the warm-up and plain blocks the three
 * kinds once each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "bench_nbc/measure/block_order.h"

enum { CELLS = 2000, BLOCKS = 12 };

/* Per named kind: occurrences first in their triple, and, inside a triple,
 * occurrences after each measure (comm_ref, comp_ref, overlap). */
typedef struct predecessors {
    long first[KIND_COUNT];
    long after[KIND_COUNT][KIND_MAIN_COUNT];
    long total[KIND_COUNT];
} predecessors;

static void count_blocks(double null_share, predecessors *p)
{
    *p = (predecessors){0};
    uint64_t state = 12345;
    for (int c = 0; c < CELLS; c++) {
        nbc_block_orders orders;
        nbc_block_orders_init(&orders, null_share, &state);
        for (int block = 0; block <= BLOCKS; block++) {
            nbc_kind seq[KIND_COUNT];
            int n = nbc_block_sequence(&orders, block, seq);
            assert_int_equal(n, nbc_null_block(null_share, block) ? KIND_COUNT : KIND_MAIN_COUNT);
            int seen[KIND_COUNT] = {0};
            for (int i = 0; i < n; i++)
                seen[seq[i]]++;
            for (int k = 0; k < n; k++)
                assert_int_equal(seen[k], 1); /* each kind of the block once */
            if (block == 0)
                continue; /* the warm-up is never used */
            for (int i = 0; i < n; i++) {
                p->total[seq[i]]++;
                if (i % KIND_MAIN_COUNT == 0)
                    p->first[seq[i]]++;
                else
                    p->after[seq[i]][nbc_kind_measures(seq[i - 1])]++;
            }
        }
    }
}

/* A share of n draws whose truth is `truth`: within 5 standard errors
 * (a chance failure has a probability below 1e-6). */
static void assert_share(long count, long n, double truth, const char *what, nbc_kind kind)
{
    double share = (double)count / (double)n, se = sqrt(truth * (1 - truth) / (double)n);
    if (fabs(share - truth) > 5 * se)
        fail_msg("%s: %s %.4f over %ld, expected %.4f +- %.4f", nbc_kind_names[kind], what, share,
                 n, truth, 5 * se);
}

static void check_like_overlap(double null_share)
{
    predecessors p;
    count_blocks(null_share, &p);
    for (int k = 0; k < KIND_COUNT; k++) {
        if (p.total[k] == 0)
            continue;
        nbc_kind own = nbc_kind_measures((nbc_kind)k);
        /* Never after its own measure inside a triple (a comp_ref right
         * after comp_null runs on warm caches). */
        assert_int_equal(p.after[k][own], 0);
        assert_share(p.first[k], p.total[k], 1.0 / 3, "first of its triple", (nbc_kind)k);
        long inside = p.total[k] - p.first[k];
        for (int m = 0; m < KIND_MAIN_COUNT; m++)
            if (m != (int)own)
                assert_share(p.after[k][m], inside, 0.5, "after another measure", (nbc_kind)k);
    }
}

static void test_plain_blocks(void **state)
{
    (void)state;
    check_like_overlap(0);
}

static void test_null_blocks_every_other(void **state)
{
    (void)state;
    check_like_overlap(0.5);
}

static void test_null_blocks_all(void **state)
{
    (void)state;
    check_like_overlap(1);
}

/* A reference and its null control are exchangeable: each sits in the
 * second triple half the time. */
static void test_null_exchangeable(void **state)
{
    (void)state;
    uint64_t random_state = 99;
    long second[KIND_COUNT] = {0}, blocks = 0;
    for (int c = 0; c < CELLS; c++) {
        nbc_block_orders orders;
        nbc_block_orders_init(&orders, 1, &random_state);
        for (int block = 1; block <= BLOCKS; block++) {
            nbc_kind seq[KIND_COUNT];
            (void)nbc_block_sequence(&orders, block, seq);
            for (int i = KIND_MAIN_COUNT; i < KIND_COUNT; i++)
                second[seq[i]]++;
            blocks++;
        }
    }
    for (int k = 0; k < KIND_COUNT; k++)
        assert_share(second[k], blocks, 0.5, "in the second triple", (nbc_kind)k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_blocks),
        cmocka_unit_test(test_null_blocks_every_other),
        cmocka_unit_test(test_null_blocks_all),
        cmocka_unit_test(test_null_exchangeable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
