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

#define RAW_HEADER                                                                                 \
    "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,attempt,seq,"      \
    "wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,exit_late_ns,tolerance_ns,late\n"

static const char valid_raw[] = RAW_HEADER
    "0,ibcast,0.01,0.02,1024,100,1,measure,comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n"
    "0,ibcast,0.01,0.02,1024,100,1,measure,comp_ref,0,1,1.5,0,0,0,20000000,20000000,0,0,100000,0\n"
    "0,ibcast,0.01,0.02,1024,100,1,measure,overlap,0,2,1.5,0,0,5000,20005000,30000000,0,0,100000,"
    "0\n"
    "1,ibcast,0.02,0.02,2048,100,1,measure,comm_ref,0,3,1.5,0,0,5000,5000,20000000,0,0,100000,0\n"
    "1,ibcast,0.02,0.02,2048,100,1,measure,comp_ref,0,4,1.5,0,0,0,20000000,20000000,0,0,100000,0\n"
    "1,ibcast,0.02,0.02,2048,100,1,measure,overlap,0,5,1.5,0,0,5000,20005000,20010000,0,0,100000,"
    "0\n";

/* Parses; *rows (may be NULL) gets the row count of an accepted file. */
static int parse_rows(const char *text, size_t len, analysis_error *err, size_t *rows)
{
    raw_table table;
    int status = analysis_parse_raw(text, len, "raw.csv", &table, err);
    if (status == ANALYSIS_OK) {
        if (rows)
            *rows = table.row_count;
        analysis_raw_table_free(&table);
    } else {
        assert_null(table.rows);
    }
    return status;
}

static int parse(const char *text, size_t len, analysis_error *err)
{
    size_t rows = 0;
    int status = parse_rows(text, len, err, &rows);
    if (status == ANALYSIS_OK)
        assert_true(rows > 0);
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

    /* the null controls are read (never used in the metrics) */
    static const char with_nulls[] = RAW_HEADER
        "0,ibcast,0.01,0.02,1024,100,1,measure,comm_null,0,0,1.5,0,0,5000,5000,11000000,0,0,"
        "100000,0\n"
        "0,ibcast,0.01,0.02,1024,100,1,measure,comp_null,0,1,1.5,0,0,0,21000000,21000000,0,0,"
        "100000,0\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", valid_raw, with_nulls + strlen(RAW_HEADER));
    assert_int_equal(analysis_parse_raw(text, strlen(text), "raw.csv", &table, &err), 0);
    assert_int_equal(table.row_count, 8);
    assert_int_equal(table.rows[3].kind, RAW_KIND_COMM_NULL);
    assert_int_equal(table.rows[4].kind, RAW_KIND_COMP_NULL);
    analysis_raw_table_free(&table);
}

/* Line 2 of valid_raw with one field replaced: "F=value". */
#define LINE2_PREFIX "0,ibcast,0.01,0.02,1024,100,1,measure,"

