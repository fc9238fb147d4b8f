/* raw.csv's rows of a cell (sweep_raw.h). */
#include "bench_nbc/measure/sweep_raw.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"

#include <inttypes.h>
#include <stdlib.h>

/* Per attempt and rank, what raw.csv holds besides the cell's columns. */
enum { ROW_T1, ROW_T4 = ROW_T1 + 3, ROW_WALL, ROW_DEADLINE, ROW_LATE, ROW_FOREIGN, ROW_FIELDS };

int nbc_raw_gather_cell(nbc_run *run, const nbc_attempt_log *log, int64_t **all)
{
    size_t per_rank = log->count * ROW_FIELDS;
    const clocksync_model *model = clocksync_get_model(run->sync);
    int64_t *mine = malloc((per_rank ? per_rank : 1) * sizeof *mine);
    *all = run->rank == 0 ? malloc((per_rank ? per_rank : 1) * run->ranks * sizeof **all) : NULL;
    int rc = mine && (run->rank != 0 || *all) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (size_t i = 0; rc == MPI_SUCCESS && i < log->count; i++) {
        const nbc_attempt *a = &log->items[i];
        int64_t *row = &mine[i * ROW_FIELDS];
        for (int k = 0; k < 4; k++)
            row[ROW_T1 + k] =
                clocksync_model_to_global(model, a->sample.t_ns[k]) - run->epoch_global_ns;
        row[ROW_WALL] = a->wall_start_ns;
        row[ROW_DEADLINE] = a->deadline_global_ns - run->epoch_global_ns;
        row[ROW_LATE] = a->exit_late_ns;
        row[ROW_FOREIGN] = a->foreign_wait_ns;
    }
    if (rc == MPI_SUCCESS && per_rank > 0)
        rc = MPI_Gather(mine, (int)per_rank, MPI_INT64_T, *all, (int)per_rank, MPI_INT64_T, 0,
                        run->comm);
    free(mine);
    if (rc != MPI_SUCCESS) {
        free(*all);
        *all = NULL;
    }
    return rc;
}

int nbc_raw_print_cell(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                       const nbc_attempt_log *log, const int64_t *all, FILE *f)
{
    size_t per_rank = log->count * ROW_FIELDS;
    const nbc_comm_calibration *comm = &plan->comm[cell / plan->comp_count];
    const compute_calib_result *comp = &plan->comp[cell % plan->comp_count];
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < log->count; i++) {
        const nbc_attempt *a = &log->items[i];
        for (int r = 0; r < run->ranks; r++) {
            const int64_t *t = &all[r * per_rank + i * ROW_FIELDS];
            if (fprintf(f,
                        "%zu,%s,%.9g,%.9g,%zu,%zu,%d,%s,%s,%d,%" PRId64 ",%" PRId64 ".%06" PRId64
                        ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                        ",%" PRId64 ",%d,%" PRId64 ",%" PRId64 "\n",
                        cell, run->coll->name, comm->target_s, comp->target_s, comm->bytes,
                        comp->matrix_n, a->block, a->block == 0 ? "warmup" : "measure",
                        nbc_kind_names[a->kind], a->attempt, a->seq, t[ROW_WALL] / 1000000000,
                        (t[ROW_WALL] % 1000000000) / 1000, r, t[ROW_T1], t[ROW_T1 + 1],
                        t[ROW_T1 + 2], t[ROW_T4], t[ROW_DEADLINE], t[ROW_LATE], a->tolerance_ns,
                        a->late, a->start_skew_ns, t[ROW_FOREIGN]) < 0)
                rc = MPI_ERR_IO;
        }
    }
    return rc;
}

int nbc_raw_write_cell(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                       size_t cell, FILE *f)
{
    int64_t *all;
    int rc = nbc_raw_gather_cell(run, &record->logs[cell], &all);
    if (rc == MPI_SUCCESS && run->rank == 0)
        rc = nbc_raw_print_cell(run, plan, cell, &record->logs[cell], all, f);
    free(all);
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
    for (size_t i = 0; i < record->order_count && rc == MPI_SUCCESS; i++)
        rc = nbc_raw_write_cell(run, plan, record, record->order[i], f);
    if (run->rank == 0) {
        if (rc == MPI_SUCCESS && run_output_commit_replace(run->out, OUT_RAW, f) != 0)
            rc = MPI_ERR_IO;
        else if (rc != MPI_SUCCESS)
            fclose(f);
    }
    return rc;
}
