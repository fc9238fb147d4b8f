/* The sweep's plan and record (measure.h): which cells can be measured
 * (their computation and communication calibrated close enough to their
 * targets), the record of what the sweep measured, allocated and freed, and
 * what lateness cost it. The sweep itself is sweep.c's. */
#include "bench_nbc/measure/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool nbc_comp_measurable(const compute_calib_result *comp)
{
    return comp->matrix_n > 0 && comp->status != COMPUTE_CALIB_ERROR &&
           (comp->converged ||
            fabs(comp->t_s - comp->target_s) <= nbc_off_target_max_error() * comp->target_s);
}

bool nbc_cell_reachable(const nbc_sweep_plan *plan, size_t cell)
{
    const nbc_comm_calibration *comm = &plan->comm[cell / plan->comp_count];
    const compute_calib_result *comp = &plan->comp[cell % plan->comp_count];
    /* bytes is 0 when the closest size missed by more than the analysis
     * reads as the target (calibrate.c) */
    bool comm_reached = !plan->sizable || comm->bytes > 0;
    return comm_reached && nbc_comp_measurable(comp);
}

int nbc_sweep_record_init(nbc_sweep_record *record, size_t cells)
{
    *record = (nbc_sweep_record){
        .cells = cells,
        .measured = calloc(cells, sizeof(bool)),
        .logs = calloc(cells, sizeof(nbc_attempt_log)),
        .order = calloc(cells, sizeof(size_t)),
        .stops = calloc(cells, sizeof(nbc_cell_stop)),
    };
    if (!record->measured || !record->logs || !record->order || !record->stops) {
        nbc_sweep_record_free(record);
        return -1;
    }
    return 0;
}

void nbc_sweep_record_free(nbc_sweep_record *record)
{
    for (size_t c = 0; record->logs && c < record->cells; c++)
        nbc_attempt_log_free(&record->logs[c]);
    free(record->measured);
    free(record->logs);
    free(record->order);
    free(record->stops);
    *record = (nbc_sweep_record){0};
}

/* What lateness cost the blocks of one cell's log (the measured ones, or
 * with the warm-up too): attempts, late ones, discarded ones (late, or on
 * time in a pass a late one ended) and blocks redone. The log holds a
 * block's attempts together. */
typedef struct lateness_count {
    long attempts, late, discarded, blocks, redone;
} lateness_count;

static void count_lateness(const nbc_attempt_log *log, bool with_warmup, lateness_count *n)
{
    for (size_t begin = 0; begin < log->count;) {
        const nbc_attempt *first = &log->items[begin];
        size_t end = begin + 1;
        while (end < log->count && log->items[end].block == first->block)
            end++;
        const nbc_attempt *last = &log->items[end - 1];
        if (with_warmup || first->block >= 1) {
            n->blocks++;
            n->redone += last->attempt > first->attempt;
            for (size_t i = begin; i < end; i++) {
                const nbc_attempt *a = &log->items[i];
                n->attempts++;
                n->late += a->late;
                n->discarded += a->late || a->attempt != last->attempt || last->late;
            }
        }
        begin = end;
    }
}

void nbc_sweep_report_lateness(const nbc_run *run, const nbc_sweep_record *record)
{
    lateness_count n = {0}, paid = {0};
    for (size_t i = 0; i < record->order_count; i++) {
        count_lateness(&record->logs[record->order[i]], false, &n);
        count_lateness(&record->logs[record->order[i]], true, &paid);
    }
    if (run->rank != 0 || n.attempts == 0)
        return;
    fprintf(stdout,
            "bench_nbc: %s: lateness: %ld of %ld attempts late (%.1f %%), %ld discarded "
            "with the passes they ended (%.1f %%), %ld of %ld blocks redone; tolerance %g of the "
            "shorter reference, at least %.1f us\n",
            run->coll->name, n.late, n.attempts, 100.0 * (double)n.late / (double)n.attempts,
            n.discarded, 100.0 * (double)n.discarded / (double)n.attempts, n.redone, n.blocks,
            run->cfg->run.late_tolerance, (double)run->barrier_precision_ns * 1e-3);
    /* Above this share, redoing costs more than a tenth of the run's time,
     * and what is kept is selected by the machine's quiet moments. The
     * warm-up's redos are paid alike: a cell whose warm-up is late pass
     * after pass is lost to the same cause. */
    static const double lateness_warn_share = 0.10;
    if ((double)paid.discarded > lateness_warn_share * (double)paid.attempts)
        fprintf(stderr,
                "bench_nbc: warning: %s: more than %.0f %% of attempts (warm-up included) late or "
                "discarded: the "
                "window barrier often left late (a busy machine, or wake-ups from sleep; see "
                "\"Window barrier on virtual machines\" in docs/running.md): measure alone, give "
                "a progress thread a core of its own, or raise run.late_tolerance\n",
                run->coll->name, 100 * lateness_warn_share);
}