static const struct {
    int line;
    const char *replacement;
    const char *expected[3]; /* substrings of the message */
} bad_cases[] = {
    {3,
     "0,ibcast,0.01,0.02,1024,100,1,measure,comp_ref,0,1,1.5,0,0,0,20000000,20000000,0,0\n",
     {"raw.csv:3:", "19 fields where the header has 21", NULL}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,abc,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 14 (t1_ns)", "'abc' is not an integer"}},
    {4,
     "0,ibcast,0.01,0.02,1024,100,1,measure,overlap,0,2,1.5,0,0,5000,20005000,3e7,0,0,100000,0\n",
     {"raw.csv:4:", "column 17 (t4_ns)", "not an integer"}},
    {2,
     "0,ibcast,fast,0.02,1024,100,1,measure,comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,"
     "0\n",
     {"raw.csv:2:", "column 3 (comm_target_s)", "'fast' is not a number"}},
    {2,
     LINE2_PREFIX "comm_reff,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 9 (kind)",
      "allowed: comm_ref, comp_ref, overlap, comm_null, comp_null, overlap_null"}},
    {2,
     "0,ibcast,0.01,0.02,1024,100,1,warm,comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 8 (role)", "allowed: warmup, measure"}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,1.5,-1,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 13 (rank)", "out of range"}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,0,5000,4000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 16 (t3_ns)", "before t2_ns"}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,-1,100000,0\n",
     {"raw.csv:2:", "column 19 (exit_late_ns)", "out of range"}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,2\n",
     {"raw.csv:2:", "column 21 (late)", "allowed: 0 to 1"}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,now,0,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 12 (wall_start_s)", "not a number"}},
    {5,
     "1,ibcast,0.02,0.02,2048,100,1,measure,comm_ref,0,3,1.5,0,0,5000,5000,20000000,0,0,100000,0,"
     "7\n",
     {"raw.csv:5:", "22 fields", NULL}},
    {3,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:3:", "duplicate row", "line 2"}},
    {3,
     "0,ibcast,0.01,0.04,1024,100,1,measure,comp_ref,0,1,1.5,0,0,0,20000000,20000000,0,0,100000,"
     "0\n",
     {"raw.csv:3:", "column 4 (comp_target_s)", "cell 0"}},
    {2,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,0,5000,5000,99999999999999999999,0,0,100000,0\n",
     {"raw.csv:2:", "column 17 (t4_ns)", "out of range"}},
    {2,
     "0,,0.01,0.02,1024,100,1,measure,comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 2 (collective)", "empty"}},
    {2,
     "0,ibcast,0,0.02,1024,100,1,measure,comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n",
     {"raw.csv:2:", "column 3 (comm_target_s)", "not a positive duration"}},
    /* the raw.csv of an older bench_nbc: one row per repetition */
    {1,
     "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,t1_ns,t2_ns,"
     "t3_ns,t4_ns,retries\n",
     {"raw.csv:1:", "no column 'block'", "written by an older bench_nbc"}},
    {1,
     LINE2_PREFIX "comm_ref,0,0,1.5,0,0,5000,5000,10000000,0,0,100000,0\n",
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
    /* A run whose every target was unreachable measured nothing: its grid is
     * still listed (from the calibration files), so the file is accepted. */
    const char header_only[] = RAW_HEADER;
    size_t rows = 1;
    assert_int_equal(parse_rows(header_only, strlen(header_only), &err, &rows), ANALYSIS_OK);
    assert_int_equal(rows, 0);
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
    /* A scenario's parts, the titles' second line: the communicator once
     * when shared, else per part; a weight as "S" or "0.5 S", bytes as "B". */
    static const struct {
        const char *json, *line;
    } scenarios[] = {
        {"{\"scenario\": [{\"collective\": \"iallgather\", \"communicator\": \"run\", \"weight\": "
         "1.0}, "
         "{\"collective\": \"ireduce_scatter_block\", \"communicator\": \"run\", \"weight\": 1}]}",
         "iallgather (S) + ireduce_scatter_block (S), run comm"},
        {"{\"scenario\": [{\"collective\": \"ineighbor_alltoall\", \"communicator\": \"run\", "
         "\"weight\": 0.5}, {\"collective\": \"iallreduce\", \"communicator\": \"dup\", \"bytes\": "
         "64}]}",
         "ineighbor_alltoall (0.5 S, run) + iallreduce (64 B, dup)"},
        {"{\"scenario\": null}", ""},
        {"{\"collective\": \"ibcast\"}", ""},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
        assert_int_equal(analysis_parse_meta(scenarios[i].json, strlen(scenarios[i].json),
                                             "meta.json", &meta, &err),
                         0);
        assert_string_equal(meta.scenario, scenarios[i].line);
    }
    const char scenario_bad[] = "{\"scenario\": \"iallgather\"}";
    assert_int_equal(
        analysis_parse_meta(scenario_bad, strlen(scenario_bad), "meta.json", &meta, &err),
        ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "key 'scenario'"));
}

