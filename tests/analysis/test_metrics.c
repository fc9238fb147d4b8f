/* Metrics on hand-made raw records whose answers are known: eqs. 1, 3, 4 of
 * the paper, spans across ranks (section 4.1), medians across repetitions,
 * validity, the diagnosis rules, the peers' overlap percentages and the MPI
 * impact (eq. 2). */
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

#define MS 1000000LL /* nanoseconds */
#define US 1000LL

static const char raw_header[] = "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,"
                                 "kind,rank,t1_ns,t2_ns,t3_ns,t4_ns,retries\n";

typedef struct raw_text {
    char text[1 << 16];
    size_t len;
} raw_text;

static void raw_begin(raw_text *raw)
{
    raw->len = (size_t)snprintf(raw->text, sizeof raw->text, "%s", raw_header);
}

/* One row of cell 0 (10 ms x 20 ms targets) unless cell says otherwise. */
static void raw_row_in(raw_text *raw, int cell, int rep, const char *kind, int rank, long long t1,
                       long long t2, long long t3, long long t4, int retries)
{
    int n = snprintf(raw->text + raw->len, sizeof raw->text - raw->len,
                     "%d,ibcast,0.01,0.02,1024,100,%d,%s,%d,%lld,%lld,%lld,%lld,%d\n", cell, rep,
                     kind, rank, t1, t2, t3, t4, retries);
    assert_true(n > 0 && (size_t)n < sizeof raw->text - raw->len);
    raw->len += (size_t)n;
}

static void add_row(raw_text *raw, int rep, const char *kind, int rank, long long t1, long long t2,
                    long long t3, long long t4)
{
    raw_row_in(raw, 0, rep, kind, rank, t1, t2, t3, t4, 0);
}

/* References of one rank: comm 10 ms, comp 20 ms, starting at base. */
static void raw_refs(raw_text *raw, int rep, int rank, long long base)
{
    add_row(raw, rep, "comm_ref", rank, base, base + 5 * US, base + 5 * US, base + 10 * MS);
    add_row(raw, rep, "comp_ref", rank, base, base, base + 20 * MS, base + 20 * MS);
}

typedef struct computed {
    run_inputs in;
    cell_table cells;
} computed;

static void compute(computed *out, const raw_text *raw)
{
    analysis_error err;
    memset(out, 0, sizeof *out);
    int status = analysis_parse_raw(raw->text, raw->len, "raw.csv", &out->in.raw, &err);
    if (status != ANALYSIS_OK)
        fail_msg("parse: %s", err.text);
    diagnosis_thresholds th = analysis_default_thresholds();
    status = analysis_compute_cells(&out->in, &th, &out->cells, &err);
    if (status != ANALYSIS_OK)
        fail_msg("compute: %s", err.text);
}

static void release(computed *c)
{
    analysis_cell_table_free(&c->cells);
    analysis_run_inputs_free(&c->in);
}

static void assert_close(double actual, double expected, double tolerance)
{
    if (!(fabs(actual - expected) <= tolerance))
        fail_msg("%.12g is not %.12g (+- %g)", actual, expected, tolerance);
}

/* Overlap row of one rank: call, computation and wait durations. */
static void overlap_row(raw_text *raw, int rep, int rank, long long t1, long long call,
                        long long comp, long long wait)
{
    add_row(raw, rep, "overlap", rank, t1, t1 + call, t1 + call + comp, t1 + call + comp + wait);
}

static void test_serialized_is_one(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    raw_refs(&raw, 0, 0, 0);
    /* everything in MPI_Wait: 20 ms computation then the 10 ms collective */
    overlap_row(&raw, 0, 0, 100 * MS, 5 * US, 20 * MS, 10 * MS - 5 * US);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_int_equal(c.cells.count, 1);
    assert_true(m->valid);
    assert_close(m->t_comm_ref, 0.010, 1e-12);
    assert_close(m->t_comp_ref, 0.020, 1e-12);
    assert_close(m->t_measured, 0.030, 1e-12);
    assert_close(m->r_overhead, 1.0, 1e-9); /* eq. 1 */
    assert_close(m->r_comm, 1.0, 1e-9);     /* eq. 4 */
    assert_close(m->r_comp_slowdown, 1.0, 1e-9);
    assert_close(m->overlap_osu_pct, 0.0, 1e-6);
    assert_close(m->overlap_imb_pct, 0.0, 1e-6);
    assert_int_equal(m->diagnosis, DIAG_NO_PROGRESS);
    release(&c);
}

static void test_perfect_overlap_is_zero(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    raw_refs(&raw, 0, 0, 0);
    /* the collective finished during the computation: ends at 20 ms */
    overlap_row(&raw, 0, 0, 100 * MS, 1 * US, 20 * MS - 2 * US, 1 * US);
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
    assert_int_equal(m->diagnosis, DIAG_OVERLAP);
    release(&c);
}

