/* analysis: nbc-compare. Run folders are grouped into configurations (the
 * library, deployment, collective and measurement configuration of
 * meta.json); the runs of one configuration are its launches. Two levels:
 * each launch's estimate of a cell (cells.csv, a ratio of medians with its
 * block-bootstrap interval), then each configuration's estimate across its
 * launches with an interval that holds launch-to-launch variation
 * (README.md, "Launches"). Configurations are drawn side by side on their
 * common cells; two configurations get difference maps whose cells are
 * significant when the difference's interval excludes 0. */
#include "analysis/analysis_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct compare_run {
    const char *dir;
    char label[128];
    run_meta meta;
    cell_table cells;
    impact_table impact;
    bool have_impact;
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
    double saturation; /* of the difference's colours: one for every map */
} compare_metric;

static const compare_metric compare_metrics[] = {
    {"r_overhead", "overhead", offsetof(cell_metrics, r_overhead),
     offsetof(cell_metrics, r_overhead_ci), 1.0}, /* one serialized-overlap distance */
    /* the same scale as r_overhead's: the three maps compare at a glance */
    {"r_comm", "comm", offsetof(cell_metrics, r_comm), offsetof(cell_metrics, r_comm_ci), 1.0},
    {"r_comp_slowdown", "comp_slowdown", offsetof(cell_metrics, r_comp_slowdown),
     offsetof(cell_metrics, r_comp_slowdown_ci), 1.0},
};
enum { METRIC_COUNT = sizeof compare_metrics / sizeof *compare_metrics };

/* A configuration's estimate of one metric in one cell (README.md). */
typedef struct level_estimate {
    double estimate;
    metric_bounds ci;
    double variance; /* of the estimate */
    long launches;   /* launches where the cell is valid with a value */
} level_estimate;

/* A configuration's class of one cell from its launches combined
 * (README.md, "Launches"): the claim and what the estimates alone say. */
typedef struct level_class {
    enum diagnosis diagnosis;       /* confirmed class, uncertain or invalid */
    enum diagnosis diagnosis_point; /* of the combined estimates alone */
} level_class;

/* A cell present in every run: its index in each run's table. */
typedef struct common_cell {
    double comm_target_s;
    double comp_target_s;
    size_t *index; /* run_count entries */
} common_cell;

static int read_optional(const char *dir, const char *name, char **buf, size_t *len, bool *present,
                         char *path, size_t path_size, analysis_error *err)
{
    bool missing;
    *present = false;
    int status = analysis_path(path, path_size, dir, name, err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, buf, len, &missing, err);
    if (status != ANALYSIS_OK && missing)
        return ANALYSIS_OK;
    *present = status == ANALYSIS_OK;
    return status;
}

static void make_label(compare_run *run)
{
    size_t n = strlen(run->dir);
    while (n > 1 && run->dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && run->dir[start - 1] != '/')
        start--;
    size_t length = n - start < sizeof run->label - 1 ? n - start : sizeof run->label - 1;
    for (size_t i = 0; i < length; i++) /* the label goes into CSV and titles */
        run->label[i] = run->dir[start + i] == ',' ? ';' : run->dir[start + i];
    run->label[length] = '\0';
}

static int load_compare_run(compare_run *run, const analysis_options *options, analysis_error *err)
{
    char path[4200];
    char *buf = NULL;
    size_t len;
    bool present;
    struct stat st;
    make_label(run);
    if (stat(run->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: not a run folder (no such directory)",
                             run->dir);
    int status = read_optional(run->dir, "cells.csv", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && !present) {
        /* not analyzed yet: the same code as nbc-analyze, tables only */
        analysis_options tables_only = *options;
        tables_only.plots = false;
        if (options->report)
            fprintf(options->report, "%s has no cells.csv yet: analyzing it first\n", run->dir);
        status = analysis_analyze_run(run->dir, &tables_only, err);
        if (status == ANALYSIS_OK)
            status =
                read_optional(run->dir, "cells.csv", &buf, &len, &present, path, sizeof path, err);
    }
    if (status == ANALYSIS_OK)
        status = analysis_parse_cells(buf, len, path, &run->cells, err);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK && run->cells.count == 0)
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no cells", path);
    if (status == ANALYSIS_OK)
        status = read_optional(run->dir, "meta.json", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && present)
        status = analysis_parse_meta(buf, len, path, &run->meta, err);
    else if (status == ANALYSIS_OK)
        analysis_warn("%s: no meta.json: the titles lack the library and deployment", run->dir);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK)
        status =
            read_optional(run->dir, "impact.csv", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && present) {
        status = analysis_parse_impact(buf, len, path, &run->impact, err);
        run->have_impact = status == ANALYSIS_OK;
    }
    free(buf);
    return status;
}

static size_t find_cell(const cell_table *cells, double comm_target_s, double comp_target_s)
{
    for (size_t i = 0; i < cells->count; i++)
        if (analysis_same_target(cells->cells[i].comm_target_s, comm_target_s) &&
            analysis_same_target(cells->cells[i].comp_target_s, comp_target_s))
            return i;
    return cells->count;
}

/* The cells of the first run that every other run has too. */
static int common_cells(const compare_run *runs, size_t run_count, common_cell **out, size_t *count,
                        analysis_error *err)
{
    const cell_table *first = &runs[0].cells;
    common_cell *common = calloc(first->count, sizeof *common);
    size_t *indexes = malloc(first->count * run_count * sizeof *indexes);
    if (!common || !indexes) {
        free(common);
        free(indexes);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (common cells)");
    }
    size_t n = 0;
    for (size_t i = 0; i < first->count; i++) {
        common_cell c = {first->cells[i].comm_target_s, first->cells[i].comp_target_s,
                         indexes + n * run_count};
        bool everywhere = find_cell(first, c.comm_target_s, c.comp_target_s) == i;
        for (size_t r = 0; r < run_count && everywhere; r++) {
            c.index[r] = find_cell(&runs[r].cells, c.comm_target_s, c.comp_target_s);
            everywhere = c.index[r] < runs[r].cells.count;
        }
        if (everywhere)
            common[n++] = c;
    }
    *out = common;
    *count = n;
    if (n == 0) {
        free(indexes);
        free(common);
        *out = NULL;
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "the runs have no cell in common (no pair of communication and "
                             "computation targets appears in all of them)");
    }
    return ANALYSIS_OK;
}

