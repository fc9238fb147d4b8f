/* analysis/metrics: the metrics of a run's cells (paper sections 3 and 4.1)
 * in four files by concern, behind analysis_compute_cells (metrics.h), and
 * a cell's intervals (intervals.c):
 *   metrics_blocks.c  a cell's rows of raw.csv -> its usable blocks (kept
 *                     attempts, lateness, per-block spans and local times);
 *   cells.c           a cell's blocks -> its row of cells.csv (ratios of
 *                     medians, intervals), and the run's table;
 *   metrics_ranks.c   a cell's blocks -> its rows of cells_by_rank.csv;
 *   metrics_grid.c    the run's grid: the cells to write, measured or not,
 *                     and what the calibration files say of them.
 * README.md, "How the metrics are computed", is their specification. Times
 * in seconds unless a name says otherwise. Only these files include this. */
#ifndef ANALYSIS_METRICS_INTERNAL_H
#define ANALYSIS_METRICS_INTERNAL_H

#include "analysis/metrics/metrics.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Blocks (metrics_blocks.c) ------------------------------------------------- */

/* The rows of one attempt: one (block, kind, attempt), sorted by rank. */
typedef struct attempt {
    const raw_row *rows;
    size_t n;
} attempt;

/* How attempts are judged (README.md, "Lateness"): by the driver's `late`
 * column, or again against another tolerance. */
typedef struct lateness_judge {
    bool again;
    double tolerance_ns;
} lateness_judge;

/* One usable measured block: the statistics of its kept attempts. "local":
 * one rank's own duration; "slowest local": the largest over ranks. */
typedef struct block_stats {
    double comm_span;          /* comm_ref: max(t4) - min(t1), section 4.1 */
    double comp_span;          /* comp_ref: max(t3) - min(t2) */
    double measured_span;      /* overlap: max(t4) - min(t1) */
    double comm_local;         /* comm_ref: slowest local t4 - t1 */
    double comp_local;         /* comp_ref: slowest local t3 - t2 */
    double mpi_local;          /* overlap: slowest local (t2 - t1) + (t4 - t3) */
    double comp_of_mpi_rank;   /* ... its t3 - t2 */
    int64_t last_arrival_ns;   /* overlap: max(t3), the last rank's arrival at the wait */
    double mpi_from_last;      /* overlap: slowest (t2 - t1) + max(0, t4 - max(t3)) */
    double call;               /* ... its t2 - t1 */
    double wait;               /* ... its max(0, t4 - max(t3)) */
    double comp_overlap_local; /* overlap: slowest local t3 - t2 */
    double measured_local;     /* overlap: slowest local t4 - t1 */
    double start_skew;         /* overlap: max(t1) - min(t1) */
    long deciding_rank;        /* overlap: the rank that ends last */
    /* per kind of the metrics (comm_ref, comp_ref, overlap): the largest
     * foreign_wait_ns over the kept attempt's ranks, in s; NAN: not read */
    double foreign_wait[RAW_KIND_MAIN_COUNT];
    /* the null controls' slowest local times, NAN when the block has none */
    double null_local[NULL_PAIR_COUNT];
} block_stats;

/* What the attempts of one cell gave. */
typedef struct cell_work {
    block_stats *blocks; /* usable measured blocks */
    long *block_numbers;
    attempt (*kept)[RAW_KIND_COUNT];
    size_t block_count;
    /* the usable null blocks' second triples (comm_null, comp_null,
     * overlap_null, every rank on time): the three kinds measured once more
     * in the block, read as a block of their own by a launch's means */
    block_stats *repeats;
    long *repeat_numbers;
    size_t repeat_count;
    long attempts;           /* of measured blocks */
    long late_attempts;      /* of them, judged late */
    long discarded_attempts; /* of them, late or in a pass a late one ended */
    int64_t driver_tolerance_ns;
    size_t late_blocks;       /* a kind without an attempt on time */
    size_t incomplete_blocks; /* a kind without any attempt (the driver stopped) */
    size_t short_blocks;      /* a kept attempt without every rank */
    bool warmup_late;         /* the driver gave up in the warm-up */
    long ranks;               /* most ranks in an attempt */
    long flag_disagreements;  /* late flag against max(exit_late, start_skew) > tolerance */
} cell_work;

/* to_ns - from_ns in seconds, for any two int64 times. */
double ns_between_s(int64_t from_ns, int64_t to_ns);

/* The usable blocks of one cell's rows (sorted by block, kind, attempt,
 * rank), attempts judged by judge; *w is freed with cell_work_free. */
int collect_blocks(const raw_row *rows, size_t n, const lateness_judge *judge, long expected_ranks,
                   cell_work *w, analysis_error *err);
void cell_work_free(cell_work *w);

/* ---- Cells (cells.c) ------------------------------------------------------- */

/* A cell row with every metric undefined (NAN) and its reading invalid. */
cell_metrics empty_cell(long number, const char *collective, double comm_target_s,
                        double comp_target_s, long long bytes, long long matrix_n);

/* foreign_wait_s of a cell from its usable blocks[0..n), and r_overhead's
 * interval widened by what those waits can move eq. 1 (intervals.c;
 * README.md, "Foreign waits"). */
