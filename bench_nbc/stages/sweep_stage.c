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
    json_object_object_add(o, "late_patience_s", json_object_new_double(run->late_patience_s));
    json_object_object_add(o, "sweep_seed", json_object_new_int64(seed));
    json_object_object_add(o, "cell_order", order);
    json_object_object_add(o, "warmup_blocks", json_object_new_int(1));
    json_object_object_add(o, "cells_unreachable", json_object_new_int64((int64_t)unreachable));
    json_object_object_add(o, "clock_source", json_object_new_string(clocksync_clock_source()));
    json_object_object_add(o, "clock_read_ns", json_object_new_double(clock_read_ns));
    return o;
}

void nbc_sweep_stage(nbc_study *study, const nbc_cli *cli, unsigned seed, nbc_deployment_state *dep,
                     const nbc_shared *shared)
{
    nbc_run *run = &study->run;
    const nbc_config *cfg = run->cfg;
    char err[1024] = "";
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    study->plan = (nbc_sweep_plan){
        .comm = study->prior.comm,
        .comm_count = nbc_comm_axis_count(cfg),
        .comp = study->prior.comp,
        .comp_count = cfg->grid.comp_count,
        .cell_done = cli->replay.cell_text ? cli->replay.mask : study->prior.cell_done,
        .seed = seed,
        .sizable = run->coll->sizable,
    };
    study->unreachable = nbc_report_unreachable(run, &study->plan, study->calibrated);
    /* --stop-after calibration: no sweep and no end stages; --resume runs them. */
    study->stopped = study->calibrated && cli->stop_after_calibration;
    nbc_exit_if_any_failed(nbc_sweep_record_init(&study->record, cells) != 0,
                           "out of memory for the sweep's records", 1);
    study->interrupted = !study->calibrated;
    int64_t sweep_start_ns = clocksync_now_local_ns(run->sync);
    nbc_deployment_sweep_mark(dep, false);
    /* sched.csv: the scheduler's counters over every attempt of the sweep */
    if (nbc_threads_start_recording(run->threads, err, sizeof err) != 0)
        fprintf(stderr, "bench_nbc: rank %d: warning: no sched.csv rows: %s\n", run->rank, err);
    study->rc = study->calibrated && !study->stopped
                    ? nbc_sweep(run, &study->plan, &study->record, &study->interrupted)
                    : MPI_SUCCESS;
    nbc_threads_stop_recording(run->threads);
    nbc_deployment_sweep_mark(dep, true);
    study->meta.sweep_s = (double)(clocksync_now_local_ns(run->sync) - sweep_start_ns) * 1e-9;
    for (size_t cell = 0; cell < cells; cell++)
        study->meta.cells_done += study->record.measured[cell] || study->prior.cell_done[cell];
    if (run->rank == 0)
        study->meta.measurement =
            measurement_json(run, seed, &study->record, study->unreachable, shared->clock_read_ns);
}
