/* analysis: raw.csv's reader (docs/formats.md): every attempt of every
 * cell, checked against the cells' targets and its neighbours, in cell
 * order; the names of its kinds and roles. */
#include "analysis/inputs/inputs.h"

#include <json-c/json.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const raw_kind_names[RAW_KIND_COUNT] = {
    [RAW_KIND_COMM_REF] = "comm_ref",   [RAW_KIND_COMP_REF] = "comp_ref",
    [RAW_KIND_OVERLAP] = "overlap",     [RAW_KIND_COMM_NULL] = "comm_null",
    [RAW_KIND_COMP_NULL] = "comp_null", [RAW_KIND_OVERLAP_NULL] = "overlap_null",
};

const char *analysis_raw_kind_name(enum raw_kind kind)
{
    return kind < RAW_KIND_COUNT ? raw_kind_names[kind] : "?";
}

/* ---- raw.csv ------------------------------------------------------------ */

static const char *const raw_role_names[RAW_ROLE_COUNT] = {
    [RAW_ROLE_WARMUP] = "warmup",
    [RAW_ROLE_MEASURE] = "measure",
};

const char *analysis_raw_role_name(enum raw_role role)
{
    return role < RAW_ROLE_COUNT ? raw_role_names[role] : "?";
}

/* raw.csv: the analysis reads every column (schema/columns.def). */
static const schema_column raw_columns[] = {
    COL_RAW_CELL,  COL_RAW_COLLECTIVE, COL_RAW_COMM_TARGET, COL_RAW_COMP_TARGET,
    COL_RAW_BYTES, COL_RAW_MATRIX_N,   COL_RAW_BLOCK,       COL_RAW_ROLE,
    COL_RAW_KIND,  COL_RAW_ATTEMPT,    COL_RAW_SEQ,         COL_RAW_WALL_START,
    COL_RAW_RANK,  COL_RAW_T1,         COL_RAW_T2,          COL_RAW_T3,
    COL_RAW_T4,    COL_RAW_DEADLINE,   COL_RAW_EXIT_LATE,   COL_RAW_TOLERANCE,
    COL_RAW_LATE,
};
/* Columns an older bench_nbc (one row per repetition: rep, retries) lacked. */
static const schema_column raw_new_columns[] = {
    COL_RAW_BLOCK,    COL_RAW_ROLE,      COL_RAW_ATTEMPT,   COL_RAW_SEQ,  COL_RAW_WALL_START,
    COL_RAW_DEADLINE, COL_RAW_EXIT_LATE, COL_RAW_TOLERANCE, COL_RAW_LATE,
};

/* Ranks a run reaches by far (sizes as raw_max_cells). */
static const long long raw_max_ranks = 1 << 24;

typedef struct raw_parse_ctx {
    raw_table *table;
    size_t cell_capacity;
    size_t row_capacity;
    size_t last_cell; /* rows come grouped by cell: try it first */
    /* cell number -> index + 1 (0: empty), open addressing: any order of
     * any number of cells stays linear (the reader is fuzzed) */
    size_t *slots;
    size_t slot_count; /* a power of two, at least twice the cells */
} raw_parse_ctx;

static size_t cell_slot(const raw_parse_ctx *ctx, long cell)
{
    size_t mask = ctx->slot_count - 1;
    size_t slot = ((size_t)cell * 0x9E3779B97F4A7C15ULL) & mask;
    while (ctx->slots[slot] && ctx->table->cells[ctx->slots[slot] - 1].cell != cell)
        slot = (slot + 1) & mask;
    return slot;
}

/* Room for one more cell in the index, rebuilt twice as large when half full. */
static int cell_index_reserve(raw_parse_ctx *ctx, analysis_error *err)
{
    size_t cells = ctx->table->cell_count;
    if (2 * (cells + 1) <= ctx->slot_count)
        return ANALYSIS_OK;
    size_t count = ctx->slot_count ? 2 * ctx->slot_count : 256;
    size_t *slots = calloc(count, sizeof *slots);
    if (!slots)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", cells);
    free(ctx->slots);
    ctx->slots = slots;
    ctx->slot_count = count;
    for (size_t i = 0; i < cells; i++)
        ctx->slots[cell_slot(ctx, ctx->table->cells[i].cell)] = i + 1;
    return ANALYSIS_OK;
}

