/* analysis/impact: the sides of an impact group and the ratios of eq. 2
 * from them (sides.h). */
#include "analysis/impact/sides.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void range_add(value_range *r, long value)
{
    r->lo = r->seen && r->lo < value ? r->lo : value;
    r->hi = r->seen && r->hi > value ? r->hi : value;
    r->seen = true;
}

bool impact_ranges_differ(const value_range *a, const value_range *b)
{
    return a->lo != a->hi || b->lo != b->hi || a->lo != b->lo;
}

static bool same_member(const step_row *a, const step_row *b)
{
    return a->member == b->member && strcmp(a->host, b->host) == 0;
}

int impact_side_build(side *s, const step_row *rows, size_t n, bool by_host, analysis_error *err)
{
    *s = (side){.rows = rows};
    s->first = malloc((n + 1) * sizeof *s->first);
    s->scratch = malloc((n ? n : 1) * sizeof *s->scratch);
    s->draw = malloc((n ? n : 1) * sizeof *s->draw);
    if (!s->first || !s->scratch || !s->draw)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact)");
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same_member(&rows[i - 1], &rows[i]))
            s->first[s->members++] = i;
        range_add(&s->threads, rows[i].threads);
        range_add(&s->warmup, rows[i].warmup_steps);
        range_add(&s->reps, rows[i].reps);
        if (by_host)
            s->procs = rows[i].procs > s->procs ? rows[i].procs : s->procs;
    }
    s->first[s->members] = n;
    if (!by_host)
        s->procs = (long)s->members;
    for (size_t m = 0; m < s->members; m++) {
        size_t steps = s->first[m + 1] - s->first[m];
        s->fewest = m == 0 || steps < s->fewest ? steps : s->fewest;
        s->most = steps > s->most ? steps : s->most;
    }
    return ANALYSIS_OK;
}

void impact_side_free(side *s)
{
    free(s->first);
    free(s->scratch);
    free(s->draw);
}

/* T: the largest member median, over the steps themselves (rng NULL) or
 * over a resample of them (README.md, "MPI impact"). shared, when not
 * NULL, is the resample's draw of step numbers for every side of its
 * program and phase (shared_n of them: the rounds, joint over the sizes);
 * a side with another step count draws its own. */
double impact_side_statistic(side *s, boot_rng *rng, const size_t *shared, size_t shared_n)
{
    bool joint = s->fewest == s->most;
    const size_t *draw = s->draw;
    if (rng && joint && shared && shared_n == s->most)
        draw = shared;
    else if (rng && joint)
        for (size_t k = 0; k < s->most; k++)
            s->draw[k] = boot_below(rng, s->most);
    double largest = NAN;
    for (size_t m = 0; m < s->members; m++) {
        size_t first = s->first[m], steps = s->first[m + 1] - first;
        for (size_t k = 0; k < steps; k++) {
            size_t pick = !rng ? k : joint ? draw[k] : boot_below(rng, steps);
            s->scratch[k] = s->rows[first + pick].t_s;
        }
        double median = stats_median(s->scratch, steps);
        largest = m == 0 || median > largest ? median : largest;
    }
    return largest;
}

/* r per phase and over the used phases, and the A/A floor (compute_ref
 * after over compute_ref before, when both phases are used), from the
 * steps or a resample (rounds NULL: each side draws its own). */
void impact_ratios(group_sides *g, unsigned phases, boot_rng *rng, const round_draw *rounds,
                   double out[IMPACT_QUANTITIES], double t_mpi[PHASE_COUNT],
                   double t_ref[PHASE_COUNT])
{
    double log_sum = 0;
    int used = 0;
    for (int p = 0; p < PHASE_COUNT; p++) {
        out[p] = NAN;
        if (!(phases & (1u << p)))
            continue;
        t_mpi[p] = impact_side_statistic(&g->sides[PROGRAM_PASSIVE][p], rng,
                                         rounds ? rounds->steps[PROGRAM_PASSIVE][p] : NULL,
                                         rounds ? rounds->n[PROGRAM_PASSIVE][p] : 0);
        t_ref[p] = impact_side_statistic(&g->sides[PROGRAM_REF][p], rng,
                                         rounds ? rounds->steps[PROGRAM_REF][p] : NULL,
                                         rounds ? rounds->n[PROGRAM_REF][p] : 0);
        out[p] = t_mpi[p] / t_ref[p]; /* eq. 2, one pair */
        log_sum += log(out[p]);
        used++;
    }
    /* the pairs' geometric mean: the study pools the same log ratios */
    out[IMPACT_OVER_PHASES] = used ? exp(log_sum / used) : NAN;
    /* A/A: the same program twice, adjacent in time like a pair (README.md) */
    side *aa = &g->sides[PROGRAM_AA][PHASE_BEFORE];
    out[IMPACT_AA] = NAN;
    if (aa->members && (phases & (1u << PHASE_BEFORE)))
        out[IMPACT_AA] =
            t_ref[PHASE_BEFORE] /
            impact_side_statistic(aa, rng, rounds ? rounds->steps[PROGRAM_AA][PHASE_BEFORE] : NULL,
                                  rounds ? rounds->n[PROGRAM_AA][PHASE_BEFORE] : 0);
}

void impact_group_free(group_sides *g)
{
    for (int prog = 0; prog < PROGRAM_COUNT; prog++)
        for (int p = 0; p < PHASE_COUNT; p++)
            impact_side_free(&g->sides[prog][p]);
}
