/* bench_nbc configuration: the parser. The table of keys (config_keys.c)
 * drives parsing, --set, help, dumping, JSON and validation; each value type
 * has one row of operations here. */
#include "bench_nbc/config.h"
#include "bench_nbc/config_keys.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>
#include <json-c/json.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Relative tolerance when a grid's last value meets its max and when two list
 * values count as the same: parsing "64ms" and computing 1ms * 2^6 may differ
 * in the last bits. */
#define GRID_EPSILON 1e-9
/* A grid axis larger than this is surely a typo (factor 1.0001...); refusing it
 * early also bounds the memory a grid takes before run.max_cells is checked. */
#define GRID_MAX_VALUES 10000
/* The configuration is a few hundred bytes; anything this big is not one. */
#define CONFIG_FILE_MAX_BYTES (1 << 20)
#define MESSAGE_MAX           1024

_Static_assert(sizeof(nbc_deployment) == sizeof(int), "enum fields are stored through int");
_Static_assert(sizeof(nbc_progress_mode) == sizeof(int), "enum fields are stored through int");

#define KEY_COUNT CONFIG_KEY_COUNT
#define keys      nbc_config_keys

struct nbc_config_values {
    char *text[KEY_COUNT];  /* each key's value as accepted (trimmed) */
    char *where[KEY_COUNT]; /* "file:line" or "--set"; NULL for the default */
};

/* ---------------------------------------------------------------- messages */

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt,
                                                      ...)
{
    if (err == NULL || errlen == 0)
        return -1;
    int n = snprintf(err, errlen, "config: ");
    if (n > 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Appends to a message being built in buf; keeps it NUL-terminated when full. */
__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t len, const char *fmt,
                                                         ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void format_shortest(double value, char *buf, size_t len)
{
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, len, "%.*g", precision, value);
        if (strtod(buf, NULL) == value)
            return;
    }
}

static void format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const struct {
        const char *unit;
        uint64_t size;
    } units[] = {{"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (bytes >= units[i].size && bytes % units[i].size == 0) {
            snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / units[i].size),
                     units[i].unit);
            return;
        }
    }
    snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
}

static const char *key_where(const nbc_config *cfg, size_t index)
{
    return cfg->values->where[index];
}

/* "config: [where: ]section.key: "text" problem (allowed: allowed)" */
static int key_fail(char *err, size_t errlen, const char *where, const key_desc *key,
                    const char *text, const char *problem, const char *allowed)
{
    return fail(err, errlen, "%s%s%s.%s: \"%s\" %s (allowed: %s)", where ? where : "",
                where ? ": " : "", key->section, key->name, text, problem, allowed);
}

/* Edit distance counting a swap of two neighbours as one edit ("rnu" is one
 * edit from "run"), for "did you mean" suggestions on short names. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    unsigned char d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned char)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned char)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1u < best)
                best = d[i - 1][j] + 1u;
            if (d[i][j - 1] + 1u < best)
                best = d[i][j - 1] + 1u;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1u < best)
                best = d[i - 2][j - 2] + 1u;
            d[i][j] = (unsigned char)best;
        }
    }
    return d[la][lb];
}

static bool close_enough(const char *typed, const char *candidate)
{
    size_t distance = edit_distance(typed, candidate);
    size_t length = strlen(candidate);
    return distance <= (length > 6 ? length / 3 : 1);
}

static const char *closest_name(const char *typed, const char *const *names, size_t count)
{
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        size_t distance = edit_distance(typed, names[i]);
        if (distance < best_distance && close_enough(typed, names[i])) {
            best = names[i];
            best_distance = distance;
        }
    }
    return best;
}

static void join_names(const char *const *names, size_t count, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++)
        append(buf, len, "%s%s", i ? ", " : "", names[i]);
}

/* ------------------------------------------------------------ the table */

static const key_desc *find_key(const char *section, const char *name, size_t *index)
{
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].name, name) == 0) {
            if (index)
                *index = i;
            return &keys[i];
        }
    }
    return NULL;
}

static size_t key_index(const char *section, const char *name)
{
    size_t index = 0;
    const key_desc *key = find_key(section, name, &index);
    if (key == NULL)
        abort(); /* a cross-key rule names a key the table lacks: a bug here */
    return index;
}

static bool is_section(const char *section)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strcmp(keys[i].section, section) == 0)
            return true;
    return false;
}

/* The sections, in table order. */
static size_t list_sections(const char *sections[KEY_COUNT])
{
    size_t count = 0;
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (count == 0 || strcmp(sections[count - 1], keys[i].section) != 0)
            sections[count++] = keys[i].section;
    return count;
}

static size_t list_keys_of(const char *section, const char *names[KEY_COUNT])
{
    size_t count = 0;
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strcmp(keys[i].section, section) == 0)
            names[count++] = keys[i].name;
    return count;
}

/* "section.key" of the key closest to typed, searching every section. */
static bool closest_key_anywhere(const char *typed, char *buf, size_t len)
{
    size_t best_distance = SIZE_MAX;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        char full[128];
        snprintf(full, sizeof full, "%s.%s", keys[i].section, keys[i].name);
        size_t distance = edit_distance(typed, keys[i].name);
        size_t distance_full = edit_distance(typed, full);
        if (distance_full < distance)
            distance = distance_full;
        if (distance < best_distance &&
            (close_enough(typed, keys[i].name) || close_enough(typed, full))) {
            best_distance = distance;
            snprintf(buf, len, "%s", full);
        }
    }
    return best_distance != SIZE_MAX;
}

static int unknown_key(const char *where, const char *section, const char *name, char *err,
                       size_t errlen)
{
    const char *names[KEY_COUNT];
    char list[MESSAGE_MAX], hint[160] = "";
    const char *prefix = where ? where : "";
    const char *sep = where ? ": " : "";

    if (section[0] == '\0') {
        char full[128];
        size_t count = list_sections(names);
        join_names(names, count, list, sizeof list);
        if (closest_key_anywhere(name, full, sizeof full))
            snprintf(hint, sizeof hint, "did you mean %s? ", full);
        return fail(err, errlen,
                    "%s%s%s: key without a section (allowed: section.key, or key = value "
                    "under a [section] heading; %ssections: %s)",
                    prefix, sep, name, hint, list);
    }
    if (!is_section(section)) {
        size_t count = list_sections(names);
        join_names(names, count, list, sizeof list);
        const char *best = closest_name(section, names, count);
        if (best)
            snprintf(hint, sizeof hint, "did you mean [%s]? ", best);
        return fail(err, errlen, "%s%s%s.%s: unknown section [%s] (%ssections: %s)", prefix, sep,
                    section, name, section, hint, list);
    }
    size_t count = list_keys_of(section, names);
    join_names(names, count, list, sizeof list);
    const char *best = closest_name(name, names, count);
    char elsewhere[128];
    if (best)
        snprintf(hint, sizeof hint, "did you mean %s.%s? ", section, best);
    else if (closest_key_anywhere(name, elsewhere, sizeof elsewhere))
        snprintf(hint, sizeof hint, "did you mean %s? ", elsewhere);
    return fail(err, errlen, "%s%s%s.%s: unknown key (%skeys of [%s]: %s)", prefix, sep, section,
                name, hint, section, list);
}

/* ------------------------------------------------------- value parsing */

#define FIELD_PTR(cfg, offset, type)  ((type *)((char *)(cfg) + (offset)))
#define FIELD_CPTR(cfg, offset, type) ((const type *)((const char *)(cfg) + (offset)))

/* The scalar parsers write *out only on success; their out is void * so that
 * the type table can call them all through one pointer type. */
static bool parse_int(const char *text, void *out)
{
    if (text[0] == '\0' || isspace((unsigned char)text[0]))
        return false;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < INT_MIN || value > INT_MAX)
        return false;
    *(int *)out = (int)value;
    return true;
}

