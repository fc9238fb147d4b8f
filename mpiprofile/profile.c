/* Library profiles: looking profiles and their entries up, the version
 * conditions that scope an entry, where the profiles are; reading
 * configs/mpi/NAME.ini is profile_read.c's, identify.c tells which profile
 * a library is. */
#include "mpiprofile/mpiprofile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MPIPROFILE_SOURCE_DIR
#define MPIPROFILE_SOURCE_DIR "configs/mpi"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MESSAGE_MAX   512

/* ---- versions -------------------------------------------------------------- */

/* The next number of a dotted version, or -1 at its end (a letter or any
 * other character ends it: "3.4a2" is 3.4). */
static long next_component(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    long value = strtol(*p, (char **)p, 10);
    if (**p == '.' && isdigit((unsigned char)(*p)[1]))
        (*p)++;
    else
        *p += strlen(*p); /* the version ends here */
    return value;
}

int mpiprofile_version_compare(const char *a, const char *b)
{
    for (;;) {
        long x = next_component(&a), y = next_component(&b);
        if (x < 0 && y < 0)
            return 0;
        if (x < 0)
            x = 0;
        if (y < 0)
            y = 0;
        if (x != y)
            return x < y ? -1 : 1;
    }
}

/* Whether version starts with the components of prefix (=4.0 holds for 4.0.2). */
static bool version_has_prefix(const char *version, const char *prefix)
{
    for (;;) {
        long want = next_component(&prefix);
        if (want < 0)
            return true;
        if (next_component(&version) != want)
            return false;
    }
}

int mpiprofile_versions_match(const char *conditions, const char *version, char *err, size_t errlen)
{
    static const char *const operators[] = {"<=", ">=", "<", ">", "="};
    char *copy = strdup(conditions ? conditions : "");
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int result = 1;
    char *save = NULL;
    for (char *word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
        size_t op = 0;
        while (op < ARRAY_SIZE(operators) &&
               strncmp(word, operators[op], strlen(operators[op])) != 0)
            op++;
        const char *bound = op < ARRAY_SIZE(operators) ? word + strlen(operators[op]) : "";
        if (!isdigit((unsigned char)*bound)) {
            snprintf(err, errlen,
                     "\"%s\" is not a version condition (allowed: <V, <=V, >V, >=V, =V, e.g. <4.1)",
                     word);
            free(copy);
            return -1;
        }
        int cmp = mpiprofile_version_compare(version, bound);
        bool holds = op == 0   ? cmp <= 0
                     : op == 1 ? cmp >= 0
                     : op == 2 ? cmp < 0
                     : op == 3 ? cmp > 0
                               : version_has_prefix(version, bound);
        if (!holds)
            result = 0;
    }
    free(copy);
    return result;
}

const mpiprofile *mpiprofile_find(const mpiprofile_set *set, const char *name)
{
    if (strcmp(name, MPIPROFILE_GENERIC) == 0)
        return &set->generic;
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->profiles[i].name, name) == 0)
            return &set->profiles[i];
    return NULL;
}

const mpiprofile_deployment *mpiprofile_deployment_find(const mpiprofile *profile,
                                                        const char *deployment)
{
    for (size_t i = 0; i < profile->deployment_count; i++)
        if (strcmp(profile->deployments[i].name, deployment) == 0)
            return &profile->deployments[i];
    return NULL;
}

/* Whether a version meets conditions (never an unknown version) and a
 * collective is in a list (an empty list holds every collective). */
static bool scope_holds(const char *versions, const mpiprofile_list *collectives,
                        const char *version, const char *collective)
{
    char err[MESSAGE_MAX];
    /* An unknown version is not guessed to be an affected one. */
    if (!isdigit((unsigned char)version[0]) ||
        mpiprofile_versions_match(versions, version, err, sizeof err) != 1)
        return false;
    if (collectives->count == 0)
        return true;
    for (size_t i = 0; i < collectives->count; i++)
        if (strcmp(collectives->items[i], collective) == 0)
            return true;
    return false;
}

bool mpiprofile_workaround_applies(const mpiprofile_workaround *workaround, const char *version,
                                   const char *collective)
{
    return scope_holds(workaround->versions, &workaround->collectives, version, collective);
}

bool mpiprofile_size_limit_applies(const mpiprofile_size_limit *limit, const char *version,
                                   const char *collective)
{
    /* A limit without collectives is refused when its file is read. */
    return limit->collectives.count > 0 &&
           scope_holds(limit->versions, &limit->collectives, version, collective);
}

const mpiprofile_size_limit *mpiprofile_size_limit_find(const mpiprofile *profile,
                                                        const char *version, const char *collective)
{
    const mpiprofile_size_limit *best = NULL;
    for (size_t i = 0; i < profile->size_limit_count; i++) {
        const mpiprofile_size_limit *l = &profile->size_limits[i];
        if (mpiprofile_size_limit_applies(l, version, collective) &&
            (!best || l->max_bytes < best->max_bytes))
            best = l;
    }
    return best;
}

/* ---- where the profiles are ------------------------------------------------------ */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *mpiprofile_default_dir(char *buf, size_t len)
{
    const char *env = getenv("BENCH_NBC_PROFILES");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return buf;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char installed[PATH_MAX + 64], resolved[PATH_MAX];
        snprintf(installed, sizeof installed, "%s/../share/bench_nbc/configs/mpi", dirname(exe));
        if (is_dir(installed) && realpath(installed, resolved)) {
            snprintf(buf, len, "%s", resolved);
            return buf;
        }
    }
    snprintf(buf, len, "%s", MPIPROFILE_SOURCE_DIR);
    return buf;
}
