/* analysis: cells.csv, cells_by_rank.csv and impact.csv (written, and read
 * back by nbc-compare). Columns are documented in analysis/README.md. */
#include "analysis/tables/tables.h"
#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* How a column is written and read back. */
enum column_type {
    FIELD_NAME,    /* char[ANALYSIS_NAME_MAX] */
    FIELD_TARGET,  /* double, targets to 9 digits */
    FIELD_TIME,    /* double seconds (or ns), 10 digits: the nanosecond below 10 s */
    FIELD_RATIO,   /* double, 6 digits */
    FIELD_LONG,    /* long */
    FIELD_LLONG,   /* long long */
    FIELD_BOOL,    /* bool as 0 or 1 */
    FIELD_CLASS,   /* verdict_class by name (schema/classes.def) */
    FIELD_REASONS, /* unsigned invalid_reasons as text */
};

/* Where a column of cells.csv lives in cell_metrics; its name and place
 * are the schema's (schema/columns.def). */
typedef struct column {
    schema_column id;
    enum column_type type;
    size_t offset;
} column;

#define CELL_COLUMN(id, type, field)                                                               \
    {                                                                                              \
        COL_CELLS_##id, type, offsetof(cell_metrics, field)                                        \
    }

/* The fields of the columns of cells.csv (any order: the header's is the
 * schema's). */
