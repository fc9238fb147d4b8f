/* Unit tests of how the sweep spreads a cell's blocks over its visits
 * (bench_nbc/measure/visit_plan.c): the planned visits share exactly
 * run.repetitions blocks, evenly; later visits (adaptive stopping) bring one
 * Williams cycle each; the visits a cell made follow from its blocks (what
 * --resume counts warm-ups by); chunks cover the sweep's cells once, at most
 * NBC_VISIT_SPAN each, sizes within one of each other. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bench_nbc/measure/visit_plan.h"

enum { CYCLE = 6 };

static void planned_visits_share_the_repetitions(void **state)
{
    (void)state;
    for (int reps = 1; reps <= 40; reps++)
        for (int visits = 1; visits <= 8; visits++) {
            int planned = nbc_planned_visits(reps, visits), sum = 0, least = reps, most = 0;
            assert_int_equal(planned, visits < reps ? visits : reps);
            for (int v = 0; v < planned; v++) {
                int b = nbc_visit_blocks(reps, visits, CYCLE, v);
                assert_true(b >= 1);
                sum += b;
                least = b < least ? b : least;
                most = b > most ? b : most;
                /* the first visits take the remainder */
                if (v > 0)
                    assert_true(b <= nbc_visit_blocks(reps, visits, CYCLE, v - 1));
            }
            assert_int_equal(sum, reps);
            assert_true(most - least <= 1);
            assert_int_equal(nbc_visit_blocks(reps, visits, CYCLE, planned), CYCLE);
        }
    assert_int_equal(nbc_visit_blocks(6, 2, CYCLE, 0), 3);
    assert_int_equal(nbc_visit_blocks(7, 2, CYCLE, 0), 4);
    assert_int_equal(nbc_visit_blocks(7, 2, CYCLE, 1), 3);
    assert_int_equal(nbc_visit_blocks(12, 1, CYCLE, 0), 12);
}

static void visits_made_follow_from_the_blocks(void **state)
{
    (void)state;
    assert_int_equal(nbc_visits_made(6, 1, CYCLE, 6), 1);
    assert_int_equal(nbc_visits_made(6, 2, CYCLE, 0), 1);
    assert_int_equal(nbc_visits_made(6, 2, CYCLE, 3), 1);
    assert_int_equal(nbc_visits_made(6, 2, CYCLE, 4), 2);
    assert_int_equal(nbc_visits_made(6, 2, CYCLE, 6), 2);
    /* adaptive: 12 = 6 + 6 planned, then a visit per cycle */
    assert_int_equal(nbc_visits_made(12, 2, CYCLE, 18), 3);
    assert_int_equal(nbc_visits_made(12, 2, CYCLE, 24), 4);
    for (int reps = 1; reps <= 20; reps++)
        for (int visits = 1; visits <= 5; visits++) {
            int done = 0;
            for (int v = 0; v < 8; v++) {
                done += nbc_visit_blocks(reps, visits, CYCLE, v);
                assert_int_equal(nbc_visits_made(reps, visits, CYCLE, done), v + 1);
            }
        }
}

static void chunks_cover_the_sweep(void **state)
{
    (void)state;
    for (size_t cells = 0; cells <= 200; cells++) {
        size_t chunks = nbc_chunk_count(cells), least = cells, most = 0;
        assert_true(chunks >= 1);
        assert_int_equal(nbc_chunk_start(cells, 0), 0);
        assert_int_equal(nbc_chunk_start(cells, chunks), cells);
        for (size_t k = 0; k < chunks; k++) {
            size_t size = nbc_chunk_start(cells, k + 1) - nbc_chunk_start(cells, k);
            assert_true(size <= NBC_VISIT_SPAN);
            least = size < least ? size : least;
            most = size > most ? size : most;
        }
        assert_true(most - least <= 1);
        if (cells <= NBC_VISIT_SPAN)
            assert_int_equal(chunks, 1);
    }
    /* 26 cells: two chunks of 13, not 25 and 1 */
    assert_int_equal(nbc_chunk_start(26, 1), 13);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(planned_visits_share_the_repetitions),
        cmocka_unit_test(visits_made_follow_from_the_blocks),
        cmocka_unit_test(chunks_cover_the_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
