/* analysis: metrics per cell, their readings, tables and figures of a run
 * folder, and the comparison of runs. MPI-free: reads the files a run wrote
 * (docs/formats.md), so it can be re-run on old results. Sections 3, 3.3,
 * 4.1 and 5.2 of the BenchNBC paper (papers/003_afcca100ea8c099c.txt) are
 * the specification; equation numbers in comments refer to it.
 * analysis/README.md documents every output.
 *
 * The analysis is in rooms, one folder each with one header that is its
 * whole API, in the order data flows (a room includes only rooms before
 * it; tests/repo/include_graph.py checks it):
 *   inputs/   the run folder's files, the error type, files, CSV;
 *   stats/    order statistics, quantiles, the block bootstrap;
 *   metrics/  a run's cells (cells.csv's rows), sched.csv, a cell's reading;
 *   impact/   the MPI impact of a run and of a study;
 *   verdict/  a study's verdict over its launches;
 *   tables/   cells.csv, cells_by_rank.csv, impact.csv, cells.txt;
 *   figures/  heatmaps, the frontier, gnuplot; the pipeline's options;
 *   analyze/  one run folder, end to end (nbc-analyze);
 *   compare/  runs side by side (nbc-compare);
 *   trace/    one cell's attempts as a trace (nbc-trace);
 *   tools/    the three programs' command lines.
 * This header is the whole analysis for the programs and the other modules
 * that use it. */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include "analysis/analyze/analyze.h"
#include "analysis/compare/compare.h"
#include "analysis/figures/figures.h"
#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"
#include "analysis/tables/tables.h"
#include "analysis/trace/trace.h"
#include "analysis/verdict/verdict.h"

#endif