static void free_common(common_cell *common)
{
    if (common)
        free(common[0].index); /* one block for all indexes */
    free(common);
}

/* ---- Compute cores (--normalize-cores, README.md) ------------------------------ */

static int write_text(const char *out_dir, const char *name, const strbuf *sb, analysis_error *err)
{
    char path[4200];
    int status = sb->ok ? analysis_path(path, sizeof path, out_dir, name, err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, sb->data, sb->len, err);
    return status;
}

/* A rank's compute cores: the length of meta.json's
 * deployment_plan.compute.cpus (rank 0's plan, for its real cores). */
static int read_compute_cores(compare_run *run, analysis_error *err)
{
    char path[4200];
    char *buf = NULL;
    size_t len;
    bool present;
    int status = read_optional(run->dir, "meta.json", &buf, &len, &present, path, sizeof path, err);
    if (status != ANALYSIS_OK)
        return status;
    if (!present)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s: --normalize-cores needs meta.json (its "
                             "deployment_plan.compute.cpus, the compute cores): no such file",
                             path);
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
    json_object *plan, *compute, *cpus;
    bool found = root && json_object_object_get_ex(root, "deployment_plan", &plan) &&
                 json_object_object_get_ex(plan, "compute", &compute) &&
                 json_object_object_get_ex(compute, "cpus", &cpus) &&
                 json_object_is_type(cpus, json_type_array) && json_object_array_length(cpus) > 0;
    run->compute_cores = found ? (long)json_object_array_length(cpus) : 0;
    json_object_put(root);
    if (tok)
        json_tokener_free(tok);
    free(buf);
    if (!found)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s: deployment_plan.compute.cpus is %s: --normalize-cores needs "
                             "each run's compute cores (a non-empty array of CPUs, written by "
                             "bench_nbc)",
                             path, root ? "missing or not a non-empty array" : "unreadable JSON");
    return ANALYSIS_OK;
}

/* Scales a run's compute times by k = (most compute cores of the runs) /
 * (its own): the time its compute cores would take for the node-level work
 * of the run with the most, under perfect strong scaling of the
 * computation over cores. t_comp_ref and t_comp (and their local forms)
 * grow by k, the overlap step by the added computation (k - 1) t_comp with
 * its MPI time unchanged, and r_overhead (eq. 1) is recomputed from them;
 * its interval is mapped by the same affine function of r_overhead (the
 * compute times taken as known). r_comm (MPI time only) and
 * r_comp_slowdown (compute over compute) do not change. */
static void scale_compute(compare_run *run, double k)
{
    run->core_scale = k;
    if (k == 1)
        return;
    for (size_t i = 0; i < run->cells.count; i++) {
        cell_metrics *c = &run->cells.cells[i];
        double before_max = fmax(c->t_comm_ref, c->t_comp_ref);
        double before_min = fmin(c->t_comm_ref, c->t_comp_ref);
        double added = (k - 1) * c->t_comp;
        c->t_comp_ref *= k;
        c->t_comp_ref_local *= k;
        c->t_comp *= k;
        c->t_measured += added;
        c->t_measured_local += added;
        double after_max = fmax(c->t_comm_ref, c->t_comp_ref);
        double after_min = fmin(c->t_comm_ref, c->t_comp_ref);
        /* r' = (r m + added + M - M') / m' for r and both interval ends */
        double slope = before_min / after_min;
        double shift = (added + before_max - after_max) / after_min;
        c->r_overhead = c->r_overhead * slope + shift;
        c->r_overhead_ci.lo = c->r_overhead_ci.lo * slope + shift;
        c->r_overhead_ci.hi = c->r_overhead_ci.hi * slope + shift;
    }
}

/* Reads every run's compute cores, scales the compute times, and writes
 * out_dir/normalization.csv (run,compute_cores,core_scale). */
static int normalize_cores(compare_run *runs, size_t run_count, const char *out_dir, FILE *report,
                           analysis_error *err)
{
    long most = 0;
    for (size_t r = 0; r < run_count; r++) {
        int status = read_compute_cores(&runs[r], err);
        if (status != ANALYSIS_OK)
            return status;
        most = runs[r].compute_cores > most ? runs[r].compute_cores : most;
    }
    for (size_t r = 0; r < run_count; r++) {
        scale_compute(&runs[r], (double)most / (double)runs[r].compute_cores);
        if (report)
            fprintf(report,
                    "--normalize-cores: %s computes on %ld core%s: compute times x %ld/%ld = "
                    "%.4g (perfect strong scaling assumed)\n",
                    runs[r].label, runs[r].compute_cores, runs[r].compute_cores == 1 ? "" : "s",
                    most, runs[r].compute_cores, runs[r].core_scale);
    }
    strbuf csv = {0};
    strbuf_printf(&csv, "run,compute_cores,core_scale\n");
    for (size_t r = 0; r < run_count; r++)
        strbuf_printf(&csv, "%s,%ld,%.9g\n", runs[r].label, runs[r].compute_cores,
                      runs[r].core_scale);
    int status = write_text(out_dir, "normalization.csv", &csv, err);
    strbuf_free(&csv);
    return status;
}

/* The figures' line saying so, or "" without --normalize-cores. */
static void normalize_note(const compare_run *runs, size_t run_count, bool normalized, char *out,
                           size_t out_size)
{
    out[0] = '\0';
    if (!normalized)
        return;
    size_t used = (size_t)snprintf(out, out_size,
                                   "\n--normalize-cores: compute times scaled to the most compute "
                                   "cores (perfect strong scaling assumed)\n");
    for (size_t r = 0; r < run_count && used < out_size; r++)
        used += (size_t)snprintf(out + used, out_size - used, "%s%s x%.3g", r ? ", " : "",
                                 runs[r].label, runs[r].core_scale);
}

/* ---- Configurations and launches ---------------------------------------------- */

static const char *meta_or(const char *value, const char *fallback)
{
    return value[0] ? value : fallback;
}

static bool same_configuration(const run_meta *a, const run_meta *b)
{
    return strcmp(a->library_profile, b->library_profile) == 0 &&
           strcmp(a->library_version, b->library_version) == 0 &&
           strcmp(a->deployment, b->deployment) == 0 && strcmp(a->collective, b->collective) == 0 &&
           a->ranks == b->ranks && a->nodes == b->nodes &&
           a->threads_per_rank == b->threads_per_rank && a->config_digest == b->config_digest;
}

