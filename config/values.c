/* The configuration's value types: one row of operations per type (store
 * a text, its number for the bounds, its JSON, its release), what each
 * accepts, and the "allowed:" text of a key. */
#include "config/config.h"
#include "config/internal.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static int store_scalar(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                        size_t whylen)
{
    if (config_value_type(key->type)->parse(text, FIELD_PTR(cfg, key->offset, char)))
        return 0;
    snprintf(why, whylen, "%s", config_value_type(key->type)->refusal);
    return -1;
}

static int store_duration(const key_desc *key, const char *text, nbc_config *cfg, char *why,
                          size_t whylen)
{
    if (config_parse_duration(text, FIELD_PTR(cfg, key->offset, double)))
        return 0;
    snprintf(why, whylen, "%s", config_is_bare_number(text) ? "has no unit" : "is not a duration");
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
    config_format_shortest(value, text, sizeof text);
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
    int status = key->may_be_empty && *config_trim(copy) == '\0' ? 0
                 : strchr(copy, ',') ? config_parse_grid_range(copy, &values, &count, why, whylen)
                                     : config_parse_grid_list(copy, &values, &count, why, whylen);
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
    for (char *item = copy; status == 0 && rest && *config_trim(copy) != '\0'; item = rest) {
        rest = strchr(item, ',');
        if (rest)
            *rest++ = '\0';
        item = config_trim(item);
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
    if (!config_parse_int(item, &value))
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
    if (!config_parse_bytes(item, &value))
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
    const char *best = config_closest_name(text, key->choices, key->choice_count);
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
    } else if (strncmp(text, "test:", 5) == 0 && config_parse_int(text + 5, &test_count) &&
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
    char text[32];
    nbc_progress_mode_text(*FIELD_CPTR(cfg, key->offset, int), *FIELD_CPTR(cfg, key->offset2, int),
                           text, sizeof text);
    return json_object_new_string(text);
}

static const type_ops types[TYPE_COUNT] = {
    [TYPE_INT] = {.name = "integer",
                  .store = store_scalar,
                  .parse = config_parse_int,
                  .refusal = "is not an integer",
                  .number = number_int,
                  .to_json = json_int,
                  .allowed = "an integer"},
    [TYPE_DOUBLE] = {.name = "number",
                     .store = store_scalar,
                     .parse = config_parse_double,
                     .refusal = "is not a number",
                     .number = number_double,
                     .to_json = json_double,
                     .allowed = "a number"},
    [TYPE_DURATION] = {.name = "duration",
                       .store = store_duration,
                       .number = number_double,
                       .to_json = json_double,
                       .allowed = "a time with its unit s, ms or us such as 30s or 500ms (0 needs "
                                  "none),"},
    [TYPE_GRID] = {.name = "duration grid",
                   .store = store_grid,
                   .to_json = json_grid,
                   .release = release_grid,
                   .allowed = "min,max,factor, times with their unit s, ms or us, such as "
                              "1ms,64ms,2 with 0 < min <= max and factor > 1, or a "
                              "space-separated list of distinct times > 0 such as 1ms 4ms 16ms"},
    [TYPE_BOOL] = {.name = "boolean",
                   .store = store_scalar,
                   .parse = config_parse_bool,
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
    [TYPE_RUN_DIR] = {.name = "run folder",
                      .store = store_string,
                      .to_json = json_string,
                      .release = release_string,
                      .allowed = "empty, or a readable folder of a run of bench_nbc"},
    [TYPE_ENUM] = {.name = "choice", .store = store_enum, .to_json = json_enum},
    [TYPE_BYTES] = {.name = "byte size",
                    .store = store_scalar,
                    .parse = config_parse_bytes,
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

const type_ops *config_value_type(value_type type)
{
    return &types[type];
}

static void describe_bound(const bound *b, bool is_lower, char *buf, size_t len, bool *first)
{
    if (!b->on)
        return;
    const char *op = is_lower ? (b->strict ? ">" : ">=") : (b->strict ? "<" : "<=");
    config_append(buf, len, "%s %s %g", *first ? "" : " and", op, b->value);
    *first = false;
}

/* The list of the limits a TYPE_NAME key takes its values from. */
const char *const *config_names_of(const key_desc *key, const nbc_config_limits *limits,
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
void config_describe_allowed(const key_desc *key, const nbc_config_limits *limits, char *buf,
                             size_t len)
{
    buf[0] = '\0';
    if (key->type == TYPE_ENUM) {
        config_join_names(key->choices, key->choice_count, buf, len);
        return;
    }
    if (key->type == TYPE_NAME || key->type == TYPE_NAME_LIST) {
        size_t count = 0;
        const char *const *names = limits ? config_names_of(key, limits, &count) : NULL;
        if (count > 0)
            config_join_names(names, count, buf, len);
        else
            snprintf(buf, len, "%s", key->names_help);
        return;
    }
    config_append(buf, len, "%s", config_value_type(key->type)->allowed);
    bool first = true;
    describe_bound(&key->lo, true, buf, len, &first);
    describe_bound(&key->hi, false, buf, len, &first);
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == ',') /* the type's text left room for the bounds */
        buf[n - 1] = '\0';
}
