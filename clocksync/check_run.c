/* clocksync_check's long run (check_run.h). */
#include "clocksync/check_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double check_percentile(double *values, int n, double q)
{
    qsort(values, (size_t)n, sizeof *values, compare_double);
    int i = (int)ceil(q * n) - 1;
    return values[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

/* The long run: attempts as a sweep makes them, 10 ms apart, for run_s.
 * Each attempt's true start skew (max - min of the ranks' true starts) is
 * measured beside the verdict of the lateness rule the sweep applies. */
void check_long_run(clocksync_ctx *sync, const check_run_options *opt, int64_t to_rank0_ns,
                    run_figures *fig)
{
    enum { GAP_NS = 10000000 };
    int64_t tolerance_ns = (int64_t)llround(opt->tolerance_us * 1e3);
    int64_t started_ns = clocksync_monotonic_ns();
    int64_t end_ns = started_ns + (int64_t)llround(opt->run_s * 1e9);
    int64_t tail_ns = end_ns - (int64_t)llround(opt->run_s * 1e8);
    double *tail = NULL;
    size_t tail_count = 0, tail_capacity = 0;
    for (;;) {
        /* Rank 0's clock decides when the run ends, for every rank. */
        int64_t now_ns = clocksync_monotonic_ns();
        CHECK_MPI(MPI_Bcast(&now_ns, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
        if (now_ns >= end_ns)
            break;
        bool due;
        CHECK_MPI(clocksync_resync_due(sync, tolerance_ns, opt->resync_interval_s, &due));
        if (due) {
            CHECK_MPI(clocksync_calibrate(sync));
            fig->resyncs++;
        }
        clocksync_barrier_result res;
        CHECK_MPI(clocksync_window_barrier(sync, tolerance_ns, &res));
        int64_t before_ns = clocksync_monotonic_ns();
        int64_t start_local_ns = clocksync_now_local_ns(sync);
        int64_t after_ns = clocksync_monotonic_ns();
        /* The truth of the start: rank 0's clock at the local read, to
         * within half the reads' gap either side. */
        int64_t truth[3] = {before_ns + (after_ns - before_ns) / 2 + to_rank0_ns, 0,
                            after_ns - before_ns};
        truth[1] = -truth[0];
        bool late;
        CHECK_MPI(clocksync_settle_attempt(sync, &res, start_local_ns, tolerance_ns, &late, NULL));
        int64_t spread[3];
        CHECK_MPI(MPI_Allreduce(truth, spread, 3, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
        double skew_us = (double)(spread[0] + spread[1]) * 1e-3;
        double resolution_us = (double)spread[2] * 1e-3; /* two half gaps at most */
        fig->attempts++;
        fig->late += late;
        fig->kept += !late;
        fig->all_true_skew_max_us = fmax(fig->all_true_skew_max_us, skew_us);
        if (!late) {
            fig->kept_true_skew_max_us = fmax(fig->kept_true_skew_max_us, skew_us);
            fig->kept_true_skew_resolved_max_us =
                fmax(fig->kept_true_skew_resolved_max_us, skew_us - resolution_us);
        }
        if (now_ns >= tail_ns) {
            fig->end_kept += !late;
            fig->end_true_skew_max_us = fmax(fig->end_true_skew_max_us, skew_us);
            if (tail_count == tail_capacity) {
                tail_capacity = tail_capacity ? 2 * tail_capacity : 256;
                double *grown = realloc(tail, tail_capacity * sizeof *tail);
                if (!grown) {
                    fprintf(stderr, "clocksync_check: out of memory for the run's skews\n");
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                tail = grown;
            }
            tail[tail_count++] = skew_us;
        }
        struct timespec gap = {.tv_nsec = GAP_NS};
        nanosleep(&gap, NULL);
    }
    fig->end_true_skew_p50_us = tail_count ? check_percentile(tail, (int)tail_count, 0.5) : NAN;
    free(tail);
}
