/* analysis: nbc-compare's statistics. A configuration's estimate of a
 * metric in a cell from its launches, with an interval that holds
 * launch-to-launch variation, its class of the cell from the launches
 * combined, and the difference between two configurations (README.md,
 * "Launches"). */
#include "analysis/compare_internal.h"

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

/* The quantities the diagnosis reads (diagnosis_input). */
static const size_t class_quantities[] = {
    offsetof(diagnosis_input, r_overhead),
    offsetof(diagnosis_input, r_comm),
    offsetof(diagnosis_input, r_comp_slowdown),
    offsetof(diagnosis_input, comm_unhidden_share),
    offsetof(diagnosis_input, comp_extra_in_overhead),
};

enum { CLASS_QUANTITY_COUNT = sizeof class_quantities / sizeof *class_quantities };

static metric_bounds *input_bounds(diagnosis_input *input, size_t k)
{
    return (metric_bounds *)((char *)input + class_quantities[k]);
}

/* P(chi^2 with 2 L degrees of freedom > x) = exp(-x/2) sum_(k<L) (x/2)^k / k! */
static double chi2_even_tail(double x, long launches)
{
    double term = 1, sum = 0;
    for (long k = 0; k < launches; k++) {
        sum += term;
        term *= x / 2 / (double)(k + 1);
    }
    return fmin(1.0, exp(-x / 2) * sum);
}

/* A launch's p of the claim `claim` in a cell (a class, or a group): its
 * diagnosis_p where its own point class is the claim, its
 * diagnosis_group_p where the claim is its point class's group, as
 * nbc-analyze computed them; 1 where its estimates lie outside the claim or
 * it has no p (too few blocks). A launch with two regimes has no group p
 * (its diagnosis_group_p is intermittent's, a claim the combined launches
 * do not make). */
static double launch_p(const cell_metrics *c, enum diagnosis claim)
{
    double p = NAN;
    if (c->diagnosis_point == claim)
        p = c->diagnosis_p;
    else if (!c->two_regimes && analysis_diagnosis_group(c->diagnosis_point) == claim)
        p = c->diagnosis_group_p;
    return isfinite(p) ? fmax(p, 1e-300) : 1.0;
}

/* Whether run r is a launch of configuration `config` valid in the cell. */
static const cell_metrics *launch_cell(const compare_run *runs, size_t r, size_t config,
                                       const common_cell *cell)
{
    const cell_metrics *c = &runs[r].cells.cells[cell->index[r]];
    return runs[r].config == config && c->valid && isfinite(c->r_overhead) ? c : NULL;
}

/* Fisher's combination of the launches' p of a claim: -2 sum ln p_j
 * against chi^2 with 2 L degrees of freedom. */
static double fisher_p(const compare_run *runs, size_t run_count, size_t config,
                       const common_cell *cell, enum diagnosis claim, long launches)
{
    double statistic = 0;
    for (size_t r = 0; r < run_count; r++) {
        const cell_metrics *c = launch_cell(runs, r, config, cell);
        statistic += c ? -2 * log(launch_p(c, claim)) : 0;
    }
    return chi2_even_tail(statistic, launches);
}

/* Configuration c's candidate class of common cell i from its L >= 2
 * launches (README.md, "Launches"): the class of the mean of their
 * estimates (analysis_diagnose on points), with Fisher's combination of the
 * launches' p-values of it (*p) and of its group (*group_p, NAN for a class
 * in no group), a launch counting as p = 1 where its own estimates lie
 * outside the claim (launch_p). *p is NAN when there is no class to claim.
 * With one launch, the run's own class and claim (*p NAN). */
static level_class configuration_candidate(const compare_run *runs, size_t run_count, size_t config,
                                           const common_cell *cell, const cell_rules *rules,
                                           double *p, double *group_p)
{
    level_class out = {DIAG_INVALID, DIAG_INVALID};
    diagnosis_input mean = {.valid = true};
    long launches = 0;
    const cell_metrics *only = NULL;
    *p = *group_p = NAN;
    for (size_t r = 0; r < run_count; r++) {
        const cell_metrics *c = launch_cell(runs, r, config, cell);
        if (!c)
            continue;
        diagnosis_input point = analysis_diagnosis_point(c);
        for (size_t k = 0; k < CLASS_QUANTITY_COUNT; k++)
            input_bounds(&mean, k)->lo += input_bounds(&point, k)->lo;
        mean.blocks += c->blocks;
        only = c;
        launches++;
    }
    if (launches == 0)
        return out;
    if (launches == 1)
        return (level_class){only->diagnosis, only->diagnosis_point};
    for (size_t k = 0; k < CLASS_QUANTITY_COUNT; k++) {
        metric_bounds *b = input_bounds(&mean, k);
        b->lo /= (double)launches;
        b->hi = b->lo;
    }
    diagnosis_thresholds point_rules = rules->thresholds;
    point_rules.min_blocks = 0; /* the estimates alone, as diagnosis_point */
    out.diagnosis_point = analysis_diagnose(&mean, &point_rules);
    out.diagnosis = DIAG_UNCERTAIN;
    if (out.diagnosis_point == DIAG_UNCERTAIN || mean.blocks < rules->thresholds.min_blocks)
        return out;
    *p = fisher_p(runs, run_count, config, cell, out.diagnosis_point, launches);
    enum diagnosis group = analysis_diagnosis_group(out.diagnosis_point);
    if (group != out.diagnosis_point)
        *group_p = fisher_p(runs, run_count, config, cell, group, launches);
    return out;
}

