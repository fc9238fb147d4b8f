/* sched.csv in the analysis (analysis/metrics/sched.c): the interference flag and
 * the library's CPU share on made-up rows, parsed from CSV text as
 * bench_nbc writes it. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

static const char header[] = "cell,block,kind,attempt,seq,rank,role,thread,tid,window_ns,cpu_ns,"
                             "run_delay_ns,vol_switches,invol_switches,migrations\n";

/* Appends the rows of one step on 2 ranks: each rank's main thread waited
 * delay_share of the window; a library thread used lib_cpu_share of it. */
static void add_step(char **text, size_t *len, long cell, long block, const char *kind,
                     long attempt, double delay_share, double lib_cpu_share)
{
    const long window = 10000000;
    for (int rank = 0; rank < 2; rank++) {
        char line[512];
        int n = snprintf(line, sizeof line,
                         "%ld,%ld,%s,%ld,0,%d,main,0,100,%ld,%ld,%ld,1,0,0\n"
                         "%ld,%ld,%s,%ld,0,%d,library,0,101,%ld,%ld,0,5,0,-1\n",
                         cell, block, kind, attempt, rank, window,
                         (long)(window * (1 - delay_share)), (long)(window * delay_share), cell,
                         block, kind, attempt, rank, window, (long)(window * lib_cpu_share));
        *text = realloc(*text, *len + (size_t)n + 1);
        memcpy(*text + *len, line, (size_t)n + 1);
        *len += (size_t)n;
    }
}

/* A run of `cells` cells, blocks 0..4, each cell's steps delayed by
 * share[cell]; the library takes lib[cell] in overlap steps. */
static void analyze(int cells, const double *share, const double *lib, cell_table *table)
{
    char *text = strdup(header);
    size_t len = strlen(text);
    for (int c = 0; c < cells; c++)
        for (long b = 0; b <= 4; b++) {
            add_step(&text, &len, c, b, "comm_ref", 0, share[c], 0);
            add_step(&text, &len, c, b, "comp_ref", 0, share[c], 0);
            add_step(&text, &len, c, b, "overlap", 0, share[c], lib[c]);
        }
    sched_row *rows = NULL;
    size_t count = 0;
    analysis_error err;
    assert_int_equal(analysis_parse_sched(text, len, "sched.csv", &rows, &count, &err),
                     ANALYSIS_OK);
    assert_int_equal(count, (size_t)cells * 5 * 3 * 2 * 2);
    table->count = (size_t)cells;
    table->cells = calloc((size_t)cells, sizeof *table->cells);
    for (int c = 0; c < cells; c++)
        table->cells[c].cell = c;
    interference_rules rules = analysis_default_interference();
    assert_int_equal(analysis_sched_apply(rows, count, &rules, table, &err), ANALYSIS_OK);
    free(rows);
    free(text);
}

static void quiet_run_with_one_disturbed_cell(void **state)
{
    (void)state;
    const double share[] = {0, 0.002, 0.001, 0.35, 0.003, 0.0}, lib[6] = {0};
    cell_table t = {0};
    analyze(6, share, lib, &t);
    for (int c = 0; c < 6; c++)
        assert_int_equal(t.cells[c].interference, c == 3);
    assert_float_equal(t.cells[3].compute_delay_share, 0.35, 1e-6);
    assert_float_equal(t.run_delay_share_norm, 0.0015, 1e-6);
    assert_float_equal(t.cells[0].library_cpu_share, 0, 1e-9);
    free(t.cells);
}

/* A progress thread sharing every computing core delays every step alike:
 * the deployment's cost, not interference. Its CPU shows as the library's. */
static void progress_thread_everywhere(void **state)
{
    (void)state;
    const double share[] = {0.45, 0.5, 0.48, 0.52}, lib[] = {0.5, 0.4, 0.45, 0.5};
    cell_table t = {0};
    analyze(4, share, lib, &t);
    for (int c = 0; c < 4; c++) {
        assert_false(t.cells[c].interference);
        assert_float_equal(t.cells[c].library_cpu_share, lib[c], 1e-6);
    }
    free(t.cells);
}

/* Only the kept (last) attempt of a step counts, and the warm-up block
 * not at all. */
static void late_attempts_and_warmup_ignored(void **state)
{
    (void)state;
    char *text = strdup(header);
    size_t len = strlen(text);
    for (long b = 0; b <= 4; b++) {
        add_step(&text, &len, 0, b, "comp_ref", 0, b == 0 ? 0.9 : 0.0, 0);
        add_step(&text, &len, 0, b, "overlap", 0, 0.8, 0); /* late, redone */
        add_step(&text, &len, 0, b, "overlap", 1, 0.0, 0.25);
        add_step(&text, &len, 1, b, "overlap", 0, 0.0, 0.0);
    }
    sched_row *rows = NULL;
    size_t count = 0;
    analysis_error err;
    assert_int_equal(analysis_parse_sched(text, len, "sched.csv", &rows, &count, &err),
                     ANALYSIS_OK);
    cell_metrics cells[2] = {{.cell = 0}, {.cell = 1}};
    cell_table t = {.cells = cells, .count = 2};
    interference_rules rules = analysis_default_interference();
    assert_int_equal(analysis_sched_apply(rows, count, &rules, &t, &err), ANALYSIS_OK);
    assert_float_equal(cells[0].compute_delay_share, 0, 1e-9);
    assert_false(cells[0].interference);
    assert_float_equal(cells[0].library_cpu_share, 0.25, 1e-6);
    free(rows);
    free(text);
}

static void bad_rows_refused(void **state)
{
    (void)state;
    sched_row *rows = NULL;
    size_t count = 0;
    analysis_error err;
    char text[1024];
    snprintf(text, sizeof text, "%s0,1,overlap,0,0,0,painter,0,1,10,1,1,0,0,0\n", header);
    assert_int_equal(analysis_parse_sched(text, strlen(text), "sched.csv", &rows, &count, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "painter"));
    /* no rows at all: nothing filled, nothing flagged */
    cell_metrics cells[1] = {{.cell = 0, .interference = true}};
    cell_table t = {.cells = cells, .count = 1};
    interference_rules rules = analysis_default_interference();
    assert_int_equal(analysis_sched_apply(NULL, 0, &rules, &t, &err), ANALYSIS_OK);
    assert_false(cells[0].interference);
    assert_true(isnan(cells[0].compute_delay_share));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quiet_run_with_one_disturbed_cell),
        cmocka_unit_test(progress_thread_everywhere),
        cmocka_unit_test(late_attempts_and_warmup_ignored),
        cmocka_unit_test(bad_rows_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
