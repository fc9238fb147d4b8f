/* Unit tests of compute/: the team (binding, per-thread matrices, timing,
 * chunked step, memory limit), the allowed CPUs and the BLAS check. */
#include "compute/compute.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

typedef struct fixture {
    cpu_set_t original_mask; /* the test's, before any team bound it */
    int cpus[COMPUTE_MAX_CPUS];
    int cpu_count;
    compute_team *team; /* one thread per allowed core */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    char error[512];
    if (sched_getaffinity(0, sizeof f->original_mask, &f->original_mask) != 0) {
        free(f);
        return -1;
    }
    f->cpu_count = compute_allowed_cpus(f->cpus, COMPUTE_MAX_CPUS, error, sizeof error);
    if (f->cpu_count < 1) {
        fprintf(stderr, "%s\n", error);
        free(f);
        return -1;
    }
    compute_options options = {.threads = f->cpu_count};
    f->team = compute_team_create(&options, error, sizeof error);
    if (f->team == NULL) {
        fprintf(stderr, "%s\n", error);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    compute_team_destroy(f->team);
    free(f);
    return 0;
}

/* The build's BLAS runs one thread per call (the tests run it serial or
 * limited), says what it is, and the measurement agrees. */
static void test_blas_one_thread_per_call(void **state)
{
    (void)state;
    char message[2048];
    assert_int_equal(compute_blas_check(message, sizeof message), 0);
    assert_non_null(strstr(message, "one thread per call"));
    compute_blas_info info;
    compute_blas_get_info(&info);
    assert_true(info.one_thread_per_call);
    assert_non_null(strstr(message, info.name));
    assert_true(strlen(info.version) > 0 && strlen(info.threading) > 0);
    assert_int_equal(access(info.library, R_OK), 0);
    assert_true(info.threads_reported == 0 || info.threads_reported == 1);
    assert_true(info.measured_s >= 0.02 && info.windows >= 1);
    assert_true(info.cpu_per_caller_cpu > 0.5 && info.cpu_per_caller_cpu <= 1.1);
    /* The calling thread's CPU time is at most the wall time (to the clocks'
     * read order): CPU/wall cannot exceed CPU/caller CPU. */
    assert_true(info.cpu_per_wall > 0 && info.cpu_per_wall <= info.cpu_per_caller_cpu * 1.01);
    assert_true(info.background_cpu_per_wall >= 0);
    /* Measured once per process: a second call says the same. */
    char again[2048];
    assert_int_equal(compute_blas_check(again, sizeof again), 0);
    assert_string_equal(again, message);
    const char *source = compute_cpu_topology_source();
    assert_true(strcmp(source, "hwloc") == 0 || strcmp(source, "sysfs") == 0);
}

static bool smt_active(void)
{
    FILE *file = fopen("/sys/devices/system/cpu/smt/active", "r");
    int active = 0;
    if (file != NULL) {
        if (fscanf(file, "%d", &active) != 1)
            active = 0;
        fclose(file);
    }
    return active == 1;
}

static void test_allowed_cpus_follow_affinity(void **state)
{
    fixture *f = *state;
    /* Allowed, increasing; without SMT, one CPU per core is the whole mask. */
    for (int i = 0; i < f->cpu_count; i++) {
        assert_true(CPU_ISSET(f->cpus[i], &f->original_mask));
        if (i > 0)
            assert_true(f->cpus[i] > f->cpus[i - 1]);
    }
    if (!smt_active())
        assert_int_equal(f->cpu_count, CPU_COUNT(&f->original_mask));

    /* The team bound this thread to cpus[0]: that is all it may use now. */
    int cpus[COMPUTE_MAX_CPUS];
    char error[512];
    assert_int_equal(compute_allowed_cpus(cpus, COMPUTE_MAX_CPUS, error, sizeof error), 1);
    assert_int_equal(cpus[0], f->cpus[0]);

    /* Restricted to its last core, the thread gets exactly that core. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(f->cpus[f->cpu_count - 1], &one);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
    int count = compute_allowed_cpus(cpus, COMPUTE_MAX_CPUS, error, sizeof error);
    CPU_ZERO(&one);
    CPU_SET(f->cpus[0], &one);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
    assert_int_equal(count, 1);
    assert_int_equal(cpus[0], f->cpus[f->cpu_count - 1]);
    assert_int_equal(compute_allowed_cpus(cpus, 0, error, sizeof error), -1);
}

static void expect_create_fails(const compute_options *options, const char *expected)
{
    char error[512] = "";
    compute_team *team = compute_team_create(options, error, sizeof error);
    if (team != NULL)
        compute_team_destroy(team);
    assert_null(team);
    if (strstr(error, expected) == NULL)
        fail_msg("error '%s' does not contain '%s'", error, expected);
}

static void test_bad_options_refused(void **state)
{
    fixture *f = *state;
    expect_create_fails(&(compute_options){.threads = 0}, "threads = 0");
    expect_create_fails(&(compute_options){.threads = f->cpu_count + 1}, "cores are allowed");
    int same[] = {f->cpus[0], f->cpus[0]};
    expect_create_fails(&(compute_options){.threads = 2, .cpu_ids = same}, "given to threads 0");
    int outside[] = {COMPUTE_MAX_CPUS - 1};
    expect_create_fails(&(compute_options){.threads = 1, .cpu_ids = outside}, "cannot bind");
}

/* Every thread of the team runs where it was bound, with a one-CPU mask. */
static void test_threads_bound_to_their_cpus(void **state)
{
    fixture *f = *state;
    int threads = compute_team_threads(f->team);
    assert_int_equal(threads, f->cpu_count);
    int wrong = 0;
#pragma omp parallel num_threads(threads) reduction(+ : wrong)
    {
        int cpu = compute_team_cpu(f->team, omp_get_thread_num());
        cpu_set_t mask;
        if (pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) != 0 ||
            CPU_COUNT(&mask) != 1 || !CPU_ISSET(cpu, &mask) || sched_getcpu() != cpu)
            wrong++;
    }
    assert_int_equal(wrong, 0);
    for (int i = 0; i < threads; i++)
        assert_int_equal(compute_team_cpu(f->team, i), f->cpus[i]);
    assert_int_equal(compute_team_cpu(f->team, threads), -1);
}

/* Moved off its CPU, a thread is bound again by the next step, which says so. */
static void test_step_restores_binding(void **state)
{
    fixture *f = *state;
    if (f->cpu_count < 2)
        skip();
    assert_int_equal(compute_team_reserve(f->team, 32), 0);
    compute_step_timing timing;
    assert_int_equal(compute_step(f->team, 32, &timing), 0);
    assert_int_equal(timing.threads_rebound, 0);

    cpu_set_t elsewhere;
    CPU_ZERO(&elsewhere);
    CPU_SET(f->cpus[1], &elsewhere); /* thread 0 is the caller, bound to cpus[0] */
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof elsewhere, &elsewhere), 0);
    assert_int_equal(sched_getcpu(), f->cpus[1]);
    assert_int_equal(compute_step(f->team, 32, &timing), 0);
    assert_int_equal(timing.threads_rebound, 1);
    assert_int_equal(sched_getcpu(), f->cpus[0]);
    assert_int_equal(compute_step(f->team, 32, &timing), 0);
    assert_int_equal(timing.threads_rebound, 0);
}

