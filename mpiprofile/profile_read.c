/* Library profiles: reading configs/mpi/NAME.ini (one table of keys) into
 * a profile set, checked; the look-ups are profile.c's. */
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

#include <ini.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MESSAGE_MAX   512

/* ---- the keys of a profile file ------------------------------------------ */

typedef enum {
    SECTION_LIBRARY,
    SECTION_LAUNCHER,
    SECTION_DEPLOYMENT,
    SECTION_WORKAROUND,
    SECTION_SIZE_LIMIT
} section_kind;

typedef enum {
    VALUE_TEXT,         /* one string, given once */
    VALUE_WORDS,        /* space-separated words, appended line after line */
    VALUE_LINES,        /* one item per line (patterns may hold spaces) */
    VALUE_SETTINGS,     /* NAME=VALUE words, appended */
    VALUE_BOOL,         /* true|false */
    VALUE_THREAD_LEVEL, /* single|funneled|serialized|multiple */
    VALUE_VERSIONS,     /* conditions, see mpiprofile_versions_match */
    VALUE_NAMES,        /* collective names (lower case, digits, _), appended */
    VALUE_BYTES,        /* a byte count, see mpiprofile_parse_bytes */
    VALUE_HANDLE,       /* an int of the library's mpi.h, decimal or 0x hex */
} value_kind;

typedef struct {
    section_kind section;
    const char *name;
    value_kind kind;
    size_t offset; /* in mpiprofile, mpiprofile_deployment or mpiprofile_workaround */
} key_desc;

#define PROFILE(f)    offsetof(mpiprofile, f)
#define DEPLOYMENT(f) offsetof(mpiprofile_deployment, f)
#define WORKAROUND(f) offsetof(mpiprofile_workaround, f)
#define SIZE_LIMIT(f) offsetof(mpiprofile_size_limit, f)

static const key_desc keys[] = {
    {SECTION_LIBRARY, "display_name", VALUE_TEXT, PROFILE(display_name)},
    {SECTION_LIBRARY, "match", VALUE_LINES, PROFILE(match)},
    {SECTION_LIBRARY, "header_macros", VALUE_WORDS, PROFILE(header_macros)},
    {SECTION_LIBRARY, "header_version", VALUE_TEXT, PROFILE(header_version)},
    {SECTION_LIBRARY, "busy_polls", VALUE_BOOL, PROFILE(busy_polls)},
    {SECTION_LIBRARY, "progress_switches", VALUE_WORDS, PROFILE(progress_switches)},
    {SECTION_LAUNCHER, "command", VALUE_TEXT, PROFILE(launcher.command)},
    {SECTION_LAUNCHER, "flags", VALUE_WORDS, PROFILE(launcher.flags)},
    {SECTION_LAUNCHER, "as_root", VALUE_WORDS, PROFILE(launcher.as_root)},
    {SECTION_LAUNCHER, "oversubscribe", VALUE_WORDS, PROFILE(launcher.oversubscribe)},
    {SECTION_LAUNCHER, "no_bind", VALUE_WORDS, PROFILE(launcher.no_bind)},
    {SECTION_LAUNCHER, "hosts", VALUE_WORDS, PROFILE(launcher.hosts)},
    {SECTION_LAUNCHER, "per_node", VALUE_WORDS, PROFILE(launcher.per_node)},
    {SECTION_LAUNCHER, "rsh", VALUE_WORDS, PROFILE(launcher.rsh)},
    {SECTION_LAUNCHER, "srun_mpi", VALUE_TEXT, PROFILE(launcher.srun_mpi)},
    {SECTION_LAUNCHER, "sets_env_prefixes", VALUE_WORDS, PROFILE(launcher.sets_env_prefixes)},
    {SECTION_DEPLOYMENT, "env", VALUE_SETTINGS, DEPLOYMENT(env)},
    {SECTION_DEPLOYMENT, "thread_level", VALUE_THREAD_LEVEL, DEPLOYMENT(thread_level)},
    {SECTION_DEPLOYMENT, "unsupported", VALUE_TEXT, DEPLOYMENT(unsupported)},
    {SECTION_DEPLOYMENT, "bind", VALUE_SETTINGS, DEPLOYMENT(bind)},
    {SECTION_DEPLOYMENT, "bind_versions", VALUE_VERSIONS, DEPLOYMENT(bind_versions)},
    {SECTION_DEPLOYMENT, "poll", VALUE_TEXT, DEPLOYMENT(poll)},
    {SECTION_DEPLOYMENT, "poll_argument", VALUE_HANDLE, DEPLOYMENT(poll_argument)},
    {SECTION_DEPLOYMENT, "poll_versions", VALUE_VERSIONS, DEPLOYMENT(poll_versions)},
    {SECTION_WORKAROUND, "versions", VALUE_VERSIONS, WORKAROUND(versions)},
    {SECTION_WORKAROUND, "collectives", VALUE_WORDS, WORKAROUND(collectives)},
    {SECTION_WORKAROUND, "env", VALUE_SETTINGS, WORKAROUND(env)},
    {SECTION_WORKAROUND, "reason", VALUE_TEXT, WORKAROUND(reason)},
    {SECTION_SIZE_LIMIT, "versions", VALUE_VERSIONS, SIZE_LIMIT(versions)},
    {SECTION_SIZE_LIMIT, "collectives", VALUE_NAMES, SIZE_LIMIT(collectives)},
    {SECTION_SIZE_LIMIT, "max_bytes", VALUE_BYTES, SIZE_LIMIT(max_bytes)},
    {SECTION_SIZE_LIMIT, "reason", VALUE_TEXT, SIZE_LIMIT(reason)},
};

