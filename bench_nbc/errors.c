/* Failing together: every rank reaches the same verdict, rank 0 says why
 * once, and all exit with the same status (never a hang, never a rank left
 * waiting for one that quit). */
#include "bench_nbc/driver.h"

#include <stdio.h>
#include <stdlib.h>

/* Every rank calls this with its own verdict; if any failed, rank 0 prints
 * the first failing rank's message and all exit with `status`. */
void nbc_exit_if_any_failed(bool failed, const char *message, int status)
{
    struct {
        int failed, rank;
    } mine = {failed, 0}, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &mine.rank);
    int rank = mine.rank;
    if (MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "bench_nbc: rank %d: MPI_Allreduce failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!first.failed)
        return;
    /* The failing rank's message travels to rank 0, which prints it. */
    char text[1024] = "";
    if (first.rank == rank)
        snprintf(text, sizeof text, "%s", message ? message : "unknown error");
    if (first.rank != 0) {
        if (rank == first.rank)
            MPI_Send(text, sizeof text, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        else if (rank == 0)
            MPI_Recv(text, sizeof text, MPI_CHAR, first.rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        fprintf(stderr, "bench_nbc: %s%s\n", text,
                first.rank != 0 ? " (reported by another rank)" : "");
    MPI_Finalize();
    exit(status);
}

void nbc_mpi_failed(const char *call, int err)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len;
    MPI_Error_string(err, text, &len);
    fprintf(stderr, "bench_nbc: %s failed: %s\n", call, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
