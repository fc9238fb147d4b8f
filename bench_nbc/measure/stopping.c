/* Adaptive repetitions: the stopping rule and what it reads (stopping.h).
 * The interval and the class's p-value are the analysis's, computed by the
 * analysis library from the same rows raw.csv will hold, so the driver stops
 * on the very numbers nbc-analyze later reports (up to the clock model,
 * which the driver extrapolates and the end of the run interpolates). */
#include "bench_nbc/measure/stopping.h"

#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>

static const char *const reason_names[NBC_STOP_COUNT] = {
    [NBC_STOP_CONTINUE] = "continue",
    [NBC_STOP_FIXED] = "fixed",
    [NBC_STOP_PRECISION] = "precision",
    [NBC_STOP_DECIDED] = "decided",
    [NBC_STOP_UNRESOLVABLE] = "unresolvable",
    [NBC_STOP_MAX] = "max",
    [NBC_STOP_BUDGET] = "budget",
    [NBC_STOP_LATE] = "late",
};

const char *nbc_stop_reason_name(nbc_stop_reason reason)
{
    return reason >= 0 && reason < NBC_STOP_COUNT ? reason_names[reason] : "unknown";
}

/* One Williams cycle: the sweep runs the 6 orders of the 3 kinds once each
 * every 6 blocks (sweep.c). */
enum { WILLIAMS_CYCLE_BLOCKS = 6 };

int nbc_stop_is_look(const nbc_stop_rule *rule, int blocks)
{
    int every = rule->look_blocks > 0 ? rule->look_blocks : 1;
    return blocks >= rule->min_blocks && (blocks - rule->min_blocks) % every == 0;
}

nbc_stop_rule nbc_stop_rule_of(int min_blocks, int max_blocks, double half_width,
                               double cell_budget_s)
{
    diagnosis_thresholds th = analysis_default_thresholds();
    nbc_stop_rule rule = {.min_blocks = min_blocks,
                          .max_blocks = max_blocks,
                          .half_width = half_width,
                          .cell_budget_s = cell_budget_s,
                          .look_blocks = WILLIAMS_CYCLE_BLOCKS,
                          .decide_min_blocks = (int)th.min_blocks};
    int looks = 0;
    for (int b = min_blocks; b <= max_blocks; b += WILLIAMS_CYCLE_BLOCKS)
        looks += b >= rule.decide_min_blocks;
    rule.look_level = th.false_discovery_rate / (looks > 0 ? looks : 1);
    rule.extended_budget_s = cell_budget_s * NBC_STOP_EXTENDED_BUDGET_FACTOR;
    return rule;
}

/* The blocks the cell can still reach: max_blocks, or what budget_s (0:
 * none) affords at the pace of the blocks so far (the warm-up one of them). */
static int reachable_blocks(const nbc_stop_rule *rule, const nbc_stop_state *s, double budget_s)
{
    int most = rule->max_blocks;
    if (budget_s > 0 && s->elapsed_s > 0) {
        double pace_s = s->elapsed_s / (s->blocks + 1);
        double affordable = floor(budget_s / pace_s);
        most = affordable < most ? (int)affordable : most;
    }
    return most;
}

/* Whether a p-value can still reach the look level in the blocks the cell
 * can reach: standard errors shrink as 1/sqrt(blocks), so its distance from
 * the claim's border in standard errors, z = -Phi^-1(p), grows to
 * z sqrt(n_reach / n). `benefit` standard errors of z are granted on top:
 * one (its own noise) before a cell is given up, none before blocks are
 * spent on a claim the projection expects to decide. False for a NAN p
 * (no claim to decide). */
static bool decidable(const nbc_stop_rule *rule, const nbc_stop_state *s, double p, int reach,
                      double benefit)
{
    if (isnan(p) || reach <= s->blocks)
        return false;
    double growth = sqrt((double)reach / s->blocks);
    double needed = -analysis_normal_quantile(rule->look_level);
    return (-analysis_normal_quantile(p) + benefit) * growth >= needed;
}

/* Whether intermittent's p can still reach the look level in the blocks
 * the cell can reach. Its p is exact (analysis/README.md, "Two regimes"):
 * the smaller regime holds K of n blocks, K ~ Binomial(n, pi), and the p
 * is P(K >= k) at pi = regime_claim_share; it does not shrink as
 * 1/sqrt(blocks) the way a bootstrap p does (a share at the threshold
 * keeps it near 0.5 however many blocks). Projected: k = the measured
 * share, `benefit` standard errors sqrt(s (1 - s) / n) larger (at most
 * one half, where the two regimes are even), times n_reach. The p of the
 * amplification, the claim's other condition, is left out: it shrinks
 * with the blocks like any bootstrap p. */
