/* The configuration's table of keys, shared by config_keys.c (the table)
 * and config.c (the parser); internal to the configuration (config.h is
 * its API). */
#ifndef BENCH_NBC_CONFIG_KEYS_H
#define BENCH_NBC_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    TYPE_INT,
    TYPE_DOUBLE,
    TYPE_DURATION,
    TYPE_GRID,
    TYPE_BOOL,
    TYPE_NAME, /* a string checked against a list of the limits */
    TYPE_PATH, /* a directory, created when missing */
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

/* The rows of the table: every key, its type, unit, default, bounds or
 * allowed values and help, in the order --help and config.ini show them.
 * CONFIG_KEY_COUNT is checked against the table where it is defined. */
enum { CONFIG_KEY_COUNT = 40 };
extern const key_desc nbc_config_keys[CONFIG_KEY_COUNT];

#endif
