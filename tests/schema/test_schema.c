/* The schema of the run folder's files (schema/schema.h): the table's
 * consistency, its lookups, header checks, and that the analysis writes and
 * reads through it. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "schema/schema.h"

/* Every file has columns, consecutive, with names that are unique in it,
 * hold no comma or space, and a type, unit and meaning. */
static void test_table_consistent(void **state)
{
    (void)state;
    for (int f = 0; f < SCHEMA_FILE_COUNT; f++) {
        size_t count = schema_file_column_count(f);
        schema_column first = schema_file_first(f);
        assert_true(count > 0);
        assert_int_not_equal(first, SCHEMA_NO_COLUMN);
        assert_int_equal(schema_file_find(schema_file_name(f)), f);
        assert_true(strstr(schema_file_name(f), ".csv") || strstr(schema_file_name(f), ".txt"));
        for (size_t i = 0; i < count; i++) {
            schema_column c = (schema_column)(first + (int)i);
            const schema_column_info *info = schema_column_get(c);
            assert_non_null(info);
            assert_int_equal(info->file, f);
            assert_true(info->name[0] != '\0');
            assert_null(strpbrk(info->name, ", \t|`"));
            assert_true(info->type < SCHEMA_TYPE_COUNT);
            assert_non_null(info->unit);
            assert_true(info->meaning[0] != '\0');
            assert_null(strchr(info->meaning, '|')); /* a markdown table cell */
            assert_int_equal(schema_column_index(c), i);
            assert_int_equal(schema_find(f, info->name), c);
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(schema_column_name((schema_column)(first + (int)j)),
                                        info->name);
        }
    }
}

static void test_lookups(void **state)
{
    (void)state;
    assert_int_equal(schema_file_find("raw.csv"), SCHEMA_RAW);
    assert_int_equal(schema_file_find("nothing.csv"), -1);
    assert_int_equal(schema_find(SCHEMA_RAW, "seq"), COL_RAW_SEQ);
    assert_int_equal(schema_find(SCHEMA_SCHED, "seq"), COL_SCHED_SEQ);
    assert_int_equal(schema_find(SCHEMA_SWEEP, "t1_ns"), SCHEMA_NO_COLUMN);
    assert_string_equal(schema_column_name(COL_CELLS_R_OVERHEAD), "r_overhead");
    assert_string_equal(schema_column_id(COL_CELLS_R_OVERHEAD), "CELLS_R_OVERHEAD");
    assert_int_equal(schema_column_get(COL_RAW_LATE)->type, SCHEMA_FLAG);
    assert_string_equal(schema_column_get(COL_RAW_T1)->unit, "ns");
    assert_null(schema_column_get(SCHEMA_COLUMN_COUNT));
    assert_string_equal(schema_column_name(SCHEMA_NO_COLUMN), "?");
    assert_string_equal(schema_file_writer(SCHEMA_CELLS), "nbc-analyze");
    assert_string_equal(schema_type_name(SCHEMA_NUMBER), "number");
}

/* The headers bench_nbc and compute_ref wrote before the schema: folders
 * of those versions still resume and analyze (column order and names). */
