/* analysis/compare: what the files of nbc-compare share (comparison.c the
 * tables and the whole comparison, compare_load.c the inputs,
 * compare_stats.c the estimates across launches, compare_draw.c the
 * figures). Only these files include this. */
#ifndef ANALYSIS_COMPARE_INTERNAL_H
#define ANALYSIS_COMPARE_INTERNAL_H

#include "analysis/compare/compare.h"
#include "analysis/verdict/verdict.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct compare_run {
    const char *dir;
    char label[128];
    run_meta meta;
    cell_table cells;
    impact_table impact;
    bool have_impact;
    /* each cell's launch estimates from raw.csv, as the study's verdict
     * reads them (verdict_launch_grid); none without raw.csv */
    verdict_launch_grid launches;
    bool have_launches;
    size_t config;      /* its configuration */
    size_t launch;      /* 1-based among the configuration's runs */
    long compute_cores; /* meta.json deployment_plan.compute.cpus; 0 unread */
    double core_scale;  /* --normalize-cores: its compute times' factor (1: none) */
} compare_run;

/* Runs that measured the same thing: the launches of one configuration. */
typedef struct compare_config {
    size_t first_run; /* its first run (in argument order) */
    size_t launches;
    char label[400];
} compare_config;

/* The metrics compared between configurations, and their difference maps. */
typedef struct compare_metric {
    const char *name;
    const char *map;   /* diff_<map>.* */
    size_t value;      /* offsetof(cell_metrics, ...) */
    size_t interval;   /* offsetof(cell_metrics, ..._ci) */
    size_t launch;     /* offsetof(verdict_launch, ...): the same over launches */
    double saturation; /* of the difference's colours: one for every map */
} compare_metric;

/* The metrics compared (compare_stats.c), in this order. */
enum { METRIC_COUNT = 3 };
extern const compare_metric compare_metrics[METRIC_COUNT];

/* A configuration's estimate of one metric in one cell (README.md). */
typedef struct level_estimate {
    double estimate;
    metric_bounds ci;
    double variance; /* of the estimate */
    long launches;   /* launches where the cell is valid with a value */
} level_estimate;

/* A configuration's reading of one cell over its launches: the study
 * verdict's (verdict_combine). */
typedef verdict_reading level_class;

/* A cell present in every run: its index in each run's table. */
typedef struct common_cell {
    double comm_target_s;
    double comp_target_s;
    size_t *index; /* run_count entries */
} common_cell;

/* One cell's difference of one metric between the two configurations. */
typedef struct cell_difference {
    double value;
    metric_bounds ci;
    bool valid;
    bool significant;
} cell_difference;

/* The axes every map of the comparison shares (compare_draw.c). */
typedef struct figure_grid {
    heat_axis x_axis, y_axis;
} figure_grid;

/* ---- Inputs (compare_load.c) -------------------------------------------- */

/* One run folder: meta.json, cells.csv (analyzed first when missing) and
 * impact.csv when present, under its label (the folder's name). */
int load_compare_run(compare_run *run, const analysis_options *options, analysis_error *err);

/* The cells of the first run that every other run has too. */
int common_cells(const compare_run *runs, size_t run_count, common_cell **out, size_t *count,
                 analysis_error *err);

/* Frees common_cells' result. */
void free_common(common_cell *common);

/* sb's text into out_dir/name, atomically. */
int write_text(const char *out_dir, const char *name, const strbuf *sb, analysis_error *err);

/* Reads every run's compute cores, scales the compute times, and writes
 * out_dir/normalization.csv (run,compute_cores,core_scale). */
int normalize_cores(compare_run *runs, size_t run_count, const char *out_dir, FILE *report,
                    analysis_error *err);

/* The figures' line saying so, or "" without --normalize-cores. */
void normalize_note(const compare_run *runs, size_t run_count, bool normalized, char *out,
                    size_t out_size);

/* value, or fallback where meta.json left it empty. */
const char *meta_or(const char *value, const char *fallback);

