/* The OpenMP team: binding, per-thread matrices, the timed step. */
#include "compute/blas_backend.h"
#include "compute/blas_cblas.h"
#include "compute/compute.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* One per thread, on its own cache lines so that writing a time does not
 * disturb a neighbour's dgemm. */
typedef struct thread_slot {
    _Alignas(64) double *a;
    double *b;
    double *c;
    size_t capacity_n;
    size_t elements;   /* of each of a, b, c */
    size_t triad_next; /* the triad kernel streams on from here */
    pid_t tid;         /* the OS thread that was bound to cpu */
    int cpu;           /* -1 when not bound */
    int bind_error;    /* errno of the last binding, 0 when fine */
    int alloc_error;   /* errno of the last growth, 0 when fine */
    bool rebound;      /* bound again at the start of the last step */
    double step_s;
} thread_slot;

struct compute_team {
    int threads;
    compute_kernel kernel;
    double sleep_scale;
    _Atomic int64_t stolen_ns; /* sleep kernel: still to add to thread 0's step */
    bool bound;
    uint64_t memory_limit_bytes; /* 0: half of what is available */
    size_t capacity_n;           /* every thread holds at least this */
    thread_slot *slots;
    double *thread_s;
    cpu_set_t caller_affinity;
    bool caller_affinity_saved;
    char error[512];
};

static void set_error(compute_team *team, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(compute_team *team, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(team->error, sizeof team->error, format, args);
    va_end(args);
}

int64_t compute_now_ns(void)
{
    /* CLOCK_MONOTONIC_RAW is not slewed by NTP (an adjtime within a step
     * would bias it); CLOCK_MONOTONIC where a kernel lacks it. */
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC_RAW, &now) != 0)
        clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

double compute_gflops(size_t matrix_n, double t_s)
{
    double n = (double)matrix_n;
    return t_s > 0 ? 2.0 * n * n * n / t_s / 1e9 : 0.0;
}

uint64_t compute_matrix_bytes(int threads, size_t matrix_n)
{
    return (uint64_t)threads * 3u * (uint64_t)matrix_n * matrix_n * sizeof(double);
}

/* Binds the calling thread to its slot's CPU and records which OS thread it
 * is, so a step can tell when libgomp hands the slot to another thread. A BLAS
 * that keeps its thread count per thread is told one thread here, by every
 * (new) OS thread of the team. */