/* A one-launch configuration's claims: its run's own, over its own grid. */
static level_claims run_claims(const cell_table *cells)
{
    level_claims k = {0};
    for (size_t i = 0; i < cells->count; i++) {
        const cell_metrics *c = &cells->cells[i];
        if (!c->valid)
            continue;
        k.family_cells++;
        if (c->diagnosis == DIAG_UNCERTAIN || c->diagnosis == DIAG_UNRESOLVABLE ||
            c->diagnosis == DIAG_INVALID)
            continue;
        bool group = c->diagnosis != c->diagnosis_point;
        k.confirmed_cells++;
        k.group_cells += group;
        k.expected_wrong += group ? c->diagnosis_group_p : c->diagnosis_p;
    }
    return k;
}

/* Configuration c's claims over its valid common cells (L >= 2). */
static bool claim_launches(level_class *classes, double *p, const double *group_p, bool *group,
                           size_t n, double q, level_claims *claims)
{
    *claims = (level_claims){0};
    for (size_t i = 0; i < n; i++)
        claims->family_cells += classes[i].diagnosis != DIAG_INVALID;
    double threshold;
    if (!bh_two_levels(p, group_p, group, n, claims->family_cells, q, &threshold))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (isnan(p[i]) || !(p[i] <= threshold))
            continue;
        enum diagnosis point = classes[i].diagnosis_point;
        classes[i].diagnosis = group[i] ? analysis_diagnosis_group(point) : point;
        claims->confirmed_cells++;
        claims->group_cells += group[i];
        claims->expected_wrong += p[i];
    }
    return true;
}

/* Every configuration's classes: classes[config * n + cell], and its
 * claims' summary: claims[config]; NULL when out of memory. With two or
 * more launches, the claims are made as a run's map makes them (README.md,
 * "Claims at two levels"), on the launches' combined p-values, over the
 * configuration's valid common cells. */
level_class *classify_all(const compare_run *runs, size_t run_count, size_t configs,
                          const common_cell *common, size_t n, const cell_rules *rules,
                          level_claims *claims)
{
    size_t count = configs * n;
    level_class *classes = malloc((count ? count : 1) * sizeof *classes);
    double *p = malloc((n ? n : 1) * sizeof *p), *group_p = malloc((n ? n : 1) * sizeof *group_p);
    bool *group = malloc((n ? n : 1) * sizeof *group);
    bool ok = classes && p && group_p && group;
    for (size_t c = 0; ok && c < configs; c++) {
        size_t launches = 0, last = 0;
        for (size_t r = 0; r < run_count; r++)
            if (runs[r].config == c) {
                launches++;
                last = r;
            }
        for (size_t i = 0; i < n; i++)
            classes[c * n + i] =
                configuration_candidate(runs, run_count, c, &common[i], rules, &p[i], &group_p[i]);
        if (launches == 1)
            claims[c] = run_claims(&runs[last].cells);
        else
            ok = claim_launches(classes + c * n, p, group_p, group, n,
                                rules->thresholds.false_discovery_rate, &claims[c]);
        claims[c].false_discovery_rate = rules->thresholds.false_discovery_rate;
    }
    free(p);
    free(group_p);
    free(group);
    if (!ok) {
        free(classes);
        classes = NULL;
    }
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

/* Whether a configuration's combined class of a cell is not confirmed
 * (uncertain, unresolvable): hatched on its map. A group claim is
 * confirmed. */
bool unconfirmed(const level_class *k)
{
    return k->diagnosis != DIAG_INVALID && k->diagnosis != k->diagnosis_point &&
           k->diagnosis != analysis_diagnosis_group(k->diagnosis_point);
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
