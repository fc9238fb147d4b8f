/* analysis: nbc-compare's statistics. A configuration's estimate of a
 * metric in a cell from its launches, with an interval that holds
 * launch-to-launch variation, its reading of the cell by the study
 * verdict's rule, and the difference between two configurations (README.md,
 * "Launches"). */
#include "analysis/compare/compare_internal.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* The metrics compared between configurations, and their difference maps
 * (the declaration's size makes a missing or extra entry a compile error). */
const compare_metric compare_metrics[] = {
    {"r_overhead", "overhead", offsetof(cell_metrics, r_overhead),
     offsetof(cell_metrics, r_overhead_ci), offsetof(verdict_launch, r_overhead),
     1.0}, /* one serialized-overlap distance */
    /* the same scale as r_overhead's: the three maps compare at a glance */
    {"r_comm", "comm", offsetof(cell_metrics, r_comm), offsetof(cell_metrics, r_comm_ci),
     offsetof(verdict_launch, r_comm), 1.0},
    {"r_comp_slowdown", "comp_slowdown", offsetof(cell_metrics, r_comp_slowdown),
     offsetof(cell_metrics, r_comp_slowdown_ci), offsetof(verdict_launch, r_comp_slowdown), 1.0},
};

static metric_bounds cell_interval(const cell_metrics *c, const compare_metric *metric)
{
    return *(const metric_bounds *)((const char *)c + metric->interval);
}

static double cell_value(const cell_metrics *c, const compare_metric *metric)
{
    return *(const double *)((const char *)c + metric->value);
}

/* A run's figures of a cell as a single launch: its own (cells.csv), the
 * reading its figures show. */
static verdict_launch own_estimate(const cell_metrics *m)
{
    return (verdict_launch){.valid = m->valid && !isnan(m->r_overhead),
                            .bytes = m->bytes,
                            .matrix_n = m->matrix_n,
                            .blocks = m->blocks,
                            .r_overhead = m->r_overhead,
                            .r_comm = m->r_comm,
                            .ended_share = m->ended_block_share,
                            .r_comp_slowdown = m->r_comp_slowdown};
}

/* A run's estimates of a cell as one launch of its configuration: the
 * study verdict's (raw.csv's blocks, verdict_launch_grid) where the run has
 * them unscaled; else its cells.csv figures (a folder without raw.csv, or
 * compute times scaled by --normalize-cores). */
static verdict_launch launch_estimate(const compare_run *run, const cell_metrics *m)
{
    if (run->have_launches && run->core_scale == 1) {
        verdict_launch l = verdict_launch_grid_cell(&run->launches, m->cell);
        l.valid = l.valid && m->valid;
        return l;
    }
    return own_estimate(m);
}

/* Configuration `config`'s launches of common cell i: launches[0..*count)
 * and, in runs_of[], the run of each. With one valid launch, the run's own
 * figures (a single launch is read as its run reads it); with more, the
 * study verdict's launch estimates. */
static void configuration_launches(const compare_run *runs, size_t run_count, size_t config,
                                   const common_cell *cell, verdict_launch *launches,
                                   size_t *runs_of, size_t *count)
{
    size_t k = 0, valid = 0;
    for (size_t r = 0; r < run_count; r++) {
        if (runs[r].config != config)
            continue;
        runs_of[k] = r;
        launches[k] = launch_estimate(&runs[r], &runs[r].cells.cells[cell->index[r]]);
        valid += launches[k++].valid;
    }
    for (size_t j = 0; valid == 1 && j < k; j++)
        launches[j] = own_estimate(&runs[runs_of[j]].cells.cells[cell->index[runs_of[j]]]);
    *count = k;
}

/* A configuration's estimate of a metric in common cell i (README.md,
 * "Launches"): one launch, its run's own estimate and interval
 * (launch-to-launch variation not covered); L >= 2, the study verdict's:
 * the mean of the launch estimates and Student's t interval over them
 * (verdict_t_interval), its variance S^2 / L for the differences. */
static level_estimate configuration_estimate(const compare_run *runs, size_t run_count,
                                             size_t config, const common_cell *cell,
                                             const compare_metric *metric, verdict_launch *launches,
                                             size_t *runs_of)
{
    level_estimate e = {.estimate = NAN, .ci = {NAN, NAN}, .variance = NAN};
    size_t k;
    configuration_launches(runs, run_count, config, cell, launches, runs_of, &k);
    double x[256];
    size_t n = 0;
    const cell_metrics *only = NULL;
    for (size_t j = 0; j < k && n < sizeof x / sizeof x[0]; j++) {
        double v = *(const double *)((const char *)&launches[j] + metric->launch);
        if (!launches[j].valid || !isfinite(v))
            continue;
        x[n++] = v;
        only = &runs[runs_of[j]].cells.cells[cell->index[runs_of[j]]];
    }
    e.launches = (long)n;
    if (n == 0)
        return e;
    if (n == 1) {
        metric_bounds ci = cell_interval(only, metric);
        e.estimate = cell_value(only, metric);
        e.ci = ci;
        /* as a standard error from its 95 % interval (the normal quantile),
         * for the differences */
        double se = (ci.hi - ci.lo) / (2 * 1.959964);
        e.variance = isfinite(se) ? se * se : NAN;
        return e;
    }
    verdict_interval t = verdict_t_interval(x, n, VERDICT_CONFIDENCE);
    double quantile = stats_student_quantile(0.5 + VERDICT_CONFIDENCE / 2, (long)n - 1);
    double se = (t.hi - t.lo) / (2 * quantile);
    e.estimate = t.value;
    e.ci = (metric_bounds){t.lo, t.hi};
    e.variance = se * se;
    return e;
}

/* B minus A with its interval: with at least 2 launches each, d -+
 * t_(min(LA, LB) - 1) sqrt(var A + var B) (Welch's interval with its
 * smallest degrees of freedom); with one launch in either, the differences
 * the two 95 % intervals allow (significant exactly when they do not
 * overlap, the rule of single runs). */
static metric_bounds difference_interval(const level_estimate *a, const level_estimate *b, double d)
{
    if (a->launches >= 2 && b->launches >= 2) {
        long df = (a->launches < b->launches ? a->launches : b->launches) - 1;
        double half = stats_student_quantile(0.975, df) * sqrt(a->variance + b->variance);
        return (metric_bounds){d - half, d + half};
    }
    return (metric_bounds){b->ci.lo - a->ci.hi, b->ci.hi - a->ci.lo};
}

/* Every configuration's readings: classes[config * n + cell], each the study
 * verdict's rule (verdict_combine) on configuration_launches': the band of
 * the mean r_overhead, confident when its t-interval over >= 2 launches of
 * the same sizes lies in it, one_launch for one. NULL when out of memory. */
level_class *classify_all(const compare_run *runs, size_t run_count, size_t configs,
                          const common_cell *common, size_t n)
{
    size_t count = configs * n;
    level_class *classes = malloc((count ? count : 1) * sizeof *classes);
    verdict_launch *launches = malloc((run_count ? run_count : 1) * sizeof *launches);
    size_t *runs_of = malloc((run_count ? run_count : 1) * sizeof *runs_of);
    for (size_t c = 0; classes && launches && runs_of && c < configs; c++)
        for (size_t i = 0; i < n; i++) {
            size_t k;
            configuration_launches(runs, run_count, c, &common[i], launches, runs_of, &k);
            classes[c * n + i] = verdict_combine(launches, k, VERDICT_CONFIDENCE);
        }
    if (!launches || !runs_of) {
        free(classes);
        classes = NULL;
    }
    free(launches);
    free(runs_of);
    return classes;
}

/* Every configuration's estimates: est[(config * METRIC_COUNT + metric) * n + cell]. */
level_estimate *estimate_all(const compare_run *runs, size_t run_count, size_t configs,
                             const common_cell *common, size_t n)
{
    level_estimate *est = malloc(configs * METRIC_COUNT * n * sizeof *est);
    verdict_launch *launches = malloc((run_count ? run_count : 1) * sizeof *launches);
    size_t *runs_of = malloc((run_count ? run_count : 1) * sizeof *runs_of);
    for (size_t c = 0; est && launches && runs_of && c < configs; c++)
        for (size_t m = 0; m < METRIC_COUNT; m++)
            for (size_t i = 0; i < n; i++)
                est[(c * METRIC_COUNT + m) * n + i] = configuration_estimate(
                    runs, run_count, c, &common[i], &compare_metrics[m], launches, runs_of);
    if (!launches || !runs_of) {
        free(est);
        est = NULL;
    }
    free(launches);
    free(runs_of);
    return est;
}

/* Whether a configuration's reading of a cell is not confident (one
 * launch, or its interval spans two bands): outlined on its map. */
bool unconfirmed(const level_class *k)
{
    return k->class != VERDICT_INVALID && !k->confident;
}

/* Configuration c's estimate of metric m in common cell i. */
const level_estimate *estimate_at(const level_estimate *est, size_t n, size_t c, size_t m, size_t i)
{
    return &est[(c * METRIC_COUNT + m) * n + i];
}

cell_difference difference_of(const level_estimate *a, const level_estimate *b)
{
    cell_difference d = {.value = b->estimate - a->estimate, .ci = {NAN, NAN}};
    d.valid = a->launches > 0 && b->launches > 0 && isfinite(d.value);
    if (d.valid)
        d.ci = difference_interval(a, b, d.value);
    d.significant = d.valid && (d.ci.lo > 0 || d.ci.hi < 0);
    return d;
}
