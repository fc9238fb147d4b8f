/* Metrics on hand-made raw records whose answers are known: eqs. 1, 3, 4 of
 * the paper on like statistics (spans against spans, slowest local times
 * against slowest local times, ratios of medians), rank-skewed work on 4
 * ranks, the kept attempts and the lateness rule (and its re-application),
 * the grid's unreachable cells, each cell's band of r_overhead, the peers'
 * overlap percentages and the MPI impact (eq. 2); the intervals: their
 * coverage of known truths, null controls, the distribution beyond the
 * median. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000LL /* nanoseconds */
#define US 1000LL

static const char raw_header[] =
    "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,attempt,seq,"
    "wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,exit_late_ns,tolerance_ns,late\n";

typedef struct raw_text {
    char text[1 << 18];
    size_t len;
} raw_text;

/* A cell's identity in raw.csv. */
typedef struct cell_id {
    int cell;
    const char *comm_target;
    const char *comp_target;
} cell_id;

static const cell_id cell0 = {0, "0.01", "0.02"}; /* 10 ms x 20 ms */

static void raw_begin(raw_text *raw)
{
    raw->len = (size_t)snprintf(raw->text, sizeof raw->text, "%s", raw_header);
}

/* One rank's row of one attempt; the driver's tolerance is 100 us. */
static void row_of(raw_text *raw, const cell_id *c, int block, const char *kind, int attempt,
                   int rank, long long t1, long long t2, long long t3, long long t4,
                   long long exit_late_ns, int late)
{
    static const char *const kinds[] = {"comm_ref",  "comp_ref",  "overlap",
                                        "comm_null", "comp_null", "overlap_null"};
    int kind_index = 0;
    while (kind_index < 5 && strcmp(kind, kinds[kind_index]) != 0)
        kind_index++;
    int n =
        snprintf(raw->text + raw->len, sizeof raw->text - raw->len,
                 "%d,ibcast,%s,%s,1024,100,%d,%s,%s,%d,%d,%.6f,%d,%lld,%lld,%lld,%lld,%lld,"
                 "%lld,100000,%d\n",
                 c->cell, c->comm_target, c->comp_target, block, block == 0 ? "warmup" : "measure",
                 kind, attempt, c->cell * 10000 + block * 100 + kind_index * 10 + attempt,
                 1767225600.0 + (double)t1 * 1e-9, rank, t1, t2, t3, t4, t1, exit_late_ns, late);
    assert_true(n > 0 && (size_t)n < sizeof raw->text - raw->len);
    raw->len += (size_t)n;
}

/* Kept attempts of cell 0 on one rank: references and the overlap step from
 * its call, computation and wait durations. */
static void comm_ref(raw_text *raw, int block, int rank, long long t1, long long duration)
{
    row_of(raw, &cell0, block, "comm_ref", 0, rank, t1, t1 + 5 * US, t1 + 5 * US, t1 + duration, 0,
           0);
}

static void comp_ref(raw_text *raw, int block, int rank, long long t2, long long duration)
{
    row_of(raw, &cell0, block, "comp_ref", 0, rank, t2, t2, t2 + duration, t2 + duration, 0, 0);
}

static void overlap(raw_text *raw, int block, int rank, long long t1, long long call,
                    long long comp, long long wait)
{
    row_of(raw, &cell0, block, "overlap", 0, rank, t1, t1 + call, t1 + call + comp,
           t1 + call + comp + wait, 0, 0);
}

/* The references of one rank: comm 10 ms, comp 20 ms. */
static void refs(raw_text *raw, int block, int rank, long long base)
{
    comm_ref(raw, block, rank, base, 10 * MS);
    comp_ref(raw, block, rank, base + 20 * MS, 20 * MS);
}

typedef struct computed {
    run_inputs in;
    cell_table cells;
} computed;

static void compute_with(computed *out, const raw_text *raw, double late_tolerance)
{
    analysis_error err;
    int status = analysis_parse_raw(raw->text, raw->len, "raw.csv", &out->in.raw, &err);
    if (status != ANALYSIS_OK)
        fail_msg("parse: %s", err.text);
    cell_rules rules = analysis_default_rules();
    rules.late_tolerance = late_tolerance;
    status = analysis_compute_cells(&out->in, &rules, &out->cells, &err);
    if (status != ANALYSIS_OK)
        fail_msg("compute: %s", err.text);
}

static void compute(computed *out, const raw_text *raw)
{
    memset(out, 0, sizeof *out);
    out->in.meta.barrier_precision_ns = NAN;
    compute_with(out, raw, NAN);
}

/* Frees what compute allocated (the calibration rows of a test are its own). */
static void release(computed *c)
{
    analysis_cell_table_free(&c->cells);
    analysis_raw_table_free(&c->in.raw);
}

static void assert_close(double actual, double expected, double tolerance)
{
    if (!(fabs(actual - expected) <= tolerance))
        fail_msg("%.12g is not %.12g (+- %g)", actual, expected, tolerance);
}

/* A cell's reading: the band of its r_overhead, one launch (invalid for an
 * invalid cell). */
static void assert_band(const cell_metrics *m, verdict_class expected)
{
    if (m->overlap != expected)
        fail_msg("band %s, expected %s", verdict_class_name(m->overlap),
                 verdict_class_name(expected));
    assert_int_equal(m->class, m->valid ? VERDICT_ONE_LAUNCH : VERDICT_INVALID);
}

static void test_serialized_is_one(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    refs(&raw, 1, 0, 0);
    /* everything in MPI_Wait: 20 ms computation then the 10 ms collective */
    overlap(&raw, 1, 0, 100 * MS, 5 * US, 20 * MS, 10 * MS - 5 * US);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_int_equal(c.cells.count, 1);
    assert_true(m->valid);
    assert_int_equal(m->blocks, 1);
    assert_close(m->t_comm_ref, 0.010, 1e-12);
    assert_close(m->t_comp_ref, 0.020, 1e-12);
    assert_close(m->t_measured, 0.030, 1e-12);
    assert_close(m->r_overhead, 1.0, 1e-9); /* eq. 1 */
    assert_close(m->r_comm, 1.0, 1e-9);     /* eq. 4 */
    assert_close(m->r_comp_slowdown, 1.0, 1e-9);
    assert_close(m->overlap_osu_pct, 0.0, 1e-6);
    assert_close(m->overlap_imb_pct, 0.0, 1e-6);
    assert_band(m, VERDICT_NONE);
    release(&c);
}

/* A null block's second triple (comm_null, comp_null, overlap_null) is the
 * three kinds measured once more: a launch's means (the verdict's reading)
 * take it as a block of its own, the run's medians rest on the blocks. Two
 * serialized blocks, the second a null block whose repeat overlapped
 * perfectly: the medians read 1, the means over the three triples
 * (30 + 30 + 20) / 3 ms read (26.67 - 20) / 10. A repeat without every rank
 * is not a triple. */
static void test_null_triple_is_a_block_of_the_means(void **state)
{
    (void)state;
    for (int ranks = 1; ranks <= 2; ranks++) {
        raw_text raw;
        raw_begin(&raw);
        for (int block = 1; block <= 2; block++) {
            long long base = block * 200 * MS;
            for (int rank = 0; rank < ranks; rank++) {
                refs(&raw, block, rank, base);
                overlap(&raw, block, rank, base + 50 * MS, 5 * US, 20 * MS, 10 * MS - 5 * US);
            }
        }
        long long base = 600 * MS;
        row_of(&raw, &cell0, 2, "comm_null", 0, 0, base, base + 5 * US, base + 5 * US,
               base + 10 * MS, 0, 0);
        row_of(&raw, &cell0, 2, "comp_null", 0, 0, base + 20 * MS, base + 20 * MS, base + 40 * MS,
               base + 40 * MS, 0, 0);
        /* overlap_null: the collective done behind the computation */
        row_of(&raw, &cell0, 2, "overlap_null", 0, 0, base + 50 * MS, base + 50 * MS + 5 * US,
               base + 70 * MS - 5 * US, base + 70 * MS, 0, 0);
        computed c;
        compute(&c, &raw);
        const cell_metrics *m = &c.cells.cells[0];
        assert_true(m->valid);
        assert_int_equal(m->blocks, 2);
        assert_close(m->r_overhead, 1.0, 1e-9);
        size_t repeats = 0;
        for (size_t b = 0; b < c.cells.block_count; b++)
            repeats += c.cells.blocks[b].repeat;
        verdict_launch l =
            verdict_launch_of(c.cells.blocks, c.cells.block_count, m->bytes, m->matrix_n);
        assert_true(l.valid);
        if (ranks == 1) {
            assert_int_equal(c.cells.block_count, 3);
            assert_int_equal(repeats, 1);
            assert_close(l.r_overhead, (80.0 / 3 - 20) / 10, 1e-6);
            assert_close(l.ended_share, 1.0 / 3, 1e-12); /* the repeat's wait: 5 us */
        } else {
            /* rank 1 measured no repeat */
            assert_int_equal(c.cells.block_count, 2);
            assert_int_equal(repeats, 0);
            assert_close(l.r_overhead, 1.0, 1e-6);
        }
        release(&c);
    }
}

static void test_perfect_overlap_is_zero(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    refs(&raw, 1, 0, 0);
    /* the collective finished during the computation: ends at 20 ms */
    overlap(&raw, 1, 0, 100 * MS, 1 * US, 20 * MS - 2 * US, 1 * US);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->t_measured, 0.020, 1e-12);
    assert_close(m->r_overhead, 0.0, 1e-12);
    assert_close(m->r_comm, 2e-6 / 0.010, 1e-12);
    assert_close(m->r_comp_slowdown, (0.020 - 2e-6) / 0.020, 1e-12);
    /* OSU: 100 (1 - (t_overall - t_cpu) / t_pure) */
    assert_close(m->overlap_osu_pct, 100.0 * (1 - 2e-6 / 0.010), 1e-9);
    /* IMB-NBC: 100 (t_pure + t_cpu - t_ovrl) / max(t_pure, t_cpu) */
    assert_close(m->overlap_imb_pct, 100.0 * (0.010 - 2e-6) / (0.020 - 2e-6), 1e-9);
    assert_band(m, VERDICT_HIDDEN);
    release(&c);
}

/* A collective longer than the computation hidden as much as it can be:
 * r_comm is 1 - t_comp / t_comm_ref = 0.5, not ~0, and it is overlap. */
static void test_longer_collective_overlapped(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    const cell_id c40 = {0, "0.04", "0.02"};
    row_of(&raw, &c40, 1, "comm_ref", 0, 0, 0, 5 * US, 5 * US, 40 * MS, 0, 0);
    row_of(&raw, &c40, 1, "comp_ref", 0, 0, 50 * MS, 50 * MS, 70 * MS, 70 * MS, 0, 0);
    row_of(&raw, &c40, 1, "overlap", 0, 0, 100 * MS, 100 * MS + 5 * US, 120 * MS + 5 * US, 140 * MS,
           0, 0);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->r_overhead, 0.0, 1e-9);
    assert_close(m->r_comm, 0.5, 1e-9);
    assert_band(m, VERDICT_HIDDEN);
    release(&c);
}