static const char *const section_names[] = {
    [SECTION_LIBRARY] = "library",
    [SECTION_LAUNCHER] = "launcher",
    [SECTION_DEPLOYMENT] = "deployment.<name>",
    [SECTION_WORKAROUND] = "workaround.<name>",
    [SECTION_SIZE_LIMIT] = "size_limit.<name>",
};

static const char *const thread_levels[] = {"single", "funneled", "serialized", "multiple"};

/* ---- small helpers ------------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int list_add(mpiprofile_list *list, const char *item, size_t len)
{
    char **grown = realloc(list->items, (list->count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    list->items = grown;
    list->items[list->count] = strndup(item, len);
    if (!list->items[list->count])
        return -1;
    list->count++;
    return 0;
}

static void list_free(mpiprofile_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    *list = (mpiprofile_list){0};
}

int mpiprofile_list_add(mpiprofile_list *list, const char *item)
{
    return list_add(list, item, strlen(item));
}

void mpiprofile_list_free(mpiprofile_list *list)
{
    list_free(list);
}

static bool setting_is_valid(const char *setting)
{
    const char *eq = strchr(setting, '=');
    if (!eq || eq == setting || isdigit((unsigned char)setting[0]))
        return false;
    for (const char *c = setting; c < eq; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return false;
    return true;
}

static bool name_is_valid(const char *name)
{
    if (!*name)
        return false;
    for (const char *c = name; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_' && *c != '-')
            return false;
    return true;
}

/* A collective's name as bench_nbc's table spells it: ibcast, bcast_init. */
static bool collective_name_is_valid(const char *name)
{
    if (!islower((unsigned char)name[0]))
        return false;
    for (const char *c = name; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_')
            return false;
    return true;
}

int mpiprofile_parse_bytes(const char *text, uint64_t *bytes)
{
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {{"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    if (!isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || value == 0)
        return -1;
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (strcmp(end, units[i].suffix) != 0)
            continue;
        if (value > (UINT64_MAX >> units[i].shift))
            return -1;
        *bytes = (uint64_t)value << units[i].shift;
        return 0;
    }
    return -1;
}

/* ---- reading a file ---------------------------------------------------------- */

typedef struct {
    mpiprofile *profile;
    const char *const *deployments;
    size_t deployment_count;
    char *err;
    size_t errlen;
} parse_state;

_Static_assert(offsetof(mpiprofile_deployment, name) == 0, "named_element: the name comes first");
_Static_assert(offsetof(mpiprofile_workaround, name) == 0, "named_element: the name comes first");
_Static_assert(offsetof(mpiprofile_size_limit, name) == 0, "named_element: the name comes first");

/* The element called name of an array of structs whose first member is their
 * name, appended (zeroed, named) when missing: a section given twice is one. */
static void *named_element(parse_state *st, void **array, size_t *count, size_t size,
                           const char *name)
{
    char *base = *array;
    for (size_t i = 0; i < *count; i++)
        if (strcmp(*(char **)(base + i * size), name) == 0)
            return base + i * size;
    char *grown = realloc(*array, (*count + 1) * size);
    if (!grown) {
        fail(st->err, st->errlen, "out of memory");
        return NULL;
    }
    *array = grown;
    char *fresh = grown + *count * size;
    memset(fresh, 0, size);
    if (!(*(char **)fresh = strdup(name))) {
        fail(st->err, st->errlen, "out of memory");
        return NULL;
    }
    (*count)++;
    return fresh;
}

static void *section_target(parse_state *st, const char *section, section_kind *kind)
{
    mpiprofile *p = st->profile;
    if (strcmp(section, "library") == 0) {
        *kind = SECTION_LIBRARY;
        return p;
    }
    if (strcmp(section, "launcher") == 0) {
        *kind = SECTION_LAUNCHER;
        return p;
    }
    if (strncmp(section, "deployment.", 11) == 0) {
        const char *name = section + 11;
        bool known = st->deployments == NULL;
        for (size_t i = 0; !known && i < st->deployment_count; i++)
            known = strcmp(name, st->deployments[i]) == 0;
        if (!known) {
            char allowed[MESSAGE_MAX] = "";
            for (size_t i = 0; i < st->deployment_count; i++)
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                         i ? ", " : "", st->deployments[i]);
            fail(st->err, st->errlen, "[%s]: unknown deployment '%s' (allowed: %s)", section, name,
                 allowed);
            return NULL;
        }
        *kind = SECTION_DEPLOYMENT;
        return named_element(st, (void **)&p->deployments, &p->deployment_count,
                             sizeof *p->deployments, name);
    }
    if (strncmp(section, "workaround.", 11) == 0 && section[11]) {
        *kind = SECTION_WORKAROUND;
        return named_element(st, (void **)&p->workarounds, &p->workaround_count,
                             sizeof *p->workarounds, section + 11);
    }
    if (strncmp(section, "size_limit.", 11) == 0 && section[11]) {
        *kind = SECTION_SIZE_LIMIT;
        return named_element(st, (void **)&p->size_limits, &p->size_limit_count,
                             sizeof *p->size_limits, section + 11);
    }
    fail(st->err, st->errlen,
         "unknown section [%s] (allowed: [library], [launcher], [deployment.<name>], "
         "[workaround.<name>], [size_limit.<name>])",
         section);
    return NULL;
}

static int set_value(parse_state *st, const key_desc *key, void *target, const char *section,
                     const char *value)
{
    char *field = (char *)target + key->offset;
    switch (key->kind) {
    case VALUE_TEXT:
    case VALUE_THREAD_LEVEL:
    case VALUE_VERSIONS: {
        char **text = (char **)field;
        if (*text)
            return fail(st->err, st->errlen, "[%s] %s: given twice", section, key->name);
        if (key->kind == VALUE_THREAD_LEVEL) {
            size_t i = 0;
            while (i < ARRAY_SIZE(thread_levels) && strcmp(value, thread_levels[i]) != 0)
                i++;
            if (i == ARRAY_SIZE(thread_levels))
                return fail(st->err, st->errlen,
                            "[%s] thread_level: \"%s\" is not a thread level (allowed: single, "
                            "funneled, serialized, multiple)",
                            section, value);
        }
        if (key->kind == VALUE_VERSIONS) {
            char why[MESSAGE_MAX];
            if (mpiprofile_versions_match(value, "0", why, sizeof why) < 0)
                return fail(st->err, st->errlen, "[%s] %s: %s", section, key->name, why);
        }
        *text = strdup(value);
        return *text ? 0 : fail(st->err, st->errlen, "out of memory");
    }
    case VALUE_BYTES: {
        uint64_t *bytes = (uint64_t *)field;
        if (*bytes)
            return fail(st->err, st->errlen, "[%s] %s: given twice", section, key->name);
        if (mpiprofile_parse_bytes(value, bytes) != 0)
            return fail(st->err, st->errlen,
                        "[%s] %s: \"%s\" is not a byte count (allowed: a whole number >= 1, "
                        "optionally followed by B, KiB, MiB, GiB or TiB: 2147483647, 2GiB)",
                        section, key->name, value);
        return 0;
    }
    case VALUE_HANDLE: {
        char *end;
        errno = 0;
        long handle = strtol(value, &end, 0);
        if (errno || end == value || *end || handle < INT_MIN || handle > INT_MAX)
            return fail(st->err, st->errlen,
                        "[%s] %s: \"%s\" is not an int handle (allowed: a whole number that "
                        "fits an int, decimal or 0x hex: 0x3c000000)",
                        section, key->name, value);
        *(long *)field = handle;
        return 0;
    }
    case VALUE_BOOL: {
        bool *flag = (bool *)field;
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
            return fail(st->err, st->errlen,
                        "[%s] %s: \"%s\" is not a boolean (allowed: true, false)", section,
                        key->name, value);
        *flag = strcmp(value, "true") == 0;
        return 0;
    }
    case VALUE_LINES: {
        mpiprofile_list *list = (mpiprofile_list *)field;
        if (!*value)
            return fail(st->err, st->errlen, "[%s] %s: empty", section, key->name);
        return list_add(list, value, strlen(value)) == 0
                   ? 0
                   : fail(st->err, st->errlen, "out of memory");
    }
    case VALUE_WORDS:
    case VALUE_NAMES:
    case VALUE_SETTINGS: {
        mpiprofile_list *list = (mpiprofile_list *)field;
        for (const char *p = value; *p;) {
            p += strspn(p, " \t");
            size_t len = strcspn(p, " \t");
            if (len == 0)
                break;
            if (list_add(list, p, len) != 0)
                return fail(st->err, st->errlen, "out of memory");
            if (key->kind == VALUE_SETTINGS && !setting_is_valid(list->items[list->count - 1]))
                return fail(st->err, st->errlen,
                            "[%s] %s: \"%s\" is not NAME=VALUE (a variable of the "
                            "environment)",
                            section, key->name, list->items[list->count - 1]);
            if (key->kind == VALUE_NAMES && !collective_name_is_valid(list->items[list->count - 1]))
                return fail(st->err, st->errlen,
                            "[%s] %s: \"%s\" is not a collective's name (lower-case letters, "
                            "digits and '_', as `bench_nbc --list` prints them: ibcast, "
                            "bcast_init)",
                            section, key->name, list->items[list->count - 1]);
            p += len;
        }
        return 0;
    }
    }
    return fail(st->err, st->errlen, "internal error: key type");
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    section_kind kind;
    void *target = section_target(st, section, &kind);
    if (!target)
        return 0;
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
        if (keys[i].section == kind && strcmp(keys[i].name, name) == 0)
            return set_value(st, &keys[i], target, section, value) == 0;
    char allowed[MESSAGE_MAX] = "";
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
        if (keys[i].section == kind)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                     *allowed ? ", " : "", keys[i].name);
    fail(st->err, st->errlen, "[%s]: unknown key '%s' (allowed in [%s]: %s)", section, name,
         section_names[kind], allowed);
    return 0;
}

