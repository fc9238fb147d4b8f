/* analysis: cells.csv, cells_by_rank.csv and impact.csv (written, and read
 * back by nbc-compare). Columns are documented in analysis/README.md. */
#include "analysis/analysis_internal.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* How a column is written and read back. */
enum column_type {
    COL_NAME,      /* char[ANALYSIS_NAME_MAX] */
    COL_TARGET,    /* double, targets to 9 digits */
    COL_TIME,      /* double seconds (or ns), 10 digits: the nanosecond below 10 s */
    COL_RATIO,     /* double, 6 digits */
    COL_LEVEL,     /* double, 9 digits: a confidence level near 1 */
    COL_LONG,      /* long */
    COL_LLONG,     /* long long */
    COL_BOOL,      /* bool as 0 or 1 */
    COL_DIAGNOSIS, /* enum diagnosis by name */
    COL_REASONS,   /* unsigned invalid_reasons as text */
};

typedef struct column {
    const char *name;
    enum column_type type;
    size_t offset;
} column;

#define CELL_COLUMN(name, type, field)                                                             \
    {                                                                                              \
        name, type, offsetof(cell_metrics, field)                                                  \
    }

/* The contract of cells.csv, in this order (README.md, "cells.csv"). */
static const column cells_columns[] = {
    CELL_COLUMN("collective", COL_NAME, collective),
    CELL_COLUMN("comm_target_s", COL_TARGET, comm_target_s),
    CELL_COLUMN("comp_target_s", COL_TARGET, comp_target_s),
    CELL_COLUMN("bytes", COL_LLONG, bytes),
    CELL_COLUMN("matrix_n", COL_LLONG, matrix_n),
    CELL_COLUMN("blocks", COL_LONG, blocks),
    CELL_COLUMN("valid", COL_BOOL, valid),
    CELL_COLUMN("t_comm_ref", COL_TIME, t_comm_ref),
    CELL_COLUMN("t_comp_ref", COL_TIME, t_comp_ref),
    CELL_COLUMN("t_measured", COL_TIME, t_measured),
    CELL_COLUMN("t_call", COL_TIME, t_call),
    CELL_COLUMN("t_comp", COL_TIME, t_comp),
    CELL_COLUMN("t_wait", COL_TIME, t_wait),
    CELL_COLUMN("r_overhead", COL_RATIO, r_overhead),
    CELL_COLUMN("r_comm", COL_RATIO, r_comm),
    CELL_COLUMN("r_comp_slowdown", COL_RATIO, r_comp_slowdown),
    CELL_COLUMN("r_overhead_iqr", COL_RATIO, r_overhead_iqr),
    CELL_COLUMN("overlap_osu_pct", COL_RATIO, overlap_osu_pct),
    CELL_COLUMN("overlap_imb_pct", COL_RATIO, overlap_imb_pct),
    CELL_COLUMN("diagnosis", COL_DIAGNOSIS, diagnosis),
    CELL_COLUMN("late_attempts", COL_LONG, late_attempts),
    CELL_COLUMN("invalid_reason", COL_REASONS, invalid_reasons),
    CELL_COLUMN("cell", COL_LONG, cell),
    CELL_COLUMN("ranks", COL_LONG, ranks),
    CELL_COLUMN("start_skew_s", COL_TIME, start_skew_s),
    CELL_COLUMN("attempts", COL_LONG, attempts),
    CELL_COLUMN("late_share", COL_RATIO, late_share),
    CELL_COLUMN("tolerance_ns", COL_TIME, tolerance_ns),
    CELL_COLUMN("t_mpi", COL_TIME, t_mpi),
    CELL_COLUMN("t_comm_ref_local", COL_TIME, t_comm_ref_local),
    CELL_COLUMN("t_comp_ref_local", COL_TIME, t_comp_ref_local),
    CELL_COLUMN("t_measured_local", COL_TIME, t_measured_local),
    CELL_COLUMN("comm_target_error", COL_RATIO, comm_target_error),
    CELL_COLUMN("comp_target_error", COL_RATIO, comp_target_error),
    CELL_COLUMN("comm_unhidden_share", COL_RATIO, comm_unhidden_share),
    CELL_COLUMN("r_overhead_ci_lo", COL_RATIO, r_overhead_ci.lo),
    CELL_COLUMN("r_overhead_ci_hi", COL_RATIO, r_overhead_ci.hi),
    CELL_COLUMN("r_comm_ci_lo", COL_RATIO, r_comm_ci.lo),
    CELL_COLUMN("r_comm_ci_hi", COL_RATIO, r_comm_ci.hi),
    CELL_COLUMN("r_comp_slowdown_ci_lo", COL_RATIO, r_comp_slowdown_ci.lo),
    CELL_COLUMN("r_comp_slowdown_ci_hi", COL_RATIO, r_comp_slowdown_ci.hi),
    CELL_COLUMN("r_overhead_sim_lo", COL_RATIO, r_overhead_sim.lo),
    CELL_COLUMN("r_overhead_sim_hi", COL_RATIO, r_overhead_sim.hi),
    CELL_COLUMN("r_comm_sim_lo", COL_RATIO, r_comm_sim.lo),
    CELL_COLUMN("r_comm_sim_hi", COL_RATIO, r_comm_sim.hi),
    CELL_COLUMN("r_comp_slowdown_sim_lo", COL_RATIO, r_comp_slowdown_sim.lo),
    CELL_COLUMN("r_comp_slowdown_sim_hi", COL_RATIO, r_comp_slowdown_sim.hi),
    CELL_COLUMN("diagnosis_confidence", COL_LEVEL, diagnosis_confidence),
    CELL_COLUMN("diagnosis_point", COL_DIAGNOSIS, diagnosis_point),
    CELL_COLUMN("r_overhead_mean", COL_RATIO, r_overhead_mean),
    CELL_COLUMN("r_overhead_mean_ci_lo", COL_RATIO, r_overhead_mean_ci.lo),
    CELL_COLUMN("r_overhead_mean_ci_hi", COL_RATIO, r_overhead_mean_ci.hi),
    CELL_COLUMN("r_overhead_p90", COL_RATIO, r_overhead_p90),
    CELL_COLUMN("r_overhead_outlier_share", COL_RATIO, r_overhead_outlier_share),
    CELL_COLUMN("r_overhead_bimodality", COL_RATIO, r_overhead_bimodality),
    CELL_COLUMN("r_overhead_bimodal", COL_BOOL, r_overhead_bimodal),
    CELL_COLUMN("comm_null_blocks", COL_LONG, comm_null_blocks),
    CELL_COLUMN("comm_null_ratio", COL_RATIO, comm_null_ratio),
    CELL_COLUMN("comm_null_ci_lo", COL_RATIO, comm_null_ci.lo),
    CELL_COLUMN("comm_null_ci_hi", COL_RATIO, comm_null_ci.hi),
    CELL_COLUMN("comp_null_blocks", COL_LONG, comp_null_blocks),
    CELL_COLUMN("comp_null_ratio", COL_RATIO, comp_null_ratio),
    CELL_COLUMN("comp_null_ci_lo", COL_RATIO, comp_null_ci.lo),
    CELL_COLUMN("comp_null_ci_hi", COL_RATIO, comp_null_ci.hi),
    CELL_COLUMN("bootstrap_seed", COL_LLONG, bootstrap_seed),
    CELL_COLUMN("stop", COL_NAME, stop),
    CELL_COLUMN("r_mpi_impact", COL_RATIO, r_mpi_impact),
    CELL_COLUMN("r_mpi_impact_ci_lo", COL_RATIO, r_mpi_impact_ci.lo),
    CELL_COLUMN("r_mpi_impact_ci_hi", COL_RATIO, r_mpi_impact_ci.hi),
    CELL_COLUMN("compute_delay_share", COL_RATIO, compute_delay_share),
    CELL_COLUMN("interference", COL_BOOL, interference),
    CELL_COLUMN("library_cpu_share", COL_RATIO, library_cpu_share),
};
enum { CELLS_COLUMN_COUNT = sizeof cells_columns / sizeof *cells_columns };