/* Groups the runs; configurations in the order of their first run. */
static int group_runs(compare_run *runs, size_t run_count, compare_config **out, size_t *count,
                      analysis_error *err)
{
    compare_config *configs = calloc(run_count, sizeof *configs);
    if (!configs)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (configurations)");
    size_t n = 0;
    for (size_t r = 0; r < run_count; r++) {
        size_t c = 0;
        while (c < n && !same_configuration(&runs[configs[c].first_run].meta, &runs[r].meta))
            c++;
        if (c == n)
            configs[n++] = (compare_config){.first_run = r};
        runs[r].config = c;
        runs[r].launch = ++configs[c].launches;
    }
    for (size_t c = 0; c < n; c++) {
        const run_meta *m = &runs[configs[c].first_run].meta;
        const char *collective = m->collective[0] ? m->collective
                                 : runs[configs[c].first_run].cells.count
                                     ? runs[configs[c].first_run].cells.cells[0].collective
                                     : "?";
        snprintf(configs[c].label, sizeof configs[c].label, "%s %s %s %s",
                 meta_or(m->library_profile, "?"), meta_or(m->library_version, "?"),
                 meta_or(m->deployment, "?"), collective);
        for (size_t d = 0; d < c; d++) /* the same names, another measurement configuration */
            if (strcmp(configs[d].label, configs[c].label) == 0) {
                size_t used = strlen(configs[c].label);
                snprintf(configs[c].label + used, sizeof configs[c].label - used, " #%zu", c + 1);
                break;
            }
    }
    *out = configs;
    *count = n;
    return ANALYSIS_OK;
}

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

/* Configuration c's candidate class of common cell i from its L >= 2
 * launches (README.md, "Launches"): the class of the mean of their
 * estimates (analysis_diagnose on points), and Fisher's combination of the
 * launches' p-values of it, -2 sum ln p_j against chi^2 with 2 L degrees
 * of freedom; a launch whose estimates give another class, or without a p
 * (too few blocks), counts as p = 1. *p is NAN when there is no class to
 * claim. With one launch, the run's own class and claim (*p NAN). */
