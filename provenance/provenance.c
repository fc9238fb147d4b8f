/* provenance: this node's facts read from /proc, /sys, uname, the dynamic
 * loader and the environment (provenance.h; docs/formats.md describes the
 * record). The parsers of the files' text are in provenance_parse.c, the
 * warnings in provenance_warnings.c, the variables recorded in
 * env_prefixes.c. */
#include "provenance/provenance.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

/* What the Makefile knew of the build (provenance/module.mk). */
#ifndef PROVENANCE_BUILD_CFLAGS
#define PROVENANCE_BUILD_CFLAGS "unknown"
#endif
#ifndef PROVENANCE_BUILD_MPICC
#define PROVENANCE_BUILD_MPICC "unknown"
#endif
#ifndef PROVENANCE_BUILD_MPICC_SHOW
#define PROVENANCE_BUILD_MPICC_SHOW "unknown"
#endif
#ifndef PROVENANCE_BUILD_BLAS
#define PROVENANCE_BUILD_BLAS "unknown"
#endif

enum { MAX_FILE_BYTES = 1 << 22 };

/* Libraries whose real file matters (symlinks resolved): by the start of
 * their file name. */
static const struct {
    const char *role, *prefix;
} key_libraries[] = {
    {"mpi", "libmpi.so"},          {"mpi", "libmpich.so"},   {"mpi", "libmpi_"},
    {"ucx", "libucp.so"},          {"ucx", "libucs.so"},     {"ucx", "libuct.so"},
    {"libfabric", "libfabric.so"}, {"openmp", "libgomp.so"}, {"openmp", "libiomp5.so"},
    {"openmp", "libomp.so"},       {"blas", "libopenblas"},  {"blas", "libblis"},
    {"blas", "libmkl_"},           {"blas", "libblas.so"},   {"blas", "libcblas.so"},
    {"pmix", "libpmix.so"},        {"hwloc", "libhwloc.so"},
};

/* The clocks the suite reads and what for. */
static const struct {
    const char *name, *use;
    clockid_t id;
} clocks[] = {
    {"CLOCK_MONOTONIC_RAW", "timestamps t1..t4 and the clock model", CLOCK_MONOTONIC_RAW},
    {"CLOCK_MONOTONIC", "watchdog, window barrier sleeps", CLOCK_MONOTONIC},
    {"CLOCK_REALTIME", "raw.csv wall_start_s", CLOCK_REALTIME},
    {"CLOCK_THREAD_CPUTIME_ID", "compute threads' CPU time", CLOCK_THREAD_CPUTIME_ID},
    {"CLOCK_PROCESS_CPUTIME_ID", "BLAS thread check", CLOCK_PROCESS_CPUTIME_ID},
};

/* Where files are read from, and what could not be read. */
typedef struct reader {
    const char *root;
    json_object *unavailable;
} reader;

static void note_unavailable(reader *r, const char *fact, const char *path, const char *reason)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "fact", json_object_new_string(fact));
    json_object_object_add(e, "path", json_object_new_string(path));
    json_object_object_add(e, "reason", json_object_new_string(reason));
    json_object_array_add(r->unavailable, e);
}

/* The whole file (malloc'd, NUL-terminated), or NULL: when `fact` is not
 * NULL the failure is noted under that name. */
