/* How the sweep spreads each cell's measured blocks over its time
 * (run.visits). A cell's blocks measured back to back share whatever the
 * machine does in that second: a slow spell then moves every block of one
 * cell in one launch, and the verdict's interval over launches pays for it
 * in that cell. Split into visits spread over the sweep, a spell costs one
 * visit of several cells instead. A visit is a warm-up block (its buffers
 * are prepared anew) and a share of the cell's blocks; the cells of a chunk
 * are visited in rounds, each round in an order shuffled anew, and a chunk
 * holds at most NBC_VISIT_SPAN cells, so that an interrupted sweep loses at
 * most one chunk's cells (a cell is written when it ends). No MPI. */
#ifndef BENCH_NBC_VISIT_PLAN_H
#define BENCH_NBC_VISIT_PLAN_H

#include <stddef.h>

enum { NBC_VISIT_SPAN = 25 };

/* The visits that share run.repetitions: run.visits, at most one per block. */
int nbc_planned_visits(int repetitions, int visits);

/* Measured blocks of a cell's visit `visit` (from 0): run.repetitions split
 * as evenly as possible over the planned visits, the first ones taking the
 * remainder; after them (adaptive stopping, run.half_width > 0) one
 * Williams cycle of `cycle_blocks` per visit, the blocks between looks. */
int nbc_visit_blocks(int repetitions, int visits, int cycle_blocks, int visit);

/* The visits a cell made to measure `blocks` blocks (at least 1): each
 * brought one warm-up block (raw.csv's block 0). */
int nbc_visits_made(int repetitions, int visits, int cycle_blocks, int blocks);

/* The chunks of a sweep of `cells` cells: ceil(cells / NBC_VISIT_SPAN),
 * at least 1; chunk k starts at cell nbc_chunk_start(cells, k) of the
 * sweep's order and ends where chunk k + 1 starts (sizes differ by at most
 * one). */
size_t nbc_chunk_count(size_t cells);
size_t nbc_chunk_start(size_t cells, size_t chunk);

#endif