static void test_slower_than_serialized_is_contention(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    raw_refs(&raw, 0, 0, 0);
    /* computation 25 ms instead of 20 and no progress: 35 ms */
    overlap_row(&raw, 0, 0, 100 * MS, 5 * US, 25 * MS, 10 * MS - 5 * US);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->r_overhead, 1.5, 1e-9);
    assert_true(m->r_overhead > 1);
    assert_close(m->r_comp_slowdown, 1.25, 1e-9);
    assert_close(m->r_comm, 1.0, 1e-9);
    assert_int_equal(m->diagnosis, DIAG_CONTENTION);
    release(&c);
}

static void test_computation_slowed(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    raw_refs(&raw, 0, 0, 0);
    /* progress done during a computation 1.5x slower: nothing left to wait */
    overlap_row(&raw, 0, 0, 100 * MS, 5 * US, 30 * MS, 5 * US);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->r_comp_slowdown, 1.5, 1e-9);
    assert_close(m->r_comm, 0.001, 1e-9);
    assert_close(m->r_overhead, (0.03001 - 0.020) / 0.010, 1e-9);
    assert_int_equal(m->diagnosis, DIAG_COMP_SLOWDOWN);
    release(&c);
}

static void test_multi_rank_spans(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    /* The earliest start and the latest end are never on the same rank, nor
     * on rank 0. comm_ref: starts 1, 0.5, 0 ms, ends 8, 10, 9 ms: span 10 ms
     * (the mean duration is 8.5 ms) */
    add_row(&raw, 0, "comm_ref", 0, 1 * MS, 1 * MS + 5 * US, 1 * MS + 5 * US, 8 * MS);
    add_row(&raw, 0, "comm_ref", 1, MS / 2, MS / 2 + 5 * US, MS / 2 + 5 * US, 10 * MS);
    add_row(&raw, 0, "comm_ref", 2, 0, 5 * US, 5 * US, 9 * MS);
    /* comp_ref: computations 1-20 ms, 0.2-19 ms, 0-18 ms: span 20 ms */
    add_row(&raw, 0, "comp_ref", 0, 1 * MS, 1 * MS, 20 * MS, 20 * MS);
    add_row(&raw, 0, "comp_ref", 1, 200 * US, 200 * US, 19 * MS, 19 * MS);
    add_row(&raw, 0, "comp_ref", 2, 0, 0, 18 * MS, 18 * MS);
    /* overlap: rank 2 starts first (0), rank 1 ends last (30 ms) */
    add_row(&raw, 0, "overlap", 0, 1 * MS, 1 * MS + 10 * US, 20 * MS, 25 * MS);
    add_row(&raw, 0, "overlap", 1, 2 * MS, 2 * MS + 30 * US, 21 * MS, 30 * MS);
    add_row(&raw, 0, "overlap", 2, 0, 20 * US, 20 * MS, 26 * MS);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_close(m->t_comm_ref, 0.010, 1e-12);
    assert_close(m->t_comp_ref, 0.020, 1e-12);
    assert_close(m->t_measured, 0.030, 1e-12); /* max end - min start, not a mean */
    /* t_call, t_comp, t_wait from rank 1, whose overlap ends last */
    assert_close(m->t_call, 30e-6, 1e-12);
    assert_close(m->t_comp, 0.021 - 0.00203, 1e-12);
    assert_close(m->t_wait, 0.009, 1e-12);
    assert_close(m->r_overhead, 1.0, 1e-9);
    assert_close(m->start_skew_s, 0.002, 1e-12); /* first into the collective at 0, last at 2 ms */
    assert_int_equal(m->ranks, 3);
    /* cells_by_rank: each rank's own medians */
    assert_int_equal(c.cells.rank_count, 3);
    const rank_metrics *r0 = &c.cells.ranks[0], *r1 = &c.cells.ranks[1];
    assert_int_equal(r0->rank, 0);
    assert_close(r0->t_measured, 0.024, 1e-12);
    assert_close(r0->t_comm_ref, 0.007, 1e-12);
    assert_close(r0->r_comm, (10e-6 + 0.005) / 0.007, 1e-9);
    assert_int_equal(r0->deciding_reps, 0);
    assert_int_equal(r1->deciding_reps, 1);
    assert_close(r1->r_comp_slowdown, (0.021 - 0.00203) / 0.0188, 1e-9);
    release(&c);
}

