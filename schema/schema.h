/* schema: the columns of the run folder's CSV files (docs/formats.md), one
 * table (schema/columns.def) that writers and readers share. Writers take
 * their header from it; readers find columns by the identifiers below, by
 * name in the file's header, never by position. No MPI. */
#ifndef SCHEMA_SCHEMA_H
#define SCHEMA_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Files: SCHEMA_RAW (raw.csv), SCHEMA_CELLS (cells.csv), ... */
typedef enum schema_file {
#define SCHEMA_FILE(id, name, writer, rows) SCHEMA_##id,
#define SCHEMA_COLUMN(file, id, name, type, unit, meaning)
#include "schema/columns.def"
#undef SCHEMA_FILE
#undef SCHEMA_COLUMN
    SCHEMA_FILE_COUNT
} schema_file;

/* Columns of every file in one numbering: COL_<FILE>_<ID>, e.g.
 * COL_RAW_CELL, COL_CELLS_R_OVERHEAD; a file's columns are consecutive, in
 * header order. */
typedef enum schema_column {
#define SCHEMA_FILE(id, name, writer, rows)
#define SCHEMA_COLUMN(file, id, name, type, unit, meaning) COL_##file##_##id,
#include "schema/columns.def"
#undef SCHEMA_FILE
#undef SCHEMA_COLUMN
    SCHEMA_COLUMN_COUNT,
    SCHEMA_NO_COLUMN = -1
} schema_column;

typedef enum schema_type {
    SCHEMA_INT,    /* integer */
    SCHEMA_NUMBER, /* decimal, `nan` where undefined */
    SCHEMA_FLAG,   /* 0 or 1 */
    SCHEMA_WORD,   /* one of a fixed list (the meaning names it) */
    SCHEMA_TEXT,   /* a name */
    SCHEMA_TYPE_COUNT
} schema_type;

typedef struct schema_column_info {
    schema_file file;
    const char *name;
    schema_type type;
    const char *unit; /* "" for none */
    const char *meaning;
} schema_column_info;

/* ---- Files ---- */
const char *schema_file_name(schema_file file);   /* "raw.csv" */
const char *schema_file_writer(schema_file file); /* "bench_nbc" */
const char *schema_file_rows(schema_file file);   /* what one row is */
/* The file named `name` ("raw.csv"), or -1. */
int schema_file_find(const char *name);
/* Its columns: first .. first + count - 1, in header order. */
schema_column schema_file_first(schema_file file);
size_t schema_file_column_count(schema_file file);

/* ---- Columns ---- */
const schema_column_info *schema_column_get(schema_column column);
const char *schema_column_name(schema_column column);
/* 0-based place of the column in its file's header as written. */
size_t schema_column_index(schema_column column);
/* The column of `file` named `name`, or SCHEMA_NO_COLUMN. */
schema_column schema_find(schema_file file, const char *name);
const char *schema_type_name(schema_type type); /* "int", "number", ... */
/* "COL_RAW_CELL" without the prefix: "RAW_CELL" (for exports). */
const char *schema_column_id(schema_column column);

/* ---- Writing ---- */
/* The header line without "\n" into out; its length, or -1 when it does
 * not fit. */
int schema_header(schema_file file, char *out, size_t out_size);
/* The header line and "\n"; 0, or -1 on a write error (errno). */
int schema_write_header(FILE *f, schema_file file);

/* ---- Reading ---- */
/* Finds `wanted` columns among a header's fields: position[i] is the field
 * of wanted[i]. A column the header lacks: -1 and one message naming the
 * file (as `path`) and the column into err. */
int schema_locate(schema_file file, const char *path, const char *const *fields, size_t field_count,
                  const schema_column *wanted, size_t wanted_count, int *position, char *err,
                  size_t errlen);
/* Whether a header line (no "\n") is exactly this version's; if not, one
 * message naming the file (as `path`) and the first column that differs. */
bool schema_header_matches(schema_file file, const char *path, const char *line, char *err,
                           size_t errlen);

#endif