static bool regime_decidable(const nbc_stop_rule *rule, const nbc_stop_state *s, int reach,
                             double benefit)
{
    if (reach <= s->blocks)
        return false;
    double share = s->regime_share;
    share = fmin(0.5, share + benefit * sqrt(share * (1 - share) / s->blocks));
    double least_share = analysis_default_thresholds().regime_claim_share;
    size_t k = (size_t)floor(share * reach + 0.5);
    return analysis_binomial_tail((size_t)reach, k, least_share) <= rule->look_level;
}

/* Whether the coarser claim can still be decided: intermittent's p by its
 * own arithmetic where the blocks show two regimes (the analysis's coarser
 * claim is then intermittent, never the group), the group's p as any p
 * where p_group is the group's. */
static bool group_decidable(const nbc_stop_rule *rule, const nbc_stop_state *s, int reach,
                            double benefit)
{
    if (s->regime_share > 0 && regime_decidable(rule, s, reach, benefit))
        return true;
    return !s->group_is_intermittent && decidable(rule, s, s->p_group, reach, benefit);
}

/* Whether the class or the coarser claim is expected to be decided in
 * `reach` blocks: a bootstrap p at its measured z (no standard error
 * granted), intermittent granted one standard error of the share. The
 * smaller of two measured shares sits below the smaller true one where the
 * regimes are near even (a true 0.45 reads 0.38 on average at 12 blocks),
 * so at the measured share the expectation would be the pessimistic one. */
static bool expected_decided(const nbc_stop_rule *rule, const nbc_stop_state *s, int reach)
{
    if (decidable(rule, s, s->p, reach, 0))
        return true;
    if (s->regime_share > 0 && regime_decidable(rule, s, reach, 1))
        return true;
    return !s->group_is_intermittent && decidable(rule, s, s->p_group, reach, 0);
}

/* The budget follows the decision: a cell with no claim decided yet
 * (neither the class nor the coarser claim the analysis would make: the
 * group, or intermittent where the blocks show two regimes; a decided group
 * is an answer, and time is not spent to refine it) whose class or coarser
 * claim the projection expects to be decided in the blocks
 * extended_budget_s affords at the cell's pace (expected_decided). */
bool nbc_stop_extends_budget(const nbc_stop_rule *rule, const nbc_stop_state *state)
{
    if (!(rule->extended_budget_s > rule->cell_budget_s) || rule->cell_budget_s <= 0 ||
        state->blocks < rule->decide_min_blocks || state->p <= rule->look_level ||
        state->p_group <= rule->look_level)
        return false;
    return expected_decided(rule, state, reachable_blocks(rule, state, rule->extended_budget_s));
}

double nbc_stop_budget_s(const nbc_stop_rule *rule, const nbc_stop_state *state)
{
    bool extended = nbc_stop_is_look(rule, state->blocks) ? nbc_stop_extends_budget(rule, state)
                                                          : state->budget_extended;
    return extended ? rule->extended_budget_s : rule->cell_budget_s;
}

/* Whether the interval or a claim can still be settled in `reach` blocks:
 * the width projects to width sqrt(n / n_reach); a claim either granted one
 * standard error more than measured (`granted`: decidable() and
 * group_decidable(); the group's p is at most the class's, so a cell whose
 * group can still be decided is not given up) or as expected_decided(). */
static bool settles_within(const nbc_stop_rule *rule, const nbc_stop_state *s, int reach,
                           bool granted)
{
    if (reach <= s->blocks)
        return false;
    double width = s->ci_hi - s->ci_lo;
    if (width / sqrt((double)reach / s->blocks) <= 2 * rule->half_width) /* false for NAN */
        return true;
    if (!granted)
        return expected_decided(rule, s, reach);
    return decidable(rule, s, s->p, reach, 1) || group_decidable(rule, s, reach, 1);
}

/* A cell that the `reach` blocks the budget in force affords cannot settle,
 * even granted one standard error (a cell is not given up on its p's own
 * noise), stops now. Its reason says whether more time is expected to
 * help: `budget` when run.max_repetitions blocks would settle it as the
 * budget's extension expects (expected_decided) or a claim's p is already
 * within the false-discovery rate (Benjamini-Hochberg may confirm it),
 * `unresolvable` otherwise. The reason is not granted the standard error:
 * that promised more than the blocks keep (analysis/README.md, "Stopping").
 * At the cap itself `max` says so (nbc_stop_decide). */
static nbc_stop_reason given_up(const nbc_stop_rule *rule, const nbc_stop_state *s, int reach)
{
    if (settles_within(rule, s, reach, true) || s->blocks >= rule->max_blocks)
        return NBC_STOP_CONTINUE;
    double q = analysis_default_thresholds().false_discovery_rate;
    bool claimable = s->p <= q || s->p_group <= q; /* the analysis may confirm it */
    if (reach < rule->max_blocks && (claimable || settles_within(rule, s, rule->max_blocks, false)))
        return NBC_STOP_BUDGET;
    return NBC_STOP_UNRESOLVABLE;
}