static void test_headers_unchanged(void **state)
{
    (void)state;
    static const struct {
        schema_file file;
        const char *header;
    } known[] = {
        {SCHEMA_RAW, "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,"
                     "attempt,seq,wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,"
                     "exit_late_ns,tolerance_ns,late,start_skew_ns,foreign_wait_ns"},
        {SCHEMA_CALIB_COMM,
         "collective,comm_target_s,bytes,t_comm_s,iterations,converged,size_given"},
        {SCHEMA_CALIB_COMP,
         "comp_target_s,matrix_n,t_comp_s,gflops_per_thread,iterations,converged"},
        {SCHEMA_PASSIVE,
         "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,t_comp_s,"
         "window_ns,compute_cpu_ns,compute_run_delay_ns,progress_cpu_ns"},
        {SCHEMA_SCHED, "cell,block,kind,attempt,seq,rank,role,thread,tid,window_ns,cpu_ns,"
                       "run_delay_ns,vol_switches,invol_switches,migrations"},
        {SCHEMA_SWEEP, "cell,blocks,stop,half_width,elapsed_s,test_chunks,clock_points"},
        {SCHEMA_COMPUTE_REF, "host,proc,procs,threads,matrix_n,comp_target_s,phase,warmup_steps,"
                             "reps,step,t_comp_s,gflops_per_thread"},
        {SCHEMA_MPIT_CVARS,
         "index,name,datatype,value,enum_item,verbosity,scope,binding,description"},
        {SCHEMA_MPIT_PVARS, "cell,rank,pvar,delta"},
        {SCHEMA_CELLS,
         "collective,comm_target_s,comp_target_s,bytes,matrix_n,blocks,valid,t_comm_ref,"
         "t_comp_ref,t_measured,t_call,t_comp,t_wait,r_overhead,r_comm,r_comp_slowdown,"
         "r_overhead_iqr,overlap_osu_pct,overlap_imb_pct,late_attempts,invalid_reason,cell,ranks,"
         "start_skew_s,attempts,late_share,tolerance_ns,t_mpi,t_comm_ref_local,t_comp_ref_local,"
         "t_measured_local,comm_target_error,comp_target_error,comm_off_target,comp_off_target,"
         "r_overhead_ci_lo,r_overhead_ci_hi,r_comm_ci_lo,r_comm_ci_hi,r_comp_slowdown_ci_lo,"
         "r_comp_slowdown_ci_hi,r_overhead_mean,r_overhead_mean_ci_lo,r_overhead_mean_ci_hi,"
         "r_overhead_p90,r_overhead_outlier_share,r_overhead_bimodality,r_overhead_bimodal,"
         "comm_null_blocks,comm_null_ratio,comm_null_ci_lo,comm_null_ci_hi,comp_null_blocks,"
         "comp_null_ratio,comp_null_ci_lo,comp_null_ci_hi,bootstrap_seed,stop,r_mpi_impact,"
         "r_mpi_impact_ci_lo,r_mpi_impact_ci_hi,compute_delay_share,interference,"
         "library_cpu_share,r_comm_local_wait,r_comm_local_wait_ci_lo,r_comm_local_wait_ci_hi,"
         "overlap,class,ended_block_share,ended_block_share_ci_lo,ended_block_share_ci_hi,"
         "foreign_wait_s"},
        {SCHEMA_IMPACT,
         "host,matrix_n,comp_target_s,t_comp_ref_s,t_comp_passive_mpi_s,r_mpi_impact,"
         "r_mpi_impact_ci_lo,r_mpi_impact_ci_hi,phases,r_mpi_impact_before,"
         "r_mpi_impact_before_ci_lo,r_mpi_impact_before_ci_hi,r_mpi_impact_after,"
         "r_mpi_impact_after_ci_lo,r_mpi_impact_after_ci_hi,t_passive_before_s,"
         "t_passive_after_s,t_ref_before_s,t_ref_after_s,passive_steps,ref_steps,ranks,"
         "procs,warnings,passive_delay_share,passive_progress_cpu_share,r_aa,r_aa_ci_lo,r_aa_ci_"
         "hi"},
        {SCHEMA_CELLS_BY_RANK, "collective,comm_target_s,comp_target_s,rank,blocks,t_comm_ref,"
                               "t_comp_ref,t_measured,t_call,t_comp,t_wait,r_comm,"
                               "r_comp_slowdown,deciding_blocks,cell,r_comm_local_wait"},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        char header[4096];
        int n = schema_header(known[i].file, header, sizeof header);
        assert_int_equal(n, (int)strlen(known[i].header));
        assert_string_equal(header, known[i].header);
    }
}