static const column cells_fields[] = {
    CELL_COLUMN(COLLECTIVE, FIELD_NAME, collective),
    CELL_COLUMN(COMM_TARGET, FIELD_TARGET, comm_target_s),
    CELL_COLUMN(COMP_TARGET, FIELD_TARGET, comp_target_s),
    CELL_COLUMN(BYTES, FIELD_LLONG, bytes),
    CELL_COLUMN(MATRIX_N, FIELD_LLONG, matrix_n),
    CELL_COLUMN(BLOCKS, FIELD_LONG, blocks),
    CELL_COLUMN(VALID, FIELD_BOOL, valid),
    CELL_COLUMN(T_COMM_REF, FIELD_TIME, t_comm_ref),
    CELL_COLUMN(T_COMP_REF, FIELD_TIME, t_comp_ref),
    CELL_COLUMN(T_MEASURED, FIELD_TIME, t_measured),
    CELL_COLUMN(T_CALL, FIELD_TIME, t_call),
    CELL_COLUMN(T_COMP, FIELD_TIME, t_comp),
    CELL_COLUMN(T_WAIT, FIELD_TIME, t_wait),
    CELL_COLUMN(R_OVERHEAD, FIELD_RATIO, r_overhead),
    CELL_COLUMN(R_COMM, FIELD_RATIO, r_comm),
    CELL_COLUMN(R_COMP_SLOWDOWN, FIELD_RATIO, r_comp_slowdown),
    CELL_COLUMN(R_OVERHEAD_IQR, FIELD_RATIO, r_overhead_iqr),
    CELL_COLUMN(OVERLAP_OSU, FIELD_RATIO, overlap_osu_pct),
    CELL_COLUMN(OVERLAP_IMB, FIELD_RATIO, overlap_imb_pct),
    CELL_COLUMN(LATE_ATTEMPTS, FIELD_LONG, late_attempts),
    CELL_COLUMN(INVALID_REASON, FIELD_REASONS, invalid_reasons),
    CELL_COLUMN(CELL, FIELD_LONG, cell),
    CELL_COLUMN(RANKS, FIELD_LONG, ranks),
    CELL_COLUMN(START_SKEW, FIELD_TIME, start_skew_s),
    CELL_COLUMN(ATTEMPTS, FIELD_LONG, attempts),
    CELL_COLUMN(LATE_SHARE, FIELD_RATIO, late_share),
    CELL_COLUMN(TOLERANCE, FIELD_TIME, tolerance_ns),
    CELL_COLUMN(T_MPI, FIELD_TIME, t_mpi),
    CELL_COLUMN(T_COMM_REF_LOCAL, FIELD_TIME, t_comm_ref_local),
    CELL_COLUMN(T_COMP_REF_LOCAL, FIELD_TIME, t_comp_ref_local),
    CELL_COLUMN(T_MEASURED_LOCAL, FIELD_TIME, t_measured_local),
    CELL_COLUMN(COMM_TARGET_ERROR, FIELD_RATIO, comm_target_error),
    CELL_COLUMN(COMP_TARGET_ERROR, FIELD_RATIO, comp_target_error),
    CELL_COLUMN(COMM_OFF_TARGET, FIELD_BOOL, comm_off_target),
    CELL_COLUMN(COMP_OFF_TARGET, FIELD_BOOL, comp_off_target),
    CELL_COLUMN(R_OVERHEAD_CI_LO, FIELD_RATIO, r_overhead_ci.lo),
    CELL_COLUMN(R_OVERHEAD_CI_HI, FIELD_RATIO, r_overhead_ci.hi),
    CELL_COLUMN(R_COMM_CI_LO, FIELD_RATIO, r_comm_ci.lo),
    CELL_COLUMN(R_COMM_CI_HI, FIELD_RATIO, r_comm_ci.hi),
    CELL_COLUMN(R_COMP_SLOWDOWN_CI_LO, FIELD_RATIO, r_comp_slowdown_ci.lo),
    CELL_COLUMN(R_COMP_SLOWDOWN_CI_HI, FIELD_RATIO, r_comp_slowdown_ci.hi),
    CELL_COLUMN(R_OVERHEAD_MEAN, FIELD_RATIO, r_overhead_mean),
    CELL_COLUMN(R_OVERHEAD_MEAN_CI_LO, FIELD_RATIO, r_overhead_mean_ci.lo),
    CELL_COLUMN(R_OVERHEAD_MEAN_CI_HI, FIELD_RATIO, r_overhead_mean_ci.hi),
    CELL_COLUMN(R_OVERHEAD_P90, FIELD_RATIO, r_overhead_p90),
    CELL_COLUMN(R_OVERHEAD_OUTLIER_SHARE, FIELD_RATIO, r_overhead_outlier_share),
    CELL_COLUMN(R_OVERHEAD_BIMODALITY, FIELD_RATIO, r_overhead_bimodality),
    CELL_COLUMN(R_OVERHEAD_BIMODAL, FIELD_BOOL, r_overhead_bimodal),
    CELL_COLUMN(COMM_NULL_BLOCKS, FIELD_LONG, comm_null_blocks),
    CELL_COLUMN(COMM_NULL_RATIO, FIELD_RATIO, comm_null_ratio),
    CELL_COLUMN(COMM_NULL_CI_LO, FIELD_RATIO, comm_null_ci.lo),
    CELL_COLUMN(COMM_NULL_CI_HI, FIELD_RATIO, comm_null_ci.hi),
    CELL_COLUMN(COMP_NULL_BLOCKS, FIELD_LONG, comp_null_blocks),
    CELL_COLUMN(COMP_NULL_RATIO, FIELD_RATIO, comp_null_ratio),
    CELL_COLUMN(COMP_NULL_CI_LO, FIELD_RATIO, comp_null_ci.lo),
    CELL_COLUMN(COMP_NULL_CI_HI, FIELD_RATIO, comp_null_ci.hi),
    CELL_COLUMN(BOOTSTRAP_SEED, FIELD_LLONG, bootstrap_seed),
    CELL_COLUMN(STOP, FIELD_NAME, stop),
    CELL_COLUMN(R_MPI_IMPACT, FIELD_RATIO, r_mpi_impact),
    CELL_COLUMN(R_MPI_IMPACT_CI_LO, FIELD_RATIO, r_mpi_impact_ci.lo),
    CELL_COLUMN(R_MPI_IMPACT_CI_HI, FIELD_RATIO, r_mpi_impact_ci.hi),
    CELL_COLUMN(COMPUTE_DELAY_SHARE, FIELD_RATIO, compute_delay_share),
    CELL_COLUMN(INTERFERENCE, FIELD_BOOL, interference),
    CELL_COLUMN(LIBRARY_CPU_SHARE, FIELD_RATIO, library_cpu_share),
    CELL_COLUMN(R_COMM_LOCAL_WAIT, FIELD_RATIO, r_comm_local_wait),
    CELL_COLUMN(R_COMM_LOCAL_WAIT_CI_LO, FIELD_RATIO, r_comm_local_wait_ci.lo),
    CELL_COLUMN(R_COMM_LOCAL_WAIT_CI_HI, FIELD_RATIO, r_comm_local_wait_ci.hi),
    CELL_COLUMN(OVERLAP, FIELD_CLASS, overlap),
    CELL_COLUMN(CLASS, FIELD_CLASS, class),
    CELL_COLUMN(ENDED_BLOCK_SHARE, FIELD_RATIO, ended_block_share),
    CELL_COLUMN(ENDED_BLOCK_SHARE_CI_LO, FIELD_RATIO, ended_block_share_ci.lo),
    CELL_COLUMN(ENDED_BLOCK_SHARE_CI_HI, FIELD_RATIO, ended_block_share_ci.hi),
    CELL_COLUMN(FOREIGN_WAIT, FIELD_TIME, foreign_wait_s),
};
enum { CELLS_FIELD_COUNT = sizeof cells_fields / sizeof *cells_fields };

