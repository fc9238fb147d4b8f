/* The sweep stage: every reachable cell measured (sweep.c) unless
 * --stop-after calibration stops before it, with the scheduler's counters
 * (sched.csv) and the deployment's threads' CPU time recorded around it. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/stages/stages.h"

#include <json-c/json.h>
#include <stdio.h>

/* meta.json's record of how the sweep measured (docs/formats.md). */
static json_object *measurement_json(const nbc_run *run, unsigned seed,
                                     const nbc_sweep_record *record, size_t unreachable,
                                     double clock_read_ns)
{
    json_object *o = json_object_new_object(), *order = json_object_new_array();
    for (size_t i = 0; order && i < record->order_count; i++)
        json_object_array_add(order, json_object_new_int64((int64_t)record->order[i]));
    json_object_object_add(o, "late_tolerance",
                           json_object_new_double(run->cfg->run.late_tolerance));
    json_object_object_add(o, "barrier_precision_ns",
                           json_object_new_int64(run->barrier_precision_ns));
    json_object_object_add(o, "max_retries", json_object_new_int(run->max_retries));
    json_object_object_add(o, "sweep_seed", json_object_new_int64(seed));
    json_object_object_add(o, "cell_order", order);
    json_object_object_add(o, "warmup_blocks", json_object_new_int(1));
    json_object_object_add(o, "cells_unreachable", json_object_new_int64((int64_t)unreachable));
    json_object_object_add(o, "clock_source", json_object_new_string(clocksync_clock_source()));
    json_object_object_add(o, "clock_read_ns", json_object_new_double(clock_read_ns));
    return o;
}

void nbc_sweep_stage(nbc_job *job)
{
    nbc_run *run = &job->run;
    const nbc_config *cfg = &job->cfg;
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    job->plan = (nbc_sweep_plan){
        .comm = job->prior.comm,
        .comm_count = nbc_comm_axis_count(cfg),
        .comp = job->prior.comp,
        .comp_count = cfg->grid.comp_count,
        .cell_done = job->cli.replay.cell_text ? job->cli.replay.mask : job->prior.cell_done,
        .seed = job->seed,
        .sizable = run->coll->sizable,
    };
    job->unreachable = nbc_report_unreachable(run, &job->plan, job->calibrated);
    /* --stop-after calibration: no sweep and no end stages; --resume runs them. */
    job->stopped = job->calibrated && job->cli.stop_after_calibration;
    nbc_exit_if_any_failed(nbc_sweep_record_init(&job->record, cells) != 0,
                           "out of memory for the sweep's records", 1);
    job->interrupted = !job->calibrated;
    int64_t sweep_start_ns = clocksync_now_local_ns(run->sync);
    nbc_deployment_sweep_mark(&job->dep, false);
    /* sched.csv: the scheduler's counters over every attempt of the sweep */
    if (nbc_threads_start_recording(job->threads_log, job->err, sizeof job->err) != 0)
        fprintf(stderr, "bench_nbc: rank %d: warning: no sched.csv rows: %s\n", run->rank,
                job->err);
    job->rc = job->calibrated && !job->stopped
                  ? nbc_sweep(run, &job->plan, &job->record, &job->interrupted)
                  : MPI_SUCCESS;
    nbc_threads_stop_recording(job->threads_log);
    nbc_deployment_sweep_mark(&job->dep, true);
    job->meta.sweep_s = (double)(clocksync_now_local_ns(run->sync) - sweep_start_ns) * 1e-9;
    for (size_t cell = 0; cell < cells; cell++)
        job->meta.cells_done += job->record.measured[cell] || job->prior.cell_done[cell];
    if (run->rank == 0)
        job->meta.measurement =
            measurement_json(run, job->seed, &job->record, job->unreachable, job->clock_read_ns);
}
