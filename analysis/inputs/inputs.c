/* analysis/inputs: readers of the run folder's files (docs/formats.md; raw.csv's in
 * inputs_raw.c, meta.json's in meta.c). */
#include "analysis/inputs/inputs.h"

#include <json-c/json.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Small tables --------------------------------------------------------- */

static int parse_flag(const csv_record *record, schema_column column, bool *out,
                      analysis_error *err)
{
    long long value;
    int status = csv_long(record, column, 0, 1, &value, err);
    *out = value == 1;
    return status;
}

static const schema_column calib_comm_columns[] = {COL_CALIB_COMM_COLLECTIVE,
                                                   COL_CALIB_COMM_COMM_TARGET, COL_CALIB_COMM_BYTES,
                                                   COL_CALIB_COMM_T_COMM, COL_CALIB_COMM_CONVERGED};

static int calib_comm_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    calib_comm_row row = {0};
    int status;
    if ((status = csv_string(record, COL_CALIB_COMM_COLLECTIVE, row.collective,
                             sizeof row.collective, err)) ||
        (status = csv_double(record, COL_CALIB_COMM_COMM_TARGET, false, &row.comm_target_s, err)) ||
        (status = csv_long(record, COL_CALIB_COMM_BYTES, 0, LLONG_MAX, &row.bytes, err)) ||
        (status = csv_double(record, COL_CALIB_COMM_T_COMM, true, &row.t_comm_s, err)) ||
        (status = parse_flag(record, COL_CALIB_COMM_CONVERGED, &row.converged, err)))
        return status;
    /* Without the column (a file of a bench_nbc that only searched sizes)
     * every size was searched for its target. */
    if (csv_field_position(record, COL_CALIB_COMM_SIZE_GIVEN) != SIZE_MAX &&
        (status = parse_flag(record, COL_CALIB_COMM_SIZE_GIVEN, &row.size_given, err)))
        return status;
    return csv_push(ctx, &row, err);
}

int analysis_parse_calib_comm(const char *buf, size_t len, const char *file_name,
                              calib_comm_row **rows, size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_CALIB_COMM, CSV_COLUMNS(calib_comm_columns), false,
                                      NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, calib_comm_fn, sizeof **rows, (void **)rows,
                          count, err);
}

static const schema_column calib_comp_columns[] = {COL_CALIB_COMP_COMP_TARGET,
                                                   COL_CALIB_COMP_MATRIX_N, COL_CALIB_COMP_T_COMP,
                                                   COL_CALIB_COMP_CONVERGED};

static int calib_comp_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    calib_comp_row row = {0};
    int status;
    if ((status = csv_double(record, COL_CALIB_COMP_COMP_TARGET, false, &row.comp_target_s, err)) ||
        (status = csv_long(record, COL_CALIB_COMP_MATRIX_N, 0, INT_MAX, &row.matrix_n, err)) ||
        (status = csv_double(record, COL_CALIB_COMP_T_COMP, true, &row.t_comp_s, err)) ||
        (status = parse_flag(record, COL_CALIB_COMP_CONVERGED, &row.converged, err)))
        return status;
    return csv_push(ctx, &row, err);
}

int analysis_parse_calib_comp(const char *buf, size_t len, const char *file_name,
                              calib_comp_row **rows, size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_CALIB_COMP, CSV_COLUMNS(calib_comp_columns), false,
                                      NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, calib_comp_fn, sizeof **rows, (void **)rows,
                          count, err);
}

static const char *const phase_names[PHASE_COUNT] = {
    [PHASE_BEFORE] = "before",
    [PHASE_AFTER] = "after",
};

/* compute_ref's phases: also "aa", the A/A partner of the phase before. */
static const char *const ref_phase_names[PHASE_COUNT + 1] = {
    [PHASE_BEFORE] = "before",
    [PHASE_AFTER] = "after",
    [PHASE_COUNT] = "aa",
};

const char *analysis_phase_name(enum run_phase phase)
{
    return phase < PHASE_COUNT ? phase_names[phase] : "?";
}

/* Columns the older passive.csv and compute_ref.csv lacked: first one row
 * per rank or host without a phase, then one row per rank or process
 * holding its median, without the steps. (passive.csv's scheduler counters,
 * window_ns to progress_cpu_ns, came later still; a file without them is
 * read, its counters NAN: optional_ns.) */
static const schema_column passive_new_columns[] = {COL_PASSIVE_PHASE, COL_PASSIVE_WARMUP_STEPS,
                                                    COL_PASSIVE_STEP};