static char *read_text(reader *r, const char *fact, const char *path)
{
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%s%s", r->root, path);
    FILE *f = fopen(full, "r");
    char *text = f ? malloc(MAX_FILE_BYTES + 1) : NULL;
    size_t n = text ? fread(text, 1, MAX_FILE_BYTES, f) : 0;
    int failure = !f ? errno : !text ? ENOMEM : ferror(f) ? EIO : 0;
    if (f)
        fclose(f);
    if (failure) {
        free(text);
        if (fact)
            note_unavailable(r, fact, path, strerror(failure));
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static json_object *unavailable_string(void)
{
    return json_object_new_string("unavailable");
}

/* A one-line sysfs file as a string, or "unavailable" (noted). */
static json_object *file_string(reader *r, const char *fact, const char *path)
{
    char *text = read_text(r, fact, path);
    json_object *o = text ? json_object_new_string(provenance_trim(text)) : unavailable_string();
    free(text);
    return o;
}

/* A sysfs choice file ("always [madvise] never") as its chosen word. */
static json_object *file_choice(reader *r, const char *fact, const char *path)
{
    char *text = read_text(r, fact, path);
    char chosen[128] = "unavailable";
    if (text)
        provenance_parse_choice(text, chosen, sizeof chosen);
    free(text);
    return json_object_new_string(chosen);
}

/* ---- Sections of the record ---- */

static json_object *kernel_json(reader *r)
{
    json_object *o = json_object_new_object();
    struct utsname u;
    if (uname(&u) == 0) {
        json_object_object_add(o, "sysname", json_object_new_string(u.sysname));
        json_object_object_add(o, "release", json_object_new_string(u.release));
        json_object_object_add(o, "version", json_object_new_string(u.version));
        json_object_object_add(o, "machine", json_object_new_string(u.machine));
    } else {
        note_unavailable(r, "kernel.release", "uname(2)", strerror(errno));
        json_object_object_add(o, "release", unavailable_string());
    }
    json_object_object_add(o, "proc_version",
                           file_string(r, "kernel.proc_version", "/proc/version"));
    char *cmdline = read_text(r, "kernel.cmdline", "/proc/cmdline");
    json_object_object_add(o, "cmdline",
                           cmdline ? provenance_parse_cmdline(cmdline) : unavailable_string());
    free(cmdline);
    return o;
}

/* The online CPUs (sysfs), else none. */
static int online_cpus(reader *r, int *cpus)
{
    char *text = read_text(r, "cpu.online", "/sys/devices/system/cpu/online");
    int n = text ? provenance_parse_cpulist(text, cpus, PROVENANCE_MAX_CPUS) : 0;
    free(text);
    return n < 0 ? 0 : n;
}

static json_object *cpu_json(reader *r, const int *cpus, int count)
{
    char *text = read_text(r, "cpu", "/proc/cpuinfo");
    json_object *o = text ? provenance_parse_cpuinfo(text) : json_object_new_object();
    free(text);
    json_object_object_add(o, "online",
                           file_string(r, "cpu.online", "/sys/devices/system/cpu/online"));
    json_object_object_add(o, "smt_active",
                           file_string(r, "cpu.smt_active", "/sys/devices/system/cpu/smt/active"));
    json_object_object_add(
        o, "smt_control", file_string(r, "cpu.smt_control", "/sys/devices/system/cpu/smt/control"));
    /* Each distinct sibling set once: the warnings look computing CPUs up in them. */
    json_object *siblings = json_object_new_array();
    for (int i = 0; i < count; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 cpus[i]);
        char *list = read_text(r, i == 0 ? "cpu.smt_siblings" : NULL, path);
        if (!list)
            break;
        bool seen = false;
        for (size_t k = 0; k < json_object_array_length(siblings); k++)
            seen |= strcmp(json_object_get_string(json_object_array_get_idx(siblings, k)),
                           provenance_trim(list)) == 0;
        if (!seen)
            json_object_array_add(siblings, json_object_new_string(provenance_trim(list)));
        free(list);
    }
    json_object_object_add(o, "smt_siblings", siblings);
    return o;
}

/* Turbo: intel_pstate's no_turbo (1: off), else cpufreq's boost (1: on). */
static void turbo_json(reader *r, json_object *o)
{
    static const struct {
        const char *path;
        bool one_means_on;
    } sources[] = {
        {"/sys/devices/system/cpu/intel_pstate/no_turbo", false},
        {"/sys/devices/system/cpu/cpufreq/boost", true},
    };
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
        char *text = read_text(r, NULL, sources[i].path);
        if (text) {
            bool one = strtol(text, NULL, 10) == 1;
            json_object_object_add(
                o, "turbo", json_object_new_string(one == sources[i].one_means_on ? "on" : "off"));
            json_object_object_add(o, "turbo_source", json_object_new_string(sources[i].path));
            free(text);
            return;
        }
    }
    note_unavailable(r, "frequency.turbo",
                     "/sys/devices/system/cpu/intel_pstate/no_turbo, "
                     "/sys/devices/system/cpu/cpufreq/boost",
                     "neither file exists");
    json_object_object_add(o, "turbo", unavailable_string());
}

