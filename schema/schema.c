/* schema: the table of schema/columns.def and its lookups. */
#include "schema/schema.h"

#include <stdint.h>
#include <string.h>

static const struct {
    const char *name, *writer, *rows;
} files[SCHEMA_FILE_COUNT] = {
#define SCHEMA_FILE(id, name, writer, rows) [SCHEMA_##id] = {name, writer, rows},
#define SCHEMA_COLUMN(file, id, name, type, unit, meaning)
#include "schema/columns.def"
#undef SCHEMA_FILE
#undef SCHEMA_COLUMN
};

static const schema_column_info columns[SCHEMA_COLUMN_COUNT] = {
#define SCHEMA_FILE(id, name, writer, rows)
#define SCHEMA_COLUMN(file, id, name, type, unit, meaning)                                         \
    [COL_##file##_##id] = {SCHEMA_##file, name, SCHEMA_##type, unit, meaning},
#include "schema/columns.def"
#undef SCHEMA_FILE
#undef SCHEMA_COLUMN
};

static const char *const column_ids[SCHEMA_COLUMN_COUNT] = {
#define SCHEMA_FILE(id, name, writer, rows)
#define SCHEMA_COLUMN(file, id, name, type, unit, meaning) [COL_##file##_##id] = #file "_" #id,
#include "schema/columns.def"
#undef SCHEMA_FILE
#undef SCHEMA_COLUMN
};

static const char *const type_names[SCHEMA_TYPE_COUNT] = {
    [SCHEMA_INT] = "int",   [SCHEMA_NUMBER] = "number", [SCHEMA_FLAG] = "flag",
    [SCHEMA_WORD] = "word", [SCHEMA_TEXT] = "text",
};

static bool valid_file(schema_file file)
{
    return (unsigned)file < SCHEMA_FILE_COUNT;
}

const char *schema_file_name(schema_file file)
{
    return valid_file(file) ? files[file].name : "?";
}

const char *schema_file_writer(schema_file file)
{
    return valid_file(file) ? files[file].writer : "?";
}

const char *schema_file_rows(schema_file file)
{
    return valid_file(file) ? files[file].rows : "?";
}

int schema_file_find(const char *name)
{
    for (int f = 0; f < SCHEMA_FILE_COUNT; f++)
        if (strcmp(files[f].name, name) == 0)
            return f;
    return -1;
}

/* Columns of a file are consecutive (the .def lists them under it). */
schema_column schema_file_first(schema_file file)
{
    for (int c = 0; c < SCHEMA_COLUMN_COUNT; c++)
        if (columns[c].file == file)
            return (schema_column)c;
    return SCHEMA_NO_COLUMN;
}

size_t schema_file_column_count(schema_file file)
{
    size_t n = 0;
    for (int c = 0; c < SCHEMA_COLUMN_COUNT; c++)
        n += columns[c].file == file;
    return n;
}

const schema_column_info *schema_column_get(schema_column column)
{
    return (unsigned)column < SCHEMA_COLUMN_COUNT ? &columns[column] : NULL;
}

const char *schema_column_name(schema_column column)
{
    return (unsigned)column < SCHEMA_COLUMN_COUNT ? columns[column].name : "?";
}

const char *schema_column_id(schema_column column)
{
    return (unsigned)column < SCHEMA_COLUMN_COUNT ? column_ids[column] : "?";
}

size_t schema_column_index(schema_column column)
{
    if ((unsigned)column >= SCHEMA_COLUMN_COUNT)
        return SIZE_MAX;
    return (size_t)(column - schema_file_first(columns[column].file));
}

schema_column schema_find(schema_file file, const char *name)
{
    for (int c = 0; c < SCHEMA_COLUMN_COUNT; c++)
        if (columns[c].file == file && strcmp(columns[c].name, name) == 0)
            return (schema_column)c;
    return SCHEMA_NO_COLUMN;
}

const char *schema_type_name(schema_type type)
{
    return (unsigned)type < SCHEMA_TYPE_COUNT ? type_names[type] : "?";
}

int schema_header(schema_file file, char *out, size_t out_size)
{
    size_t used = 0;
    if (out_size == 0)
        return -1;
    out[0] = '\0';
    for (int c = 0; c < SCHEMA_COLUMN_COUNT; c++) {
        if (columns[c].file != file)
            continue;
        size_t n = strlen(columns[c].name) + (used > 0);
        if (used + n + 1 > out_size)
            return -1;
        if (used > 0)
            out[used++] = ',';
        memcpy(out + used, columns[c].name, strlen(columns[c].name) + 1);
        used = strlen(out);
    }
    return (int)used;
}

int schema_write_header(FILE *f, schema_file file)
{
    for (int c = 0, n = 0; c < SCHEMA_COLUMN_COUNT; c++)
        if (columns[c].file == file && fprintf(f, "%s%s", n++ ? "," : "", columns[c].name) < 0)
            return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int schema_locate(schema_file file, const char *path, const char *const *fields, size_t field_count,
                  const schema_column *wanted, size_t wanted_count, int *position, char *err,
                  size_t errlen)
{
    for (size_t w = 0; w < wanted_count; w++) {
        position[w] = -1;
        for (size_t i = 0; i < field_count && position[w] < 0; i++)
            if (strcmp(fields[i], schema_column_name(wanted[w])) == 0)
                position[w] = (int)i;
        if (position[w] < 0) {
            snprintf(err, errlen, "%s: the header has no column '%s' (a %s of %s has it)", path,
                     schema_column_name(wanted[w]), schema_file_name(file),
                     schema_file_writer(file));
            return -1;
        }
    }
    return 0;
}

bool schema_header_matches(schema_file file, const char *path, const char *line, char *err,
                           size_t errlen)
{
    const char *p = line;
    for (int c = 0, n = 0; c < SCHEMA_COLUMN_COUNT; c++) {
        if (columns[c].file != file)
            continue;
        const char *name = columns[c].name;
        size_t len = strlen(name), got = strcspn(p, ",");
        if (got != len || strncmp(p, name, len) != 0) {
            snprintf(err, errlen,
                     "%s: column %d of the header is '%.*s' where this version has '%s'", path,
                     n + 1, (int)(got > 64 ? 64 : got), p, name);
            return false;
        }
        p += got;
        n++;
        if (c + 1 < SCHEMA_COLUMN_COUNT && columns[c + 1].file == file) {
            if (*p != ',') {
                snprintf(err, errlen, "%s: the header ends after column %d, before '%s'", path, n,
                         columns[c + 1].name);
                return false;
            }
            p++;
        }
    }
    if (*p != '\0') {
        snprintf(err, errlen, "%s: the header has more columns than this version's: '%.64s'", path,
                 p);
        return false;
    }
    return true;
}
