/* Failing together (errors.c): every rank reaches the same verdict, rank 0
 * says why once, and all exit with the same status. */
#ifndef BENCH_NBC_ERRORS_H
#define BENCH_NBC_ERRORS_H

#include <mpi.h>
#include <stdbool.h>

/* Collective: every rank passes its own verdict; if any failed, rank 0
 * prints the first failing rank's message once and every rank exits with
 * `status` (2 for bad input, 1 for failures). */
void nbc_exit_if_any_failed(bool failed, const char *message, int status);
/* An MPI call failed: names it and aborts the job (the communicator is no
 * longer trustworthy). */
void nbc_mpi_failed(const char *call, int err);
/* While a study runs on the first N ranks: `deciding` (its communicator)
 * decides failures, the ranks outside it wait on `waiting` (a duplicate of
 * MPI_COMM_WORLD) in nbc_wait_released; MPI_COMM_NULL, MPI_COMM_NULL: the
 * whole job decides. */
void nbc_errors_scope(MPI_Comm deciding, MPI_Comm waiting);
/* Rank 0 of the deciding ranks tells the waiting ones (every rank of the
 * waiting communicator calls it or waits): the study's status, and whether
 * it was fatal (then everyone exits with it). */
void nbc_release_waiting(int status, bool fatal);
/* A rank outside the study: asleep until released; the study's status (a
 * fatal one exits here). */
int nbc_wait_released(MPI_Comm waiting);
#define NBC_CHECK_MPI(call)                                                                        \
    do {                                                                                           \
        int nbc_err_ = (call);                                                                     \
        if (nbc_err_ != MPI_SUCCESS)                                                               \
            nbc_mpi_failed(#call, nbc_err_);                                                       \
    } while (0)

#endif