static const schema_column compute_ref_new_columns[] = {
    COL_COMPUTE_REF_PHASE, COL_COMPUTE_REF_WARMUP_STEPS, COL_COMPUTE_REF_PROC,
    COL_COMPUTE_REF_PROCS, COL_COMPUTE_REF_STEP};

/* A step number below the row's reps. */
static int check_step(const csv_record *record, schema_column column, long long step,
                      long long reps, analysis_error *err)
{
    if (step < reps)
        return ANALYSIS_OK;
    return analysis_fail(
        err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (step): %lld is not below reps (%lld)",
        record->file_name, record->line, csv_field_position(record, column) + 1, step, reps);
}

static const schema_column passive_columns[] = {
    COL_PASSIVE_HOST,        COL_PASSIVE_RANK,  COL_PASSIVE_THREADS,      COL_PASSIVE_MATRIX_N,
    COL_PASSIVE_COMP_TARGET, COL_PASSIVE_PHASE, COL_PASSIVE_WARMUP_STEPS, COL_PASSIVE_REPS,
    COL_PASSIVE_STEP,        COL_PASSIVE_T_COMP};

/* A counter of the scheduler (ns) in a column an older passive.csv lacks:
 * NAN when the column is absent or the rank wrote -1 (not read). */
static int optional_ns(const csv_record *record, schema_column column, double *out,
                       analysis_error *err)
{
    *out = NAN;
    if (csv_field_position(record, column) == SIZE_MAX)
        return ANALYSIS_OK;
    long long value;
    int status = csv_long(record, column, -1, LLONG_MAX, &value, err);
    if (status == ANALYSIS_OK && value >= 0)
        *out = (double)value;
    return status;
}

static int passive_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    passive_row row = {0};
    long long rank, threads, warmup, reps, step;
    int phase;
    int status;
    if ((status = csv_string(record, COL_PASSIVE_HOST, row.host, sizeof row.host, err)) ||
        (status = csv_long(record, COL_PASSIVE_RANK, 0, LONG_MAX, &rank, err)) ||
        (status = csv_long(record, COL_PASSIVE_THREADS, 1, INT_MAX, &threads, err)) ||
        (status = csv_long(record, COL_PASSIVE_MATRIX_N, 0, INT_MAX, &row.matrix_n, err)) ||
        (status = csv_double(record, COL_PASSIVE_COMP_TARGET, false, &row.comp_target_s, err)) ||
        (status = csv_name(record, COL_PASSIVE_PHASE, phase_names, PHASE_COUNT, &phase, err)) ||
        (status = csv_long(record, COL_PASSIVE_WARMUP_STEPS, 0, INT_MAX, &warmup, err)) ||
        (status = csv_long(record, COL_PASSIVE_REPS, 1, INT_MAX, &reps, err)) ||
        (status = csv_long(record, COL_PASSIVE_STEP, 0, INT_MAX, &step, err)) ||
        (status = check_step(record, COL_PASSIVE_STEP, step, reps, err)) ||
        (status = csv_double(record, COL_PASSIVE_T_COMP, false, &row.t_comp_s, err)) ||
        (status = optional_ns(record, COL_PASSIVE_WINDOW, &row.window_ns, err)) ||
        (status = optional_ns(record, COL_PASSIVE_COMPUTE_CPU, &row.compute_cpu_ns, err)) ||
        (status =
             optional_ns(record, COL_PASSIVE_COMPUTE_RUN_DELAY, &row.compute_run_delay_ns, err)) ||
        (status = optional_ns(record, COL_PASSIVE_PROGRESS_CPU, &row.progress_cpu_ns, err)))
        return status;
    row.step = (long)step;
    row.rank = (long)rank;
    row.threads = (long)threads;
    row.phase = (enum run_phase)phase;
    row.warmup_steps = (long)warmup;
    row.reps = (long)reps;
    return csv_push(ctx, &row, err);
}

int analysis_parse_passive(const char *buf, size_t len, const char *file_name, passive_row **rows,
                           size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_PASSIVE, CSV_COLUMNS(passive_columns), false,
                                      CSV_COLUMNS(passive_new_columns)};
    return csv_parse_rows(buf, len, file_name, &schema, passive_fn, sizeof **rows, (void **)rows,
                          count, err);
}

static const schema_column compute_ref_columns[] = {
    COL_COMPUTE_REF_HOST,    COL_COMPUTE_REF_PROC,         COL_COMPUTE_REF_PROCS,
    COL_COMPUTE_REF_THREADS, COL_COMPUTE_REF_MATRIX_N,     COL_COMPUTE_REF_COMP_TARGET,
    COL_COMPUTE_REF_PHASE,   COL_COMPUTE_REF_WARMUP_STEPS, COL_COMPUTE_REF_REPS,
    COL_COMPUTE_REF_STEP,    COL_COMPUTE_REF_T_COMP,
};