/* Perfect overlap beside a CPU-bound process on rank 0's core: the step was
 * sized on the slowed rank (comp 10 ms there), rank 1 computes it in 5 ms
 * and waits the rest of the 10 ms collective. From the last arrival at the
 * wait (rank 0's) both ranks wait 5 us: r_comm is ~0; on its own wait rank
 * 1 spends 5 ms (r_comm_local_wait 0.5). r_overhead is ~0: the band is
 * hidden. */
static void test_faster_rank_waits_is_overlap(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    const cell_id c10 = {0, "0.01", "0.01"};
    for (int rank = 0; rank < 2; rank++) {
        long long comp = rank == 0 ? 10 * MS : 5 * MS;
        row_of(&raw, &c10, 1, "comm_ref", 0, rank, 0, 5 * US, 5 * US, 10 * MS, 0, 0);
        row_of(&raw, &c10, 1, "comp_ref", 0, rank, 20 * MS, 20 * MS, 30 * MS, 30 * MS, 0, 0);
        row_of(&raw, &c10, 1, "overlap", 0, rank, 40 * MS, 40 * MS + 5 * US,
               40 * MS + 5 * US + comp, 50 * MS + 10 * US, 0, 0);
    }
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->r_overhead, 1e-3, 1e-9);         /* 10 us over 10 ms */
    assert_close(m->r_comm, 0.001, 1e-9);            /* 5 us call, 5 us from the last arrival */
    assert_close(m->r_comm_local_wait, 0.501, 1e-9); /* rank 1's own wait and call */
    assert_band(m, VERDICT_HIDDEN);
    release(&c);
}

/* A collective shorter than the imbalance between ranks: 2 ms, rank 0
 * computes 14 ms and rank 1 10 ms, and the collective completed in the
 * background (both leave the wait 5 us after rank 0 arrives). Rank 1 waits
 * 4 ms for rank 0, twice the collective: counted on its own computation that
 * wait read as an unhidden share of 2 (no progress); from the last rank's
 * arrival, the MPI time r_comm counts, nothing is left unhidden. */
static void test_imbalance_longer_than_collective_is_overlap(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    const cell_id c = {0, "0.002", "0.01"};
    for (int rank = 0; rank < 2; rank++) {
        long long comp = rank == 0 ? 14 * MS : 10 * MS;
        row_of(&raw, &c, 1, "comm_ref", 0, rank, 0, 5 * US, 5 * US, 2 * MS, 0, 0);
        row_of(&raw, &c, 1, "comp_ref", 0, rank, 20 * MS, 20 * MS, 20 * MS + comp, 20 * MS + comp,
               0, 0);
        row_of(&raw, &c, 1, "overlap", 0, rank, 40 * MS, 40 * MS + 5 * US, 40 * MS + 5 * US + comp,
               54 * MS + 10 * US, 0, 0);
    }
    computed out;
    compute(&out, &raw);
    const cell_metrics *m = &out.cells.cells[0];
    assert_close(m->r_comm, 0.005, 1e-9); /* 5 us call, 5 us from the last arrival, of 2 ms */
    assert_band(m, VERDICT_HIDDEN);
    release(&out);
}

/* One rank, references 10 ms (comm) and 20 ms (comp), the overlap step
 * from its computation and wait durations (the call takes 5 us). */
static void test_one_rank_behaviours(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        long long comp_us, wait_us;
        double r_overhead, r_comm, r_comp_slowdown;
        verdict_class expected;
    } cases[] = {
        {"computation 1.25x, the collective 13 ms in the wait", 25000, 12995, 1.8, 1.3, 1.25,
         VERDICT_NONE},
        /* section 3.3.3's prose: serialized (r_comm ~ 1) beside a slowed
         * computation is contention, not only r_comm > 1 */
        {"computation 1.25x, the collective at its speed in the wait", 25000, 9995, 1.5, 1.0, 1.25,
         VERDICT_NONE},
        {"computation 1.5x, the collective progressed", 30000, 5, 1.001, 0.001, 1.5, VERDICT_NONE},
        {"computation at its speed, the collective 14 ms after it", 20000, 13995, 1.4, 1.4, 1.0,
         VERDICT_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        raw_text raw;
        raw_begin(&raw);
        refs(&raw, 1, 0, 0);
        overlap(&raw, 1, 0, 100 * MS, 5 * US, cases[i].comp_us * US, cases[i].wait_us * US);
        computed c;
        compute(&c, &raw);
        const cell_metrics *m = &c.cells.cells[0];
        print_message("%s\n", cases[i].what);
        assert_close(m->r_overhead, cases[i].r_overhead, 1e-9);
        assert_close(m->r_comm, cases[i].r_comm, 1e-9);
        assert_close(m->r_comp_slowdown, cases[i].r_comp_slowdown, 1e-9);
        assert_band(m, cases[i].expected);
        release(&c);
    }
}

static void test_multi_rank_spans_and_slowest_locals(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    /* The earliest start and the latest end are never on the same rank, nor
     * on rank 0. comm_ref: 1-8, 0.5-10, 0-9 ms: span 10 ms, slowest local
     * 9.5 ms (rank 1) */
    row_of(&raw, &cell0, 1, "comm_ref", 0, 0, 1 * MS, 1 * MS + 5 * US, 1 * MS + 5 * US, 8 * MS, 0,
           0);
    row_of(&raw, &cell0, 1, "comm_ref", 0, 1, MS / 2, MS / 2 + 5 * US, MS / 2 + 5 * US, 10 * MS, 0,
           0);
    row_of(&raw, &cell0, 1, "comm_ref", 0, 2, 0, 5 * US, 5 * US, 9 * MS, 0, 0);
    /* comp_ref: 1-20, 0.2-19, 0-18 ms: span 20 ms, slowest local 19 ms */
    comp_ref(&raw, 1, 0, 1 * MS, 19 * MS);
    comp_ref(&raw, 1, 1, 200 * US, 18800 * US);
    comp_ref(&raw, 1, 2, 0, 18 * MS);
    /* overlap: rank 2 starts first (0), rank 1 ends last (30 ms); the most
     * MPI time is rank 1's (30 + 9000 us), the longest computation rank
     * 2's (19.98 ms) */
    row_of(&raw, &cell0, 1, "overlap", 0, 0, 1 * MS, 1 * MS + 10 * US, 20 * MS, 25 * MS, 0, 0);
    row_of(&raw, &cell0, 1, "overlap", 0, 1, 2 * MS, 2 * MS + 30 * US, 21 * MS, 30 * MS, 0, 0);
    row_of(&raw, &cell0, 1, "overlap", 0, 2, 0, 20 * US, 20 * MS, 26 * MS, 0, 0);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->t_comm_ref, 0.010, 1e-12);
    assert_close(m->t_comp_ref, 0.020, 1e-12);
    assert_close(m->t_measured, 0.030, 1e-12); /* max end - min start, not a mean */
    assert_close(m->r_overhead, 1.0, 1e-9);    /* spans (eq. 1, section 4.1) */
    assert_close(m->t_comm_ref_local, 0.0095, 1e-12);
    assert_close(m->t_comp_ref_local, 0.019, 1e-12);
    assert_close(m->t_mpi, 30e-6 + 0.009, 1e-12);
    assert_close(m->t_call, 30e-6, 1e-12);
    assert_close(m->t_wait, 0.009, 1e-12);
    assert_close(m->t_comp, 0.01998, 1e-12);
    assert_close(m->r_comm, (30e-6 + 0.009) / 0.0095, 1e-9); /* eq. 4 */
    assert_close(m->r_comp_slowdown, 0.01998 / 0.019, 1e-9); /* eq. 3 */
    assert_close(m->start_skew_s, 0.002, 1e-12); /* first into the collective at 0, last at 2 ms */
    assert_int_equal(m->ranks, 3);
    /* cells_by_rank: each rank's own medians against its own references */
    assert_int_equal(c.cells.rank_count, 3);
    const rank_metrics *r0 = &c.cells.ranks[0], *r1 = &c.cells.ranks[1];
    assert_int_equal(r0->rank, 0);
    assert_close(r0->t_measured, 0.024, 1e-12);
    assert_close(r0->t_comm_ref, 0.007, 1e-12);
    /* its wait from rank 1's arrival at 21 ms, and its own from 20 ms */
    assert_close(r0->r_comm, (10e-6 + 0.004) / 0.007, 1e-9);
    assert_close(r0->r_comm_local_wait, (10e-6 + 0.005) / 0.007, 1e-9);
    assert_int_equal(r0->deciding_blocks, 0);
    assert_int_equal(r1->deciding_blocks, 1);
    assert_close(r1->r_comp_slowdown, (0.021 - 0.00203) / 0.0188, 1e-9);
    release(&c);
}

/* The estimand is a ratio of medians (section 5.1), not a median of
 * per-block ratios. */
static void test_ratio_of_medians(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    static const long long comm_ms[] = {9, 10, 30}, measured_ms[] = {30, 40, 23};
    static const long long comp_ms[] = {20, 30, 10}, overlap_comp_ms[] = {28, 20, 22};
    for (int b = 0; b < 3; b++) {
        long long base = b * 200 * MS;
        comm_ref(&raw, b + 1, 0, base, comm_ms[b] * MS);
        comp_ref(&raw, b + 1, 0, base + 50 * MS, comp_ms[b] * MS);
        overlap(&raw, b + 1, 0, base + 100 * MS, 5 * US, overlap_comp_ms[b] * MS,
                (measured_ms[b] - overlap_comp_ms[b]) * MS - 5 * US);
    }
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_int_equal(m->blocks, 3);
    assert_close(m->t_comm_ref, 0.010, 1e-12); /* median of 9, 10, 30 */
    assert_close(m->t_comp_ref, 0.020, 1e-12); /* median of 20, 30, 10 */
    assert_close(m->t_measured, 0.030, 1e-12); /* median of 30, 40, 23 */
    assert_close(m->r_overhead, 1.0, 1e-9);
    /* median overlap computation 22 ms over median reference 20 ms = 1.1;
     * the median of the per-block ratios (1.4, 0.667, 2.2) would be 1.4 */
    assert_close(m->r_comp_slowdown, 1.1, 1e-9);
    release(&c);
}

/* ---- Rank-skewed work on 4 ranks ------------------------------------------------- */

enum { SKEW_RANKS = 4, SKEW_BLOCKS = 9 };
static const double skew_comp_s = 10e-3, skew_comm_s = 40e-3;

/* Uniform in [1 - amplitude, 1 + amplitude), reproducible. */
static double noise(uint64_t *state, double amplitude)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    double unit = (double)(*state >> 11) / (double)(1ULL << 53);
    return 1.0 + amplitude * (2.0 * unit - 1.0);
}

static long long ns_of(double s)
{
    return llround(s * 1e9);
}

/* Rank k computes (1 + k/10) T, with 1 % noise per block; the collective
 * (40 ms) ends 1 ms later on each lower rank, so rank 0 (the fastest to
 * compute) ends every overlap step last; ranks leave the window barrier up
 * to 20 us apart. slow[k] multiplies rank k's computation in the overlap
 * step (the injected interference). */
