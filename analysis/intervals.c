/* analysis: how sure each number is (README.md, "Uncertainty"). The
 * estimands stay the paper's ratios of medians (section 5.1); their
 * intervals come from a bootstrap that resamples whole blocks, so the
 * kinds measured together in a block stay together. Each replicate of that
 * joint bootstrap is classified by the point rules: the share in another
 * class is the cell's p-value, and the map claims the classes that
 * Benjamini-Hochberg confirms over the valid cells (README.md,
 * "Diagnosis"). The null controls measure how often the intervals cover a
 * truth of exactly 1. */
#include "analysis/analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cell_quantities(const double median[SERIES_COUNT], const double mean[SERIES_COUNT],
                     double comm_target_s, double comp_target_s, double q[Q_COUNT])
{
    double comm_span = median[SERIES_COMM_SPAN], comp_span = median[SERIES_COMP_SPAN];
    double longer = fmax(comm_span, comp_span), shorter = fmin(comm_span, comp_span);
    double comm_local = median[SERIES_COMM_LOCAL], comp_local = median[SERIES_COMP_LOCAL];
    double mpi = median[SERIES_MPI_LOCAL], comp = median[SERIES_COMP_OVERLAP_LOCAL];
    q[Q_R_OVERHEAD] = (median[SERIES_MEASURED_SPAN] - longer) / shorter; /* eq. 1 */
    /* eq. 4 with the wait counted from the last rank's arrival at it: a
     * rank that finished computing first waits for the others, which is
     * their computation, not the collective (README.md, "The statistics") */
    q[Q_R_COMM] = median[SERIES_MPI_FROM_LAST] / comm_local;
    q[Q_R_COMM_LOCAL_WAIT] = mpi / comm_local; /* eq. 4 on each rank's own wait */
    q[Q_R_COMP_SLOWDOWN] = comp / comp_local;  /* eq. 3 */
    /* MPI time beyond what perfect overlap leaves (the part of the
     * collective longer than the computation), over the part the
     * computation could hide: 0 perfect progress, 1 none (section 3.3).
     * The MPI time is r_comm's, from the last rank's arrival, and the
     * computation the slowest: a rank that computed faster than the
     * slowest (a core shared with another process slows one rank) waits
     * for it, which is no lack of progress. The excess is taken block by block, against
     * the same block's reference: where the collective is much longer than
     * the computation, its spread from block to block would otherwise
     * enter twice, once through each median (README.md, "Diagnosis"). */
    double hideable = fmin(comm_local, median[SERIES_COMP_OVERLAP_LOCAL]);
    q[Q_COMM_UNHIDDEN] = hideable > 0 ? median[SERIES_UNHIDDEN_EXCESS] / hideable : NAN;
    q[Q_COMP_EXTRA] = (comp - comp_local) / shorter;
    /* Two regimes (README.md): the shares of progressed and held blocks,
     * and how much a block's unhidden share magnifies the spread of the
     * collective's reference (its excess over the computation is divided
     * by the part that could be hidden) */
    q[Q_PROGRESSED_SHARE] = mean[SERIES_BLOCK_PROGRESSED];
    q[Q_HELD_SHARE] = mean[SERIES_BLOCK_HELD];
    q[Q_UNHIDDEN_AMPLIFICATION] = hideable > 0 ? comm_local / hideable : NAN;
    q[Q_COMM_TARGET_ERROR] = comm_span / comm_target_s - 1;
    q[Q_COMP_TARGET_ERROR] = comp_span / comp_target_s - 1;
    q[Q_R_OVERHEAD_MEAN] = (mean[SERIES_MEASURED_SPAN] - longer) / shorter;
}

/* ---- One cell ------------------------------------------------------------------ */

typedef struct targets {
    double comm_target_s;
    double comp_target_s;
} targets;

static void cell_statistic(const double *medians, const double *means, const void *ctx, double *out)
{
    const targets *t = ctx;
    cell_quantities(medians, means, t->comm_target_s, t->comp_target_s, out);
}

/* null / reference, ratio of medians */
static void null_statistic(const double *medians, const double *means, const void *ctx, double *out)
{
    (void)means;
    (void)ctx;
    out[0] = medians[0] / medians[1];
}

