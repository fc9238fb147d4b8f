/* The BLAS called by several threads at once (blas_backend.h,
 * compute_blas_check_concurrency): the team runs it before it measures. */
#include "compute/blas_backend.h"
#include "compute/blas_cblas.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Several threads of one process call the BLAS at once. A build that is not
 * safe for that (OpenBLAS built USE_THREAD=0 without USE_LOCKING=1, whose
 * threads share one packing buffer) returns wrong products, and its timings
 * measure the collisions. Every thread multiplies its own matrices (a
 * shared buffer filled with the same data would hide the race) again and
 * again at the same time and compares with its product computed alone. */
enum { concurrency_n = 64, concurrency_calls = 1000 };

static void fill_matrix(double *m, size_t elements, unsigned seed)
{
    for (size_t i = 0; i < elements; i++)
        m[i] = (double)((i * 2654435761u + seed * 40503u) % 1000) / 500.0 - 1.0;
}

static void multiply_small(const double *a, const double *b, double *c)
{
    const int n = concurrency_n;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
}

int compute_blas_check_concurrency(int threads, char *error, size_t error_size)
{
    const size_t elements = (size_t)concurrency_n * concurrency_n;
    /* per thread: A, B, the product alone, the product under concurrency */
    double *m = malloc(sizeof *m * elements * 4 * (size_t)threads);
    if (!m) {
        snprintf(error, error_size, "compute: out of memory for the BLAS concurrency check");
        return -1;
    }
    for (int t = 0; t < threads; t++) {
        double *mine = m + elements * 4 * (size_t)t;
        fill_matrix(mine, elements, 2 * (unsigned)t + 1);
        fill_matrix(mine + elements, elements, 2 * (unsigned)t + 2);
        multiply_small(mine, mine + elements, mine + 2 * elements);
    }
    int wrong_calls = 0;
#pragma omp parallel num_threads(threads) reduction(+ : wrong_calls)
    {
        double *mine = m + elements * 4 * (size_t)omp_get_thread_num();
        const double *alone = mine + 2 * elements;
        double *product = mine + 3 * elements;
        for (int call = 0; call < concurrency_calls; call++) {
            multiply_small(mine, mine + elements, product);
            for (size_t e = 0; e < elements; e++) {
                if (!(fabs(product[e] - alone[e]) <= 1e-12 * (1 + fabs(alone[e])))) {
                    wrong_calls++;
                    break;
                }
            }
        }
    }
    free(m);
    if (wrong_calls == 0)
        return 0;
    snprintf(error, error_size,
             "compute: the BLAS (%s) gave wrong products when %d threads called it at once (%d "
             "of %d calls): it is not thread-safe (e.g. OpenBLAS built with USE_THREAD=0 and "
             "without USE_LOCKING=1). Use a thread-safe build: Debian libopenblas0-pthread "
             "(make BLAS=openblas-pthread), Spack openblas+locking, BLIS, MKL; or one computing "
             "thread per rank (run.threads = 1)",
             compute_blas_backend.name, threads, wrong_calls, concurrency_calls * threads);
    return -1;
}