static void test_header_text(void **state)
{
    (void)state;
    char small[8], header[4096];
    assert_int_equal(schema_header(SCHEMA_RAW, small, sizeof small), -1);
    assert_true(schema_header(SCHEMA_CELLS, header, sizeof header) > 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(schema_write_header(f, SCHEMA_CELLS), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(len, strlen(header) + 1);
    assert_memory_equal(text, header, strlen(header));
    assert_int_equal(text[len - 1], '\n');
    free(text);
}

/* Columns found by name wherever the header has them; a missing one is
 * named with its file. */
static void test_locate(void **state)
{
    (void)state;
    const char *fields[] = {"blocks", "elapsed_s", "cell", "extra"};
    const schema_column wanted[] = {COL_SWEEP_CELL, COL_SWEEP_BLOCKS, COL_SWEEP_ELAPSED};
    int position[3];
    char err[256] = "";
    assert_int_equal(schema_locate(SCHEMA_SWEEP, "run/sweep.csv", fields, 4, wanted, 3, position,
                                   err, sizeof err),
                     0);
    assert_int_equal(position[0], 2);
    assert_int_equal(position[1], 0);
    assert_int_equal(position[2], 1);
    const schema_column more[] = {COL_SWEEP_CELL, COL_SWEEP_STOP};
    assert_int_equal(
        schema_locate(SCHEMA_SWEEP, "run/sweep.csv", fields, 4, more, 2, position, err, sizeof err),
        -1);
    assert_non_null(strstr(err, "run/sweep.csv"));
    assert_non_null(strstr(err, "'stop'"));
}

static void test_header_matches(void **state)
{
    (void)state;
    char header[4096], err[256] = "";
    schema_header(SCHEMA_SWEEP, header, sizeof header);
    assert_true(schema_header_matches(SCHEMA_SWEEP, "s.csv", header, err, sizeof err));
    assert_false(schema_header_matches(SCHEMA_SWEEP, "s.csv", "cell,blocks,stop,half_width", err,
                                       sizeof err));
    assert_non_null(strstr(err, "s.csv"));
    assert_non_null(strstr(err, "'elapsed_s'"));
    assert_false(schema_header_matches(SCHEMA_SWEEP, "s.csv",
                                       "cell,blocks,why,half_width,elapsed_s", err, sizeof err));
    assert_non_null(strstr(err, "'why'"));
    assert_non_null(strstr(err, "'stop'"));
    assert_false(schema_header_matches(
        SCHEMA_SWEEP, "s.csv", "cell,blocks,stop,half_width,elapsed_s,more", err, sizeof err));
    assert_non_null(strstr(err, "more"));
    assert_false(schema_header_matches(SCHEMA_SWEEP, "s.csv",
                                       "cell,blocks,stop,half_width,elapsed_s,", err, sizeof err));
    assert_false(schema_header_matches(SCHEMA_SWEEP, "s.csv", "", err, sizeof err));
}

/* The analysis writes cells.csv's header from the schema (every column of
 * the table has its field) and reads it back. */
static void test_cells_written_from_schema(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_schema.XXXXXX";
    assert_non_null(mkdtemp(dir));
    cell_table cells = {0};
    analysis_error err = {{0}};
    assert_int_equal(analysis_write_tables(dir, &cells, NULL, &err), 0);
    char path[256], line[8192], header[8192];
    snprintf(path, sizeof path, "%s/%s", dir, schema_file_name(SCHEMA_CELLS));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    schema_header(SCHEMA_CELLS, header, sizeof header);
    assert_string_equal(line, header);
    cell_table back = {0};
    assert_int_equal(analysis_parse_cells(header, strlen(header), "cells.csv", &back, &err), 0);
    assert_int_equal(back.count, 0);
    /* a header without one of its columns is refused, naming it */
    char *cut = strstr(header, ",r_overhead,");
    memmove(cut, cut + strlen(",r_overhead"), strlen(cut + strlen(",r_overhead")) + 1);
    assert_int_not_equal(analysis_parse_cells(header, strlen(header), "run/cells.csv", &back, &err),
                         0);
    assert_non_null(strstr(err.text, "run/cells.csv"));
    assert_non_null(strstr(err.text, "'r_overhead'"));
    unlink(path);
    snprintf(path, sizeof path, "%s/%s", dir, schema_file_name(SCHEMA_CELLS_BY_RANK));
    unlink(path);
    rmdir(dir);
}

/* raw.csv with its columns in another order reads the same. */
static void test_raw_columns_by_name(void **state)
{
    (void)state;
    char header[4096];
    schema_header(SCHEMA_RAW, header, sizeof header);
    /* the first column moved to the end */
    char moved[4096];
    const char *rest = strchr(header, ',') + 1;
    snprintf(moved, sizeof moved, "%s,%.*s\n", rest, (int)(rest - 1 - header), header);
    raw_table table;
    analysis_error err = {{0}};
    assert_int_equal(analysis_parse_raw(moved, strlen(moved), "raw.csv", &table, &err), 0);
    analysis_raw_table_free(&table);
    /* an older raw.csv (no block) is refused naming the file and column */
    const char old[] = "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,"
                       "t1_ns,t2_ns,t3_ns,t4_ns,retries\n";
    assert_int_not_equal(analysis_parse_raw(old, strlen(old), "old/raw.csv", &table, &err), 0);
    assert_non_null(strstr(err.text, "old/raw.csv:1"));
    assert_non_null(strstr(err.text, "'block'"));
    assert_non_null(strstr(err.text, "older bench_nbc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_consistent),
        cmocka_unit_test(test_lookups),
        cmocka_unit_test(test_headers_unchanged),
        cmocka_unit_test(test_header_text),
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_header_matches),
        cmocka_unit_test(test_cells_written_from_schema),
        cmocka_unit_test(test_raw_columns_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