/* Each cell draws its own streams from the seed: a cell's intervals do not
 * depend on the other cells, nor on the order they are computed in. */
enum { STREAM_METRICS, STREAM_NULL_COMM, STREAM_NULL_COMP, STREAMS_PER_CELL };

/* Intervals of quantity_count quantities of problem; the replicates (row
 * by row) are handed to *kept when it is not NULL (the caller frees). */
static int bootstrap(const boot_problem *problem, const uncertainty_rules *rules, uint64_t stream,
                     boot_summary *out, double **kept, analysis_error *err)
{
    size_t resamples = (size_t)rules->resamples, k = problem->quantity_count;
    double *replicates = malloc(resamples * k * sizeof *replicates);
    double *column = malloc(resamples * sizeof *column);
    if (!replicates || !column) {
        free(replicates);
        free(column);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu resamples)", resamples);
    }
    boot_rng rng;
    boot_rng_seed(&rng, (uint64_t)rules->seed, stream);
    int status = boot_replicates(problem, rules->resamples, &rng, replicates, err);
    for (size_t q = 0; status == ANALYSIS_OK && q < k; q++) {
        for (size_t r = 0; r < resamples; r++)
            column[r] = replicates[r * k + q];
        out[q] = boot_summarize(column, resamples, problem->n, rules->confidence);
    }
    if (kept && status == ANALYSIS_OK) {
        *kept = replicates;
        replicates = NULL;
    }
    free(replicates);
    free(column);
    return status;
}

/* The p-value of the claim "the truth is in the class of the estimates":
 * each replicate of the joint bootstrap classified by the same point rules
 * (all quantities of one resample together, so correlated quantities and
 * the rules' order are taken as they are), the share in another class
 * corrected for few blocks (boot_p_value). It is the p-value of the
 * intersection-union test of the class's conditions (Berger 1982): no
 * correction over the conditions a class reads. */
/* The p-value of a claim (a class or a group): the share of replicates
 * outside it, corrected for few blocks. */
static double claim_p_value(const double *replicates, size_t resamples, size_t n,
                            enum diagnosis claim, const diagnosis_thresholds *point_rules)
{
    size_t other = 0;
    for (size_t r = 0; r < resamples; r++) {
        diagnosis_input input = diagnosis_input_of(replicates + r * Q_COUNT, true, (long)n);
        other += !analysis_diagnosis_within(analysis_diagnose(&input, point_rules), claim);
    }
    return boot_p_value(other, resamples, n);
}

double analysis_binomial_tail(size_t n, size_t k, double share)
{
    double sum = 0;
    for (size_t i = k; i <= n; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
                   (double)i * log(share) + (double)(n - i) * log1p(-share));
    return fmin(1.0, sum);
}

/* The p-value of the claim intermittent (README.md, "Two regimes"): both
 * regimes hold at least s = regime_claim_share of the blocks, in blocks
 * that can be told apart (the estimates chose it at regime_min_share).
 * The shares are tested exactly, K of n blocks ~ Binomial(n, pi), at the
 * least favourable truth of the null pi = s: P(K >= k). The bootstrap
 * would not do: it cannot see a regime absent from the sample (every
 * replicate of a cell without a progressed block has none). The
 * amplification is read from the replicates (the share of them above its
 * maximum, as diagnosis_p). Intersection-union: the largest. */
static double two_regimes_p(const cell_series *s, const double *replicates, size_t resamples,
                            const diagnosis_thresholds *th)
{
    size_t n = s->n, k[2] = {0, 0};
    const double *series[2] = {s->values[SERIES_BLOCK_PROGRESSED], s->values[SERIES_BLOCK_HELD]};
    for (int r = 0; r < 2; r++)
        for (size_t b = 0; b < n; b++)
            k[r] += series[r][b] > 0.5;
    double p = fmax(analysis_binomial_tail(n, k[0], th->regime_claim_share),
                    analysis_binomial_tail(n, k[1], th->regime_claim_share));
    size_t apart = 0;
    for (size_t r = 0; r < resamples; r++)
        apart +=
            !(replicates[r * Q_COUNT + Q_UNHIDDEN_AMPLIFICATION] <= th->regime_max_amplification);
    return fmax(p, boot_p_value(apart, resamples, n));
}

