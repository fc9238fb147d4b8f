/* analysis/impact: the MPI impact (eq. 2, paper section 3.2.1) of a run,
 * impact.csv, and of a study over its launches, STUDY_DIR/impact.csv
 * (docs/formats.md). Computation with and without the idle library is
 * measured in pairs close in time (compute_ref, then the passive step; the
 * passive step, then compute_ref); each pair gives one log ratio, and the
 * same design run A/A (compute_ref, then compute_ref) gives the band that
 * a ratio of no effect reads on this machine (analysis/README.md, "MPI
 * impact"). Reported per size, never as a median over the sizes. */
#ifndef ANALYSIS_IMPACT_IMPACT_H
#define ANALYSIS_IMPACT_IMPACT_H

#include "analysis/metrics/metrics.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- One run: impact.csv (run.c) ---- */

/* Bits of impact_row.warnings: the two programs ran unlike steps, or a
 * phase is in one file only. */
enum impact_warning {
    IMPACT_PROCS_DIFFER = 1 << 0,
    IMPACT_THREADS_DIFFER = 1 << 1,
    IMPACT_WARMUP_DIFFER = 1 << 2,
    IMPACT_REPS_DIFFER = 1 << 3,
    IMPACT_PHASE_UNPAIRED = 1 << 4,  /* a phase of one file has no partner in the other */
    IMPACT_STEPS_DIFFER = 1 << 5,    /* ranks or processes with unequal step counts */
    IMPACT_PHASES_DISAGREE = 1 << 6, /* no longer set: the paired interval covers it */
};
void analysis_impact_warnings_text(unsigned warnings, char *out, size_t out_size);

/* One row of impact.csv (eq. 2): per host and matrix_n, and per phase both
 * files have, T = the largest over the host's ranks (passive) or processes
 * (compute_ref) of each one's median over its steps; r = T_passive / T_ref
 * per phase (a pair close in time); over the phases their geometric mean,
 * its paired t-interval (impact/paired.h; README.md, "MPI impact"). */
typedef struct impact_row {
    char host[ANALYSIS_NAME_MAX]; /* "all" in impact_table.job */
    long long matrix_n;
    double comp_target_s;
    double t_comp_ref_s;         /* T of compute_ref, mean over the phases used */
    double t_comp_passive_mpi_s; /* T of passive, mean over the phases used */
    double r_mpi_impact;
    metric_bounds r_mpi_impact_ci;
    /* The A/A pair: compute_ref before's T over its partner's just before
     * (NAN without it), interval over the steps (README.md, "MPI impact") */
    double r_aa;
    metric_bounds r_aa_ci;
    double t_ref_aa_s;           /* the A/A partner's T (NAN without it) */
    size_t pairs;                /* impact pairs: the phases used */
    unsigned phases;             /* bit p: phase p is in both files and used */
    double r_phase[PHASE_COUNT]; /* NAN when the phase is not used */
    metric_bounds r_phase_ci[PHASE_COUNT];
    double t_passive_phase_s[PHASE_COUNT]; /* NAN when the phase is not in passive.csv */
    double t_ref_phase_s[PHASE_COUNT];     /* NAN when not in compute_ref.csv */
    long passive_steps;                    /* the fewest steps of a rank in a phase used */
    long ref_steps;                        /* the fewest steps of a process in a phase used */
    long ranks;                            /* the host's ranks in passive.csv */
    long procs;                            /* compute_ref's processes on the host */
    unsigned warnings;
    /* Why, from passive.csv's counters over the passive steps of the phases
     * used (NAN when a step lacks them): the computing threads' run-queue
     * delay / (their CPU time + delay), and the progress and library
     * threads' CPU time / (the computing threads' CPU time + delay). */
    double passive_delay_share;
    double passive_progress_cpu_share;
} impact_row;

/* The median of r_mpi_impact over rows, and of the A/A floor, with 95 %
 * intervals: from a joint bootstrap of the rounds over the job's sizes
 * (joint, analysis_compute_impact), or, from impact.csv's rows alone,
 * [median of the rows' lower ends, median of their upper ends]
 * (analysis_impact_median; README.md, "Median over the sizes"); NAN
 * without a row, the interval NAN when a row has none. */
typedef struct impact_median {
    double r_mpi_impact;
    metric_bounds ci;
    size_t rows; /* rows with a finite r_mpi_impact */
    double r_aa;
    metric_bounds r_aa_ci;
    bool joint;
} impact_median;

typedef struct impact_table {
    impact_row *rows; /* per host and matrix_n: impact.csv */
    size_t count;
    impact_row *job; /* per matrix_n over every host (the cells' r_mpi_impact) */
    size_t job_count;
    impact_median median; /* over job: the joint bootstrap's */
} impact_table;

/* Joins passive.csv and compute_ref.csv on host, matrix_n and phase, with
 * intervals drawn by the rules' bootstrap. Needs both (in->have_passive and
 * in->have_compute_ref). */
