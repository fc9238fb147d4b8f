/* LD_PRELOAD into bench_nbc or compute_ref (tests only): every cblas_dgemm
 * call appends "PID M" to the file DGEMM_ORDER_LOG names, then runs the
 * BLAS's own, so a test can read the order in which a program computed its
 * sizes. Declared without cblas.h (enums as int, the C ABI's), so it takes
 * any CBLAS's calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef void dgemm_fn(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                      const double *a, int lda, const double *b, int ldb, double beta, double *c,
                      int ldc);

void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc);

void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc)
{
    static dgemm_fn *real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "cblas_dgemm");
    if (!real)
        abort(); /* no BLAS after the shim: nothing to measure */
    const char *path = getenv("DGEMM_ORDER_LOG");
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
    if (fd >= 0) {
        char line[64];
        int length = snprintf(line, sizeof line, "%ld %d\n", (long)getpid(), m);
        /* one write of a whole line: O_APPEND keeps processes' lines apart */
        if (write(fd, line, (size_t)length) != length)
            abort();
        close(fd);
    }
    real(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
