/* OpenBLAS: the serial build runs one thread per call; a pthreads or OpenMP
 * build is held to one by openblas_set_num_threads(1), a process-wide
 * setting, and confirmed with openblas_get_num_threads(). Debian's serial
 * build lacks USE_LOCKING: several compute threads calling it at once get
 * wrong products (the team checks: compute/team.c), so make defaults to
 * Debian's pthreads build. */
#include "compute/blas_backend.h"

#include <cblas.h>
#include <stdio.h>

/* Values of openblas_get_parallel(). */
static const char *const parallel_names[] = {"serial", "pthreads", "OpenMP"};

static void openblas_version(char *text, size_t text_size)
{
    snprintf(text, text_size, "%s", openblas_get_config());
}

static int openblas_limit(char *how, size_t how_size)
{
    int parallel = openblas_get_parallel();
    const char *parallel_name =
        parallel >= 0 && parallel < (int)(sizeof parallel_names / sizeof *parallel_names)
            ? parallel_names[parallel]
            : "unknown";
    if (parallel == 0) {
        snprintf(how, how_size, "serial build (openblas_get_parallel() = 0)");
        return openblas_get_num_threads();
    }
    int before = openblas_get_num_threads();
    openblas_set_num_threads(1);
    int after = openblas_get_num_threads();
    snprintf(how, how_size,
             "%s build, openblas_set_num_threads(1) (openblas_get_num_threads() %d -> %d)",
             parallel_name, before, after);
    return after;
}

const blas_backend compute_blas_backend = {
    .name = "openblas",
    .fix = "set OPENBLAS_NUM_THREADS=1, or link a serial OpenBLAS built with USE_LOCKING=1 "
           "(Spack: openblas threads=none +locking)",
    .version = openblas_version,
    .limit_to_one_thread = openblas_limit,
    .limit_calling_thread = NULL,
};