/* Columns the cells.csv of an older nbc-analyze lacked (it had reps and
 * late_retries; then it had no intervals; then no stop, no r_mpi_impact, no
 * interference; then its r_comm counted each rank's own wait; then it had
 * no band reading; then no foreign wait). */
static const schema_column cells_new_columns[] = {
    COL_CELLS_BLOCKS,       COL_CELLS_LATE_ATTEMPTS,     COL_CELLS_ATTEMPTS,
    COL_CELLS_STOP,         COL_CELLS_R_OVERHEAD_CI_LO,  COL_CELLS_R_MPI_IMPACT,
    COL_CELLS_INTERFERENCE, COL_CELLS_R_COMM_LOCAL_WAIT, COL_CELLS_OVERLAP,
    COL_CELLS_FOREIGN_WAIT};

/* The field of each column of cells.csv in header order; a column of the
 * schema without one is an error of this file, named. */
static int cells_layout(const column **layout, analysis_error *err)
{
    schema_column first = schema_file_first(SCHEMA_CELLS);
    size_t count = schema_file_column_count(SCHEMA_CELLS);
    for (size_t i = 0; i < count; i++) {
        layout[i] = NULL;
        for (size_t f = 0; f < CELLS_FIELD_COUNT && !layout[i]; f++)
            if (cells_fields[f].id == first + (int)i)
                layout[i] = &cells_fields[f];
        if (!layout[i])
            return analysis_fail(err, ANALYSIS_ERR_SYSTEM,
                                 "cells.csv: the column '%s' of schema/columns.def has no field "
                                 "in analysis/tables/tables.c (cells_fields)",
                                 schema_column_name(first + (int)i));
    }
    return ANALYSIS_OK;
}

/* impact.csv: what nbc-compare reads back. */
static const schema_column impact_read_columns[] = {
    COL_IMPACT_HOST,
    COL_IMPACT_MATRIX_N,
    COL_IMPACT_COMP_TARGET,
    COL_IMPACT_T_COMP_REF,
    COL_IMPACT_T_COMP_PASSIVE,
    COL_IMPACT_R_MPI_IMPACT,
    COL_IMPACT_R_MPI_IMPACT_CI_LO,
    COL_IMPACT_R_MPI_IMPACT_CI_HI,
};
/* Columns the impact.csv of an older nbc-analyze lacked (no intervals). */
static const schema_column impact_new_columns[] = {COL_IMPACT_R_MPI_IMPACT_CI_LO};

