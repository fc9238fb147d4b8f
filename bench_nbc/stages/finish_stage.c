/* The finish stage: a study's passive step again and meta.json's last
 * word; at the job's end, its end clock point and every study's raw records
 * converted by interpolation, the exit status, and everything the job
 * started stopped and freed. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

/* meta.json clocksync.raw_times: before and after the job's end point. */
#define RAW_TIMES_START "extrapolated from the job's start point"
#define RAW_TIMES_BOTH  "interpolated between the job's start and end points"

/* Cells whose every block was kept: measured now and not stopped late, or
 * kept by an earlier session of a resumed run. */
static int cells_kept(const nbc_sweep_record *record, const bool *done_before)
{
    int kept = 0;
    for (size_t c = 0; c < record->cells; c++) {
        const nbc_attempt_log *log = &record->logs[c];
        kept += done_before[c] ||
                (record->measured[c] && log->count > 0 && !log->items[log->count - 1].late);
    }
    return kept;
}

/* meta.json's end: the clocks, the deployment and threads at the end. */
static void record_end(nbc_job *job)
{
    nbc_run *run = &job->study.run;
    meta_info *meta = &job->study.meta;
    meta->clocksync =
        job->study.rc == MPI_SUCCESS ? nbc_meta_clocksync_json(run, RAW_TIMES_START) : NULL;
    if (job->study.rc == MPI_SUCCESS) {
        json_object_put(meta->deployment);
        meta->deployment = nbc_deployment_meta_json(run, &job->dep);
        /* Threads that appeared during the run show in the list of the end. */
        nbc_record_threads(run, meta, job->place.host, "threads_end");
        json_object *cost = nbc_meta_gather_json(run, nbc_threads_cost_json(job->threads_log));
        if (run->rank == 0)
            json_object_object_add(meta->thread_record, "sched_snapshot", cost);
    }
    int kept = cells_kept(&job->study.record, job->study.prior.cell_done);
    if (run->rank == 0)
        json_object_object_add(meta->thread_record, "cells_kept", json_object_new_int(kept));
    meta->status = job->study.rc != MPI_SUCCESS ? "failed"
                   : job->study.interrupted     ? "interrupted"
                   : job->study.stopped         ? "calibrated"
                                                : "complete";
    nbc_iso_time_now(meta->end_time, sizeof meta->end_time);
    if (run->rank == 0) {
        nbc_meta_write(run, meta);
        /* Stopped after the calibration (nbc-run's first step): no cell yet
         * is what was asked, not a shortfall. */
        /* One duration per step, and no folder: the run folder line said it.
         * A resumed run's calibration was the earlier step's (timed there). */
        if (job->study.stopped && job->study.rc == MPI_SUCCESS && !job->study.interrupted)
            fprintf(stderr, "bench_nbc: calibrated in %.1f s%s; next: the sweep of its %d cells\n",
                    meta->calibration_s,
                    run->cfg->run.calibration_from && run->cfg->run.calibration_from[0]
                        ? " (sizes of run.calibration_from)"
                        : "",
                    meta->cells_total);
        else if (job->cli.resume_dir)
            fprintf(stderr, "bench_nbc: %s: %d of %d cells, sweep %.1f s\n", meta->status,
                    meta->cells_done, meta->cells_total, meta->sweep_s);
        else
            fprintf(stderr, "bench_nbc: %s: %d of %d cells (calibration %.1f s, sweep %.1f s)\n",
                    meta->status, meta->cells_done, meta->cells_total, meta->calibration_s,
                    meta->sweep_s);
    }
    job->study.kept = kept;
}

