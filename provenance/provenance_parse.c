/* provenance: the parsers of /proc and /sys texts (provenance.h), apart
 * from the reading so that tests give them fixtures. */
#include "provenance/provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *provenance_trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* "key<spaces>: value" lines of /proc/cpuinfo: the value of `key` on this
 * line, or NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return NULL;
    const char *p = line + n;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

static void add_first_string(json_object *o, const char *key, const char *value)
{
    if (!json_object_object_get_ex(o, key, NULL))
        json_object_object_add(o, key, json_object_new_string(value));
}

json_object *provenance_parse_cpuinfo(const char *text)
{
    json_object *o = json_object_new_object();
    int processors = 0, pairs = 0, sockets = 0;
    static long socket_ids[PROVENANCE_MAX_CPUS], core_ids[PROVENANCE_MAX_CPUS][2];
    long physical = -1;
    bool has_physical = false, has_core = false;
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[8192];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        const char *v;
        if (cpuinfo_value(buf, "processor"))
            processors++;
        else if ((v = cpuinfo_value(buf, "model name")))
            add_first_string(o, "model", v);
        else if ((v = cpuinfo_value(buf, "vendor_id")))
            add_first_string(o, "vendor", v);
        else if ((v = cpuinfo_value(buf, "microcode")))
            add_first_string(o, "microcode", v);
        else if ((v = cpuinfo_value(buf, "flags")) || (v = cpuinfo_value(buf, "Features")))
            add_first_string(o, "flags", v);
        else if ((v = cpuinfo_value(buf, "physical id"))) {
            has_physical = true;
            physical = strtol(v, NULL, 10);
            bool seen = false;
            for (int i = 0; i < sockets; i++)
                seen |= socket_ids[i] == physical;
            if (!seen && sockets < PROVENANCE_MAX_CPUS)
                socket_ids[sockets++] = physical;
        } else if ((v = cpuinfo_value(buf, "core id"))) {
            has_core = true;
            long core = strtol(v, NULL, 10);
            bool seen = false;
            for (int i = 0; i < pairs; i++)
                seen |= core_ids[i][0] == physical && core_ids[i][1] == core;
            if (!seen && pairs < PROVENANCE_MAX_CPUS) {
                core_ids[pairs][0] = physical;
                core_ids[pairs++][1] = core;
            }
        }
        line = end ? end + 1 : NULL;
    }
    static const char *const strings[] = {"model", "vendor", "microcode", "flags"};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        if (!json_object_object_get_ex(o, strings[i], NULL))
            json_object_object_add(o, strings[i], NULL);
    json_object_object_add(o, "logical_cpus", json_object_new_int(processors));
    json_object_object_add(o, "sockets", has_physical ? json_object_new_int(sockets) : NULL);
    json_object_object_add(o, "cores", has_core ? json_object_new_int(pairs) : NULL);
    json_object_object_add(o, "threads_per_core",
                           has_core && pairs ? json_object_new_int(processors / pairs) : NULL);
    return o;
}

json_object *provenance_parse_hugepages(const char *text)
{
    static const struct {
        const char *line, *key;
    } fields[] = {
        {"HugePages_Total", "HugePages_Total"}, {"HugePages_Free", "HugePages_Free"},
        {"HugePages_Rsvd", "HugePages_Rsvd"},   {"HugePages_Surp", "HugePages_Surp"},
        {"Hugepagesize", "Hugepagesize_kB"},    {"Hugetlb", "Hugetlb_kB"},
    };
    json_object *o = json_object_new_object();
    for (const char *line = text; line && *line;) {
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
            size_t n = strlen(fields[i].line);
            if (strncmp(line, fields[i].line, n) == 0 && line[n] == ':')
                json_object_object_add(o, fields[i].key,
                                       json_object_new_int64(strtoll(line + n + 1, NULL, 10)));
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return o;
}

json_object *provenance_parse_cmdline(const char *text)
{
    static const char *const parameters[] = {"isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity",
                                             "intel_pstate"};
    json_object *o = json_object_new_object();
    char *copy = strdup(text);
    if (!copy)
        return o;
    json_object_object_add(o, "text", json_object_new_string(provenance_trim(copy)));
    const char *found[sizeof parameters / sizeof *parameters] = {0};
    char *save = NULL;
    for (char *word = strtok_r(copy, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
        for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++) {
            size_t n = strlen(parameters[i]);
            if (strncmp(word, parameters[i], n) == 0 && word[n] == '=')
                found[i] = word + n + 1;
        }
    for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++)
        json_object_object_add(o, parameters[i],
                               found[i] ? json_object_new_string(found[i]) : NULL);
    free(copy);
    return o;
}

void provenance_parse_choice(const char *text, char *out, size_t out_size)
{
    const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
    if (open && close) {
        snprintf(out, out_size, "%.*s", (int)(close - open - 1), open + 1);
        return;
    }
    char *copy = strdup(text);
    snprintf(out, out_size, "%s", copy ? provenance_trim(copy) : "");
    free(copy);
}

int provenance_parse_cpulist(const char *text, int *cpus, int max)
{
    int count = 0;
    const char *p = text;
    while (*p == ' ' || *p == '\n')
        p++;
    while (*p && *p != '\n') {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p || first < 0)
            return -1;
        p = end;
        if (*p == '-') {
            last = strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first)
                return -1;
            p = end;
        }
        for (long c = first; c <= last; c++)
            if (count < max)
                cpus[count++] = (int)c;
        if (*p == ',')
            p++;
        else if (*p && *p != '\n' && *p != ' ')
            return -1;
    }
    return count;
}
