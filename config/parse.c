/* The configuration's text parsers: integers, numbers, durations, byte
 * sizes, booleans and duration grids. Each writes its result only on
 * success. */
#include "config/config.h"
#include "config/internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The scalar parsers write *out only on success; their out is void * so that
 * the type table can call them all through one pointer type. */
bool config_parse_int(const char *text, void *out)
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

bool config_is_bare_number(const char *text)
{
    double value = 0;
    const char *rest = NULL;
    return parse_number(text, &value, &rest) && *rest == '\0';
}

bool config_parse_double(const char *text, void *out)
{
    double value = 0;
    const char *rest = NULL;
    if (!parse_number(text, &value, &rest) || *rest != '\0')
        return false;
    *(double *)out = value;
    return true;
}

/* A number with its unit, in seconds. A bare number is refused: "16" read as
 * seconds made a grid meant in milliseconds a study of hours. Zero alone is
 * the same in every unit ("no budget", "no pause"), so it needs none.
 * Division by the exact unit size gives the correctly rounded value, so
 * "1.5ms" equals "1.5e-3s". */
bool config_parse_duration(const char *text, void *out_s)
{
    static const struct {
        const char *suffix;
        double per_second;
    } units[] = {{"s", 1}, {"ms", 1e3}, {"us", 1e6}};
    double value = 0;
    const char *rest = NULL;
    if (!parse_number(text, &value, &rest))
        return false;
    if (rest[0] == '\0' && value == 0) {
        *(double *)out_s = 0;
        return true;
    }
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (strcmp(rest, units[i].suffix) == 0) {
            *(double *)out_s = value / units[i].per_second;
            return true;
        }
    }
    return false;
}

bool config_parse_bytes(const char *text, void *out)
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

bool config_parse_bool(const char *text, void *out)
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

char *config_trim(char *s)
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

int config_parse_grid_range(char *text, double **values, size_t *count, char *why, size_t whylen)
{
    char *fields[3];
    size_t n = 0;
    for (char *field = text; field != NULL; n++) {
        char *comma = strchr(field, ',');
        if (comma)
            *comma = '\0';
        if (n < ARRAY_SIZE(fields))
            fields[n] = config_trim(field);
        field = comma ? comma + 1 : NULL;
    }
    if (n != 3) {
        snprintf(why, whylen,
                 "is not min,max,factor (has %zu comma-separated fields, needs exactly 3)", n);
        return -1;
    }
    double min = 0, max = 0, factor = 0;
    for (size_t i = 0; i < 2; i++) {
        if (config_is_bare_number(fields[i]) && !config_parse_duration(fields[i], &(double){0})) {
            snprintf(why, whylen, "is not a duration grid (\"%s\" has no unit)", fields[i]);
            return -1;
        }
    }
    if (!config_parse_duration(fields[0], &min) || !config_parse_duration(fields[1], &max) ||
        !config_parse_double(fields[2], &factor)) {
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

int config_parse_grid_list(char *text, double **values, size_t *count, char *why, size_t whylen)
{
    size_t capacity = 0, n = 0;
    double *out = NULL;
    for (char *save = NULL, *item = strtok_r(text, " \t", &save); item != NULL;
         item = strtok_r(NULL, " \t", &save)) {
        double value = 0;
        if (!config_parse_duration(item, &value)) {
            if (config_is_bare_number(item))
                snprintf(why, whylen, "is not a duration grid (\"%s\" has no unit)", item);
            else if (item == text && strtok_r(NULL, " \t", &save) == NULL)
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
            config_format_shortest(out[i], value, sizeof value);
            snprintf(why, whylen, "lists %s s twice", value);
            free(out);
            return -1;
        }
    }
    *values = out;
    *count = n;
    return 0;
}
