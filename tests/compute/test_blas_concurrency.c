/* The team's BLAS concurrency check (compute/team.c): a team of several
 * threads is refused when the BLAS returns wrong products for calls made at
 * the same time, and accepted when it does not. The BLAS here is this file's
 * cblas_dgemm (a plain triple loop; the executable's definition wins over
 * the library's), which can be told to go wrong in the second thread of a
 * parallel region, as a BLAS sharing one buffer between threads does. */
#include "compute/compute.h"

#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static bool racy;

/* Column-major, no transposes: all the team asks for. The enums of the
 * CBLAS prototype are ints in every LP64 ABI. */
void cblas_dgemm(int layout, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc);
void cblas_dgemm(int layout, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc)
{
    (void)layout, (void)trans_a, (void)trans_b;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            double sum = 0;
            for (int p = 0; p < k; p++)
                sum += a[i + (size_t)p * lda] * b[p + (size_t)j * ldb];
            c[i + (size_t)j * ldc] = alpha * sum + beta * c[i + (size_t)j * ldc];
        }
    }
    if (racy && omp_in_parallel() && omp_get_thread_num() == 1)
        c[0] += 1.0; /* another thread's data in the shared buffer */
}

static compute_team *two_threads(char *error, size_t error_size)
{
    /* unbound: the check needs two threads, not two cores */
    return compute_team_create(&(compute_options){.threads = 2, .no_binding = true}, error,
                               error_size);
}

static void test_unsafe_blas_is_refused(void **state)
{
    (void)state;
    char error[1024] = "";
    racy = true;
    compute_team *team = two_threads(error, sizeof error);
    assert_null(team);
    assert_non_null(strstr(error, "gave wrong products when 2 threads called it at once"));
    assert_non_null(strstr(error, "not thread-safe"));
    assert_non_null(strstr(error, "run.threads = 1")); /* says how to run anyway */
}

static void test_safe_blas_is_accepted(void **state)
{
    (void)state;
    char error[1024] = "";
    racy = false;
    compute_team *team = two_threads(error, sizeof error);
    assert_non_null(team);
    compute_team_destroy(team);
}

static void test_one_thread_is_not_checked(void **state)
{
    (void)state;
    char error[1024] = "";
    racy = true; /* one thread never calls the BLAS concurrently */
    compute_team *team = compute_team_create(&(compute_options){.threads = 1, .no_binding = true},
                                             error, sizeof error);
    assert_non_null(team);
    compute_team_destroy(team);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unsafe_blas_is_refused),
        cmocka_unit_test(test_safe_blas_is_accepted),
        cmocka_unit_test(test_one_thread_is_not_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