static level_class configuration_candidate(const compare_run *runs, size_t run_count, size_t config,
                                           const common_cell *cell, const cell_rules *rules,
                                           double *p)
{
    level_class out = {DIAG_INVALID, DIAG_INVALID};
    diagnosis_input mean = {.valid = true};
    long launches = 0;
    const cell_metrics *only = NULL;
    *p = NAN;
    for (size_t r = 0; r < run_count; r++) {
        const cell_metrics *c = &runs[r].cells.cells[cell->index[r]];
        if (runs[r].config != config || !c->valid || !isfinite(c->r_overhead))
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
    double statistic = 0;
    for (size_t r = 0; r < run_count; r++) {
        const cell_metrics *c = &runs[r].cells.cells[cell->index[r]];
        if (runs[r].config != config || !c->valid || !isfinite(c->r_overhead))
            continue;
        bool same = c->diagnosis_point == out.diagnosis_point && isfinite(c->diagnosis_p);
        statistic += same ? -2 * log(fmax(c->diagnosis_p, 1e-300)) : 0;
    }
    *p = chi2_even_tail(statistic, launches);
    return out;
}

/* Every configuration's classes: classes[config * n + cell]; NULL when out
 * of memory. With two or more launches, a cell's class is claimed when
 * Benjamini-Hochberg at the map's false-discovery rate over the
 * configuration's valid common cells confirms its combined p, as a run's
 * map confirms its cells' p. */
static level_class *classify_all(const compare_run *runs, size_t run_count, size_t configs,
                                 const common_cell *common, size_t n, const cell_rules *rules)
{
    size_t count = configs * n;
    level_class *classes = malloc((count ? count : 1) * sizeof *classes);
    double *p = malloc((n ? n : 1) * sizeof *p);
    bool ok = classes && p;
    for (size_t c = 0; ok && c < configs; c++) {
        long valid = 0;
        for (size_t i = 0; i < n; i++) {
            classes[c * n + i] =
                configuration_candidate(runs, run_count, c, &common[i], rules, &p[i]);
            valid += classes[c * n + i].diagnosis != DIAG_INVALID;
        }
        double threshold;
        ok = bh_threshold(p, n, valid, rules->thresholds.false_discovery_rate, &threshold);
        for (size_t i = 0; ok && i < n; i++)
            if (!isnan(p[i]) && p[i] <= threshold)
                classes[c * n + i].diagnosis = classes[c * n + i].diagnosis_point;
    }
    free(p);
    if (!ok) {
        free(classes);
        classes = NULL;
    }
    return classes;
}

/* ---- Tables --------------------------------------------------------------------- */

typedef struct run_summary {
    size_t cells;
    size_t valid;
    size_t certain;   /* valid and not uncertain: what the numbers below count */
    size_t uncertain; /* valid but not confirmed (uncertain or unresolvable) */
    double overlap_share;
    double median_r_overhead;
    double worst_r_overhead;
    double worst_comm_target_s;
    double worst_comp_target_s;
    impact_median impact; /* over impact.csv's rows, with its interval */
} run_summary;

static run_summary summarize(const compare_run *run, size_t r, const common_cell *common, size_t n,
                             double *scratch)
{
    run_summary s = {.cells = n,
                     .worst_r_overhead = NAN,
                     .worst_comm_target_s = NAN,
                     .worst_comp_target_s = NAN};
    size_t overlap = 0;
    for (size_t i = 0; i < n; i++) {
        const cell_metrics *c = &run->cells.cells[common[i].index[r]];
        if (!c->valid || isnan(c->r_overhead))
            continue;
        s.valid++;
        if (c->diagnosis == DIAG_UNCERTAIN || c->diagnosis == DIAG_UNRESOLVABLE) {
            s.uncertain++;
            continue; /* a run is summarized by what it is sure of */
        }
        scratch[s.certain++] = c->r_overhead;
        overlap += c->diagnosis == DIAG_OVERLAP;
        if (isnan(s.worst_r_overhead) || c->r_overhead > s.worst_r_overhead) {
            s.worst_r_overhead = c->r_overhead;
            s.worst_comm_target_s = c->comm_target_s;
            s.worst_comp_target_s = c->comp_target_s;
        }
    }
    s.overlap_share = s.certain ? (double)overlap / (double)s.certain : NAN;
    s.median_r_overhead = stats_median(scratch, s.certain);
    return s;
}

static int write_summary(const compare_run *runs, size_t run_count, const common_cell *common,
                         size_t n, const char *out_dir, FILE *report, analysis_error *err)
{
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    strbuf csv = {0};
    strbuf_printf(&csv, "run,mpi,deployment,collective,cells,valid_cells,overlap_share,"
                        "median_r_overhead,worst_r_overhead,worst_comm_target_s,"
                        "worst_comp_target_s,median_r_mpi_impact,median_r_mpi_impact_ci_lo,"
                        "median_r_mpi_impact_ci_hi,certain_cells,uncertain_cells,configuration,"
                        "launch\n");
    /* the run column as wide as its longest label, so that long folder
     * names do not push the other columns out of line */
    int label_width = 3;
    for (size_t r = 0; r < run_count; r++)
        label_width =
            (int)strlen(runs[r].label) > label_width ? (int)strlen(runs[r].label) : label_width;
    if (report)
        fprintf(report, "%-*s %-8s %-10s %-12s %5s %5s %7s %8s %9s %9s %-17s %-21s %6s\n",
                label_width, "run", "mpi", "deployment", "collective", "cells", "valid", "certain",
                "overlap", "median_r", "worst_r", "worst at (ms)", "r_impact [95 %]", "config");
    int status = ANALYSIS_OK;
    for (size_t r = 0; r < run_count && status == ANALYSIS_OK; r++) {
        const compare_run *run = &runs[r];
        run_summary s = summarize(run, r, common, n, scratch);
        status = analysis_impact_median(run->have_impact ? run->impact.rows : NULL,
                                        run->have_impact ? run->impact.count : 0, &s.impact, err);
        if (status != ANALYSIS_OK)
            break;
        const char *mpi = meta_or(run->meta.mpi, "?");
        const char *deployment = meta_or(run->meta.deployment, "?");
        const char *collective =
            meta_or(run->meta.collective, run->cells.count ? run->cells.cells[0].collective : "?");
        strbuf_printf(&csv,
                      "%s,%s,%s,%s,%zu,%zu,%.4g,%.6g,%.6g,%.9g,%.9g,%.6g,%.6g,%.6g,%zu,%zu,%zu,"
                      "%zu\n",
                      run->label, mpi, deployment, collective, s.cells, s.valid, s.overlap_share,
                      s.median_r_overhead, s.worst_r_overhead, s.worst_comm_target_s,
                      s.worst_comp_target_s, s.impact.r_mpi_impact, s.impact.ci.lo, s.impact.ci.hi,
                      s.certain, s.uncertain, run->config + 1, run->launch);
        if (report) {
            char worst_at[64] = "-";
            if (!isnan(s.worst_r_overhead))
                snprintf(worst_at, sizeof worst_at, "comm %g comp %g", s.worst_comm_target_s * 1e3,
                         s.worst_comp_target_s * 1e3);
            char config[32], impact[64];
            snprintf(config, sizeof config, "%zu.%zu", run->config + 1, run->launch);
            snprintf(impact, sizeof impact, "%.3g [%.3g, %.3g]", s.impact.r_mpi_impact,
                     s.impact.ci.lo, s.impact.ci.hi);
            fprintf(report,
                    "%-*s %-8s %-10s %-12s %5zu %5zu %7zu %7.0f%% %9.3g %9.3g %-17s %-21s %6s\n",
                    label_width, run->label, mpi, deployment, collective, s.cells, s.valid,
                    s.certain, 100.0 * s.overlap_share, s.median_r_overhead, s.worst_r_overhead,
                    worst_at, isnan(s.impact.r_mpi_impact) ? "-" : impact, config);
        }
    }
    free(scratch);
    char path[4200];
    if (status == ANALYSIS_OK)
        status = csv.ok ? analysis_path(path, sizeof path, out_dir, "summary.csv", err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (summary)");
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, csv.data, csv.len, err);
    strbuf_free(&csv);
    return status;
}

static int write_heat(const char *out_dir, const char *name, const heat_axis *x_axis,
                      const heat_axis *y_axis, const heat_value *values, size_t n,
                      const heat_scale *scale, double cell_pt, analysis_error *err)
{
    char path[4200];
    int status = analysis_path(path, sizeof path, out_dir, name, err);
    if (status == ANALYSIS_OK)
        status = heat_write_data(path, x_axis, y_axis, values, n, scale, cell_pt, err);
    return status;
}

/* The caption's legend of the invalid cells' labels, where they are
 * abbreviated and one is on the map. */
static const char *invalid_legend(const heat_value *values, size_t n, double cell_pt)
{
    for (size_t i = 0; i < n; i++)
        if (!values[i].valid && plot_invalid_abbreviated(cell_pt))
            return plot_invalid_legend;
    return "";
}

/* The files' title (caption's first line): what, then the configurations
 * compared (library, version, deployment, collective). */
static int write_script(const char *out_dir, const char *base, const char *comment,
                        const compare_config *configs, size_t config_count, double width_in,
                        double height_in, const strbuf *body, const char *caption,
                        analysis_error *err)
{
    strbuf title = {0};
    strbuf_printf(&title, "%s", comment);
    for (size_t c = 0; c < config_count; c++)
        strbuf_printf(&title, "%s%s", c ? " vs " : "; ", configs[c].label);
    int status = title.ok ? plot_write_figure(out_dir, base, title.data, width_in, height_in, body,
                                              caption, err)
                          : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", base);
    strbuf_free(&title);
    return status;
}

/* Every configuration's estimates: est[(config * METRIC_COUNT + metric) * n + cell]. */
static level_estimate *estimate_all(const compare_run *runs, size_t run_count, size_t configs,
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

/* Two tables into out_dir; both buffers are freed. */
static int write_two_texts(const char *out_dir, const char *first_name, strbuf *first,
                           const char *second_name, strbuf *second, analysis_error *err)
{
    int status = write_text(out_dir, first_name, first, err);
    if (status == ANALYSIS_OK)
        status = write_text(out_dir, second_name, second, err);
    strbuf_free(first);
    strbuf_free(second);
    return status;
}

/* Whether a configuration's combined class of a cell is not what its
 * estimates say (uncertain, or a class the estimates do not give): hatched
 * on its map. */
static bool unconfirmed(const level_class *k)
{
    return k->diagnosis != DIAG_INVALID && k->diagnosis != k->diagnosis_point;
}

/* Configuration c's estimate of metric m in common cell i. */
static const level_estimate *estimate_at(const level_estimate *est, size_t n, size_t c, size_t m,
                                         size_t i)
{
    return &est[(c * METRIC_COUNT + m) * n + i];
}

/* configurations.csv (one row per configuration) and
 * configuration_cells.csv (its estimates per common cell), and the
 * configurations on the report. */
static int write_configurations(const compare_run *runs, size_t run_count,
                                const compare_config *configs, size_t config_count,
                                const common_cell *common, size_t n, const level_estimate *est,
                                const level_class *classes, const char *out_dir, FILE *report,
                                analysis_error *err)
{
    strbuf list = {0}, cells = {0};
    strbuf_printf(&list, "configuration,label,launches,runs\n");
    strbuf_printf(&cells, "configuration,comm_target_s,comp_target_s,launches");
    for (size_t m = 0; m < METRIC_COUNT; m++)
        strbuf_printf(&cells, ",%s,%s_ci_lo,%s_ci_hi", compare_metrics[m].name,
                      compare_metrics[m].name, compare_metrics[m].name);
    strbuf_printf(&cells, ",uncertain,diagnosis,diagnosis_point\n");
    for (size_t c = 0; c < config_count; c++) {
        strbuf_printf(&list, "%zu,%s,%zu,", c + 1, configs[c].label, configs[c].launches);
        if (report)
            fprintf(report, "configuration %zu: %s, %zu launch%s (", c + 1, configs[c].label,
                    configs[c].launches, configs[c].launches == 1 ? "" : "es");
        for (size_t r = 0, k = 0; r < run_count; r++) {
            if (runs[r].config != c)
                continue;
            strbuf_printf(&list, "%s%s", k ? ";" : "", runs[r].label);
            if (report)
                fprintf(report, "%s%s", k ? ", " : "", runs[r].label);
            k++;
        }
        strbuf_printf(&list, "\n");
        size_t measured = 0, open = 0;
        for (size_t i = 0; i < n; i++) {
            measured += classes[c * n + i].diagnosis != DIAG_INVALID;
            open += unconfirmed(&classes[c * n + i]);
        }
        if (report)
            fprintf(report, ")%s; classes not confirmed in %zu of %zu valid cells%s\n",
                    configs[c].launches == 1
                        ? ": one launch, its intervals do not cover launch-to-launch variation"
                        : "",
                    open, measured, configs[c].launches == 1 ? " (the run's own)" : "");
        for (size_t i = 0; i < n; i++) {
            long launches = estimate_at(est, n, c, 0, i)->launches;
            strbuf_printf(&cells, "%zu,%.9g,%.9g,%ld", c + 1, common[i].comm_target_s,
                          common[i].comp_target_s, launches);
            for (size_t m = 0; m < METRIC_COUNT; m++) {
                const level_estimate *e = estimate_at(est, n, c, m, i);
                strbuf_printf(&cells, ",%.6g,%.6g,%.6g", e->estimate, e->ci.lo, e->ci.hi);
            }
            const level_class *k = &classes[c * n + i];
            strbuf_printf(&cells, ",%d,%s,%s\n", unconfirmed(k) ? 1 : 0,
                          analysis_diagnosis_name(k->diagnosis),
                          analysis_diagnosis_name(k->diagnosis_point));
        }
    }
    return write_two_texts(out_dir, "configurations.csv", &list, "configuration_cells.csv", &cells,
                           err);
}

/* One cell's difference of one metric between the two configurations. */
typedef struct cell_difference {
    double value;
    metric_bounds ci;
    bool valid;
    bool significant;
} cell_difference;

static cell_difference difference_of(const level_estimate *a, const level_estimate *b)
{
    cell_difference d = {.value = b->estimate - a->estimate, .ci = {NAN, NAN}};
    d.valid = a->launches > 0 && b->launches > 0 && isfinite(d.value);
    if (d.valid)
        d.ci = difference_interval(a, b, d.value);
    d.significant = d.valid && (d.ci.lo > 0 || d.ci.hi < 0);
    return d;
}

/* differences.csv (per metric and cell), summary_differences.csv and the
 * printed lines (per metric) for two configurations. */
static int write_differences(const compare_config *configs, const common_cell *common, size_t n,
                             const level_estimate *est, const char *out_dir, FILE *report,
                             analysis_error *err)
{
    strbuf cells = {0}, summary = {0};
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (differences)");
    bool two_level = configs[0].launches >= 2 && configs[1].launches >= 2;
    const char *method = two_level ? "launches" : "intervals";
    strbuf_printf(&cells, "metric,comm_target_s,comp_target_s,valid,difference,ci_lo,ci_hi,"
                          "significant\n");
    strbuf_printf(&summary, "metric,first,second,launches_first,launches_second,cells,"
                            "valid_cells,median_difference,significant_cells,method\n");
    if (report)
        fprintf(report, "differences, configuration 2 (%s) minus 1 (%s), %s:\n", configs[1].label,
                configs[0].label,
                two_level ? "95 % intervals from the launches (t, the smaller configuration's "
                            "launches - 1 degrees of freedom)"
                          : "significant where the 95 % intervals do not overlap (one launch: "
                            "launch-to-launch variation is not covered)");
    for (size_t m = 0; m < METRIC_COUNT; m++) {
        size_t valid = 0, significant = 0;
        for (size_t i = 0; i < n; i++) {
            cell_difference d =
                difference_of(estimate_at(est, n, 0, m, i), estimate_at(est, n, 1, m, i));
            strbuf_printf(&cells, "%s,%.9g,%.9g,%d,%.6g,%.6g,%.6g,%d\n", compare_metrics[m].name,
                          common[i].comm_target_s, common[i].comp_target_s, d.valid ? 1 : 0,
                          d.value, d.ci.lo, d.ci.hi, d.significant ? 1 : 0);
            if (d.valid)
                scratch[valid++] = d.value;
            significant += d.significant;
        }
        double median = stats_median(scratch, valid);
        strbuf_printf(&summary, "%s,%s,%s,%zu,%zu,%zu,%zu,%.6g,%zu,%s\n", compare_metrics[m].name,
                      configs[0].label, configs[1].label, configs[0].launches, configs[1].launches,
                      n, valid, median, significant, method);
        if (report)
            fprintf(report,
                    "  %-16s median difference %+.3g, significant in %zu of %zu valid cells "
                    "(launches %zu and %zu)\n",
                    compare_metrics[m].name, median, significant, valid, configs[0].launches,
                    configs[1].launches);
    }
    free(scratch);
    return write_two_texts(out_dir, "differences.csv", &cells, "summary_differences.csv", &summary,
                           err);
}

/* ---- Figures --------------------------------------------------------------------- */

typedef struct figure_grid {
    heat_axis x_axis, y_axis;
} figure_grid;

static int grid_build(figure_grid *g, const common_cell *common, size_t n, analysis_error *err)
{
    double *targets = malloc((n ? n : 1) * sizeof *targets);
    if (!targets)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        targets[i] = common[i].comm_target_s;
    int status = heat_axis_build(&g->x_axis, targets, n, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < n; i++)
        targets[i] = common[i].comp_target_s;
    if (status == ANALYSIS_OK)
        status = heat_axis_build(&g->y_axis, targets, n, err);
    free(targets);
    return status;
}

/* The second line under the times: the bytes (x) and GEMM orders (y) run r
 * used at the common cells; alt: as a second run's beside those set. */
static int grid_physical(figure_grid *g, const compare_run *runs, size_t r,
                         const common_cell *common, size_t n, bool alt, analysis_error *err)
{
    double *targets = malloc((n ? n : 1) * sizeof *targets);
    long long *values = malloc((n ? n : 1) * sizeof *values);
    int status =
        targets && values ? ANALYSIS_OK : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (int axis = 0; status == ANALYSIS_OK && axis < 2; axis++) {
        for (size_t i = 0; i < n; i++) {
            const cell_metrics *c = &runs[r].cells.cells[common[i].index[r]];
            targets[i] = axis == 0 ? common[i].comm_target_s : common[i].comp_target_s;
            values[i] = axis == 0 ? c->bytes : c->matrix_n;
        }
        heat_axis *a = axis == 0 ? &g->x_axis : &g->y_axis;
        status = alt ? heat_axis_set_physical_alt(a, targets, values, n, err)
                     : heat_axis_set_physical(a, targets, values, n, axis == 0, err);
    }
    free(targets);
    free(values);
    return status;
}

/* compare_overhead: each configuration's r_overhead (its launches' mean) side by side. */
static int draw_configurations(const compare_run *runs, const compare_config *configs,
                               size_t config_count, const common_cell *common, size_t n,
                               const level_estimate *est, const level_class *classes,
                               figure_grid *g, const char *out_dir, const analysis_options *options,
                               const char *note, heat_value *values, analysis_error *err)
{
    char stops[400], label[100];
    snprintf(label, sizeof label, "r_overhead");
    heat_scale scale =
        plot_overhead_scale(options->palette, label, options->r_overhead_max, stops, sizeof stops);
    int lines = options->titles ? 1 : 0;
    heat_layout layout =
        heat_figure_layout(&options->figure, &g->x_axis, &g->y_axis, config_count, lines);
    strbuf body = {0};
    /* a normalized figure says so in its title, the factors in its caption */
    strbuf_printf(&body, "    set multiplot layout %d,%d title \"%s\"\n", layout.rows, layout.cols,
                  !options->titles           ? ""
                  : options->normalize_cores ? "r_overhead, compute normalized"
                                             : "r_overhead, one colour scale");
    /* every panel keeps the colour bar's room (characters at the figures'
     * font), so the panels without it have the same plot area */
    strbuf_printf(&body, "    set rmargin 11\n");
    double cell_pt =
        heat_cell_width_pt(&options->figure, &g->x_axis, &g->y_axis, config_count, lines);
    const char *legend = "";
    int status = ANALYSIS_OK;
    for (size_t c = 0; status == ANALYSIS_OK && c < config_count; c++) {
        const compare_run *first = &runs[configs[c].first_run];
        /* each panel under its configuration's bytes and GEMM orders */
        status = grid_physical(g, runs, configs[c].first_run, common, n, false, err);
        for (size_t i = 0; status == ANALYSIS_OK && i < n; i++) {
            const level_estimate *e = estimate_at(est, n, c, 0, i); /* r_overhead */
            const cell_metrics *cell = &first->cells.cells[common[i].index[configs[c].first_run]];
            values[i] = (heat_value){common[i].comm_target_s,
                                     common[i].comp_target_s,
                                     e->estimate,
                                     e->launches > 0,
                                     plot_invalid_label(cell, cell_pt),
                                     unconfirmed(&classes[c * n + i])};
        }
        if (!legend[0])
            legend = invalid_legend(values, n, cell_pt);
        char name[64], title[700], launches[64] = "";
        snprintf(name, sizeof name, "compare_overhead_%zu.dat", c + 1);
        if (status == ANALYSIS_OK)
            status =
                write_heat(out_dir, name, &g->x_axis, &g->y_axis, values, n, &scale, cell_pt, err);
        if (configs[c].launches > 1)
            snprintf(launches, sizeof launches, " (%zu launches)", configs[c].launches);
        char tail[160];
        plot_short_tail(&first->meta, tail, sizeof tail);
        snprintf(title, sizeof title, "%s %s%s",
                 meta_or(first->meta.collective, first->cells.cells[0].collective), tail, launches);
        /* one colour bar, beside the last panel: the panels share it */
        heat_scale shown = scale;
        shown.hide_colorbox = c + 1 < config_count;
        shown.shared_bar = true;
        heat_emit_panel(&body, name, &g->x_axis, &g->y_axis, &shown, title);
    }
    strbuf_printf(&body, "    unset multiplot\n");
    strbuf caption = {0};
    strbuf_printf(&caption,
                  "Under the times: the message bytes and GEMM order (in brackets) of each "
                  "panel's configuration.%s%s",
                  legend, note);
    if (status == ANALYSIS_OK)
        status = caption.ok ? write_script(out_dir, "compare_overhead",
                                           "r_overhead of each configuration side by side "
                                           "(identical colour scale)",
                                           configs, config_count, layout.width_in, layout.height_in,
                                           &body, caption.data, err)
                            : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    strbuf_free(&caption);
    strbuf_free(&body);
    return status;
}

/* diff_<metric>: the second configuration minus the first, hatched where
 * not significant. */
static int draw_difference(const compare_run *runs, const compare_config *configs,
                           const common_cell *common, size_t n, const level_estimate *est, size_t m,
                           figure_grid *g, const char *out_dir, const analysis_options *options,
                           const char *note, heat_value *values, analysis_error *err)
{
    const compare_metric *metric = &compare_metrics[m];
    bool two_level = configs[0].launches >= 2 && configs[1].launches >= 2;
    for (size_t i = 0; i < n; i++) {
        cell_difference d =
            difference_of(estimate_at(est, n, 0, m, i), estimate_at(est, n, 1, m, i));
        values[i] =
            (heat_value){common[i].comm_target_s, common[i].comp_target_s, d.value, d.valid, NULL,
                         !d.significant};
    }
    /* the second configuration's bytes change the layout: set them first */
    int status = grid_physical(g, runs, configs[0].first_run, common, n, false, err);
    if (status == ANALYSIS_OK)
        status = grid_physical(g, runs, configs[1].first_run, common, n, true, err);
    double cell_pt =
        heat_cell_width_pt(&options->figure, &g->x_axis, &g->y_axis, 1, options->titles ? 1 : 0);
    char caption[2700], label[120], data[64], base[64], title[300] = "";
    snprintf(caption, sizeof caption,
             "%s of the second configuration minus the first. First: %s (%zu launch%s); second: "
             "%s (%zu launch%s). Blue: the second lower, red: higher. Dashed outline: not "
             "significant (%s). Under the times: the first configuration's message bytes and "
             "GEMM order (in brackets); where the second's read differently, its bytes on a "
             "third line and its order after a slash.%s%s",
             metric->name, configs[0].label, configs[0].launches,
             configs[0].launches == 1 ? "" : "es", configs[1].label, configs[1].launches,
             configs[1].launches == 1 ? "" : "es",
             two_level ? "the difference's 95 % interval over the launches holds 0"
                       : "the 95 % intervals overlap; one launch: launch-to-launch variation "
                         "not covered",
             invalid_legend(values, n, cell_pt), note);
    snprintf(label, sizeof label, "difference of %s", metric->name);
    if (options->titles)
        snprintf(title, sizeof title, "%s: second - first%s", metric->name,
                 options->normalize_cores ? ", normalized" : "");
    snprintf(data, sizeof data, "diff_%s.dat", metric->map);
    snprintf(base, sizeof base, "diff_%s", metric->map);
    heat_scale diff = plot_diverging_scale(options->palette, label, metric->saturation);
    if (status == ANALYSIS_OK)
        status = write_heat(out_dir, data, &g->x_axis, &g->y_axis, values, n, &diff, cell_pt, err);
    heat_layout layout =
        heat_figure_layout(&options->figure, &g->x_axis, &g->y_axis, 1, options->titles ? 1 : 0);
    strbuf body = {0};
    plot_emit_canvas_title(&body, title);
    heat_emit_panel(&body, data, &g->x_axis, &g->y_axis, &diff, "");
    strbuf_printf(&body, "    unset multiplot\n");
    char comment[160];
    snprintf(comment, sizeof comment,
             "Difference of %s between two configurations (second minus first)", metric->name);
    if (status == ANALYSIS_OK)
        status = write_script(out_dir, base, comment, configs, 2, layout.width_in, layout.height_in,
                              &body, caption, err);
    strbuf_free(&body);
    return status;
}

/* The folders of one collective at several rank counts (a job's
 * run.ranks, or runs launched at different sizes): r_overhead against the
 * rank count, a line per collective, over the cells common to all runs
 * (overhead_vs_ranks.csv, .dat and .gp). *drawn: whether there was one. */
static int write_rank_scaling(const compare_run *runs, const compare_config *configs,
                              size_t config_count, size_t n, const level_estimate *est,
                              const char *out_dir, const figure_size *size, bool *drawn,
                              analysis_error *err)
{
    *drawn = false;
    const char **names = calloc(config_count ? config_count : 1, sizeof *names);
    if (!names)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    size_t lines = 0;
    strbuf csv = {0}, dat = {0};
    strbuf_printf(&csv, "collective,ranks,r_overhead_mean,r_overhead_min,r_overhead_max,cells\n");
    for (size_t c = 0; c < config_count; c++) {
        const char *coll = runs[configs[c].first_run].meta.collective;
        bool seen = false, several = false;
        for (size_t l = 0; l < lines; l++)
            seen = seen || strcmp(names[l], coll) == 0;
        for (size_t d = 0; d < config_count; d++)
            several = several || (strcmp(runs[configs[d].first_run].meta.collective, coll) == 0 &&
                                  runs[configs[d].first_run].meta.ranks !=
                                      runs[configs[c].first_run].meta.ranks);
        if (seen || !several || !coll[0])
            continue;
        /* This collective's configurations, by increasing rank count. */
        strbuf_printf(&dat, "%s# %s\n", lines ? "\n\n" : "", coll);
        long previous = 0;
        for (;;) {
            long next = 0;
            size_t at = config_count;
            for (size_t d = 0; d < config_count; d++) {
                const run_meta *m = &runs[configs[d].first_run].meta;
                if (strcmp(m->collective, coll) == 0 && m->ranks > previous &&
                    (next == 0 || m->ranks < next))
                    next = m->ranks, at = d;
            }
            if (at == config_count)
                break;
            previous = next;
            double sum = 0, lo = INFINITY, hi = -INFINITY;
            size_t cells = 0;
            for (size_t i = 0; i < n; i++) {
                double v = estimate_at(est, n, at, 0, i)->estimate; /* metric 0: r_overhead */
                if (isfinite(v)) {
                    sum += v, cells++;
                    lo = fmin(lo, v), hi = fmax(hi, v);
                }
            }
            if (cells == 0)
                continue;
            strbuf_printf(&csv, "%s,%ld,%.6g,%.6g,%.6g,%zu\n", coll, next, sum / cells, lo, hi,
                          cells);
            strbuf_printf(&dat, "%ld %.6g %.6g %.6g\n", next, sum / cells, lo, hi);
        }
        names[lines++] = coll;
    }
    int status = ANALYSIS_OK;
    if (lines > 0) {
        strbuf body = {0};
        plot_emit_ranks_lines(&body, "overhead_vs_ranks.dat", names, lines);
        status = write_text(out_dir, "overhead_vs_ranks.csv", &csv, err);
        if (status == ANALYSIS_OK)
            status = write_text(out_dir, "overhead_vs_ranks.dat", &dat, err);
        if (status == ANALYSIS_OK)
            status = write_script(out_dir, "overhead_vs_ranks",
                                  "r_overhead against the rank count, a line per collective", NULL,
                                  0, size->width_in,
                                  size->height_in > 0 ? size->height_in : 0.65 * size->width_in,
                                  &body, "Bars: the lowest and highest cell.", err);
        strbuf_free(&body);
        *drawn = status == ANALYSIS_OK;
    }
    strbuf_free(&csv);
    strbuf_free(&dat);
    free(names);
    return status;
}

static int make_dirs(const char *path, analysis_error *err)
{
    char partial[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof partial)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "-o: '%s' is not a usable folder name", path);
    memcpy(partial, path, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (partial[i] != '/')
            continue;
        partial[i] = '\0';
        struct stat st;
        if (stat(partial, &st) != 0 && mkdir(partial, 0777) != 0 && errno != EEXIST)
            return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: cannot create folder: %s", partial,
                                 strerror(errno));
        partial[i] = '/';
    }
    return analysis_make_dir(path, err);
}

