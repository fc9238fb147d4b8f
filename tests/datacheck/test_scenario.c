/* Unit tests of the scenarios (bench_nbc/collectives/scenario.c) without
 * communication: the shipped table's shape, a part of fixed bytes (its size
 * whatever S is, outside S's unit and the S a limit allows), the parts'
 * description, and the offering rule over a fake operation table (a
 * scenario with a part the library lacks is not offered, and its refusal
 * names that part). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench_nbc/collectives/collectives.h"

static const nbc_collective *scenario_named(const char *name)
{
    const nbc_collective *coll = nbc_collective_find(name);
    assert_non_null(coll);
    assert_non_null(coll->scenario);
    return coll;
}

/* Every part is exactly one of a weight and a fixed size, every scenario
 * has a weighted part (S must move something), and its operations exist. */
static void shipped_scenarios_are_well_formed(void **state)
{
    (void)state;
    size_t n;
    const nbc_collective *scenarios = nbc_scenarios(&n);
    assert_true(n >= 4);
    for (size_t i = 0; i < n; i++) {
        const nbc_scenario *sc = scenarios[i].scenario;
        assert_non_null(sc);
        assert_in_range(sc->part_count, 1, SCENARIO_MAX_PARTS);
        int weighted = 0;
        for (int p = 0; p < sc->part_count; p++) {
            const scenario_part *part = &sc->parts[p];
            assert_non_null(nbc_scenario_part(&scenarios[i], p));
            assert_true((part->weight > 0) != (part->fixed_bytes > 0));
            weighted += part->weight > 0;
        }
        assert_true(weighted >= 1);
    }
}

static void fixed_part_keeps_its_bytes(void **state)
{
    (void)state;
    const nbc_collective *halo = scenario_named("scenario_halo_reduce");
    const scenario_part *exchange = &halo->scenario->parts[0], *norms = &halo->scenario->parts[1];
    assert_string_equal(norms->collective, "iallreduce");
    assert_int_equal(norms->fixed_bytes, 64);
    for (size_t s = 1024; s <= (size_t)1 << 30; s <<= 10) {
        assert_int_equal(nbc_scenario_part_bytes(exchange, s), s);
        assert_int_equal(nbc_scenario_part_bytes(norms, s), 64);
    }
    /* S's unit is the weighted parts' element only: the halo's bytes, not
     * the norms' doubles. */
    coll_options options = {.root = 0, .datatype = COLL_AUTO, .in_place = false};
    assert_int_equal(nbc_collective_unit_bytes(halo, &options), 1);
    /* Buffers: the halo's at S plus the norms' at 64 bytes, at any S. */
    const nbc_collective *alltoall = nbc_operation_find("ineighbor_alltoall");
    const nbc_collective *allreduce = nbc_operation_find("iallreduce");
    for (uint64_t s = 4096; s <= 1 << 20; s <<= 8)
        assert_int_equal(nbc_collective_buffer_bytes(halo, &options, s, 4),
                         nbc_collective_buffer_bytes(alltoall, &options, s, 4) +
                             nbc_collective_buffer_bytes(allreduce, &options, 64, 4));
    /* The largest buffer in blocks of S is the halo's (the norms hold none). */
    assert_int_equal(nbc_collective_largest_buffer_blocks(halo, &options, 4),
                     nbc_collective_largest_buffer_blocks(alltoall, &options, 4));
}

/* A part's own byte limit as a limit on S: divided by the weight; a fixed
 * part allows every S or none. */
static void part_limits_become_limits_on_s(void **state)
{
    (void)state;
    scenario_part half = {"iallreduce", SCENARIO_COMM_RUN, 0.5, 0};
    scenario_part whole = {"iallreduce", SCENARIO_COMM_RUN, 1.0, 0};
    scenario_part fixed = {"iallreduce", SCENARIO_COMM_RUN, 0, 64};
    assert_int_equal(scenario_s_of_part_bytes(&half, 1000), 2000);
    assert_int_equal(scenario_s_of_part_bytes(&whole, 1000), 1000);
    assert_int_equal(scenario_s_of_part_bytes(&fixed, 64), SIZE_MAX);
    assert_int_equal(scenario_s_of_part_bytes(&fixed, 63), 0);
    assert_int_equal(scenario_s_of_part_bytes(&whole, SIZE_MAX), SIZE_MAX);
}

