/* analysis: cells.csv, cells_by_rank.csv and impact.csv (written, and read
 * back by nbc-compare). Columns are documented in analysis/README.md. */
#include "analysis/analysis_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The contract of cells.csv: these columns, in this order, then extras. */
enum cells_column {
    C_COLLECTIVE,
    C_COMM_TARGET,
    C_COMP_TARGET,
    C_BYTES,
    C_MATRIX_N,
    C_REPS,
    C_VALID,
    C_T_COMM_REF,
    C_T_COMP_REF,
    C_T_MEASURED,
    C_T_CALL,
    C_T_COMP,
    C_T_WAIT,
    C_R_OVERHEAD,
    C_R_COMM,
    C_R_COMP_SLOWDOWN,
    C_R_OVERHEAD_IQR,
    C_OVERLAP_OSU,
    C_OVERLAP_IMB,
    C_DIAGNOSIS,
    C_LATE_RETRIES,
    C_REQUIRED_COUNT
};
static const char *const cells_columns[C_REQUIRED_COUNT] = {
    "collective",      "comm_target_s",  "comp_target_s",
    "bytes",           "matrix_n",       "reps",
    "valid",           "t_comm_ref",     "t_comp_ref",
    "t_measured",      "t_call",         "t_comp",
    "t_wait",          "r_overhead",     "r_comm",
    "r_comp_slowdown", "r_overhead_iqr", "overlap_osu_pct",
    "overlap_imb_pct", "diagnosis",      "late_retries",
};
static const char cells_extra_columns[] = "invalid_reason,cell,ranks,start_skew_s";

static const char by_rank_header[] =
    "collective,comm_target_s,comp_target_s,rank,reps,t_comm_ref,t_comp_ref,t_measured,t_call,"
    "t_comp,t_wait,r_comm,r_comp_slowdown,deciding_reps,cell";

static const char *const impact_columns[] = {
    "host", "matrix_n", "comp_target_s", "t_comp_ref_s", "t_comp_passive_mpi_s", "r_mpi_impact",
};

static int write_table(const char *run_dir, const char *name, strbuf *sb, analysis_error *err)
{
    char path[4200];
    if (!sb->ok)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    int status = analysis_path(path, sizeof path, run_dir, name, err);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, sb->data, sb->len, err);
    return status;
}

static void cells_text(strbuf *sb, const cell_table *cells)
{
    for (size_t i = 0; i < C_REQUIRED_COUNT; i++)
        strbuf_printf(sb, "%s,", cells_columns[i]);
    strbuf_printf(sb, "%s\n", cells_extra_columns);
    for (size_t i = 0; i < cells->count; i++) {
        const cell_metrics *c = &cells->cells[i];
        char reasons[128];
        analysis_invalid_reasons_text(c->invalid_reasons, reasons, sizeof reasons);
        /* times to the nanosecond (10 digits cover 10 s), ratios to 6 digits */
        strbuf_printf(sb,
                      "%s,%.9g,%.9g,%lld,%lld,%ld,%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,"
                      "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%ld,%s,%ld,%ld,%.10g\n",
                      c->collective, c->comm_target_s, c->comp_target_s, c->bytes, c->matrix_n,
                      c->reps, c->valid ? 1 : 0, c->t_comm_ref, c->t_comp_ref, c->t_measured,
                      c->t_call, c->t_comp, c->t_wait, c->r_overhead, c->r_comm, c->r_comp_slowdown,
                      c->r_overhead_iqr, c->overlap_osu_pct, c->overlap_imb_pct,
                      analysis_diagnosis_name(c->diagnosis), c->late_retries, reasons, c->cell,
                      c->ranks, c->start_skew_s);
    }
}

static void by_rank_text(strbuf *sb, const cell_table *cells)
{
    strbuf_printf(sb, "%s\n", by_rank_header);
    for (size_t i = 0; i < cells->rank_count; i++) {
        const rank_metrics *r = &cells->ranks[i];
        const cell_metrics *c = &cells->cells[r->cell_index];
        strbuf_printf(sb,
                      "%s,%.9g,%.9g,%ld,%ld,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6g,%.6g,%ld,"
                      "%ld\n",
                      c->collective, c->comm_target_s, c->comp_target_s, r->rank, r->reps,
                      r->t_comm_ref, r->t_comp_ref, r->t_measured, r->t_call, r->t_comp, r->t_wait,
                      r->r_comm, r->r_comp_slowdown, r->deciding_reps, c->cell);
    }
}

static void impact_text(strbuf *sb, const impact_table *impact)
{
    for (size_t i = 0; i < sizeof impact_columns / sizeof *impact_columns; i++)
        strbuf_printf(sb, "%s%s", i ? "," : "", impact_columns[i]);
    strbuf_printf(sb, "\n");
    for (size_t i = 0; i < impact->count; i++) {
        const impact_row *r = &impact->rows[i];
        strbuf_printf(sb, "%s,%lld,%.9g,%.10g,%.10g,%.6g\n", r->host, r->matrix_n, r->comp_target_s,
                      r->t_comp_ref_s, r->t_comp_passive_mpi_s, r->r_mpi_impact);
    }
}

