/* The calibration stage (paper sections 4.3 and 5.1): matrix sizes for the
 * computation targets, the passive step before the sweep, message sizes for
 * the communication targets, the window barrier's precision; the cells
 * calibration could not reach said once. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/plan_estimate.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_calib_comp(nbc_run *run, const compute_calib_result *r)
{
    FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_CALIB_COMP) : NULL;
    if (f)
        fprintf(f, "%.9g,%zu,%.9g,%.6g,%d,%d\n", r->target_s, r->matrix_n, r->t_s,
                r->gflops_per_thread, r->iterations, r->converged);
}

static void write_calib_comm(nbc_run *run, const nbc_comm_calibration *r)
{
    FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_CALIB_COMM) : NULL;
    if (f)
        fprintf(f, "%s,%.9g,%zu,%.9g,%d,%d,%d\n", run->coll->name, r->target_s, r->bytes, r->t_s,
                r->iterations, r->converged, r->size_given);
}

/* run.calibration_from: this run measures with another run's sizes. */
static bool sizes_from_elsewhere(const nbc_config *cfg)
{
    return cfg->run.calibration_from && cfg->run.calibration_from[0] != '\0';
}

/* How precise a calibrated time is, for its log line: its runs and
 * standard error, and whether the most runs left it imprecise (a step that
 * is bimodal on a core shared with a busy thread, docs/running.md). Empty
 * for a calibration kept from the folder a run resumes. */
static const char *precision_text(int runs, double t_se_s, bool imprecise, char *text, size_t size)
{
    if (runs <= 0)
        return "";
    snprintf(text, size, ", %d runs, standard error %.2g ms%s", runs, t_se_s * 1e3,
             imprecise ? ", still imprecise at the most runs: its time may switch between two "
                         "values"
                       : "");
    return text;
}

/* The lateness tolerance is floored at the barrier precision the run measured:
 * on a busy node that floor can exceed the share of the shortest references
 * the rule asks for, and the cells concerned then accept more lateness (their
 * tolerance_ns in raw.csv says how much). Said once, on rank 0. */
static void warn_loose_barrier(const nbc_run *run, const nbc_comm_calibration *comm,
                               const compute_calib_result *comp)
{
    const nbc_config *cfg = run->cfg;
    double shortest_s = INFINITY;
    for (size_t i = 0; i < nbc_comm_axis_count(cfg); i++)
        shortest_s = fmin(shortest_s, comm[i].t_s > 0 ? comm[i].t_s : INFINITY);
    for (size_t j = 0; j < cfg->grid.comp_count; j++)
        shortest_s = fmin(shortest_s, comp[j].t_s > 0 ? comp[j].t_s : INFINITY);
    double share_ns = cfg->run.late_tolerance * shortest_s * 1e9;
    /* A progress thread of the deployment on the computation's cores is the
     * expected cause: naming another process would send the reader astray. */
    bool own_thread = cfg->run.deployment == NBC_DEPLOYMENT_PROGRESS ||
                      (cfg->run.deployment == NBC_DEPLOYMENT_THREAD && cfg->progress.oversubscribe);
    if (run->rank == 0 && isfinite(share_ns) && (double)run->barrier_precision_ns > share_ns)
        fprintf(stderr,
                "bench_nbc: warning: the window barrier's precision here (%.1f us, 90th "
                "percentile) exceeds run.late_tolerance x the shortest reference (%.1f us): "
                "cells that short tolerate up to %.1f us of lateness (raw.csv tolerance_ns); %s\n",
                (double)run->barrier_precision_ns * 1e-3, share_ns * 1e-3,
                (double)run->barrier_precision_ns * 1e-3,
                own_thread ? "the deployment's progress thread shares the computation's cores"
                           : "is another process busy on this node?");
}

/* Computation target j's matrix size, from start_n. More work for a longer
 * target: its n exceeds every shorter target's, so the references rise
 * with their targets even where a step's time is bimodal (a core shared
 * with a busy thread). Printed on rank 0 (nbc-run's log keeps it). */
