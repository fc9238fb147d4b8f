/* What a configuration will cost before it runs (bench_nbc --plan): the
 * cells and a range of durations, from the targets (the calibration makes
 * each step last its target), the repetition settings and the clock
 * synchronization settings. No MPI: `--plan` prints it before MPI_Init, for
 * a batch job's --time. */
#ifndef BENCH_NBC_PLAN_ESTIMATE_H
#define BENCH_NBC_PLAN_ESTIMATE_H

#include "config/config.h"

#include <stddef.h>

/* How many times the computation's sizes are calibrated again when their
 * check finds the machine changed speed (bench_nbc's calibration stage; the
 * estimate counts them). */
enum { NBC_COMP_CHECK_ROUNDS = 2 };

typedef struct nbc_plan_estimate {
    size_t cells_per_run;     /* grid.comm_times (or comm_sizes) x grid.comp_times */
    size_t runs;              /* run.collectives x run.ranks (1 each when empty) */
    int blocks_lo, blocks_hi; /* measured blocks a cell runs (plus one warm-up) */
    double sweep_s[2];        /* the sweeps of every run: least, most */
    double calibration_s[2];  /* clock sync, sizes and the passive step, once a run */
    double job_s[2];          /* the whole bench_nbc job */
} nbc_plan_estimate;

/* The estimate of cfg, where the deployment's window barrier sleeps at
 * least barrier_sleep_min_s (deploy/plan.h; 0: it does not); the README's
 * --plan section says what it assumes. */
nbc_plan_estimate nbc_plan_estimate_of(const nbc_config *cfg, double barrier_sleep_min_s);

#endif
