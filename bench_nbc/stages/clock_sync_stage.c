/* The clock sync stage: the clocks of every rank of the job synchronized
 * once, before anything is measured (the window barrier's global time), and
 * once more after the last study, so every study's raw records convert to
 * global time by interpolation between the two. */
#include "bench_nbc/errors.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/stages/stages.h"

void nbc_clock_sync_stage(nbc_run *run, const deploy_plan *deployment, nbc_shared *shared)
{
    const nbc_config *cfg = run->cfg;
    clocksync_options sopt = {
        .method = cfg->clocksync.method,
        .roundtrips = cfg->clocksync.roundtrips,
        .drift_gap_s = cfg->clocksync.drift_gap_s,
        .barrier_margin_s = cfg->clocksync.barrier_margin_us * 1e-6,
        .barrier_sleep_min_s = deployment->barrier_sleep_min_s,
    };
    int64_t start_ns = clocksync_monotonic_ns();
    NBC_CHECK_MPI(clocksync_create(&shared->sync, MPI_COMM_WORLD, &sopt, NULL));
    run->sync = shared->sync;
    shared->clock_read_ns = clocksync_clock_read_ns(clocksync_get_clock(run->sync));
    watchdog_context(run->watchdog, "the start of the run");
    watchdog_arm(run->watchdog, 0);
    watchdog_phase(run->watchdog, PHASE_CALIBRATION);
    NBC_CHECK_MPI(clocksync_calibrate(run->sync));
    watchdog_disarm(run->watchdog);
    shared->elapsed_s += (double)(clocksync_monotonic_ns() - start_ns) * 1e-9;
}

int nbc_clock_sync_end(nbc_run *run, const nbc_shared *shared)
{
    watchdog_context(run->watchdog, "the end of the job");
    watchdog_arm(run->watchdog, 0);
    watchdog_phase(run->watchdog, PHASE_CALIBRATION);
    int rc = clocksync_calibrate(shared->sync);
    watchdog_disarm(run->watchdog);
    return rc;
}
