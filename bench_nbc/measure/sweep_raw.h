/* raw.csv's rows of a cell (docs/formats.md): its attempts converted to
 * global time on each rank, gathered on rank 0 and printed, as a cell ends
 * and again after the end calibration (nbc_sweep_rewrite_raw). */
#ifndef BENCH_NBC_SWEEP_RAW_H
#define BENCH_NBC_SWEEP_RAW_H

#include "bench_nbc/measure/measure.h"

#include <stdint.h>
#include <stdio.h>

/* One cell's attempts of this rank in global time, gathered on rank 0:
 * *all holds log->count rows per rank, rank after rank (NULL on the other
 * ranks; the caller frees it). Every rank made the same attempts (they are
 * collective), so the logs line up. Collective. */
int nbc_raw_gather_cell(nbc_run *run, const nbc_attempt_log *log, int64_t **all);

/* raw.csv's rows of one cell from what nbc_raw_gather_cell gathered
 * (rank 0). */
int nbc_raw_print_cell(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                       const nbc_attempt_log *log, const int64_t *all, FILE *f);

/* Gathers one cell's rows and writes them to `f` (rank 0). Collective. */
int nbc_raw_write_cell(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                       size_t cell, FILE *f);

#endif
