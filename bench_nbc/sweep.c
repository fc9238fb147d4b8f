/* The sweep (Algorithm 1 over the grid): for every cell, repetitions of the
 * three kinds interleaved so the references see the same machine state as
 * the overlap they are compared with. The order rotates from one repetition
 * to the next (comm_ref, comp_ref, overlap; then comp_ref, overlap,
 * comm_ref; ...) so no kind always follows the same one (warm caches, a
 * frequency step). Rows go to raw.csv as each cell ends. */
#include "bench_nbc/driver.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int nbc_sweep_record_init(nbc_sweep_record *record, size_t cells, int reps)
{
    size_t per_cell = (size_t)reps * KIND_COUNT;
    *record = (nbc_sweep_record){
        .reps = reps,
        .cells = cells,
        .measured = calloc(cells, sizeof(bool)),
        .samples = calloc(cells * per_cell, sizeof(nbc_sample)),
        .retries = calloc(cells * per_cell, sizeof(int)),
    };
    if (!record->measured || !record->samples || !record->retries) {
        nbc_sweep_record_free(record);
        return -1;
    }
    return 0;
}

void nbc_sweep_record_free(nbc_sweep_record *record)
{
    free(record->measured);
    free(record->samples);
    free(record->retries);
    *record = (nbc_sweep_record){0};
}

/* Converts one cell's samples of this rank to global time, gathers them on
 * rank 0 and writes the cell's rows to `f` (rank 0). Collective. */
static int write_cell(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                      size_t cell, FILE *f)
{
    size_t per_rank = (size_t)record->reps * KIND_COUNT * 4;
    const nbc_sample *samples = &record->samples[cell * record->reps * KIND_COUNT];
    const int *retries = &record->retries[cell * record->reps * KIND_COUNT];
    const clocksync_model *model = clocksync_get_model(run->sync);
    int64_t *mine = malloc(per_rank * sizeof *mine);
    int64_t *all = run->rank == 0 ? malloc(per_rank * run->ranks * sizeof *all) : NULL;
    int rc = mine && (run->rank != 0 || all) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (size_t i = 0; rc == MPI_SUCCESS && i < per_rank; i++)
        mine[i] =
            clocksync_model_to_global(model, samples[i / 4].t_ns[i % 4]) - run->epoch_global_ns;
    if (rc == MPI_SUCCESS)
        rc = MPI_Gather(mine, (int)per_rank, MPI_INT64_T, all, (int)per_rank, MPI_INT64_T, 0,
                        run->comm);
    if (rc == MPI_SUCCESS && run->rank == 0) {
        size_t ci = cell / plan->comp_count, cj = cell % plan->comp_count;
        const nbc_comm_calibration *comm = &plan->comm[ci];
        const compute_calib_result *comp = &plan->comp[cj];
        for (int rep = 0; rep < record->reps; rep++) {
            for (int kind = 0; kind < KIND_COUNT; kind++) {
                size_t k = (size_t)rep * KIND_COUNT + kind;
                for (int r = 0; r < run->ranks; r++) {
                    const int64_t *t = &all[r * per_rank + k * 4];
                    if (fprintf(f,
                                "%zu,%s,%.9g,%.9g,%zu,%zu,%d,%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64
                                ",%" PRId64 ",%d\n",
                                cell, run->coll->name, comm->target_s, comp->target_s, comm->bytes,
                                comp->matrix_n, rep, nbc_kind_names[kind], r, t[0], t[1], t[2],
                                t[3], retries[k]) < 0)
                        rc = MPI_ERR_IO;
                }
            }
        }
    }
    free(mine);
    free(all);
    return rc;
}

/* One line per cell on stderr from rank 0 (rewritten in place on a terminal). */
static void report_progress(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell, int done,
                            int total, double elapsed_s)
{
    if (run->rank != 0)
        return;
    const nbc_comm_calibration *comm = &plan->comm[cell / plan->comp_count];
    const compute_calib_result *comp = &plan->comp[cell % plan->comp_count];
    double left_s = done > 0 ? elapsed_s / done * (total - done) : 0;
    bool tty = isatty(STDERR_FILENO);
    fprintf(stderr,
            "%sbench_nbc: cell %d/%d  comm %.3g ms (%zu B) x comp %.3g ms (n=%zu)  "
            "elapsed %.0f s, about %.0f s left%s",
            tty ? "\r\033[K" : "", done, total, comm->target_s * 1e3, comm->bytes,
            comp->target_s * 1e3, comp->matrix_n, elapsed_s, left_s,
            tty && done < total ? "" : "\n");
    fflush(stderr);
}

/* Adds a calibration point when the last one is older than the resync
 * interval (rank 0 decides, so all ranks calibrate together). */
static int maybe_resync(nbc_run *run)
{
    double interval_s = run->cfg->clocksync.resync_interval_s;
    if (interval_s <= 0)
        return MPI_SUCCESS;
    const clocksync_model *m = clocksync_get_model(run->sync);
    int due =
        m->n_points > 0 &&
        (double)(clocksync_now_local_ns(run->sync) - m->points[m->n_points - 1].local_ns) * 1e-9 >=
            interval_s;
    int rc = MPI_Bcast(&due, 1, MPI_INT, 0, run->comm);
    return rc == MPI_SUCCESS && due ? clocksync_calibrate(run->sync) : rc;
}

