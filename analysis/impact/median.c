/* analysis/impact: the medians of r_mpi_impact and of the A/A pair over a
 * job's sizes (summary.txt). */
#include "analysis/impact/sides.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rounds' count of one program and phase when every size's side has
 * it for every member (the steps of all sizes were measured in the same
 * rounds), else 0: the sides then draw their own. */
static size_t common_rounds(group_sides *groups, size_t count, int prog, int phase)
{
    size_t rounds = 0;
    for (size_t i = 0; i < count; i++) {
        const side *s = &groups[i].sides[prog][phase];
        if (!s->members)
            continue;
        if (s->fewest != s->most || (rounds && s->most != rounds))
            return 0;
        rounds = s->most;
    }
    return rounds;
}

/* r_mpi_impact's and the A/A floor's medians over the job's sizes, each
 * with an interval from a joint bootstrap: a resample draws round numbers
 * once per program and phase and every size takes the same (their steps
 * ran in the same rounds, README.md "Median over the sizes"); every size's
 * ratios are recomputed, then their median. */
int impact_joint_medians(group_sides *groups, const impact_row *rows, size_t count,
                         const uncertainty_rules *rules, impact_median *median, analysis_error *err)
{
    *median = (impact_median){
        .r_mpi_impact = NAN, .ci = {NAN, NAN}, .r_aa = NAN, .r_aa_ci = {NAN, NAN}, .joint = true};
    size_t resamples = (size_t)rules->resamples, most_rounds = 1, fewest_steps = 0;
    round_draw rounds;
    memset(&rounds, 0, sizeof rounds);
    for (int prog = 0; prog < PROGRAM_COUNT; prog++)
        for (int p = 0; p < PHASE_COUNT; p++) {
            rounds.n[prog][p] = common_rounds(groups, count, prog, p);
            most_rounds = rounds.n[prog][p] > most_rounds ? rounds.n[prog][p] : most_rounds;
        }
    double *values = malloc((count ? count : 1) * 2 * sizeof *values);
    double *replicates = malloc(resamples * 2 * sizeof *replicates);
    size_t *draws = malloc(PROGRAM_COUNT * PHASE_COUNT * most_rounds * sizeof *draws);
    if (!values || !replicates || !draws) {
        free(values);
        free(replicates);
        free(draws);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact median)");
    }
    double *aa = values + count;
    size_t n_impact = 0, n_aa = 0;
    for (size_t i = 0; i < count; i++) {
        if (isfinite(rows[i].r_mpi_impact))
            values[n_impact++] = rows[i].r_mpi_impact;
        if (isfinite(rows[i].r_aa))
            aa[n_aa++] = rows[i].r_aa;
        size_t steps = (size_t)(rows[i].passive_steps < rows[i].ref_steps ? rows[i].passive_steps
                                                                          : rows[i].ref_steps);
        fewest_steps = !fewest_steps || steps < fewest_steps ? steps : fewest_steps;
    }
    median->rows = n_impact;
    median->r_mpi_impact = stats_median(values, n_impact);
    median->r_aa = stats_median(aa, n_aa);
    boot_rng rng;
    boot_rng_seed(&rng, (uint64_t)rules->seed, 0x6d656469616eULL); /* "median" */
    for (size_t r = 0; r < resamples && n_impact; r++) {
        for (int prog = 0; prog < PROGRAM_COUNT; prog++)
            for (int p = 0; p < PHASE_COUNT; p++) {
                size_t *d = draws + ((size_t)prog * PHASE_COUNT + (size_t)p) * most_rounds;
                for (size_t k = 0; k < rounds.n[prog][p]; k++)
                    d[k] = boot_below(&rng, rounds.n[prog][p]);
                rounds.steps[prog][p] = d;
            }
        size_t vi = 0, ai = 0;
        for (size_t i = 0; i < count; i++) {
            double q[IMPACT_QUANTITIES], t_mpi[PHASE_COUNT], t_ref[PHASE_COUNT];
            impact_ratios(&groups[i], rows[i].phases, &rng, &rounds, q, t_mpi, t_ref);
            if (isfinite(rows[i].r_mpi_impact))
                values[vi++] = q[IMPACT_OVER_PHASES];
            if (isfinite(rows[i].r_aa))
                aa[ai++] = q[IMPACT_AA];
        }
        replicates[r] = stats_median(values, vi);
        replicates[resamples + r] = ai ? stats_median(aa, ai) : NAN;
    }
    if (n_impact && fewest_steps >= 2) {
        median->ci = boot_summarize(replicates, resamples, fewest_steps, rules->confidence).ci;
        if (n_aa)
            median->r_aa_ci =
                boot_summarize(replicates + resamples, resamples, fewest_steps, rules->confidence)
                    .ci;
    }
    free(values);
    free(replicates);
    free(draws);
    return ANALYSIS_OK;
}

/* The median is non-decreasing in each of its values: when every row's
 * r_MPI_impact lies within its interval, the median lies between the median
 * of the lower ends and that of the upper ends. So the median's interval is
 * never narrower than the rows' (one row disturbed, or phases_disagree,
 * widens it as it widened that row) and needs no resampling of its own. */
int analysis_impact_median(const impact_row *rows, size_t count, impact_median *median,
                           analysis_error *err)
{
    *median =
        (impact_median){.r_mpi_impact = NAN, .ci = {NAN, NAN}, .r_aa = NAN, .r_aa_ci = {NAN, NAN}};
    double *values = malloc((count ? count : 1) * 3 * sizeof *values);
    if (!values)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact median)");
    double *lows = values + count, *highs = lows + count;
    bool every_interval = true;
    for (size_t i = 0; i < count; i++) {
        const impact_row *row = &rows[i];
        if (!isfinite(row->r_mpi_impact))
            continue;
        every_interval = every_interval && isfinite(row->r_mpi_impact_ci.lo) &&
                         isfinite(row->r_mpi_impact_ci.hi);
        lows[median->rows] = row->r_mpi_impact_ci.lo;
        highs[median->rows] = row->r_mpi_impact_ci.hi;
        values[median->rows++] = row->r_mpi_impact;
    }
    if (median->rows) {
        median->r_mpi_impact = stats_median(values, median->rows);
        if (every_interval)
            median->ci = (metric_bounds){stats_median(lows, median->rows),
                                         stats_median(highs, median->rows)};
    }
    free(values);
    return ANALYSIS_OK;
}