/* At a look from decide_min_blocks on: a precise interval stops the cell
 * unless a claim still undecided is expected to be decided by more blocks
 * (the map's answer is the claim, not the interval); else the class
 * decided, or the group decided and the class not expected to be (the
 * analysis claims the group), or intermittent decided (a class's p of a
 * cell in two regimes does not settle with more blocks: its median sits
 * on one regime or the other by chance); else given up when the blocks
 * the budget in force affords cannot settle it (given_up). */
static nbc_stop_reason decide_at_look(const nbc_stop_rule *rule, const nbc_stop_state *s)
{
    int reach = reachable_blocks(rule, s, nbc_stop_budget_s(rule, s));
    bool class_decided = s->p <= rule->look_level; /* false for NAN */
    bool group_decided = s->p_group <= rule->look_level;
    bool class_decidable = decidable(rule, s, s->p, reach, 0);
    bool pending = !class_decided &&
                   (class_decidable || (!group_decided && group_decidable(rule, s, reach, 0)));
    double width = s->ci_hi - s->ci_lo;
    if (width <= 2 * rule->half_width && !pending) /* false for NAN */
        return NBC_STOP_PRECISION;
    if (class_decided || (group_decided && (!class_decidable || s->regime_share > 0)))
        return NBC_STOP_DECIDED;
    return given_up(rule, s, reach);
}

nbc_stop_reason nbc_stop_decide(const nbc_stop_rule *rule, const nbc_stop_state *state)
{
    if (state->blocks < rule->min_blocks)
        return NBC_STOP_CONTINUE;
    if (rule->half_width <= 0)
        return NBC_STOP_FIXED;
    if (nbc_stop_is_look(rule, state->blocks)) {
        nbc_stop_reason at_look = NBC_STOP_CONTINUE;
        if (state->blocks >= rule->decide_min_blocks)
            at_look = decide_at_look(rule, state);
        else if (state->ci_hi - state->ci_lo <= 2 * rule->half_width)
            at_look = NBC_STOP_PRECISION; /* no claim to wait for under min_blocks */
        if (at_look != NBC_STOP_CONTINUE)
            return at_look;
    }
    if (state->blocks >= rule->max_blocks)
        return NBC_STOP_MAX;
    double budget_s = nbc_stop_budget_s(rule, state);
    if (budget_s > 0 && state->elapsed_s > budget_s)
        return NBC_STOP_BUDGET;
    return NBC_STOP_CONTINUE;
}

int nbc_stop_estimate(const char *raw_csv, size_t len, long ranks, nbc_stop_state *state, char *err,
                      size_t errlen)
{
    state->ci_lo = state->ci_hi = state->p = state->p_group = NAN;
    state->regime_share = 0;
    state->group_is_intermittent = false;
    run_inputs in = {.meta = {.ranks = ranks, .late_tolerance = NAN, .barrier_precision_ns = NAN}};
    analysis_error aerr = {{0}};
    cell_rules rules = analysis_default_rules();
    cell_table cells = {0};
    int status = analysis_parse_raw(raw_csv, len, "raw.csv (this cell)", &in.raw, &aerr);
    if (status == ANALYSIS_OK)
        status = analysis_compute_cells(&in, &rules, &cells, &aerr);
    if (status == ANALYSIS_OK && cells.count == 1) {
        const cell_metrics *cell = &cells.cells[0];
        state->ci_lo = cell->r_overhead_ci.lo;
        state->ci_hi = cell->r_overhead_ci.hi;
        /* a class to decide: not invalid, no undefined quantity */
        if (cell->diagnosis_point != DIAG_INVALID && cell->diagnosis_point != DIAG_UNCERTAIN) {
            state->p = cell->diagnosis_p;
            state->p_group = cell->diagnosis_group_p;
            diagnosis_thresholds th = analysis_default_thresholds();
            diagnosis_input point = analysis_diagnosis_point(cell);
            if (analysis_two_regimes(&point, &th))
                state->regime_share = fmin(cell->progressed_block_share, cell->held_block_share);
            state->group_is_intermittent = cell->two_regimes;
        }
    } else if (status == ANALYSIS_OK) {
        snprintf(aerr.text, sizeof aerr.text, "%zu cells in the rows of one cell", cells.count);
        status = ANALYSIS_ERR_INPUT;
    }
    analysis_cell_table_free(&cells);
    analysis_raw_table_free(&in.raw);
    if (status != ANALYSIS_OK) {
        snprintf(err, errlen, "the interval of r_overhead and the class's p-value: %s", aerr.text);
        return -1;
    }
    return 0;
}