/* A header line from the schema. */
static void header_text(strbuf *sb, schema_file file)
{
    schema_column first = schema_file_first(file);
    for (size_t i = 0; i < schema_file_column_count(file); i++)
        strbuf_printf(sb, "%s%s", i ? "," : "", schema_column_name(first + (int)i));
    strbuf_printf(sb, "\n");
}

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

static void write_field(strbuf *sb, const cell_metrics *c, const column *col)
{
    const void *field = (const char *)c + col->offset;
    char reasons[128];
    switch (col->type) {
    case FIELD_NAME:
        strbuf_printf(sb, "%s", (const char *)field);
        break;
    case FIELD_TARGET:
        strbuf_printf(sb, "%.9g", *(const double *)field);
        break;
    case FIELD_TIME:
        strbuf_printf(sb, "%.10g", *(const double *)field);
        break;
    case FIELD_RATIO:
        strbuf_printf(sb, "%.6g", *(const double *)field);
        break;
    case FIELD_LONG:
        strbuf_printf(sb, "%ld", *(const long *)field);
        break;
    case FIELD_LLONG:
        strbuf_printf(sb, "%lld", *(const long long *)field);
        break;
    case FIELD_BOOL:
        strbuf_printf(sb, "%d", *(const bool *)field ? 1 : 0);
        break;
    case FIELD_CLASS:
        strbuf_printf(sb, "%s", verdict_class_name(*(const verdict_class *)field));
        break;
    case FIELD_REASONS:
        analysis_invalid_reasons_text(*(const unsigned *)field, reasons, sizeof reasons);
        strbuf_printf(sb, "%s", reasons);
        break;
    }
}

static int cells_text(strbuf *sb, const cell_table *cells, analysis_error *err)
{
    const column *layout[SCHEMA_COLUMN_COUNT];
    int status = cells_layout(layout, err);
    if (status != ANALYSIS_OK)
        return status;
    size_t count = schema_file_column_count(SCHEMA_CELLS);
    header_text(sb, SCHEMA_CELLS);
    for (size_t r = 0; r < cells->count; r++) {
        for (size_t i = 0; i < count; i++) {
            if (i)
                strbuf_printf(sb, ",");
            write_field(sb, &cells->cells[r], layout[i]);
        }
        strbuf_printf(sb, "\n");
    }
    return ANALYSIS_OK;
}

static void by_rank_text(strbuf *sb, const cell_table *cells)
{
    header_text(sb, SCHEMA_CELLS_BY_RANK);
    for (size_t i = 0; i < cells->rank_count; i++) {
        const rank_metrics *r = &cells->ranks[i];
        const cell_metrics *c = &cells->cells[r->cell_index];
        strbuf_printf(sb,
                      "%s,%.9g,%.9g,%ld,%ld,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6g,%.6g,%ld,"
                      "%ld,%.6g\n",
                      c->collective, c->comm_target_s, c->comp_target_s, r->rank, r->blocks,
                      r->t_comm_ref, r->t_comp_ref, r->t_measured, r->t_call, r->t_comp, r->t_wait,
                      r->r_comm, r->r_comp_slowdown, r->deciding_blocks, c->cell,
                      r->r_comm_local_wait);
    }
}

/* "before+after", "after", ...: the phases r_mpi_impact rests on. */
static void phases_text(unsigned phases, char *out, size_t out_size)
{
    static const bit_name names[PHASE_COUNT] = {{1u << PHASE_BEFORE, "before"},
                                                {1u << PHASE_AFTER, "after"}};
    bits_text(names, PHASE_COUNT, phases, out, out_size);
}

