/* provenance: what in a node's record threatens the measurements
 * (provenance.h): governors, turbo, SMT siblings both computing. */
#include "provenance/provenance.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static json_object *path_get(json_object *o, const char *a, const char *b)
{
    json_object *x = NULL, *y = NULL;
    if (!json_object_object_get_ex(o, a, &x))
        return NULL;
    return b ? (json_object_object_get_ex(x, b, &y) ? y : NULL) : x;
}

static bool computing(json_object *cpus, int cpu)
{
    for (size_t i = 0; i < json_object_array_length(cpus); i++)
        if (json_object_get_int(json_object_array_get_idx(cpus, i)) == cpu)
            return true;
    return false;
}

static void warn(json_object *warnings, const char *host, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(json_object *warnings, const char *host, const char *fmt, ...)
{
    char text[512];
    int n = snprintf(text, sizeof text, "%s: ", host);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    json_object_array_add(warnings, json_object_new_string(text));
}

json_object *provenance_warnings(json_object *node)
{
    json_object *w = json_object_new_array();
    json_object *host_o = path_get(node, "host", NULL);
    const char *host = host_o ? json_object_get_string(host_o) : "?";
    json_object *cpus = path_get(node, "computing_cpus", NULL);
    json_object *governors = path_get(node, "frequency", "governors");
    for (size_t i = 0; governors && json_object_is_type(governors, json_type_array) &&
                       i < json_object_array_length(governors);
         i++) {
        json_object *g = json_object_array_get_idx(governors, i), *name, *cpu, *min, *max;
        if (!json_object_object_get_ex(g, "cpu", &cpu) ||
            !json_object_object_get_ex(g, "governor", &name) ||
            !computing(cpus, json_object_get_int(cpu)))
            continue;
        bool fixed = json_object_object_get_ex(g, "min_khz", &min) &&
                     json_object_object_get_ex(g, "max_khz", &max) &&
                     json_object_get_int64(min) == json_object_get_int64(max);
        if (strcmp(json_object_get_string(name), "performance") != 0 && !fixed)
            warn(w, host,
                 "CPU %d computes under frequency governor '%s', not 'performance' nor a fixed "
                 "frequency: its speed may change during the run",
                 json_object_get_int(cpu), json_object_get_string(name));
    }
    json_object *turbo = path_get(node, "frequency", "turbo");
    if (turbo && strcmp(json_object_get_string(turbo), "on") == 0)
        warn(w, host, "turbo/boost is on (%s): the clock speed depends on load and temperature",
             json_object_get_string(path_get(node, "frequency", "turbo_source")));
    json_object *siblings = path_get(node, "cpu", "smt_siblings");
    for (size_t i = 0; siblings && json_object_is_type(siblings, json_type_array) &&
                       i < json_object_array_length(siblings);
         i++) {
        static int set[PROVENANCE_MAX_CPUS];
        const char *list = json_object_get_string(json_object_array_get_idx(siblings, i));
        int n = provenance_parse_cpulist(list, set, PROVENANCE_MAX_CPUS), busy = 0;
        for (int k = 0; k < n; k++)
            busy += computing(cpus, set[k]);
        if (busy > 1)
            warn(w, host,
                 "%d computing threads run on SMT siblings of one core (CPUs %s): they share "
                 "its execution units",
                 busy, list);
    }
    return w;
}