static int compute_ref_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    compute_ref_row row = {0};
    long long proc, procs, threads, warmup, reps, step;
    int phase;
    int status;
    if ((status = csv_string(record, COL_COMPUTE_REF_HOST, row.host, sizeof row.host, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_PROC, 0, INT_MAX, &proc, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_PROCS, 1, INT_MAX, &procs, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_THREADS, 1, INT_MAX, &threads, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_MATRIX_N, 0, INT_MAX, &row.matrix_n, err)) ||
        (status =
             csv_double(record, COL_COMPUTE_REF_COMP_TARGET, false, &row.comp_target_s, err)) ||
        (status = csv_name(record, COL_COMPUTE_REF_PHASE, ref_phase_names, PHASE_COUNT + 1, &phase,
                           err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_WARMUP_STEPS, 0, INT_MAX, &warmup, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_REPS, 1, INT_MAX, &reps, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_STEP, 0, INT_MAX, &step, err)) ||
        (status = check_step(record, COL_COMPUTE_REF_STEP, step, reps, err)) ||
        (status = csv_double(record, COL_COMPUTE_REF_T_COMP, false, &row.t_comp_s, err)))
        return status;
    row.step = (long)step;
    if (proc >= procs) {
        size_t position = csv_field_position(record, COL_COMPUTE_REF_PROC);
        return analysis_fail(
            err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (%s): %lld is not below %s (%lld)",
            record->file_name, record->line, position + 1, record->header[position], proc,
            schema_column_name(COL_COMPUTE_REF_PROCS), procs);
    }
    row.proc = (long)proc;
    row.procs = (long)procs;
    row.threads = (long)threads;
    row.aa = phase == PHASE_COUNT;
    row.phase = row.aa ? PHASE_BEFORE : (enum run_phase)phase;
    row.warmup_steps = (long)warmup;
    row.reps = (long)reps;
    return csv_push(ctx, &row, err);
}

int analysis_parse_compute_ref(const char *buf, size_t len, const char *file_name,
                               compute_ref_row **rows, size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_COMPUTE_REF, CSV_COLUMNS(compute_ref_columns), true,
                                      CSV_COLUMNS(compute_ref_new_columns)};
    return csv_parse_rows(buf, len, file_name, &schema, compute_ref_fn, sizeof **rows,
                          (void **)rows, count, err);
}

/* ---- The run folder --------------------------------------------------------- */

typedef int (*parse_fn)(const char *buf, size_t len, const char *file_name, void **rows,
                        size_t *count, analysis_error *err);

/* Reads an optional file; *present false (and a warning) when missing. */
static int load_optional(const char *dir, const char *name, parse_fn parse, void **rows,
                         size_t *count, bool *present, const char *consequence, analysis_error *err)
{
    char path[4200];
    char *buf;
    size_t len;
    bool missing;
    *present = false;
    int status = analysis_path(path, sizeof path, dir, name, err);
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_read_file(path, &buf, &len, &missing, err);
    if (missing) {
        analysis_warn("%s is missing: %s", path, consequence);
        return ANALYSIS_OK;
    }
    if (status != ANALYSIS_OK)
        return status;
    status = parse(buf, len, path, rows, count, err);
    free(buf);
    *present = status == ANALYSIS_OK;
    return status;
}

/* Adapters from the typed parsers to parse_fn. */
static int parse_calib_comm_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                                analysis_error *e)
{
    return analysis_parse_calib_comm(b, l, f, (calib_comm_row **)r, c, e);
}
static int parse_calib_comp_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                                analysis_error *e)
{
    return analysis_parse_calib_comp(b, l, f, (calib_comp_row **)r, c, e);
}
static int parse_passive_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                             analysis_error *e)
{
    return analysis_parse_passive(b, l, f, (passive_row **)r, c, e);
}
static int parse_compute_ref_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                                 analysis_error *e)
{
    return analysis_parse_compute_ref(b, l, f, (compute_ref_row **)r, c, e);
}

static int parse_sweep_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                           analysis_error *e)
{
    return analysis_parse_sweep(b, l, f, (sweep_row **)r, c, e);
}

