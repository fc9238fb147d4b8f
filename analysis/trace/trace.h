/* analysis/trace: nbc-trace, one cell's attempts of raw.csv as a trace. */
#ifndef ANALYSIS_TRACE_TRACE_H
#define ANALYSIS_TRACE_TRACE_H

#include "analysis/inputs/inputs.h"

#include <stdio.h>

/* nbc-trace: every attempt of one cell (its `cell` number) as Chrome trace /
 * Perfetto JSON on out: a track (tid) per rank, a complete event per
 * attempt named after its kind with args block, role, attempt, seq, late,
 * exit_late_ns, and its phases start (t1..t2), compute (t2..t3), wait
 * (t3..t4) nested inside when they last. ANALYSIS_ERR_INPUT when the cell
 * is not in the table. */
int analysis_trace_cell(const raw_table *table, long cell, FILE *out, analysis_error *err);

#endif