int cell_foreign_wait(cell_metrics *cell, const block_values *blocks, size_t n,
                      analysis_error *err);

/* ---- Ranks (metrics_ranks.c) ------------------------------------------------- */

/* Appends the cell's rows of cells_by_rank.csv to out->ranks (*capacity
 * its allocated length). */
int rank_metrics_of(const cell_work *w, size_t cell_index, cell_table *out, size_t *capacity,
                    analysis_error *err);

/* ---- The grid (metrics_grid.c) ----------------------------------------------- */

/* A cell to write: measured (raw != NULL) or a grid point raw.csv lacks. */
typedef struct planned_cell {
    long cell;
    const raw_cell *raw;
    size_t raw_index;
    double comm_target_s; /* the grid point, when raw == NULL */
    double comp_target_s;
} planned_cell;

/* The calibration rows of a cell's targets; NULL when the file has none. */
const calib_comm_row *find_calib_comm(const run_inputs *in, const char *collective,
                                      double comm_target_s);
const calib_comp_row *find_calib_comp(const run_inputs *in, double comp_target_s);
/* INVALID_* bits the calibration files give a measured cell. */
unsigned calibration_reasons(const run_inputs *in, const raw_cell *cell);
/* Measured cells, then the grid's others, in cell order (*plan_out freed
 * by the caller). */
int plan_cells(const run_inputs *in, planned_cell **plan_out, size_t *count, analysis_error *err);
/* The row of a grid cell without rows in raw.csv. */
cell_metrics unmeasured_cell(const run_inputs *in, const planned_cell *p);
/* The ranks every attempt should carry: meta.json's, else the most seen. */
long expected_ranks_of(const run_inputs *in);

/* ---- A cell's estimates and intervals (intervals.c) ------------------------- */

/* The per-block statistics the metrics are medians of (README.md, "The
 * statistics"): spans across ranks and slowest local times. */
enum block_series {
    SERIES_COMM_SPAN,          /* comm_ref: max(t4) - min(t1), section 4.1 */
    SERIES_COMP_SPAN,          /* comp_ref: max(t3) - min(t2) */
    SERIES_MEASURED_SPAN,      /* overlap: max(t4) - min(t1) */
    SERIES_COMM_LOCAL,         /* comm_ref: slowest local t4 - t1 */
    SERIES_COMP_LOCAL,         /* comp_ref: slowest local t3 - t2 */
    SERIES_MPI_LOCAL,          /* overlap: slowest local (t2 - t1) + (t4 - t3) */
    SERIES_COMP_OVERLAP_LOCAL, /* overlap: slowest local t3 - t2 */
    SERIES_COMP_OF_MPI_RANK,   /* overlap: t3 - t2 of the rank of SERIES_MPI_LOCAL */
    /* overlap: slowest (t2 - t1) + max(0, t4 - max over ranks of t3), the
     * MPI time from the last rank's arrival at the wait (eq. 4) */
    SERIES_MPI_FROM_LAST,
    SERIES_COUNT
};

/* What cells.csv takes from the medians. */
enum cell_quantity {
    Q_R_OVERHEAD,        /* eq. 1 */
    Q_R_COMM,            /* eq. 4, the wait from the last rank's arrival */
    Q_R_COMP_SLOWDOWN,   /* eq. 3 */
    Q_COMM_TARGET_ERROR, /* t_comm_ref / comm_target_s - 1 */
    Q_COMP_TARGET_ERROR, /* t_comp_ref / comp_target_s - 1 */
    Q_R_OVERHEAD_MEAN,   /* eq. 1 on the mean overlap span */
    Q_R_COMM_LOCAL_WAIT, /* eq. 4 on each rank's own wait t4 - t3 */
    Q_COUNT
};

/* The quantities from the medians of the series and the means of those in
 * CELL_MEAN_SERIES (the overlap span): the one
 * definition of eqs. 1, 3 and 4 (estimates and resamples alike). */
enum { CELL_MEAN_SERIES = 1u << SERIES_MEASURED_SPAN };
void cell_quantities(const double median[SERIES_COUNT], const double mean[SERIES_COUNT],
                     double comm_target_s, double comp_target_s, double q[Q_COUNT]);

/* One measured cell's usable blocks as series, and its null pairs (null,
 * reference) over the blocks holding both. */
typedef struct cell_series {
    size_t n;
    const double *values[SERIES_COUNT];
    size_t null_n[NULL_PAIR_COUNT];
    const double *null_values[NULL_PAIR_COUNT][2];
} cell_series;

/* A cell's estimates of the quantities and their intervals at the rules'
 * confidence (NAN for a cell without blocks). */
typedef struct cell_uncertainty {
    double estimate[Q_COUNT];
    boot_summary interval[Q_COUNT];
} cell_uncertainty;

/* The bootstrap of one cell: its quantities' intervals into u and the
 * cell's _ci columns, the distribution of eq. 1 over blocks, the null
 * ratios and their intervals. */
int cell_intervals(const cell_series *series, const cell_rules *rules, cell_metrics *cell,
                   cell_uncertainty *u, analysis_error *err);

/* After every cell: each cell's target flags and the run's summary. */
void summarize_run(cell_table *cells, const cell_rules *rules);

#endif