/* Columns the cells.csv of an older nbc-analyze lacked (it had reps and
 * late_retries; then it had no intervals; then no stop, no r_mpi_impact, no
 * interference). */
static const char *const cells_new_columns[] = {
    "blocks",           "late_attempts", "attempts",     "stop",
    "r_overhead_ci_lo", "r_mpi_impact",  "interference", NULL};

static const char by_rank_header[] =
    "collective,comm_target_s,comp_target_s,rank,blocks,t_comm_ref,t_comp_ref,t_measured,t_call,"
    "t_comp,t_wait,r_comm,r_comp_slowdown,deciding_blocks,cell";

/* impact.csv: the first eight columns are what nbc-compare reads back. */
static const char *const impact_columns[] = {
    "host",
    "matrix_n",
    "comp_target_s",
    "t_comp_ref_s",
    "t_comp_passive_mpi_s",
    "r_mpi_impact",
    "r_mpi_impact_ci_lo",
    "r_mpi_impact_ci_hi",
    "phases",
    "r_mpi_impact_before",
    "r_mpi_impact_before_ci_lo",
    "r_mpi_impact_before_ci_hi",
    "r_mpi_impact_after",
    "r_mpi_impact_after_ci_lo",
    "r_mpi_impact_after_ci_hi",
    "t_passive_before_s",
    "t_passive_after_s",
    "t_ref_before_s",
    "t_ref_after_s",
    "passive_steps",
    "ref_steps",
    "ranks",
    "procs",
    "warnings",
};
enum { IMPACT_READ_COLUMNS = 8 };
/* Columns the impact.csv of an older nbc-analyze lacked (no intervals). */
static const char *const impact_new_columns[] = {"r_mpi_impact_ci_lo", NULL};

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
    case COL_NAME:
        strbuf_printf(sb, "%s", (const char *)field);
        break;
    case COL_TARGET:
        strbuf_printf(sb, "%.9g", *(const double *)field);
        break;
    case COL_TIME:
        strbuf_printf(sb, "%.10g", *(const double *)field);
        break;
    case COL_RATIO:
        strbuf_printf(sb, "%.6g", *(const double *)field);
        break;
    case COL_LEVEL:
        strbuf_printf(sb, "%.9g", *(const double *)field);
        break;
    case COL_LONG:
        strbuf_printf(sb, "%ld", *(const long *)field);
        break;
    case COL_LLONG:
        strbuf_printf(sb, "%lld", *(const long long *)field);
        break;
    case COL_BOOL:
        strbuf_printf(sb, "%d", *(const bool *)field ? 1 : 0);
        break;
    case COL_DIAGNOSIS:
        strbuf_printf(sb, "%s", analysis_diagnosis_name(*(const enum diagnosis *)field));
        break;
    case COL_REASONS:
        analysis_invalid_reasons_text(*(const unsigned *)field, reasons, sizeof reasons);
        strbuf_printf(sb, "%s", reasons);
        break;
    }
}

