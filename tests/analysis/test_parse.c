/* The readers: malformed raw.csv is rejected with the file, line and column
 * named (exit status 2 for the tools), never a crash, including on randomly
 * damaged input; meta.json errors name the key; cells.csv reads back what
 * was written. */
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

static const char valid_raw[] =
    "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,t1_ns,t2_ns,"
    "t3_ns,t4_ns,retries\n"
    "0,ibcast,0.01,0.02,1024,100,0,comm_ref,0,0,5000,5000,10000000,0\n"
    "0,ibcast,0.01,0.02,1024,100,0,comp_ref,0,0,0,20000000,20000000,0\n"
    "0,ibcast,0.01,0.02,1024,100,0,overlap,0,0,5000,20005000,30000000,0\n"
    "1,ibcast,0.02,0.02,2048,100,0,comm_ref,0,0,5000,5000,20000000,0\n"
    "1,ibcast,0.02,0.02,2048,100,0,comp_ref,0,0,0,20000000,20000000,0\n"
    "1,ibcast,0.02,0.02,2048,100,0,overlap,0,0,5000,20005000,20010000,0\n";

static int parse(const char *text, size_t len, analysis_error *err)
{
    raw_table table;
    int status = analysis_parse_raw(text, len, "raw.csv", &table, err);
    if (status == ANALYSIS_OK) {
        assert_true(table.row_count > 0);
        analysis_raw_table_free(&table);
    } else {
        assert_null(table.rows);
    }
    return status;
}

/* valid_raw with its line `line` (1-based) replaced. */
static char *with_line(int line, const char *replacement)
{
    static char out[4096];
    const char *p = valid_raw;
    size_t o = 0;
    for (int n = 1; *p; n++) {
        const char *end = strchr(p, '\n');
        size_t len = (size_t)(end - p) + 1;
        const char *src = n == line ? replacement : p;
        size_t src_len = n == line ? strlen(replacement) : len;
        memcpy(out + o, src, src_len);
        o += src_len;
        p += len;
    }
    out[o] = '\0';
    return out;
}

static void test_valid_and_sorted(void **state)
{
    (void)state;
    raw_table table;
    analysis_error err;
    assert_int_equal(analysis_parse_raw(valid_raw, strlen(valid_raw), "raw.csv", &table, &err), 0);
    assert_int_equal(table.cell_count, 2);
    assert_int_equal(table.row_count, 6);
    assert_int_equal(table.cells[1].bytes, 2048);
    assert_int_equal(table.rows[2].kind, RAW_KIND_OVERLAP);
    assert_int_equal(table.rows[2].t_ns[3], 30000000);
    analysis_raw_table_free(&table);

    /* CRLF line ends and a missing final newline are accepted */
    char crlf[2048];
    size_t o = 0;
    for (const char *p = valid_raw; *p; p++) {
        if (*p == '\n')
            crlf[o++] = '\r';
        crlf[o++] = *p;
    }
    assert_int_equal(parse(crlf, o - 2, &err), 0);
}

