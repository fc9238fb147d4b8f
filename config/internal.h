/* What the files of config/ share: the table of keys (keys.c), the value
 * types' operations (values.c), the text parsers (parse.c), the messages and
 * setting a value (lifecycle.c), the suggestions (suggest.c). Internal to the
 * configuration: config.h is its whole API. */
#ifndef CONFIG_INTERNAL_H
#define CONFIG_INTERNAL_H

#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)                 (sizeof(a) / sizeof((a)[0]))
#define MESSAGE_MAX                   1024
#define FIELD_PTR(cfg, offset, type)  ((type *)((char *)(cfg) + (offset)))
#define FIELD_CPTR(cfg, offset, type) ((const type *)((const char *)(cfg) + (offset)))

/* Relative tolerance when a grid's last value meets its max and when two list
 * values count as the same: parsing "64ms" and computing 1ms * 2^6 may differ
 * in the last bits. */
#define GRID_EPSILON 1e-9
/* A grid axis larger than this is surely a typo (factor 1.0001...); refusing it
 * early also bounds the memory a grid takes before run.max_cells is checked. */
#define GRID_MAX_VALUES 10000

typedef enum {
    TYPE_INT,
    TYPE_DOUBLE,
    TYPE_DURATION,
    TYPE_GRID,
    TYPE_BOOL,
    TYPE_NAME,    /* a string checked against a list of the limits */
    TYPE_PATH,    /* a directory, created when missing */
    TYPE_RUN_DIR, /* an existing run folder to read, or empty: none */
    TYPE_ENUM,
    TYPE_BYTES,
    TYPE_PROGRESS,
    TYPE_NAME_LIST,  /* names of a list of the limits, comma-separated; empty: none */
    TYPE_INT_LIST,   /* integers, comma-separated, each within the bounds; empty: none */
    TYPE_BYTES_LIST, /* byte sizes, comma-separated, distinct, stored ascending; empty: none */
    TYPE_COUNT
} value_type;

typedef enum { NAMES_COLLECTIVES, NAMES_MPI_PROFILES, NAMES_DATATYPES } names_source;

typedef struct {
    bool on;
    double value;
    bool strict;
} bound;

typedef struct {
    const char *section;
    const char *name;
    value_type type;
    const char *unit; /* shown in help; NULL when the value has none */
    const char *default_text;
    const char *help;
    size_t offset;     /* the field in nbc_config */
    size_t offset2;    /* grid: its count; progress: test_count */
    bool may_be_empty; /* TYPE_GRID: an empty value is the empty grid (another key gives it) */
    bound lo, hi;
    const char *const *choices; /* TYPE_ENUM, indexed by the enum's value */
    size_t choice_count;
    names_source names;     /* TYPE_NAME: which list of the limits */
    const char *names_help; /* TYPE_NAME: allowed values when no limits are given */
} key_desc;

/* ------------------------------------------------------- keys.c: the table */

/* The rows of the table: every key, its type, unit, default, bounds or
 * allowed values and help, in the order --help and config.ini show them.
 * CONFIG_KEY_COUNT is checked against the table where it is defined. */
enum { CONFIG_KEY_COUNT = 46 };
const key_desc *config_keys(void); /* CONFIG_KEY_COUNT rows */

/* The key section.name (and its row in *index when not NULL); NULL if none. */
const key_desc *config_find_key(const char *section, const char *name, size_t *index);
/* The row of a key the code names; aborts when the table lacks it (a bug). */
size_t config_key_index(const char *section, const char *name);
bool config_is_section(const char *section);
/* The sections, in table order; the names of a section's keys. */
size_t config_list_sections(const char *sections[CONFIG_KEY_COUNT]);
size_t config_list_keys_of(const char *section, const char *names[CONFIG_KEY_COUNT]);

/* ----------------------------------------------- values.c: the value types */

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
    struct json_object *(*to_json)(const key_desc *key, const nbc_config *cfg);
    void (*release)(const key_desc *key, nbc_config *cfg);
    const char *allowed; /* what a value of the type looks like */
} type_ops;

/* The operations of a value type (a row of values.c's table). */
const type_ops *config_value_type(value_type type);
/* The list of the limits a TYPE_NAME(_LIST) key takes its values from. */
const char *const *config_names_of(const key_desc *key, const nbc_config_limits *limits,
                                   size_t *count);
/* What the key accepts; limits (may be NULL) give the lists of TYPE_NAME keys. */
void config_describe_allowed(const key_desc *key, const nbc_config_limits *limits, char *buf,
                             size_t len);

/* ------------------------------------------------------ parse.c: the texts */

/* The scalar parsers write *out only on success; their out is void * so that
 * the type table can call them all through one pointer type. */
bool config_parse_int(const char *text, void *out);
bool config_parse_double(const char *text, void *out);
bool config_parse_duration(const char *text, void *out_s);
/* A number alone, with no unit after it (the refusal of a duration names it). */
bool config_is_bare_number(const char *text);
bool config_parse_bytes(const char *text, void *out);
bool config_parse_bool(const char *text, void *out);
/* s without its leading and trailing white space (s is cut in place). */
char *config_trim(char *s);
/* A duration grid: "min,max,factor" (range) or a space-separated list; the
 * values malloc'd, ascending; 0, or -1 with why. text is changed. */
int config_parse_grid_range(char *text, double **values, size_t *count, char *why, size_t whylen);
int config_parse_grid_list(char *text, double **values, size_t *count, char *why, size_t whylen);

/* --------------------------------------- lifecycle.c: messages, setting keys */

struct nbc_config_values {
    char *text[CONFIG_KEY_COUNT];  /* each key's value as accepted (trimmed) */
    char *where[CONFIG_KEY_COUNT]; /* "file:line" or "--set"; NULL for the default */
};

/* "config: " then the message into err; returns -1. */
__attribute__((format(printf, 3, 4))) int config_fail(char *err, size_t errlen, const char *fmt,
                                                      ...);
/* Appends to a message being built in buf; keeps it NUL-terminated when full. */
__attribute__((format(printf, 3, 4))) void config_append(char *buf, size_t len, const char *fmt,
                                                         ...);
/* The shortest text that reads back as value; bytes in the largest exact unit. */
void config_format_shortest(double value, char *buf, size_t len);
void config_format_bytes(uint64_t bytes, char *buf, size_t len);
/* Where key `index` was set ("file:line", "--set"); NULL for its default. */
const char *config_key_where(const nbc_config *cfg, size_t index);
/* "config: [where: ]section.key: "text" problem (allowed: allowed)"; -1. */
int config_key_fail(char *err, size_t errlen, const char *where, const key_desc *key,
                    const char *text, const char *problem, const char *allowed);
/* Stores text (already trimmed) as the value of key `index`; where names its
 * origin in messages ("file:line", "--set"; NULL for the default). */
int config_apply_value(nbc_config *cfg, size_t index, const char *text, const char *where,
                       char *err, size_t errlen);

/* ------------------------------------------------ suggest.c: did you mean */

/* The name of names closest to typed, when close enough to be a typo; else NULL. */
const char *config_closest_name(const char *typed, const char *const *names, size_t count);
/* names joined by ", " into buf. */
void config_join_names(const char *const *names, size_t count, char *buf, size_t len);
/* The message for an unknown section.name (a did-you-mean and the keys there); -1. */
int config_unknown_key(const char *where, const char *section, const char *name, char *err,
                       size_t errlen);

#endif