static void parts_are_described_from_the_descriptor(void **state)
{
    (void)state;
    char text[512];
    nbc_scenario_describe_parts(scenario_named("scenario_halo_reduce"), text, sizeof text);
    assert_string_equal(text, "ineighbor_alltoall (S, run) + iallreduce (64 bytes, dup)");
    nbc_scenario_describe_parts(scenario_named("scenario_two_comms"), text, sizeof text);
    assert_string_equal(text, "iallreduce (S, dup) + iallreduce (S, half)");
    static const nbc_scenario weighted = {.parts = {{"ibcast", SCENARIO_COMM_RUN, 0.25, 0}},
                                          .part_count = 1};
    nbc_collective one = {.name = "scenario_quarter", .scenario = &weighted};
    nbc_scenario_describe_parts(&one, text, sizeof text);
    assert_string_equal(text, "ibcast (0.25 S, run)");
    char buffers[512];
    coll_options options = {.root = 0, .datatype = COLL_AUTO, .in_place = false};
    nbc_collective_describe_buffers(scenario_named("scenario_halo_reduce"), &options, 4, buffers,
                                    sizeof buffers);
    assert_non_null(strstr(buffers, "iallreduce: "));
    assert_non_null(strstr(buffers, "(S = 64 bytes)"));
}

/* ---- the offering rule over a fake operation table ---- */

/* A library of MPI-3 only: nonblocking collectives, no persistent ones. */
static const nbc_collective fake_ops[] = {{.name = "ibcast"}, {.name = "iallreduce"}};
static const nbc_collective *fake_find(const char *name)
{
    for (size_t i = 0; i < sizeof fake_ops / sizeof *fake_ops; i++)
        if (strcmp(fake_ops[i].name, name) == 0)
            return &fake_ops[i];
    return NULL;
}

static const nbc_scenario runs_here = {
    .parts = {{"ibcast", SCENARIO_COMM_RUN, 1.0, 0}, {"iallreduce", SCENARIO_COMM_DUP, 0, 64}},
    .part_count = 2};
static const nbc_scenario needs_mpi4 = {
    .parts = {{"iallreduce", SCENARIO_COMM_RUN, 1.0, 0}, {"bcast_init", SCENARIO_COMM_DUP, 1.0, 0}},
    .part_count = 2};

static void a_scenario_with_a_missing_part_is_not_offered(void **state)
{
    (void)state;
    const nbc_collective candidates[] = {
        {.name = "scenario_persistent", .scenario = &needs_mpi4},
        {.name = "scenario_here", .scenario = &runs_here},
    };
    nbc_collective offered[2];
    size_t n = nbc_scenarios_offer(candidates, 2, fake_find, offered);
    assert_int_equal(n, 1);
    assert_string_equal(offered[0].name, "scenario_here");
    const scenario_part *missing = nbc_scenario_missing_part(&candidates[0], fake_find);
    assert_non_null(missing);
    assert_string_equal(missing->collective, "bcast_init");
    assert_null(nbc_scenario_missing_part(&candidates[1], fake_find));
    /* The refusal names the missing part; a runnable scenario has none. */
    char why[400] = "";
    assert_int_equal(nbc_scenario_refusal(&candidates[0], fake_find, why, sizeof why), 0);
    assert_non_null(strstr(why, "its part bcast_init"));
    assert_int_equal(nbc_scenario_refusal(&candidates[1], fake_find, why, sizeof why), -1);
    /* With the real table: an offered scenario and an unknown name are no
     * such refusal. */
    assert_int_equal(nbc_scenario_unavailable("scenario_fsdp", why, sizeof why), -1);
    assert_int_equal(nbc_scenario_unavailable("scenario_nope", why, sizeof why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_scenarios_are_well_formed),
        cmocka_unit_test(fixed_part_keeps_its_bytes),
        cmocka_unit_test(part_limits_become_limits_on_s),
        cmocka_unit_test(parts_are_described_from_the_descriptor),
        cmocka_unit_test(a_scenario_with_a_missing_part_is_not_offered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
