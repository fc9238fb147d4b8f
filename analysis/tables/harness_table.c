/* analysis: the cells table a harness reads on stdout (nbc-analyze --table;
 * docs/formats.md, "cells table"): one title line, one fixed header line,
 * one row per cell, an end line; or the same rows as JSON lines. Its columns
 * are the schema's (schema/columns.def, file "cells table"), written in
 * their order; the values are cells.csv's, with times in milliseconds. */
#include "analysis/tables/tables.h"
#include "cli/cli.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

static const char *const format_names[TABLE_FORMAT_COUNT] = {
    [TABLE_NONE] = "none", [TABLE_TEXT] = "text", [TABLE_JSON] = "json"};

int analysis_table_format_parse(const char *name, table_format *format)
{
    for (int f = 0; f < TABLE_FORMAT_COUNT; f++)
        if (strcmp(name, format_names[f]) == 0) {
            *format = (table_format)f;
            return 0;
        }
    return -1;
}

/* One row's values, in the schema's column order; numbers as numbers,
 * words as strings (an undefined number is NAN: "nan" in text, null in JSON). */
typedef struct table_value {
    double number;
    const char *word; /* NULL for a number */
} table_value;

static void row_values(const cell_metrics *c, table_value v[])
{
    const double ms = 1e3;
    const table_value values[] = {
        {(double)c->cell, NULL},
        {c->comm_target_s * ms, NULL},
        {c->comp_target_s * ms, NULL},
        {(double)c->bytes, NULL},
        {(double)c->matrix_n, NULL},
        {c->t_comm_ref * ms, NULL},
        {c->t_comp_ref * ms, NULL},
        {c->r_overhead, NULL},
        {c->r_overhead_ci.lo, NULL},
        {c->r_overhead_ci.hi, NULL},
        {c->r_comm, NULL},
        {c->r_comp_slowdown, NULL},
        {NAN, verdict_class_name(c->class)},
        {NAN, verdict_class_name(c->overlap)},
        {c->overlap_osu_pct, NULL},
        {c->overlap_imb_pct, NULL},
    };
    _Static_assert(sizeof values / sizeof *values == COL_TABLE_IMB_OVERLAP - COL_TABLE_CELL + 1,
                   "one value per column of the cells table (schema/columns.def)");
    memcpy(v, values, sizeof values);
}

enum { TABLE_COLUMNS = COL_TABLE_IMB_OVERLAP - COL_TABLE_CELL + 1 };

/* Width of each text column: its name's, at least that of its longest value
 * (10 for a number in %.4g, 10 for a class: one_launch), so that values
 * line up under the header, one space apart (a value never holds a space). */
static int column_width(int k)
{
    const schema_column_info *col = schema_column_get((schema_column)(COL_TABLE_CELL + k));
    int name = (int)strlen(col->name), value = 10;
    return name > value ? name : value;
}

static int print_text(FILE *out, const char *run_dir, const run_meta *meta, const cell_table *cells)
{
    /* The axis the grid gives: searched times, or message sizes (bytes) with
     * comm_target_ms the time measured at each. */
    bool sizes = false;
    for (size_t i = 0; i < cells->count; i++)
        sizes |= cells->cells[i].comm_size_given;
    int rc =
        fprintf(out, "# bench_nbc %s cells: %s (%s, %s, %s %s, %ld ranks)%s\n#", cli_version(),
                run_dir, meta->collective, meta->deployment, meta->library_profile,
                meta->library_version, meta->ranks, sizes ? " communication axis: bytes" : "") < 0;
    /* "#" then " name" per column; a row: " " then " value" per column */
    for (int k = 0; k < TABLE_COLUMNS; k++)
        rc |= fprintf(out, " %*s", column_width(k),
                      schema_column_name((schema_column)(COL_TABLE_CELL + k))) < 0;
    rc |= fputc('\n', out) == EOF;
    for (size_t i = 0; i < cells->count; i++) {
        table_value v[TABLE_COLUMNS];
        row_values(&cells->cells[i], v);
        rc |= fputc(' ', out) == EOF;
        for (int k = 0; k < TABLE_COLUMNS; k++) {
            int width = column_width(k);
            if (v[k].word)
                rc |= fprintf(out, " %*s", width, v[k].word) < 0;
            else if (schema_column_get((schema_column)(COL_TABLE_CELL + k))->type == SCHEMA_INT)
                rc |= fprintf(out, " %*.0f", width, v[k].number) < 0;
            else
                rc |= fprintf(out, " %*.4g", width, v[k].number) < 0;
        }
        rc |= fputc('\n', out) == EOF;
    }
    rc |= fprintf(out, "# end of cells: %zu\n", cells->count) < 0;
    return rc;
}

static int print_json(FILE *out, const char *run_dir, const cell_table *cells)
{
    int rc = 0;
    for (size_t i = 0; i < cells->count && rc == 0; i++) {
        table_value v[TABLE_COLUMNS];
        row_values(&cells->cells[i], v);
        json_object *row = json_object_new_object();
        if (!row)
            return -1;
        json_object_object_add(row, "run", json_object_new_string(run_dir));
        for (int k = 0; k < TABLE_COLUMNS; k++) {
            const schema_column_info *col = schema_column_get((schema_column)(COL_TABLE_CELL + k));
            json_object *value = v[k].word            ? json_object_new_string(v[k].word)
                                 : isnan(v[k].number) ? NULL
                                 : col->type == SCHEMA_INT
                                     ? json_object_new_int64((int64_t)v[k].number)
                                     : json_object_new_double(v[k].number);
            json_object_object_add(row, col->name, value);
        }
        rc = fprintf(out, "%s\n",
                     json_object_to_json_string_ext(row, JSON_C_TO_STRING_PLAIN |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
        json_object_put(row);
    }
    return rc;
}

int analysis_print_table(FILE *out, table_format format, const char *run_dir, const run_meta *meta,
                         const cell_table *cells, analysis_error *err)
{
    int rc = format == TABLE_TEXT   ? print_text(out, run_dir, meta, cells)
             : format == TABLE_JSON ? print_json(out, run_dir, cells)
                                    : 0;
    if (rc == 0 && fflush(out) == 0)
        return ANALYSIS_OK;
    return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: the cells table could not be written",
                         run_dir);
}