static int raw_target(const csv_record *record, schema_column column, double *out,
                      analysis_error *err)
{
    int status = csv_double(record, column, false, out, err);
    if (status == ANALYSIS_OK && !(*out > 0)) {
        size_t position = csv_field_position(record, column);
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s:%ld: column %zu (%s): '%s' is not a positive duration",
                             record->file_name, record->line, position + 1,
                             record->header[position], record->fields[position]);
    }
    return status;
}

static int raw_cell_mismatch(const csv_record *record, schema_column column, const raw_cell *cell,
                             analysis_error *err)
{
    size_t position = csv_field_position(record, column);
    return analysis_fail(err, ANALYSIS_ERR_INPUT,
                         "%s:%ld: column %zu (%s): cell %ld has '%s' here but another value at "
                         "line %ld (a cell's identity must not change)",
                         record->file_name, record->line, position + 1, record->header[position],
                         cell->cell, record->fields[position], cell->first_line);
}

/* Finds the cell or appends it; checks the row agrees with the cell. */
static int raw_find_cell(raw_parse_ctx *ctx, const csv_record *record, const raw_cell *seen,
                         size_t *index, analysis_error *err)
{
    raw_table *table = ctx->table;
    size_t found = table->cell_count;
    int status = cell_index_reserve(ctx, err);
    if (status != ANALYSIS_OK)
        return status;
    size_t slot = 0;
    if (ctx->last_cell < table->cell_count && table->cells[ctx->last_cell].cell == seen->cell) {
        found = ctx->last_cell;
    } else {
        slot = cell_slot(ctx, seen->cell);
        found = ctx->slots[slot] ? ctx->slots[slot] - 1 : table->cell_count;
    }
    if (found == table->cell_count) {
        status = analysis_grow((void **)&table->cells, &ctx->cell_capacity, table->cell_count,
                               sizeof *table->cells, err);
        if (status != ANALYSIS_OK)
            return status;
        table->cells[table->cell_count++] = *seen;
        ctx->slots[slot] = table->cell_count;
    } else {
        const raw_cell *cell = &table->cells[found];
        if (strcmp(cell->collective, seen->collective) != 0)
            return raw_cell_mismatch(record, COL_RAW_COLLECTIVE, cell, err);
        if (cell->comm_target_s != seen->comm_target_s)
            return raw_cell_mismatch(record, COL_RAW_COMM_TARGET, cell, err);
        if (cell->comp_target_s != seen->comp_target_s)
            return raw_cell_mismatch(record, COL_RAW_COMP_TARGET, cell, err);
        if (cell->bytes != seen->bytes)
            return raw_cell_mismatch(record, COL_RAW_BYTES, cell, err);
        if (cell->matrix_n != seen->matrix_n)
            return raw_cell_mismatch(record, COL_RAW_MATRIX_N, cell, err);
    }
    ctx->last_cell = found;
    *index = found;
    return ANALYSIS_OK;
}

static int raw_times(const csv_record *record, raw_row *row, analysis_error *err)
{
    for (int t = 0; t < 4; t++) {
        long long value;
        int status =
            csv_long(record, (schema_column)(COL_RAW_T1 + t), LLONG_MIN, LLONG_MAX, &value, err);
        if (status != ANALYSIS_OK)
            return status;
        row->t_ns[t] = value;
        if (t > 0 && row->t_ns[t] < row->t_ns[t - 1]) {
            size_t position = csv_field_position(record, (schema_column)(COL_RAW_T1 + t));
            return analysis_fail(err, ANALYSIS_ERR_INPUT,
                                 "%s:%ld: column %zu (%s): %lld is before t%d_ns %lld (times of "
                                 "one rank must not decrease)",
                                 record->file_name, record->line, position + 1,
                                 record->header[position], (long long)row->t_ns[t], t,
                                 (long long)row->t_ns[t - 1]);
        }
    }
    return ANALYSIS_OK;
}