static void skewed_run(raw_text *raw, const double slow[SKEW_RANKS])
{
    uint64_t rng = 2024;
    raw_begin(raw);
    for (int b = 1; b <= SKEW_BLOCKS; b++) {
        for (int kind = 0; kind < 3; kind++) {
            double deadline = b * 0.3 + kind * 0.08;
            for (int k = 0; k < SKEW_RANKS; k++) {
                double start = deadline + 10e-6 * noise(&rng, 1.0); /* [0, 20 us) */
                double comp = (1.0 + k / 10.0) * skew_comp_s * noise(&rng, 0.01);
                double comm_end = start + skew_comm_s * noise(&rng, 0.01) + (3 - k) * 1e-3;
                if (kind == 0)
                    row_of(raw, &cell0, b, "comm_ref", 0, k, ns_of(start), ns_of(start + 5e-6),
                           ns_of(start + 5e-6), ns_of(comm_end), 0, 0);
                else if (kind == 1)
                    row_of(raw, &cell0, b, "comp_ref", 0, k, ns_of(start), ns_of(start),
                           ns_of(start + comp), ns_of(start + comp), 0, 0);
                else
                    row_of(raw, &cell0, b, "overlap", 0, k, ns_of(start), ns_of(start + 5e-6),
                           ns_of(start + 5e-6 + comp * slow[k]),
                           ns_of(fmax(start + 5e-6 + comp * slow[k], comm_end) + 2e-6), 0, 0);
            }
        }
    }
}

/* The statistic before this version: t3 - t2 of the rank whose overlap
 * ends last, over the median comp_ref span, median of per-block ratios. */
static double old_mixed_slowdown(const raw_table *raw)
{
    double spans[SKEW_BLOCKS], ratios[SKEW_BLOCKS];
    for (int b = 0; b < SKEW_BLOCKS; b++) {
        int64_t first = INT64_MAX, last = INT64_MIN, last_end = INT64_MIN;
        double comp_of_last = 0;
        for (size_t i = 0; i < raw->row_count; i++) {
            const raw_row *r = &raw->rows[i];
            if (r->block != b + 1)
                continue;
            if (r->kind == RAW_KIND_COMP_REF) {
                first = r->t_ns[1] < first ? r->t_ns[1] : first;
                last = r->t_ns[2] > last ? r->t_ns[2] : last;
            } else if (r->kind == RAW_KIND_OVERLAP && r->t_ns[3] > last_end) {
                last_end = r->t_ns[3];
                comp_of_last = (double)(r->t_ns[2] - r->t_ns[1]);
            }
        }
        spans[b] = (double)(last - first);
        ratios[b] = comp_of_last;
    }
    /* medians by sorting (9 values) */
    for (int i = 0; i < SKEW_BLOCKS; i++)
        for (int j = i + 1; j < SKEW_BLOCKS; j++)
            if (spans[j] < spans[i]) {
                double t = spans[i];
                spans[i] = spans[j];
                spans[j] = t;
            }
    double comp_ref_span = spans[SKEW_BLOCKS / 2];
    for (int b = 0; b < SKEW_BLOCKS; b++)
        ratios[b] /= comp_ref_span;
    for (int i = 0; i < SKEW_BLOCKS; i++)
        for (int j = i + 1; j < SKEW_BLOCKS; j++)
            if (ratios[j] < ratios[i]) {
                double t = ratios[i];
                ratios[i] = ratios[j];
                ratios[j] = t;
            }
    return ratios[SKEW_BLOCKS / 2];
}

static void test_rank_skewed_work(void **state)
{
    (void)state;
    static raw_text raw;
    static const struct {
        const char *what;
        double slow[SKEW_RANKS];
        /* the slowest rank's computation over the slowest rank's reference:
         * all ranks 1.3x: 1.3; rank 1 only: its 1.1 T x 1.3 = 1.43 T is the
         * step now, against rank 3's 1.3 T before: 1.1 */
        double expected;
        double tolerance;
        double rank1_expected; /* rank 1's own slowdown (cells_by_rank.csv) */
    } cases[] = {
        {"no interference", {1, 1, 1, 1}, 1.00, 0.03, 1.00},
        {"every rank 1.3x", {1.3, 1.3, 1.3, 1.3}, 1.30, 0.05, 1.30},
        {"rank 1 only 1.3x", {1, 1.3, 1, 1}, 1.10, 0.05, 1.30},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        skewed_run(&raw, cases[i].slow);
        computed c;
        compute(&c, &raw);
        const cell_metrics *m = &c.cells.cells[0];
        assert_int_equal(m->ranks, SKEW_RANKS);
        assert_int_equal(m->blocks, SKEW_BLOCKS);
        double old = old_mixed_slowdown(&c.in.raw);
        print_message("figure: rank-skewed work, %s: r_comp_slowdown %.4f (expected %.2f), the "
                      "old mixed statistic %.4f\n",
                      cases[i].what, m->r_comp_slowdown, cases[i].expected, old);
        assert_close(m->r_comp_slowdown, cases[i].expected, cases[i].tolerance);
        /* guard: the old statistic fails this test */
        assert_true(fabs(old - cases[i].expected) > cases[i].tolerance);
        assert_int_equal(c.cells.ranks[1].rank, 1);
        assert_close(c.cells.ranks[1].r_comp_slowdown, cases[i].rank1_expected, 0.05);
        /* the collective was progressed: the step lasted as long as it */
        assert_close(m->r_overhead, 0.0, 0.15);
        release(&c);
    }
}

/* ---- Validity, lateness, the grid ------------------------------------------------ */

/* ---- A computation imbalance between ranks (eq. 4) ---------------------------- */

enum { IMBALANCE_BLOCKS = 12 };
static const double imbalance_comm_s = 2e-3, imbalance_comp_s = 16e-3;
static const cell_id imbalance_cell = {0, "0.002", "0.02"}; /* the slow rank: 20.8 ms */

/* `ranks` ranks, the last computing 1.3x longer than the others in both
 * comp_ref and the overlap step (a slower core: r_comp_slowdown stays 1),
 * 1 % noise. The 2 ms collective is never slower than its reference: with
 * `progressed` it is done during the computation (each rank leaves its wait
 * 2 us after calling it), else it starts when the last rank calls the wait
 * and every rank leaves it 2 ms later (no progress, section 3.3.1). */
static void imbalance_run(raw_text *raw, int ranks, bool progressed)
{
    uint64_t rng = 77;
    raw_begin(raw);
    for (int b = 1; b <= IMBALANCE_BLOCKS; b++) {
        double deadline = b * 0.2, last_arrival = 0;
        double start[4], comp[4], comm[4];
        for (int k = 0; k < ranks; k++) {
            start[k] = deadline + 5e-6 * noise(&rng, 1.0);
            comp[k] = (k == ranks - 1 ? 1.3 : 1.0) * imbalance_comp_s * noise(&rng, 0.01);
            comm[k] = imbalance_comm_s * noise(&rng, 0.01);
            last_arrival = fmax(last_arrival, start[k] + 0.05 + 5e-6 + comp[k]);
        }
        for (int k = 0; k < ranks; k++) {
            double t1 = start[k], t3 = start[k] + 0.05 + 5e-6 + comp[k];
            row_of(raw, &imbalance_cell, b, "comm_ref", 0, k, ns_of(t1), ns_of(t1 + 5e-6),
                   ns_of(t1 + 5e-6), ns_of(t1 + comm[k]), 0, 0);
            row_of(raw, &imbalance_cell, b, "comp_ref", 0, k, ns_of(t1 + 0.1), ns_of(t1 + 0.1),
                   ns_of(t1 + 0.1 + comp[k]), ns_of(t1 + 0.1 + comp[k]), 0, 0);
            double t4 = progressed ? t3 + 2e-6 : last_arrival + comm[k];
            row_of(raw, &imbalance_cell, b, "overlap", 0, k, ns_of(t1 + 0.05),
                   ns_of(t1 + 0.05 + 5e-6), ns_of(t3), ns_of(t4), 0, 0);
        }
    }
}

/* The rank done computing first waits in MPI_Wait for the others: counted
 * from the last rank's arrival at the wait, r_comm reads 1 without progress
 * and ~0 with it; on each rank's own wait (the former r_comm, now
 * r_comm_local_wait) the imbalance reads as a collective 1 + 0.3 x 16 / 2
 * = 3.4 times slower than its reference, comm_slowed. */
static void test_imbalance_is_not_comm_slowed(void **state)
{
    (void)state;
    static raw_text raw;
    for (int ranks = 2; ranks <= 4; ranks++) {
        imbalance_run(&raw, ranks, false);
        computed c;
        compute(&c, &raw);
        const cell_metrics *m = &c.cells.cells[0];
        print_message("figure: no progress, %d ranks, one computing 1.3x: r_comm %.3f (expected "
                      "1.00), r_comm_local_wait %.3f, r_comp_slowdown %.3f, band %s\n",
                      ranks, m->r_comm, m->r_comm_local_wait, m->r_comp_slowdown,
                      verdict_class_name(m->overlap));
        assert_int_equal(m->blocks, IMBALANCE_BLOCKS);
        assert_close(m->r_comm, 1.0, 0.05);
        assert_close(m->r_comp_slowdown, 1.0, 0.05);
        /* guard: the former definition fails this test */
        assert_true(fabs(m->r_comm_local_wait - 1.0) > 0.05);
        assert_band(m, VERDICT_NONE);
        release(&c);

        imbalance_run(&raw, ranks, true);
        compute(&c, &raw);
        m = &c.cells.cells[0];
        print_message("figure: progressed, %d ranks, one computing 1.3x: r_comm %.4f\n", ranks,
                      m->r_comm);
        assert_close(m->r_comm, 0.0, 0.01); /* 5 us call + 2 us wait of a 2 ms collective */
        assert_band(m, VERDICT_HIDDEN);
        release(&c);
    }
}

static void test_invalid_calibration(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    refs(&raw, 1, 0, 0);
    overlap(&raw, 1, 0, 100 * MS, 5 * US, 20 * MS, 5 * US);
    static const struct {
        bool comm_converged;
        long long bytes;
        bool comp_converged;
        long long matrix_n;
        unsigned reasons;
    } cases[] = {
        {true, 1024, true, 100, 0},
        /* a missed target measured at its closest size: valid (and
         * comm_off_target when far: the flag reads the achieved time) */
        {false, 1024, true, 100, 0},
        {true, 0, true, 100, INVALID_COMM_CALIBRATION}, /* the algorithm "sticks to 0 bytes" */
        {false, 0, true, 100, INVALID_COMM_CALIBRATION},
        /* the same for the computation: the driver measured a close miss
         * (comp_off_target flags it when far), only no size is no cell */
        {true, 1024, false, 100, 0},
        {true, 1024, false, 0, INVALID_COMP_CALIBRATION},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        computed c;
        memset(&c, 0, sizeof c);
        calib_comm_row comm = {"ibcast", 0.01, cases[i].bytes, 0.01, cases[i].comm_converged,
                               false};
        calib_comp_row comp = {0.0200000001, cases[i].matrix_n, 0.02, cases[i].comp_converged};
        c.in.calib_comm = &comm;
        c.in.calib_comm_count = 1;
        c.in.have_calib_comm = true;
        c.in.calib_comp = &comp;
        c.in.calib_comp_count = 1;
        c.in.have_calib_comp = true;
        compute_with(&c, &raw, NAN);
        const cell_metrics *m = &c.cells.cells[0];
        assert_int_equal(c.cells.count, 1);
        assert_int_equal(m->invalid_reasons, cases[i].reasons);
        assert_int_equal(m->valid, cases[i].reasons == 0);
        assert_band(m, cases[i].reasons ? VERDICT_INVALID : VERDICT_HIDDEN);
        /* the numbers are still computed, only not trusted */
        assert_close(m->r_overhead, 0.001, 1e-9);
        release(&c);
    }
}