int analysis_write_tables(const char *run_dir, const cell_table *cells, const impact_table *impact,
                          analysis_error *err)
{
    strbuf sb = {0};
    cells_text(&sb, cells);
    int status = write_table(run_dir, "cells.csv", &sb, err);
    strbuf_free(&sb);
    if (status == ANALYSIS_OK) {
        by_rank_text(&sb, cells);
        status = write_table(run_dir, "cells_by_rank.csv", &sb, err);
        strbuf_free(&sb);
    }
    if (status == ANALYSIS_OK && impact) {
        impact_text(&sb, impact);
        status = write_table(run_dir, "impact.csv", &sb, err);
        strbuf_free(&sb);
    }
    return status;
}

/* ---- Reading back ------------------------------------------------------------- */

static int cells_row_fn(const csv_record *record, void *opaque, analysis_error *err)
{
    cell_metrics c = {.cell = (long)((csv_rows *)opaque)->count};
    long long reps, valid, late;
    int status;
    if ((status = csv_string(record, C_COLLECTIVE, c.collective, sizeof c.collective, err)) ||
        (status = csv_double(record, C_COMM_TARGET, false, &c.comm_target_s, err)) ||
        (status = csv_double(record, C_COMP_TARGET, false, &c.comp_target_s, err)) ||
        (status = csv_long(record, C_BYTES, 0, LLONG_MAX, &c.bytes, err)) ||
        (status = csv_long(record, C_MATRIX_N, 0, INT_MAX, &c.matrix_n, err)) ||
        (status = csv_long(record, C_REPS, 0, LONG_MAX, &reps, err)) ||
        (status = csv_long(record, C_VALID, 0, 1, &valid, err)) ||
        (status = csv_long(record, C_LATE_RETRIES, 0, LONG_MAX, &late, err)))
        return status;
    double *doubles[] = {
        [C_T_COMM_REF] = &c.t_comm_ref,
        [C_T_COMP_REF] = &c.t_comp_ref,
        [C_T_MEASURED] = &c.t_measured,
        [C_T_CALL] = &c.t_call,
        [C_T_COMP] = &c.t_comp,
        [C_T_WAIT] = &c.t_wait,
        [C_R_OVERHEAD] = &c.r_overhead,
        [C_R_COMM] = &c.r_comm,
        [C_R_COMP_SLOWDOWN] = &c.r_comp_slowdown,
        [C_R_OVERHEAD_IQR] = &c.r_overhead_iqr,
        [C_OVERLAP_OSU] = &c.overlap_osu_pct,
        [C_OVERLAP_IMB] = &c.overlap_imb_pct,
    };
    for (size_t col = C_T_COMM_REF; col <= C_OVERLAP_IMB; col++)
        if ((status = csv_double(record, col, true, doubles[col], err)))
            return status;
    size_t position = record->position[C_DIAGNOSIS];
    if (!analysis_diagnosis_from_name(record->fields[position], &c.diagnosis)) {
        char shown[200];
        const char *value = record->fields[position];
        analysis_quote(value, strlen(value), shown, sizeof shown);
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s:%ld: column %zu (diagnosis): '%s' is not a diagnosis (allowed: "
                             "overlap, no_progress, comp_slowdown, contention, noise, invalid)",
                             record->file_name, record->line, position + 1, shown);
    }
    c.reps = (long)reps;
    c.valid = valid == 1;
    c.late_retries = (long)late;
    return csv_push(opaque, &c, err);
}

int analysis_parse_cells(const char *buf, size_t len, const char *file_name, cell_table *cells,
                         analysis_error *err)
{
    static const csv_schema schema = {cells_columns, C_REQUIRED_COUNT, false};
    *cells = (cell_table){0};
    return csv_parse_rows(buf, len, file_name, &schema, cells_row_fn, sizeof *cells->cells,
                          (void **)&cells->cells, &cells->count, err);
}

static int impact_row_fn(const csv_record *record, void *opaque, analysis_error *err)
{
    impact_row r = {0};
    int status;
    if ((status = csv_string(record, 0, r.host, sizeof r.host, err)) ||
        (status = csv_long(record, 1, 0, INT_MAX, &r.matrix_n, err)) ||
        (status = csv_double(record, 2, false, &r.comp_target_s, err)) ||
        (status = csv_double(record, 3, true, &r.t_comp_ref_s, err)) ||
        (status = csv_double(record, 4, true, &r.t_comp_passive_mpi_s, err)) ||
        (status = csv_double(record, 5, true, &r.r_mpi_impact, err)))
        return status;
    return csv_push(opaque, &r, err);
}

int analysis_parse_impact(const char *buf, size_t len, const char *file_name, impact_table *impact,
                          analysis_error *err)
{
    static const csv_schema schema = {impact_columns, 6, false};
    *impact = (impact_table){0};
    return csv_parse_rows(buf, len, file_name, &schema, impact_row_fn, sizeof *impact->rows,
                          (void **)&impact->rows, &impact->count, err);
}
