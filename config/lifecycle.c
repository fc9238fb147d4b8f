/* The configuration's life: defaults, setting one key's value (from a file
 * or --set), loading a whole configuration, freeing it; and the messages
 * every part of the configuration writes. The table of keys (keys.c)
 * drives everything; values.c has one row of operations per value type. */
#include "config/config.h"
#include "config/internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

_Static_assert(sizeof(nbc_deployment) == sizeof(int), "enum fields are stored through int");
_Static_assert(sizeof(nbc_progress_mode) == sizeof(int), "enum fields are stored through int");

/* ---------------------------------------------------------------- messages */

__attribute__((format(printf, 3, 4))) int config_fail(char *err, size_t errlen, const char *fmt,
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
__attribute__((format(printf, 3, 4))) void config_append(char *buf, size_t len, const char *fmt,
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

void config_format_shortest(double value, char *buf, size_t len)
{
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, len, "%.*g", precision, value);
        if (strtod(buf, NULL) == value)
            return;
    }
}

void config_format_bytes(uint64_t bytes, char *buf, size_t len)
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

const char *config_key_where(const nbc_config *cfg, size_t index)
{
    return cfg->values->where[index];
}

/* "config: [where: ]section.key: "text" problem (allowed: allowed)" */
int config_key_fail(char *err, size_t errlen, const char *where, const key_desc *key,
                    const char *text, const char *problem, const char *allowed)
{
    return config_fail(err, errlen, "%s%s%s.%s: \"%s\" %s (allowed: %s)", where ? where : "",
                       where ? ": " : "", key->section, key->name, text, problem, allowed);
}

/* ------------------------------------------------------- setting a value */

/* The longest value whose "name = value" line fits libinih's line buffer, so
 * that the dumped config.ini always parses back. */
static size_t max_value_length(const key_desc *key)
{
    return (size_t)INI_MAX_LINE - 6 - strlen(key->name);
}

/* Stores text (already trimmed) as the value of config_keys()[index]; where names its
 * origin in messages ("file:line", "--set"; NULL for the default). */
int config_apply_value(nbc_config *cfg, size_t index, const char *text, const char *where,
                       char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    char allowed[MESSAGE_MAX], why[MESSAGE_MAX] = "";
    config_describe_allowed(key, NULL, allowed, sizeof allowed);

    if (strlen(text) > max_value_length(key)) {
        snprintf(why, sizeof why, "is too long (%zu characters, at most %zu fit an INI line)",
                 strlen(text), max_value_length(key));
        return config_key_fail(err, errlen, where, key, text, why, allowed);
    }
    for (const char *c = text; *c; c++) {
        if (iscntrl((unsigned char)*c) && *c != '\t')
            return config_key_fail(err, errlen, where, key, text, "contains a control character",
                                   allowed);
        if (*c == ';' && c > text && isspace((unsigned char)c[-1]))
            return config_key_fail(err, errlen, where, key, text,
                                   "contains \" ;\", which starts a comment in an INI file",
                                   allowed);
    }
    if (config_value_type(key->type)->store(key, text, cfg, why, sizeof why) != 0)
        return config_key_fail(err, errlen, where, key, text, why, allowed);

    char *text_copy = strdup(text);
    char *where_copy = where ? strdup(where) : NULL;
    if (text_copy == NULL || (where && where_copy == NULL)) {
        free(text_copy);
        free(where_copy);
        return config_fail(err, errlen, "%s.%s: out of memory", key->section, key->name);
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
        return config_fail(err, errlen, "out of memory");
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        if (config_apply_value(cfg, i, config_keys()[i].default_text, NULL, err, errlen) != 0) {
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
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        if (config_value_type(config_keys()[i].type)->release)
            config_value_type(config_keys()[i].type)->release(&config_keys()[i], cfg);
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
        return config_fail(err, errlen, "--set: out of memory");
    int status = -1;
    char *equals = strchr(copy, '=');
    if (equals == NULL) {
        status = config_fail(err, errlen,
                             "--set: \"%s\" is not an assignment (allowed: section.key=value)",
                             assignment);
        goto done;
    }
    *equals = '\0';
    char *name = config_trim(copy), *value = config_trim(equals + 1);
    char *dot = strchr(name, '.');
    size_t index = 0;
    if (dot == NULL) {
        status = config_unknown_key("--set", "", name, err, errlen);
        goto done;
    }
    *dot = '\0';
    if (config_find_key(name, dot + 1, &index) == NULL) {
        status = config_unknown_key("--set", name, dot + 1, err, errlen);
        goto done;
    }
    status = config_apply_value(cfg, index, value, "--set", err, errlen);
done:
    free(copy);
    return status;
}

int nbc_config_load(nbc_config *cfg, const char *text, const char *origin, const char *const *sets,
                    int set_count, char *err, size_t errlen)
{
    if (nbc_config_init(cfg, err, errlen) != 0)
        return -1;
    bool bad = text && nbc_config_parse_text(cfg, text, origin, err, errlen) != 0;
    for (int i = 0; !bad && i < set_count; i++)
        bad = nbc_config_set(cfg, sets[i], err, errlen) != 0;
    return bad ? -1 : 0;
}