static void profile_free(mpiprofile *p)
{
    free(p->name);
    free(p->path);
    free(p->display_name);
    list_free(&p->match);
    list_free(&p->header_macros);
    list_free(&p->progress_switches);
    free(p->header_version);
    free(p->launcher.command);
    mpiprofile_list *lists[] = {&p->launcher.flags,         &p->launcher.as_root,
                                &p->launcher.oversubscribe, &p->launcher.no_bind,
                                &p->launcher.hosts,         &p->launcher.per_node,
                                &p->launcher.rsh,           &p->launcher.sets_env_prefixes};
    for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
        list_free(lists[i]);
    free(p->launcher.srun_mpi);
    for (size_t i = 0; i < p->deployment_count; i++) {
        free(p->deployments[i].name);
        list_free(&p->deployments[i].env);
        free(p->deployments[i].thread_level);
        free(p->deployments[i].unsupported);
        list_free(&p->deployments[i].bind);
        free(p->deployments[i].bind_versions);
        free(p->deployments[i].poll);
        free(p->deployments[i].poll_versions);
    }
    free(p->deployments);
    for (size_t i = 0; i < p->workaround_count; i++) {
        mpiprofile_workaround *w = &p->workarounds[i];
        free(w->name);
        free(w->versions);
        list_free(&w->collectives);
        list_free(&w->env);
        free(w->reason);
    }
    free(p->workarounds);
    for (size_t i = 0; i < p->size_limit_count; i++) {
        mpiprofile_size_limit *l = &p->size_limits[i];
        free(l->name);
        free(l->versions);
        list_free(&l->collectives);
        free(l->reason);
    }
    free(p->size_limits);
    *p = (mpiprofile){0};
}