static void cells_text(strbuf *sb, const cell_table *cells)
{
    for (size_t i = 0; i < CELLS_COLUMN_COUNT; i++)
        strbuf_printf(sb, "%s%s", i ? "," : "", cells_columns[i].name);
    strbuf_printf(sb, "\n");
    for (size_t r = 0; r < cells->count; r++) {
        for (size_t i = 0; i < CELLS_COLUMN_COUNT; i++) {
            if (i)
                strbuf_printf(sb, ",");
            write_field(sb, &cells->cells[r], &cells_columns[i]);
        }
        strbuf_printf(sb, "\n");
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
                      c->collective, c->comm_target_s, c->comp_target_s, r->rank, r->blocks,
                      r->t_comm_ref, r->t_comp_ref, r->t_measured, r->t_call, r->t_comp, r->t_wait,
                      r->r_comm, r->r_comp_slowdown, r->deciding_blocks, c->cell);
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
    for (size_t i = 0; i < sizeof impact_columns / sizeof *impact_columns; i++)
        strbuf_printf(sb, "%s%s", i ? "," : "", impact_columns[i]);
    strbuf_printf(sb, "\n");
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
        strbuf_printf(sb, ",%.10g,%.10g,%.10g,%.10g,%ld,%ld,%ld,%ld,%s\n",
                      r->t_passive_phase_s[PHASE_BEFORE], r->t_passive_phase_s[PHASE_AFTER],
                      r->t_ref_phase_s[PHASE_BEFORE], r->t_ref_phase_s[PHASE_AFTER],
                      r->passive_steps, r->ref_steps, r->ranks, r->procs, warnings);
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

static int bad_word(const csv_record *record, size_t index, const char *allowed,
                    analysis_error *err)
{
    size_t position = record->position[index];
    const char *value = record->fields[position];
    char shown[200];
    analysis_quote(value, strlen(value), shown, sizeof shown);
    return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (%s): '%s' is not %s",
                         record->file_name, record->line, position + 1, record->header[position],
                         shown, allowed);
}