static json_object *frequency_json(reader *r, const int *cpus, int count)
{
    json_object *o = json_object_new_object();
    json_object *per_cpu = json_object_new_array();
    for (int i = 0; i < count; i++) {
        static const char *const files[] = {"scaling_governor", "scaling_min_freq",
                                            "scaling_max_freq"};
        static const char *const keys[] = {"governor", "min_khz", "max_khz"};
        json_object *one = json_object_new_object();
        json_object_object_add(one, "cpu", json_object_new_int(cpus[i]));
        bool any = false;
        for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
            char path[128];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpus[i],
                     files[f]);
            char *text = read_text(r, NULL, path);
            if (text && f == 0)
                json_object_object_add(one, keys[f], json_object_new_string(provenance_trim(text)));
            else if (text)
                json_object_object_add(one, keys[f],
                                       json_object_new_int64(strtoll(text, NULL, 10)));
            any |= text != NULL;
            free(text);
        }
        if (any)
            json_object_array_add(per_cpu, one);
        else
            json_object_put(one);
    }
    if (json_object_array_length(per_cpu) == 0 && count > 0) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                 cpus[0]);
        note_unavailable(r, "frequency.governors", path, "no cpufreq (a virtual machine?)");
        json_object_put(per_cpu);
        json_object_object_add(o, "governors", unavailable_string());
    } else {
        json_object_object_add(o, "governors", per_cpu);
    }
    char *driver = read_text(r, NULL, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
    json_object_object_add(o, "driver",
                           driver ? json_object_new_string(provenance_trim(driver))
                                  : unavailable_string());
    free(driver);
    turbo_json(r, o);
    return o;
}

/* One-line files recorded as they are (or their bracketed choice). */
typedef struct file_fact {
    const char *key, *fact, *path;
    bool choice;
} file_fact;

static const file_fact memory_files[] = {
    {"transparent_hugepages", "memory.transparent_hugepages",
     "/sys/kernel/mm/transparent_hugepage/enabled", true},
    {"transparent_hugepages_defrag", "memory.transparent_hugepages_defrag",
     "/sys/kernel/mm/transparent_hugepage/defrag", true},
};
static const file_fact clock_files[] = {
    {"clocksource", "clocks.clocksource",
     "/sys/devices/system/clocksource/clocksource0/current_clocksource", false},
    {"available_clocksources", "clocks.available_clocksources",
     "/sys/devices/system/clocksource/clocksource0/available_clocksource", false},
};

static json_object *file_facts_json(reader *r, const file_fact *facts, size_t n)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < n; i++)
        json_object_object_add(o, facts[i].key,
                               facts[i].choice ? file_choice(r, facts[i].fact, facts[i].path)
                                               : file_string(r, facts[i].fact, facts[i].path));
    return o;
}

static json_object *memory_json(reader *r)
{
    json_object *o = file_facts_json(r, memory_files, sizeof memory_files / sizeof *memory_files);
    char *meminfo = read_text(r, "memory.hugepages", "/proc/meminfo");
    json_object_object_add(o, "hugepages",
                           meminfo ? provenance_parse_hugepages(meminfo) : unavailable_string());
    free(meminfo);
    return o;
}

static int compare_ints(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static json_object *numa_json(reader *r)
{
    char dir_path[PATH_MAX];
    snprintf(dir_path, sizeof dir_path, "%s/sys/devices/system/node", r->root);
    DIR *dir = opendir(dir_path);
    if (!dir) {
        note_unavailable(r, "numa", "/sys/devices/system/node", strerror(errno));
        return unavailable_string();
    }
    int nodes[1024], count = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char *end;
        long id = strncmp(e->d_name, "node", 4) == 0 ? strtol(e->d_name + 4, &end, 10) : -1;
        if (id >= 0 && end != e->d_name + 4 && *end == '\0' && count < 1024)
            nodes[count++] = (int)id;
    }
    closedir(dir);
    qsort(nodes, (size_t)count, sizeof *nodes, compare_ints);
    json_object *a = json_object_new_array();
    for (int i = 0; i < count; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", nodes[i]);
        json_object *n = json_object_new_object();
        json_object_object_add(n, "node", json_object_new_int(nodes[i]));
        json_object_object_add(n, "cpus", file_string(r, "numa.cpus", path));
        json_object_array_add(a, n);
    }
    return a;
}

