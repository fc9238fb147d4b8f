/* compute/ internal: one descriptor per BLAS library. compute/blas_<name>.c
 * defines compute_blas_backend for one library; the build compiles only the
 * one `make BLAS=<name>` selects (compute/blas.mk), so no code asks which
 * BLAS it runs on. compute_blas_check (compute/blas.c) drives it. */
#ifndef COMPUTE_BLAS_BACKEND_H
#define COMPUTE_BLAS_BACKEND_H

#include <stddef.h>

typedef struct blas_backend {
    /* As in `make BLAS=`: "openblas", "blis", "mkl", "generic". */
    const char *name;
    /* What a user does to get one thread per call, for refusals. */
    const char *fix;
    /* The library's own version string. */
    void (*version)(char *text, size_t text_size);
    /* Asks the library for one thread per call, for the whole process and
     * the calling thread, and says how in `how` (e.g. "serial build",
     * "pthreads build, openblas_set_num_threads(1)"). Returns the threads per
     * call the library then reports, 0 when it has no way to say, -1 when it
     * cannot be limited (the reason in `how`). */
    int (*limit_to_one_thread)(char *how, size_t how_size);
    /* The same for the calling thread alone, where the library keeps its
     * setting per thread (MKL's mkl_set_num_threads_local, BLIS 1.0's
     * thread-local runtime); NULL when the process-wide call is enough. Every
     * compute thread calls it when the team binds it. */
    void (*limit_calling_thread)(void);
} blas_backend;

extern const blas_backend compute_blas_backend;

/* 0 when `threads` threads calling dgemm at once each get the product they
 * get alone (compute/blas_concurrency.c), else -1 with the message (the
 * library, the wrong calls, the builds that are safe) in error. */
int compute_blas_check_concurrency(int threads, char *error, size_t error_size);

#endif
