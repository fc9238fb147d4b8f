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
     offsetof(cell_metrics, r_overhead_ci), 1.0}, /* one serialized-overlap distance */
    /* the same scale as r_overhead's: the three maps compare at a glance */
    {"r_comm", "comm", offsetof(cell_metrics, r_comm), offsetof(cell_metrics, r_comm_ci), 1.0},
    {"r_comp_slowdown", "comp_slowdown", offsetof(cell_metrics, r_comp_slowdown),
     offsetof(cell_metrics, r_comp_slowdown_ci), 1.0},
};

static metric_bounds cell_interval(const cell_metrics *c, const compare_metric *metric)
{
    return *(const metric_bounds *)((const char *)c + metric->interval);
}

static double cell_value(const cell_metrics *c, const compare_metric *metric)
{
    return *(const double *)((const char *)c + metric->value);
}

/* 95 % two-sided: the normal quantile that turns an interval into a
 * standard error, and Student's t for few launches. */
static const double z_975 = 1.959964;

/* A configuration's estimate of a metric in common cell i (README.md,
 * "Launches"): one launch, its own estimate and interval (launch-to-launch
 * variation not covered); L >= 2, the mean of the launches' estimates,
 * its variance max(S^2, W) / L with S^2 the launches' sample variance and
 * W the mean within-launch variance (each from its 95 % interval), and
 * mean -+ t_(L-1) sqrt(max(S^2, W) / L). */
static level_estimate configuration_estimate(const compare_run *runs, size_t run_count,
                                             size_t config, const common_cell *cell,
                                             const compare_metric *metric)
{
    level_estimate e = {.estimate = NAN, .ci = {NAN, NAN}, .variance = NAN};
    double sum = 0, square = 0, within = 0;
    long within_n = 0;
    metric_bounds only = {NAN, NAN};
    for (size_t r = 0; r < run_count; r++) {
        if (runs[r].config != config)
            continue;
        const cell_metrics *c = &runs[r].cells.cells[cell->index[r]];
        double x = cell_value(c, metric);
        if (!c->valid || !isfinite(x))
            continue;
        e.launches++;
        sum += x;
        square += x * x;
        metric_bounds ci = cell_interval(c, metric);
        only = ci;
        if (isfinite(ci.lo) && isfinite(ci.hi)) {
            double se = (ci.hi - ci.lo) / (2 * z_975);
            within += se * se;
            within_n++;
        }
    }
    if (e.launches == 0)
        return e;
    double l = (double)e.launches;
    e.estimate = sum / l;
    if (e.launches == 1) {
        e.ci = only;
        e.variance = within_n ? within : NAN;
        return e;
    }
    double between = fmax(0.0, (square - sum * sum / l) / (l - 1));
    double v = fmax(between, within_n ? within / (double)within_n : 0.0);
    e.variance = v / l;
    double half = stats_student_quantile(0.975, e.launches - 1) * sqrt(e.variance);
    e.ci = (metric_bounds){e.estimate - half, e.estimate + half};
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
 * verdict's rule (verdict_combine) on the launches' cells.csv estimates:
 * the band of the mean r_overhead, confident when its t-interval over >= 2
 * launches of the same sizes lies in it, one_launch for one. NULL when out
 * of memory. */
level_class *classify_all(const compare_run *runs, size_t run_count, size_t configs,
                          const common_cell *common, size_t n)
{
    size_t count = configs * n;
    level_class *classes = malloc((count ? count : 1) * sizeof *classes);
    verdict_launch *launches = malloc((run_count ? run_count : 1) * sizeof *launches);
    for (size_t c = 0; classes && launches && c < configs; c++)
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            for (size_t r = 0; r < run_count; r++) {
                if (runs[r].config != c)
                    continue;
                const cell_metrics *m = &runs[r].cells.cells[common[i].index[r]];
                launches[k++] = (verdict_launch){.valid = m->valid && !isnan(m->r_overhead),
                                                 .bytes = m->bytes,
                                                 .matrix_n = m->matrix_n,
                                                 .blocks = m->blocks,
                                                 .r_overhead = m->r_overhead,
                                                 .r_comm = m->r_comm,
                                                 .ended_share = m->ended_block_share,
                                                 .r_comp_slowdown = m->r_comp_slowdown};
            }
            classes[c * n + i] = verdict_combine(launches, k, VERDICT_CONFIDENCE);
        }
    if (!launches) {
        free(classes);
        classes = NULL;
    }
    free(launches);
    return classes;
}

/* Every configuration's estimates: est[(config * METRIC_COUNT + metric) * n + cell]. */
level_estimate *estimate_all(const compare_run *runs, size_t run_count, size_t configs,
                             const common_cell *common, size_t n)
{
    level_estimate *est = malloc(configs * METRIC_COUNT * n * sizeof *est);
    for (size_t c = 0; est && c < configs; c++)
        for (size_t m = 0; m < METRIC_COUNT; m++)
            for (size_t i = 0; i < n; i++)
                est[(c * METRIC_COUNT + m) * n + i] =
                    configuration_estimate(runs, run_count, c, &common[i], &compare_metrics[m]);
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