/* The study's own things freed: its records, folder, clock context. */
static void end_study(nbc_job *job)
{
    nbc_run *run = &job->study.run;
    meta_info *meta = &job->study.meta;
    json_object_put(meta->hosts);
    json_object_put(meta->binding);
    json_object_put(meta->clocksync);
    json_object_put(meta->measurement);
    json_object_put(meta->deployment);
    json_object_put(meta->system);
    json_object_put(meta->thread_record);
    *meta = (meta_info){0};
    nbc_mpit_free(run->mpit);
    run->mpit = NULL;
    nbc_sweep_record_free(&job->study.record);
    nbc_resume_free(&job->study.prior);
    clocksync_free(run->sync);
    run->sync = job->shared.sync;
    run_output_close(run->out);
    run->out = NULL;
}

/* The study's records and clock context kept for the job's end point
 * (nbc_study_rewrite); the study no longer owns them. Collective. */
static void keep_for_rewrite(nbc_job *job)
{
    nbc_run *run = &job->study.run;
    nbc_study_rewrite *grown =
        realloc(job->rewrites, (job->rewrite_count + 1) * sizeof *job->rewrites);
    nbc_exit_if_any_failed(!grown, "out of memory keeping a study's records", 1);
    job->rewrites = grown;
    nbc_study_rewrite *w = &grown[job->rewrite_count++];
    *w = (nbc_study_rewrite){.run = *run,
                             .prior = job->study.prior,
                             .plan = job->study.plan,
                             .record = job->study.record};
    w->run.out = NULL;
    w->run.mpit = NULL;
    if (run->rank == 0)
        snprintf(w->dir, sizeof w->dir, "%s", run_output_dir(run->out));
    NBC_CHECK_MPI(MPI_Comm_dup(run->comm, &w->run.comm));
    job->study.prior = (nbc_resume){0};
    job->study.record = (nbc_sweep_record){0};
    run->sync = NULL;
}

void nbc_finish_study(nbc_job *job)
{
    nbc_run *run = &job->study.run;
    bool stopped = job->study.stopped;
    /* The passive step again, so drift over the sweep shows in equation 2;
     * after the sweep's files reached the disk, so no write-back of them
     * competes with it (rank 0 computed ~10 % slower while a raw.csv was
     * being written back). raw.csv's times are converted again at the
     * job's end point. */
    if (job->study.rc == MPI_SUCCESS && !job->study.interrupted && !stopped) {
        if (run->rank == 0 && run_output_sync(run->out) != 0)
            fprintf(stderr, "bench_nbc: warning: the passive step after the sweep may meet the "
                            "write-back of the run folder's files\n");
        nbc_measure_passive(run, &job->place, job->study.prior.comp, job->cfg.grid.comp_count,
                            "after");
    }
    record_end(job);
    size_t cells = job->study.record.cells; /* before keep_for_rewrite takes the record */
    if (job->study.rc == MPI_SUCCESS && !stopped)
        keep_for_rewrite(job);
    int rc = job->study.rc;
    /* 3 tells a batch script the run was cut short but kept its cells; 5
     * that it ended with nothing to analyse. */
    int status = rc != MPI_SUCCESS        ? 1
                 : job->study.interrupted ? 3
                 : stopped                ? 0
                 : job->study.kept == 0   ? 5
                                          : 0;
    if (status == 5 && run->rank == 0)
        fprintf(stderr,
                "bench_nbc: no cell was measured whole: %zu of %zu cells unreachable (calibration "
                "did not reach their targets), the other %zu stopped late (every retry of an "
                "attempt left the window barrier late; raw.csv); exit status 5\n",
                job->study.unreachable, cells, cells - job->study.unreachable);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "bench_nbc: rank %d: the run failed (MPI error %d)\n", run->rank, rc);
    job->study_status = status;
    end_study(job);
}

/* One study's raw.csv converted again by interpolation between the job's
 * start and end points, and its meta.json told so. Collective on its ranks. */