static void impact_text(strbuf *sb, const impact_table *impact)
{
    header_text(sb, SCHEMA_IMPACT);
    for (size_t i = 0; i < impact->count; i++) {
        const impact_row *r = &impact->rows[i];
        char warnings[160], phases[32];
        analysis_impact_warnings_text(r->warnings, warnings, sizeof warnings);
        phases_text(r->phases, phases, sizeof phases);
        strbuf_printf(sb, "%s,%lld,%.9g,%.10g,%.10g,%.6g,%.6g,%.6g,%s", r->host, r->matrix_n,
                      r->comp_target_s, r->t_comp_ref_s, r->t_comp_passive_mpi_s, r->r_mpi_impact,
                      r->r_mpi_impact_ci.lo, r->r_mpi_impact_ci.hi, phases);
        for (int p = 0; p < PHASE_COUNT; p++)
            strbuf_printf(sb, ",%.6g,%.6g,%.6g", r->r_phase[p], r->r_phase_ci[p].lo,
                          r->r_phase_ci[p].hi);
        strbuf_printf(sb, ",%.10g,%.10g,%.10g,%.10g,%ld,%ld,%ld,%ld,%s,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                      r->t_passive_phase_s[PHASE_BEFORE], r->t_passive_phase_s[PHASE_AFTER],
                      r->t_ref_phase_s[PHASE_BEFORE], r->t_ref_phase_s[PHASE_AFTER],
                      r->passive_steps, r->ref_steps, r->ranks, r->procs, warnings,
                      r->passive_delay_share, r->passive_progress_cpu_share, r->r_aa, r->r_aa_ci.lo,
                      r->r_aa_ci.hi);
    }
}

int analysis_write_tables(const char *run_dir, const cell_table *cells, const impact_table *impact,
                          analysis_error *err)
{
    strbuf sb = {0};
    int status = cells_text(&sb, cells, err);
    if (status == ANALYSIS_OK)
        status = write_table(run_dir, schema_file_name(SCHEMA_CELLS), &sb, err);
    strbuf_free(&sb);
    if (status == ANALYSIS_OK) {
        by_rank_text(&sb, cells);
        status = write_table(run_dir, schema_file_name(SCHEMA_CELLS_BY_RANK), &sb, err);
        strbuf_free(&sb);
    }
    if (status == ANALYSIS_OK && impact) {
        impact_text(&sb, impact);
        status = write_table(run_dir, schema_file_name(SCHEMA_IMPACT), &sb, err);
        strbuf_free(&sb);
    }
    return status;
}

/* ---- Reading back ------------------------------------------------------------- */

static int bad_word(const csv_record *record, schema_column index, const char *allowed,
                    analysis_error *err)
{
    size_t position = csv_field_position(record, index);
    const char *value = record->fields[position];
    char shown[200];
    analysis_quote(value, strlen(value), shown, sizeof shown);
    return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (%s): '%s' is not %s",
                         record->file_name, record->line, position + 1, record->header[position],
                         shown, allowed);
}

static int read_field(const csv_record *record, const column *col, cell_metrics *c,
                      analysis_error *err)
{
    schema_column index = col->id;
    void *field = (char *)c + col->offset;
    const char *text = record->fields[csv_field_position(record, index)];
    long long value = 0;
    int status = ANALYSIS_OK;
    switch (col->type) {
    case FIELD_NAME:
        return csv_string(record, index, field, ANALYSIS_NAME_MAX, err);
    case FIELD_TARGET:
        return csv_double(record, index, false, field, err);
    case FIELD_TIME:
    case FIELD_RATIO:
        return csv_double(record, index, true, field, err);
    case FIELD_LONG:
        status = csv_long(record, index, LONG_MIN, LONG_MAX, &value, err);
        *(long *)field = (long)value;
        return status;
    case FIELD_LLONG:
        return csv_long(record, index, 0, LLONG_MAX, field, err);
    case FIELD_BOOL:
        status = csv_long(record, index, 0, 1, &value, err);
        *(bool *)field = value == 1;
        return status;
    case FIELD_CLASS:
        if (!verdict_class_find(text, field))
            return bad_word(record, index,
                            "a class of schema/classes.def (hidden, partial, none, "
                            "one_launch, invalid)",
                            err);
        return ANALYSIS_OK;
    case FIELD_REASONS:
        if (!analysis_invalid_reasons_from_text(text, field))
            return bad_word(record, index,
                            "'none' or reasons joined by '+' (comm_calibration, "
                            "comp_calibration, late, no_blocks, unreachable, not_measured)",
                            err);
        return ANALYSIS_OK;
    }
    return status;
}