static bool parse_number(const char *text, double *out, const char **rest)
{
    if (text[0] == '\0' || isspace((unsigned char)text[0]))
        return false;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(value))
        return false;
    *out = value;
    *rest = end;
    return true;
}

static bool parse_double(const char *text, void *out)
{
    double value = 0;
    const char *rest = NULL;
    if (!parse_number(text, &value, &rest) || *rest != '\0')
        return false;
    *(double *)out = value;
    return true;
}

/* A number of seconds with an optional unit. Division by the exact unit size
 * gives the correctly rounded value, so "1.5ms" equals "1.5e-3". */
static bool parse_duration(const char *text, void *out_s)
{
    static const struct {
        const char *suffix;
        double per_second;
    } units[] = {{"", 1}, {"s", 1}, {"ms", 1e3}, {"us", 1e6}};
    double value = 0;
    const char *rest = NULL;
    if (!parse_number(text, &value, &rest))
        return false;
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (strcmp(rest, units[i].suffix) == 0) {
            *(double *)out_s = value / units[i].per_second;
            return true;
        }
    }
    return false;
}

static bool parse_bytes(const char *text, void *out)
{
    static const struct {
        const char *suffix;
        uint64_t size;
    } units[] = {{"", 1},
                 {"K", 1ull << 10},
                 {"M", 1ull << 20},
                 {"G", 1ull << 30},
                 {"KiB", 1ull << 10},
                 {"MiB", 1ull << 20},
                 {"GiB", 1ull << 30}};
    if (!isdigit((unsigned char)text[0]))
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0)
        return false;
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            if (value > UINT64_MAX / units[i].size)
                return false;
            *(uint64_t *)out = value * units[i].size;
            return true;
        }
    }
    return false;
}