static double median_of_copy(const double *values, size_t n, double *scratch)
{
    memcpy(scratch, values, n * sizeof *scratch);
    return stats_median(scratch, n);
}

/* The null ratio of one pair, on the blocks holding both. */
static int null_pair(const cell_series *s, enum null_pair pair, const uncertainty_rules *rules,
                     long cell, double *ratio, metric_bounds *ci, double *scratch,
                     analysis_error *err)
{
    size_t n = s->null_n[pair];
    const double *null = s->null_values[pair][0], *reference = s->null_values[pair][1];
    *ratio = n ? median_of_copy(null, n, scratch) / median_of_copy(reference, n, scratch) : NAN;
    *ci = (metric_bounds){NAN, NAN};
    if (n < 2)
        return ANALYSIS_OK;
    boot_summary summary;
    boot_problem problem = {.n = n,
                            .series_count = 2,
                            .series = {null, reference},
                            .quantity_count = 1,
                            .statistic = null_statistic};
    uint64_t stream = (uint64_t)cell * STREAMS_PER_CELL + STREAM_NULL_COMM + (uint64_t)pair;
    int status = bootstrap(&problem, rules, stream, &summary, NULL, err);
    *ci = summary.ci;
    return status;
}

/* Eq. 1 block by block, with the median references: its spread, tail and
 * shape (the median hides a bimodal or heavy-tailed cell). */
static void overhead_distribution(const cell_series *s, cell_metrics *cell, double *scratch)
{
    double longer = fmax(cell->t_comm_ref, cell->t_comp_ref);
    double shorter = fmin(cell->t_comm_ref, cell->t_comp_ref);
    size_t n = s->n, first_inside, inside;
    for (size_t b = 0; b < n; b++)
        scratch[b] = (s->values[SERIES_MEASURED_SPAN][b] - longer) / shorter;
    stats_sort(scratch, n);
    cell->r_overhead_iqr =
        stats_quantile_sorted(scratch, n, 0.75) - stats_quantile_sorted(scratch, n, 0.25);
    cell->r_overhead_p90 = stats_quantile_sorted(scratch, n, 0.9);
    cell->r_overhead_outlier_share = stats_outside_fences(scratch, n, &first_inside, &inside);
    /* Sarle's coefficient is 5/9 for a uniform distribution, above it for
     * two modes, but also for a strong skew: one far block would read as a
     * second mode. It is taken on the blocks inside Tukey's fences; the far
     * ones are counted by r_overhead_outlier_share. */
    cell->r_overhead_bimodality = stats_bimodality(scratch + first_inside, inside);
    cell->r_overhead_bimodal = cell->r_overhead_bimodality > 5.0 / 9.0;
}