static void test_median_across_repetitions(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    static const long long comm_ms[] = {9, 10, 30}, measured_ms[] = {21, 40, 22};
    for (int rep = 0; rep < 3; rep++) {
        long long base = rep * 100 * MS;
        add_row(&raw, rep, "comm_ref", 0, base, base + 5 * US, base + 5 * US,
                base + comm_ms[rep] * MS);
        add_row(&raw, rep, "comp_ref", 0, base, base, base + 20 * MS, base + 20 * MS);
        overlap_row(&raw, rep, 0, base + 50 * MS, 5 * US, 20 * MS,
                    (measured_ms[rep] - 20) * MS - 5 * US);
    }
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_int_equal(m->reps, 3);
    assert_close(m->t_comm_ref, 0.010, 1e-12); /* median of 9, 10, 30 */
    assert_close(m->t_measured, 0.022, 1e-12); /* median of 21, 40, 22 */
    assert_close(m->r_overhead, 0.2, 1e-9);
    /* r_overhead per repetition 0.1, 2.0, 0.2: quartiles 0.15 and 1.1 */
    assert_close(m->r_overhead_iqr, 0.95, 1e-9);
    /* the spread (0.95) exceeds the effect (0.2, at least 0.5): noise */
    assert_int_equal(m->diagnosis, DIAG_NOISE);
    release(&c);
}

static void test_invalid_calibration(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    raw_refs(&raw, 0, 0, 0);
    overlap_row(&raw, 0, 0, 100 * MS, 5 * US, 20 * MS, 5 * US);
    static const struct {
        bool comm_converged;
        long long bytes;
        bool comp_converged;
        unsigned reasons;
    } cases[] = {
        {true, 1024, true, 0},
        {false, 1024, true, INVALID_COMM_CALIBRATION},
        {true, 0, true, INVALID_COMM_CALIBRATION}, /* the algorithm "sticks to 0 bytes" */
        {true, 1024, false, INVALID_COMP_CALIBRATION},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        computed c;
        analysis_error err;
        memset(&c, 0, sizeof c);
        assert_int_equal(analysis_parse_raw(raw.text, raw.len, "raw.csv", &c.in.raw, &err), 0);
        calib_comm_row comm = {"ibcast", 0.01, cases[i].bytes, cases[i].comm_converged};
        calib_comp_row comp = {0.0200000001, cases[i].comp_converged};
        c.in.calib_comm = &comm;
        c.in.calib_comm_count = 1;
        c.in.have_calib_comm = true;
        c.in.calib_comp = &comp;
        c.in.calib_comp_count = 1;
        c.in.have_calib_comp = true;
        diagnosis_thresholds th = analysis_default_thresholds();
        assert_int_equal(analysis_compute_cells(&c.in, &th, &c.cells, &err), 0);
        const cell_metrics *m = &c.cells.cells[0];
        assert_int_equal(m->invalid_reasons, cases[i].reasons);
        assert_int_equal(m->valid, cases[i].reasons == 0);
        assert_int_equal(m->diagnosis, cases[i].reasons ? DIAG_INVALID : DIAG_OVERLAP);
        /* the numbers are still computed, only not trusted */
        assert_close(m->r_overhead, 0.001, 1e-9);
        analysis_cell_table_free(&c.cells);
        analysis_raw_table_free(&c.in.raw);
    }
}

static void test_late_retries_and_incomplete_repetitions(void **state)
{
    (void)state;
    raw_text raw;
    raw_begin(&raw);
    for (int rank = 0; rank < 2; rank++) {
        raw_row_in(&raw, 0, 0, "comm_ref", rank, 0, 5 * US, 5 * US, 10 * MS, 3);
        raw_row_in(&raw, 0, 0, "comp_ref", rank, 0, 0, 20 * MS, 20 * MS, 1);
        raw_row_in(&raw, 0, 0, "overlap", rank, 0, 5 * US, 20 * MS, 20 * MS + 5 * US, 1);
    }
    /* a second overlap repetition only rank 0 wrote: left out */
    raw_row_in(&raw, 0, 1, "overlap", 0, 50 * MS, 50 * MS + 5 * US, 90 * MS, 95 * MS, 0);
    computed c;
    compute(&c, &raw);
    const cell_metrics *m = &c.cells.cells[0];
    assert_int_equal(m->reps, 1);
    assert_int_equal(m->late_retries, 5); /* rank 0's rows: 3 + 1 + 1 + 0 */
    assert_false(m->valid);               /* 5 retries for 4 repetitions: more than one each */
    assert_int_equal(m->invalid_reasons, INVALID_LATE_RETRIES);
    release(&c);
}