static const struct {
    int line;
    const char *replacement;
    const char *expected[3]; /* substrings of the message */
} bad_cases[] = {
    {3,
     "0,ibcast,0.01,0.02,1024,100,0,comp_ref,0,0,0,20000000\n",
     {"raw.csv:3:", "12 fields where the header has 14", NULL}},
    {2,
     "0,ibcast,0.01,0.02,1024,100,0,comm_ref,0,abc,5000,5000,10000000,0\n",
     {"raw.csv:2:", "column 10 (t1_ns)", "'abc' is not an integer"}},
    {4,
     "0,ibcast,0.01,0.02,1024,100,0,overlap,0,0,5000,20005000,3e7,0\n",
     {"raw.csv:4:", "column 13 (t4_ns)", "not an integer"}},
    {2,
     "0,ibcast,fast,0.02,1024,100,0,comm_ref,0,0,5000,5000,10000000,0\n",
     {"raw.csv:2:", "column 3 (comm_target_s)", "'fast' is not a number"}},
    {2,
     "0,ibcast,0.01,0.02,1024,100,0,comm_reff,0,0,5000,5000,10000000,0\n",
     {"raw.csv:2:", "column 8 (kind)", "allowed: comm_ref, comp_ref, overlap"}},
    {2,
     "0,ibcast,0.01,0.02,1024,100,0,comm_ref,-1,0,5000,5000,10000000,0\n",
     {"raw.csv:2:", "column 9 (rank)", "out of range"}},
    {2,
     "0,ibcast,0.01,0.02,1024,100,0,comm_ref,0,0,5000,4000,10000000,0\n",
     {"raw.csv:2:", "column 12 (t3_ns)", "before t2_ns"}},
    {5,
     "1,ibcast,0.02,0.02,2048,100,0,comm_ref,0,0,5000,5000,20000000,0,7\n",
     {"raw.csv:5:", "15 fields", NULL}},
    {3,
     "0,ibcast,0.01,0.02,1024,100,0,comm_ref,0,0,5000,5000,10000000,0\n",
     {"raw.csv:3:", "duplicate row", "line 2"}},
    {3,
     "0,ibcast,0.01,0.04,1024,100,0,comp_ref,0,0,0,20000000,20000000,0\n",
     {"raw.csv:3:", "column 4 (comp_target_s)", "cell 0"}},
    {2,
     "0,ibcast,0.01,0.02,1024,100,0,comm_ref,0,0,5000,5000,99999999999999999999,0\n",
     {"raw.csv:2:", "column 13 (t4_ns)", "out of range"}},
    {2,
     "0,,0.01,0.02,1024,100,0,comm_ref,0,0,5000,5000,10000000,0\n",
     {"raw.csv:2:", "column 2 (collective)", "empty"}},
    {2,
     "0,ibcast,0,0.02,1024,100,0,comm_ref,0,0,5000,5000,10000000,0\n",
     {"raw.csv:2:", "column 3 (comm_target_s)", "not a positive duration"}},
    {1,
     "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,t1_ns,t2_ns,"
     "t3_ns,t4_ns\n",
     {"raw.csv:1:", "no column 'retries'", NULL}},
    {1,
     "0,ibcast,0.01,0.02,1024,100,0,comm_ref,1,0,5000,5000,10000000,0\n",
     {"raw.csv:1:", "no column 'cell'", "lacks its header line"}},
};

static void test_bad_lines_are_named(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const char *text = with_line(bad_cases[i].line, bad_cases[i].replacement);
        analysis_error err = {{0}};
        int status = parse(text, strlen(text), &err);
        if (status != ANALYSIS_ERR_INPUT)
            fail_msg("case %zu: status %d, expected 2", i, status);
        for (int k = 0; k < 3 && bad_cases[i].expected[k]; k++)
            if (!strstr(err.text, bad_cases[i].expected[k]))
                fail_msg("case %zu: message '%s' lacks '%s'", i, err.text,
                         bad_cases[i].expected[k]);
    }
}

static void test_empty_and_odd_buffers(void **state)
{
    (void)state;
    analysis_error err;
    assert_int_equal(parse("", 0, &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "no header line"));
    const char header_only[] = "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,"
                               "kind,rank,t1_ns,t2_ns,t3_ns,t4_ns,retries\n";
    assert_int_equal(parse(header_only, strlen(header_only), &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "no measurement rows"));
    char with_nul[sizeof valid_raw];
    memcpy(with_nul, valid_raw, sizeof valid_raw);
    with_nul[strlen(header_only) + 5] = '\0';
    assert_int_equal(parse(with_nul, sizeof valid_raw - 1, &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "raw.csv:2: the line contains a NUL byte"));
    char commas[300];
    memset(commas, ',', sizeof commas);
    commas[sizeof commas - 1] = '\n';
    assert_int_equal(parse(commas, sizeof commas, &err), ANALYSIS_ERR_INPUT);
}

/* Damaged copies of a valid file: parse fails cleanly or succeeds, never
 * crashes (the sanitizer build catches out-of-bounds access). */
static void test_random_damage_never_crashes(void **state)
{
    (void)state;
    static const char alphabet[] = ",\n\r0123456789-.e+xnac_\x01\xff";
    uint64_t rng = 12345;
    size_t len = strlen(valid_raw);
    char *buf = malloc(len + 64);
    assert_non_null(buf);
    int failures = 0, successes = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, valid_raw, len);
        size_t n = len;
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(rng >> 33) % n;
            char c = alphabet[(rng >> 20) % (sizeof alphabet - 1)];
            if ((rng >> 10) % 3 == 0 && n > 1) {
                memmove(buf + at, buf + at + 1, n - at - 1); /* delete */
                n--;
            } else if ((rng >> 10) % 3 == 1) {
                memmove(buf + at + 1, buf + at, n - at); /* insert */
                buf[at] = c;
                n++;
            } else {
                buf[at] = c;
            }
        }
        analysis_error err;
        int status = parse(buf, (round % 7 == 0) ? n / 2 : n, &err);
        assert_true(status == ANALYSIS_OK || status == ANALYSIS_ERR_INPUT);
        if (status == ANALYSIS_OK)
            successes++;
        else
            failures++;
    }
    free(buf);
    assert_true(failures > 0 && successes > 0); /* both paths were exercised */
}

