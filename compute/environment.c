/* What the machine gives the computation: CPUs (one per core) and memory. */
#include "compute/compute.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

static int compare_ints(const void *left, const void *right)
{
    int a = *(const int *)left;
    int b = *(const int *)right;
    return (a > b) - (a < b);
}

#ifdef HAVE_HWLOC

const char *compute_cpu_topology_source(void)
{
    return "hwloc";
}

/* First allowed hardware thread of each core, via hwloc's topology. Returns
 * the count, or -1 with a message. */
static int first_pu_of_each_core(const cpu_set_t *allowed, int *cpu_ids, int capacity, char *error,
                                 size_t error_size)
{
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) {
        snprintf(error, error_size, "compute: hwloc_topology_init failed");
        return -1;
    }
    if (hwloc_topology_load(topology) != 0) {
        snprintf(error, error_size, "compute: hwloc_topology_load: %s", strerror(errno));
        hwloc_topology_destroy(topology);
        return -1;
    }
    int count = 0;
    hwloc_obj_t core = NULL;
    while ((core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, core)) != NULL) {
        for (int pu = hwloc_bitmap_first(core->cpuset); pu >= 0;
             pu = hwloc_bitmap_next(core->cpuset, pu)) {
            if (pu < COMPUTE_MAX_CPUS && CPU_ISSET(pu, allowed)) {
                if (count < capacity)
                    cpu_ids[count++] = pu;
                break;
            }
        }
    }
    hwloc_topology_destroy(topology);
    return count;
}

#else

const char *compute_cpu_topology_source(void)
{
    return "sysfs";
}

/* A kernel CPU list ("0-3,8,10-11\n") as a set; CPUs beyond the set's size are
 * left out. false when the text is not such a list. */
static bool parse_cpu_list(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *cursor = text;
    while (*cursor != '\0' && *cursor != '\n') {
        char *end;
        long first = strtol(cursor, &end, 10);
        long last = first;
        if (end == cursor || first < 0)
            return false;
        if (*end == '-') {
            cursor = end + 1;
            last = strtol(cursor, &end, 10);
            if (end == cursor || last < first)
                return false;
        }
        for (long cpu = first; cpu <= last && cpu < COMPUTE_MAX_CPUS; cpu++)
            CPU_SET((int)cpu, set);
        cursor = end;
        if (*cursor == ',')
            cursor++;
        else if (*cursor != '\0' && *cursor != '\n')
            return false;
    }
    return true;
}

/* The hardware threads of cpu's core: core_cpus_list since Linux 5.6,
 * thread_siblings_list before (same content, older name). */
static int read_core_cpus(const char *cpu_dir, int cpu, cpu_set_t *core_cpus, char *error,
                          size_t error_size)
{
    static const char *const file_names[] = {"core_cpus_list", "thread_siblings_list"};
    char path[4096];
    for (size_t i = 0; i < sizeof file_names / sizeof *file_names; i++) {
        snprintf(path, sizeof path, "%s/cpu%d/topology/%s", cpu_dir, cpu, file_names[i]);
        FILE *file = fopen(path, "r");
        if (file == NULL)
            continue;
        char text[4096];
        bool parsed = fgets(text, sizeof text, file) != NULL && parse_cpu_list(text, core_cpus);
        fclose(file);
        if (!parsed) {
            snprintf(error, error_size, "compute: %s is not a CPU list (built without hwloc)",
                     path);
            return -1;
        }
        return 0;
    }
    snprintf(error, error_size,
             "compute: cannot read %s/cpu%d/topology/core_cpus_list or thread_siblings_list: %s "
             "(built without hwloc, the core topology comes from there)",
             cpu_dir, cpu, strerror(errno));
    return -1;
}

/* First allowed hardware thread of each core, from /sys: an allowed CPU is
 * the first of its core when no allowed CPU of a lower number shares it. */
static int first_pu_of_each_core(const cpu_set_t *allowed, int *cpu_ids, int capacity, char *error,
                                 size_t error_size)
{
    const char *cpu_dir = getenv("COMPUTE_SYSFS_CPU_DIR");
    if (cpu_dir == NULL || *cpu_dir == '\0')
        cpu_dir = "/sys/devices/system/cpu";
    int count = 0;
    for (int cpu = 0; cpu < COMPUTE_MAX_CPUS; cpu++) {
        if (!CPU_ISSET(cpu, allowed))
            continue;
        cpu_set_t core_cpus;
        if (read_core_cpus(cpu_dir, cpu, &core_cpus, error, error_size) != 0)
            return -1;
        bool first = true;
        for (int other = 0; other < cpu && first; other++)
            first = !(CPU_ISSET(other, &core_cpus) && CPU_ISSET(other, allowed));
        if (first && count < capacity)
            cpu_ids[count++] = cpu;
    }
    return count;
}

#endif

int compute_allowed_cpus(int *cpu_ids, int capacity, char *error, size_t error_size)
{
    if (capacity < 1) {
        snprintf(error, error_size, "compute: no room for CPU ids (capacity %d)", capacity);
        return -1;
    }
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(error, error_size, "compute: sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    int count = first_pu_of_each_core(&allowed, cpu_ids, capacity, error, error_size);
    if (count < 0)
        return -1;
    if (count == 0) {
        snprintf(error, error_size,
                 "compute: %s finds no core among the %d CPUs this thread may run on",
                 compute_cpu_topology_source(), CPU_COUNT(&allowed));
        return -1;
    }
    qsort(cpu_ids, (size_t)count, sizeof *cpu_ids, compare_ints);
    return count;
}

uint64_t compute_available_memory_bytes(void)
{
    FILE *meminfo = fopen("/proc/meminfo", "r");
    if (meminfo != NULL) {
        char line[256];
        unsigned long long kib = 0;
        bool found = false;
        while (!found && fgets(line, sizeof line, meminfo) != NULL)
            found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
        fclose(meminfo);
        if (found)
            return (uint64_t)kib * 1024u;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page_bytes = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_bytes <= 0)
        return 0;
    return (uint64_t)pages * (uint64_t)page_bytes;
}
