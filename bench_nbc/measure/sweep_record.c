/* The sweep's plan and record (measure.h): which cells can be measured
 * (their computation and communication calibrated close enough to their
 * targets), and the record of what the sweep measured, allocated and freed.
 * The sweep itself is sweep.c's. */
#include "bench_nbc/measure/measure.h"

#include <math.h>
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
