/* The configure step's probe (mpiprofile/configure.sh): built with the MPI
 * compiler wrapper and run as a plain program, without a launcher, it prints
 * what the library says it is. MPI_Get_library_version may be called before
 * MPI_Init (MPI 3.1, section 8.1.1), so nothing else of MPI starts. */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) {
        fprintf(stderr, "probe: MPI_Get_library_version failed\n");
        return 1;
    }
    return printf("%.*s\n", len, text) < 0 ? 1 : 0;
}
