/* Failing together: every rank reaches the same verdict, rank 0 says why
 * once, and all exit with the same status (never a hang, never a rank left
 * waiting for one that quit). */
#include "bench_nbc/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The ranks that decide together: MPI_COMM_WORLD, or while a study runs on
 * fewer ranks its sub-communicator; the ranks outside it wait for the
 * verdict on `waiting` (MPI_COMM_NULL: nobody waits). Private to this file,
 * set through nbc_errors_scope. */
static MPI_Comm scope = MPI_COMM_NULL, waiting = MPI_COMM_NULL;

void nbc_errors_scope(MPI_Comm deciding, MPI_Comm waiting_comm)
{
    scope = deciding;
    waiting = waiting_comm;
}

void nbc_release_waiting(int status, bool fatal)
{
    /* Nonblocking, as the waiting ranks' side: blocking and nonblocking
     * collectives do not match each other. */
    int verdict[2] = {status, fatal};
    MPI_Request request;
    if (waiting != MPI_COMM_NULL &&
        (MPI_Ibcast(verdict, 2, MPI_INT, 0, waiting, &request) != MPI_SUCCESS ||
         MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS))
        MPI_Abort(MPI_COMM_WORLD, 1);
}

int nbc_wait_released(MPI_Comm waiting_comm)
{
    /* Asleep between tests: a blocking MPI wait busy-polls (MPICH, Open
     * MPI) and would take CPU time from the ranks measuring, which may
     * share this rank's cores. */
    int verdict[2] = {0, 0}, done = 0;
    MPI_Request request;
    int rc = MPI_Ibcast(verdict, 2, MPI_INT, 0, waiting_comm, &request);
    while (rc == MPI_SUCCESS &&
           (rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done) {
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};
        nanosleep(&pause, NULL);
    }
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (verdict[1]) { /* the measuring ranks failed and exit: so do these */
        MPI_Finalize();
        exit(verdict[0]);
    }
    return verdict[0];
}

/* Every rank calls this with its own verdict; if any failed, rank 0 prints
 * the first failing rank's message and all exit with `status`. */
void nbc_exit_if_any_failed(bool failed, const char *message, int status)
{
    struct {
        int failed, rank;
    } mine = {failed, 0}, first;
    MPI_Comm comm = scope != MPI_COMM_NULL ? scope : MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &mine.rank);
    int rank = mine.rank;
    if (MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS) {
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
            MPI_Send(text, sizeof text, MPI_CHAR, 0, 1, comm);
        else if (rank == 0)
            MPI_Recv(text, sizeof text, MPI_CHAR, first.rank, 1, comm, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        fprintf(stderr, "bench_nbc: %s%s\n", text,
                first.rank != 0 ? " (reported by another rank)" : "");
    nbc_release_waiting(status, true);
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