static void calibrate_comp_target(nbc_run *run, compute_calib_result *comp, size_t j,
                                  size_t start_n, size_t max_n)
{
    const nbc_config *cfg = run->cfg;
    char context[128], err[1024] = "";
    snprintf(context, sizeof context, "the calibration of computation target %.3g ms",
             cfg->grid.comp_times_s[j] * 1e3);
    watchdog_context(run->watchdog, context);
    const compute_calib_result *floor = NULL;
    for (size_t i = 0; i < j; i++)
        if (cfg->grid.comp_times_s[i] < cfg->grid.comp_times_s[j] &&
            (floor == NULL || comp[i].matrix_n > floor->matrix_n))
            floor = &comp[i];
    int rc = nbc_calibrate_comp(run, cfg->grid.comp_times_s[j], start_n, floor, max_n, &comp[j],
                                err, sizeof err);
    nbc_exit_if_any_failed(rc != MPI_SUCCESS, err, 1);
    char precision[160];
    if (run->rank == 0)
        fprintf(stdout, "bench_nbc: computation %.3g ms -> n=%zu, %.3g ms (%s, %d steps%s)\n",
                comp[j].target_s * 1e3, comp[j].matrix_n, comp[j].t_s * 1e3,
                compute_calib_status_name(comp[j].status), comp[j].iterations,
                precision_text(comp[j].runs, comp[j].t_se_s, comp[j].imprecise, precision,
                               sizeof precision));
}

/* The targets from `from` on calibrated in order, each starting from the
 * size before it (or start_n). False: a stop signal came first. */
static bool calibrate_comp_targets(nbc_run *run, compute_calib_result *comp, size_t from,
                                   size_t start_n, size_t max_n)
{
    for (size_t j = from; j < run->cfg->grid.comp_count; j++) {
        if (nbc_stop_requested(run))
            return false;
        calibrate_comp_target(run, comp, j, start_n, max_n);
        if (comp[j].matrix_n > 0)
            start_n = comp[j].matrix_n;
    }
    return true;
}

/* Checks of the sizes calibrated here, each calibrated size measured again
 * once every target has one: a machine whose speed changes for a second
 * (a virtual machine's dgemm at half speed now and then, at a process's
 * start: docs/measurements.md) gives the sizes calibrated meanwhile the wrong work, and every
 * cell of theirs would miss its target in the sweep (comp_off_target).
 * From the first size that misses its target on the check, the targets are
 * calibrated again, and checked again, at most NBC_COMP_CHECK_ROUNDS
 * times: a calibration is kept once a check a few tenths of a second later
 * agrees with it. */

/* The first target from `from` on whose calibrated size misses its target
 * when measured again (count when every one holds), with that measurement. */
static size_t first_comp_miss(nbc_run *run, const compute_calib_result *comp, size_t from,
                              compute_point *again)
{
    const nbc_config *cfg = run->cfg;
    for (size_t j = from; j < cfg->grid.comp_count; j++) {
        if (!nbc_comp_measurable(&comp[j]))
            continue; /* out of reach: its cells are not measured */
        char context[128];
        snprintf(context, sizeof context, "the check of computation target %.3g ms",
                 cfg->grid.comp_times_s[j] * 1e3);
        watchdog_context(run->watchdog, context);
        bool holds;
        int rc = nbc_check_comp(run, &comp[j], again, &holds);
        nbc_exit_if_any_failed(rc != MPI_SUCCESS, "the check of the computation sizes failed", 1);
        if (!holds)
            return j;
    }
    return cfg->grid.comp_count;
}

