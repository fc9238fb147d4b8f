/* One BLAS thread per call, forced through the library's descriptor
 * (compute/blas_<name>.c) and confirmed by measurement. */
#include "compute/blas_backend.h"
#include "compute/blas_cblas.h"
#include "compute/compute.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* n = 256 is large enough for every threaded BLAS to split the work (OpenBLAS
 * stays on one thread below about n = 100) and small enough that the slowest
 * BLAS (netlib, ~2 GFLOP/s) finishes a call in ~15 ms. */
enum { probe_n = 256 };
static const double background_window_s = 0.010;
static const double probe_window_s = 0.020;
/* One thread per call measures 1.0 plus noise, two threads about 2: anything
 * above 1.5 is more than one. */
static const double most_cpu_per_caller_cpu = 1.5;

typedef struct cpu_times {
    double wall_s;
    double caller_s;  /* the calling thread's CPU time */
    double process_s; /* every thread's */
} cpu_times;

static double clock_s(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static cpu_times cpu_times_now(void)
{
    return (cpu_times){
        .wall_s = clock_s(CLOCK_MONOTONIC),
        .caller_s = clock_s(CLOCK_THREAD_CPUTIME_ID),
        .process_s = clock_s(CLOCK_PROCESS_CPUTIME_ID),
    };
}

static cpu_times cpu_times_since(cpu_times start)
{
    cpu_times now = cpu_times_now();
    return (cpu_times){
        .wall_s = now.wall_s - start.wall_s,
        .caller_s = now.caller_s - start.caller_s,
        .process_s = now.process_s - start.process_s,
    };
}

/* CPU seconds per wall second that the process's other threads (an MPI
 * progress thread, a transport's poller) spend while the caller is busy: a
 * spin here, so that they compete for the cores as during the dgemms. */
static double background_cpu_per_wall(void)
{
    cpu_times start = cpu_times_now();
    double end_s = start.wall_s + background_window_s;
    while (clock_s(CLOCK_MONOTONIC) < end_s) {
    }
    cpu_times spent = cpu_times_since(start);
    double rate = (spent.process_s - spent.caller_s) / spent.wall_s;
    return rate > 0 ? rate : 0; /* below 0: the clocks' read order, not a rate */
}

/* dgemms of n = probe_n on this thread for probe_window_s: the BLAS's CPU
 * time against wall time and against this thread's own CPU time. */
static int measure_threads(compute_blas_info *info, char *message, size_t message_size)
{
    double background = background_cpu_per_wall();
    size_t elements = (size_t)probe_n * probe_n;
    double *a = malloc(3 * elements * sizeof *a);
    if (a == NULL) {
        snprintf(message, message_size, "compute: out of memory for the BLAS check");
        return -1;
    }
    double *b = a + elements;
    double *c = b + elements;
    for (size_t k = 0; k < elements; k++) {
        a[k] = (double)(k % 7) * 0.125;
        b[k] = (double)(k % 5) * 0.25;
        c[k] = 0.0;
    }
    int calls = 0;
    cpu_times start = cpu_times_now();
    cpu_times spent;
    do {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, probe_n, probe_n, probe_n, 1.0, a,
                    probe_n, b, probe_n, 0.0, c, probe_n);
        calls++;
        spent = cpu_times_since(start);
    } while (spent.wall_s < probe_window_s || calls < 2);
    free(a);
    double others_s = spent.process_s - spent.caller_s - background * spent.wall_s;
    double blas_cpu_s = spent.caller_s + (others_s > 0 ? others_s : 0);
    info->background_cpu_per_wall = background;
    info->measured_s = spent.wall_s;
    info->cpu_per_wall = blas_cpu_s / spent.wall_s;
    info->cpu_per_caller_cpu = spent.caller_s > 0 ? blas_cpu_s / spent.caller_s : 0;
    return 0;
}

/* The shared object (or program, when linked statically) cblas_dgemm is in. */
static void library_path(char *path, size_t path_size)
{
    Dl_info where;
    char resolved[PATH_MAX];
    const char *name = "unknown";
    if (dladdr((const void *)cblas_dgemm, &where) != 0 && where.dli_fname != NULL)
        name = realpath(where.dli_fname, resolved) != NULL ? resolved : where.dli_fname;
    size_t length = strnlen(name, path_size - 1);
    memcpy(path, name, length);
    path[length] = '\0';
}

static int check(compute_blas_info *info, char *message, size_t message_size)
{
    const blas_backend *backend = &compute_blas_backend;
    *info = (compute_blas_info){.name = backend->name};
    backend->version(info->version, sizeof info->version);
    library_path(info->library, sizeof info->library);
    info->threads_reported = backend->limit_to_one_thread(info->threading, sizeof info->threading);
    if (info->threads_reported < 0 || info->threads_reported > 1) {
        snprintf(message, message_size,
                 "BLAS %s (%s) cannot be held to one thread per call: %s; every compute thread "
                 "must run a sequential dgemm. Fix: %s",
                 backend->name, info->version, info->threading, backend->fix);
        return -1;
    }
    if (measure_threads(info, message, message_size) != 0)
        return -1;
    if (info->cpu_per_caller_cpu > most_cpu_per_caller_cpu) {
        snprintf(message, message_size,
                 "BLAS %s (%s, %s) runs about %.1f threads per dgemm: %.0f ms of dgemm on one "
                 "thread used %.2f CPU s per wall s, %.1f times the calling thread's CPU time "
                 "(threading: %s); every compute thread must run a sequential dgemm. Fix: %s",
                 backend->name, info->version, info->library, info->cpu_per_caller_cpu,
                 info->measured_s * 1e3, info->cpu_per_wall, info->cpu_per_caller_cpu,
                 info->threading, backend->fix);
        return -1;
    }
    info->one_thread_per_call = true;
    snprintf(message, message_size,
             "BLAS %s (%s, %s): one thread per call: %s; measured CPU/wall %.2f, %.2f times "
             "the calling thread's CPU (%.0f ms of dgemm)",
             backend->name, info->version, info->library, info->threading, info->cpu_per_wall,
             info->cpu_per_caller_cpu, info->measured_s * 1e3);
    return 0;
}

/* The check limits the library for the whole process and measures it: once
 * is enough, and a second measurement would follow dgemms whose threads may
 * still spin. */
static struct {
    bool done;
    int status;
    compute_blas_info info;
    char message[2048];
} checked;

int compute_blas_check(char *message, size_t message_size)
{
    if (!checked.done) {
        checked.status = check(&checked.info, checked.message, sizeof checked.message);
        checked.done = true;
    }
    snprintf(message, message_size, "%s", checked.message);
    return checked.status;
}

void compute_blas_get_info(compute_blas_info *info)
{
    char message[sizeof checked.message];
    (void)compute_blas_check(message, sizeof message);
    *info = checked.info;
}
