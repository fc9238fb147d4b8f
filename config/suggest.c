/* "Did you mean" for the configuration's messages: the closest known name
 * to a mistyped key, section or value, and the message of an unknown key. */
#include "config/config.h"
#include "config/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

const char *config_closest_name(const char *typed, const char *const *names, size_t count)
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

void config_join_names(const char *const *names, size_t count, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++)
        config_append(buf, len, "%s%s", i ? ", " : "", names[i]);
}

/* "section.key" of the key closest to typed, searching every section. */
static bool closest_key_anywhere(const char *typed, char *buf, size_t len)
{
    size_t best_distance = SIZE_MAX;
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        char full[128];
        snprintf(full, sizeof full, "%s.%s", config_keys()[i].section, config_keys()[i].name);
        size_t distance = edit_distance(typed, config_keys()[i].name);
        size_t distance_full = edit_distance(typed, full);
        if (distance_full < distance)
            distance = distance_full;
        if (distance < best_distance &&
            (close_enough(typed, config_keys()[i].name) || close_enough(typed, full))) {
            best_distance = distance;
            snprintf(buf, len, "%s", full);
        }
    }
    return best_distance != SIZE_MAX;
}

int config_unknown_key(const char *where, const char *section, const char *name, char *err,
                       size_t errlen)
{
    const char *names[CONFIG_KEY_COUNT];
    char list[MESSAGE_MAX], hint[160] = "";
    const char *prefix = where ? where : "";
    const char *sep = where ? ": " : "";

    if (section[0] == '\0') {
        char full[128];
        size_t count = config_list_sections(names);
        config_join_names(names, count, list, sizeof list);
        if (closest_key_anywhere(name, full, sizeof full))
            snprintf(hint, sizeof hint, "did you mean %s? ", full);
        return config_fail(err, errlen,
                           "%s%s%s: key without a section (allowed: section.key, or key = value "
                           "under a [section] heading; %ssections: %s)",
                           prefix, sep, name, hint, list);
    }
    if (!config_is_section(section)) {
        size_t count = config_list_sections(names);
        config_join_names(names, count, list, sizeof list);
        const char *best = config_closest_name(section, names, count);
        if (best)
            snprintf(hint, sizeof hint, "did you mean [%s]? ", best);
        return config_fail(err, errlen, "%s%s%s.%s: unknown section [%s] (%ssections: %s)", prefix,
                           sep, section, name, section, hint, list);
    }
    size_t count = config_list_keys_of(section, names);
    config_join_names(names, count, list, sizeof list);
    const char *best = config_closest_name(name, names, count);
    char elsewhere[128];
    if (best)
        snprintf(hint, sizeof hint, "did you mean %s.%s? ", section, best);
    else if (closest_key_anywhere(name, elsewhere, sizeof elsewhere))
        snprintf(hint, sizeof hint, "did you mean %s? ", elsewhere);
    return config_fail(err, errlen, "%s%s%s.%s: unknown key (%skeys of [%s]: %s)", prefix, sep,
                       section, name, hint, section, list);
}
