/* analysis: the CSV reader of docs/formats.md (one header line, comma
 * separated, no quoting). Works on a buffer of any bytes, so it can be fuzzed;
 * every error names the file, the line and the column. */
#include "analysis/inputs/inputs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Splits line (NUL-terminated, modified in place) at commas. */
static int split_fields(char *line, char **fields, size_t *count)
{
    size_t n = 0;
    char *start = line;
    for (char *p = line;; p++) {
        if (*p == ',' || *p == '\0') {
            if (n == CSV_MAX_FIELDS)
                return -1;
            bool end = *p == '\0';
            *p = '\0';
            fields[n++] = start;
            if (end)
                break;
            start = p + 1;
        }
    }
    *count = n;
    return 0;
}

/* The next line of buf from *pos: its bytes without "\n" or "\r\n". */
static bool next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *line_len)
{
    if (*pos >= len)
        return false;
    const char *start = buf + *pos;
    const char *newline = memchr(start, '\n', len - *pos);
    size_t n = newline ? (size_t)(newline - start) : len - *pos;
    *pos += n + (newline ? 1 : 0);
    if (n > 0 && start[n - 1] == '\r')
        n--;
    *line = start;
    *line_len = n;
    return true;
}

static void join_columns(const csv_schema *schema, char *out, size_t out_size)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < schema->column_count && o < out_size; i++) {
        int n = snprintf(out + o, out_size - o, "%s%s", i ? "," : "",
                         schema_column_name(schema->columns[i]));
        if (n < 0)
            break;
        o += (size_t)n;
    }
}

static bool listed(const schema_column *list, size_t count, schema_column column)
{
    for (size_t i = 0; i < count; i++)
        if (list[i] == column)
            return true;
    return false;
}

