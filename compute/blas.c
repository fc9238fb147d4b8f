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
 * stays on one thread below about n = 100) and small enough that the netlib
 * reference BLAS (6 GFLOP/s here) finishes a call in ~6 ms. */
enum { probe_n = 256 };
static const double background_window_s = 0.010;
static const double window_s = 0.020;
/* Worker threads a BLAS started may spin for a while before they sleep, even
 * when the library is held to one thread: OpenBLAS's pthreads pool does for
 * OPENBLAS_THREAD_TIMEOUT (~0.1 s by default, 0.4 s at most). Windows are
 * measured until enough of them in a row show a single thread: 3, and at
 * least half as many as were measured before them (a threaded BLAS whose helper
 * threads lose their core to other programs shows one thread in a window now
 * and then; a pool that spun down shows one thread from then on); or until
 * the budget is spent (and at least 3 windows measured). */
enum { windows_to_pass = 3 };
static const double windows_budget_s = 0.8;
/* One thread per call measures 1.00 (no other thread of the process runs),
 * two threads about 2, and less when other programs take their cores: a
 * window above 1.1 saw more than one. */
static const double most_cpu_per_caller_cpu = 1.1;
/* Other threads busier than this before any dgemm are worth a word in a
 * refusal (an MPI progress thread). */
static const double busy_background_cpu_per_wall = 0.2;

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

/* CPU seconds per wall second that the process's other threads spend while
 * the caller spins, before any dgemm: not subtracted from the measurement
 * (a BLAS pool spinning after its start looks the same as an MPI progress
 * thread), only reported. */
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

/* dgemms of n = probe_n on this thread for window_s (one at least). */
static cpu_times dgemm_window(const double *a, const double *b, double *c)
{
    cpu_times start = cpu_times_now();
    cpu_times spent;
    do {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, probe_n, probe_n, probe_n, 1.0, a,
                    probe_n, b, probe_n, 0.0, c, probe_n);
        spent = cpu_times_since(start);
    } while (spent.wall_s < window_s);
    return spent;
}

static void add_times(cpu_times *sum, cpu_times more)
{
    sum->wall_s += more.wall_s;
    sum->caller_s += more.caller_s;
    sum->process_s += more.process_s;
}

/* The process's CPU time during windows of dgemms on this thread, against
 * wall time and against this thread's own CPU time. 0 when enough windows in
 * a row show one thread (info: their figures), 1 when they do not within the
 * budget (info: all windows'), -1 on error. */
static int measure_threads(compute_blas_info *info, char *message, size_t message_size)
{
    info->background_cpu_per_wall = background_cpu_per_wall();
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
    /* The first call allocates the BLAS's buffers and wakes its threads. */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, probe_n, probe_n, probe_n, 1.0, a,
                probe_n, b, probe_n, 0.0, c, probe_n);
    int in_a_row = 0, before_run = 0; /* windows before the current run of passes */
    bool passed = false;
    cpu_times all = {0}, passing = {0};
    /* A slow run (valgrind: a dgemm takes ~0.5 s) still gets its windows. */
    while (!passed && (all.wall_s < windows_budget_s || info->windows < windows_to_pass)) {
        cpu_times window = dgemm_window(a, b, c);
        info->windows++;
        add_times(&all, window);
        if (window.process_s <= most_cpu_per_caller_cpu * window.caller_s) {
            in_a_row++;
            add_times(&passing, window);
        } else {
            before_run += in_a_row + 1;
            in_a_row = 0;
            passing = (cpu_times){0};
        }
        passed = in_a_row >= windows_to_pass && 2 * in_a_row >= before_run;
    }
    free(a);
    cpu_times reported = passed ? passing : all;
    info->measured_s = reported.wall_s;
    info->cpu_per_wall = reported.process_s / reported.wall_s;
    info->cpu_per_caller_cpu =
        reported.process_s / (reported.caller_s > 0 ? reported.caller_s : reported.wall_s);
    return passed ? 0 : 1;
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
    int measured = measure_threads(info, message, message_size);
    if (measured < 0)
        return -1;
    if (measured > 0) {
        char busy[256] = "";
        if (info->background_cpu_per_wall > busy_background_cpu_per_wall)
            snprintf(busy, sizeof busy,
                     "; other threads of this process already used %.2f CPU s per wall s before "
                     "any dgemm: if they are not the BLAS's, run the check before starting them "
                     "(before MPI_Init)",
                     info->background_cpu_per_wall);
        snprintf(message, message_size,
                 "BLAS %s (%s, %s) runs about %.1f threads per dgemm: over %.0f ms of dgemm on "
                 "one thread the process used %.2f CPU s per wall s, %.1f times that thread's "
                 "CPU time, and not enough windows of %.0f ms in a row at most %.2f times "
                 "(threading: %s%s); every compute thread must run a sequential dgemm. Fix: %s",
                 backend->name, info->version, info->library, info->cpu_per_caller_cpu,
                 info->measured_s * 1e3, info->cpu_per_wall, info->cpu_per_caller_cpu,
                 window_s * 1e3, most_cpu_per_caller_cpu, info->threading, busy, backend->fix);
        return -1;
    }
    info->one_thread_per_call = true;
    snprintf(message, message_size,
             "BLAS %s (%s, %s): one thread per call: %s; measured CPU/wall %.2f, %.2f times "
             "the calling thread's CPU (%.0f ms of dgemm, %d windows)",
             backend->name, info->version, info->library, info->threading, info->cpu_per_wall,
             info->cpu_per_caller_cpu, info->measured_s * 1e3, info->windows);
    return 0;
}

/* The check limits the library for the whole process and measures it: once
 * is enough, and a later one would count threads started since (MPI's). */
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
