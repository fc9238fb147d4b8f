/* What the machine gives the computation: BLAS threading, CPUs, memory. */
#include "compute/compute.h"

#include <cblas.h>
#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values of openblas_get_parallel(). */
static const char *const blas_parallel_names[] = {"sequential", "pthreads", "OpenMP"};

int compute_blas_check(char *message, size_t message_size)
{
    int parallel = openblas_get_parallel();
    int threads = openblas_get_num_threads();
    const char *parallel_name =
        parallel >= 0 && parallel < (int)(sizeof blas_parallel_names / sizeof *blas_parallel_names)
            ? blas_parallel_names[parallel]
            : "unknown";
    /* A threaded build limited to one thread is as good as the serial one:
     * every dgemm then runs in the calling OpenMP thread only. */
    if (threads <= 1) {
        snprintf(message, message_size, "OpenBLAS %s build, %d thread per call (%s)", parallel_name,
                 threads, openblas_get_config());
        return 0;
    }
    snprintf(message, message_size,
             "OpenBLAS runs %d threads per call (%s build: %s); every compute thread must run a "
             "sequential dgemm. Link the serial OpenBLAS (libopenblas0-serial) or set "
             "OPENBLAS_NUM_THREADS=1",
             threads, parallel_name, openblas_get_config());
    return -1;
}

const char *compute_blas_config(void)
{
    return openblas_get_config();
}

static int compare_ints(const void *left, const void *right)
{
    int a = *(const int *)left;
    int b = *(const int *)right;
    return (a > b) - (a < b);
}

/* First allowed hardware thread of each core, via hwloc's topology. */
static int first_pu_of_each_core(hwloc_topology_t topology, const cpu_set_t *allowed, int *cpu_ids,
                                 int capacity)
{
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
    return count;
}

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
    int count = first_pu_of_each_core(topology, &allowed, cpu_ids, capacity);
    hwloc_topology_destroy(topology);
    if (count == 0) {
        snprintf(error, error_size,
                 "compute: hwloc finds no core among the %d CPUs this thread may run on",
                 CPU_COUNT(&allowed));
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
