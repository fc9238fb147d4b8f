/* LD_PRELOAD into bench_nbc (tests only): MPI_Init_thread asks the library
 * for at most MPI_THREAD_FUNNELED, as a library built without thread
 * support would provide, so the check of the deployment's thread level can
 * be seen to refuse. Through the profiling interface (PMPI). */
#include <mpi.h>

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return PMPI_Init_thread(
        argc, argv, required < MPI_THREAD_FUNNELED ? required : MPI_THREAD_FUNNELED, provided);
}