/* What every profile needs, once its file is read. */
static int check_profile(const mpiprofile *p, char *err, size_t errlen)
{
    if (!p->display_name)
        return fail(err, errlen, "[library] display_name is missing (e.g. display_name = MPICH)");
    if (p->match.count == 0)
        return fail(err, errlen,
                    "[library] match is missing: a substring of the library's "
                    "MPI_Get_library_version text (e.g. match = MPICH Version:)");
    for (size_t i = 0; i < p->deployment_count; i++) {
        const mpiprofile_deployment *d = &p->deployments[i];
        if (d->bind.count > 1)
            return fail(err, errlen, "[deployment.%s] bind: one NAME=VALUE setting, not %zu",
                        d->name, d->bind.count);
        if (d->poll && strcmp(d->name, "thread") != 0)
            return fail(err, errlen,
                        "[deployment.%s] poll: only the suite's progress thread polls "
                        "(allowed in: [deployment.thread])",
                        d->name);
        if (d->poll && !d->poll_versions)
            return fail(err, errlen,
                        "[deployment.%s] poll = %s needs poll_versions (the versions that "
                        "export it, e.g. >=4.1)",
                        d->name, d->poll);
    }
    for (size_t i = 0; i < p->workaround_count; i++)
        if (p->workarounds[i].env.count == 0 || !p->workarounds[i].reason)
            return fail(err, errlen, "[workaround.%s] needs env (NAME=VALUE) and reason",
                        p->workarounds[i].name);
    for (size_t i = 0; i < p->size_limit_count; i++) {
        const mpiprofile_size_limit *l = &p->size_limits[i];
        const char *missing = l->collectives.count == 0 ? "collectives"
                              : l->max_bytes == 0       ? "max_bytes"
                              : !l->reason              ? "reason"
                                                        : NULL;
        if (missing)
            return fail(err, errlen,
                        "[size_limit.%s] %s is missing (a size limit needs collectives, "
                        "max_bytes and reason; versions is optional)",
                        l->name, missing);
    }
    return 0;
}

