/* analysis: how sure each number is (README.md, "Uncertainty"). The
 * estimands stay the paper's ratios of medians (section 5.1); their
 * intervals come from a bootstrap that resamples whole blocks, so the
 * kinds measured together in a block stay together. The null controls
 * measure how often the intervals cover a truth of exactly 1. */
#include "analysis/metrics/metrics_internal.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cell_quantities(const double median[SERIES_COUNT], const double mean[SERIES_COUNT],
                     double comm_target_s, double comp_target_s, double q[Q_COUNT])
{
    double comm_span = median[SERIES_COMM_SPAN], comp_span = median[SERIES_COMP_SPAN];
    double comm_local = median[SERIES_COMM_LOCAL], comp_local = median[SERIES_COMP_LOCAL];
    double mpi = median[SERIES_MPI_LOCAL], comp = median[SERIES_COMP_OVERLAP_LOCAL];
    q[Q_R_OVERHEAD] = eq1_r_overhead(comm_span, comp_span, median[SERIES_MEASURED_SPAN]);
    /* eq. 4 with the wait counted from the last rank's arrival at it: a
     * rank that finished computing first waits for the others, which is
     * their computation, not the collective (README.md, "The statistics") */
    q[Q_R_COMM] = median[SERIES_MPI_FROM_LAST] / comm_local;
    q[Q_R_COMM_LOCAL_WAIT] = mpi / comm_local; /* eq. 4 on each rank's own wait */
    q[Q_R_COMP_SLOWDOWN] = comp / comp_local;  /* eq. 3 */
    q[Q_COMM_TARGET_ERROR] = comm_span / comm_target_s - 1;
    q[Q_COMP_TARGET_ERROR] = comp_span / comp_target_s - 1;
    q[Q_R_OVERHEAD_MEAN] = eq1_r_overhead(comm_span, comp_span, mean[SERIES_MEASURED_SPAN]);
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

/* Intervals of quantity_count quantities of problem. */
static int bootstrap(const boot_problem *problem, const uncertainty_rules *rules, uint64_t stream,
                     boot_summary *out, analysis_error *err)
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
    free(replicates);
    free(column);
    return status;
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
    int status = bootstrap(&problem, rules, stream, &summary, err);
    *ci = summary.ci;
    return status;
}

/* Eq. 1 block by block, with the median references: its spread, tail and
 * shape (the median hides a bimodal or heavy-tailed cell). */
static void overhead_distribution(const cell_series *s, cell_metrics *cell, double *scratch)
{
    size_t n = s->n, first_inside, inside;
    for (size_t b = 0; b < n; b++)
        scratch[b] =
            eq1_r_overhead(cell->t_comm_ref, cell->t_comp_ref, s->values[SERIES_MEASURED_SPAN][b]);
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
        if (s->n >= 2)
            status = bootstrap(&problem, rules, (uint64_t)cell->cell * STREAMS_PER_CELL,
                               u->interval, err);
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

/* ---- Foreign waits ---------------------------------------------------------------- */

double eq1_r_overhead(double comm_span, double comp_span, double measured_span)
{
    return (measured_span - fmax(comm_span, comp_span)) / fmin(comm_span, comp_span);
}

int block_foreign_waits(const block_values *blocks, size_t n, double wait[RAW_KIND_MAIN_COUNT])
{
    for (size_t b = 0; b < n; b++)
        for (int kind = 0; kind < RAW_KIND_MAIN_COUNT; kind++)
            if (isnan(blocks[b].foreign_wait[kind]))
                return 0;
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return -1;
    for (int kind = 0; kind < RAW_KIND_MAIN_COUNT; kind++) {
        for (size_t b = 0; b < n; b++)
            scratch[b] = blocks[b].foreign_wait[kind];
        wait[kind] = n ? stats_median(scratch, n) : 0;
    }
    free(scratch);
    return 1;
}

bool eq1_foreign_shifts(double comm_span, double comp_span, double measured_span,
                        const double wait[RAW_KIND_MAIN_COUNT], double *down, double *up)
{
    double at = eq1_r_overhead(comm_span, comp_span, measured_span);
    *down = *up = 0;
    for (int corner = 1; corner < 8; corner++) {
        double c = comm_span - (corner & 1 ? wait[RAW_KIND_COMM_REF] : 0);
        double p = comp_span - (corner & 2 ? wait[RAW_KIND_COMP_REF] : 0);
        double m = measured_span - (corner & 4 ? wait[RAW_KIND_OVERLAP] : 0);
        if (!(c > 0 && p > 0))
            return false; /* a step that waited as long as it took */
        double shift = eq1_r_overhead(c, p, m) - at;
        *down = fmax(*down, -shift);
        *up = fmax(*up, shift);
    }
    return true;
}

int cell_foreign_wait(cell_metrics *cell, const block_values *blocks, size_t n, analysis_error *err)
{
    double wait[RAW_KIND_MAIN_COUNT];
    int read = block_foreign_waits(blocks, n, wait);
    if (read < 0)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu blocks)", n);
    cell->foreign_wait_s = read ? fmax(fmax(wait[0], wait[1]), wait[2]) : NAN;
    if (!read)
        return ANALYSIS_OK; /* a rank's not read: nothing known */
    /* The estimand is a ratio of medians: a wait matters where it reaches
     * the median block, so each kind's median wait bounds its median span's
     * excess. */
    double down, up;
    if (!eq1_foreign_shifts(cell->t_comm_ref, cell->t_comp_ref, cell->t_measured, wait, &down, &up))
        cell->r_overhead_ci = (metric_bounds){NAN, NAN};
    else
        cell->r_overhead_ci =
            (metric_bounds){cell->r_overhead_ci.lo - down, cell->r_overhead_ci.hi + up};
    return ANALYSIS_OK;
}

/* ---- The run ---------------------------------------------------------------------- */

static bool covers_one(metric_bounds ci)
{
    return ci.lo <= 1 && ci.hi >= 1;
}

void summarize_run(cell_table *cells, const cell_rules *rules)
{
    const cell_thresholds *th = &rules->thresholds;
    uncertainty_summary *summary = &cells->uncertainty;
    *summary = (uncertainty_summary){.rules = rules->uncertainty};
    for (size_t i = 0; i < cells->count; i++) {
        cell_metrics *cell = &cells->cells[i];
        cell->bootstrap_seed = rules->uncertainty.seed;
        double most = th->off_target_max_error;
        cell->comm_off_target = cell->valid && fabs(cell->comm_target_error) > most;
        cell->comp_off_target = cell->valid && fabs(cell->comp_target_error) > most;
        if (!cell->valid)
            continue;
        summary->off_target_cells += cell->comm_off_target || cell->comp_off_target;
        const metric_bounds nulls[NULL_PAIR_COUNT] = {cell->comm_null_ci, cell->comp_null_ci};
        for (int n = 0; n < NULL_PAIR_COUNT; n++) {
            if (isnan(nulls[n].lo))
                continue;
            summary->null_cells[n]++;
            summary->null_covered[n] += covers_one(nulls[n]);
        }
    }
}
