/* The clock sync stage: the clocks of every rank of the job synchronized
 * once, before anything is measured (the window barrier's global time), and
 * once more after the last study, so every study's raw records convert to
 * global time by interpolation between the two. */
#include "bench_nbc/errors.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/stages/stages.h"

#include <stdio.h>

/* What the window barrier will do, and why, on rank 0's stderr (the run's
 * log; meta.json's deployment.barrier and clocksync records the same):
 * the deployment decides between a spin and a sleep, the worst rank's
 * wake-up latency sets the spin after a sleep. */
static void report_barrier_wait(const nbc_run *run, const deploy_plan *deployment)
{
    const clocksync_wakeup *w = clocksync_get_wakeup(run->sync);
    const clocksync_barrier_wait *wait = clocksync_get_barrier_wait(run->sync);
    double mine[4] = {w->median_ns, w->p99_ns, (double)wait->spin_ns, wait->spin_capped}, worst[4];
    NBC_CHECK_MPI(MPI_Allreduce(mine, worst, 4, MPI_DOUBLE, MPI_MAX, run->comm));
    if (run->rank != 0)
        return;
    fprintf(stdout,
            "bench_nbc: window barrier: %s; wake-up latency after a sleep (worst rank): median "
            "%.1f us, p99 %.1f us",
            deployment->barrier_why, worst[0] * 1e-3, worst[1] * 1e-3);
    if (wait->sleep_min_ns > 0)
        fprintf(stdout, "; sleeps at least %.1f ms, spins the last %.1f us",
                (double)wait->sleep_min_ns * 1e-6, worst[2] * 1e-3);
    fprintf(stdout, "\n");
    if (worst[3] > 0)
        fprintf(stderr,
                "bench_nbc: warning: the window barrier must sleep here and this machine wakes "
                "from a sleep up to %.1f us late (p99), longer than the %.1f us it may spin: "
                "barriers will often leave late and attempts be redone. Give the progress "
                "thread a core of its own (run.deployment = dedicated), or on bare metal keep "
                "the cores out of deep idle states (cpupower idle-set -D 0, or the kernel's "
                "idle=poll)\n",
                worst[1] * 1e-3, worst[2] * 1e-3);
}

/* The rank whose spin lost the core says so in the run's log, once each way
 * per rank and study (meta.json's clocksync barrier record counts them all). */
static void log_wait_change(const clocksync_wait_governor *gov, int change)
{
    int rank = -1;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
        rank = -1;
    if (change == CLOCKSYNC_WAIT_FELL_BACK && gov->fallbacks == 1)
        fprintf(stdout,
                "bench_nbc: rank %d: window barrier %ld spun and lost the core for %.1f us (%ld "
                "involuntary context switches, -1: not known): another process wants this core, "
                "so the barrier sleeps %.1f ms and spins the last %.1f us, until %d barriers "
                "keep the core\n",
                rank, gov->first_fallback_at, (double)gov->first_gap_ns * 1e-3, gov->first_switches,
                (double)gov->fallback.sleep_min_ns * 1e-6, (double)gov->fallback.spin_ns * 1e-3,
                gov->clean_needed);
    else if (change == CLOCKSYNC_WAIT_RETURNED && gov->returns == 1)
        fprintf(stdout,
                "bench_nbc: rank %d: window barrier spins again after %d barriers that kept the "
                "core (falls back again whenever its spin loses the core)\n",
                rank, gov->clean_needed);
}

void nbc_clock_sync_stage(nbc_run *run, const deploy_plan *deployment, nbc_shared *shared)
{
    const nbc_config *cfg = run->cfg;
    clocksync_options sopt = {
        .method = cfg->clocksync.method,
        .roundtrips = cfg->clocksync.roundtrips,
        .drift_gap_s = cfg->clocksync.drift_gap_s,
        .barrier_margin_s = cfg->clocksync.barrier_margin_us * 1e-6,
        .barrier_sleep_min_s = deployment->barrier_sleep_min_s,
        .on_wait_change = log_wait_change,
    };
    int64_t start_ns = clocksync_monotonic_ns();
    NBC_CHECK_MPI(clocksync_create(&shared->sync, MPI_COMM_WORLD, &sopt, NULL));
    run->sync = shared->sync;
    shared->clock_read_ns = clocksync_clock_read_ns(clocksync_get_clock(run->sync));
    report_barrier_wait(run, deployment);
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
