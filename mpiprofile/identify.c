/* Library profiles: identifying a library from its version text
 * (MPI_Get_library_version) or its header's macros (`mpicc -dM -E`), among
 * the profiles read by profile.c. */
#include "mpiprofile/mpiprofile.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The first word starting with a digit in [from, end of its line). */
static void version_after(const char *from, char *version, size_t len)
{
    const char *line_end = from + strcspn(from, "\n");
    while (from < line_end && !isdigit((unsigned char)*from))
        from++;
    size_t n = 0;
    while (from + n < line_end && (isalnum((unsigned char)from[n]) || from[n] == '.'))
        n++;
    while (n > 0 && from[n - 1] == '.')
        n--;
    if (n == 0 || n >= len)
        snprintf(version, len, "unknown");
    else
        snprintf(version, len, "%.*s", (int)n, from);
}

const mpiprofile *mpiprofile_identify(const mpiprofile_set *set, const char *version_text,
                                      char *version, size_t version_len)
{
    const mpiprofile *best = &set->generic;
    const char *found_at = version_text;
    size_t best_len = 0;
    for (size_t i = 0; i < set->count; i++) {
        const mpiprofile *p = &set->profiles[i];
        for (size_t j = 0; j < p->match.count; j++) {
            size_t len = strlen(p->match.items[j]);
            const char *at = strcasestr(version_text, p->match.items[j]);
            if (at && len > best_len) {
                best = p;
                best_len = len;
                found_at = at + len;
            }
        }
    }
    version_after(found_at, version, version_len);
    return best;
}

/* The value of `#define NAME VALUE` in the output of cc -dM -E, quotes and
 * spaces removed, into buf; NULL when NAME is not defined. */
static const char *macro_value(const char *text, const char *name, char *buf, size_t len)
{
    size_t name_len = strlen(name);
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        if (strncmp(line, "#define ", 8) != 0 || strncmp(line + 8, name, name_len) != 0 ||
            (line[8 + name_len] != ' ' && line[8 + name_len] != '\n' && line[8 + name_len]))
            continue;
        const char *v = line + 8 + name_len;
        size_t n = 0;
        for (; *v && *v != '\n' && n + 1 < len; v++)
            if (*v != '"' && *v != ' ' && *v != '\t')
                buf[n++] = *v;
        buf[n] = '\0';
        return buf;
    }
    return NULL;
}

const mpiprofile *mpiprofile_identify_macros(const mpiprofile_set *set, const char *macros_text,
                                             char *version, size_t version_len)
{
    const mpiprofile *best = &set->generic;
    size_t best_count = 0;
    char value[256];
    for (size_t i = 0; i < set->count; i++) {
        const mpiprofile *p = &set->profiles[i];
        size_t defined = 0;
        while (defined < p->header_macros.count &&
               macro_value(macros_text, p->header_macros.items[defined], value, sizeof value))
            defined++;
        if (defined == p->header_macros.count && defined > best_count) {
            best = p;
            best_count = defined;
        }
    }
    /* The version: header_version with each macro name replaced by its value. */
    snprintf(version, version_len, "unknown");
    if (best->header_version) {
        char out[256] = "";
        for (const char *t = best->header_version; *t;) {
            size_t word = 0;
            while (isalnum((unsigned char)t[word]) || t[word] == '_')
                word++;
            if (word > 0 && (isalpha((unsigned char)t[0]) || t[0] == '_')) {
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)word, t);
                if (!macro_value(macros_text, name, value, sizeof value))
                    return best;
                snprintf(out + strlen(out), sizeof out - strlen(out), "%s", value);
                t += word;
            } else {
                size_t n = word > 0 ? word : 1;
                snprintf(out + strlen(out), sizeof out - strlen(out), "%.*s", (int)n, t);
                t += n;
            }
        }
        version_after(out, version, version_len);
    }
    return best;
}