/* False: a stop signal came first. */
static bool check_computation(nbc_run *run, compute_calib_result *comp, size_t done, size_t max_n)
{
    const nbc_config *cfg = run->cfg;
    for (int round = 0;; round++) {
        if (nbc_stop_requested(run))
            return false;
        compute_point again;
        size_t j = first_comp_miss(run, comp, done, &again);
        if (j == cfg->grid.comp_count)
            return true;
        double miss = 100 * fabs(again.t_s / comp[j].target_s - 1);
        if (round == NBC_COMP_CHECK_ROUNDS) {
            if (run->rank == 0)
                fprintf(stderr,
                        "bench_nbc: warning: the computation's speed kept changing during its "
                        "calibration: n=%zu (target %.3g ms) took %.3g ms when checked, %.0f %% "
                        "off, after %d calibrations; its cells may read comp_off_target\n",
                        comp[j].matrix_n, comp[j].target_s * 1e3, again.t_s * 1e3, miss,
                        NBC_COMP_CHECK_ROUNDS + 1);
            return true;
        }
        if (run->rank == 0)
            fprintf(stdout,
                    "bench_nbc: computation: checked, n=%zu took %.3g ms where its calibration "
                    "measured %.3g ms (target %.3g ms, %.0f %% off): the machine changed speed; "
                    "the targets from %.3g ms on are calibrated again\n",
                    comp[j].matrix_n, again.t_s * 1e3, comp[j].t_s * 1e3, comp[j].target_s * 1e3,
                    miss, comp[j].target_s * 1e3);
        /* t ~ n^3: the size the check's speed gives the target. */
        double start = (double)comp[j].matrix_n * cbrt(comp[j].target_s / again.t_s);
        if (!calibrate_comp_targets(run, comp, j, start >= 1 ? (size_t)start : 1, max_n))
            return false;
    }
}

/* Matrix sizes for every computation target (those a resumed run already
 * has are kept), checked (check_computation). */
static bool calibrate_computation(nbc_run *run, compute_calib_result *comp, size_t done)
{
    const nbc_config *cfg = run->cfg;
    unsigned long long max_n_mine = compute_team_max_matrix_n(run->team), max_n;
    NBC_CHECK_MPI(
        MPI_Allreduce(&max_n_mine, &max_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, run->comm));
    if (run->rank == 0 && done > 0 && !sizes_from_elsewhere(cfg))
        fprintf(stdout, "bench_nbc: computation: %zu of %zu sizes kept from the run folder\n", done,
                cfg->grid.comp_count);
    size_t start_n = compute_calib_defaults().start_n;
    for (size_t j = 0; j < done; j++)
        start_n = comp[j].matrix_n > 0 ? comp[j].matrix_n : start_n;
    if (!calibrate_comp_targets(run, comp, done, start_n, (size_t)max_n))
        return false;
    if (done < cfg->grid.comp_count && !check_computation(run, comp, done, (size_t)max_n))
        return false;
    /* Matrices for the largest size, first-touched now, outside the sweep. */
    size_t largest_n = 1;
    for (size_t j = 0; j < cfg->grid.comp_count; j++)
        largest_n = comp[j].matrix_n > largest_n ? comp[j].matrix_n : largest_n;
    nbc_exit_if_any_failed(compute_team_reserve(run->team, largest_n) != 0,
                           compute_team_error(run->team), 1);
    return true;
}

/* The time at every given size (grid.comm_sizes; kept ones are reused). */
static bool measure_given_sizes(nbc_run *run, nbc_comm_calibration *comm, size_t done)
{
    const nbc_config *cfg = run->cfg;
    if (run->rank == 0 && done > 0 && !sizes_from_elsewhere(cfg))
        fprintf(stdout, "bench_nbc: communication: %zu of %zu sizes kept from the run folder\n",
                done, cfg->grid.comm_size_count);
    for (size_t i = done; i < cfg->grid.comm_size_count; i++) {
        if (nbc_stop_requested(run))
            return false;
        size_t bytes = (size_t)cfg->grid.comm_sizes_bytes[i];
        char context[128];
        snprintf(context, sizeof context, "the communication measurement at %zu B", bytes);
        watchdog_context(run->watchdog, context);
        int rc = nbc_measure_comm_size(run, bytes, &comm[i]);
        nbc_exit_if_any_failed(rc != MPI_SUCCESS, "the communication calibration failed", 1);
        write_calib_comm(run, &comm[i]);
        char precision[160];
        if (run->rank == 0)
            fprintf(stdout, "bench_nbc: communication %zu B (given) -> %.3g ms (%zu B used%s)\n",
                    bytes, comm[i].t_s * 1e3, comm[i].bytes,
                    precision_text(comm[i].runs, comm[i].t_se_s, comm[i].imprecise, precision,
                                   sizeof precision));
    }
    bool write_failed = run->rank == 0 && run_output_flush(run->out) != 0;
    nbc_exit_if_any_failed(write_failed, "cannot write the calibration files", 1);
    return true;
}