int nbc_sweep(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record, bool *interrupted)
{
    *interrupted = false;
    size_t cells = plan->comm_count * plan->comp_count;
    int total = 0, done = 0;
    for (size_t c = 0; c < cells; c++)
        total += !(plan->cell_done && plan->cell_done[c]);
    FILE *raw = run->rank == 0 ? run_output_file(run->out, OUT_RAW) : NULL;
    int rc = run->rank != 0 || raw ? MPI_SUCCESS : MPI_ERR_IO;
    int64_t start_ns = clocksync_now_local_ns(run->sync);
    /* Message sizes outside, matrix sizes inside: buffers are allocated once per size. */
    for (size_t ci = 0; ci < plan->comm_count && rc == MPI_SUCCESS && !*interrupted; ci++) {
        coll_instance inst;
        char err[256];
        int failed = coll_instance_prepare(&inst, run->coll, run->comm, plan->comm[ci].bytes, err,
                                           sizeof err) != 0;
        int any_failed;
        rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
        if (rc == MPI_SUCCESS && any_failed) {
            if (failed)
                fprintf(stderr, "bench_nbc: rank %d: %s\n", run->rank, err);
            else
                coll_instance_release(&inst);
            rc = MPI_ERR_NO_MEM;
            break;
        }
        for (size_t cj = 0; cj < plan->comp_count && rc == MPI_SUCCESS; cj++) {
            size_t cell = ci * plan->comp_count + cj;
            if (plan->cell_done && plan->cell_done[cell])
                continue;
            watchdog_context(run->watchdog, "a clock resynchronization");
            watchdog_arm(run->watchdog, 0);
            watchdog_phase(run->watchdog, PHASE_CALIBRATION);
            rc = maybe_resync(run);
            watchdog_disarm(run->watchdog);
            run->fault_hang = run->fault_hang_cell == (int)cell;
            size_t matrix_n = plan->comp[cj].matrix_n;
            nbc_sample *samples = &record->samples[cell * record->reps * KIND_COUNT];
            int *retries = &record->retries[cell * record->reps * KIND_COUNT];
            for (int rep = 0; rep < record->reps && rc == MPI_SUCCESS && !*interrupted; rep++) {
                for (int turn = 0; turn < KIND_COUNT && rc == MPI_SUCCESS; turn++) {
                    nbc_kind kind = (nbc_kind)((turn + rep) % KIND_COUNT);
                    size_t k = (size_t)rep * KIND_COUNT + kind;
                    char context[256];
                    snprintf(context, sizeof context,
                             "cell %zu (comm %.3g ms, %zu B x comp %.3g ms, n=%zu), %s, "
                             "repetition %d",
                             cell, plan->comm[ci].target_s * 1e3, plan->comm[ci].bytes,
                             plan->comp[cj].target_s * 1e3, matrix_n, nbc_kind_names[kind], rep);
                    watchdog_context(run->watchdog, context);
                    double expected_s[KIND_COUNT] = {plan->comm[ci].t_s, plan->comp[cj].t_s,
                                                     fmax(plan->comm[ci].t_s, plan->comp[cj].t_s)};
                    rc = nbc_measure(run, kind, &inst, matrix_n, expected_s[kind], &samples[k],
                                     &retries[k]);
                }
                if (rc == MPI_SUCCESS)
                    *interrupted = nbc_stop_requested(run);
            }
            if (rc != MPI_SUCCESS || *interrupted)
                break; /* a cell cut short is not written: it is redone on --resume */
            record->measured[cell] = true;
            rc = write_cell(run, plan, record, cell, raw);
            if (rc == MPI_SUCCESS && run->rank == 0 && run_output_flush(run->out) != 0)
                rc = MPI_ERR_IO;
            /* Every rank learns of a write failure on rank 0. */
            if (rc == MPI_SUCCESS || rc == MPI_ERR_IO) {
                int failed_here = rc != MPI_SUCCESS, failed_any;
                int brc = MPI_Allreduce(&failed_here, &failed_any, 1, MPI_INT, MPI_MAX, run->comm);
                rc = brc != MPI_SUCCESS ? brc : (failed_any ? MPI_ERR_IO : MPI_SUCCESS);
            }
            done++;
            report_progress(run, plan, cell, done, total,
                            (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9);
        }
        coll_instance_release(&inst);
    }
    return rc;
}

int nbc_sweep_rewrite_raw(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                          long keep_bytes)
{
    FILE *f = NULL;
    int failed = 0;
    if (run->rank == 0) {
        f = run_output_begin_replace(run->out, OUT_RAW, keep_bytes);
        failed = f == NULL;
    }
    int rc = MPI_Bcast(&failed, 1, MPI_INT, 0, run->comm);
    if (rc != MPI_SUCCESS || failed)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_IO;
    for (size_t cell = 0; cell < record->cells && rc == MPI_SUCCESS; cell++)
        if (record->measured[cell])
            rc = write_cell(run, plan, record, cell, f);
    if (run->rank == 0) {
        if (rc == MPI_SUCCESS && run_output_commit_replace(run->out, OUT_RAW, f) != 0)
            rc = MPI_ERR_IO;
        else if (rc != MPI_SUCCESS)
            fclose(f);
    }
    return rc;
}