/* Cell 0 on 2 ranks with the lateness below (rank 1 the late one, the
 * driver's tolerance 100 us; exit_late_ns in us):
 *   block 0 (warm-up)  every kind on time, a 50 ms comm_ref never used
 *   block 1  comm_ref attempt 0: 150 late (16 ms), attempt 1: 30 (10 ms)
 *            comp_ref 60, overlap 10
 *   block 2  every kind 5 (comm_ref 11 ms)
 *   block 3  comm_ref 5 (12 ms), comp_ref 5, overlap 80 */
static void lateness_run(raw_text *raw)
{
    static const struct {
        int block;
        const char *kind;
        int attempt;
        long long exit_late_us;
        int late;
        long long duration_ms;
    } attempts[] = {
        {0, "comm_ref", 0, 0, 0, 50},  {0, "comp_ref", 0, 0, 0, 20},
        {0, "overlap", 0, 0, 0, 30},   {1, "comm_ref", 0, 150, 1, 16},
        {1, "comm_ref", 1, 30, 0, 10}, {1, "comp_ref", 0, 60, 0, 20},
        {1, "overlap", 0, 10, 0, 30},  {2, "comm_ref", 0, 5, 0, 11},
        {2, "comp_ref", 0, 5, 0, 20},  {2, "overlap", 0, 5, 0, 30},
        {3, "comm_ref", 0, 5, 0, 12},  {3, "comp_ref", 0, 5, 0, 20},
        {3, "overlap", 0, 80, 0, 30},
    };
    raw_begin(raw);
    for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
        long long t1 = (long long)i * 100 * MS, d = attempts[i].duration_ms * MS;
        for (int rank = 0; rank < 2; rank++) {
            long long exit_late = rank == 1 ? attempts[i].exit_late_us * US : 0;
            const char *kind = attempts[i].kind;
            if (strcmp(kind, "comm_ref") == 0)
                row_of(raw, &cell0, attempts[i].block, kind, attempts[i].attempt, rank, t1,
                       t1 + 5 * US, t1 + 5 * US, t1 + d, exit_late, attempts[i].late);
            else if (strcmp(kind, "comp_ref") == 0)
                row_of(raw, &cell0, attempts[i].block, kind, attempts[i].attempt, rank, t1, t1,
                       t1 + d, t1 + d, exit_late, attempts[i].late);
            else
                row_of(raw, &cell0, attempts[i].block, kind, attempts[i].attempt, rank, t1,
                       t1 + 5 * US, t1 + 20 * MS, t1 + d, exit_late, attempts[i].late);
        }
    }
}

typedef struct lateness_case {
    double late_tolerance; /* NAN: the driver's late column */
    long late_attempts;
    long blocks;
    bool valid;
    double t_comm_ref_s;
    double tolerance_ns;
} lateness_case;

static void check_lateness(const raw_text *raw, const lateness_case *expected)
{
    computed c;
    memset(&c, 0, sizeof c);
    calib_comm_row comm = {"ibcast", 0.01, 1024, 0.010, true, false};
    calib_comp_row comp = {0.02, 100, 0.020, true};
    c.in.calib_comm = &comm;
    c.in.calib_comm_count = 1;
    c.in.have_calib_comm = true;
    c.in.calib_comp = &comp;
    c.in.calib_comp_count = 1;
    c.in.have_calib_comp = true;
    c.in.meta.barrier_precision_ns = 20000; /* 20 us */
    c.in.meta.ranks = 2;
    compute_with(&c, raw, expected->late_tolerance);
    const cell_metrics *m = &c.cells.cells[0];
    print_message("figure: late tolerance %g: %ld of %ld attempts late (%.2f), %ld blocks, "
                  "valid %d, t_comm_ref %.3g ms\n",
                  expected->late_tolerance, m->late_attempts, m->attempts, m->late_share, m->blocks,
                  m->valid, m->t_comm_ref * 1e3);
    assert_int_equal(m->attempts, 10); /* the measured blocks' attempts */
    assert_int_equal(m->late_attempts, expected->late_attempts);
    assert_close(m->late_share, (double)expected->late_attempts / 10.0, 1e-12);
    assert_int_equal(m->blocks, expected->blocks);
    assert_int_equal(m->valid, expected->valid);
    assert_int_equal(m->invalid_reasons, expected->valid ? 0u : (unsigned)INVALID_LATE);
    assert_int_equal(m->overlap == VERDICT_INVALID, !expected->valid);
    assert_close(m->t_comm_ref, expected->t_comm_ref_s, 1e-12);
    assert_close(m->tolerance_ns, expected->tolerance_ns, 1e-6);
    release(&c);
}