/* The window barrier's record of the attempt: deadline, lateness, verdict. */
static int raw_lateness(const csv_record *record, raw_row *row, analysis_error *err)
{
    long long deadline, exit_late, tolerance, late;
    int status;
    if ((status = csv_long(record, COL_RAW_DEADLINE, LLONG_MIN, LLONG_MAX, &deadline, err)) ||
        (status = csv_long(record, COL_RAW_EXIT_LATE, 0, LLONG_MAX, &exit_late, err)) ||
        (status = csv_long(record, COL_RAW_TOLERANCE, 0, LLONG_MAX, &tolerance, err)) ||
        (status = csv_long(record, COL_RAW_LATE, 0, 1, &late, err)))
        return status;
    /* start_skew_ns: optional, files written before it was recorded lack it
     * (their lateness came from exit_late_ns alone, as far as they tell). */
    long long start_skew = -1;
    if (csv_field_position(record, COL_RAW_START_SKEW) != SIZE_MAX &&
        (status = csv_long(record, COL_RAW_START_SKEW, 0, LLONG_MAX, &start_skew, err)))
        return status;
    /* foreign_wait_ns: optional as well; -1 in the file: not read */
    long long foreign_wait = -1;
    if (csv_field_position(record, COL_RAW_FOREIGN_WAIT) != SIZE_MAX &&
        (status = csv_long(record, COL_RAW_FOREIGN_WAIT, -1, LLONG_MAX, &foreign_wait, err)))
        return status;
    row->foreign_wait_ns = foreign_wait;
    row->deadline_ns = deadline;
    row->exit_late_ns = exit_late;
    row->start_skew_ns = start_skew;
    row->tolerance_ns = tolerance;
    row->late = late == 1;
    return ANALYSIS_OK;
}

static int raw_row_fn(const csv_record *record, void *opaque, analysis_error *err)
{
    raw_parse_ctx *ctx = opaque;
    raw_cell cell = {.first_line = record->line};
    raw_row row = {.line = record->line};
    long long cell_number, bytes, matrix_n, block, attempt, seq, rank;
    int role, kind;
    int status;
    if ((status = csv_long(record, COL_RAW_CELL, 0, raw_max_cells - 1, &cell_number, err)) ||
        (status = csv_string(record, COL_RAW_COLLECTIVE, cell.collective, sizeof cell.collective,
                             err)) ||
        (status = raw_target(record, COL_RAW_COMM_TARGET, &cell.comm_target_s, err)) ||
        (status = raw_target(record, COL_RAW_COMP_TARGET, &cell.comp_target_s, err)) ||
        (status = csv_long(record, COL_RAW_BYTES, 0, LLONG_MAX, &bytes, err)) ||
        (status = csv_long(record, COL_RAW_MATRIX_N, 0, INT_MAX, &matrix_n, err)) ||
        (status = csv_long(record, COL_RAW_BLOCK, 0, INT_MAX, &block, err)) ||
        (status = csv_name(record, COL_RAW_ROLE, raw_role_names, RAW_ROLE_COUNT, &role, err)) ||
        (status = csv_name(record, COL_RAW_KIND, raw_kind_names, RAW_KIND_COUNT, &kind, err)) ||
        (status = csv_long(record, COL_RAW_ATTEMPT, 0, INT_MAX, &attempt, err)) ||
        (status = csv_long(record, COL_RAW_SEQ, 0, LLONG_MAX, &seq, err)) ||
        (status = csv_double(record, COL_RAW_WALL_START, false, &row.wall_start_s, err)) ||
        (status = csv_long(record, COL_RAW_RANK, 0, raw_max_ranks - 1, &rank, err)) ||
        (status = raw_times(record, &row, err)) || (status = raw_lateness(record, &row, err)))
        return status;
    cell.cell = (long)cell_number;
    cell.bytes = bytes;
    cell.matrix_n = matrix_n;
    row.block = (long)block;
    row.role = (enum raw_role)role;
    row.kind = (enum raw_kind)kind;
    row.attempt = (long)attempt;
    row.seq = seq;
    row.rank = (long)rank;
    if ((status = raw_find_cell(ctx, record, &cell, &row.cell_index, err)))
        return status;
    raw_table *table = ctx->table;
    if ((status = analysis_grow((void **)&table->rows, &ctx->row_capacity, table->row_count,
                                sizeof *table->rows, err)))
        return status;
    table->rows[table->row_count++] = row;
    return ANALYSIS_OK;
}

static int compare_cells(const void *a, const void *b)
{
    long x = ((const raw_cell *)a)->cell, y = ((const raw_cell *)b)->cell;
    return (x > y) - (x < y);
}