static void test_meta(void **state)
{
    (void)state;
    run_meta meta;
    analysis_error err;
    const char good[] = "{\"status\": \"complete\", \"collective\": \"ibcast\", \"synthetic\": "
                        "false, \"mpi\": \"openmpi\", \"mpi_library_version\": \"Open MPI v4.1.4, "
                        "package: Debian\", \"ranks\": 2, \"threads_per_rank\": 1, "
                        "\"deployment\": \"basic\", \"extra\": [1, 2]}";
    assert_int_equal(analysis_parse_meta(good, strlen(good), "meta.json", &meta, &err), 0);
    assert_string_equal(meta.collective, "ibcast");
    assert_int_equal(meta.ranks, 2);
    assert_string_equal(meta.mpi_library_version, "Open MPI v4.1.4; package: Debian");
    const char bad_type[] = "{\"ranks\": \"two\"}";
    assert_int_equal(analysis_parse_meta(bad_type, strlen(bad_type), "meta.json", &meta, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "key 'ranks'"));
    const char truncated[] = "{\"ranks\": 2, \"mpi\": \"mpi";
    assert_int_equal(analysis_parse_meta(truncated, strlen(truncated), "meta.json", &meta, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "meta.json: not valid JSON"));
    const char synthetic_bad[] = "{\"synthetic\": 1}";
    assert_int_equal(
        analysis_parse_meta(synthetic_bad, strlen(synthetic_bad), "meta.json", &meta, &err),
        ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "key 'synthetic'"));
}

static void test_cells_round_trip(void **state)
{
    (void)state;
    run_inputs in = {0};
    analysis_error err;
    assert_int_equal(analysis_parse_raw(valid_raw, strlen(valid_raw), "raw.csv", &in.raw, &err), 0);
    diagnosis_thresholds th = analysis_default_thresholds();
    cell_table cells;
    assert_int_equal(analysis_compute_cells(&in, &th, &cells, &err), 0);
    char dir[] = "/tmp/test_analysis_parse.XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(analysis_write_tables(dir, &cells, NULL, &err), 0);

    char path[300], text[8192];
    snprintf(path, sizeof path, "%s/cells.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    const char header[] =
        "collective,comm_target_s,comp_target_s,bytes,matrix_n,reps,valid,t_comm_ref,t_comp_ref,"
        "t_measured,t_call,t_comp,t_wait,r_overhead,r_comm,r_comp_slowdown,r_overhead_iqr,"
        "overlap_osu_pct,overlap_imb_pct,diagnosis,late_retries,";
    assert_memory_equal(text, header, strlen(header));

    cell_table back;
    assert_int_equal(analysis_parse_cells(text, len, path, &back, &err), 0);
    assert_int_equal(back.count, cells.count);
    for (size_t i = 0; i < cells.count; i++) {
        assert_true(fabs(back.cells[i].r_overhead - cells.cells[i].r_overhead) < 1e-5);
        assert_true(fabs(back.cells[i].t_measured - cells.cells[i].t_measured) < 1e-9);
        assert_int_equal(back.cells[i].diagnosis, cells.cells[i].diagnosis);
        assert_int_equal(back.cells[i].valid, cells.cells[i].valid);
    }
    assert_int_equal(back.cells[0].diagnosis, DIAG_NO_PROGRESS);
    assert_int_equal(back.cells[1].diagnosis, DIAG_OVERLAP);
    analysis_cell_table_free(&back);
    analysis_cell_table_free(&cells);
    analysis_run_inputs_free(&in);

    snprintf(path, sizeof path, "%s/cells_by_rank.csv", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/cells.csv", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_and_sorted),
        cmocka_unit_test(test_bad_lines_are_named),
        cmocka_unit_test(test_empty_and_odd_buffers),
        cmocka_unit_test(test_random_damage_never_crashes),
        cmocka_unit_test(test_meta),
        cmocka_unit_test(test_cells_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
