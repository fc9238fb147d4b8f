/* clocksync_check's long run (--run-s): attempts as a sweep makes them,
 * judged by the sweep's lateness rule beside their true start skew. Part of
 * the tool, not of the library. */
#ifndef CLOCKSYNC_CHECK_RUN_H
#define CLOCKSYNC_CHECK_RUN_H

#include "clocksync/clocksync.h"

#include <stdio.h>

typedef struct check_run_options {
    double run_s;             /* the long run of attempts; 0: none */
    double tolerance_us;      /* its lateness tolerance */
    double resync_interval_s; /* its longest time between points; 0: never resync */
} check_run_options;

/* The long run's figures (rank 0's). */
typedef struct run_figures {
    int attempts, kept, late, resyncs;
    int end_kept;                 /* attempts kept in the run's last tenth */
    double kept_true_skew_max_us; /* of the attempts kept: what the run would publish */
    /* The same less each attempt's truth resolution (the ranks' two raw
     * reads around their start apart: a rank preempted between them blurs
     * its true start by that much). */
    double kept_true_skew_resolved_max_us;
    double all_true_skew_max_us; /* of every attempt: what no lateness rule would keep */
    double end_true_skew_max_us; /* of every attempt in the run's last tenth */
    /* Their median: the clock model's own error there, which the largest
     * (a rank descheduled at the deadline) hides. */
    double end_true_skew_p50_us;
} run_figures;

/* Collective: the run on `sync`; to_rank0_ns moves this rank's raw clock
 * into rank 0's time namespace (the truth). Figures are every rank's. */
void check_long_run(clocksync_ctx *sync, const check_run_options *opt, int64_t to_rank0_ns,
                    run_figures *fig);

/* --busy-thread: a thread polling on this rank's core until stopped, the
 * rank bound to that core with it (the rank-th of its CPU set). -1 with
 * the reason in why. */
typedef struct check_busy check_busy;
int check_busy_start(int rank, check_busy **busy, char *why, size_t why_size);
void check_busy_stop(check_busy *busy);

/* The q-quantile of values[n] (nearest rank), sorting them. */
double check_percentile(double *values, int n, double q);

/* An MPI call of the check that fails ends the job: the tool has nothing
 * to measure without it (the failing rank names the call). */
#define CHECK_MPI(call)                                                                            \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ != MPI_SUCCESS) {                                                                 \
            fprintf(stderr, "clocksync_check: %s failed (MPI error %d)\n", #call, err_);           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#endif