static json_object *clocks_json(reader *r)
{
    json_object *o = file_facts_json(r, clock_files, sizeof clock_files / sizeof *clock_files);
    json_object *res = json_object_new_array();
    for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++) {
        struct timespec ts;
        json_object *c = json_object_new_object();
        json_object_object_add(c, "clock", json_object_new_string(clocks[i].name));
        json_object_object_add(c, "used_for", json_object_new_string(clocks[i].use));
        json_object_object_add(
            c, "resolution_ns",
            clock_getres(clocks[i].id, &ts) == 0
                ? json_object_new_int64((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec)
                : NULL);
        json_object_array_add(res, c);
    }
    json_object_object_add(o, "resolutions", res);
    return o;
}

/* ---- Loaded libraries ---- */

typedef struct loaded {
    json_object *paths, *key;
    char ucx[PATH_MAX], fabric[PATH_MAX]; /* where libucp / libfabric were loaded from */
} loaded;

static int each_library(struct dl_phdr_info *info, size_t size, void *context)
{
    (void)size;
    loaded *l = context;
    const char *path = info->dlpi_name;
    if (!path || !*path)
        return 0; /* the program itself */
    json_object_array_add(l->paths, json_object_new_string(path));
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof key_libraries / sizeof *key_libraries; i++) {
        if (strncmp(base, key_libraries[i].prefix, strlen(key_libraries[i].prefix)) != 0)
            continue;
        char real[PATH_MAX];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "role", json_object_new_string(key_libraries[i].role));
        json_object_object_add(e, "path", json_object_new_string(path));
        json_object_object_add(e, "real_path",
                               realpath(path, real) ? json_object_new_string(real) : NULL);
        json_object_array_add(l->key, e);
        if (strncmp(base, "libucp.so", 9) == 0)
            snprintf(l->ucx, sizeof l->ucx, "%s", path);
        if (strncmp(base, "libfabric.so", 12) == 0)
            snprintf(l->fabric, sizeof l->fabric, "%s", path);
        break;
    }
    return 0;
}

/* A function of a library already loaded (RTLD_NOLOAD: never loads one).
 * dlsym returns an object pointer; POSIX guarantees it converts. */
static void *loaded_symbol(const char *path, const char *symbol, void **handle)
{
    *handle = *path ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    return *handle ? dlsym(*handle, symbol) : NULL;
}

static json_object *libraries_json(void)
{
    loaded l = {.paths = json_object_new_array(), .key = json_object_new_array()};
    dl_iterate_phdr(each_library, &l);
    json_object *o = json_object_new_object();
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    json_object_object_add(o, "program", n > 0 ? json_object_new_string(exe) : NULL);
    json_object_object_add(o, "loaded", l.paths);
    json_object_object_add(o, "key", l.key);

    void *handle;
    void *ucx = loaded_symbol(l.ucx, "ucp_get_version_string", &handle);
    const char *(*ucx_version)(void);
    memcpy(&ucx_version, &ucx, sizeof ucx_version);
    json_object_object_add(o, "ucx_version", ucx ? json_object_new_string(ucx_version()) : NULL);
    if (handle)
        dlclose(handle);
    void *fi = loaded_symbol(l.fabric, "fi_version", &handle);
    uint32_t (*fi_version)(void);
    memcpy(&fi_version, &fi, sizeof fi_version);
    char text[32];
    if (fi) {
        uint32_t v = fi_version();
        snprintf(text, sizeof text, "%u.%u", v >> 16, v & 0xffff);
    }
    json_object_object_add(o, "libfabric_version", fi ? json_object_new_string(text) : NULL);
    if (handle)
        dlclose(handle);
    return o;
}