/* Destroying a team gives the caller back its own affinity. */
static void test_destroy_restores_caller_affinity(void **state)
{
    fixture *f = *state;
    cpu_set_t before = f->original_mask, after; /* wider than the fixture team's binding */
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof before, &before), 0);
    char error[512];
    compute_team *team = compute_team_create(&(compute_options){.threads = 1}, error, sizeof error);
    assert_non_null(team);
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
    assert_int_equal(CPU_COUNT(&after), 1);
    assert_true(CPU_ISSET(f->cpus[0], &after));
    compute_team_destroy(team);
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&before, &after));
    /* Back to the fixture team's binding (its steps would redo it anyway). */
    CPU_ZERO(&after);
    CPU_SET(f->cpus[0], &after);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof after, &after), 0);
}

/* C = A * B by the textbook loop, column-major. */
static double max_relative_difference(const double *a, const double *b, const double *c, size_t n)
{
    double worst = 0;
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++) {
            double sum = 0, magnitude = 0;
            for (size_t k = 0; k < n; k++) {
                sum += a[i + k * n] * b[k + j * n];
                magnitude += fabs(a[i + k * n] * b[k + j * n]);
            }
            double difference = fabs(c[i + j * n] - sum) / (magnitude > 0 ? magnitude : 1);
            if (difference > worst)
                worst = difference;
        }
    }
    return worst;
}