static int cells_row_fn(const csv_record *record, void *opaque, analysis_error *err)
{
    cell_metrics c = {0};
    for (size_t i = 0; i < CELLS_FIELD_COUNT; i++) {
        int status = read_field(record, &cells_fields[i], &c, err);
        if (status != ANALYSIS_OK)
            return status;
    }
    return csv_push(opaque, &c, err);
}

int analysis_parse_cells(const char *buf, size_t len, const char *file_name, cell_table *cells,
                         analysis_error *err)
{
    schema_column needed[CELLS_FIELD_COUNT];
    for (size_t i = 0; i < CELLS_FIELD_COUNT; i++)
        needed[i] = cells_fields[i].id;
    const csv_schema schema = {SCHEMA_CELLS, CSV_COLUMNS(needed), false,
                               CSV_COLUMNS(cells_new_columns)};
    *cells = (cell_table){0};
    return csv_parse_rows(buf, len, file_name, &schema, cells_row_fn, sizeof *cells->cells,
                          (void **)&cells->cells, &cells->count, err);
}

static int impact_row_fn(const csv_record *record, void *opaque, analysis_error *err)
{
    impact_row r = {0};
    int status;
    if ((status = csv_string(record, COL_IMPACT_HOST, r.host, sizeof r.host, err)) ||
        (status = csv_long(record, COL_IMPACT_MATRIX_N, 0, INT_MAX, &r.matrix_n, err)) ||
        (status = csv_double(record, COL_IMPACT_COMP_TARGET, false, &r.comp_target_s, err)) ||
        (status = csv_double(record, COL_IMPACT_T_COMP_REF, true, &r.t_comp_ref_s, err)) ||
        (status =
             csv_double(record, COL_IMPACT_T_COMP_PASSIVE, true, &r.t_comp_passive_mpi_s, err)) ||
        (status = csv_double(record, COL_IMPACT_R_MPI_IMPACT, true, &r.r_mpi_impact, err)) ||
        (status =
             csv_double(record, COL_IMPACT_R_MPI_IMPACT_CI_LO, true, &r.r_mpi_impact_ci.lo, err)) ||
        (status =
             csv_double(record, COL_IMPACT_R_MPI_IMPACT_CI_HI, true, &r.r_mpi_impact_ci.hi, err)))
        return status;
    for (int p = 0; p < PHASE_COUNT; p++) {
        r.t_passive_phase_s[p] = r.t_ref_phase_s[p] = r.r_phase[p] = NAN;
        r.r_phase_ci[p] = (metric_bounds){NAN, NAN};
    }
    r.passive_delay_share = r.passive_progress_cpu_share = NAN; /* not read back */
    r.r_aa = NAN;
    r.r_aa_ci = (metric_bounds){NAN, NAN};
    return csv_push(opaque, &r, err);
}

int analysis_parse_impact(const char *buf, size_t len, const char *file_name, impact_table *impact,
                          analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_IMPACT, CSV_COLUMNS(impact_read_columns), false,
                                      CSV_COLUMNS(impact_new_columns)};
    *impact = (impact_table){0};
    return csv_parse_rows(buf, len, file_name, &schema, impact_row_fn, sizeof *impact->rows,
                          (void **)&impact->rows, &impact->count, err);
}