static int load_file(mpiprofile *p, const char *dir, const char *file, const parse_state *base,
                     char *err, size_t errlen)
{
    size_t name_len = strlen(file) - strlen(".ini");
    *p = (mpiprofile){.name = strndup(file, name_len)};
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    p->path = strdup(path);
    if (!p->name || !p->path)
        return fail(err, errlen, "out of memory");
    if (!name_is_valid(p->name) || strcmp(p->name, MPIPROFILE_GENERIC) == 0 ||
        strcmp(p->name, "auto") == 0)
        return fail(err, errlen,
                    "%s: '%s' cannot name a profile (lower-case letters, digits, '-' and '_'; "
                    "not auto or generic)",
                    path, p->name);
    char why[MESSAGE_MAX] = "";
    parse_state st = *base;
    st.profile = p;
    st.err = why;
    st.errlen = sizeof why;
    int line = ini_parse(path, on_key, &st);
    if (line < 0)
        return fail(err, errlen, "%s: cannot read the file", path);
    if (line > 0)
        return fail(err, errlen, "%s: line %d: %s", path, line,
                    *why ? why : "not a `key = value` line of an INI file");
    if (check_profile(p, why, sizeof why) != 0)
        return fail(err, errlen, "%s: %s", path, why);
    if (!p->launcher.command && !(p->launcher.command = strdup("mpiexec")))
        return fail(err, errlen, "out of memory");
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const mpiprofile *)a)->name, ((const mpiprofile *)b)->name);
}

static int init_generic(mpiprofile *g)
{
    *g = (mpiprofile){.name = strdup(MPIPROFILE_GENERIC),
                      .display_name = strdup("an MPI library without a profile"),
                      .launcher.command = strdup("mpiexec")};
    /* Whatever its launcher, the process-manager interfaces (PMI, PMIx) and
     * Slurm's srun set these for each process. */
    static const char *const launcher_env[] = {"PMI_", "PMIX_", "SLURM_"};
    int rc = g->name && g->display_name && g->launcher.command ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(launcher_env); i++)
        rc = mpiprofile_list_add(&g->launcher.sets_env_prefixes, launcher_env[i]);
    return rc;
}

int mpiprofile_load_dir(mpiprofile_set *set, const char *dir, const char *const *deployments,
                        size_t deployment_count, char *err, size_t errlen)
{
    *set = (mpiprofile_set){.dir = strdup(dir)};
    if (!set->dir || init_generic(&set->generic) != 0)
        return fail(err, errlen, "out of memory");
    DIR *d = opendir(dir);
    if (!d)
        return fail(err, errlen, "cannot read the MPI library profiles in %s: %s", dir,
                    strerror(errno));
    parse_state base = {.deployments = deployments, .deployment_count = deployment_count};
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.')
            continue;
        mpiprofile *grown = realloc(set->profiles, (set->count + 1) * sizeof *grown);
        if (!grown) {
            rc = fail(err, errlen, "out of memory");
            break;
        }
        set->profiles = grown;
        rc = load_file(&grown[set->count], dir, e->d_name, &base, err, errlen);
        set->count++;
    }
    closedir(d);
    if (rc == 0) {
        qsort(set->profiles, set->count, sizeof *set->profiles, by_name);
        return 0;
    }
    for (size_t i = 0; i < set->count; i++)
        profile_free(&set->profiles[i]);
    free(set->profiles);
    set->profiles = NULL;
    set->count = 0;
    return rc;
}

void mpiprofile_set_free(mpiprofile_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        profile_free(&set->profiles[i]);
    free(set->profiles);
    profile_free(&set->generic);
    free(set->dir);
    *set = (mpiprofile_set){0};
}