/* Each thread has its own aligned matrices and its own, correct, product. */
static void test_per_thread_matrices(void **state)
{
    fixture *f = *state;
    const size_t n = 23;
    assert_int_equal(compute_team_reserve(f->team, n), 0);
    compute_step_timing timing;
    assert_int_equal(compute_step(f->team, n, &timing), 0);
    int threads = compute_team_threads(f->team);
    const double *previous_c = NULL;
    for (int i = 0; i < threads; i++) {
        const double *a, *b, *c;
        assert_true(compute_team_matrices(f->team, i, &a, &b, &c) >= n);
        assert_int_equal((uintptr_t)a % 64, 0);
        assert_int_equal((uintptr_t)b % 64, 0);
        assert_int_equal((uintptr_t)c % 64, 0);
        assert_true(a != b && b != c && c != a);
        assert_true(max_relative_difference(a, b, c, n) < 1e-12);
        if (previous_c != NULL) {
            assert_true(c != previous_c);
            assert_true(memcmp(c, previous_c, n * n * sizeof *c) != 0);
        }
        previous_c = c;
    }
    const double *a, *b, *c;
    assert_int_equal(compute_team_matrices(f->team, threads, &a, &b, &c), 0);
}

static void test_step_time_is_the_slowest_thread(void **state)
{
    fixture *f = *state;
    const size_t n = 200;
    assert_int_equal(compute_team_reserve(f->team, n), 0);
    for (int rep = 0; rep < 5; rep++) {
        compute_step_timing timing;
        assert_int_equal(compute_step(f->team, n, &timing), 0);
        assert_int_equal(timing.matrix_n, n);
        assert_int_equal(timing.threads, compute_team_threads(f->team));
        assert_int_equal(timing.chunks, 1);
        assert_true(timing.end_ns > timing.start_ns);
        assert_true(fabs(timing.step_s - (double)(timing.end_ns - timing.start_ns) / 1e9) < 1e-9);
        double slowest = 0;
        for (int i = 0; i < timing.threads; i++) {
            assert_true(timing.thread_s[i] > 0);
            assert_true(timing.step_s >= timing.thread_s[i]);
            slowest = fmax(slowest, timing.thread_s[i]);
        }
        assert_true(timing.slowest_thread_s == slowest);
    }
}

typedef struct callback_record {
    int calls;
    int calls_off_thread_0;
} callback_record;

static void count_call(void *context)
{
    callback_record *record = context;
    record->calls++;
    if (omp_get_thread_num() != 0)
        record->calls_off_thread_0++;
}

/* The chunked step calls back K - 1 times from thread 0 and computes the
 * same C as the whole step, however K relates to n (even K > n). */
static void test_chunked_step(void **state)
{
    fixture *f = *state;
    const size_t n = 50;
    assert_int_equal(compute_team_reserve(f->team, n), 0);
    int threads = compute_team_threads(f->team);
    compute_step_timing timing;
    assert_int_equal(compute_step(f->team, n, &timing), 0);
    double *whole = malloc(sizeof *whole * n * n * (size_t)threads);
    assert_non_null(whole);
    for (int i = 0; i < threads; i++) {
        const double *a, *b, *c;
        compute_team_matrices(f->team, i, &a, &b, &c);
        memcpy(whole + (size_t)i * n * n, c, sizeof *c * n * n);
    }
    const int chunk_counts[] = {1, 2, 3, 7, 64};
    for (size_t k = 0; k < sizeof chunk_counts / sizeof *chunk_counts; k++) {
        int chunks = chunk_counts[k];
        for (int i = 0; i < threads; i++) { /* so a skipped panel would show */
            const double *a, *b, *c;
            compute_team_matrices(f->team, i, &a, &b, &c);
            memset((double *)c, 0xff, sizeof *c * n * n);
        }
        callback_record record = {0, 0};
        assert_int_equal(compute_step_chunked(f->team, n, chunks, count_call, &record, &timing), 0);
        assert_int_equal(record.calls, chunks - 1);
        assert_int_equal(record.calls_off_thread_0, 0);
        assert_int_equal(timing.chunks, chunks);
        for (int i = 0; i < threads; i++) {
            const double *a, *b, *c;
            compute_team_matrices(f->team, i, &a, &b, &c);
            const double *expected = whole + (size_t)i * n * n;
            for (size_t e = 0; e < n * n; e++) {
                if (!(fabs(c[e] - expected[e]) <= 1e-12 * (1 + fabs(expected[e]))))
                    fail_msg("chunks %d thread %d element %zu: %g, unchunked %g", chunks, i, e,
                             c[e], expected[e]);
            }
        }
    }
    free(whole);
    assert_int_equal(compute_step_chunked(f->team, n, 0, NULL, NULL, &timing), -1);
    assert_non_null(strstr(compute_team_error(f->team), "chunks = 0"));
}