static int compare_rows(const void *a, const void *b)
{
    const raw_row *x = a, *y = b;
    if (x->cell_index != y->cell_index)
        return x->cell_index < y->cell_index ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->attempt != y->attempt)
        return x->attempt < y->attempt ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Rows a and b (sorted neighbours) of one cell disagree on what their
 * (block) or (block, kind, attempt) share. */
static int raw_check_neighbours(const raw_table *table, const raw_row *a, const raw_row *b,
                                const char *file_name, analysis_error *err)
{
    long cell = table->cells[b->cell_index].cell;
    if (a->cell_index != b->cell_index || a->block != b->block)
        return ANALYSIS_OK;
    if (a->kind == b->kind && a->attempt == b->attempt && a->rank == b->rank)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s:%ld: duplicate row: cell %ld, block %ld, kind %s, attempt %ld, "
                             "rank %ld already at line %ld",
                             file_name, b->line, cell, b->block, raw_kind_names[b->kind],
                             b->attempt, b->rank, a->line);
    if (a->role != b->role)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s:%ld: column role: block %ld of cell %ld is '%s' here but "
                             "'%s' at line %ld (a block has one role)",
                             file_name, b->line, b->block, cell, raw_role_names[b->role],
                             raw_role_names[a->role], a->line);
    if (a->kind == b->kind && a->attempt == b->attempt && a->late != b->late)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s:%ld: column late: attempt %ld of cell %ld, block %ld, kind "
                             "%s is %d here but %d at line %ld (an attempt is late on every "
                             "rank or on none)",
                             file_name, b->line, b->attempt, cell, b->block,
                             raw_kind_names[b->kind], b->late, a->late, a->line);
    return ANALYSIS_OK;
}

/* Sorts cells by number and rows by (cell, block, kind, attempt, rank);
 * rejects duplicate rows and rows that disagree on a block's role or an
 * attempt's verdict. */
static int raw_finish(raw_table *table, const char *file_name, analysis_error *err)
{
    size_t n = table->cell_count;
    long *old_numbers = malloc((n ? n : 1) * sizeof *old_numbers);
    size_t *new_index = malloc((n ? n : 1) * sizeof *new_index);
    if (!old_numbers || !new_index) {
        free(old_numbers);
        free(new_index);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", file_name);
    }
    for (size_t i = 0; i < n; i++)
        old_numbers[i] = table->cells[i].cell;
    if (n > 0) /* qsort of NULL is undefined, even for no element */
        qsort(table->cells, n, sizeof *table->cells, compare_cells);
    /* cell numbers are distinct: binary search maps old index to new one */
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = n;
        while (lo + 1 < hi) {
            size_t mid = (lo + hi) / 2;
            if (table->cells[mid].cell <= old_numbers[i])
                lo = mid;
            else
                hi = mid;
        }
        new_index[i] = lo;
    }
    for (size_t r = 0; r < table->row_count; r++)
        table->rows[r].cell_index = new_index[table->rows[r].cell_index];
    free(old_numbers);
    free(new_index);
    if (table->row_count > 0)
        qsort(table->rows, table->row_count, sizeof *table->rows, compare_rows);
    for (size_t r = 1; r < table->row_count; r++) {
        int status =
            raw_check_neighbours(table, &table->rows[r - 1], &table->rows[r], file_name, err);
        if (status != ANALYSIS_OK)
            return status;
    }
    return ANALYSIS_OK;
}

int analysis_parse_raw(const char *buf, size_t len, const char *file_name, raw_table *table,
                       analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_RAW, CSV_COLUMNS(raw_columns), false,
                                      CSV_COLUMNS(raw_new_columns)};
    *table = (raw_table){0};
    raw_parse_ctx ctx = {.table = table};
    int status = csv_parse(buf, len, file_name, &schema, raw_row_fn, &ctx, err);
    free(ctx.slots);
    if (status == ANALYSIS_OK)
        status = raw_finish(table, file_name, err);
    if (status != ANALYSIS_OK)
        analysis_raw_table_free(table);
    return status;
}

void analysis_raw_table_free(raw_table *table)
{
    free(table->cells);
    free(table->rows);
    *table = (raw_table){0};
}
