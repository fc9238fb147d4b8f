/* What the driver's rooms share (bench_nbc/README.md): the record of one
 * timed attempt (nbc_attempt) and the context a study's measurements pass
 * down (nbc_run). Types only: each room's header declares its functions. */
#ifndef BENCH_NBC_RUN_H
#define BENCH_NBC_RUN_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_nbc/collectives/collectives.h"
#include "bench_nbc/measure/block_order.h"
#include "clocksync/clocksync.h"
#include "compute/compute.h"
#include "config/config.h"

/* Local timestamps t1..t4 of one measurement on one rank (see docs/formats.md
 * for what each kind puts in them). */
typedef struct nbc_sample {
    int64_t t_ns[4];
} nbc_sample;

/* One attempt of one kind, as this rank saw it: every attempt is recorded,
 * the late ones too (docs/formats.md, raw.csv). */
typedef struct nbc_attempt {
    nbc_sample sample;          /* local clock */
    int64_t wall_start_ns;      /* CLOCK_REALTIME just before t1 */
    int64_t deadline_global_ns; /* the window barrier's deadline (extrapolated global time) */
    int64_t exit_late_ns;       /* this rank left the barrier this long after the deadline */
    int64_t tolerance_ns;       /* the lateness tolerated */
    int64_t start_skew_ns;      /* what clocksync_settle_attempt judged, the same on every rank */
    int64_t foreign_wait_ns; /* t1..t4 the main thread waited for a CPU others held; -1: not read */
    int64_t seq;             /* run-wide attempt number, the same on every rank */
    int block;               /* 0: warm-up */
    int attempt;             /* 0-based, per (block, kind) */
    nbc_kind kind;
    bool late; /* some rank left later than tolerance_ns: discarded and redone */
} nbc_attempt;

/* The attempts of one cell, in time order. */
typedef struct nbc_attempt_log {
    nbc_attempt *items;
    size_t count, capacity;
} nbc_attempt_log;

typedef struct progress_thread progress_thread;
typedef struct nbc_threads nbc_threads;
typedef struct watchdog watchdog;
typedef struct run_output run_output;
typedef struct nbc_mpit nbc_mpit;

/* Everything a stage needs, passed down explicitly. */
typedef struct nbc_run {
    MPI_Comm comm;
    int rank, ranks;
    const nbc_config *cfg;
    const nbc_collective *coll;
    clocksync_ctx *sync;
    compute_team *team;
    nbc_progress_mode progress; /* effective mode (deployment manual -> test) */
    int test_chunks;            /* K for progress test */
    progress_thread *progress_thread;
    run_output *out;                    /* rank 0 only, else NULL */
    volatile sig_atomic_t *stop_signal; /* set by SIGTERM/SIGINT */
    int max_retries;                    /* redos of a block with a late attempt */
    double late_patience_s;             /* pauses of a block late pass after pass */
    int64_t barrier_precision_ns;       /* floor of the lateness tolerance, measured */
    int64_t next_seq;                   /* run-wide attempt counter (raw.csv seq) */
    int64_t epoch_global_ns;            /* raw.csv times count from here */
    bool check;                         /* verify received data (run.check) */
    coll_options coll_options;          /* run.root, run.datatype, run.in_place */
    watchdog *watchdog;                 /* NULL: none */
    nbc_threads *threads;               /* the thread record (threadlog.c); NULL: none */
    int fault_hang_cell;                /* BENCH_NBC_FAULT: this rank hangs in that cell */
    bool fault_hang;                    /* set by the sweep while in that cell */
    uint64_t fault_late_cells;       /* BENCH_NBC_FAULT: this rank is late in these cells (bits) */
    bool fault_late;                 /* set by the sweep while in that cell */
    int fault_late_once_cell;        /* BENCH_NBC_FAULT: late once in that cell */
    bool fault_late_once;            /* set by the sweep while in that cell */
    uint64_t fault_late_burst_cells; /* BENCH_NBC_FAULT: late for a while there, a bit a cell */
    int64_t fault_burst_end_ns;      /* the burst's end, local clock; 0: none */
    nbc_mpit *mpit;                  /* MPI_T counters read around each cell; or NULL */
} nbc_run;

#endif