/* Message sizes for every communication target (kept ones are reused). */
static bool calibrate_communication(nbc_run *run, nbc_comm_calibration *comm, size_t done)
{
    const nbc_config *cfg = run->cfg;
    if (cfg->grid.comm_size_count > 0)
        return measure_given_sizes(run, comm, done);
    size_t start_bytes = 1024;
    const mpiprofile_size_limit *limit;
    size_t most = nbc_library_max_bytes(run->coll, &run->coll_options, run->ranks, &limit);
    if (limit && most < cfg->calibration.max_bytes && done < nbc_comm_axis_count(cfg) &&
        run->rank == 0) {
        char reason[1024];
        nbc_library_describe_limit(limit, reason, sizeof reason);
        fprintf(stderr,
                "bench_nbc: %s: the search stops at S = %zu bytes, not calibration.max_bytes = "
                "%llu: %s\n",
                run->coll->name, most, (unsigned long long)cfg->calibration.max_bytes, reason);
    }
    if (run->rank == 0 && done > 0 && !sizes_from_elsewhere(cfg))
        fprintf(stdout, "bench_nbc: communication: %zu of %zu sizes kept from the run folder\n",
                done, nbc_comm_axis_count(cfg));
    for (size_t i = 0; i < nbc_comm_axis_count(cfg); i++) {
        if (i >= done && nbc_stop_requested(run))
            return false;
        char context[128];
        snprintf(context, sizeof context, "the calibration of communication target %.3g ms",
                 cfg->grid.comm_times_s[i] * 1e3);
        watchdog_context(run->watchdog, context);
        if (i >= done) {
            /* A longer target's size exceeds every shorter one's, as for the
             * computation: a bimodal step's estimate is too imprecise to
             * keep neighbouring sizes apart on its own. */
            size_t floor_bytes = 0;
            for (size_t k = 0; k < i; k++)
                if (cfg->grid.comm_times_s[k] < cfg->grid.comm_times_s[i] &&
                    comm[k].bytes > floor_bytes)
                    floor_bytes = comm[k].bytes;
            int rc = nbc_calibrate_comm(run, cfg->grid.comm_times_s[i], start_bytes, floor_bytes,
                                        &comm[i]);
            /* Every rank has the same verdict (a data check failure is
             * allreduced); the failing rank printed why. */
            nbc_exit_if_any_failed(rc != MPI_SUCCESS, "the communication calibration failed", 1);
            write_calib_comm(run, &comm[i]);
        }
        if (comm[i].bytes_closest > 0)
            start_bytes = comm[i].bytes_closest;
        char precision[160], verdict[160];
        snprintf(verdict, sizeof verdict,
                 comm[i].converged ? "converged"
                 : !run->coll->sizable
                     ? "it takes no size: measured once, %.0f %% off the target, its cells "
                       "measured at the time it takes"
                 : comm[i].bytes > 0
                     ? "NOT converged, %.0f %% off: measured at this size (off-target "
                       "tolerance %.0f %%)"
                 : comm[i].bytes_closest > 0
                     ? "NOT converged, %.0f %% off, beyond the off-target tolerance %.0f %%: "
                       "its cells are not measured"
                     : "NOT converged, no size left to try (a shorter target's size is the "
                       "largest allowed): its cells are not measured",
                 100 * fabs(comm[i].t_s / comm[i].target_s - 1), 100 * nbc_off_target_max_error());
        if (run->rank == 0 && i >= done)
            fprintf(stdout,
                    "bench_nbc: communication %.3g ms -> %zu B, %.3g ms (%s, %d sizes tried%s)\n",
                    comm[i].target_s * 1e3, comm[i].bytes_closest, comm[i].t_s * 1e3, verdict,
                    comm[i].iterations,
                    precision_text(comm[i].runs, comm[i].t_se_s, comm[i].imprecise, precision,
                                   sizeof precision));
    }
    bool write_failed = run->rank == 0 && run_output_flush(run->out) != 0;
    nbc_exit_if_any_failed(write_failed, "cannot write the calibration files", 1);
    return true;
}

