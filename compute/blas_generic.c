/* Any CBLAS (the netlib reference, ATLAS, Cray LibSci, ...): no threading
 * API to call, so one thread per call is known only from the measurement
 * compute_blas_check makes. */
#include "compute/blas_backend.h"

#include <stdio.h>

static void generic_version(char *text, size_t text_size)
{
    snprintf(text, text_size, "unknown (CBLAS has no version query)");
}

static int generic_limit(char *how, size_t how_size)
{
    snprintf(how, how_size, "no threading API (generic CBLAS): measured only");
    return 0;
}

const blas_backend compute_blas_backend = {
    .name = "generic",
    .fix = "link the library's serial build, or set its thread count to 1 in the environment "
           "(OMP_NUM_THREADS=1 suits OpenMP-threaded BLAS: the compute team sets its own size), "
           "or build with the library's own descriptor (make BLAS=openblas, blis or mkl)",
    .version = generic_version,
    .limit_to_one_thread = generic_limit,
    .limit_calling_thread = NULL,
};
