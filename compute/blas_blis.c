/* BLIS: a serial build (configure --enable-threading=no) runs one thread per
 * call; an OpenMP or pthreads build is held to one by bli_thread_set_ways
 * and bli_thread_set_num_threads. BLIS 1.0 keeps these settings per
 * application thread, so every compute thread sets them too. */
#include "compute/blas_backend.h"

#include <blis.h>
#include <stdio.h>

static void blis_version(char *text, size_t text_size)
{
    snprintf(text, text_size, "BLIS %s (%s kernels)", bli_info_get_version_str(),
             bli_arch_string(bli_arch_query_id()));
}

/* One way of parallelism in every loop, one thread in total: whichever of the
 * two a BLIS version lets win, the result is one thread. */
static void blis_limit_calling_thread(void)
{
    bli_thread_set_ways(1, 1, 1, 1, 1);
    bli_thread_set_num_threads(1);
}

static int blis_limit(char *how, size_t how_size)
{
    if (!bli_info_get_enable_threading()) {
        snprintf(how, how_size, "serial build (bli_info_get_enable_threading() = 0)");
        return 1;
    }
    long before = (long)bli_thread_get_num_threads();
    blis_limit_calling_thread();
    long after = (long)bli_thread_get_num_threads();
    snprintf(how, how_size,
             "%s build, bli_thread_set_num_threads(1) (bli_thread_get_num_threads() %ld -> %ld)",
             bli_info_get_enable_openmp() ? "OpenMP" : "pthreads", before, after);
    return (int)after;
}

const blas_backend compute_blas_backend = {
    .name = "blis",
    .fix = "link a serial BLIS (Debian: libblis-serial-dev, the default of make BLAS=blis) or "
           "set BLIS_NUM_THREADS=1",
    .version = blis_version,
    .limit_to_one_thread = blis_limit,
    .limit_calling_thread = blis_limit_calling_thread,
};