static int rewrite_study(nbc_job *job, nbc_study_rewrite *w)
{
    nbc_run *run = &w->run;
    /* A study on fewer ranks fails on its own ranks: the others are already
     * at their next study's rewrite, on another communicator. */
    nbc_errors_scope(run->comm, MPI_COMM_NULL);
    int failed = clocksync_adopt_later_points(run->sync, job->shared.sync) != 0;
    if (run->rank == 0 && !failed) {
        run->out = run_output_open(w->dir, job->err, sizeof job->err);
        failed = run->out == NULL;
        if (failed)
            fprintf(stderr, "bench_nbc: %s\n", job->err);
    }
    int rc = MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc == MPI_SUCCESS && failed)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS)
        rc = nbc_sweep_rewrite_raw(run, &w->plan, &w->record, w->prior.raw_keep_bytes);
    if (rc == MPI_SUCCESS) {
        json_object *clocksync = nbc_meta_clocksync_json(run, RAW_TIMES_BOTH);
        if (run->rank == 0 && nbc_meta_replace_key(run->out, "clocksync", clocksync) != 0)
            rc = MPI_ERR_IO;
    }
    nbc_errors_scope(MPI_COMM_NULL, MPI_COMM_NULL);
    return rc;
}

static void free_rewrite(nbc_study_rewrite *w)
{
    run_output_close(w->run.out);
    clocksync_free(w->run.sync);
    nbc_sweep_record_free(&w->record);
    nbc_resume_free(&w->prior);
    if (w->run.comm != MPI_COMM_NULL)
        MPI_Comm_free(&w->run.comm);
}

/* The job's end point, once for all its studies, on every rank when any
 * study kept records; then every study's raw.csv converted again. A study's
 * own end point would cost one clock sync per study. 0, or 1 on failure. */
static int end_point_and_rewrites(nbc_job *job)
{
    int any = job->rewrite_count > 0;
    int rc = MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && any) {
        int64_t start_ns = clocksync_monotonic_ns();
        rc = nbc_clock_sync_end(&job->study.run, &job->shared);
        for (size_t i = 0; i < job->rewrite_count && rc == MPI_SUCCESS; i++)
            rc = rewrite_study(job, &job->rewrites[i]);
        if (rc == MPI_SUCCESS && job->rank == 0 && job->study_count > 1)
            fprintf(stderr,
                    "bench_nbc: the job's end clock point: raw.csv of %zu run folder%s converted "
                    "by interpolation (%.1f s)\n",
                    job->rewrite_count, job->rewrite_count == 1 ? "" : "s",
                    (double)(clocksync_monotonic_ns() - start_ns) * 1e-9);
    }
    for (size_t i = 0; i < job->rewrite_count; i++)
        free_rewrite(&job->rewrites[i]);
    free(job->rewrites);
    job->rewrites = NULL;
    if (rc != MPI_SUCCESS)
        fprintf(stderr,
                "bench_nbc: rank %d: the end clock point or a raw.csv rewrite failed "
                "(MPI error %d)\n",
                job->rank, rc);
    return rc == MPI_SUCCESS ? 0 : 1;
}

int nbc_finish_stage(nbc_job *job)
{
    nbc_run *run = &job->study.run;
    int status = job->status;
    if (end_point_and_rewrites(job) != 0 && status == 0)
        status = 1;
    if (progress_thread_stop(run->progress_thread) != MPI_SUCCESS)
        status = 1;
    if (watchdog_stop(run->watchdog) != 0)
        status = 1;
    nbc_threads_free(job->threads_log);
    nbc_deployment_free(&job->dep);
    clocksync_free(job->shared.sync);
    compute_team_destroy(run->team);
    nbc_config_free(&job->cfg);
    nbc_replay_free(&job->cli.replay);
    free(job->shared.comp);
    free(job->colls);
    free(job->rank_counts);
    free(job->cli.sets);
    if (job->waiting != MPI_COMM_NULL)
        MPI_Comm_free(&job->waiting);
    /* Rank 0 reaches this last (it writes the files); MPICH 4.0 over TCP
     * can hang in MPI_Finalize when one rank enters it long after the
     * others, so they enter it together. */
    nbc_mpit_job_end();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