int analysis_compare_runs(const char *const *run_dirs, size_t run_count, const char *out_dir,
                          const analysis_options *options, analysis_error *err)
{
    if (run_count < 2)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "nbc-compare needs at least two run folders (got %zu)", run_count);
    compare_run *runs = calloc(run_count, sizeof *runs);
    if (!runs)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    int status = make_dirs(out_dir, err);
    for (size_t r = 0; status == ANALYSIS_OK && r < run_count; r++) {
        runs[r].dir = run_dirs[r];
        status = load_compare_run(&runs[r], options, err);
        for (size_t q = 0; status == ANALYSIS_OK && q < r; q++)
            if (strcmp(runs[q].label, runs[r].label) == 0) { /* same name, other parent */
                size_t used = strlen(runs[r].label);
                used = used < sizeof runs[r].label - 24 ? used : sizeof runs[r].label - 24;
                snprintf(runs[r].label + used, sizeof runs[r].label - used, "#%zu", r + 1);
            }
    }
    if (status == ANALYSIS_OK && options->normalize_cores)
        status = normalize_cores(runs, run_count, out_dir, options->report, err);
    compare_config *configs = NULL;
    size_t config_count = 0;
    if (status == ANALYSIS_OK)
        status = group_runs(runs, run_count, &configs, &config_count, err);
    common_cell *common = NULL;
    size_t n = 0;
    if (status == ANALYSIS_OK)
        status = common_cells(runs, run_count, &common, &n, err);
    if (status == ANALYSIS_OK && options->report) {
        bool differ = false;
        for (size_t r = 0; r < run_count; r++)
            differ = differ || runs[r].cells.count != n;
        if (differ) {
            fprintf(options->report, "grids differ: comparing the %zu cells common to all runs (",
                    n);
            for (size_t r = 0; r < run_count; r++)
                fprintf(options->report, "%s%s has %zu", r ? ", " : "", runs[r].label,
                        runs[r].cells.count);
            fprintf(options->report, ")\n");
        }
    }
    level_estimate *est = NULL;
    level_class *classes = NULL;
    if (status == ANALYSIS_OK) {
        est = estimate_all(runs, run_count, config_count, common, n);
        classes = classify_all(runs, run_count, config_count, common, n, &options->rules);
        if (!est || !classes)
            status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (estimates)");
    }
    if (status == ANALYSIS_OK)
        status = write_summary(runs, run_count, common, n, out_dir, options->report, err);
    if (status == ANALYSIS_OK)
        status = write_configurations(runs, run_count, configs, config_count, common, n, est,
                                      classes, out_dir, options->report, err);
    bool with_diff = config_count == 2;
    if (status == ANALYSIS_OK && with_diff)
        status = write_differences(configs, common, n, est, out_dir, options->report, err);
    char note[1200];
    normalize_note(runs, run_count, options->normalize_cores, note, sizeof note);
    figure_grid grid = {0};
    heat_value *values = malloc((n ? n : 1) * sizeof *values);
    if (status == ANALYSIS_OK && !values)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    if (status == ANALYSIS_OK)
        status = grid_build(&grid, common, n, err);
    if (status == ANALYSIS_OK)
        status = draw_configurations(runs, configs, config_count, common, n, est, classes, &grid,
                                     out_dir, options, note, values, err);
    for (size_t m = 0; status == ANALYSIS_OK && with_diff && m < METRIC_COUNT; m++)
        status = draw_difference(runs, configs, common, n, est, m, &grid, out_dir, options, note,
                                 values, err);
    bool by_ranks = false;
    if (status == ANALYSIS_OK)
        status = write_rank_scaling(runs, configs, config_count, n, est, out_dir, &options->figure,
                                    &by_ranks, err);
    if (status == ANALYSIS_OK && options->plots && by_ranks) {
        status = plot_run_gnuplot(out_dir, "overhead_vs_ranks.gp", err);
        if (status == ANALYSIS_OK && options->report)
            fprintf(options->report, "figure: %s/overhead_vs_ranks.{png,svg,pdf}\n", out_dir);
    }
    if (status == ANALYSIS_OK && options->plots) {
        status = plot_run_gnuplot(out_dir, "compare_overhead.gp", err);
        for (size_t m = 0; status == ANALYSIS_OK && with_diff && m < METRIC_COUNT; m++) {
            char script[64];
            snprintf(script, sizeof script, "diff_%s.gp", compare_metrics[m].map);
            status = plot_run_gnuplot(out_dir, script, err);
        }
        if (status == ANALYSIS_OK && options->report)
            fprintf(options->report, "figures: %s/%s.{png,svg,pdf}\n", out_dir,
                    with_diff ? "{compare_overhead,diff_overhead,diff_comm,diff_comp_slowdown}"
                              : "compare_overhead");
    }
    heat_axis_free(&grid.x_axis);
    heat_axis_free(&grid.y_axis);
    free(values);
    free(est);
    free(classes);
    free_common(common);
    free(configs);
    for (size_t r = 0; r < run_count; r++) {
        analysis_cell_table_free(&runs[r].cells);
        analysis_impact_table_free(&runs[r].impact);
    }
    free(runs);
    return status;
}
