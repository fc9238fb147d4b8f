/* analysis/verdict: the study's verdict over its launches
 * (analysis/README.md, "The verdict"): STUDY_DIR/verdict.csv, and one
 * configuration's figures over its launches. Replication is the unit: the
 * rule of a reading (verdict_combine, metrics/reading.c) runs over the
 * launches' estimates, so the interval covers what varies between
 * launches. study.c reads a study folder and writes its verdict.csv. */
#ifndef ANALYSIS_VERDICT_VERDICT_H
#define ANALYSIS_VERDICT_VERDICT_H

#include "analysis/impact/impact.h"
#include "analysis/metrics/metrics.h"

#include <stdbool.h>
#include <stddef.h>

/* One launch's estimates of every cell of its grid (launches.c), from its
 * raw records: verdict_launch_of on each cell's blocks. What every reading
 * over launches combines (verdict_combine), the study's verdict.csv and
 * nbc-compare's configuration_cells.csv alike. */
typedef struct verdict_launch_cell {
    long cell; /* the cell's number in the run */
    double comm_target_s, comp_target_s;
    verdict_launch est;
} verdict_launch_cell;

typedef struct verdict_launch_grid {
    size_t count;
    verdict_launch_cell *cells; /* in the run's cell order */
} verdict_launch_grid;

/* RUN_DIR's raw records analyzed, each cell's launch estimates kept. */
int verdict_launch_grid_load(const char *run_dir, verdict_launch_grid *out, analysis_error *err);
void verdict_launch_grid_free(verdict_launch_grid *g);
/* The estimates of cell number `cell`; invalid where the launch lacks it. */
verdict_launch verdict_launch_grid_cell(const verdict_launch_grid *g, long cell);

/* One configuration's figures over its launches, each from the code that
 * writes a study's verdict.csv (verdict_combine) and impact.csv
 * (impact_study): every table and line that summarizes a configuration
 * prints these, so that the same quantity reads the same everywhere. */
typedef struct verdict_summary {
    size_t cells;             /* the first launch's grid */
    size_t confident;         /* confident readings */
    size_t confident_overlap; /* ... in a band of group overlap (hidden, partial) */
    size_t suggest_overlap;   /* not confident, the value's band of group overlap */
    size_t suggest_none;      /* not confident, band none */
    size_t invalid;           /* no reading */
    long launches;            /* the run folders given */
    bool have_impact;         /* a row of impact.csv: the figures below */
    double comp_target_s;     /* the largest computation size: the impact a verdict names */
    double r_mpi_impact, r_mpi_impact_lo, r_mpi_impact_hi; /* eq. 2, paired interval */
    double aa_lo, aa_hi;                                   /* the A/A band */
    double cpu_wait_share;
    bool estimable; /* impact_estimable: else "not estimable here" */
} verdict_summary;

/* The summary of the launches run_dirs[0..n) of one configuration. */
int verdict_summary_of_runs(const char *const *run_dirs, size_t n, const uncertainty_rules *rules,
                            verdict_summary *out, analysis_error *err);

/* Reads STUDY_DIR/study.json and each run's folder, writes
 * STUDY_DIR/verdict.csv (docs/formats.md). ANALYSIS_OK or an error in err. */
int verdict_study(const char *study_dir, analysis_error *err);

#endif
