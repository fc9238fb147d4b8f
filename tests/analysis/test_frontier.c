/* The overlap frontier (analysis/figures/frontier.c) on a hand-made cells table
 * whose answer is known row by row: a frontier inside the grid with its
 * bracket, one beyond it, none, and the rows two invalid cells or
 * unestimated cell breaks (never carried across). No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/figures/figures.h"

enum { COMP_COUNT = 4, ROWS = 6 };
static const double comp_s[COMP_COUNT] = {1e-3, 2e-3, 4e-3, 8e-3};

/* A valid cell of r_overhead r, interval r -+ 0.03 unless set after. */
static cell_metrics cell(double comm, double comp, double r)
{
    return (cell_metrics){.comm_target_s = comm,
                          .comp_target_s = comp,
                          .bytes = (long long)(comm * 1e6),
                          .valid = true,
                          .t_comm_ref = comm,
                          .t_comp_ref = comp,
                          .r_overhead = r,
                          .r_overhead_ci = {r - 0.03, r + 0.03},
                          .r_comm = 1.0,
                          .r_comm_ci = {0.9, 1.1}};
}

/* Row by row (communication 1, 2, 4, 8, 16, 32 ms), r_overhead over the
 * computation targets; the cells are stored in reverse so the computation
 * order is the code's to find. */
static void build(cell_table *t, cell_metrics *cells)
{
    static const double r[ROWS][COMP_COUNT] = {
        {0.02, 0.05, 0.3, 0.9},  /* within: up to 2 ms */
        {0.0, 0.01, 0.02, 0.05}, /* beyond the grid */
        {0.8, 0.9, 1.0, 1.0},    /* none */
        {0.01, 0.0, 0.02, 0.9},  /* 2 ms invalid (late) */
        {0.01, 0.02, 0.9, 0.9},  /* 2 ms invalid (no blocks) */
        {NAN, 0.0, 0.0, 0.0},    /* no estimate at 1 ms */
    };
    size_t n = 0;
    for (int row = ROWS - 1; row >= 0; row--)
        for (int p = COMP_COUNT - 1; p >= 0; p--)
            cells[n++] = cell(1e-3 * (1 << row), comp_s[p], r[row][p]);
    t->cells = cells;
    t->count = n;
    /* row 0: the 2 ms cell's interval reaches above 0.1 (hidden, not surely) */
    for (size_t i = 0; i < n; i++) {
        cell_metrics *c = &cells[i];
        if (c->comm_target_s == 1e-3 && c->comp_target_s == 2e-3)
            c->r_overhead_ci.hi = 0.12;
        if (c->comm_target_s == 8e-3 && c->comp_target_s == 2e-3) {
            c->valid = false;
            c->invalid_reasons = INVALID_LATE;
        }
        if (c->comm_target_s == 16e-3 && c->comp_target_s == 2e-3) {
            c->valid = false;
            c->invalid_reasons = INVALID_NO_BLOCKS;
        }
    }
}

/* The frontier of build()'s table at threshold. */
static void compute(double threshold, frontier_table *f)
{
    cell_metrics cells[ROWS * COMP_COUNT];
    cell_table t = {0};
    build(&t, cells);
    analysis_error err;
    assert_int_equal(frontier_compute(&t, threshold, f, &err), ANALYSIS_OK);
}

static const frontier_row *row_of(const frontier_table *f, double comm_s)
{
    for (size_t i = 0; i < f->count; i++)
        if (fabs(f->rows[i].comm_target_s - comm_s) < 1e-12)
            return &f->rows[i];
    fail_msg("no frontier row for %g s", comm_s);
    return NULL;
}

