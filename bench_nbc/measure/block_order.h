/* block_order: which kinds a block of a cell measures, and in which order
 * (analysis/README.md, "Blocks and attempts" and "Null controls"). No MPI:
 * every rank draws the same orders from the same seed, and the unit test
 * counts predecessors over thousands of blocks.
 *
 * A plain block measures the three kinds once each, in one of the 6 orders
 * of a Williams design: over 6 blocks each kind follows each other kind
 * equally often (warm caches, a buffer that flushed them, a frequency step
 * carry over to the next measurement). A null block adds a second triple,
 * {comm_null, comp_null, overlap_null}, in its own Williams order: every
 * kind, null or not, then has the overlap step's predecessors (the first of
 * a triple follows the triple before it, as the first of a block follows
 * the block before). */
#ifndef BENCH_NBC_BLOCK_ORDER_H
#define BENCH_NBC_BLOCK_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kinds of measurement in a cell. */
typedef enum {
    KIND_COMM_REF,
    KIND_COMP_REF,
    KIND_OVERLAP,
    KIND_COMM_NULL,    /* null control: a second comm_ref in the same block */
    KIND_COMP_NULL,    /* null control: a second comp_ref in the same block */
    KIND_OVERLAP_NULL, /* null control: a second overlap step in the same block */
    KIND_COUNT
} nbc_kind;
enum { KIND_MAIN_COUNT = 3 }; /* the kinds every block measures */
extern const char *const nbc_kind_names[KIND_COUNT];
/* What a kind measures: a null control repeats a reference, so a ratio of
 * the two has a known truth of exactly 1. */
nbc_kind nbc_kind_measures(nbc_kind kind);

/* Whether measured block `block` (1 .. repetitions) also measures the null
 * controls: run.null_share of the blocks, spread evenly. */
bool nbc_null_block(double null_share, int block);

/* splitmix64 draws and a Fisher-Yates shuffle: reproducible from the seed,
 * identical on every rank. */
uint64_t nbc_next_random(uint64_t *state);
void nbc_shuffle(size_t *items, size_t n, uint64_t *state);

enum { NBC_ORDER_COUNT = 6 };

/* One cell's orders: shuffled cycles of the 6 Williams orders, one for the
 * triples of the three kinds and one for the null triples. */
typedef struct nbc_block_orders {
    double null_share;
    uint64_t *random_state; /* the sweep's: cells draw from it one after another */
    size_t main_cycle[NBC_ORDER_COUNT], null_cycle[NBC_ORDER_COUNT];
    int null_blocks; /* null blocks drawn so far */
} nbc_block_orders;

void nbc_block_orders_init(nbc_block_orders *orders, double null_share, uint64_t *random_state);
/* The kinds block `block` measures (0 the warm-up, then 1, 2, ... in this
 * order: call once per block), in order; returns how many (KIND_MAIN_COUNT,
 * or KIND_COUNT in a null block). */
int nbc_block_sequence(nbc_block_orders *orders, int block, nbc_kind sequence[KIND_COUNT]);

#endif