static bool parse_bool(const char *text, void *out)
{
    static const struct {
        const char *word;
        bool value;
    } words[] = {{"true", true}, {"false", false}, {"yes", true}, {"no", false},
                 {"on", true},   {"off", false},   {"1", true},   {"0", false}};
    for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
        if (strcasecmp(text, words[i].word) == 0) {
            *(bool *)out = words[i].value;
            return true;
        }
    }
    return false;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool nearly_equal(double a, double b)
{
    return fabs(a - b) <= GRID_EPSILON * fmax(fabs(a), fabs(b));
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* min, min*factor, min*factor^2, ... up to max (within GRID_EPSILON). */
static int expand_range(double min, double max, double factor, double **values, size_t *count,
                        char *why, size_t whylen)
{
    size_t n = 0;
    while (n <= GRID_MAX_VALUES && min * pow(factor, (double)n) <= max * (1 + GRID_EPSILON))
        n++;
    if (n > GRID_MAX_VALUES) {
        snprintf(why, whylen, "has more than %d values", GRID_MAX_VALUES);
        return -1;
    }
    double *out = malloc(n * sizeof *out);
    if (out == NULL) {
        snprintf(why, whylen, "cannot be expanded: out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = min * pow(factor, (double)i);
    if (nearly_equal(out[n - 1], max))
        out[n - 1] = max; /* 1e-3 * 10^3 must read as 1, not 1.0000000000000002 */
    *values = out;
    *count = n;
    return 0;
}

static int parse_range(char *text, double **values, size_t *count, char *why, size_t whylen)
{
    char *fields[3];
    size_t n = 0;
    for (char *field = text; field != NULL; n++) {
        char *comma = strchr(field, ',');
        if (comma)
            *comma = '\0';
        if (n < ARRAY_SIZE(fields))
            fields[n] = trim(field);
        field = comma ? comma + 1 : NULL;
    }
    if (n != 3) {
        snprintf(why, whylen,
                 "is not min,max,factor (has %zu comma-separated fields, needs exactly 3)", n);
        return -1;
    }
    double min = 0, max = 0, factor = 0;
    if (!parse_duration(fields[0], &min) || !parse_duration(fields[1], &max) ||
        !parse_double(fields[2], &factor)) {
        snprintf(why, whylen, "is not a duration grid");
        return -1;
    }
    if (min <= 0 || max <= 0) {
        snprintf(why, whylen, "has a time <= 0");
        return -1;
    }
    if (min > max) {
        snprintf(why, whylen, "has min > max");
        return -1;
    }
    if (factor <= 1) {
        snprintf(why, whylen, "has factor %s <= 1", fields[2]);
        return -1;
    }
    return expand_range(min, max, factor, values, count, why, whylen);
}

static int parse_list(char *text, double **values, size_t *count, char *why, size_t whylen)
{
    size_t capacity = 0, n = 0;
    double *out = NULL;
    for (char *save = NULL, *item = strtok_r(text, " \t", &save); item != NULL;
         item = strtok_r(NULL, " \t", &save)) {
        double value = 0;
        if (!parse_duration(item, &value)) {
            if (item == text && strtok_r(NULL, " \t", &save) == NULL)
                snprintf(why, whylen, "is not a duration grid");
            else
                snprintf(why, whylen, "is not a duration grid (\"%s\" is not a duration)", item);
            free(out);
            return -1;
        }
        if (value <= 0) {
            snprintf(why, whylen, "has a time <= 0 (%s)", item);
            free(out);
            return -1;
        }
        if (n == GRID_MAX_VALUES) {
            snprintf(why, whylen, "has more than %d values", GRID_MAX_VALUES);
            free(out);
            return -1;
        }
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            double *grown = realloc(out, capacity * sizeof *out);
            if (grown == NULL) {
                snprintf(why, whylen, "cannot be stored: out of memory");
                free(out);
                return -1;
            }
            out = grown;
        }
        out[n++] = value;
    }
    if (n == 0) {
        snprintf(why, whylen, "is empty");
        return -1;
    }
    qsort(out, n, sizeof *out, compare_doubles);
    for (size_t i = 1; i < n; i++) {
        if (nearly_equal(out[i - 1], out[i])) {
            char value[32];
            format_shortest(out[i], value, sizeof value);
            snprintf(why, whylen, "lists %s s twice", value);
            free(out);
            return -1;
        }
    }
    *values = out;
    *count = n;
    return 0;
}

/* ------------------------------------------------------ the value types */

typedef struct {
    const char *name; /* shown in help */
    /* Parses text into the key's field(s) of cfg; on failure writes why the
     * text is refused ("is not an integer") and leaves cfg unchanged. */
    int (*store)(const key_desc *key, const char *text, nbc_config *cfg, char *why, size_t whylen);
    /* Scalar types: store_scalar parses straight into the field with parse. */
    bool (*parse)(const char *text, void *out);
    const char *refusal;
    /* The value as a number, for the key's bounds; NULL when bounds do not apply. */
    double (*number)(const key_desc *key, const nbc_config *cfg);
    json_object *(*to_json)(const key_desc *key, const nbc_config *cfg);
    void (*release)(const key_desc *key, nbc_config *cfg);
    const char *allowed; /* what a value of the type looks like */
} type_ops;

static const type_ops types[TYPE_COUNT];

static int store_scalar(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                        size_t whylen)
{
    if (types[key->type].parse(text, FIELD_PTR(cfg, key->offset, char)))
        return 0;
    snprintf(why, whylen, "%s", types[key->type].refusal);
    return -1;
}

static double number_int(const key_desc *key, const nbc_config *cfg)
{
    return *FIELD_CPTR(cfg, key->offset, int);
}

static json_object *json_int(const key_desc *key, const nbc_config *cfg)
{
    return json_object_new_int(*FIELD_CPTR(cfg, key->offset, int));
}

static double number_double(const key_desc *key, const nbc_config *cfg)
{
    return *FIELD_CPTR(cfg, key->offset, double);
}

static json_object *new_json_double(double value)
{
    char text[32];
    format_shortest(value, text, sizeof text);
    return json_object_new_double_s(value, text);
}

static json_object *json_double(const key_desc *key, const nbc_config *cfg)
{
    return new_json_double(*FIELD_CPTR(cfg, key->offset, double));
}

static int store_grid(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                      size_t whylen)
{
    char *copy = strdup(text);
    if (copy == NULL) {
        snprintf(why, whylen, "cannot be stored: out of memory");
        return -1;
    }
    double *values = NULL;
    size_t count = 0;
    int status = key->may_be_empty && *trim(copy) == '\0' ? 0
                 : strchr(copy, ',') ? parse_range(copy, &values, &count, why, whylen)
                                     : parse_list(copy, &values, &count, why, whylen);
    free(copy);
    if (status != 0)
        return -1;
    double **field = FIELD_PTR(cfg, key->offset, double *);
    free(*field);
    *field = values;
    *FIELD_PTR(cfg, key->offset2, size_t) = count;
    return 0;
}

static json_object *json_grid(const key_desc *key, const nbc_config *cfg)
{
    const double *values = *FIELD_CPTR(cfg, key->offset, double *);
    size_t count = *FIELD_CPTR(cfg, key->offset2, size_t);
    json_object *array = json_object_new_array_ext((int)count);
    if (array == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        json_object *value = new_json_double(values[i]);
        if (value == NULL || json_object_array_add(array, value) != 0) {
            json_object_put(value);
            json_object_put(array);
            return NULL;
        }
    }
    return array;
}

static void release_grid(const key_desc *key, nbc_config *cfg)
{
    double **field = FIELD_PTR(cfg, key->offset, double *);
    free(*field);
    *field = NULL;
    *FIELD_PTR(cfg, key->offset2, size_t) = 0;
}

static json_object *json_boolean(const key_desc *key, const nbc_config *cfg)
{
    return json_object_new_boolean(*FIELD_CPTR(cfg, key->offset, bool));
}

static int store_string(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                        size_t whylen)
{
    char *copy = strdup(text);
    if (copy == NULL) {
        snprintf(why, whylen, "cannot be stored: out of memory");
        return -1;
    }
    char **field = FIELD_PTR(cfg, key->offset, char *);
    free(*field);
    *field = copy;
    return 0;
}

static json_object *json_string(const key_desc *key, const nbc_config *cfg)
{
    return json_object_new_string(*FIELD_CPTR(cfg, key->offset, char *));
}

static void release_string(const key_desc *key, nbc_config *cfg)
{
    char **field = FIELD_PTR(cfg, key->offset, char *);
    free(*field);
    *field = NULL;
}

/* The items of a comma-separated list, trimmed, none empty; an empty text
 * is the empty list. Each item goes to `add`; 0, or -1 with why. */
static int split_list(const char *text, int (*add)(const char *item, void *state), void *state,
                      char *why, size_t whylen)
{
    char *copy = strdup(text);
    if (copy == NULL) {
        snprintf(why, whylen, "cannot be stored: out of memory");
        return -1;
    }
    int status = 0;
    char *rest = copy;
    for (char *item = copy; status == 0 && rest && *trim(copy) != '\0'; item = rest) {
        rest = strchr(item, ',');
        if (rest)
            *rest++ = '\0';
        item = trim(item);
        if (*item == '\0') {
            snprintf(why, whylen, "has an empty item");
            status = -1;
        } else if ((status = add(item, state)) != 0)
            snprintf(why, whylen, "has \"%s\" %s", item,
                     status == -2   ? "twice"
                     : status == -3 ? "which is not a byte size"
                     : status == -4 ? "which is not above 0 bytes"
                                    : "which is not an integer");
    }
    free(copy);
    return status == 0 ? 0 : -1;
}

typedef struct {
    char **names;
    int *values;
    size_t count;
} list_state;

static int add_name(const char *item, void *state)
{
    list_state *l = state;
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->names[i], item) == 0)
            return -2;
    char **grown = realloc(l->names, (l->count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    l->names = grown;
    return (l->names[l->count] = strdup(item)) ? (l->count++, 0) : -1;
}

static int add_int(const char *item, void *state)
{
    list_state *l = state;
    int value;
    if (!parse_int(item, &value))
        return -1;
    for (size_t i = 0; i < l->count; i++)
        if (l->values[i] == value)
            return -2;
    int *grown = realloc(l->values, (l->count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    l->values = grown;
    l->values[l->count++] = value;
    return 0;
}

static void release_name_list(const key_desc *key, nbc_config *cfg)
{
    char ***field = FIELD_PTR(cfg, key->offset, char **);
    size_t *count = FIELD_PTR(cfg, key->offset2, size_t);
    for (size_t i = 0; *field && i < *count; i++)
        free((*field)[i]);
    free(*field);
    *field = NULL;
    *count = 0;
}

static int store_name_list(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                           size_t whylen)
{
    list_state l = {0};
    if (split_list(text, add_name, &l, why, whylen) != 0) {
        for (size_t i = 0; i < l.count; i++)
            free(l.names[i]);
        free(l.names);
        return -1;
    }
    release_name_list(key, cfg);
    *FIELD_PTR(cfg, key->offset, char **) = l.names;
    *FIELD_PTR(cfg, key->offset2, size_t) = l.count;
    return 0;
}

static json_object *json_name_list(const key_desc *key, const nbc_config *cfg)
{
    char *const *names = *(char **const *)((const char *)cfg + key->offset);
    size_t count = *FIELD_CPTR(cfg, key->offset2, size_t);
    json_object *array = json_object_new_array();
    for (size_t i = 0; array && i < count; i++)
        json_object_array_add(array, json_object_new_string(names[i]));
    return array;
}

static void release_int_list(const key_desc *key, nbc_config *cfg)
{
    int **field = FIELD_PTR(cfg, key->offset, int *);
    free(*field);
    *field = NULL;
    *FIELD_PTR(cfg, key->offset2, size_t) = 0;
}

static int store_int_list(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                          size_t whylen)
{
    list_state l = {0};
    if (split_list(text, add_int, &l, why, whylen) != 0) {
        free(l.values);
        return -1;
    }
    release_int_list(key, cfg);
    *FIELD_PTR(cfg, key->offset, int *) = l.values;
    *FIELD_PTR(cfg, key->offset2, size_t) = l.count;
    return 0;
}

static json_object *json_int_list(const key_desc *key, const nbc_config *cfg)
{
    const int *values = *FIELD_CPTR(cfg, key->offset, int *);
    size_t count = *FIELD_CPTR(cfg, key->offset2, size_t);
    json_object *array = json_object_new_array();
    for (size_t i = 0; array && i < count; i++)
        json_object_array_add(array, json_object_new_int(values[i]));
    return array;
}

typedef struct {
    uint64_t *values;
    size_t count;
} bytes_list_state;

static int add_bytes(const char *item, void *state)
{
    bytes_list_state *l = state;
    uint64_t value;
    if (!parse_bytes(item, &value))
        return -3;
    if (value == 0)
        return -4;
    for (size_t i = 0; i < l->count; i++)
        if (l->values[i] == value)
            return -2;
    uint64_t *grown = realloc(l->values, (l->count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    l->values = grown;
    l->values[l->count++] = value;
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void release_bytes_list(const key_desc *key, nbc_config *cfg)
{
    uint64_t **field = FIELD_PTR(cfg, key->offset, uint64_t *);
    free(*field);
    *field = NULL;
    *FIELD_PTR(cfg, key->offset2, size_t) = 0;
}

/* Stored ascending, as a duration grid is: the axis reads left to right. */
static int store_bytes_list(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                            size_t whylen)
{
    bytes_list_state l = {0};
    if (split_list(text, add_bytes, &l, why, whylen) != 0) {
        free(l.values);
        return -1;
    }
    if (l.count > GRID_MAX_VALUES) {
        snprintf(why, whylen, "has more than %d values", GRID_MAX_VALUES);
        free(l.values);
        return -1;
    }
    if (l.count > 0)
        qsort(l.values, l.count, sizeof *l.values, compare_u64);
    release_bytes_list(key, cfg);
    *FIELD_PTR(cfg, key->offset, uint64_t *) = l.values;
    *FIELD_PTR(cfg, key->offset2, size_t) = l.count;
    return 0;
}

static json_object *json_bytes_list(const key_desc *key, const nbc_config *cfg)
{
    const uint64_t *values = *FIELD_CPTR(cfg, key->offset, uint64_t *);
    size_t count = *FIELD_CPTR(cfg, key->offset2, size_t);
    json_object *array = json_object_new_array();
    for (size_t i = 0; array && i < count; i++) {
        json_object *value = json_object_new_uint64(values[i]);
        if (value == NULL || json_object_array_add(array, value) != 0) {
            json_object_put(value);
            json_object_put(array);
            return NULL;
        }
    }
    return array;
}

static int store_enum(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                      size_t whylen)
{
    for (size_t i = 0; i < key->choice_count; i++) {
        if (strcmp(text, key->choices[i]) == 0) {
            *FIELD_PTR(cfg, key->offset, int) = (int)i;
            return 0;
        }
    }
    const char *best = closest_name(text, key->choices, key->choice_count);
    if (best)
        snprintf(why, whylen, "is not a %s (did you mean %s?)", key->name, best);
    else
        snprintf(why, whylen, "is not a %s", key->name);
    return -1;
}

static json_object *json_enum(const key_desc *key, const nbc_config *cfg)
{
    return json_object_new_string(key->choices[*FIELD_CPTR(cfg, key->offset, int)]);
}

static double number_bytes(const key_desc *key, const nbc_config *cfg)
{
    return (double)*FIELD_CPTR(cfg, key->offset, uint64_t);
}

static json_object *json_bytes(const key_desc *key, const nbc_config *cfg)
{
    return json_object_new_uint64(*FIELD_CPTR(cfg, key->offset, uint64_t));
}

static int store_progress(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                          size_t whylen)
{
    int mode = -1, test_count = 0;
    if (strcmp(text, nbc_progress_mode_name(NBC_PROGRESS_NONE)) == 0)
        mode = NBC_PROGRESS_NONE;
    else if (strcmp(text, nbc_progress_mode_name(NBC_PROGRESS_THREAD)) == 0) {
        snprintf(why, whylen, "is a deployment now: run.deployment=thread");
        return -1;
    } else if (strncmp(text, "test:", 5) == 0 && parse_int(text + 5, &test_count) &&
               test_count >= 1)
        mode = NBC_PROGRESS_TEST;
    if (mode < 0) {
        snprintf(why, whylen, "is not a progress mode");
        return -1;
    }
    *FIELD_PTR(cfg, key->offset, int) = mode;
    *FIELD_PTR(cfg, key->offset2, int) = test_count;
    return 0;
}

static json_object *json_progress(const key_desc *key, const nbc_config *cfg)
{
    int mode = *FIELD_CPTR(cfg, key->offset, int);
    if (mode != NBC_PROGRESS_TEST)
        return json_object_new_string(nbc_progress_mode_name(mode));
    char text[32];
    snprintf(text, sizeof text, "test:%d", *FIELD_CPTR(cfg, key->offset2, int));
    return json_object_new_string(text);
}

static const type_ops types[TYPE_COUNT] = {
    [TYPE_INT] = {.name = "integer",
                  .store = store_scalar,
                  .parse = parse_int,
                  .refusal = "is not an integer",
                  .number = number_int,
                  .to_json = json_int,
                  .allowed = "an integer"},
    [TYPE_DOUBLE] = {.name = "number",
                     .store = store_scalar,
                     .parse = parse_double,
                     .refusal = "is not a number",
                     .number = number_double,
                     .to_json = json_double,
                     .allowed = "a number"},
    [TYPE_DURATION] = {.name = "duration",
                       .store = store_scalar,
                       .parse = parse_duration,
                       .refusal = "is not a duration",
                       .number = number_double,
                       .to_json = json_double,
                       .allowed = "a duration in seconds, or with a unit s, ms, us such as 30s "
                                  "or 500ms,"},
    [TYPE_GRID] = {.name = "duration grid",
                   .store = store_grid,
                   .to_json = json_grid,
                   .release = release_grid,
                   .allowed = "min,max,factor in seconds such as 1e-3,64e-3,2 with 0 < min <= "
                              "max and factor > 1, or a space-separated list of distinct times "
                              "> 0; units s, ms, us accepted"},
    [TYPE_BOOL] = {.name = "boolean",
                   .store = store_scalar,
                   .parse = parse_bool,
                   .refusal = "is not a boolean",
                   .to_json = json_boolean,
                   .allowed = "true, false, yes, no, on, off, 1, 0"},
    [TYPE_NAME] = {.name = "name",
                   .store = store_string,
                   .to_json = json_string,
                   .release = release_string},
    [TYPE_PATH] = {.name = "path",
                   .store = store_string,
                   .to_json = json_string,
                   .release = release_string,
                   .allowed = "a writable directory, or a new one whose parent directory exists"},
    [TYPE_ENUM] = {.name = "choice", .store = store_enum, .to_json = json_enum},
    [TYPE_BYTES] = {.name = "byte size",
                    .store = store_scalar,
                    .parse = parse_bytes,
                    .refusal = "is not a byte size",
                    .number = number_bytes,
                    .to_json = json_bytes,
                    .allowed = "a whole number of bytes with an optional suffix K, M, G, KiB, "
                               "MiB, GiB (K = KiB = 1024) such as 256MiB,"},
    [TYPE_NAME_LIST] = {.name = "list of names",
                        .store = store_name_list,
                        .to_json = json_name_list,
                        .release = release_name_list},
    [TYPE_INT_LIST] = {.name = "list of integers",
                       .store = store_int_list,
                       .to_json = json_int_list,
                       .release = release_int_list,
                       .allowed = "empty, or distinct integers separated by commas such as 2,4,"},
    [TYPE_BYTES_LIST] = {.name = "list of byte sizes",
                         .store = store_bytes_list,
                         .to_json = json_bytes_list,
                         .release = release_bytes_list,
                         .allowed = "empty, or distinct byte sizes separated by commas, each a "
                                    "whole number of bytes with an optional suffix K, M, G, KiB, "
                                    "MiB, GiB, such as 1MiB,4MiB,16MiB"},
    [TYPE_PROGRESS] = {.name = "progress mode",
                       .store = store_progress,
                       .to_json = json_progress,
                       .allowed = "none, test:K with an integer K >= 1"},
};

static void describe_bound(const bound *b, bool is_lower, char *buf, size_t len, bool *first)
{
    if (!b->on)
        return;
    const char *op = is_lower ? (b->strict ? ">" : ">=") : (b->strict ? "<" : "<=");
    append(buf, len, "%s %s %g", *first ? "" : " and", op, b->value);
    *first = false;
}

/* The list of the limits a TYPE_NAME key takes its values from. */
static const char *const *names_of(const key_desc *key, const nbc_config_limits *limits,
                                   size_t *count)
{
    switch (key->names) {
    case NAMES_COLLECTIVES:
        *count = limits->collective_count;
        return limits->collectives;
    case NAMES_MPI_PROFILES:
        *count = limits->mpi_profile_count;
        return limits->mpi_profiles;
    default:
        *count = limits->datatype_count;
        return limits->datatypes;
    }
}

/* What the key accepts; limits (may be NULL) give the lists of TYPE_NAME keys. */
static void describe_allowed(const key_desc *key, const nbc_config_limits *limits, char *buf,
                             size_t len)
{
    buf[0] = '\0';
    if (key->type == TYPE_ENUM) {
        join_names(key->choices, key->choice_count, buf, len);
        return;
    }
    if (key->type == TYPE_NAME || key->type == TYPE_NAME_LIST) {
        size_t count = 0;
        const char *const *names = limits ? names_of(key, limits, &count) : NULL;
        if (count > 0)
            join_names(names, count, buf, len);
        else
            snprintf(buf, len, "%s", key->names_help);
        return;
    }
    append(buf, len, "%s", types[key->type].allowed);
    bool first = true;
    describe_bound(&key->lo, true, buf, len, &first);
    describe_bound(&key->hi, false, buf, len, &first);
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == ',') /* the type's text left room for the bounds */
        buf[n - 1] = '\0';
}

/* ------------------------------------------------------- setting a value */

/* The longest value whose "name = value" line fits libinih's line buffer, so
 * that the dumped config.ini always parses back. */
static size_t max_value_length(const key_desc *key)
{
    return (size_t)INI_MAX_LINE - 6 - strlen(key->name);
}

/* Stores text (already trimmed) as the value of keys[index]; where names its
 * origin in messages ("file:line", "--set"; NULL for the default). */
static int apply_value(nbc_config *cfg, size_t index, const char *text, const char *where,
                       char *err, size_t errlen)
{
    const key_desc *key = &keys[index];
    char allowed[MESSAGE_MAX], why[MESSAGE_MAX] = "";
    describe_allowed(key, NULL, allowed, sizeof allowed);

    if (strlen(text) > max_value_length(key)) {
        snprintf(why, sizeof why, "is too long (%zu characters, at most %zu fit an INI line)",
                 strlen(text), max_value_length(key));
        return key_fail(err, errlen, where, key, text, why, allowed);
    }
    for (const char *c = text; *c; c++) {
        if (iscntrl((unsigned char)*c) && *c != '\t')
            return key_fail(err, errlen, where, key, text, "contains a control character", allowed);
        if (*c == ';' && c > text && isspace((unsigned char)c[-1]))
            return key_fail(err, errlen, where, key, text,
                            "contains \" ;\", which starts a comment in an INI file", allowed);
    }
    if (types[key->type].store(key, text, cfg, why, sizeof why) != 0)
        return key_fail(err, errlen, where, key, text, why, allowed);

    char *text_copy = strdup(text);
    char *where_copy = where ? strdup(where) : NULL;
    if (text_copy == NULL || (where && where_copy == NULL)) {
        free(text_copy);
        free(where_copy);
        return fail(err, errlen, "%s.%s: out of memory", key->section, key->name);
    }
    free(cfg->values->text[index]);
    free(cfg->values->where[index]);
    cfg->values->text[index] = text_copy;
    cfg->values->where[index] = where_copy;
    return 0;
}

int nbc_config_init(nbc_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->values = calloc(1, sizeof *cfg->values);
    if (cfg->values == NULL)
        return fail(err, errlen, "out of memory");
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (apply_value(cfg, i, keys[i].default_text, NULL, err, errlen) != 0) {
            nbc_config_free(cfg);
            return -1;
        }
    }
    return 0;
}

void nbc_config_free(nbc_config *cfg)
{
    if (cfg == NULL || cfg->values == NULL)
        return;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (types[keys[i].type].release)
            types[keys[i].type].release(&keys[i], cfg);
        free(cfg->values->text[i]);
        free(cfg->values->where[i]);
    }
    free(cfg->values);
    cfg->values = NULL;
}

int nbc_config_set(nbc_config *cfg, const char *assignment, char *err, size_t errlen)
{
    char *copy = strdup(assignment);
    if (copy == NULL)
        return fail(err, errlen, "--set: out of memory");
    int status = -1;
    char *equals = strchr(copy, '=');
    if (equals == NULL) {
        status =
            fail(err, errlen, "--set: \"%s\" is not an assignment (allowed: section.key=value)",
                 assignment);
        goto done;
    }
    *equals = '\0';
    char *name = trim(copy), *value = trim(equals + 1);
    char *dot = strchr(name, '.');
    size_t index = 0;
    if (dot == NULL) {
        status = unknown_key("--set", "", name, err, errlen);
        goto done;
    }
    *dot = '\0';
    if (find_key(name, dot + 1, &index) == NULL) {
        status = unknown_key("--set", name, dot + 1, err, errlen);
        goto done;
    }
    status = apply_value(cfg, index, value, "--set", err, errlen);
done:
    free(copy);
    return status;
}

/* ---------------------------------------------------------- INI parsing */

typedef struct {
    nbc_config *cfg;
    const char *origin;
    const char *next;       /* text not yet given to libinih */
    const char *line_start; /* the raw line libinih is working on */
    int lineno;
    int first_overlong_line;
    int set_on_line[KEY_COUNT];
    int error_line;
    char *err;
    size_t errlen;
} parse_context;

/* libinih's fgets-like reader over the text, as ini_parse_string has, but
 * counting lines (for "file:line" in messages) and refusing lines longer than
 * libinih's buffer, which it would otherwise silently split in two. */
static char *read_line(char *line, int size, void *stream)
{
    parse_context *ctx = stream;
    if (*ctx->next == '\0' || size < 2)
        return NULL;
    const char *start = ctx->next, *newline = strchr(start, '\n');
    size_t length = newline ? (size_t)(newline - start) + 1 : strlen(start);
    ctx->next = start + length;
    ctx->line_start = start;
    ctx->lineno++;
    if (length > (size_t)size - 1) {
        if (ctx->first_overlong_line == 0)
            ctx->first_overlong_line = ctx->lineno;
        length = 0;
    }
    memcpy(line, start, length);
    line[length] = '\0';
    return line;
}

/* libinih reads an indented line as more of the previous key's value. */
static bool is_continuation(const char *raw_line, const char *name)
{
    if (!isspace((unsigned char)raw_line[0]))
        return false;
    while (isspace((unsigned char)*raw_line))
        raw_line++;
    size_t length = strlen(name);
    if (strncmp(raw_line, name, length) != 0)
        return true;
    /* only now is raw_line known to be at least length characters long */
    char after = raw_line[length];
    return !(after == '=' || after == ':' || isspace((unsigned char)after));
}

static int apply_pair(parse_context *ctx, const char *section, const char *name, const char *value)
{
    char where[MESSAGE_MAX];
    snprintf(where, sizeof where, "%s:%d", ctx->origin, ctx->lineno);
    if (is_continuation(ctx->line_start, name))
        return fail(ctx->err, ctx->errlen,
                    "%s: %s.%s: indented line \"%s\" is read as the continuation of the value "
                    "above (allowed: one key = value per line, not indented)",
                    where, section, name, value);
    size_t index = 0;
    if (find_key(section, name, &index) == NULL)
        return unknown_key(where, section, name, ctx->err, ctx->errlen);
    if (ctx->set_on_line[index] != 0)
        return fail(ctx->err, ctx->errlen,
                    "%s: %s.%s: \"%s\" sets the key a second time (first on line %d; allowed: "
                    "each key once per file, --set overrides it)",
                    where, section, name, value, ctx->set_on_line[index]);
    ctx->set_on_line[index] = ctx->lineno;
    return apply_value(ctx->cfg, index, value, where, ctx->err, ctx->errlen);
}

/* libinih's handler: nonzero to go on. Only the first error is kept. */
static int on_ini_pair(void *user, const char *section, const char *name, const char *value)
{
    parse_context *ctx = user;
    if (ctx->error_line != 0)
        return 0;
    if (apply_pair(ctx, section, name, value) != 0) {
        ctx->error_line = ctx->lineno;
        return 0;
    }
    return 1;
}

/* Copies line number lineno (from 1) of text into buf, for messages. */
static void copy_line(const char *text, int lineno, char *buf, size_t len)
{
    for (int i = 1; i < lineno && text; i++) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    buf[0] = '\0';
    if (text == NULL)
        return;
    size_t n = strcspn(text, "\r\n");
    snprintf(buf, len, "%.*s", (int)(n < 200 ? n : 200), text);
}

int nbc_config_parse_text(nbc_config *cfg, const char *text, const char *origin, char *err,
                          size_t errlen)
{
    parse_context ctx = {.cfg = cfg, .origin = origin, .next = text, .err = err, .errlen = errlen};
    int status = ini_parse_stream(read_line, &ctx, on_ini_pair, &ctx);
    if (status == -2)
        return fail(err, errlen, "%s: out of memory", origin);

    /* Report the error on the earliest line: a syntax error libinih found,
     * a line too long, or a value the handler refused. */
    int syntax_line = status > 0 && (ctx.error_line == 0 || status < ctx.error_line) ? status : 0;
    int overlong = ctx.first_overlong_line;
    if (overlong != 0 && (syntax_line == 0 || overlong < syntax_line) &&
        (ctx.error_line == 0 || overlong < ctx.error_line))
        return fail(err, errlen, "%s:%d: line is too long (allowed: at most %d characters)", origin,
                    overlong, INI_MAX_LINE - 3);
    if (syntax_line != 0) {
        char line[256];
        copy_line(text, syntax_line, line, sizeof line);
        return fail(err, errlen,
                    "%s:%d: \"%s\" cannot be parsed (allowed: [section], key = value, or a "
                    "comment starting with ; or #)",
                    origin, syntax_line, line);
    }
    return ctx.error_line != 0 ? -1 : 0;
}

int nbc_config_read_file(const char *path, char **text, char *err, size_t errlen)
{
    *text = NULL;
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return fail(err, errlen, "cannot open configuration file \"%s\": %s", path,
                    strerror(errno));
    char *buffer = malloc(CONFIG_FILE_MAX_BYTES + 1);
    if (buffer == NULL) {
        fclose(file);
        return fail(err, errlen, "cannot read \"%s\": out of memory", path);
    }
    size_t size = fread(buffer, 1, CONFIG_FILE_MAX_BYTES + 1, file);
    int read_errno = ferror(file) ? errno : 0;
    fclose(file);
    if (read_errno != 0) {
        free(buffer);
        return fail(err, errlen, "cannot read configuration file \"%s\": %s", path,
                    strerror(read_errno));
    }
    if (size > CONFIG_FILE_MAX_BYTES) {
        free(buffer);
        return fail(err, errlen,
                    "configuration file \"%s\" is larger than %d bytes (allowed: an INI text "
                    "file)",
                    path, CONFIG_FILE_MAX_BYTES);
    }
    if (memchr(buffer, '\0', size) != NULL) {
        free(buffer);
        return fail(err, errlen,
                    "configuration file \"%s\" contains a NUL byte (allowed: an INI text file)",
                    path);
    }
    buffer[size] = '\0';
    char *shrunk = realloc(buffer, size + 1);
    *text = shrunk ? shrunk : buffer;
    return 0;
}

/* ------------------------------------------------------------ validation */

static int check_bounds(const nbc_config *cfg, size_t index, char *err, size_t errlen)
{
    const key_desc *key = &keys[index];
    if (types[key->type].number == NULL)
        return 0;
    double value = types[key->type].number(key, cfg);
    const char *problem = NULL;
    if (key->lo.on && (value < key->lo.value || (key->lo.strict && value == key->lo.value)))
        problem = value == 0 ? "is zero" : value < 0 ? "is negative" : "is too small";
    else if (key->hi.on && (value > key->hi.value || (key->hi.strict && value == key->hi.value)))
        problem = "is too large";
    if (problem == NULL)
        return 0;
    char allowed[MESSAGE_MAX];
    describe_allowed(key, NULL, allowed, sizeof allowed);
    return key_fail(err, errlen, key_where(cfg, index), key, cfg->values->text[index], problem,
                    allowed);
}

static int check_name(const nbc_config *cfg, size_t index, const nbc_config_limits *limits,
                      char *err, size_t errlen)
{
    const key_desc *key = &keys[index];
    size_t count;
    const char *const *names = names_of(key, limits, &count);
    const char *value = *FIELD_CPTR(cfg, key->offset, char *);
    if (count == 0)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return 0;
    char allowed[MESSAGE_MAX], problem[160];
    describe_allowed(key, limits, allowed, sizeof allowed);
    const char *best = closest_name(value, names, count);
    snprintf(problem, sizeof problem, "is not a known %s%s%s%s",
             key->names == NAMES_COLLECTIVES ? "collective"
             : key->names == NAMES_DATATYPES ? "datatype"
                                             : "MPI library profile",
             best ? " (did you mean " : "", best ? best : "", best ? "?)" : "");
    return key_fail(err, errlen, key_where(cfg, index), key, value, problem, allowed);
}

/* Every name of a TYPE_NAME_LIST key in its list of the limits. */
static int check_name_list(const nbc_config *cfg, size_t index, const nbc_config_limits *limits,
                           char *err, size_t errlen)
{
    const key_desc *key = &keys[index];
    size_t count, listed = *FIELD_CPTR(cfg, key->offset2, size_t);
    const char *const *names = names_of(key, limits, &count);
    char *const *values = *(char **const *)((const char *)cfg + key->offset);
    for (size_t v = 0; count > 0 && v < listed; v++) {
        bool known = false;
        for (size_t i = 0; i < count && !known; i++)
            known = strcmp(values[v], names[i]) == 0;
        if (known)
            continue;
        char allowed[MESSAGE_MAX], problem[160];
        describe_allowed(key, limits, allowed, sizeof allowed);
        const char *best = closest_name(values[v], names, count);
        snprintf(problem, sizeof problem, "names '%s', which is not a known collective%s%s%s",
                 values[v], best ? " (did you mean " : "", best ? best : "", best ? "?)" : "");
        return key_fail(err, errlen, key_where(cfg, index), key, cfg->values->text[index], problem,
                        allowed);
    }
    return 0;
}

/* Every integer of a TYPE_INT_LIST key within its lower bound and, for rank
 * counts, at most the job's ranks (when known). */
static int check_int_list(const nbc_config *cfg, size_t index, const nbc_config_limits *limits,
                          char *err, size_t errlen)
{
    const key_desc *key = &keys[index];
    size_t listed = *FIELD_CPTR(cfg, key->offset2, size_t);
    const int *values = *FIELD_CPTR(cfg, key->offset, int *);
    for (size_t v = 0; v < listed; v++) {
        bool low = key->lo.on && values[v] < key->lo.value;
        bool high = limits->ranks > 0 && values[v] > limits->ranks;
        if (!low && !high)
            continue;
        char allowed[MESSAGE_MAX], problem[160];
        snprintf(problem, sizeof problem, "has %d, %s", values[v],
                 low ? "too few ranks for a collective" : "more ranks than the job has");
        snprintf(allowed, sizeof allowed, "rank counts from %g to %s%d, comma-separated",
                 key->lo.value, limits->ranks > 0 ? "the job's " : "", limits->ranks);
        if (limits->ranks <= 0)
            snprintf(allowed, sizeof allowed, "rank counts >= %g, at most the job's size",
                     key->lo.value);
        return key_fail(err, errlen, key_where(cfg, index), key, cfg->values->text[index], problem,
                        allowed);
    }
    return 0;
}

/* An existing writable directory, or one created now under an existing parent. */
static int check_directory(const nbc_config *cfg, size_t index, char *err, size_t errlen)
{
    const key_desc *key = &keys[index];
    const char *path = *FIELD_CPTR(cfg, key->offset, char *);
    const char *where = key_where(cfg, index);
    const char *allowed = types[key->type].allowed;
    char problem[MESSAGE_MAX];
    struct stat st;

    if (path[0] == '\0')
        return key_fail(err, errlen, where, key, path, "is empty", allowed);
    if (stat(path, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(problem, sizeof problem, "cannot be used: %s", strerror(errno));
            return key_fail(err, errlen, where, key, path, problem, allowed);
        }
        char *copy = strdup(path);
        if (copy == NULL)
            return fail(err, errlen, "%s.%s: out of memory", key->section, key->name);
        const char *parent = dirname(copy);
        if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(problem, sizeof problem, "does not exist, nor does its parent \"%.900s\"",
                     parent);
            free(copy);
            return key_fail(err, errlen, where, key, path, problem, allowed);
        }
        free(copy);
        /* Every rank validates; on a shared file system another may win. */
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            snprintf(problem, sizeof problem, "cannot be created: %s", strerror(errno));
            return key_fail(err, errlen, where, key, path, problem, allowed);
        }
        if (stat(path, &st) != 0) {
            snprintf(problem, sizeof problem, "cannot be used: %s", strerror(errno));
            return key_fail(err, errlen, where, key, path, problem, allowed);
        }
    }
    if (!S_ISDIR(st.st_mode))
        return key_fail(err, errlen, where, key, path, "is not a directory", allowed);
    if (access(path, W_OK | X_OK) != 0) {
        snprintf(problem, sizeof problem, "is not writable: %s", strerror(errno));
        return key_fail(err, errlen, where, key, path, problem, allowed);
    }
    return 0;
}

/* Rules that involve several keys or the machine, after each key's own checks. */
typedef int (*cross_rule)(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                          size_t errlen);

/* The communication axis is given once: as times (a size searched for each)
 * or as sizes (a time measured at each), never both, never neither. */
static int rule_comm_axis(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                          size_t errlen)
{
    (void)limits;
    bool times = cfg->grid.comm_count > 0, sizes = cfg->grid.comm_size_count > 0;
    if (times != sizes)
        return 0;
    size_t ti = key_index("grid", "comm_times"), si = key_index("grid", "comm_sizes");
    const char *t_where = key_where(cfg, ti), *s_where = key_where(cfg, si);
    return fail(err, errlen,
                "grid.comm_times and grid.comm_sizes: %s (grid.comm_times = \"%s\"%s%s%s, "
                "grid.comm_sizes = \"%s\"%s%s%s) (allowed: exactly one of the two non-empty, "
                "e.g. --set grid.comm_times= --set grid.comm_sizes=1MiB,4MiB)",
                times ? "both give the communication axis" : "neither gives the communication axis",
                cfg->values->text[ti], t_where ? " from " : "", t_where ? t_where : "",
                t_where ? "" : " by default", cfg->values->text[si], s_where ? " from " : "",
                s_where ? s_where : "", s_where ? "" : " by default");
}

/* A given size is a message the collective sends: within the sizes the
 * calibration may try, whose buffers rule_max_bytes_memory checks. */
static int rule_comm_sizes_max(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                               size_t errlen)
{
    (void)limits;
    size_t n = cfg->grid.comm_size_count;
    if (n == 0 || cfg->grid.comm_sizes_bytes[n - 1] <= cfg->calibration.max_bytes)
        return 0;
    size_t index = key_index("grid", "comm_sizes");
    char problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    snprintf(problem, sizeof problem, "has %llu bytes, above calibration.max_bytes = %s",
             (unsigned long long)cfg->grid.comm_sizes_bytes[n - 1],
             cfg->values->text[key_index("calibration", "max_bytes")]);
    snprintf(allowed, sizeof allowed,
             "sizes of at most calibration.max_bytes (%llu bytes), or a larger "
             "calibration.max_bytes",
             (unsigned long long)cfg->calibration.max_bytes);
    return key_fail(err, errlen, key_where(cfg, index), &keys[index], cfg->values->text[index],
                    problem, allowed);
}

static int rule_grid_cells(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                           size_t errlen)
{
    (void)limits;
    size_t comm = nbc_comm_axis_count(cfg), cells = comm * cfg->grid.comp_count;
    if (cfg->run.force || cells <= (size_t)cfg->run.max_cells)
        return 0;
    const char *axis = cfg->grid.comm_size_count > 0 ? "comm_sizes" : "comm_times";
    return fail(err, errlen,
                "grid.%s x grid.comp_times: \"%s\" x \"%s\" is %zu x %zu = %zu cells, "
                "more than run.max_cells = %d (allowed: at most %d cells, or run.force = true)",
                axis, cfg->values->text[key_index("grid", axis)],
                cfg->values->text[key_index("grid", "comp_times")], comm, cfg->grid.comp_count,
                cells, cfg->run.max_cells, cfg->run.max_cells);
}

/* Whether a core is left free for progress is the deployment plan's
 * decision (deploy/plan.h); here only the cores there are. */
static int rule_threads(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                        size_t errlen)
{
    int cores = limits->available_cores;
    if (cores <= 0 || cfg->run.threads <= cores)
        return 0;
    size_t threads_index = key_index("run", "threads");
    char problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    snprintf(problem, sizeof problem, "is more than the %d cores available to this rank", cores);
    snprintf(allowed, sizeof allowed, "0 = all cores, or 1 to %d", cores);
    return key_fail(err, errlen, key_where(cfg, threads_index), &keys[threads_index],
                    cfg->values->text[threads_index], problem, allowed);
}

/* The calibration's largest message S = max_bytes: the buffers of the
 * collective at S (limits->buffer_bytes: exact for its options and the
 * ranks; unknown: 4 x S), on every rank of the node, must fit in the node's
 * available memory, so no cell is sized past it. */
static int rule_max_bytes_memory(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                                 size_t errlen)
{
    uint64_t memory = limits->available_memory_bytes;
    uint64_t max_bytes = cfg->calibration.max_bytes;
    int local_ranks = limits->local_ranks > 0 ? limits->local_ranks : 1;
    char what[MESSAGE_MAX] = "4 blocks of S";
    uint64_t per_rank = limits->buffer_bytes
                            ? limits->buffer_bytes(cfg, max_bytes, limits->ranks, what, sizeof what)
                            : 4 * max_bytes;
    if (memory == 0 || per_rank <= memory)
        return 0;
    /* The largest S that fits: the buffers grow linearly with S. */
    uint64_t blocks = per_rank / max_bytes + (per_rank % max_bytes != 0);
    uint64_t most = memory / (blocks ? blocks : 1);
    size_t index = key_index("calibration", "max_bytes");
    char need[48], have[48], fits[48], problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    format_bytes(max_bytes, need, sizeof need);
    format_bytes(memory * (uint64_t)local_ranks, have, sizeof have);
    format_bytes(most, fits, sizeof fits);
    snprintf(problem, sizeof problem,
             "cannot fit in memory: %s at S = %s takes %s (%llu bytes) per rank, x %d rank(s) on "
             "this node = %llu bytes, more than the %llu bytes (%s) available",
             cfg->run.collective, need, what, (unsigned long long)per_rank, local_ranks,
             (unsigned long long)per_rank * (unsigned long long)local_ranks,
             (unsigned long long)memory * (unsigned long long)local_ranks, have);
    snprintf(allowed, sizeof allowed, "at most %s (%llu bytes) here", fits,
             (unsigned long long)most);
    return key_fail(err, errlen, key_where(cfg, index), &keys[index], cfg->values->text[index],
                    problem, allowed);
}

/* A size the library is known to fail (its profile's [size_limit]): a
 * calibration.max_bytes the user set above it is refused, since the search
 * could reach it; left at its default, the calibration searches up to the
 * limit instead (calibrate.c). */
static int rule_size_limit(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                           size_t errlen)
{
    if (!limits->size_limit)
        return 0;
    size_t index = key_index("calibration", "max_bytes");
    char why[MESSAGE_MAX];
    uint64_t most = limits->size_limit(cfg, limits->ranks, why, sizeof why);
    /* A given message size is run as it is: none may pass the limit. */
    size_t sizes = cfg->grid.comm_size_count;
    if (most > 0 && sizes > 0 && cfg->grid.comm_sizes_bytes[sizes - 1] > most) {
        size_t si = key_index("grid", "comm_sizes");
        char problem[2 * MESSAGE_MAX], allowed[MESSAGE_MAX];
        snprintf(problem, sizeof problem,
                 "has %llu bytes, above what this MPI library can run: %s at that S exceeds %s",
                 (unsigned long long)cfg->grid.comm_sizes_bytes[sizes - 1], cfg->run.collective,
                 why);
        snprintf(allowed, sizeof allowed, "sizes of at most %llu bytes for %s with this library",
                 (unsigned long long)most, cfg->run.collective);
        return key_fail(err, errlen, key_where(cfg, si), &keys[si], cfg->values->text[si], problem,
                        allowed);
    }
    if (most == 0 || cfg->calibration.max_bytes <= most || !key_where(cfg, index))
        return 0;
    char problem[2 * MESSAGE_MAX], allowed[MESSAGE_MAX], asked[48];
    format_bytes(cfg->calibration.max_bytes, asked, sizeof asked);
    snprintf(problem, sizeof problem,
             "is above what this MPI library can run: %s at S = %s (%llu bytes) exceeds %s",
             cfg->run.collective, asked, (unsigned long long)cfg->calibration.max_bytes, why);
    snprintf(allowed, sizeof allowed,
             "at most %llu bytes for %s with this library, or leave the key at its default: the "
             "calibration then stops at the limit",
             (unsigned long long)most, cfg->run.collective);
    return key_fail(err, errlen, key_where(cfg, index), &keys[index], cfg->values->text[index],
                    problem, allowed);
}

/* Adaptive repetitions: the cap cannot be below the blocks always run. */
static int rule_max_repetitions(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                                size_t errlen)
{
    (void)limits;
    if (cfg->run.half_width == 0 || cfg->run.max_repetitions >= cfg->run.repetitions)
        return 0;
    size_t index = key_index("run", "max_repetitions");
    char problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    snprintf(problem, sizeof problem, "is below run.repetitions = %d (the blocks always run)",
             cfg->run.repetitions);
    snprintf(allowed, sizeof allowed, "an integer >= %d, or run.half_width = 0 (fixed count)",
             cfg->run.repetitions);
    return key_fail(err, errlen, key_where(cfg, index), &keys[index], cfg->values->text[index],
                    problem, allowed);
}

static const cross_rule cross_rules[] = {
    rule_comm_axis,  rule_comm_sizes_max,   rule_grid_cells,     rule_threads,
    rule_size_limit, rule_max_bytes_memory, rule_max_repetitions};

int nbc_config_validate(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                        size_t errlen)
{
    static const nbc_config_limits unknown_machine = {0};
    if (limits == NULL)
        limits = &unknown_machine;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (check_bounds(cfg, i, err, errlen) != 0)
            return -1;
        if (keys[i].type == TYPE_NAME && check_name(cfg, i, limits, err, errlen) != 0)
            return -1;
        if (keys[i].type == TYPE_NAME_LIST && check_name_list(cfg, i, limits, err, errlen) != 0)
            return -1;
        if (keys[i].type == TYPE_INT_LIST && check_int_list(cfg, i, limits, err, errlen) != 0)
            return -1;
    }
    for (size_t i = 0; i < ARRAY_SIZE(cross_rules); i++)
        if (cross_rules[i](cfg, limits, err, errlen) != 0)
            return -1;
    /* Last, since it may create a directory: only for an otherwise valid run. */
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (keys[i].type == TYPE_PATH && check_directory(cfg, i, err, errlen) != 0)
            return -1;
    return 0;
}

/* ----------------------------------------------------------------- output */

/* Prints prefix then text, wrapped at HELP_WIDTH columns, every line indented. */
#define HELP_WIDTH  96
#define HELP_INDENT "      "
static void print_wrapped(FILE *out, const char *prefix, const char *text)
{
    fprintf(out, "%s%s", HELP_INDENT, prefix);
    size_t column = strlen(HELP_INDENT) + strlen(prefix);
    bool first_on_line = true;
    for (text += strspn(text, " "); *text; text += strspn(text, " ")) {
        size_t word = strcspn(text, " ");
        if (!first_on_line && column + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%s", HELP_INDENT);
            column = strlen(HELP_INDENT);
            first_on_line = true;
        }
        if (!first_on_line) {
            fputc(' ', out);
            column++;
        }
        fprintf(out, "%.*s", (int)word, text);
        column += word;
        text += word;
        first_on_line = false;
    }
    fputc('\n', out);
}

void nbc_config_print_help(FILE *out)
{
    const char *sections[KEY_COUNT];
    size_t section_count = list_sections(sections);
    fprintf(out, "Configuration keys: key = value lines under [section] headings in the file "
                 "given with -c;\nany key can be overridden with --set section.key=value.\n");
    for (size_t s = 0; s < section_count; s++) {
        fprintf(out, "\n[%s]\n", sections[s]);
        for (size_t i = 0; i < KEY_COUNT; i++) {
            const key_desc *key = &keys[i];
            if (strcmp(key->section, sections[s]) != 0)
                continue;
            char allowed[MESSAGE_MAX];
            describe_allowed(key, NULL, allowed, sizeof allowed);
            fprintf(out, "  %s.%s  (%s%s%s, default %s)\n", key->section, key->name,
                    types[key->type].name, key->unit ? ", unit " : "", key->unit ? key->unit : "",
                    key->default_text[0] ? key->default_text : "empty");
            print_wrapped(out, "", key->help);
            print_wrapped(out, "allowed: ", allowed);
        }
    }
}

int nbc_config_dump_ini(const nbc_config *cfg, FILE *out)
{
    const char *sections[KEY_COUNT];
    size_t section_count = list_sections(sections);
    if (fprintf(out, "; bench_nbc configuration: every key, as used by this run\n") < 0)
        return -1;
    for (size_t s = 0; s < section_count; s++) {
        if (fprintf(out, "\n[%s]\n", sections[s]) < 0)
            return -1;
        for (size_t i = 0; i < KEY_COUNT; i++)
            if (strcmp(keys[i].section, sections[s]) == 0 &&
                fprintf(out, "%s = %s\n", keys[i].name, cfg->values->text[i]) < 0)
                return -1;
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

json_object *nbc_config_to_json(const nbc_config *cfg)
{
    json_object *root = json_object_new_object();
    json_object *section = NULL;
    if (root == NULL)
        return NULL;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        const key_desc *key = &keys[i];
        if (i == 0 || strcmp(key->section, keys[i - 1].section) != 0) {
            section = json_object_new_object();
            if (section == NULL || json_object_object_add(root, key->section, section) != 0) {
                json_object_put(section);
                json_object_put(root);
                return NULL;
            }
        }
        json_object *value = types[key->type].to_json(key, cfg);
        if (value == NULL || json_object_object_add(section, key->name, value) != 0) {
            json_object_put(value);
            json_object_put(root);
            return NULL;
        }
    }
    return root;
}
