/* oneMKL: the sequential layer (mkl_sequential, what make BLAS=mkl links)
 * runs one thread per call; a threaded layer is held to one by
 * mkl_set_num_threads_local(1), a per-thread setting that every compute
 * thread makes, confirmed with mkl_domain_get_max_threads(MKL_DOMAIN_BLAS)
 * (which returns the thread-local number first). */
#include "compute/blas_backend.h"

#include <mkl.h>
#include <stdio.h>

static void mkl_version(char *text, size_t text_size)
{
    char version[256];
    mkl_get_version_string(version, (int)sizeof version);
    version[sizeof version - 1] = '\0';
    snprintf(text, text_size, "%s", version);
}

static void mkl_limit_calling_thread(void)
{
    (void)mkl_set_num_threads_local(1);
}

static int mkl_limit(char *how, size_t how_size)
{
    int before = mkl_get_max_threads();
    mkl_limit_calling_thread();
    int after = mkl_domain_get_max_threads(MKL_DOMAIN_BLAS);
    if (before == 1)
        snprintf(how, how_size, "sequential layer or one thread (mkl_get_max_threads() = 1)");
    else
        snprintf(how, how_size,
                 "threaded layer, mkl_set_num_threads_local(1) (mkl_get_max_threads() %d, "
                 "BLAS domain now %d)",
                 before, after);
    return after;
}

const blas_backend compute_blas_backend = {
    .name = "mkl",
    .fix = "link MKL's sequential layer (pkg-config mkl-dynamic-lp64-seq, or -lmkl_intel_lp64 "
           "-lmkl_sequential -lmkl_core: the default of make BLAS=mkl) or set MKL_NUM_THREADS=1",
    .version = mkl_version,
    .limit_to_one_thread = mkl_limit,
    .limit_calling_thread = mkl_limit_calling_thread,
};