/* Groups the runs; configurations in the order of their first run. */
int group_runs(compare_run *runs, size_t run_count, compare_config **out, size_t *count,
               analysis_error *err);

/* ---- Figures per configuration (compare_summary.c) ---------------------- */

/* configuration_summary.csv and its table on options->report: each
 * configuration's readings and impact over its launches, by the study
 * verdict's code (verdict_summary_of_runs). */
int write_configuration_summary(const compare_run *runs, size_t run_count,
                                const compare_config *configs, size_t config_count,
                                const char *out_dir, const analysis_options *options,
                                analysis_error *err);

/* ---- Estimates across launches (compare_stats.c) ------------------------ */

/* Every configuration's estimates: est[(config * METRIC_COUNT + metric) * n + cell]. */
level_estimate *estimate_all(const compare_run *runs, size_t run_count, size_t configs,
                             const common_cell *common, size_t n);

/* Every configuration's readings: classes[config * n + cell], the study
 * verdict's rule on its launches' estimates (verdict_combine on
 * launch_estimate's); NULL when out of memory. */
level_class *classify_all(const compare_run *runs, size_t run_count, size_t configs,
                          const common_cell *common, size_t n);

/* Whether a configuration's reading of a cell is not confident: outlined
 * on its map. */
bool unconfirmed(const level_class *k);

/* Configuration c's estimate of metric m in common cell i. */
const level_estimate *estimate_at(const level_estimate *est, size_t n, size_t c, size_t m,
                                  size_t i);

/* B minus A in one cell, significant when its interval excludes 0. */
cell_difference difference_of(const level_estimate *a, const level_estimate *b);

/* ---- Equal work (compare_equal_work.c) ---------------------------------- */

/* Each configuration against its reference (basic of its library and
 * collective) at equal work: out_dir/equal_work.csv (t_measured ratios per
 * cell and over the grid, with their intervals over paired launches) and
 * equal_work.txt (the sentences, also on report). A configuration whose
 * message bytes or matrix orders differ from its reference's is refused,
 * said; no equal_work.csv without a configuration compared. */
int write_equal_work(const compare_run *runs, size_t run_count, const compare_config *configs,
                     size_t config_count, const common_cell *common, size_t n, const char *out_dir,
                     FILE *report, analysis_error *err);

/* ---- Figures (compare_draw.c) ------------------------------------------- */

/* The axes of the common cells' targets. */
int grid_build(figure_grid *g, const common_cell *common, size_t n, analysis_error *err);

/* compare_overhead: each configuration's r_overhead (its launches' mean)
 * side by side, or a figure each (overhead_figure_name) where together
 * they would not fit a column's 5 in; *figures: how many. */
int draw_configurations(const compare_run *runs, const compare_config *configs, size_t config_count,
                        const common_cell *common, size_t n, const level_estimate *est,
                        const level_class *classes, figure_grid *g, const char *out_dir,
                        const analysis_options *options, const char *note, heat_value *values,
                        size_t *figures, analysis_error *err);

/* The name of compare_overhead's figure k (0-based) of a comparison drawn
 * as a figure per configuration: compare_overhead, compare_overhead_2, ... */
void overhead_figure_name(size_t k, char *out, size_t out_size);

/* diff_<metric>: the second configuration minus the first, hatched where
 * not significant. */
int draw_difference(const compare_run *runs, const compare_config *configs,
                    const common_cell *common, size_t n, const level_estimate *est, size_t m,
                    figure_grid *g, const char *out_dir, const analysis_options *options,
                    const char *note, heat_value *values, analysis_error *err);

/* The folders of one collective at several rank counts (a job's
 * run.ranks, or runs launched at different sizes): r_overhead against the
 * rank count, a line per collective, over the cells common to all runs
 * (overhead_vs_ranks.csv, .dat and .gp). *drawn: whether there was one. */
int write_rank_scaling(const compare_run *runs, const compare_config *configs, size_t config_count,
                       size_t n, const level_estimate *est, const char *out_dir,
                       const figure_size *size, bool *drawn, analysis_error *err);

#endif