static void known_rows(void **state)
{
    (void)state;
    frontier_table f;
    compute(0.1, &f);
    assert_int_equal(f.count, ROWS);
    for (size_t i = 1; i < f.count; i++) /* ascending communication targets */
        assert_true(f.rows[i - 1].comm_target_s < f.rows[i].comm_target_s);

    const frontier_row *r = row_of(&f, 1e-3);
    assert_int_equal(r->status, FRONTIER_WITHIN);
    assert_true(r->comp_target_s == 2e-3);
    assert_true(r->next_comp_target_s == 4e-3);
    assert_true(r->comp_ci_lo_s == 1e-3); /* 2 ms's interval passes 0.1 */
    assert_true(r->comp_ci_hi_s == 2e-3); /* 4 ms's low end 0.27 is above */
    assert_true(r->r_overhead == 0.05);
    assert_true(r->r_overhead_ci.hi == 0.12);
    /* Delta_measured = eq. 1 x min(t_comm_ref, t_comp_ref) = 0.05 x 1 ms */
    assert_true(fabs(r->lengthening_s - 0.05e-3) < 1e-15);
    assert_true(fabs(r->lengthening_ci_s.hi - 0.12e-3) < 1e-15);
    assert_string_equal(r->break_reason, "none");
    assert_true(r->t_comm_ref_s == 1e-3);

    r = row_of(&f, 2e-3);
    assert_int_equal(r->status, FRONTIER_BEYOND_GRID);
    assert_true(r->comp_target_s == 8e-3);
    assert_true(r->comp_ci_lo_s == 8e-3);
    assert_true(isinf(r->comp_ci_hi_s)); /* the grid does not bound it */
    assert_true(isnan(r->next_comp_target_s));

    r = row_of(&f, 4e-3);
    assert_int_equal(r->status, FRONTIER_NONE);
    assert_true(isnan(r->comp_target_s));
    assert_true(r->next_comp_target_s == 1e-3);
    assert_true(isnan(r->comp_ci_lo_s) && isnan(r->comp_ci_hi_s));
    assert_true(isnan(r->r_overhead));

    /* an invalid cell at 2 ms: hidden at 1, 4 ms, yet not carried across */
    r = row_of(&f, 8e-3);
    assert_int_equal(r->status, FRONTIER_NOT_DETERMINED);
    assert_true(isnan(r->comp_target_s));
    assert_true(r->break_comp_target_s == 2e-3);
    assert_string_equal(r->break_reason, "late");
    assert_true(r->comp_ci_lo_s == 1e-3); /* surely hidden up to the break */
    assert_true(isinf(r->comp_ci_hi_s));

    r = row_of(&f, 16e-3);
    assert_int_equal(r->status, FRONTIER_NOT_DETERMINED);
    assert_string_equal(r->break_reason, "no_blocks");
    assert_true(r->break_comp_target_s == 2e-3);

    r = row_of(&f, 32e-3);
    assert_int_equal(r->status, FRONTIER_NOT_DETERMINED);
    assert_string_equal(r->break_reason, "no_estimate");
    assert_true(r->break_comp_target_s == 1e-3);
    assert_true(isnan(r->comp_ci_lo_s));
    frontier_table_free(&f);
}

/* The threshold moves the frontier: 0.5 lets row 0's 4 ms cell (0.3) in. */
static void threshold_moves_it(void **state)
{
    (void)state;
    frontier_table f;
    compute(0.5, &f);
    const frontier_row *r = row_of(&f, 1e-3);
    assert_int_equal(r->status, FRONTIER_WITHIN);
    assert_true(r->comp_target_s == 4e-3);
    assert_true(r->next_comp_target_s == 8e-3);
    assert_true(r->threshold == 0.5);
    frontier_table_free(&f);
}

/* frontier.csv: the schema's header, a row per communication target, the
 * words and the unbounded end as written. */
static void csv_text(void **state)
{
    (void)state;
    frontier_table f;
    compute(0.1, &f);
    strbuf sb = {0};
    frontier_csv_text(&sb, &f);
    assert_true(sb.ok);
    char header[1024];
    assert_true(schema_header(SCHEMA_FRONTIER, header, sizeof header) > 0);
    assert_memory_equal(sb.data, header, strlen(header));
    size_t lines = 0, fields = 1;
    for (size_t i = 0; i < sb.len; i++) {
        lines += sb.data[i] == '\n';
        fields += lines == 1 && sb.data[i] == ',';
    }
    assert_int_equal(lines, 1 + ROWS);
    assert_int_equal(fields, schema_file_column_count(SCHEMA_FRONTIER));
    assert_non_null(strstr(sb.data, ",beyond_grid,0.008,0.008,inf,"));
    assert_non_null(strstr(sb.data, ",not_determined,nan,0.001,inf,nan,0.002,late,"));
    strbuf_free(&sb);
    frontier_table_free(&f);
}

static void threshold_option(void **state)
{
    (void)state;
    double value = -1;
    assert_int_equal(frontier_parse_threshold("test", "0.25", &value), 0);
    assert_true(value == 0.25);
    static const char *const refused[] = {"1", "-0.1", "abc", "", "0.1x", "nan"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        assert_int_equal(frontier_parse_threshold("test", refused[i], &value), -1);
    assert_true(value == 0.25);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_rows),
        cmocka_unit_test(threshold_moves_it),
        cmocka_unit_test(csv_text),
        cmocka_unit_test(threshold_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
