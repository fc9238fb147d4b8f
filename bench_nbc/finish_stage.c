/* The finish stage: the end clock sync and the raw records converted by
 * interpolation, the passive step again, meta.json's last word, the exit
 * status, and everything the job started stopped and freed. */
#include "bench_nbc/driver.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

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
    nbc_run *run = &job->run;
    meta_info *meta = &job->meta;
    meta->clocksync = job->rc == MPI_SUCCESS ? nbc_meta_clocksync_json(run) : NULL;
    if (job->rc == MPI_SUCCESS) {
        json_object_put(meta->deployment);
        meta->deployment = nbc_deployment_meta_json(run, &job->dep);
        /* Threads that appeared during the run show in the list of the end. */
        nbc_record_threads(run, meta, job->place.host, "threads_end");
        json_object *cost = nbc_meta_gather_json(run, nbc_threads_cost_json(job->threads_log));
        if (run->rank == 0)
            json_object_object_add(meta->thread_record, "sched_snapshot", cost);
    }
    int kept = cells_kept(&job->record, job->prior.cell_done);
    if (run->rank == 0)
        json_object_object_add(meta->thread_record, "cells_kept", json_object_new_int(kept));
    meta->status = job->rc != MPI_SUCCESS ? "failed"
                   : job->interrupted     ? "interrupted"
                   : job->stopped         ? "calibrated"
                                          : "complete";
    nbc_iso_time_now(meta->end_time, sizeof meta->end_time);
    if (run->rank == 0) {
        nbc_meta_write(run, meta);
        fprintf(stderr, "bench_nbc: %s: %d of %d cells in %s (calibration %.1f s, sweep %.1f s)\n",
                meta->status, meta->cells_done, meta->cells_total, run_output_dir(run->out),
                meta->calibration_s, meta->sweep_s);
    }
    job->kept = kept;
}

/* The study's own things freed: its records, folder, clock context. */
static void end_study(nbc_job *job)
{
    nbc_run *run = &job->run;
    meta_info *meta = &job->meta;
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
    nbc_sweep_record_free(&job->record);
    nbc_resume_free(&job->prior);
    clocksync_free(run->sync);
    run->sync = job->job_sync;
    run_output_close(run->out);
    run->out = NULL;
}

void nbc_finish_study(nbc_job *job)
{
    nbc_run *run = &job->run;
    bool stopped = job->stopped;
    if (job->rc == MPI_SUCCESS && !stopped)
        job->rc = nbc_clock_sync_end(job);
    if (job->rc == MPI_SUCCESS && !stopped)
        job->rc = nbc_sweep_rewrite_raw(run, &job->plan, &job->record, job->prior.raw_keep_bytes);
    /* The passive step again, so drift over the sweep shows in equation 2;
     * after raw.csv is rewritten and synced, so no write-back of the
     * sweep's records competes with it (rank 0 computed ~10 % slower
     * before that). */
    if (job->rc == MPI_SUCCESS && !job->interrupted && !stopped)
        nbc_measure_passive(run, &job->place, job->prior.comp, job->cfg.grid.comp_count, "after");
    record_end(job);
    int rc = job->rc;
    size_t cells = job->record.cells;
    /* 3 tells a batch script the run was cut short but kept its cells; 5
     * that it ended with nothing to analyse. */
    int status = rc != MPI_SUCCESS  ? 1
                 : job->interrupted ? 3
                 : stopped          ? 0
                 : job->kept == 0   ? 5
                                    : 0;
    if (status == 5 && run->rank == 0)
        fprintf(stderr,
                "bench_nbc: no cell was measured whole: %zu of %zu cells unreachable (calibration "
                "did not reach their targets), the other %zu stopped late (every retry of an "
                "attempt left the window barrier late; raw.csv); exit status 5\n",
                job->unreachable, cells, cells - job->unreachable);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "bench_nbc: rank %d: the run failed (MPI error %d)\n", run->rank, rc);
    job->study_status = status;
    end_study(job);
}

int nbc_finish_stage(nbc_job *job)
{
    nbc_run *run = &job->run;
    int status = job->status;
    if (progress_thread_stop(run->progress_thread) != MPI_SUCCESS)
        status = 1;
    if (watchdog_stop(run->watchdog) != 0)
        status = 1;
    nbc_threads_free(job->threads_log);
    nbc_deployment_free(&job->dep);
    clocksync_free(job->job_sync);
    compute_team_destroy(run->team);
    nbc_config_free(&job->cfg);
    nbc_replay_free(&job->cli.replay);
    free(job->comp);
    free(job->colls);
    free(job->rank_counts);
    free(job->cli.sets);
    if (job->waiting != MPI_COMM_NULL)
        MPI_Comm_free(&job->waiting);
    /* Rank 0 reaches this last (it writes the files); MPICH 4.0 over TCP
     * can hang in MPI_Finalize when one rank enters it long after the
     * others, so they enter it together. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