/* Communication targets out of reach because the library's size limit
 * stopped the search below calibration.max_bytes (the closest size was still
 * too fast): the limit and its reason, on rank 0. */
static void report_size_limit(const nbc_run *run, const nbc_sweep_plan *plan)
{
    const mpiprofile_size_limit *limit;
    size_t most = nbc_library_max_bytes(run->coll, &run->coll_options, run->ranks, &limit);
    if (!limit || most >= run->cfg->calibration.max_bytes || !plan->sizable)
        return;
    size_t at_limit = 0;
    for (size_t i = 0; i < plan->comm_count; i++)
        at_limit += plan->comm[i].bytes == 0 &&
                    plan->comm[i].t_s < plan->comm[i].target_s; /* too fast: S too small */
    if (at_limit == 0)
        return;
    char reason[1024];
    nbc_library_describe_limit(limit, reason, sizeof reason);
    fprintf(stderr,
            "bench_nbc: %zu communication target(s) need S above %zu bytes, the largest %s can "
            "take with this library: %s\n",
            at_limit, most, run->coll->name, reason);
}

/* Cells whose targets calibration missed by more than the off-target
 * tolerance are not measured: said once, on rank 0, when calibration ends.
 * Returns how many. */
size_t nbc_report_unreachable(const nbc_run *run, const nbc_sweep_plan *plan, bool calibrated)
{
    size_t cells = plan->comm_count * plan->comp_count, unreachable = 0;
    for (size_t c = 0; calibrated && c < cells; c++)
        unreachable += !nbc_cell_reachable(plan, c);
    if (unreachable && run->rank == 0) {
        fprintf(stderr,
                "bench_nbc: %zu of %zu cells not measured, calibration missed by more than the "
                "off-target tolerance (%.0f %%):",
                unreachable, cells, 100 * nbc_off_target_max_error());
        for (size_t i = 0; plan->sizable && i < plan->comm_count; i++)
            if (plan->comm[i].bytes == 0)
                fprintf(stderr, " comm %.3g ms (closest %.3g ms at %zu B);",
                        plan->comm[i].target_s * 1e3, plan->comm[i].t_s * 1e3,
                        plan->comm[i].bytes_closest);
        for (size_t j = 0; j < plan->comp_count; j++)
            if (!nbc_comp_measurable(&plan->comp[j]))
                fprintf(stderr, " comp %.3g ms (closest %.3g ms at n=%zu);",
                        plan->comp[j].target_s * 1e3, plan->comp[j].t_s * 1e3,
                        plan->comp[j].matrix_n);
        fprintf(stderr, "\n");
        report_size_limit(run, plan);
    }
    return unreachable;
}

