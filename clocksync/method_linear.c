/* Method linear: rank 0 answers every other rank in turn, one round each
 * (O(p) rounds); each rank measures rank 0 directly (SKaMPI, Netgauge). */
#include "clocksync/method.h"

static int linear_rounds(int size)
{
    return size > 1 ? size - 1 : 0;
}

/* Round r: rank r + 1 measures rank 0. */
static int linear_peer(int round, int rank, int size, bool *serves)
{
    (void)size;
    *serves = rank == 0;
    if (rank == 0)
        return round + 1;
    return rank == round + 1 ? 0 : -1;
}

const cs_method cs_method_linear = {
    .name = "linear",
    .description = "rank 0 measures every other rank in turn, min-RTT round trips",
    .sweeps = 1,
    .rounds = linear_rounds,
    .peer = linear_peer,
    .estimate = cs_estimate_median_at_mean,
};
