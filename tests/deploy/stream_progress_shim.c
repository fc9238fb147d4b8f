/* LD_PRELOAD into bench_nbc (tests only): an MPIX_Stream_progress for a
 * library without one (MPICH 4.0), so the suite's progress thread can be
 * seen to call the library's own progress function where the profile
 * names it. It drives progress as MPI_Iprobe does (on MPI_COMM_SELF, so it
 * matches nothing of the run), counts its calls and, at exit, appends
 * "PID CALLS HANDLE" (the last stream handle, in hex) to the file
 * STREAM_PROGRESS_LOG names. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_long calls;
static atomic_int last_handle;

int MPIX_Stream_progress(int stream);

int MPIX_Stream_progress(int stream)
{
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    atomic_store_explicit(&last_handle, stream, memory_order_relaxed);
    int flag;
    return PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
}

__attribute__((destructor)) static void write_log(void)
{
    const char *path = getenv("STREAM_PROGRESS_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "%ld %ld %#x\n", (long)getpid(), atomic_load(&calls),
            (unsigned)atomic_load(&last_handle));
    fclose(f);
}