/* The memory limit is checked before allocating; a refused growth keeps the
 * old matrices usable. */
/* The triad kernel: a step at n updates a[i] = b[i] + c[i] / 2 for n^3 / 8
 * elements (c starts at 0: a becomes b), and the next step streams on from
 * there, split into chunks or not; its arrays do not grow with n. */
static void test_triad_streams_on(void **state)
{
    (void)state;
    char error[512];
    compute_team *team = compute_team_create(
        &(compute_options){.threads = 1, .no_binding = true, .kernel = COMPUTE_KERNEL_TRIAD}, error,
        sizeof error);
    assert_non_null(team);
    const size_t n = 64, per_step = n * n * n / 8;
    assert_int_equal(compute_team_reserve(team, n), 0);
    const double *a, *b, *c;
    compute_team_matrices(team, 0, &a, &b, &c);
    compute_step_timing timing;
    assert_int_equal(compute_step(team, n, &timing), 0);
    for (size_t i = 0; i < per_step; i++)
        assert_true(a[i] == b[i] + 0.5 * c[i]);
    assert_true(a[per_step] != b[per_step]); /* not yet reached */
    assert_int_equal(compute_step_chunked(team, n, 7, NULL, NULL, &timing), 0);
    for (size_t i = per_step; i < 2 * per_step; i++)
        assert_true(a[i] == b[i] + 0.5 * c[i]);
    assert_true(a[2 * per_step] != b[2 * per_step]);
    /* a larger n needs no more memory */
    assert_int_equal(compute_team_reserve(team, 4096), 0);
    const double *a2, *b2, *c2;
    compute_team_matrices(team, 0, &a2, &b2, &c2);
    assert_ptr_equal(a2, a);
    compute_team_destroy(team);
}

static void test_memory_limit(void **state)
{
    (void)state;
    char error[512];
    compute_options options = {.threads = 1, .memory_limit_bytes = 1 << 20};
    compute_team *team = compute_team_create(&options, error, sizeof error);
    assert_non_null(team);
    size_t max_n = compute_team_max_matrix_n(team);
    assert_int_equal(max_n, 209); /* 3 * 8 * 209^2 <= 1 MiB < 3 * 8 * 210^2 */
    assert_true(compute_matrix_bytes(1, max_n) <= options.memory_limit_bytes);
    assert_true(compute_matrix_bytes(1, max_n + 1) > options.memory_limit_bytes);
    assert_int_equal(compute_team_reserve(team, max_n), 0);
    assert_int_equal(compute_team_reserve(team, max_n + 1), -1);
    assert_non_null(strstr(compute_team_error(team), "MiB allowed"));
    compute_step_timing timing;
    assert_int_equal(compute_step(team, max_n + 1, &timing), -1);
    assert_non_null(strstr(compute_team_error(team), "n = 1 to 209"));
    assert_int_equal(compute_step(team, max_n, &timing), 0);
    compute_team_destroy(team);

    /* The default limit follows the memory available. */
    options.memory_limit_bytes = 0;
    team = compute_team_create(&options, error, sizeof error);
    assert_non_null(team);
    uint64_t available = compute_available_memory_bytes();
    assert_true(available > 0);
    assert_true(compute_matrix_bytes(1, compute_team_max_matrix_n(team)) <= available);
    assert_int_equal(compute_team_reserve(team, 0), -1);
    compute_team_destroy(team);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blas_one_thread_per_call),
        cmocka_unit_test(test_allowed_cpus_follow_affinity),
        cmocka_unit_test(test_bad_options_refused),
        cmocka_unit_test(test_threads_bound_to_their_cpus),
        cmocka_unit_test(test_step_restores_binding),
        cmocka_unit_test(test_destroy_restores_caller_affinity),
        cmocka_unit_test(test_per_thread_matrices),
        cmocka_unit_test(test_step_time_is_the_slowest_thread),
        cmocka_unit_test(test_chunked_step),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_triad_streams_on),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
