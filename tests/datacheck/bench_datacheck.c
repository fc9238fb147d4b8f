/* Benchmark: what the data check adds to a sweep outside its timed regions,
 * in ns per buffer byte for fill and verify, on one rank (MPI_COMM_SELF),
 * next to memcpy of the same bytes for scale. Best of 5.
 *   bench_datacheck [MiB]   (default 64) */
#include "bench_nbc/collectives/collectives.h"
#include "bench_nbc/collectives/datacheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = 5 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Best of ROUNDS of fill, start + wait, verify; -1 on any failure. */
static int measure(const char *name, size_t bytes, double *fill_ns_per_byte,
                   double *verify_ns_per_byte, double *memcpy_ns_per_byte)
{
    char err[512];
    coll_instance inst;
    if (coll_instance_prepare(&inst, nbc_collective_find(name), MPI_COMM_SELF, bytes, NULL, err,
                              sizeof err) != 0) {
        fprintf(stderr, "bench_datacheck: %s\n", err);
        return -1;
    }
    size_t total = inst.send_bytes + inst.recv_bytes;
    unsigned char *copy = malloc(total);
    int rc = copy ? 0 : -1;
    *fill_ns_per_byte = *verify_ns_per_byte = *memcpy_ns_per_byte = 1e30;
    for (int round = 0; round < ROUNDS && rc == 0; round++) {
        double t0 = now_s();
        rc = nbc_datacheck_fill(&inst);
        double t1 = now_s();
        MPI_Request request;
        if (rc == 0 && (coll_instance_start(&inst, &request) != MPI_SUCCESS ||
                        coll_instance_wait(&inst, &request) != MPI_SUCCESS))
            rc = -1;
        double t2 = now_s();
        if (rc == 0 && nbc_datacheck_verify(&inst, err, sizeof err) != 0) {
            fprintf(stderr, "bench_datacheck: %s\n", err);
            rc = -1;
        }
        double t3 = now_s();
        memcpy(copy, inst.send, inst.send_bytes);
        memcpy(copy + inst.send_bytes, inst.recv, inst.recv_bytes);
        double t4 = now_s();
        double ns = 1e9 / (double)total;
        if ((t1 - t0) * ns < *fill_ns_per_byte)
            *fill_ns_per_byte = (t1 - t0) * ns;
        if ((t3 - t2) * ns < *verify_ns_per_byte)
            *verify_ns_per_byte = (t3 - t2) * ns;
        if ((t4 - t3) * ns < *memcpy_ns_per_byte)
            *memcpy_ns_per_byte = (t4 - t3) * ns;
    }
    free(copy);
    coll_instance_release(&inst);
    return rc;
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    char *end = NULL;
    long mib = argc > 1 ? strtol(argv[1], &end, 10) : 64;
    if (argc > 2 || (end && *end) || mib < 1 || mib > 4096) {
        fprintf(stderr, "bench_datacheck: bad size '%s' (allowed: MiB in 1..4096)\n", argv[1]);
        MPI_Finalize();
        return 2;
    }
    /* Bytes (one hash per 8 bytes) and doubles (one per element). */
    static const char *const names[] = {"iallgather", "iallreduce"};
    int status = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && status == 0; i++) {
        double fill, verify, copy;
        if (measure(names[i], (size_t)mib << 20, &fill, &verify, &copy) != 0) {
            status = 1;
            break;
        }
        printf("figure: data check %s %ld MiB: fill %.2f ns/B, verify %.2f ns/B (memcpy %.2f "
               "ns/B)\n",
               names[i], mib, fill, verify, copy);
    }
    MPI_Finalize();
    return status;
}