int cell_intervals(const cell_series *s, const cell_rules *cell_rules, cell_metrics *cell,
                   cell_uncertainty *u, analysis_error *err)
{
    const uncertainty_rules *rules = &cell_rules->uncertainty;
    diagnosis_thresholds point_rules = cell_rules->thresholds;
    point_rules.min_blocks = 0; /* the estimates alone, however few the blocks */
    cell->diagnosis_p = cell->diagnosis_group_p = NAN;
    for (int q = 0; q < Q_COUNT; q++)
        u->interval[q] = (boot_summary){{NAN, NAN}, NAN};
    size_t most = s->n;
    for (int p = 0; p < NULL_PAIR_COUNT; p++)
        most = s->null_n[p] > most ? s->null_n[p] : most;
    double *scratch = malloc((most ? most : 1) * sizeof *scratch);
    if (!scratch)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu blocks)", most);
    int status = ANALYSIS_OK;
    if (s->n > 0) {
        targets t = {cell->comm_target_s, cell->comp_target_s};
        boot_problem problem = {.n = s->n,
                                .series_count = SERIES_COUNT,
                                .mean_mask = CELL_MEAN_SERIES,
                                .quantity_count = Q_COUNT,
                                .statistic = cell_statistic,
                                .ctx = &t};
        for (int i = 0; i < SERIES_COUNT; i++)
            problem.series[i] = s->values[i];
        double *replicates = NULL;
        if (s->n >= 2)
            status = bootstrap(&problem, rules, (uint64_t)cell->cell * STREAMS_PER_CELL,
                               u->interval, &replicates, err);
        if (replicates && cell->valid && s->n >= (size_t)cell_rules->thresholds.min_blocks) {
            diagnosis_input input = diagnosis_input_of(u->estimate, true, (long)s->n);
            enum diagnosis point = analysis_diagnose(&input, &point_rules);
            enum diagnosis group = analysis_diagnosis_group(point);
            size_t resamples = (size_t)rules->resamples;
            cell->diagnosis_p = claim_p_value(replicates, resamples, s->n, point, &point_rules);
            /* the coarser claim: intermittent wherever the estimates show
             * two regimes (each regime a quarter of the blocks or more: a
             * group, a statement about the median block, would contradict
             * a quarter of them or more), else the class's group. Chosen
             * by the estimates alone, not by comparing p-values (README.md,
             * "Two regimes"). */
            cell->two_regimes = analysis_two_regimes(&input, &point_rules);
            if (cell->two_regimes)
                cell->diagnosis_group_p = two_regimes_p(s, replicates, resamples, &point_rules);
            else if (group != point)
                cell->diagnosis_group_p =
                    claim_p_value(replicates, resamples, s->n, group, &point_rules);
        }
        free(replicates);
        overhead_distribution(s, cell, scratch);
    }
    cell->r_overhead_ci = u->interval[Q_R_OVERHEAD].ci;
    cell->r_comm_ci = u->interval[Q_R_COMM].ci;
    cell->r_comm_local_wait = u->estimate[Q_R_COMM_LOCAL_WAIT];
    cell->r_comm_local_wait_ci = u->interval[Q_R_COMM_LOCAL_WAIT].ci;
    cell->r_comp_slowdown_ci = u->interval[Q_R_COMP_SLOWDOWN].ci;
    cell->r_overhead_mean = u->estimate[Q_R_OVERHEAD_MEAN];
    cell->r_overhead_mean_ci = u->interval[Q_R_OVERHEAD_MEAN].ci;
    cell->comm_null_blocks = (long)s->null_n[NULL_COMM];
    cell->comp_null_blocks = (long)s->null_n[NULL_COMP];
    if (status == ANALYSIS_OK)
        status = null_pair(s, NULL_COMM, rules, cell->cell, &cell->comm_null_ratio,
                           &cell->comm_null_ci, scratch, err);
    if (status == ANALYSIS_OK)
        status = null_pair(s, NULL_COMP, rules, cell->cell, &cell->comp_null_ratio,
                           &cell->comp_null_ci, scratch, err);
    free(scratch);
    return status;
}

/* ---- The run ---------------------------------------------------------------------- */