static void test_cells_round_trip(void **state)
{
    (void)state;
    run_inputs in = {0};
    analysis_error err;
    assert_int_equal(analysis_parse_raw(valid_raw, strlen(valid_raw), "raw.csv", &in.raw, &err), 0);
    in.meta.barrier_precision_ns = NAN;
    cell_rules rules = analysis_default_rules();
    cell_table cells;
    assert_int_equal(analysis_compute_cells(&in, &rules, &cells, &err), 0);
    char dir[] = "/tmp/test_analysis_parse.XXXXXX";
    assert_non_null(mkdtemp(dir));
    cells.cells[1].interference = true;
    cells.cells[1].compute_delay_share = 0.25;
    assert_int_equal(analysis_write_tables(dir, &cells, NULL, &err), 0);

    char path[300], text[8192];
    snprintf(path, sizeof path, "%s/cells.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    const char header[] =
        "collective,comm_target_s,comp_target_s,bytes,matrix_n,blocks,valid,t_comm_ref,t_comp_ref,"
        "t_measured,t_call,t_comp,t_wait,r_overhead,r_comm,r_comp_slowdown,r_overhead_iqr,"
        "overlap_osu_pct,overlap_imb_pct,late_attempts,invalid_reason,cell,ranks,start_skew_s,"
        "attempts,late_share,tolerance_ns,t_mpi,t_comm_ref_local,t_comp_ref_local,t_measured_local,"
        "comm_target_error,comp_target_error,comm_off_target,comp_off_target,r_overhead_ci_lo,"
        "r_overhead_ci_hi,r_comm_ci_lo,r_comm_ci_hi,r_comp_slowdown_ci_lo,r_comp_slowdown_ci_hi,"
        "r_overhead_mean,r_overhead_mean_ci_lo,r_overhead_mean_ci_hi,r_overhead_p90,"
        "r_overhead_outlier_share,r_overhead_bimodality,r_overhead_bimodal,comm_null_blocks,"
        "comm_null_ratio,comm_null_ci_lo,comm_null_ci_hi,comp_null_blocks,comp_null_ratio,"
        "comp_null_ci_lo,comp_null_ci_hi,bootstrap_seed,stop,r_mpi_impact,r_mpi_impact_ci_lo,"
        "r_mpi_impact_ci_hi,compute_delay_share,interference,library_cpu_share,r_comm_local_wait,"
        "r_comm_local_wait_ci_lo,r_comm_local_wait_ci_hi,overlap,class,ended_block_share,"
        "ended_block_share_ci_lo,ended_block_share_ci_hi,foreign_wait_s\n";
    assert_memory_equal(text, header, strlen(header));

    cell_table back;
    assert_int_equal(analysis_parse_cells(text, len, path, &back, &err), 0);
    assert_int_equal(back.count, cells.count);
    for (size_t i = 0; i < cells.count; i++) {
        const cell_metrics *a = &cells.cells[i], *b = &back.cells[i];
        assert_true(fabs(b->r_overhead - a->r_overhead) < 1e-5);
        assert_true(fabs(b->t_measured - a->t_measured) < 1e-9);
        assert_int_equal(b->valid, a->valid);
        assert_int_equal(b->invalid_reasons, a->invalid_reasons);
        assert_int_equal(b->blocks, a->blocks);
        assert_int_equal(b->attempts, a->attempts);
        assert_string_equal(b->stop, a->stop);
        assert_int_equal(b->cell, a->cell);
        assert_int_equal(b->overlap, a->overlap);
        assert_int_equal(b->class, a->class);
        assert_true(isnan(a->ended_block_share_ci.hi)
                        ? isnan(b->ended_block_share_ci.hi)
                        : fabs(b->ended_block_share_ci.hi - a->ended_block_share_ci.hi) < 1e-6);
        assert_int_equal(b->comm_off_target, a->comm_off_target);
        assert_int_equal(b->bootstrap_seed, a->bootstrap_seed);
        assert_int_equal(b->comm_null_blocks, a->comm_null_blocks);
        assert_int_equal(b->interference, a->interference);
        assert_true(fabs(b->compute_delay_share - a->compute_delay_share) < 1e-6);
    }
    /* one block each: the bands of the estimates, one launch */
    assert_int_equal(back.cells[0].overlap, VERDICT_NONE);
    assert_int_equal(back.cells[1].overlap, VERDICT_HIDDEN);
    assert_int_equal(back.cells[0].class, VERDICT_ONE_LAUNCH);
    assert_true(isnan(back.cells[0].r_overhead_ci.lo)); /* one block: no interval */
    analysis_cell_table_free(&back);

    /* an invalid cell's reasons and nan values read back */
    cells.cells[0].valid = false;
    cells.cells[0].invalid_reasons = INVALID_LATE | INVALID_UNREACHABLE;
    cells.cells[0].r_comm = NAN;
    cells.cells[0].r_comm_ci = (metric_bounds){0.5, 1.25};
    cells.cells[0].r_overhead_bimodal = true;
    assert_int_equal(analysis_write_tables(dir, &cells, NULL, &err), 0);
    f = fopen(path, "r");
    assert_non_null(f);
    len = fread(text, 1, sizeof text, f);
    fclose(f);
    assert_int_equal(analysis_parse_cells(text, len, path, &back, &err), 0);
    assert_int_equal(back.cells[0].invalid_reasons, INVALID_LATE | INVALID_UNREACHABLE);
    assert_true(isnan(back.cells[0].r_comm));
    assert_true(back.cells[0].r_comm_ci.lo == 0.5 && back.cells[0].r_comm_ci.hi == 1.25);
    assert_true(back.cells[0].r_overhead_bimodal);
    analysis_cell_table_free(&back);
    analysis_cell_table_free(&cells);
    analysis_run_inputs_free(&in);

    snprintf(path, sizeof path, "%s/cells_by_rank.csv", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/cells.csv", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* passive.csv's scheduler counters: read where the header has them (-1,
 * a rank that could not read them, as NAN), NAN in a file written before
 * them, which is still read; a value below -1 is refused. */
static void test_passive_counters(void **state)
{
    (void)state;
    analysis_error err;
    passive_row *passive;
    size_t count;
    const char with[] = "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,"
                        "t_comp_s,window_ns,compute_cpu_ns,compute_run_delay_ns,progress_cpu_ns\n"
                        "node0,0,1,60,0.001,before,1,5,0,0.002,2100000,1000000,1000000,950000\n"
                        "node0,0,1,60,0.001,before,1,5,1,0.001,-1,-1,-1,-1\n";
    assert_int_equal(
        analysis_parse_passive(with, strlen(with), "passive.csv", &passive, &count, &err), 0);
    assert_int_equal(count, 2);
    assert_true(passive[0].window_ns == 2100000 && passive[0].compute_cpu_ns == 1000000 &&
                passive[0].compute_run_delay_ns == 1000000 && passive[0].progress_cpu_ns == 950000);
    assert_true(isnan(passive[1].window_ns) && isnan(passive[1].compute_cpu_ns) &&
                isnan(passive[1].compute_run_delay_ns) && isnan(passive[1].progress_cpu_ns));
    free(passive);
    /* the format before the counters: read, counters NAN */
    const char without[] =
        "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,t_comp_s\n"
        "node0,0,1,60,0.001,before,1,5,0,0.00101\n";
    assert_int_equal(
        analysis_parse_passive(without, strlen(without), "passive.csv", &passive, &count, &err), 0);
    assert_int_equal(count, 1);
    assert_true(fabs(passive[0].t_comp_s - 0.00101) < 1e-15);
    assert_true(isnan(passive[0].window_ns) && isnan(passive[0].compute_cpu_ns) &&
                isnan(passive[0].compute_run_delay_ns) && isnan(passive[0].progress_cpu_ns));
    free(passive);
    const char bad[] = "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,"
                       "t_comp_s,window_ns,compute_cpu_ns,compute_run_delay_ns,progress_cpu_ns\n"
                       "node0,0,1,60,0.001,before,1,5,0,0.002,2100000,1000000,-5,0\n";
    assert_int_equal(
        analysis_parse_passive(bad, strlen(bad), "passive.csv", &passive, &count, &err),
        ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "passive.csv:2: column 13 (compute_run_delay_ns)"));
}

/* Files in the format of an older writer are refused, saying so; rows of
 * one block or attempt that disagree are named. */
static void test_older_formats_and_disagreements(void **state)
{
    (void)state;
    analysis_error err;
    passive_row *passive;
    compute_ref_row *refs;
    size_t count;
    const char old_passive[] = "host,rank,threads,matrix_n,comp_target_s,reps,t_comp_s\n"
                               "node0,0,1,60,0.001,5,0.00101\n";
    assert_int_equal(analysis_parse_passive(old_passive, strlen(old_passive), "passive.csv",
                                            &passive, &count, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "passive.csv:1: the header has no column 'phase'"));
    assert_non_null(strstr(err.text, "older bench_nbc"));
    const char old_ref[] = "host,threads,matrix_n,reps,t_comp_s,gflops_per_thread\n"
                           "node0,1,60,5,0.001,10.0\n";
    assert_int_equal(analysis_parse_compute_ref(old_ref, strlen(old_ref), "compute_ref.csv", &refs,
                                                &count, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "older compute_ref"));
    /* one median per rank and phase, no steps: the format before the steps */
    const char median_passive[] =
        "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,t_comp_s\n"
        "node0,0,1,60,0.001,before,1,5,0.00101\n";
    assert_int_equal(analysis_parse_passive(median_passive, strlen(median_passive), "passive.csv",
                                            &passive, &count, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "passive.csv:1: the header has no column 'step'"));
    assert_non_null(strstr(err.text, "older bench_nbc"));
    const char median_ref[] = "host,proc,procs,threads,matrix_n,comp_target_s,phase,warmup_steps,"
                              "reps,t_comp_s,gflops_per_thread\n"
                              "node0,0,1,1,60,0.001,before,1,5,0.001,10.0\n";
    assert_int_equal(analysis_parse_compute_ref(median_ref, strlen(median_ref), "compute_ref.csv",
                                                &refs, &count, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "no column 'step'"));
    assert_non_null(strstr(err.text, "older compute_ref"));
    const char bad_phase[] =
        "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,t_comp_s\n"
        "node0,0,1,60,0.001,during,1,5,0,0.00101\n";
    assert_int_equal(
        analysis_parse_passive(bad_phase, strlen(bad_phase), "passive.csv", &passive, &count, &err),
        ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "passive.csv:2: column 6 (phase)"));
    assert_non_null(strstr(err.text, "allowed: before, after"));
    const char bad_step[] =
        "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,t_comp_s\n"
        "node0,0,1,60,0.001,before,1,5,5,0.00101\n";
    assert_int_equal(
        analysis_parse_passive(bad_step, strlen(bad_step), "passive.csv", &passive, &count, &err),
        ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "passive.csv:2: column 9 (step): 5 is not below reps (5)"));
    cell_table cells;
    const char old_cells[] = "collective,comm_target_s,comp_target_s,bytes,matrix_n,reps,valid\n";
    assert_int_equal(analysis_parse_cells(old_cells, strlen(old_cells), "cells.csv", &cells, &err),
                     ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "older nbc-analyze"));

    const char role_mix[] =
        RAW_HEADER "0,ibcast,0.01,0.02,1024,100,1,measure,comm_ref,0,0,1.5,0,0,5,5,10,0,0,100,0\n"
                   "0,ibcast,0.01,0.02,1024,100,1,warmup,comp_ref,0,1,1.5,0,0,0,20,20,0,0,100,0\n";
    assert_int_equal(parse(role_mix, strlen(role_mix), &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "raw.csv:3: column role: block 1 of cell 0"));
    const char late_mix[] = RAW_HEADER
        "0,ibcast,0.01,0.02,1024,100,1,measure,comm_ref,0,0,1.5,0,0,5,5,10,0,0,100,0\n"
        "0,ibcast,0.01,0.02,1024,100,1,measure,comm_ref,0,0,1.5,1,0,5,5,10,0,900,100,1\n";
    assert_int_equal(parse(late_mix, strlen(late_mix), &err), ANALYSIS_ERR_INPUT);
    assert_non_null(strstr(err.text, "raw.csv:3: column late: attempt 0"));
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
        cmocka_unit_test(test_passive_counters),
        cmocka_unit_test(test_older_formats_and_disagreements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
