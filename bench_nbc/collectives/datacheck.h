/* Data check of the collectives (--check, run.check): before a start, fill
 * the send buffers with a pattern that depends on the rank, the block and
 * the index, and poison the buffers that must receive data; after the wait,
 * outside any timed region, verify that every buffer holds what the MPI
 * standard says the collective delivers.
 *
 * What each descriptor delivers is a rule in datacheck.c keyed by its
 * `operation` (the persistent *_init rows share their nonblocking twin's rule) and
 * checked against the descriptor's fields; synthetic rows move no data.
 * Both calls are local (no communication) and only touch inst's buffers. */
#ifndef BENCH_NBC_DATACHECK_H
#define BENCH_NBC_DATACHECK_H

#include <stddef.h>

#include "bench_nbc/collectives/collectives.h"

/* 0 when the data check knows `coll`; -1 with a message naming it when it
 * has no rule, or a rule that contradicts the descriptor's buffers. */
int nbc_datacheck_supports(const nbc_collective *coll, char *err, size_t errlen);

/* Before each start of inst (persistent ones too): send buffer(s) get this
 * rank's contribution, every buffer the collective writes gets a poison
 * that differs from the expected value at each element (the broadcast
 * buffer of ibcast, which is inst->send, is poisoned on non-root ranks).
 * 0, or -1 when the descriptor is not supported. */
int nbc_datacheck_fill(coll_instance *inst);

/* After the wait that completed the start following nbc_datacheck_fill:
 * 0 when every element the standard defines on this rank is right and the
 * send buffer is intact; -1 with a message such as
 *   data check failed: iallgather rank 1 byte 4096 (block 0 from rank 0,
 *   index 4096): expected 0x2b got 0x5a; 4097 of 8194 bytes wrong
 * The result is this rank's only: combine it over the ranks yourself. */
int nbc_datacheck_verify(const coll_instance *inst, char *err, size_t errlen);

#endif