static bool covers_one(metric_bounds ci)
{
    return ci.lo <= 1 && ci.hi >= 1;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Benjamini-Hochberg (analysis_internal.h; nbc-compare's classes use it
 * too). */
bool bh_threshold(const double *p, size_t count, long m, double q, double *threshold)
{
    double *sorted = malloc((count ? count : 1) * sizeof *sorted);
    size_t k = 0;
    *threshold = NAN;
    if (!sorted)
        return false;
    for (size_t i = 0; i < count; i++)
        if (!isnan(p[i]))
            sorted[k++] = p[i];
    qsort(sorted, k, sizeof *sorted, compare_doubles);
    for (size_t i = k; i-- > 0;)
        if (sorted[i] <= (double)(i + 1) * q / (double)m) {
            *threshold = sorted[i];
            break;
        }
    free(sorted);
    return true;
}

/* A candidate's p: valid, enough blocks, a class, and not given up by the
 * driver; NAN for the others (never confirmed). */
static double candidate_p(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    if (!cell->valid || cell->blocks < th->min_blocks || strcmp(cell->stop, "unresolvable") == 0 ||
        cell->diagnosis_point == DIAG_UNCERTAIN || cell->diagnosis_point == DIAG_INVALID)
        return NAN;
    return cell->diagnosis_p;
}

/* Claims at two levels (analysis_internal.h). A group's p is at most its
 * class's, so every test the first step confirms the second confirms too. */
bool bh_two_levels(double *p, const double *group_p, bool *group, size_t count, long m, double q,
                   double *threshold)
{
    double classes;
    if (!bh_threshold(p, count, m, q, &classes))
        return false;
    for (size_t i = 0; i < count; i++) {
        group[i] = !isnan(p[i]) && !(p[i] <= classes) && !isnan(group_p[i]);
        if (group[i])
            p[i] = group_p[i];
    }
    return bh_threshold(p, count, m, q, threshold);
}

int diagnose_run(cell_table *cells, const cell_rules *rules, analysis_error *err)
{
    const diagnosis_thresholds *th = &rules->thresholds;
    diagnosis_thresholds point_rules = *th;
    point_rules.min_blocks = 0; /* the estimates alone, however few the blocks */
    uncertainty_summary *summary = &cells->uncertainty;
    *summary = (uncertainty_summary){.rules = rules->uncertainty,
                                     .min_blocks = th->min_blocks,
                                     .false_discovery_rate = th->false_discovery_rate,
                                     .confirmed_max_p = NAN};
    size_t count = cells->count ? cells->count : 1;
    double *p = malloc(count * sizeof *p), *group_p = malloc(count * sizeof *group_p);
    bool *group = malloc(count * sizeof *group);
    if (!p || !group_p || !group) {
        free(p);
        free(group_p);
        free(group);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", cells->count);
    }
    for (size_t i = 0; i < cells->count; i++) {
        cell_metrics *cell = &cells->cells[i];
        cell->bootstrap_seed = rules->uncertainty.seed;
        diagnosis_input input = analysis_diagnosis_point(cell);
        cell->diagnosis_point = analysis_diagnose(&input, &point_rules);
        double most = th->off_target_max_error;
        cell->comm_off_target = cell->valid && fabs(cell->comm_target_error) > most;
        cell->comp_off_target = cell->valid && fabs(cell->comp_target_error) > most;
        summary->family_cells += cell->valid;
        p[i] = candidate_p(cell, th);
        group_p[i] = cell->diagnosis_group_p;
    }
    /* The family is every valid cell (m), the candidates those with a p:
     * a cell without one counts as p = 1, never confirmed. */
    double threshold;
    bool ok = bh_two_levels(p, group_p, group, cells->count, summary->family_cells,
                            th->false_discovery_rate, &threshold);
    free(group_p);
    if (!ok) {
        free(p);
        free(group);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", cells->count);
    }
    for (size_t i = 0; i < cells->count; i++) {
        cell_metrics *cell = &cells->cells[i];
        bool confirmed = !isnan(p[i]) && p[i] <= threshold; /* false for a NAN threshold */
        if (cell->diagnosis_point == DIAG_INVALID)          /* invalid, or no r_overhead */
            cell->diagnosis = DIAG_INVALID;
        else if (strcmp(cell->stop, "unresolvable") == 0)
            cell->diagnosis = DIAG_UNRESOLVABLE;
        else if (!confirmed)
            cell->diagnosis = DIAG_UNCERTAIN;
        else
            cell->diagnosis = !group[i]           ? cell->diagnosis_point
                              : cell->two_regimes ? DIAG_INTERMITTENT
                                                  : analysis_diagnosis_group(cell->diagnosis_point);
        if (!cell->valid)
            continue;
        if (confirmed) {
            summary->confirmed_cells++;
            summary->group_cells += group[i];
            summary->expected_wrong += p[i];
            summary->confirmed_max_p =
                isnan(summary->confirmed_max_p) ? p[i] : fmax(summary->confirmed_max_p, p[i]);
        }
        summary->unresolvable_cells += cell->diagnosis == DIAG_UNRESOLVABLE;
        summary->off_target_cells += cell->comm_off_target || cell->comp_off_target;
        if (cell->diagnosis == DIAG_UNCERTAIN) {
            summary->uncertain_cells++;
            summary->few_blocks_cells += cell->blocks < th->min_blocks;
        }
        const metric_bounds nulls[NULL_PAIR_COUNT] = {cell->comm_null_ci, cell->comp_null_ci};
        for (int n = 0; n < NULL_PAIR_COUNT; n++) {
            if (isnan(nulls[n].lo))
                continue;
            summary->null_cells[n]++;
            summary->null_covered[n] += covers_one(nulls[n]);
        }
    }
    free(p);
    free(group);
    return ANALYSIS_OK;
}
