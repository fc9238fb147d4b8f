/* The kinds of a block and their order (block_order.h). */
#include "bench_nbc/measure/block_order.h"

#include <math.h>

const char *const nbc_kind_names[KIND_COUNT] = {"comm_ref",  "comp_ref",  "overlap",
                                                "comm_null", "comp_null", "overlap_null"};
static const nbc_kind kind_measures[KIND_COUNT] = {KIND_COMM_REF, KIND_COMP_REF, KIND_OVERLAP,
                                                   KIND_COMM_REF, KIND_COMP_REF, KIND_OVERLAP};

nbc_kind nbc_kind_measures(nbc_kind kind)
{
    return kind_measures[kind];
}

/* The 6 orders of 3 kinds, as places in a triple: the two Latin squares of
 * a Williams design for an odd number of treatments; each ordered pair of
 * places is adjacent exactly twice. */
static const int williams_orders[NBC_ORDER_COUNT][KIND_MAIN_COUNT] = {
    {0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0},
};

/* A triple's kinds by place: the references with the overlap step, and
 * their null controls. */
static const nbc_kind triples[2][KIND_MAIN_COUNT] = {
    {KIND_COMM_REF, KIND_COMP_REF, KIND_OVERLAP},
    {KIND_COMM_NULL, KIND_COMP_NULL, KIND_OVERLAP_NULL},
};

uint64_t nbc_next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void nbc_shuffle(size_t *items, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(nbc_next_random(state) % i);
        size_t t = items[i - 1];
        items[i - 1] = items[j];
        items[j] = t;
    }
}

bool nbc_null_block(double null_share, int block)
{
    return block >= 1 && floor(block * null_share) > floor((block - 1) * null_share);
}

void nbc_block_orders_init(nbc_block_orders *orders, double null_share, uint64_t *random_state)
{
    *orders = (nbc_block_orders){.null_share = null_share, .random_state = random_state};
    for (size_t o = 0; o < NBC_ORDER_COUNT; o++)
        orders->main_cycle[o] = orders->null_cycle[o] = o;
    nbc_shuffle(orders->main_cycle, NBC_ORDER_COUNT, random_state);
    nbc_shuffle(orders->null_cycle, NBC_ORDER_COUNT, random_state);
}

/* Measured blocks take the main cycle in turn, so that 6 consecutive ones
 * hold each order once (the warm-up takes the cycle's last); null triples
 * take the null cycle in turn. In a null block each kind then trades names
 * with its null control on a coin flip, so the two are exchangeable, their
 * ratio's truth exactly 1, and either sits in either triple. The second
 * triple's first kind follows the first triple's last, a kind drawn from
 * the same orders as the last kind of a block before the next block's
 * first: so every kind's predecessor is distributed as the overlap step's
 * in a plain block (no predecessor of its own measure inside a triple,
 * each of the two others equally often, and at a triple's start whatever
 * ended the triple before). */
int nbc_block_sequence(nbc_block_orders *orders, int block, nbc_kind sequence[KIND_COUNT])
{
    size_t main_order =
        orders
            ->main_cycle[block == 0 ? NBC_ORDER_COUNT - 1 : (size_t)(block - 1) % NBC_ORDER_COUNT];
    for (int place = 0; place < KIND_MAIN_COUNT; place++)
        sequence[place] = triples[0][williams_orders[main_order][place]];
    if (!nbc_null_block(orders->null_share, block))
        return KIND_MAIN_COUNT;
    size_t null_order = orders->null_cycle[(size_t)orders->null_blocks++ % NBC_ORDER_COUNT];
    for (int place = 0; place < KIND_MAIN_COUNT; place++)
        sequence[KIND_MAIN_COUNT + place] = triples[1][williams_orders[null_order][place]];
    for (int place = 0; place < KIND_MAIN_COUNT; place++) {
        if (nbc_next_random(orders->random_state) & 1)
            continue;
        for (int i = 0; i < KIND_COUNT; i++)
            if (sequence[i] == triples[0][place] || sequence[i] == triples[1][place])
                sequence[i] =
                    sequence[i] == triples[0][place] ? triples[1][place] : triples[0][place];
    }
    return KIND_COUNT;
}