int csv_parse(const char *buf, size_t len, const char *file_name, const csv_schema *schema,
              csv_row_fn row_fn, void *ctx, analysis_error *err)
{
    char wanted[512];
    join_columns(schema, wanted, sizeof wanted);
    size_t pos = 0;
    const char *line;
    size_t line_len;
    if (!next_line(buf, len, &pos, &line, &line_len) || line_len == 0)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s:1: no header line (expected the columns %s)", file_name, wanted);
    if (memchr(line, '\0', line_len))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:1: the header contains a NUL byte",
                             file_name);

    int status = ANALYSIS_ERR_SYSTEM;
    char *header_text = malloc(line_len + 1);
    char *scratch = NULL;
    size_t scratch_size = 0;
    if (!header_text)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", file_name);
    memcpy(header_text, line, line_len);
    header_text[line_len] = '\0';
    const char *header_line = line;
    size_t header_len = line_len;

    csv_record record = {.file_name = file_name,
                         .first = schema_file_first(schema->file),
                         .column_count = schema_file_column_count(schema->file)};
    char *header_fields[CSV_MAX_FIELDS];
    size_t header_count = 0;
    if (record.column_count > CSV_MAX_FIELDS) {
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: the schema has more than %d columns",
                               file_name, CSV_MAX_FIELDS);
        goto done;
    }
    if (split_fields(header_text, header_fields, &header_count) != 0) {
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:1: more than %d columns", file_name,
                               CSV_MAX_FIELDS);
        goto done;
    }
    for (size_t i = 0; i < header_count; i++)
        record.header[i] = header_fields[i];
    /* Every column of the file the header has, found by name. */
    for (size_t c = 0; c < record.column_count; c++) {
        const char *name = schema_column_name((schema_column)(record.first + (int)c));
        record.position[c] = SIZE_MAX;
        for (size_t i = 0; i < header_count && record.position[c] == SIZE_MAX; i++)
            if (strcmp(header_fields[i], name) == 0)
                record.position[c] = i;
    }
    for (size_t c = 0; c < schema->column_count; c++) {
        schema_column column = schema->columns[c];
        if (record.position[column - record.first] != SIZE_MAX)
            continue;
        if (listed(schema->new_columns, schema->new_column_count, column)) {
            status = analysis_fail(err, ANALYSIS_ERR_INPUT,
                                   "%s:1: the header has no column '%s': the file was written "
                                   "by an older %s, whose format this version no longer reads "
                                   "(docs/formats.md): produce it again with this version",
                                   file_name, schema_column_name(column),
                                   schema_file_writer(schema->file));
            goto done;
        }
        /* a file whose writer forgot the header starts with a number */
        bool looks_like_data = strspn(header_fields[0], "0123456789.") > 0;
        status = analysis_fail(err, ANALYSIS_ERR_INPUT,
                               "%s:1: the header has no column '%s' (expected the columns "
                               "%s)%s",
                               file_name, schema_column_name(column), wanted,
                               looks_like_data ? "; the first line looks like data: the "
                                                 "file lacks its header line"
                                               : "");
        goto done;
    }

    long line_number = 1;
    while (next_line(buf, len, &pos, &line, &line_len)) {
        line_number++;
        if (line_len == 0)
            continue; /* a blank line carries no record */
        if (memchr(line, '\0', line_len)) {
            status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:%ld: the line contains a NUL byte",
                                   file_name, line_number);
            goto done;
        }
        if (schema->skip_repeated_header && line_len == header_len &&
            memcmp(line, header_line, line_len) == 0)
            continue;
        if (line_len + 1 > scratch_size) {
            char *bigger = realloc(scratch, line_len + 1);
            if (!bigger) {
                status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", file_name);
                goto done;
            }
            scratch = bigger;
            scratch_size = line_len + 1;
        }
        memcpy(scratch, line, line_len);
        scratch[line_len] = '\0';
        size_t count = 0;
        if (split_fields(scratch, record.fields, &count) != 0 || count != header_count) {
            status = analysis_fail(err, ANALYSIS_ERR_INPUT,
                                   "%s:%ld: %s%zu fields where the header has %zu (%s)", file_name,
                                   line_number, count ? "" : "more than ",
                                   count ? count : CSV_MAX_FIELDS, header_count, wanted);
            goto done;
        }
        record.line = line_number;
        record.field_count = count;
        status = row_fn(&record, ctx, err);
        if (status != ANALYSIS_OK)
            goto done;
    }
    status = ANALYSIS_OK;
done:
    free(scratch);
    free(header_text);
    return status;
}

/* The field of `column`; NULL (with the message) when the file lacks it. */
static const char *field_of(const csv_record *record, schema_column column, size_t *position,
                            analysis_error *err)
{
    size_t c = (size_t)(column - record->first);
    *position = c < record->column_count ? record->position[c] : SIZE_MAX;
    if (*position == SIZE_MAX) {
        analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:1: the header has no column '%s'",
                      record->file_name, schema_column_name(column));
        return NULL;
    }
    return record->fields[*position];
}

static int bad_value(const csv_record *record, size_t position, const char *value, const char *what,
                     analysis_error *err)
{
    char shown[200];
    analysis_quote(value, strlen(value), shown, sizeof shown);
    return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (%s): '%s' %s",
                         record->file_name, record->line, position + 1, record->header[position],
                         shown, what);
}

int csv_long(const csv_record *record, schema_column column, long long min, long long max,
             long long *out, analysis_error *err)
{
    size_t position;
    const char *value = field_of(record, column, &position, err);
    if (!value)
        return ANALYSIS_ERR_INPUT;
    if (value[0] == '\0')
        return bad_value(record, position, value, "is empty, expected an integer", err);
    if (isspace((unsigned char)value[0]))
        return bad_value(record, position, value, "is not an integer", err);
    errno = 0;
    char *end = NULL;
    long long parsed = strtoll(value, &end, 10);
    if (*end != '\0')
        return bad_value(record, position, value, "is not an integer", err);
    if (errno == ERANGE || parsed < min || parsed > max) {
        char what[120];
        snprintf(what, sizeof what, "is out of range (allowed: %lld to %lld)", min, max);
        return bad_value(record, position, value, what, err);
    }
    *out = parsed;
    return ANALYSIS_OK;
}