static void test_diagnosis_rules(void **state)
{
    (void)state;
    diagnosis_thresholds th = analysis_default_thresholds();
    static const struct {
        double r_overhead, iqr, r_comm, slowdown, t_comp_ms;
        bool valid;
        enum diagnosis expected;
    } cases[] = {
        {0.30, 0.01, 0.1, 1.00, 20.0, true, DIAG_OVERLAP},
        {0.31, 0.01, 0.9, 1.00, 20.0, true, DIAG_NO_PROGRESS},
        {0.80, 0.01, 0.2, 1.20, 24.0, true, DIAG_COMP_SLOWDOWN},
        {1.50, 0.01, 1.0, 1.25, 25.0, true, DIAG_CONTENTION},
        {1.00, 0.01, 0.5, 1.15, 23.0, true, DIAG_COMP_SLOWDOWN}, /* r_comm under 0.7 */
        {0.10, 0.60, 0.1, 1.00, 20.0, true, DIAG_NOISE},         /* spread > 0.5 floor */
        {3.00, 2.00, 1.0, 1.00, 20.0, true, DIAG_NO_PROGRESS},   /* spread < effect */
        {0.50, 0.01, 0.1, 1.00, 20.0, true, DIAG_NOISE},         /* nothing explains it */
        {0.00, 0.00, 0.0, 1.00, 20.0, false, DIAG_INVALID},
        /* 5 % slower 20 ms step next to a 10 ms collective: +0.1 of 0.6 */
        {0.60, 0.01, 0.9, 1.05, 21.0, true, DIAG_NO_PROGRESS},
        /* 8.75 % slower: +0.175 explains half of 0.35, so slowed */
        {0.35, 0.01, 0.2, 1.0875, 21.75, true, DIAG_COMP_SLOWDOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cell_metrics m = {
            .valid = cases[i].valid,
            .r_overhead = cases[i].r_overhead,
            .r_overhead_iqr = cases[i].iqr,
            .r_comm = cases[i].r_comm,
            .r_comp_slowdown = cases[i].slowdown,
            .t_comm_ref = 0.010,
            .t_comp_ref = 0.020,
            .t_comp = cases[i].t_comp_ms * 1e-3,
        };
        enum diagnosis got = analysis_diagnose(&m, &th);
        if (got != cases[i].expected)
            fail_msg("case %zu: %s, expected %s", i, analysis_diagnosis_name(got),
                     analysis_diagnosis_name(cases[i].expected));
    }
    /* a long computation slowed a little: the extra time is the overhead */
    cell_metrics long_comp = {.valid = true,
                              .r_overhead = 5.1,
                              .r_overhead_iqr = 0.01,
                              .r_comm = 0.1,
                              .r_comp_slowdown = 1.05,
                              .t_comm_ref = 0.010,
                              .t_comp_ref = 1.0,
                              .t_comp = 1.05};
    assert_int_equal(analysis_diagnose(&long_comp, &th), DIAG_COMP_SLOWDOWN);
}

static void test_mpi_impact(void **state)
{
    (void)state;
    passive_row passive[] = {
        {"nodeA", 0, 2, 100, 0.02, 0.0210},
        {"nodeA", 1, 2, 100, 0.02, 0.0220}, /* the host's slowest rank counts */
        {"nodeB", 2, 2, 100, 0.02, 0.0200},
        {"nodeC", 3, 2, 100, 0.02, 0.0300}, /* no reference: skipped */
    };
    compute_ref_row refs[] = {
        {"nodeA", 2, 100, 0.0200},
        {"nodeB", 2, 100, 0.0190},
        {"nodeB", 2, 100, 0.0210}, /* median of 0.019 and 0.021 */
        {"nodeA", 2, 200, 0.1600}, /* other size */
    };
    run_inputs in = {.passive = passive,
                     .passive_count = 4,
                     .have_passive = true,
                     .compute_ref = refs,
                     .compute_ref_count = 4,
                     .have_compute_ref = true};
    impact_table impact;
    analysis_error err;
    assert_int_equal(analysis_compute_impact(&in, &impact, &err), 0);
    assert_int_equal(impact.count, 2);
    assert_string_equal(impact.rows[0].host, "nodeA");
    assert_close(impact.rows[0].t_comp_passive_mpi_s, 0.022, 1e-12);
    assert_close(impact.rows[0].r_mpi_impact, 1.1, 1e-9); /* eq. 2 */
    assert_string_equal(impact.rows[1].host, "nodeB");
    assert_close(impact.rows[1].t_comp_ref_s, 0.020, 1e-12);
    assert_close(impact.rows[1].r_mpi_impact, 1.0, 1e-9);
    analysis_impact_table_free(&impact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialized_is_one),
        cmocka_unit_test(test_perfect_overlap_is_zero),
        cmocka_unit_test(test_slower_than_serialized_is_contention),
        cmocka_unit_test(test_computation_slowed),
        cmocka_unit_test(test_multi_rank_spans),
        cmocka_unit_test(test_median_across_repetitions),
        cmocka_unit_test(test_invalid_calibration),
        cmocka_unit_test(test_late_retries_and_incomplete_repetitions),
        cmocka_unit_test(test_diagnosis_rules),
        cmocka_unit_test(test_mpi_impact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
