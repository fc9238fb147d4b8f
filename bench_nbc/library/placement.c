/* Where a rank computes: its cores, and the host it is on. */
#include "bench_nbc/library/library.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* This rank's cores: its allowed CPU set, or its slice of it when the ranks
 * of a host were all given the same set (no binding by the launcher), so
 * ranks x threads never exceeds the cores (MPICH busy-polls). */
int nbc_place_rank(placement *p, char *err, size_t errlen)
{
    if (gethostname(p->host, sizeof p->host - 1) != 0)
        snprintf(p->host, sizeof p->host, "unknown");
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Comm_split_type failed");
        return -1;
    }
    int rc = MPI_Comm_rank(node, &p->local_rank) | MPI_Comm_size(node, &p->local_ranks);
    int count = compute_allowed_cpus(p->cpus, COMPUTE_MAX_CPUS, err, errlen);
    /* A signature of the set: equal sets give equal signatures everywhere. */
    long long sig[2] = {count, 0}, lo[2], hi[2];
    for (int i = 0; i < count; i++)
        sig[1] = sig[1] * 1000003LL + p->cpus[i] + 1;
    rc |= MPI_Allreduce(sig, lo, 2, MPI_LONG_LONG, MPI_MIN, node);
    rc |= MPI_Allreduce(sig, hi, 2, MPI_LONG_LONG, MPI_MAX, node);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI failed while placing ranks");
        return -1;
    }
    if (count < 0)
        return -1;
    p->cpu_count = count;
    if (p->local_ranks > 1 && lo[0] == hi[0] && lo[1] == hi[1]) {
        int per_rank = count / p->local_ranks;
        if (per_rank < 1 && p->may_share_cores && count > 0) {
            /* The sleep kernel computes without a CPU: ranks take turns. */
            p->cpus[0] = p->cpus[p->local_rank % count];
            p->cpu_count = 1;
            p->split = true;
            return 0;
        }
        if (per_rank < 1)
            return 0; /* more ranks than cores: refused once the team is bound, naming the
                       * ranks and CPUs (nbc_threads_check_placement) */
        memmove(p->cpus, p->cpus + p->local_rank * per_rank, (size_t)per_rank * sizeof(int));
        p->cpu_count = per_rank;
        p->split = true;
    }
    return 0;
}