static void test_lateness_and_tolerance_reapplied(void **state)
{
    (void)state;
    static raw_text raw;
    lateness_run(&raw);
    static const lateness_case cases[] = {
        /* the driver: one discarded attempt, the kept 10 ms comm_ref used:
         * median of 10, 11, 12 ms */
        {NAN, 1, 3, true, 0.011, 100000},
        /* 0.005 x 10 ms = 50 us: 150, 60 and 80 late; blocks 1 and 3 have a
         * kind without an attempt on time: only block 2 is left */
        {0.005, 3, 1, false, 0.011, 50000},
        /* 0.001 x 10 ms = 10 us, below the barrier's precision: 20 us; 30
         * is late too */
        {0.001, 4, 1, false, 0.011, 20000},
        /* 0.02 x 10 ms = 200 us: nothing late; block 1's first comm_ref
         * attempt (16 ms) is now the kept one: median of 16, 11, 12 */
        {0.02, 0, 3, true, 0.012, 200000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_lateness(&raw, &cases[i]);
}

/* raw.csv's start_skew_ns, the driver's start skew: lateness_run's rows
 * with the column added, 300 us on block 3's overlap attempt and 0
 * elsewhere. Judged again at 0.02 (200 us), that attempt is late by its
 * start skew alone (its exit_late_ns is 80 us): block 3 has no overlap on
 * time, the cell is invalid (late) with blocks 1 and 2 left. */
static void test_lateness_from_start_skew(void **state)
{
    (void)state;
    static raw_text base, raw;
    lateness_run(&base);
    raw.len = 0;
    long long skewed_t1 = 12 * 100 * MS; /* block 3's overlap: the 13th attempt */
    char *save = NULL;
    for (char *line = strtok_r(base.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        long long t1 = -1;
        if (raw.len > 0) {
            /* t1_ns is the 14th field */
            const char *f = line;
            for (int i = 0; i < 13 && f; i++)
                f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
            assert_non_null(f);
            t1 = atoll(f);
        }
        const char *extra = raw.len == 0 ? "start_skew_ns" : t1 == skewed_t1 ? "300000" : "0";
        raw.len +=
            (size_t)snprintf(raw.text + raw.len, sizeof raw.text - raw.len, "%s,%s\n", line, extra);
        assert_true(raw.len < sizeof raw.text);
    }
    static const lateness_case judged = {0.02, 1, 2, false, 0.0135, 200000};
    check_lateness(&raw, &judged);
}

static void test_late_tolerance_needs_inputs(void **state)
{
    (void)state;
    static raw_text raw;
    lateness_run(&raw);
    computed c;
    memset(&c, 0, sizeof c);
    analysis_error err;
    assert_int_equal(analysis_parse_raw(raw.text, raw.len, "raw.csv", &c.in.raw, &err), 0);
    cell_rules rules = analysis_default_rules();
    rules.late_tolerance = 0.01;
    c.in.meta.barrier_precision_ns = NAN;
    assert_int_equal(analysis_compute_cells(&c.in, &rules, &c.cells, &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "barrier_precision_ns"));
    c.in.meta.barrier_precision_ns = 1000;
    assert_int_equal(analysis_compute_cells(&c.in, &rules, &c.cells, &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "calib_comm.csv"));
    analysis_raw_table_free(&c.in.raw);
}

static void test_driver_gave_up(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    for (int rank = 0; rank < 2; rank++) {
        refs(&raw, 1, rank, 0);
        overlap(&raw, 1, rank, 100 * MS, 5 * US, 20 * MS, 5 * US);
        refs(&raw, 2, rank, 200 * MS);
        /* block 2's overlap: every attempt late, then the driver stopped */
        for (int attempt = 0; attempt < 3; attempt++)
            row_of(&raw, &cell0, 2, "overlap", attempt, rank, (300 + attempt * 50) * MS,
                   (300 + attempt * 50) * MS + 5 * US, (320 + attempt * 50) * MS,
                   (320 + attempt * 50) * MS + 5 * US, rank ? 500 * US : 0, 1);
    }
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_int_equal(m->blocks, 1);
    assert_int_equal(m->attempts, 8);
    assert_int_equal(m->late_attempts, 3);
    assert_false(m->valid);
    assert_int_equal(m->invalid_reasons, INVALID_LATE);
    assert_int_equal(m->overlap, VERDICT_INVALID);
    assert_close(m->r_overhead, 0.001, 1e-9); /* from block 1, kept for inspection */
    release(&c);
}

/* A 2 x 2 grid: the 4 ms communication target did not converge, so the
 * driver measured only the 1 ms column, and of it only one cell (a run cut
 * short). */
static void test_unreachable_cells(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    const cell_id measured = {1, "0.001", "0.002"}; /* comm index 0, comp index 1 */
    row_of(&raw, &measured, 1, "comm_ref", 0, 0, 0, 5 * US, 5 * US, 1 * MS, 0, 0);
    row_of(&raw, &measured, 1, "comp_ref", 0, 0, 2 * MS, 2 * MS, 4 * MS, 4 * MS, 0, 0);
    row_of(&raw, &measured, 1, "overlap", 0, 0, 5 * MS, 5 * MS + 5 * US, 7 * MS, 7 * MS + 5 * US, 0,
           0);
    computed c;
    memset(&c, 0, sizeof c);
    calib_comm_row comm[] = {{"ibcast", 0.004, 0, 0.0031, false, false},
                             {"ibcast", 0.001, 1024, 0.001, true, false}};
    calib_comp_row comp[] = {{0.002, 100, 0.002, true}, {0.001, 80, 0.001, true}};
    c.in.calib_comm = comm;
    c.in.calib_comm_count = 2;
    c.in.have_calib_comm = true;
    c.in.calib_comp = comp;
    c.in.calib_comp_count = 2;
    c.in.have_calib_comp = true;
    compute_with(&c, &raw, NAN);
    assert_int_equal(c.cells.count, 4);
    static const struct {
        long cell;
        double comm_s, comp_s;
        unsigned reasons;
        long long bytes, matrix_n;
    } expected[] = {
        {0, 0.001, 0.001, INVALID_NOT_MEASURED, 1024, 80},
        {1, 0.001, 0.002, 0, 1024, 100},
        {2, 0.004, 0.001, INVALID_UNREACHABLE, 0, 80},
        {3, 0.004, 0.002, INVALID_UNREACHABLE, 0, 100},
    };
    for (size_t i = 0; i < 4; i++) {
        const cell_metrics *m = &c.cells.cells[i];
        assert_int_equal(m->cell, expected[i].cell);
        assert_close(m->comm_target_s, expected[i].comm_s, 1e-12);
        assert_close(m->comp_target_s, expected[i].comp_s, 1e-12);
        assert_int_equal(m->invalid_reasons, expected[i].reasons);
        assert_int_equal(m->valid, expected[i].reasons == 0);
        assert_int_equal(m->matrix_n, expected[i].matrix_n);
        assert_int_equal(m->bytes, expected[i].bytes);
        if (expected[i].reasons)
            assert_int_equal(m->overlap, VERDICT_INVALID);
    }
    char text[64];
    analysis_invalid_reasons_text(INVALID_UNREACHABLE, text, sizeof text);
    assert_string_equal(text, "unreachable");
    assert_int_equal(c.cells.rank_count, 1);
    assert_int_equal(c.cells.ranks[0].cell_index, 1);
    release(&c);
}

/* ---- Intervals ------------------------------------------------------------------ */

/* Standard normal draws (Box-Muller) from the generator of noise(). */
static double gaussian(uint64_t *state)
{
    double u = (noise(state, 1.0) + 1e-12) / 2.0, v = noise(state, 1.0) / 2.0;
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Multiplicative noise exp(sigma Z), Z standard normal, one draw in ten
 * four times wider (outliers): symmetric around 0, so its median is 1. */
static double outlier_noise(uint64_t *state, double sigma)
{
    double z = gaussian(state);
    if (noise(state, 1.0) < 1.1) /* [0, 2): the first tenth */
        z *= 4;
    return exp(sigma * z);
}

/* A raw.csv of many cells on one rank, written to memory. */
typedef struct big_raw {
    char *text;
    size_t len;
    FILE *out;
    long long clock_ns;
    long long seq;
} big_raw;

static void big_begin(big_raw *raw)
{
    *raw = (big_raw){0};
    raw->out = open_memstream(&raw->text, &raw->len);
    assert_non_null(raw->out);
    fputs(raw_header, raw->out);
}

static void big_row(big_raw *raw, int cell, int block, const char *kind, double call_s,
                    double comp_s, double wait_s)
{
    long long t1 = raw->clock_ns, t2 = t1 + ns_of(call_s), t3 = t2 + ns_of(comp_s),
              t4 = t3 + ns_of(wait_s);
    fprintf(raw->out,
            "%d,ibcast,0.01,0.02,1024,100,%d,%s,%s,0,%lld,1767225600.0,0,%lld,%lld,%lld,%lld,"
            "%lld,0,100000,0\n",
            cell, block, block ? "measure" : "warmup", kind, raw->seq++, t1, t2, t3, t4, t1);
    raw->clock_ns = t4 + 1000000;
}

static void big_compute(big_raw *raw, computed *c)
{
    assert_int_equal(fclose(raw->out), 0);
    memset(c, 0, sizeof *c);
    c->in.meta.barrier_precision_ns = NAN;
    analysis_error err;
    if (analysis_parse_raw(raw->text, raw->len, "raw.csv", &c->in.raw, &err) != ANALYSIS_OK)
        fail_msg("parse: %s", err.text);
    cell_rules rules = analysis_default_rules();
    if (analysis_compute_cells(&c->in, &rules, &c->cells, &err) != ANALYSIS_OK)
        fail_msg("compute: %s", err.text);
    free(raw->text);
}

/* Cells whose truths are known: comm_ref C e, comp_ref P e, the overlap
 * step a call, a computation of exactly s P and a wait of W e (e the noise
 * above, its median 1), so that the medians are C, P, call + W and call +
 * s P + W; every second block also measures the null controls, copies of
 * the references. */
enum { TRUTH_BLOCKS = 12 };
static const double truth_comm_s = 10e-3, truth_comp_s = 20e-3, truth_wait_s = 12e-3,
                    truth_call_s = 5e-6, truth_slowdown = 1.1, truth_sigma = 0.03;

static void truth_cells(big_raw *raw, int first_cell, int count, uint64_t *rng)
{
    for (int c = first_cell; c < first_cell + count; c++) {
        for (int b = 0; b <= TRUTH_BLOCKS; b++) {
            big_row(raw, c, b, "comm_ref", truth_call_s, 0,
                    truth_comm_s * outlier_noise(rng, truth_sigma) - truth_call_s);
            big_row(raw, c, b, "comp_ref", 0, truth_comp_s * outlier_noise(rng, truth_sigma), 0);
            big_row(raw, c, b, "overlap", truth_call_s, truth_slowdown * truth_comp_s,
                    truth_wait_s * outlier_noise(rng, truth_sigma));
            if (b == 0 || b % 2)
                continue;
            big_row(raw, c, b, "comm_null", truth_call_s, 0,
                    truth_comm_s * outlier_noise(rng, truth_sigma) - truth_call_s);
            big_row(raw, c, b, "comp_null", 0, truth_comp_s * outlier_noise(rng, truth_sigma), 0);
        }
    }
}

static bool covers(metric_bounds interval, double truth)
{
    return interval.lo <= truth && truth <= interval.hi;
}

/* Coverage of cells' intervals of truths known by construction. Each
 * interval covers its truth or not, independently of the other cells (each
 * has its own blocks and its own stream of the bootstrap), so the covering
 * count of K cells is Binomial(K, p), p the true coverage. At p = 0.95 its
 * standard deviation is sqrt(K 0.95 0.05): 4.87 cells for K = 500. The
 * test accepts 95 % +- 3.5 standard deviations, 95 +- 3.4 %: a correct
 * method fails one of the five checks with probability about 2.5e-3 (the
 * data are seeded: it passes or fails the same way every time), while a
 * broken one (kinds resampled apart, the wrong percentiles, no correction
 * of the bootstrap's narrowness: 93 % for few blocks, see README.md) is
 * caught when its coverage leaves that band. */
static void test_interval_coverage(void **state)
{
    (void)state;
    enum { CELLS = 500 };
    big_raw raw;
    big_begin(&raw);
    uint64_t rng = 77;
    truth_cells(&raw, 0, CELLS, &rng);
    computed c;
    big_compute(&raw, &c);
    assert_int_equal(c.cells.count, CELLS);
    double truth_overhead =
        (truth_call_s + truth_slowdown * truth_comp_s + truth_wait_s - truth_comp_s) / truth_comm_s;
    double truth_comm = (truth_call_s + truth_wait_s) / truth_comm_s;
    long covered[5] = {0};
    for (size_t i = 0; i < CELLS; i++) {
        const cell_metrics *m = &c.cells.cells[i];
        assert_int_equal(m->blocks, TRUTH_BLOCKS);
        assert_int_equal(m->comm_null_blocks, TRUTH_BLOCKS / 2);
        covered[0] += covers(m->r_overhead_ci, truth_overhead);
        covered[1] += covers(m->r_comm_ci, truth_comm);
        covered[2] += covers(m->r_comp_slowdown_ci, truth_slowdown);
        covered[3] += covers(m->comm_null_ci, 1.0);
        covered[4] += covers(m->comp_null_ci, 1.0);
    }
    static const char *const names[5] = {"r_overhead", "r_comm", "r_comp_slowdown",
                                         "comm_null / comm_ref", "comp_null / comp_ref"};
    double sd = sqrt(CELLS * 0.95 * 0.05), lowest = CELLS * 0.95 - 3.5 * sd,
           highest = CELLS * 0.95 + 3.5 * sd;
    for (int q = 0; q < 5; q++) {
        print_message("figure: coverage of 95 %% intervals, %s, %d blocks: %.1f %% of %d "
                      "cells (accepted %.1f to %.1f %%)\n",
                      names[q], q < 3 ? TRUTH_BLOCKS : TRUTH_BLOCKS / 2,
                      100.0 * (double)covered[q] / CELLS, CELLS, 100 * lowest / CELLS,
                      100 * highest / CELLS);
        assert_true(covered[q] >= lowest && covered[q] <= highest);
    }
    /* the run's null-control coverage counts the same cells */
    assert_int_equal(c.cells.uncertainty.null_cells[NULL_COMM], CELLS);
    assert_int_equal(c.cells.uncertainty.null_covered[NULL_COMM], covered[3]);
    assert_int_equal(c.cells.uncertainty.null_covered[NULL_COMP], covered[4]);
    release(&c);
}

/* A reference 30 % off its target is a flag, not a reading: the cell (comm
 * target 10 ms, comm_ref 13 ms; comp 20 ms on target) reads its band from
 * its ratios (the collective held: none) all the same. */
static void test_off_target_flag(void **state)
{
    (void)state;
    uint64_t rng = 5;
    big_raw raw;
    big_begin(&raw);
    for (int c = 0; c < 2; c++)
        for (int b = 0; b <= TRUTH_BLOCKS; b++) {
            big_row(&raw, c, b, "comm_ref", truth_call_s, 0,
                    13e-3 * outlier_noise(&rng, truth_sigma) - truth_call_s);
            big_row(&raw, c, b, "comp_ref", 0, 20e-3 * outlier_noise(&rng, truth_sigma), 0);
            big_row(&raw, c, b, "overlap", truth_call_s, 20e-3,
                    13e-3 * outlier_noise(&rng, truth_sigma));
        }
    assert_int_equal(fclose(raw.out), 0);
    computed comp;
    memset(&comp, 0, sizeof comp);
    comp.in.meta.barrier_precision_ns = NAN;
    sweep_row sweep[2] = {{0, TRUTH_BLOCKS, "precision"}, {1, TRUTH_BLOCKS, "max"}};
    comp.in.sweep = sweep;
    comp.in.sweep_count = 2;
    analysis_error err;
    cell_rules rules = analysis_default_rules();
    if (analysis_parse_raw(raw.text, raw.len, "raw.csv", &comp.in.raw, &err) != ANALYSIS_OK ||
        analysis_compute_cells(&comp.in, &rules, &comp.cells, &err) != ANALYSIS_OK)
        fail_msg("%s", err.text);
    free(raw.text);
    const cell_metrics *flagged = &comp.cells.cells[0];
    assert_true(flagged->valid);
    assert_true(flagged->comm_off_target);
    assert_false(flagged->comp_off_target);
    assert_close(flagged->comm_target_error, 0.3, 0.02);
    assert_int_equal(flagged->overlap, VERDICT_NONE);
    assert_int_equal(flagged->class, VERDICT_ONE_LAUNCH);
    assert_string_equal(comp.cells.cells[1].stop, "max");
    assert_int_equal(comp.cells.uncertainty.off_target_cells, 2);
    comp.in.sweep = NULL; /* not ours to free */
    release(&comp);
}

/* Beyond the median: the mean of eq. 1 per block and its interval, its 90th
 * percentile, the blocks outside Tukey's fences, and two modes. */
static void test_distribution_beyond_median(void **state)
{
    (void)state;
    /* r_overhead per block (references 10 and 20 ms): cell 0 twelve values
     * spread evenly with one far block, cell 1 half near 0 and half near 1 */
    static const double cell0[TRUTH_BLOCKS] = {0.10, 0.11, 0.12, 0.13, 0.14, 0.15,
                                               0.16, 0.17, 0.18, 0.19, 0.20, 2.0};
    static const double cell1[TRUTH_BLOCKS] = {0.0, 0.01, 0.02, 0.03, 0.04, 0.05,
                                               1.0, 1.01, 1.02, 1.03, 1.04, 1.05};
    const double *cells[2] = {cell0, cell1};
    big_raw raw;
    big_begin(&raw);
    for (int cell = 0; cell < 2; cell++) {
        for (int b = 0; b <= TRUTH_BLOCKS; b++) {
            double r = cells[cell][b ? b - 1 : 0];
            big_row(&raw, cell, b, "comm_ref", 5e-6, 0, 0.010 - 5e-6);
            big_row(&raw, cell, b, "comp_ref", 0, 0.020, 0);
            big_row(&raw, cell, b, "overlap", 0, 0.020, 0.010 * r);
        }
    }
    computed c;
    big_compute(&raw, &c);
    const cell_metrics *tail = &c.cells.cells[0], *two = &c.cells.cells[1];
    double mean = 0;
    for (int b = 0; b < TRUTH_BLOCKS; b++)
        mean += cell0[b] / TRUTH_BLOCKS;
    assert_close(tail->r_overhead, 0.155, 1e-6);
    assert_close(tail->r_overhead_mean, mean, 1e-6);
    assert_true(tail->r_overhead_mean_ci.lo < mean && tail->r_overhead_mean_ci.hi > mean);
    /* type 7: h = 0.9 x 11 = 9.9, from the 10th value (0.19) 0.9 of the way
     * to the 11th (0.20) */
    assert_close(tail->r_overhead_p90, 0.19 + 0.9 * 0.01, 1e-6);
    assert_close(tail->r_overhead_outlier_share, 1.0 / TRUTH_BLOCKS, 1e-12);
    assert_false(tail->r_overhead_bimodal);
    print_message("figure: bimodality coefficient: %.3f for one mode and a far block, %.3f for "
                  "two modes (bimodal above 5/9)\n",
                  tail->r_overhead_bimodality, two->r_overhead_bimodality);
    assert_true(two->r_overhead_bimodal);
    assert_true(two->r_overhead_bimodality > 5.0 / 9.0);
    assert_close(two->r_overhead_outlier_share, 0, 1e-12);
    release(&c);
}

/* The bootstrap is seeded: the same seed gives the same intervals, another
 * seed other ones (of the same width, roughly). */
static void test_seeded_bootstrap(void **state)
{
    (void)state;
    double lo[3];
    for (int run = 0; run < 3; run++) {
        big_raw raw;
        big_begin(&raw);
        uint64_t rng = 5;
        truth_cells(&raw, 0, 1, &rng);
        assert_int_equal(fclose(raw.out), 0);
        computed c;
        memset(&c, 0, sizeof c);
        c.in.meta.barrier_precision_ns = NAN;
        analysis_error err;
        assert_int_equal(analysis_parse_raw(raw.text, raw.len, "raw.csv", &c.in.raw, &err), 0);
        cell_rules rules = analysis_default_rules();
        rules.uncertainty.seed = run == 2 ? 2 : 1;
        assert_int_equal(analysis_compute_cells(&c.in, &rules, &c.cells, &err), 0);
        lo[run] = c.cells.cells[0].r_overhead_ci.lo;
        assert_int_equal(c.cells.cells[0].bootstrap_seed, rules.uncertainty.seed);
        free(raw.text);
        release(&c);
    }
    assert_true(lo[0] == lo[1]);
    assert_true(lo[0] != lo[2]);
    assert_close(lo[2], lo[0], 0.05);
}

/* ---- MPI impact ------------------------------------------------------------------ */

/* passive.csv's counters of a file written before them. */
#define NO_COUNTERS NAN, NAN, NAN, NAN

/* Each (member, phase) of the old one-median-per-rank test as 3 steps whose
 * median is the old value. */
static const double step_spread[3] = {1.0, 0.99, 1.01};

static void test_mpi_impact(void **state)
{
    (void)state;
    /* host, rank, threads, matrix_n, target, phase, warmup, reps, (step), t,
     * no scheduler counters (a passive.csv before them) */
    static const passive_row medians[] = {
        {"nodeA", 0, 2, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0210, NO_COUNTERS},
        {"nodeA", 1, 2, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0220,
         NO_COUNTERS}, /* the slowest rank counts */
        {"nodeA", 0, 2, 100, 0.02, PHASE_AFTER, 2, 3, 0, 0.0230, NO_COUNTERS},
        {"nodeA", 1, 2, 100, 0.02, PHASE_AFTER, 2, 3, 0, 0.0240, NO_COUNTERS},
        {"nodeB", 2, 2, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0200, NO_COUNTERS},
        {"nodeB", 2, 2, 100, 0.02, PHASE_AFTER, 2, 3, 0, 0.0300,
         NO_COUNTERS}, /* no reference after */
        {"nodeC", 3, 2, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0300,
         NO_COUNTERS}, /* no reference: skipped */
    };
    /* host, proc, procs, threads, matrix_n, target, phase, warmup, reps, (step), t */
    static const compute_ref_row ref_medians[] = {
        {"nodeA", 0, 2, 2, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0195, false},
        {"nodeA", 1, 2, 2, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0200, false},
        {"nodeA", 0, 2, 2, 100, 0.02, PHASE_AFTER, 2, 3, 0, 0.0210, false},
        {"nodeA", 1, 2, 2, 100, 0.02, PHASE_AFTER, 2, 3, 0, 0.0205, false},
        /* nodeB: 2 processes for its 1 rank, another thread count */
        {"nodeB", 0, 2, 4, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0190, false},
        {"nodeB", 1, 2, 4, 100, 0.02, PHASE_BEFORE, 2, 3, 0, 0.0160, false},
        {"nodeA", 0, 1, 2, 200, 0.16, PHASE_BEFORE, 2, 3, 0, 0.1600, false}, /* other size */
    };
    enum { NP = sizeof medians / sizeof *medians, NR = sizeof ref_medians / sizeof *ref_medians };
    passive_row passive[NP * 3];
    compute_ref_row refs[NR * 3];
    for (int i = 0; i < NP * 3; i++) {
        passive[i] = medians[i / 3];
        passive[i].step = i % 3;
        passive[i].t_comp_s *= step_spread[i % 3];
    }
    for (int i = 0; i < NR * 3; i++) {
        refs[i] = ref_medians[i / 3];
        refs[i].step = i % 3;
        refs[i].t_comp_s *= step_spread[i % 3];
    }
    run_inputs in = {.passive = passive,
                     .passive_count = NP * 3,
                     .have_passive = true,
                     .compute_ref = refs,
                     .compute_ref_count = NR * 3,
                     .have_compute_ref = true};
    impact_table impact;
    analysis_error err;
    uncertainty_rules rules = analysis_default_uncertainty();
    assert_int_equal(analysis_compute_impact(&in, &rules, &impact, &err), 0);
    assert_int_equal(impact.count, 2);
    const impact_row *a = &impact.rows[0], *b = &impact.rows[1];
    assert_string_equal(a->host, "nodeA");
    /* T_passive = mean(0.022, 0.024), T_ref = mean(0.020, 0.021) */
    assert_close(a->t_passive_phase_s[PHASE_BEFORE], 0.022, 1e-12);
    assert_close(a->t_ref_phase_s[PHASE_AFTER], 0.021, 1e-12);
    assert_close(a->t_comp_passive_mpi_s, 0.023, 1e-12);
    assert_close(a->t_comp_ref_s, 0.0205, 1e-12);
    /* eq. 2: the geometric mean of the two pairs' ratios */
    assert_close(a->r_mpi_impact, sqrt(0.022 / 0.020 * (0.024 / 0.021)), 1e-9);
    assert_int_equal(a->pairs, 2);
    assert_close(a->r_phase[PHASE_BEFORE], 0.022 / 0.020, 1e-9);
    assert_close(a->r_phase[PHASE_AFTER], 0.024 / 0.021, 1e-9);
    assert_int_equal(a->phases, (1u << PHASE_BEFORE) | (1u << PHASE_AFTER));
    assert_true(a->r_mpi_impact_ci.lo <= a->r_mpi_impact &&
                a->r_mpi_impact <= a->r_mpi_impact_ci.hi);
    assert_int_equal(a->passive_steps, 3);
    assert_int_equal(a->ranks, 2);
    assert_int_equal(a->procs, 2);
    assert_int_equal(a->warnings, 0);
    assert_string_equal(b->host, "nodeB");
    /* after: in passive.csv only, so r_mpi_impact rests on before alone */
    assert_close(b->t_passive_phase_s[PHASE_AFTER], 0.030, 1e-12);
    assert_true(isnan(b->r_phase[PHASE_AFTER]));
    assert_int_equal(b->phases, 1u << PHASE_BEFORE);
    assert_close(b->t_comp_passive_mpi_s, 0.020, 1e-12);
    assert_close(b->t_comp_ref_s, 0.019, 1e-12);
    assert_int_equal(b->warnings,
                     IMPACT_PROCS_DIFFER | IMPACT_THREADS_DIFFER | IMPACT_PHASE_UNPAIRED);
    char text[160];
    analysis_impact_warnings_text(b->warnings, text, sizeof text);
    assert_string_equal(text, "procs_differ+threads_differ+phase_unpaired");
    /* no scheduler counters in these steps: no shares */
    assert_true(isnan(a->passive_delay_share) && isnan(a->passive_progress_cpu_share));
    assert_true(isnan(b->passive_delay_share) && isnan(b->passive_progress_cpu_share));
    /* the job: every host's ranks against every host's processes, by size */
    assert_int_equal(impact.job_count, 1); /* matrix_n 200: no passive step */
    assert_string_equal(impact.job[0].host, "all");
    assert_int_equal(impact.job[0].matrix_n, 100);
    /* before: 0.030 (nodeC) / 0.020; after: 0.030 (nodeB) / 0.021 */
    assert_close(impact.job[0].r_phase[PHASE_BEFORE], 0.030 / 0.020, 1e-9);
    assert_close(impact.job[0].r_phase[PHASE_AFTER], 0.030 / 0.021, 1e-9);
    analysis_impact_table_free(&impact);
}

/* One host, two ranks, 12 steps a phase: the passive steps take 10 ms in
 * both phases, the reference 10 ms before the sweep and `ref_after_s` after
 * it (each step within 1 %). */
static impact_table impact_of_phases(double ref_after_s)
{
    enum { STEPS = 12, MEMBERS = 2 };
    passive_row passive[PHASE_COUNT * MEMBERS * STEPS];
    compute_ref_row refs[PHASE_COUNT * MEMBERS * STEPS];
    size_t n = 0;
    for (int phase = 0; phase < PHASE_COUNT; phase++)
        for (int member = 0; member < MEMBERS; member++)
            for (int step = 0; step < STEPS; step++, n++) {
                double spread = 1 + 0.01 * ((step * 7 + member * 3) % 5 - 2) / 2;
                passive[n] =
                    (passive_row){"nodeA", member,         1,          100, 0.01, phase, 1, STEPS,
                                  step,    0.010 * spread, NO_COUNTERS};
                double ref_s = phase == PHASE_AFTER ? ref_after_s : 0.010;
                refs[n] =
                    (compute_ref_row){"nodeA", member, MEMBERS,        1,    100, 0.01, phase, 1,
                                      STEPS,   step,   ref_s * spread, false};
            }
    run_inputs in = {.passive = passive,
                     .passive_count = n,
                     .have_passive = true,
                     .compute_ref = refs,
                     .compute_ref_count = n,
                     .have_compute_ref = true};
    impact_table impact;
    analysis_error err;
    uncertainty_rules rules = analysis_default_uncertainty();
    rules.resamples = 500;
    assert_int_equal(analysis_compute_impact(&in, &rules, &impact, &err), 0);
    assert_int_equal(impact.count, 1);
    return impact;
}

/* The phases' ratios apart (the reference 45 % faster after the sweep, as
 * when a slow spell hit the reference before it): the paired interval over
 * the two pairs (t, one degree of freedom) spans both phases' ratios, with
 * no warning (pairs differing is what it measures). Phases 1 % apart:
 * an interval holding both, no wider than the t-interval of that spread. */
static void test_mpi_impact_phases_disagree(void **state)
{
    (void)state;
    impact_table impact = impact_of_phases(0.0055);
    const impact_row *r = &impact.rows[0];
    assert_close(r->r_phase[PHASE_BEFORE], 1.0, 0.02);
    assert_close(r->r_phase[PHASE_AFTER], 1 / 0.55, 0.02);
    assert_true(r->r_phase_ci[PHASE_BEFORE].hi < r->r_phase_ci[PHASE_AFTER].lo);
    assert_int_equal(r->warnings, 0);
    assert_true(r->r_mpi_impact_ci.lo <= r->r_phase[PHASE_BEFORE]);
    assert_true(r->r_mpi_impact_ci.hi >= r->r_phase[PHASE_AFTER]);
    analysis_impact_table_free(&impact);

    impact = impact_of_phases(0.0101);
    r = &impact.rows[0];
    assert_int_equal(r->warnings, 0);
    double d = fabs(log(r->r_phase[PHASE_AFTER] / r->r_phase[PHASE_BEFORE]));
    double half = 12.7062047 * d / 2; /* t(0.975, 1) sd / sqrt(2), sd = d / sqrt(2) */
    assert_close(log(r->r_mpi_impact_ci.hi / r->r_mpi_impact), half, 1e-6);
    assert_true(r->r_mpi_impact_ci.lo <= fmin(r->r_phase[PHASE_BEFORE], r->r_phase[PHASE_AFTER]));
    analysis_impact_table_free(&impact);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorted in place), written out here as the
 * definition the test holds the code to. */
static double median_of(double *values, size_t n)
{
    qsort(values, n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* The median over impact.csv's rows and its interval: known values (odd and
 * even counts, rows without r skipped, a row without an interval leaves the
 * median without one), then the property it rests on: over 2000 random sets
 * of rows whose true values lie within their intervals, the median of the
 * true values lies within the median's interval, every time. */
static void test_mpi_impact_median(void **state)
{
    (void)state;
    analysis_error err;
    impact_median m;
    impact_row rows[9];
    memset(rows, 0, sizeof rows);
    const double values[] = {2.0, 0.9, 1.8, NAN, 1.9};
    const metric_bounds ends[] = {{1.9, 2.1}, {0.5, 2.5}, {1.7, 1.9}, {NAN, NAN}, {1.0, 1.95}};
    for (int i = 0; i < 5; i++) {
        rows[i].r_mpi_impact = values[i];
        rows[i].r_mpi_impact_ci = ends[i];
    }
    assert_int_equal(analysis_impact_median(rows, 5, &m, &err), ANALYSIS_OK);
    assert_int_equal(m.rows, 4);
    assert_close(m.r_mpi_impact, 1.85, 1e-12);
    assert_close(m.ci.lo, 1.35, 1e-12);  /* lows 0.5 1.0 1.7 1.9 */
    assert_close(m.ci.hi, 2.025, 1e-12); /* highs 1.9 1.95 2.1 2.5 */
    assert_int_equal(analysis_impact_median(rows, 3, &m, &err), ANALYSIS_OK);
    assert_close(m.r_mpi_impact, 1.8, 1e-12);
    assert_close(m.ci.lo, 1.7, 1e-12);
    assert_close(m.ci.hi, 2.1, 1e-12);
    rows[1].r_mpi_impact_ci.hi = NAN;
    assert_int_equal(analysis_impact_median(rows, 3, &m, &err), ANALYSIS_OK);
    assert_close(m.r_mpi_impact, 1.8, 1e-12);
    assert_true(isnan(m.ci.lo) && isnan(m.ci.hi));
    assert_int_equal(analysis_impact_median(rows + 3, 1, &m, &err), ANALYSIS_OK);
    assert_int_equal(m.rows, 0);
    assert_true(isnan(m.r_mpi_impact) && isnan(m.ci.lo));

    uint64_t rng = 42;
    for (int set = 0; set < 2000; set++) {
        int count = 1 + set % 9;
        double truths[9];
        for (int i = 0; i < count; i++) {
            truths[i] = noise(&rng, 0.9); /* 0.1 to 1.9 */
            /* lopsided intervals, the estimate within its own as well */
            double below = 0.5 * noise(&rng, 1.0), above = noise(&rng, 1.0);
            rows[i].r_mpi_impact = truths[i] + 0.5 * (above - below);
            rows[i].r_mpi_impact_ci = (metric_bounds){truths[i] - below, truths[i] + above};
        }
        assert_int_equal(analysis_impact_median(rows, (size_t)count, &m, &err), ANALYSIS_OK);
        double truth = median_of(truths, (size_t)count);
        assert_true(m.ci.lo <= truth && truth <= m.ci.hi);
        assert_true(m.ci.lo <= m.r_mpi_impact && m.r_mpi_impact <= m.ci.hi);
    }
}

/* Why the passive steps took what they took, from passive.csv's counters:
 * known shares over the steps of the phases used, the counters of a phase
 * without its reference left out, NAN when a step lacks them. */
static void test_mpi_impact_shares(void **state)
{
    (void)state;
    enum { STEPS = 3 };
    /* nodeA: rank 0 shares its core with a busy progress thread (it waits
     * as long as it computes, the thread runs in that wait), rank 1 has
     * its core alone; both phases used. nodeB: before only in
     * compute_ref.csv, and its after steps say something else: left out. */
    static const passive_row rows[] = {
        /* host, rank, threads, n, target, phase, warmup, reps, (step), t,
         * window, compute cpu, compute delay, progress cpu (ns) */
        {"nodeA", 0, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.020, 2.1e7, 1.0e7, 1.0e7, 0.9e7},
        {"nodeA", 1, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.012, 1.3e7, 1.0e7, 0.2e7, 0.1e7},
        {"nodeA", 0, 1, 100, 0.01, PHASE_AFTER, 1, STEPS, 0, 0.020, 2.1e7, 1.0e7, 1.0e7, 0.9e7},
        {"nodeA", 1, 1, 100, 0.01, PHASE_AFTER, 1, STEPS, 0, 0.012, 1.3e7, 1.0e7, 0.2e7, 0.1e7},
        {"nodeB", 2, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.010, 1.1e7, 1.0e7, 0.0, 0.0},
        {"nodeB", 2, 1, 100, 0.01, PHASE_AFTER, 1, STEPS, 0, 0.030, 3.1e7, 1.0e7, 2.0e7, 2.0e7},
        /* nodeC: one step of its rank could not be read */
        {"nodeC", 3, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.010, 1.1e7, 1.0e7, 0.1e7, 0.0},
    };
    static const compute_ref_row ref_rows[] = {
        {"nodeA", 0, 2, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.010, false},
        {"nodeA", 1, 2, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.010, false},
        {"nodeA", 0, 2, 1, 100, 0.01, PHASE_AFTER, 1, STEPS, 0, 0.010, false},
        {"nodeA", 1, 2, 1, 100, 0.01, PHASE_AFTER, 1, STEPS, 0, 0.010, false},
        {"nodeB", 0, 1, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.010, false},
        {"nodeC", 0, 1, 1, 100, 0.01, PHASE_BEFORE, 1, STEPS, 0, 0.010, false},
    };
    enum { NP = sizeof rows / sizeof *rows, NR = sizeof ref_rows / sizeof *ref_rows };
    passive_row passive[NP * STEPS];
    compute_ref_row refs[NR * STEPS];
    for (int i = 0; i < NP * STEPS; i++) {
        passive[i] = rows[i / STEPS];
        passive[i].step = i % STEPS;
    }
    passive[(NP - 1) * STEPS + 1].compute_run_delay_ns = NAN; /* nodeC, step 1 */
    for (int i = 0; i < NR * STEPS; i++) {
        refs[i] = ref_rows[i / STEPS];
        refs[i].step = i % STEPS;
    }
    run_inputs in = {.passive = passive,
                     .passive_count = NP * STEPS,
                     .have_passive = true,
                     .compute_ref = refs,
                     .compute_ref_count = NR * STEPS,
                     .have_compute_ref = true};
    impact_table impact;
    analysis_error err;
    uncertainty_rules rules = analysis_default_uncertainty();
    rules.resamples = 200;
    assert_int_equal(analysis_compute_impact(&in, &rules, &impact, &err), 0);
    assert_int_equal(impact.count, 3);
    const impact_row *a = &impact.rows[0], *b = &impact.rows[1], *c = &impact.rows[2];
    assert_string_equal(a->host, "nodeA");
    /* per step over both ranks: cpu 2e7, delay 1.2e7, progress 1e7 */
    assert_close(a->r_mpi_impact, 2.0, 1e-12);
    assert_close(a->passive_delay_share, 1.2 / 3.2, 1e-12);
    assert_close(a->passive_progress_cpu_share, 1.0 / 3.2, 1e-12);
    assert_string_equal(b->host, "nodeB");
    assert_int_equal(b->phases, 1u << PHASE_BEFORE);
    assert_close(b->passive_delay_share, 0.0, 1e-12); /* not 2/3: after is not used */
    assert_close(b->passive_progress_cpu_share, 0.0, 1e-12);
    assert_string_equal(c->host, "nodeC");
    assert_true(isnan(c->passive_delay_share) && isnan(c->passive_progress_cpu_share));
    /* impact.csv says it: the shares in their columns, nan where undefined */
    char dir[] = "/tmp/test_impact_shares_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cell_table cells = {0};
    assert_int_equal(analysis_write_tables(dir, &cells, &impact, &err), 0);
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/impact.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(
        strstr(line, ",warnings,passive_delay_share,passive_progress_cpu_share,r_aa,r_aa_ci_lo,"
                     "r_aa_ci_hi\n"));
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",0.375,0.3125,")); /* then r_aa and its interval */
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",nan,nan,"));
    fclose(f);
    analysis_impact_table_free(&impact);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/cells.csv", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/cells_by_rank.csv", dir);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

/* Per-step data of one host whose r_MPI_impact is known: `ranks` ranks and
 * as many processes, `steps` steps each, lognormal noise of 2 % per step
 * (outliers included), passive steps `ratio` times the reference's. Step
 * times of both programs have the same distribution up to that factor, so
 * the same statistic of each has the ratio `ratio` as its truth. */
typedef struct impact_sample {
    passive_row passive[2 * 4 * 48];
    compute_ref_row refs[2 * 4 * 48];
    run_inputs in;
} impact_sample;

static void impact_sample_make(impact_sample *s, int ranks, int steps, const double ratio[2],
                               uint64_t *rng)
{
    size_t np = 0, nr = 0;
    for (int p = 0; p < PHASE_COUNT; p++)
        for (int m = 0; m < ranks; m++)
            for (int k = 0; k < steps; k++) {
                double base = 0.010 * (1 + 0.05 * p); /* the machine drifted */
                s->passive[np++] = (passive_row){
                    "node0",           m, 1,     100, 0.01,
                    (enum run_phase)p, 1, steps, k,   base * ratio[p] * outlier_noise(rng, 0.02),
                    NO_COUNTERS};
                s->refs[nr++] = (compute_ref_row){"node0",
                                                  m,
                                                  ranks,
                                                  1,
                                                  100,
                                                  0.01,
                                                  (enum run_phase)p,
                                                  1,
                                                  steps,
                                                  k,
                                                  base * outlier_noise(rng, 0.02),
                                                  false};
            }
    s->in = (run_inputs){.passive = s->passive,
                         .passive_count = np,
                         .have_passive = true,
                         .compute_ref = s->refs,
                         .compute_ref_count = nr,
                         .have_compute_ref = true};
}

/* The interval of eq. 2: a known ratio is recovered, its 95 % intervals
 * cover it at least about 95 % of the time (the binomial band of
 * test_interval_coverage, 3.5 standard deviations, below; the slowest
 * rank's median makes them conservative, about 99 % with 2 ranks and 97 %
 * with one: README.md), they are not much wider than the estimates'
 * spread over the samples says they should be, and they narrow with more
 * steps (about as 1 / sqrt(steps): 4 times the steps, half the width). */
static void test_mpi_impact_interval(void **state)
{
    (void)state;
    enum { SAMPLES = 300, RANKS = 2 };
    static impact_sample s;
    const double ratio[2] = {1.05, 1.10};
    uncertainty_rules rules = analysis_default_uncertainty();
    rules.resamples = 1000;
    uint64_t rng = 2024;
    long covered[3] = {0};
    double combined_truth = (1.00 * ratio[0] + 1.05 * ratio[1]) / (1.00 + 1.05);
    double sum = 0, square = 0, mean_width = 0; /* of the before phase */
    for (int i = 0; i < SAMPLES; i++) {
        impact_sample_make(&s, RANKS, 12, ratio, &rng);
        impact_table impact;
        analysis_error err;
        rules.seed = i + 1;
        assert_int_equal(analysis_compute_impact(&s.in, &rules, &impact, &err), 0);
        assert_int_equal(impact.count, 1);
        const impact_row *r = &impact.rows[0];
        assert_int_equal(r->passive_steps, 12);
        assert_close(r->r_phase[PHASE_BEFORE], ratio[0], 0.1);
        assert_close(r->r_phase[PHASE_AFTER], ratio[1], 0.1);
        covered[0] += covers(r->r_phase_ci[PHASE_BEFORE], ratio[0]);
        covered[1] += covers(r->r_phase_ci[PHASE_AFTER], ratio[1]);
        covered[2] += covers(r->r_mpi_impact_ci, combined_truth);
        sum += r->r_phase[PHASE_BEFORE];
        square += r->r_phase[PHASE_BEFORE] * r->r_phase[PHASE_BEFORE];
        mean_width += (r->r_phase_ci[PHASE_BEFORE].hi - r->r_phase_ci[PHASE_BEFORE].lo) / SAMPLES;
        analysis_impact_table_free(&impact);
    }
    double sd = sqrt(SAMPLES * 0.95 * 0.05), lowest = SAMPLES * 0.95 - 3.5 * sd;
    static const char *const names[3] = {"before", "after", "over both phases"};
    for (int q = 0; q < 3; q++) {
        print_message("figure: coverage of r_MPI_impact's 95 %% intervals, %s, 12 steps x %d "
                      "ranks: %.1f %% of %d samples (accepted from %.1f %%)\n",
                      names[q], RANKS, 100.0 * (double)covered[q] / SAMPLES, SAMPLES,
                      100 * lowest / SAMPLES);
        assert_true(covered[q] >= lowest);
    }
    double spread = sqrt((square - sum * sum / SAMPLES) / (SAMPLES - 1));
    double width_share = mean_width / (2 * 1.96 * spread);
    print_message("figure: r_MPI_impact interval width over 2 x 1.96 x the estimates' standard "
                  "deviation: %.2f\n",
                  width_share);
    assert_true(width_share > 0.9 && width_share < 1.6);
    /* width against steps: the mean over 30 samples at 6, 12, 24, 48 */
    static const int step_counts[4] = {6, 12, 24, 48};
    double width[4];
    for (int c = 0; c < 4; c++) {
        width[c] = 0;
        for (int i = 0; i < 30; i++) {
            impact_sample_make(&s, RANKS, step_counts[c], ratio, &rng);
            impact_table impact;
            analysis_error err;
            assert_int_equal(analysis_compute_impact(&s.in, &rules, &impact, &err), 0);
            const metric_bounds ci = impact.rows[0].r_phase_ci[PHASE_BEFORE];
            width[c] += (ci.hi - ci.lo) / 30;
            analysis_impact_table_free(&impact);
        }
        print_message("figure: r_MPI_impact interval width, %d steps: %.4f\n", step_counts[c],
                      width[c]);
    }
    for (int c = 1; c < 4; c++)
        assert_true(width[c] < width[c - 1]);
    assert_true(width[2] < 0.7 * width[0] && width[3] < 0.7 * width[1]);
}

/* raw.csv's foreign_wait_ns: a cell of 10 ms x 20 ms in 5 blocks on one
 * rank, its overlap step perfectly hidden (20 ms), each step's wait for a
 * CPU another process held given per block and kind (ns; -1: not read). */
static void foreign_run(raw_text *raw, const long long wait_ns[5][3])
{
    raw->len = (size_t)snprintf(raw->text, sizeof raw->text, "%.*s,start_skew_ns,foreign_wait_ns\n",
                                (int)strlen(raw_header) - 1, raw_header);
    static const char *const kinds[] = {"comm_ref", "comp_ref", "overlap"};
    for (int b = 1; b <= 5; b++) {
        long long base = b * 100 * MS, jitter = (b * 37 % 5) * 20 * US;
        long long t[3][4] = {
            {base, base + 5 * US, base + 5 * US, base + 10 * MS + jitter},
            {base + 20 * MS, base + 20 * MS, base + 40 * MS + jitter, base + 40 * MS + jitter},
            {base + 50 * MS, base + 50 * MS + 5 * US, base + 70 * MS - 5 * US,
             base + 70 * MS + jitter}};
        for (int k = 0; k < 3; k++) {
            int n = snprintf(raw->text + raw->len, sizeof raw->text - raw->len,
                             "0,ibcast,0.01,0.02,1024,100,%d,measure,%s,0,%d,%.6f,0,%lld,%lld,%lld,"
                             "%lld,%lld,0,100000,0,0,%lld\n",
                             b, kinds[k], b * 3 + k, 1767225600.0 + (double)t[k][0] * 1e-9, t[k][0],
                             t[k][1], t[k][2], t[k][3], t[k][0], wait_ns[b - 1][k]);
            assert_true(n > 0 && (size_t)n < sizeof raw->text - raw->len);
            raw->len += (size_t)n;
        }
    }
}

/* README.md, "Foreign waits": a median span too long by its kind's median
 * wait moves eq. 1; the interval holds every combination of the three
 * spans with and without it. Waits of 3 ms in every comp_ref (the longer
 * reference) and of 2 ms in 3 of 5 overlap steps (median 2 ms) can move
 * r_overhead (0 here) by eq1(10, 17, 20) = +0.3 and eq1(10, 20, 18) = -0.2;
 * 5 ms in one comm_ref of five is not the median block's and moves nothing.
 * A rank's wait not read leaves the interval the bootstrap's. */
static void test_foreign_wait_widens_overhead(void **state)
{
    (void)state;
    static raw_text raw;
    static const long long none[5][3] = {{0}};
    static const long long waits[5][3] = {{5 * MS, 3 * MS, 2 * MS},
                                          {0, 3 * MS, 0},
                                          {0, 3 * MS, 2 * MS},
                                          {0, 3 * MS, 0},
                                          {0, 3 * MS, 2 * MS}};
    long long unread[5][3];
    memcpy(unread, waits, sizeof unread);
    unread[2][0] = -1;
    computed quiet, loaded, blind;
    foreign_run(&raw, none);
    compute(&quiet, &raw);
    foreign_run(&raw, waits);
    compute(&loaded, &raw);
    foreign_run(&raw, unread);
    compute(&blind, &raw);
    const cell_metrics *q = &quiet.cells.cells[0], *l = &loaded.cells.cells[0];
    const cell_metrics *u = &blind.cells.cells[0];
    assert_true(q->valid && l->valid && u->valid);
    assert_int_equal(l->blocks, 5);
    assert_close(q->foreign_wait_s, 0, 0);
    assert_close(l->foreign_wait_s, 3e-3, 1e-12);
    assert_true(isnan(u->foreign_wait_s));
    assert_close(l->r_overhead, q->r_overhead, 0); /* the estimate is the measured one */
    assert_true(q->r_overhead_ci.hi - q->r_overhead_ci.lo < 0.05);
    double ref = q->t_comm_ref;
    assert_close(
        l->r_overhead_ci.lo,
        q->r_overhead_ci.lo - (q->r_overhead - (q->t_measured - 2e-3 - q->t_comp_ref) / ref), 1e-9);
    assert_close(l->r_overhead_ci.hi,
                 q->r_overhead_ci.hi +
                     ((q->t_measured - (q->t_comp_ref - 3e-3)) / ref - q->r_overhead),
                 1e-9);
    assert_close(l->r_overhead_ci.hi - q->r_overhead_ci.hi, 0.3, 0.01);
    assert_close(q->r_overhead_ci.lo - l->r_overhead_ci.lo, 0.2, 0.01);
    assert_close(u->r_overhead_ci.lo, q->r_overhead_ci.lo, 0);
    assert_close(u->r_overhead_ci.hi, q->r_overhead_ci.hi, 0);
    release(&quiet);
    release(&loaded);
    release(&blind);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialized_is_one),
        cmocka_unit_test(test_null_triple_is_a_block_of_the_means),
        cmocka_unit_test(test_perfect_overlap_is_zero),
        cmocka_unit_test(test_longer_collective_overlapped),
        cmocka_unit_test(test_faster_rank_waits_is_overlap),
        cmocka_unit_test(test_imbalance_longer_than_collective_is_overlap),
        cmocka_unit_test(test_one_rank_behaviours),
        cmocka_unit_test(test_multi_rank_spans_and_slowest_locals),
        cmocka_unit_test(test_ratio_of_medians),
        cmocka_unit_test(test_rank_skewed_work),
        cmocka_unit_test(test_imbalance_is_not_comm_slowed),
        cmocka_unit_test(test_invalid_calibration),
        cmocka_unit_test(test_lateness_and_tolerance_reapplied),
        cmocka_unit_test(test_lateness_from_start_skew),
        cmocka_unit_test(test_late_tolerance_needs_inputs),
        cmocka_unit_test(test_driver_gave_up),
        cmocka_unit_test(test_unreachable_cells),
        cmocka_unit_test(test_mpi_impact),
        cmocka_unit_test(test_mpi_impact_shares),
        cmocka_unit_test(test_mpi_impact_phases_disagree),
        cmocka_unit_test(test_mpi_impact_median),
        cmocka_unit_test(test_mpi_impact_interval),
        cmocka_unit_test(test_interval_coverage),
        cmocka_unit_test(test_off_target_flag),
        cmocka_unit_test(test_distribution_beyond_median),
        cmocka_unit_test(test_seeded_bootstrap),
        cmocka_unit_test(test_foreign_wait_widens_overhead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