int analysis_compute_impact(const run_inputs *in, const uncertainty_rules *rules,
                            impact_table *impact, analysis_error *err);
int analysis_impact_median(const impact_row *rows, size_t count, impact_median *median,
                           analysis_error *err);
/* The row a run's summary names (never a median over the sizes): the
 * largest computation size's, of several hosts the most slowed one; NULL
 * without a finite r_mpi_impact. nbc-verdict's run_largest_impact reads
 * impact.csv by the same rule. */
const impact_row *analysis_impact_largest(const impact_row *rows, size_t count);
/* Copies the job's r_mpi_impact at each cell's matrix_n into the cells. */
void analysis_impact_into_cells(const impact_table *impact, cell_table *cells);
void analysis_impact_table_free(impact_table *impact);

/* ---- The paired design (paired.c) ---- */

/* exp(mean) of n log ratios and its t-interval: mean +- t(df = n - 1) *
 * sd / sqrt(n), back on the ratio scale. The pairs are the independent
 * units (the machine's speed drifts between them, not within one), so
 * their spread, not the steps', is the estimate's noise; with a few pairs
 * Student's t, not the normal, gives the interval its width. lo and hi are
 * NAN below two pairs; ratio is NAN without any. */
typedef struct impact_paired {
    size_t pairs;
    double ratio;
    double lo, hi;
} impact_paired;

impact_paired impact_paired_interval(const double *log_ratios, size_t n, double confidence);

/* Whether an impact is estimable beside an A/A band: its ratio lies
 * farther from 1 (in log) than either end of the band. False when the band
 * is not known (fewer than two A/A pairs) or the band is wider than the
 * effect: the machine reads as much running the same program twice. */
bool impact_estimable(const impact_paired *impact, const impact_paired *aa);

/* ---- The study: STUDY_DIR/impact.csv (study.c, study_dir.c): one row per
 * configuration (mpi, collective, deployment, setting) and computation
 * size over all its launches. Each launch gives two impact pairs
 * (compute_ref, passive | sweep | passive, compute_ref) and one A/A pair
 * (compute_ref --phase aa, compute_ref --phase before) per size. The
 * launch is the unit, as in the verdict: a launch's pairs share its
 * placement and its programs' start-up, so they move together (by a few
 * percent from launch to launch on a virtual machine) and are not
 * independent; the interval is the t-interval over the launches' mean log
 * ratios (one launch: over its own pairs, as its run reads it). The row of
 * a configuration's largest size says largest = 1. ---- */

typedef struct impact_config {
    char mpi[ANALYSIS_NAME_MAX];
    char collective[ANALYSIS_NAME_MAX];
    char deployment[ANALYSIS_NAME_MAX];
    char setting[2 * ANALYSIS_NAME_MAX]; /* NAME=VALUE, empty without a setting */
} impact_config;

typedef struct impact_study_row {
    impact_config config;
    double comp_target_s;
    long long matrix_n;    /* -1 when the launches measured different orders */
    size_t pairs;          /* impact pairs over all launches */
    size_t launches;       /* launches with at least one pair */
    impact_paired impact;  /* over the launches' mean log ratios (impact.pairs = launches);
                            * one launch: over its pairs, as its run reads it */
    impact_paired aa;      /* the same design A/A: the band */
    double cpu_wait_share; /* passive_delay_share, mean over the launches (NAN: none) */
    bool estimable;        /* impact_estimable(impact, aa) */
    bool largest;          /* the configuration's largest comp_target_s */
    /* per pair, per launch (the mean of its pairs) and the launches' A/A
     * log ratios (impact_study_add_run) */
    double *log_pairs, *log_launches, *log_aa;
    size_t pairs_capacity, launches_capacity, aa_capacity;
    double share_sum;
    size_t shares;
} impact_study_row;

typedef struct impact_study {
    impact_study_row *rows;
    size_t count, capacity;
} impact_study;

/* Adds a launch's pairs: impact->job, the sizes over the whole job. */
int impact_study_add_run(impact_study *study, const impact_config *config,
                         const impact_table *impact, analysis_error *err);
/* Adds a run folder's pairs (its passive.csv and compute_ref.csv, analyzed
 * as nbc-analyze does: the job's sizes); nothing, with a warning, when it
 * has neither. */
int impact_study_add_run_dir(impact_study *study, const impact_config *config, const char *run_dir,
                             const uncertainty_rules *rules, analysis_error *err);
/* The intervals, bands and flags; rows sorted by configuration, then size. */
void impact_study_finish(impact_study *study, double confidence);
int impact_study_write(const impact_study *study, const char *path, analysis_error *err);
void impact_study_free(impact_study *study);

/* STUDY_DIR/study.json's runs (their run folders, analyzed as
 * nbc-analyze does) into STUDY_DIR/impact.csv; a line per row on report
 * when not NULL. Runs without a folder or without compute_ref.csv add
 * nothing. */
int impact_study_of_dir(const char *study_dir, const uncertainty_rules *rules, FILE *report,
                        analysis_error *err);

#endif
