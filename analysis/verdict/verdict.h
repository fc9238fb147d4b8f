/* analysis/verdict: a cell's overlap reading and the study's verdict over
 * its launches (analysis/README.md, "The verdict"). One decision quantity,
 * r_overhead (eq. 1), read against the bands of schema/classes.def; the
 * why (r_comm, eq. 4, from the last rank's arrival; the share of blocks in
 * which the collective had ended by then; r_comp_slowdown, eq. 3) stated
 * beside it with intervals, never tested as sub-classes.
 *
 * Replication is the unit: a launch gives one estimate per quantity and
 * cell (the means of its blocks' times, stable when the blocks fall into two
 * modes), and the interval is Student's t over the launch estimates
 * (df = launches - 1), so it covers what varies between launches. A single
 * launch gives a reading, never a confident class.
 *
 * verdict.c is pure (no I/O; the simulation test runs it), study.c reads a
 * study folder and writes its verdict.csv. Times in seconds. */
#ifndef ANALYSIS_VERDICT_VERDICT_H
#define ANALYSIS_VERDICT_VERDICT_H

#include "analysis/analysis.h"
#include "schema/classes.h"

#include <stdbool.h>
#include <stddef.h>

/* A block counts as "ended by the last arrival" when the MPI time it kept
 * from the last rank's arrival at the wait on (call + wait, as r_comm
 * counts it) is at most this share of the collective's reference: what a
 * start call and a wake-up cost when the collective had completed in the
 * background, against 1 when it had not progressed at all. */
#define VERDICT_ENDED_MAX_R_COMM 0.3

/* The confidence of every interval of the verdict, and so the bound on the
 * rate of confident readings whose claim (a band, or a group's bands)
 * excludes the truth (1 - it). */
#define VERDICT_CONFIDENCE 0.95

/* One launch's estimates of one cell. */
typedef struct verdict_launch {
    bool valid;      /* the cell measured validly in this launch */
    long long bytes; /* the work the launch measured */
    long long matrix_n;
    long blocks;
    double r_overhead;      /* eq. 1 on the means of the blocks' spans */
    double r_comm;          /* eq. 4: mean MPI time from the last arrival / mean local comm_ref */
    double ended_share;     /* blocks with their own r_comm <= VERDICT_ENDED_MAX_R_COMM */
    double r_comp_slowdown; /* eq. 3: mean local t_comp / mean local comp_ref */
} verdict_launch;

/* A launch's estimates from a cell's usable blocks (n of them); invalid
 * with fewer than 2 blocks or a non-positive reference. */
verdict_launch verdict_launch_of(const block_values *blocks, size_t n, long long bytes,
                                 long long matrix_n);

typedef struct verdict_interval {
    double value; /* mean of the launch estimates */
    double lo;    /* t-interval at VERDICT_CONFIDENCE; NAN with fewer than 2 */
    double hi;
} verdict_interval;

/* Student's t interval of the mean of x[0..n-1] (NANs skipped). */
verdict_interval verdict_t_interval(const double *x, size_t n, double confidence);

/* A configuration's cell over its launches. */
typedef struct verdict_reading {
    long launches;     /* valid launches the reading rests on */
    long launches_run; /* launches that measured the cell */
    bool sizes_agree;  /* every valid launch measured the same bytes and matrix_n */
    long long bytes;   /* of the first valid launch */
    long long matrix_n;
    verdict_interval r_overhead, r_comm, ended_share, r_comp_slowdown;
    verdict_class overlap; /* the band of r_overhead's value; VERDICT_INVALID: none */
    verdict_class class;   /* confident: overlap's band, else the group's class
                            * (hidden_or_partial); or uncertain, one_launch or invalid */
    bool confident;        /* >= 2 launches and r_overhead's interval inside one band, or
                            * inside the bands of one group (classes.def) */
} verdict_reading;

verdict_reading verdict_combine(const verdict_launch *launches, size_t n, double confidence);

/* One launch's reading of a cell, the study's rule on a single launch
 * (cells.csv overlap, class, ended_block_share): overlap is the band of the
 * cell's point r_overhead (the one cells.csv prints beside its interval),
 * class one_launch, never confident; both invalid for a cell not valid or
 * without an r_overhead. ended_block_share as verdict_launch_of counts it
 * over the cell's usable blocks[0..n), with its Wilson interval at
 * VERDICT_CONFIDENCE. */
void verdict_cell_reading(cell_metrics *cell, const block_values *blocks, size_t n);

/* Whether a cell's 95 % interval of r_overhead lies inside the band of its
 * reading (the rule that makes a verdict over launches confident); false
 * for an invalid cell or one without an interval. */
bool verdict_cell_inside_band(const cell_metrics *cell);

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