static int load_meta(run_inputs *in, analysis_error *err)
{
    char path[4200];
    char *buf;
    size_t len;
    bool missing;
    int status = analysis_path(path, sizeof path, in->dir, "meta.json", err);
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_read_file(path, &buf, &len, &missing, err);
    if (missing) {
        analysis_warn("%s is missing: titles will lack the library and deployment", path);
        return ANALYSIS_OK;
    }
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_parse_meta(buf, len, path, &in->meta, err);
    free(buf);
    if (status == ANALYSIS_OK && in->meta.status[0] && strcmp(in->meta.status, "complete") != 0)
        analysis_warn("%s: status is '%s': analyzing the cells the run wrote", path,
                      in->meta.status);
    return status;
}

int analysis_load_run(const char *run_dir, run_inputs *in, analysis_error *err)
{
    *in = (run_inputs){0};
    struct stat st;
    if (stat(run_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: not a run folder (no such directory)",
                             run_dir);
    if (strlen(run_dir) >= sizeof in->dir)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: path too long", run_dir);
    strcpy(in->dir, run_dir);

    char path[4200];
    char *buf;
    size_t len;
    bool missing;
    int status = analysis_path(path, sizeof path, run_dir, schema_file_name(SCHEMA_RAW), err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, &buf, &len, &missing, err);
    if (status != ANALYSIS_OK) {
        if (missing)
            analysis_fail(err, ANALYSIS_ERR_INPUT,
                          "%s: no such file (is %s a run folder written by bench_nbc?)", path,
                          run_dir);
        return status;
    }
    status = analysis_parse_raw(buf, len, path, &in->raw, err);
    free(buf);
    if (status == ANALYSIS_OK)
        status = load_meta(in, err);
    if (status == ANALYSIS_OK)
        status =
            load_optional(run_dir, schema_file_name(SCHEMA_CALIB_COMM), parse_calib_comm_any,
                          (void **)&in->calib_comm, &in->calib_comm_count, &in->have_calib_comm,
                          "communication calibration not checked for validity", err);
    if (status == ANALYSIS_OK)
        status =
            load_optional(run_dir, schema_file_name(SCHEMA_CALIB_COMP), parse_calib_comp_any,
                          (void **)&in->calib_comp, &in->calib_comp_count, &in->have_calib_comp,
                          "computation calibration not checked for validity", err);
    if (status == ANALYSIS_OK)
        status = load_optional(run_dir, schema_file_name(SCHEMA_PASSIVE), parse_passive_any,
                               (void **)&in->passive, &in->passive_count, &in->have_passive,
                               "no MPI impact outputs (impact.csv, impact figure)", err);
    if (status == ANALYSIS_OK && in->have_passive)
        status =
            load_optional(run_dir, schema_file_name(SCHEMA_COMPUTE_REF), parse_compute_ref_any,
                          (void **)&in->compute_ref, &in->compute_ref_count, &in->have_compute_ref,
                          "no MPI impact outputs (run compute_ref on each node to get them)", err);
    if (status == ANALYSIS_OK)
        status = load_optional(run_dir, schema_file_name(SCHEMA_SWEEP), parse_sweep_any,
                               (void **)&in->sweep, &in->sweep_count, &in->have_sweep,
                               "cells.csv's stop column says unknown", err);
    if (status != ANALYSIS_OK)
        analysis_run_inputs_free(in);
    return status;
}

void analysis_run_inputs_free(run_inputs *in)
{
    analysis_raw_table_free(&in->raw);
    free(in->calib_comm);
    free(in->calib_comp);
    free(in->passive);
    free(in->compute_ref);
    free(in->sweep);
    *in = (run_inputs){0};
}

/* ---- sweep.csv ------------------------------------------------------------ */

static const schema_column sweep_columns[] = {COL_SWEEP_CELL, COL_SWEEP_BLOCKS, COL_SWEEP_STOP};

static int sweep_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    sweep_row row = {0};
    long long cell, blocks;
    int status;
    if ((status = csv_long(record, COL_SWEEP_CELL, 0, raw_max_cells, &cell, err)) ||
        (status = csv_long(record, COL_SWEEP_BLOCKS, 0, INT_MAX, &blocks, err)) ||
        (status = csv_string(record, COL_SWEEP_STOP, row.stop, sizeof row.stop, err)))
        return status;
    row.cell = (long)cell;
    row.blocks = (long)blocks;
    return csv_push(ctx, &row, err);
}

int analysis_parse_sweep(const char *buf, size_t len, const char *file_name, sweep_row **rows,
                         size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_SWEEP, CSV_COLUMNS(sweep_columns), false, NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, sweep_fn, sizeof **rows, (void **)rows,
                          count, err);
}
