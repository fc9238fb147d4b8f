/* analysis/impact: the study's MPI impact, STUDY_DIR/impact.csv
 * (docs/formats.md): one row per configuration (mpi, collective,
 * deployment, setting) and computation size, pooling the pairs of all its
 * launches (paired.h). Each launch gives two impact pairs (compute_ref,
 * passive | sweep | passive, compute_ref) and one A/A pair (compute_ref
 * --phase aa, compute_ref --phase before) per size. Reported per size,
 * never as a median over the sizes: the row of a configuration's largest
 * size says largest = 1. */
#ifndef ANALYSIS_IMPACT_STUDY_H
#define ANALYSIS_IMPACT_STUDY_H

#include "analysis/analysis.h"
#include "analysis/impact/paired.h"

#include <stdio.h>

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
    impact_paired impact;  /* over the impact pairs of every launch */
    impact_paired aa;      /* the same design A/A: the band */
    double cpu_wait_share; /* passive_delay_share, mean over the launches (NAN: none) */
    bool estimable;        /* impact_estimable(impact, aa) */
    bool largest;          /* the configuration's largest comp_target_s */
    /* the pooled log ratios (impact_study_add_run) */
    double *log_pairs, *log_aa;
    size_t pairs_capacity, aa_capacity;
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