static int read_field(const csv_record *record, size_t index, cell_metrics *c, analysis_error *err)
{
    const column *col = &cells_columns[index];
    void *field = (char *)c + col->offset;
    const char *text = record->fields[record->position[index]];
    long long value = 0;
    int status = ANALYSIS_OK;
    switch (col->type) {
    case COL_NAME:
        return csv_string(record, index, field, ANALYSIS_NAME_MAX, err);
    case COL_TARGET:
        return csv_double(record, index, false, field, err);
    case COL_TIME:
    case COL_RATIO:
    case COL_LEVEL:
        return csv_double(record, index, true, field, err);
    case COL_LONG:
        status = csv_long(record, index, LONG_MIN, LONG_MAX, &value, err);
        *(long *)field = (long)value;
        return status;
    case COL_LLONG:
        return csv_long(record, index, 0, LLONG_MAX, field, err);
    case COL_BOOL:
        status = csv_long(record, index, 0, 1, &value, err);
        *(bool *)field = value == 1;
        return status;
    case COL_DIAGNOSIS:
        if (!analysis_diagnosis_from_name(text, field))
            return bad_word(
                record, index,
                "a diagnosis (allowed: overlap, no_progress, comp_slowdown, "
                "contention, comm_slowed, imprecision, off_target, unexplained, uncertain, "
                "invalid)",
                err);
        return ANALYSIS_OK;
    case COL_REASONS:
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
    for (size_t i = 0; i < CELLS_COLUMN_COUNT; i++) {
        int status = read_field(record, i, &c, err);
        if (status != ANALYSIS_OK)
            return status;
    }
    return csv_push(opaque, &c, err);
}

int analysis_parse_cells(const char *buf, size_t len, const char *file_name, cell_table *cells,
                         analysis_error *err)
{
    const char *names[CELLS_COLUMN_COUNT];
    for (size_t i = 0; i < CELLS_COLUMN_COUNT; i++)
        names[i] = cells_columns[i].name;
    const csv_schema schema = {names, CELLS_COLUMN_COUNT, false, cells_new_columns, "nbc-analyze"};
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
        (status = csv_double(record, 5, true, &r.r_mpi_impact, err)) ||
        (status = csv_double(record, 6, true, &r.r_mpi_impact_ci.lo, err)) ||
        (status = csv_double(record, 7, true, &r.r_mpi_impact_ci.hi, err)))
        return status;
    for (int p = 0; p < PHASE_COUNT; p++) {
        r.t_passive_phase_s[p] = r.t_ref_phase_s[p] = r.r_phase[p] = NAN;
        r.r_phase_ci[p] = (metric_bounds){NAN, NAN};
    }
    return csv_push(opaque, &r, err);
}

int analysis_parse_impact(const char *buf, size_t len, const char *file_name, impact_table *impact,
                          analysis_error *err)
{
    static const csv_schema schema = {impact_columns, IMPACT_READ_COLUMNS, false,
                                      impact_new_columns, "nbc-analyze"};
    *impact = (impact_table){0};
    return csv_parse_rows(buf, len, file_name, &schema, impact_row_fn, sizeof *impact->rows,
                          (void **)&impact->rows, &impact->count, err);
}