static void bind_current_thread(const compute_team *team, thread_slot *slot)
{
    slot->tid = gettid();
    slot->bind_error = 0;
    if (compute_blas_backend.limit_calling_thread != NULL)
        compute_blas_backend.limit_calling_thread();
    if (!team->bound)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(slot->cpu, &set);
    slot->bind_error = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* libgomp keeps its threads between parallel regions of the same size, so
 * the binding made at creation normally holds; this catches the cases where
 * it does not (a new pool after a region of another size, or someone else
 * changing the affinity). sched_getcpu is a vDSO call: cheap enough per step. */
static bool binding_holds(const compute_team *team, const thread_slot *slot)
{
    if (slot->tid != gettid())
        return false;
    return !team->bound || sched_getcpu() == slot->cpu;
}

static int validate_options(const compute_options *options, int allowed_count, char *error,
                            size_t error_size)
{
    if (options->threads < 1 || options->threads > COMPUTE_MAX_CPUS) {
        snprintf(error, error_size, "compute: threads = %d, allowed: 1 to %d", options->threads,
                 COMPUTE_MAX_CPUS);
        return -1;
    }
    if (options->no_binding)
        return 0;
    if (options->cpu_ids == NULL) {
        if (options->threads > allowed_count) {
            snprintf(error, error_size,
                     "compute: threads = %d but only %d cores are allowed for this process "
                     "(one thread per core)",
                     options->threads, allowed_count);
            return -1;
        }
        return 0;
    }
    for (int i = 0; i < options->threads; i++) {
        int cpu = options->cpu_ids[i];
        if (cpu < 0 || cpu >= COMPUTE_MAX_CPUS) {
            snprintf(error, error_size, "compute: CPU id %d (thread %d) out of range 0 to %d", cpu,
                     i, COMPUTE_MAX_CPUS - 1);
            return -1;
        }
        for (int j = 0; j < i; j++) {
            if (options->cpu_ids[j] == cpu) {
                snprintf(error, error_size,
                         "compute: CPU %d given to threads %d and %d; one thread per core", cpu, j,
                         i);
                return -1;
            }
        }
    }
    return 0;
}

compute_team *compute_team_create(const compute_options *options, char *error, size_t error_size)
{
    int allowed[COMPUTE_MAX_CPUS];
    int allowed_count = 0;
    if (!options->no_binding && options->cpu_ids == NULL) {
        allowed_count = compute_allowed_cpus(allowed, COMPUTE_MAX_CPUS, error, error_size);
        if (allowed_count < 0)
            return NULL;
    }
    if (validate_options(options, allowed_count, error, error_size) != 0)
        return NULL;

    compute_team *team = calloc(1, sizeof *team);
    if (team == NULL) {
        snprintf(error, error_size, "compute: out of memory for the team");
        return NULL;
    }
    team->threads = options->threads;
    team->kernel = options->kernel;
    team->sleep_scale = options->sleep_scale > 0 ? options->sleep_scale : 1.0;
    team->bound = !options->no_binding;
    team->memory_limit_bytes = options->memory_limit_bytes;
    team->slots = aligned_alloc(64, sizeof(thread_slot) * (size_t)team->threads);
    team->thread_s = calloc((size_t)team->threads, sizeof(double));
    if (team->slots == NULL || team->thread_s == NULL) {
        snprintf(error, error_size, "compute: out of memory for %d thread slots", team->threads);
        compute_team_destroy(team);
        return NULL;
    }
    memset(team->slots, 0, sizeof(thread_slot) * (size_t)team->threads);
    for (int i = 0; i < team->threads; i++) {
        const int *cpus = options->cpu_ids != NULL ? options->cpu_ids : allowed;
        team->slots[i].cpu = team->bound ? cpus[i] : -1;
    }
    if (team->bound) {
        int rc = pthread_getaffinity_np(pthread_self(), sizeof team->caller_affinity,
                                        &team->caller_affinity);
        if (rc != 0) {
            snprintf(error, error_size, "compute: pthread_getaffinity_np: %s", strerror(rc));
            compute_team_destroy(team);
            return NULL;
        }
        team->caller_affinity_saved = true;
    }

    int got_threads = 0;
#pragma omp parallel num_threads(team->threads)
    {
#pragma omp single
        got_threads = omp_get_num_threads();
        if (got_threads == team->threads)
            bind_current_thread(team, &team->slots[omp_get_thread_num()]);
    }
    if (got_threads != team->threads) {
        snprintf(error, error_size,
                 "compute: OpenMP gave %d threads instead of %d (nested region, OMP_DYNAMIC or "
                 "OMP_THREAD_LIMIT?)",
                 got_threads, team->threads);
        compute_team_destroy(team);
        return NULL;
    }
    for (int i = 0; i < team->threads; i++) {
        if (team->slots[i].bind_error != 0) {
            snprintf(error, error_size, "compute: cannot bind thread %d to CPU %d: %s", i,
                     team->slots[i].cpu, strerror(team->slots[i].bind_error));
            compute_team_destroy(team);
            return NULL;
        }
    }
    if (team->kernel == COMPUTE_KERNEL_GEMM && team->threads > 1 &&
        compute_blas_check_concurrency(team->threads, error, error_size) != 0) {
        compute_team_destroy(team);
        return NULL;
    }
    return team;
}

void compute_team_destroy(compute_team *team)
{
    if (team == NULL)
        return;
    if (team->slots != NULL) {
        for (int i = 0; i < team->threads; i++) {
            free(team->slots[i].a);
            free(team->slots[i].b);
            free(team->slots[i].c);
        }
    }
    if (team->caller_affinity_saved)
        (void)pthread_setaffinity_np(pthread_self(), sizeof team->caller_affinity,
                                     &team->caller_affinity);
    free(team->slots);
    free(team->thread_s);
    free(team);
}

int compute_team_threads(const compute_team *team)
{
    return team->threads;
}

int compute_team_cpu(const compute_team *team, int thread)
{
    if (thread < 0 || thread >= team->threads)
        return -1;
    return team->slots[thread].cpu;
}

long compute_team_tid(const compute_team *team, int thread)
{
    return thread >= 0 && thread < team->threads ? (long)team->slots[thread].tid : 0;
}

const char *compute_team_error(const compute_team *team)
{
    return team->error;
}

size_t compute_team_matrices(const compute_team *team, int thread, const double **a,
                             const double **b, const double **c)
{
    if (thread < 0 || thread >= team->threads)
        return 0;
    const thread_slot *slot = &team->slots[thread];
    *a = slot->a;
    *b = slot->b;
    *c = slot->c;
    return slot->capacity_n;
}

static uint64_t memory_limit_bytes(const compute_team *team)
{
    if (team->memory_limit_bytes != 0)
        return team->memory_limit_bytes;
    /* Half of what is free, so the collective's buffers and the rest of the
     * node still fit; what the team holds is freed before it grows. */
    return compute_available_memory_bytes() / 2 +
           compute_matrix_bytes(team->threads, team->capacity_n);
}

size_t compute_team_max_matrix_n(const compute_team *team)
{
    if (team->kernel != COMPUTE_KERNEL_GEMM) /* fixed memory whatever n */
        return (size_t)1 << 20;
    uint64_t per_n_squared = compute_matrix_bytes(team->threads, 1);
    uint64_t most_n_squared = memory_limit_bytes(team) / per_n_squared;
    size_t n = (size_t)sqrt((double)most_n_squared);
    /* sqrt in double may be one off either way for large values. */
    while (n > 0 && (uint64_t)n * n > most_n_squared)
        n--;
    while ((uint64_t)(n + 1) * (n + 1) <= most_n_squared)
        n++;
    return n;
}

/* Deterministic values of order 1 (no denormals, no overflow however many
 * steps run), different for each thread. */
static void first_touch(thread_slot *slot, size_t elements, int thread)
{
    for (size_t k = 0; k < elements; k++) {
        slot->a[k] = (double)((k * 37 + (size_t)thread * 11) % 101) / 101.0 - 0.5;
        slot->b[k] = (double)((k * 53 + (size_t)thread * 7) % 97) / 97.0 - 0.5;
        slot->c[k] = 0.0;
    }
}

/* Elements of each of A, B, C a thread needs for size n: the matrices, the
 * triad's fixed arrays, or one element for the sleep kernel. */
static size_t slot_elements(compute_kernel kernel, size_t matrix_n)
{
    return kernel == COMPUTE_KERNEL_GEMM    ? matrix_n * matrix_n
           : kernel == COMPUTE_KERNEL_TRIAD ? COMPUTE_TRIAD_ELEMENTS
                                            : 1;
}

/* Runs in the thread that owns the slot, so the pages land on its NUMA node. */
static void grow_slot(thread_slot *slot, compute_kernel kernel, size_t matrix_n, int thread)
{
    size_t elements = slot_elements(kernel, matrix_n);
    if (elements <= slot->elements) { /* the triad and sleep kernels: any n */
        slot->capacity_n = matrix_n;
        return;
    }
    size_t bytes = (elements * sizeof(double) + 63) / 64 * 64; /* aligned_alloc wants a multiple */
    double *a = aligned_alloc(64, bytes);
    double *b = aligned_alloc(64, bytes);
    double *c = aligned_alloc(64, bytes);
    if (a == NULL || b == NULL || c == NULL) {
        free(a);
        free(b);
        free(c);
        slot->alloc_error = ENOMEM;
        return;
    }
    free(slot->a);
    free(slot->b);
    free(slot->c);
    slot->a = a;
    slot->b = b;
    slot->c = c;
    slot->capacity_n = matrix_n;
    slot->elements = elements;
    slot->triad_next = 0;
    first_touch(slot, elements, thread);
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

int compute_team_reserve(compute_team *team, size_t matrix_n)
{
    if (matrix_n < 1) {
        set_error(team, "compute: matrix n = 0, must be >= 1");
        return -1;
    }
    if (matrix_n <= team->capacity_n)
        return 0;
    uint64_t needed =
        (uint64_t)team->threads * 3u * slot_elements(team->kernel, matrix_n) * sizeof(double);
    uint64_t limit = memory_limit_bytes(team);
    if (needed > limit) {
        set_error(team,
                  "compute: matrices of n = %zu for %d threads need %.1f MiB, more than the "
                  "%.1f MiB allowed (largest n: %zu)",
                  matrix_n, team->threads, mib(needed), mib(limit),
                  compute_team_max_matrix_n(team));
        return -1;
    }
#pragma omp parallel num_threads(team->threads)
    {
        int thread = omp_get_thread_num();
        thread_slot *slot = &team->slots[thread];
        if (!binding_holds(team, slot))
            bind_current_thread(team, slot);
        slot->alloc_error = 0;
        if (slot->capacity_n < matrix_n)
            grow_slot(slot, team->kernel, matrix_n, thread);
    }
    size_t capacity_n = matrix_n;
    int failed_thread = -1;
    for (int i = 0; i < team->threads; i++) {
        if (team->slots[i].capacity_n < capacity_n)
            capacity_n = team->slots[i].capacity_n;
        if (team->slots[i].alloc_error != 0 && failed_thread < 0)
            failed_thread = i;
    }
    team->capacity_n = capacity_n;
    if (failed_thread >= 0) {
        set_error(team, "compute: thread %d could not allocate its n = %zu matrices: %s",
                  failed_thread, matrix_n, strerror(team->slots[failed_thread].alloc_error));
        return -1;
    }
    if (capacity_n < matrix_n) {
        set_error(team, "compute: OpenMP ran fewer than %d threads; some have no matrices",
                  team->threads);
        return -1;
    }
    return 0;
}

/* C[:, first:end) = A * B[:, first:end), column-major, leading dimension n:
 * the panels of one step add up to exactly the flops of the whole product. */
static void multiply_columns(thread_slot *slot, size_t matrix_n, size_t first, size_t end)
{
    if (end <= first)
        return;
    int n = (int)matrix_n;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, (int)(end - first), n, 1.0, slot->a,
                n, slot->b + first * matrix_n, n, 0.0, slot->c + first * matrix_n, n);
}

/* The triad kernel's share of a step for columns [first, end) of n: the
 * step's n^3 / 8 element updates split like the dgemm's columns, streaming
 * on through the thread's arrays from where its last step stopped. */
static void triad_columns(thread_slot *slot, size_t matrix_n, size_t first, size_t end)
{
    size_t updates = matrix_n * matrix_n * (end - first) / 8;
    const double scale = 0.5;
    size_t at = slot->triad_next;
    while (updates > 0) {
        size_t run = slot->elements - at < updates ? slot->elements - at : updates;
        double *restrict a = slot->a + at;
        const double *restrict b = slot->b + at, *restrict c = slot->c + at;
        for (size_t i = 0; i < run; i++)
            a[i] = b[i] + scale * c[i];
        updates -= run;
        at = (at + run) % slot->elements;
    }
    slot->triad_next = at;
}

static void sleep_until_ns(int64_t until_ns)
{
    for (int64_t left_ns; (left_ns = until_ns - compute_now_ns()) > 0;) {
        struct timespec ts = {.tv_sec = left_ns / 1000000000, .tv_nsec = left_ns % 1000000000};
        nanosleep(&ts, NULL);
    }
}

/* The sleep kernel's stand-in for multiply_columns: as long as those
 * columns' 2 n^2 (end - first) flops would take at its pace. */
static int64_t sleep_columns_ns(const compute_team *team, size_t matrix_n, size_t first, size_t end)
{
    double flops = 2.0 * (double)matrix_n * (double)matrix_n * (double)(end - first);
    return (int64_t)(flops / COMPUTE_SLEEP_FLOPS_PER_S * 1e9 * team->sleep_scale);
}

compute_kernel compute_team_kernel(const compute_team *team)
{
    return team->kernel;
}

void compute_team_add_stolen_ns(compute_team *team, int64_t stolen_ns)
{
    atomic_fetch_add(&team->stolen_ns, stolen_ns);
}

void compute_team_clear_stolen(compute_team *team)
{
    atomic_store(&team->stolen_ns, 0);
}

static void run_thread(compute_team *team, size_t matrix_n, int chunks,
                       compute_between_chunks_fn between_chunks, void *context)
{
    int thread = omp_get_thread_num();
    thread_slot *slot = &team->slots[thread];
    slot->rebound = !binding_holds(team, slot);
    if (slot->rebound)
        bind_current_thread(team, slot);
    bool sleeping = team->kernel == COMPUTE_KERNEL_SLEEP;
    /* The sleep kernel sleeps to deadlines from the step's start, so a step
     * overshoots once (the timer slack at its minimum), however it is split. */
    if (sleeping)
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    int64_t start_ns = compute_now_ns();
    int64_t due_ns = start_ns;
    for (int chunk = 0; chunk < chunks; chunk++) {
        size_t first = matrix_n * (size_t)chunk / (size_t)chunks;
        size_t end = matrix_n * (size_t)(chunk + 1) / (size_t)chunks;
        if (sleeping) {
            due_ns += sleep_columns_ns(team, matrix_n, first, end);
            sleep_until_ns(due_ns);
        } else if (team->kernel == COMPUTE_KERNEL_TRIAD) {
            triad_columns(slot, matrix_n, first, end);
        } else {
            multiply_columns(slot, matrix_n, first, end);
        }
        if (thread == 0 && between_chunks != NULL && chunk + 1 < chunks)
            between_chunks(context);
    }
    /* A modelled steal: the core was taken for that long during the step. */
    for (int64_t stolen_ns;
         thread == 0 && sleeping && (stolen_ns = atomic_exchange(&team->stolen_ns, 0)) > 0;) {
        due_ns += stolen_ns;
        sleep_until_ns(due_ns);
    }
    slot->step_s = (double)(compute_now_ns() - start_ns) / 1e9;
}

int compute_step_chunked(compute_team *team, size_t matrix_n, int chunks,
                         compute_between_chunks_fn between_chunks, void *context,
                         compute_step_timing *timing)
{
    if (matrix_n < 1 || matrix_n > team->capacity_n) {
        set_error(team, "compute: step at n = %zu but the matrices hold n = 1 to %zu", matrix_n,
                  team->capacity_n);
        return -1;
    }
    if (chunks < 1) {
        set_error(team, "compute: chunks = %d, must be >= 1", chunks);
        return -1;
    }
    int got_threads = 0;
    int64_t start_ns = compute_now_ns();
#pragma omp parallel num_threads(team->threads)
    {
        if (omp_get_thread_num() == 0)
            got_threads = omp_get_num_threads();
        run_thread(team, matrix_n, chunks, between_chunks, context);
    }
    int64_t end_ns = compute_now_ns();

    if (got_threads != team->threads) {
        set_error(team, "compute: OpenMP ran %d threads instead of %d", got_threads, team->threads);
        return -1;
    }
    *timing = (compute_step_timing){
        .matrix_n = matrix_n,
        .threads = team->threads,
        .chunks = chunks,
        .start_ns = start_ns,
        .end_ns = end_ns,
        .step_s = (double)(end_ns - start_ns) / 1e9,
        .thread_s = team->thread_s,
    };
    for (int i = 0; i < team->threads; i++) {
        const thread_slot *slot = &team->slots[i];
        if (slot->rebound && slot->bind_error != 0) {
            set_error(team, "compute: cannot bind thread %d to CPU %d again: %s", i, slot->cpu,
                      strerror(slot->bind_error));
            return -1;
        }
        team->thread_s[i] = slot->step_s;
        if (slot->step_s > timing->slowest_thread_s)
            timing->slowest_thread_s = slot->step_s;
        timing->threads_rebound += slot->rebound;
    }
    return 0;
}

int compute_step(compute_team *team, size_t matrix_n, compute_step_timing *timing)
{
    return compute_step_chunked(team, matrix_n, 1, NULL, NULL, timing);
}

int compute_measure_local(void *team, size_t matrix_n, double *t_s)
{
    compute_step_timing timing;
    if (compute_team_reserve(team, matrix_n) != 0 || compute_step(team, matrix_n, &timing) != 0)
        return -1;
    *t_s = timing.step_s;
    return 0;
}