void nbc_computation_stage(nbc_study *study, const nbc_cli *cli, nbc_shared *shared)
{
    nbc_run *run = &study->run;
    const nbc_config *cfg = run->cfg;
    int64_t start_ns = clocksync_now_local_ns(run->sync);
    /* Calibration decisions use the extrapolated global time; the window
     * barrier corrects itself. */
    /* A replay measures with the source run's sizes. */
    if (cli->replay.cell_text)
        nbc_load_prior_calibrations(run, cli->replay.run_dir_abs, &study->prior);
    else
        nbc_load_prior(run, cli->resume_dir, &study->prior);
    nbc_resume *prior = &study->prior;
    shared->comp_kept = prior->comp_done;
    study->comm_own = prior->comm_done;
    /* The same work as another run (a study's reference deployment): its
     * sizes, written into this run's folder as its calibration. */
    if (!cli->replay.cell_text && sizes_from_elsewhere(cfg)) {
        nbc_load_calibration_from(run, prior, &shared->comp_kept, &study->comm_own);
        bool taken =
            shared->comp_kept < cfg->grid.comp_count || study->comm_own < nbc_comm_axis_count(cfg);
        /* A record (stdout: nbc-run's log), as the sizes found are. */
        if (run->rank == 0 && taken)
            fprintf(stdout,
                    "bench_nbc: calibration: the message and matrix sizes of %s "
                    "(run.calibration_from), not calibrated here\n",
                    cfg->run.calibration_from);
    }
    /* A stop signal during calibration keeps the sizes found so far. */
    shared->comp_calibrated = calibrate_computation(run, prior->comp, prior->comp_done);
    prior->comp_done = cfg->grid.comp_count;
    /* The studies' communication calibrations extrapolate global time. */
    if (shared->comp_calibrated)
        NBC_CHECK_MPI(clocksync_prepare_realtime(run->sync));
    shared->comp = malloc(cfg->grid.comp_count * sizeof *shared->comp);
    nbc_exit_if_any_failed(!shared->comp, "out of memory", 1);
    memcpy(shared->comp, prior->comp, cfg->grid.comp_count * sizeof *shared->comp);
    shared->elapsed_s += (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
}

void nbc_write_calib_comp_rows(nbc_run *run, const nbc_shared *shared, bool first_study)
{
    for (size_t j = first_study ? shared->comp_kept : 0; j < run->cfg->grid.comp_count; j++)
        write_calib_comp(run, &shared->comp[j]);
}

void nbc_calibration_stage(nbc_study *study, const nbc_cli *cli, const placement *place,
                           const nbc_shared *shared)
{
    nbc_run *run = &study->run;
    const nbc_config *cfg = run->cfg;
    int64_t start_ns = clocksync_now_local_ns(run->sync);
    nbc_resume *prior = &study->prior;
    bool calibrated = shared->comp_calibrated && !nbc_stop_requested(run);
    /* The passive step before the sweep: right before it, with --resume,
     * when the run stops after its calibration (nbc-run measures compute_ref
     * in between: ref, passive | sweep | passive, ref, an ABBA order that
     * cancels a linear drift of the host; analysis/README.md). */
    if (calibrated && !prior->passive_done && !cli->stop_after_calibration)
        nbc_measure_passive(run, place, prior->comp, cfg->grid.comp_count, "before");
    if (sizes_from_elsewhere(cfg)) {
        for (size_t i = study->comm_own; i < prior->comm_done; i++)
            write_calib_comm(run, &prior->comm[i]);
        study->comm_own = prior->comm_done;
        bool write_failed = run->rank == 0 && run_output_flush(run->out) != 0;
        nbc_exit_if_any_failed(write_failed, "cannot write the calibration files", 1);
    }
    calibrated = calibrated && calibrate_communication(run, prior->comm, prior->comm_done);
    /* The precision is the sweep's lateness floor: measured (and warned of)
     * by the process that sweeps, once a launch when nbc-run stops after
     * the calibration and resumes. */
    if (calibrated && !cli->stop_after_calibration) {
        NBC_CHECK_MPI(nbc_measure_barrier_precision(run, 100, &run->barrier_precision_ns));
        warn_loose_barrier(run, prior->comm, prior->comp);
    }
    run->next_seq = prior->next_seq;
    study->meta.calibration_s = (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
    study->calibrated = calibrated;
}