static json_object *build_json(void)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "compiler", json_object_new_string(__VERSION__));
    json_object_object_add(o, "cflags", json_object_new_string(PROVENANCE_BUILD_CFLAGS));
    json_object_object_add(o, "mpicc", json_object_new_string(PROVENANCE_BUILD_MPICC));
    json_object_object_add(o, "mpicc_show", json_object_new_string(PROVENANCE_BUILD_MPICC_SHOW));
    json_object_object_add(o, "blas", json_object_new_string(PROVENANCE_BUILD_BLAS));
    return o;
}

static json_object *environment_json(void)
{
    extern char **environ;
    json_object *env = json_object_new_object();
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && provenance_env_recorded(*e, PROVENANCE_ENV_NODE)) {
            char *name = strndup(*e, (size_t)(eq - *e));
            if (name)
                json_object_object_add(env, name, json_object_new_string(eq + 1));
            free(name);
        }
    }
    return env;
}

static char *topology_xml(char *why, size_t why_size)
{
#ifdef HAVE_HWLOC
    hwloc_topology_t topology;
    char *xml = NULL, *copy = NULL;
    int len = 0;
    if (hwloc_topology_init(&topology) != 0) {
        snprintf(why, why_size, "hwloc_topology_init failed");
        return NULL;
    }
    if (hwloc_topology_load(topology) != 0)
        snprintf(why, why_size, "hwloc_topology_load: %s", strerror(errno));
    else if (hwloc_topology_export_xmlbuffer(topology, &xml, &len, 0) != 0)
        snprintf(why, why_size, "hwloc_topology_export_xmlbuffer: %s", strerror(errno));
    else if (!(copy = strndup(xml, (size_t)len)))
        snprintf(why, why_size, "out of memory");
    if (xml)
        hwloc_free_xmlbuffer(topology, xml);
    hwloc_topology_destroy(topology);
    return copy;
#else
    snprintf(why, why_size, "built without hwloc (HWLOC=0)");
    return NULL;
#endif
}

static json_object *topology_json(reader *r, const provenance_options *opt, char **xml_out)
{
    char why[256] = "not asked for";
    char *xml = xml_out ? topology_xml(why, sizeof why) : NULL;
    if (xml_out)
        *xml_out = xml;
    if (!xml) {
        note_unavailable(r, "topology", "hwloc_topology_export_xmlbuffer", why);
        return unavailable_string();
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "file",
                           opt->topology_file ? json_object_new_string(opt->topology_file) : NULL);
    json_object_object_add(o, "format", json_object_new_string("hwloc XML"));
#ifdef HAVE_HWLOC
    unsigned v = hwloc_get_api_version();
    char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    json_object_object_add(o, "hwloc_api_version", json_object_new_string(version));
#endif
    return o;
}

json_object *provenance_node_json(const provenance_options *opt, char **topology_xml_out)
{
    reader r = {.root = opt->root ? opt->root : "", .unavailable = json_object_new_array()};
    json_object *o = json_object_new_object();
    if (!o || !r.unavailable) {
        json_object_put(o);
        json_object_put(r.unavailable);
        return NULL;
    }
    static int cpus[PROVENANCE_MAX_CPUS];
    int count = online_cpus(&r, cpus);
    struct utsname u;
    json_object_object_add(o, "host", json_object_new_string(uname(&u) == 0 ? u.nodename : "?"));
    json_object_object_add(o, "kernel", kernel_json(&r));
    json_object_object_add(o, "cpu", cpu_json(&r, cpus, count));
    json_object_object_add(o, "frequency", frequency_json(&r, cpus, count));
    json_object_object_add(o, "memory", memory_json(&r));
    json_object_object_add(o, "numa", numa_json(&r));
    json_object_object_add(o, "topology", topology_json(&r, opt, topology_xml_out));
    json_object_object_add(o, "clocks", clocks_json(&r));
    json_object_object_add(o, "libraries", libraries_json());
    json_object_object_add(o, "build", build_json());
    json_object_object_add(o, "environment", environment_json());
    json_object *computing = json_object_new_array();
    for (int i = 0; i < opt->computing_count; i++)
        json_object_array_add(computing, json_object_new_int(opt->computing_cpus[i]));
    json_object_object_add(o, "computing_cpus", computing);
    json_object_object_add(o, "unavailable", r.unavailable);
    return o;
}
