/* Method hierarchical: a binomial tree, as HCA3 (Hunold and Carpen-Amarie,
 * ReproMPI's mpi-time-sync) builds it: in round k the ranks already in the
 * tree take in the rank 2^(L-1-k) above them, so the tree holds every rank
 * after L = ceil(log2 p) rounds and a rank's parent is itself with its
 * lowest set bit cleared. The rounds run twice, the second time backwards:
 * the two measurements of each pair then lie around the same instant for
 * every pair, and a parent's offset to rank 0 holds at its children's
 * instant without knowing its drift yet. */
#include "clocksync/method.h"

static int tree_rounds(int size)
{
    int rounds = 0;
    while (rounds < 31 && (1 << rounds) < size)
        rounds++;
    return rounds;
}

static int tree_peer(int round, int rank, int size, bool *serves)
{
    int distance = 1 << (tree_rounds(size) - 1 - round);
    *serves = rank % (2 * distance) == 0;
    if (*serves)
        return rank + distance < size ? rank + distance : -1;
    return rank % (2 * distance) == distance ? rank - distance : -1;
}

const cs_method cs_method_hierarchical = {
    .name = "hierarchical",
    .description = "binomial tree of ceil(log2 p) rounds run forwards and backwards, "
                   "min-RTT round trips to the parent, lines composed down to rank 0",
    .sweeps = 2,
    .rounds = tree_rounds,
    .peer = tree_peer,
    .estimate = cs_estimate_mean,
};