int csv_double(const csv_record *record, schema_column column, bool allow_nan, double *out,
               analysis_error *err)
{
    size_t position;
    const char *value = field_of(record, column, &position, err);
    if (!value)
        return ANALYSIS_ERR_INPUT;
    if (value[0] == '\0')
        return bad_value(record, position, value, "is empty, expected a number", err);
    if (isspace((unsigned char)value[0]))
        return bad_value(record, position, value, "is not a number", err);
    if (allow_nan && (strcmp(value, "nan") == 0 || strcmp(value, "-nan") == 0)) {
        *out = NAN;
        return ANALYSIS_OK;
    }
    errno = 0;
    char *end = NULL;
    double parsed = strtod(value, &end);
    if (*end != '\0')
        return bad_value(record, position, value, "is not a number", err);
    if (!isfinite(parsed))
        return bad_value(record, position, value, "is not a finite number", err);
    *out = parsed;
    return ANALYSIS_OK;
}

int csv_string(const csv_record *record, schema_column column, char *out, size_t out_size,
               analysis_error *err)
{
    size_t position;
    const char *value = field_of(record, column, &position, err);
    if (!value)
        return ANALYSIS_ERR_INPUT;
    size_t n = strlen(value);
    if (n == 0)
        return bad_value(record, position, value, "is empty", err);
    if (n >= out_size) {
        char what[80];
        snprintf(what, sizeof what, "is too long (at most %zu characters)", out_size - 1);
        return bad_value(record, position, value, what, err);
    }
    for (size_t i = 0; i < n; i++)
        if (!isgraph((unsigned char)value[i]))
            return bad_value(record, position, value,
                             "has a space or control character (not allowed in names)", err);
    memcpy(out, value, n + 1);
    return ANALYSIS_OK;
}

int csv_name(const csv_record *record, schema_column column, const char *const *names, size_t count,
             int *out, analysis_error *err)
{
    size_t position;
    const char *value = field_of(record, column, &position, err);
    if (!value)
        return ANALYSIS_ERR_INPUT;
    char what[240] = "is not allowed (allowed: ";
    size_t used = strlen(what);
    for (size_t k = 0; k < count; k++) {
        if (strcmp(value, names[k]) == 0) {
            *out = (int)k;
            return ANALYSIS_OK;
        }
        int n = snprintf(what + used, sizeof what - used, "%s%s", k ? ", " : "", names[k]);
        used += n > 0 && (size_t)n < sizeof what - used ? (size_t)n : 0;
    }
    snprintf(what + used, sizeof what - used, ")");
    return bad_value(record, position, value, what, err);
}

int csv_push(void *rows_ctx, const void *elem, analysis_error *err)
{
    csv_rows *array = rows_ctx;
    int status = analysis_grow(&array->rows, &array->capacity, array->count, array->elem_size, err);
    if (status != ANALYSIS_OK)
        return status;
    memcpy((char *)array->rows + array->count * array->elem_size, elem, array->elem_size);
    array->count++;
    return ANALYSIS_OK;
}

int csv_parse_rows(const char *buf, size_t len, const char *file_name, const csv_schema *schema,
                   csv_row_fn fn, size_t elem_size, void **rows, size_t *count, analysis_error *err)
{
    csv_rows array = {.elem_size = elem_size};
    int status = csv_parse(buf, len, file_name, schema, fn, &array, err);
    if (status != ANALYSIS_OK) {
        free(array.rows);
        array.rows = NULL;
        array.count = 0;
    }
    *rows = array.rows;
    *count = array.count;
    return status;
}

size_t csv_field_position(const csv_record *record, schema_column column)
{
    size_t c = (size_t)(column - record->first);
    return c < record->column_count ? record->position[c] : SIZE_MAX;
}
