/* Unit tests of adaptive repetitions' stopping rule (bench_nbc/measure/stopping.c):
 * the rule on given intervals (least blocks, fixed count, looks only after
 * complete Williams cycles, precision, cap, budget), and the rule fed by the
 * analysis's own estimator on simulated cells: narrow cells stop on
 * precision, noisy ones at the cap, and no cell stops on anything but
 * r_overhead's half-width, the cap or the budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "bench_nbc/measure/stopping.h"

/* The default configuration's adaptive rule: 12 to 40 blocks, looks at 12,
 * 18, 24, 30, 36. */
static nbc_stop_rule default_rule(double half_width, double budget_s)
{
    return nbc_stop_rule_of(12, 40, half_width, budget_s);
}

static nbc_stop_state state_of(int blocks, double elapsed_s, double centre, double half_width)
{
    return (nbc_stop_state){.blocks = blocks,
                            .elapsed_s = elapsed_s,
                            .ci_lo = centre - half_width,
                            .ci_hi = centre + half_width};
}

static void test_least_blocks_always_run(void **unused)
{
    (void)unused;
    /* narrow, over budget, at the cap: still fewer than the least */
    nbc_stop_rule rule = default_rule(0.05, 30);
    rule.max_blocks = 5;
    for (int blocks = 0; blocks < rule.min_blocks; blocks++) {
        nbc_stop_state s = state_of(blocks, 1e6, 0.5, 0);
        assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_CONTINUE);
    }
}

static void test_fixed_count(void **unused)
{
    (void)unused;
    nbc_stop_rule rule = default_rule(0, 30);
    nbc_stop_state wide = state_of(12, 0, 0.5, 10);
    assert_int_equal(nbc_stop_decide(&rule, &wide), NBC_STOP_FIXED);
    wide.ci_lo = wide.ci_hi = NAN;
    assert_int_equal(nbc_stop_decide(&rule, &wide), NBC_STOP_FIXED);
    wide.blocks = 11;
    assert_int_equal(nbc_stop_decide(&rule, &wide), NBC_STOP_CONTINUE);
}

static void test_rule_of_the_configuration(void **unused)
{
    (void)unused;
    nbc_stop_rule rule = nbc_stop_rule_of(4, 20, 0.1, 0);
    assert_int_equal(rule.look_blocks, 6);
    const int looks[] = {4, 10, 16}, others[] = {3, 5, 9, 11, 15, 20};
    for (size_t i = 0; i < sizeof looks / sizeof *looks; i++)
        assert_true(nbc_stop_is_look(&rule, looks[i]));
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        assert_false(nbc_stop_is_look(&rule, others[i]));
    /* sweep.csv's documented `stop` values, in the enum's order */
    const char *names[NBC_STOP_COUNT] = {"continue", "fixed", "precision", "max", "budget", "late"};
    for (int r = 0; r < NBC_STOP_COUNT; r++)
        assert_string_equal(nbc_stop_reason_name((nbc_stop_reason)r), names[r]);
    assert_string_equal(nbc_stop_reason_name(NBC_STOP_COUNT), "unknown");
}

/* The half-width alone: at a look an interval of half-width run.half_width
 * stops the cell wherever it lies (a band's border inside it or not), a
 * wider one never does; between looks only the cap and the budget stop. */
static void test_precision_max_budget(void **unused)
{
    (void)unused;
    nbc_stop_rule rule = default_rule(0.05, 30);
    const double centres[] = {-0.3, 0, 0.25, 0.5, 0.75, 1, 2};
    for (size_t i = 0; i < sizeof centres / sizeof *centres; i++) {
        nbc_stop_state s = state_of(12, 1, centres[i], 0.0499);
        assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_PRECISION);
        s = state_of(12, 1, centres[i], 0.0501);
        assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_CONTINUE);
    }
    for (int blocks = 13; blocks < 18; blocks++) {
        nbc_stop_state s = state_of(blocks, 1, 0.2, 0.01);
        assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_CONTINUE);
    }
    nbc_stop_state s = state_of(40, 1, 0.2, 0.0501);
    assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_MAX);
    s = state_of(19, 30.5, 0.2, 0.2);
    assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_BUDGET);
    s = state_of(19, 29.5, 0.2, 0.2);
    assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_CONTINUE);
    nbc_stop_rule no_budget = default_rule(0.05, 0);
    s = state_of(19, 1e9, 0.2, 0.2);
    assert_int_equal(nbc_stop_decide(&no_budget, &s), NBC_STOP_CONTINUE);
    /* nothing known yet: not narrow, so the cell goes on to its cap */
    s = (nbc_stop_state){.blocks = 12, .ci_lo = NAN, .ci_hi = NAN};
    assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_CONTINUE);
    s.blocks = 40;
    assert_int_equal(nbc_stop_decide(&rule, &s), NBC_STOP_MAX);
}

/* ---- Simulated cells through the analysis's estimator ---------------------------- */

/* splitmix64, then Box-Muller: reproducible normal draws. */
static double uniform01(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *state)
{
    return sqrt(-2 * log(uniform01(state))) * cos(2 * M_PI * uniform01(state));
}

/* Relative noise of median 1 with heavy tails, as this machine's times:
 * NOISE_NORMAL 1 + s z; NOISE_OUTLIERS exp(s z) with one draw in ten four
 * times wider; NOISE_T3 1 + s t3 (Student's t with 3 degrees of freedom,
 * infinite kurtosis). All symmetric about their median (in log for the
 * second), so the medians of the series are the noise-free times. */
enum noise_kind { NOISE_NORMAL, NOISE_OUTLIERS, NOISE_T3 };

static double relative_noise(enum noise_kind kind, double s, uint64_t *state)
{
    double z = normal(state);
    if (kind == NOISE_OUTLIERS)
        return exp(s * (uniform01(state) < 0.1 ? 4 * z : z));
    if (kind == NOISE_T3) {
        double chi2 = 0;
        for (int i = 0; i < 3; i++) {
            double u = normal(state);
            chi2 += u * u;
        }
        return fmax(0.05, 1 + s * z / sqrt(chi2 / 3));
    }
    return 1 + s * z;
}

/* One simulated cell of 2 ranks: communication C, computation P = f C, and
 * the overlap step a computation of exactly P then a collective that ends
 * at (P + r C) e: r_overhead and r_comm both have the truth r, r_comp_slowdown 1. The references
 * are C e and P e. Eq. 1 divides by the shorter time: a relative noise s on the long side is about
 * s f on r_overhead (f = 16: the far corners of the default grid). */
typedef struct sim_cell {
    int cell;
    double comm_ns;
    double r;
    enum noise_kind kind;
    double sigma;
    double comp_factor; /* f; 0: 2 */
    /* two regimes: the share of blocks whose collective progressed (r 0
     * in that block), the others at r; 0: one regime */
    double progressed_share;
    double pace_s; /* simulated seconds per block, the warm-up's too; 0: no clock */
} sim_cell;

static void sim_rows(FILE *f, const sim_cell *c, int blocks, uint64_t seed, long long *base)
{
    const char *kinds[3] = {"comm_ref", "comp_ref", "overlap"};
    double comm_ns = c->comm_ns, comp_ns = (c->comp_factor > 0 ? c->comp_factor : 2) * comm_ns;
    for (int b = 0; b <= blocks; b++) {
        double r = c->r;
        if (c->progressed_share > 0 && uniform01(&seed) < c->progressed_share)
            r = 0;
        double comm = comm_ns * relative_noise(c->kind, c->sigma, &seed);
        double comp = comp_ns * relative_noise(c->kind, c->sigma, &seed);
        double over = (comp_ns + r * comm_ns) * relative_noise(c->kind, c->sigma, &seed);
        for (int k = 0; k < 3; k++) {
            long long t[4];
            if (k == 0)
                t[0] = *base, t[1] = t[2] = *base + 1000, t[3] = *base + (long long)comm;
            else if (k == 1)
                t[0] = t[1] = *base, t[2] = t[3] = *base + (long long)comp;
            else
                t[0] = *base, t[1] = *base + 1000, t[2] = *base + (long long)fmin(comp_ns, over),
                t[3] = *base + (long long)fmax(over, 1001);
            for (int rank = 0; rank < 2; rank++)
                fprintf(f,
                        "%d,ibcast,0.004,0.008,1000,100,%d,%s,%s,0,0,1700000000.000000,%d,%lld,"
                        "%lld,%lld,%lld,%lld,0,80000,0\n",
                        c->cell, b, b ? "measure" : "warmup", kinds[k], rank, t[0], t[1], t[2],
                        t[3], *base);
            *base += 200000000;
        }
    }
}

static const char raw_header[] =
    "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,attempt,seq,"
    "wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,exit_late_ns,tolerance_ns,late\n";

static char *sim_text(const sim_cell *c, int blocks, uint64_t seed, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    assert_non_null(f);
    fputs(raw_header, f);
    long long base = 1000000;
    sim_rows(f, c, blocks, seed, &base);
    assert_int_equal(fclose(f), 0);
    return text;
}

static nbc_stop_state estimate_of(const sim_cell *c, int blocks, uint64_t seed)
{
    size_t len;
    char *text = sim_text(c, blocks, seed, &len), err[1024];
    nbc_stop_state s = {.blocks = blocks};
    if (nbc_stop_estimate(text, len, 2, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(text);
    return s;
}

/* Blocks one at a time, as the sweep does (estimates at the looks and at
 * the cap, the cell's simulated clock): how many the cell runs, why it
 * stopped. */
static int blocks_run(const nbc_stop_rule *rule, const sim_cell *c, uint64_t seed,
                      nbc_stop_reason *reason)
{
    for (int blocks = 1;; blocks++) {
        nbc_stop_state s = {.blocks = blocks, .ci_lo = NAN, .ci_hi = NAN};
        if (nbc_stop_is_look(rule, blocks) || blocks >= rule->max_blocks)
            s = estimate_of(c, blocks, seed);
        s.elapsed_s = c->pace_s * (blocks + 1);
        *reason = nbc_stop_decide(rule, &s);
        if (*reason != NBC_STOP_CONTINUE)
            return blocks;
    }
}

static void test_estimator(void **unused)
{
    (void)unused;
    sim_cell serial = {3, 4e6, 1, NOISE_NORMAL, 0.03, 2, 0, 0};
    nbc_stop_state s = estimate_of(&serial, 12, 1);
    assert_true(s.ci_lo < 1 && s.ci_hi > 1);
    /* an interval needs 2 usable blocks */
    s = estimate_of(&serial, 1, 1);
    assert_true(isnan(s.ci_lo) && isnan(s.ci_hi));
    /* rows that are not raw.csv: an error, not a number */
    char err[1024];
    assert_int_not_equal(nbc_stop_estimate("cell\n1\n", 7, 2, &s, err, sizeof err), 0);
    assert_non_null(strstr(err, "r_overhead"));
}

/* A quiet cell stops on precision at the first look whatever its truth; a
 * noisy one at the far corner (f = 16) runs to the cap; a slow one stops on
 * its budget; a cell in two regimes stops as any other, on its interval. */
static void test_simulated_cells(void **unused)
{
    (void)unused;
    nbc_stop_rule rule = default_rule(0.1, 0);
    nbc_stop_reason reason;
    const double truths[] = {0, 0.25, 0.75, 1};
    for (size_t i = 0; i < sizeof truths / sizeof *truths; i++) {
        sim_cell quiet = {1, 4e6, truths[i], NOISE_NORMAL, 0.01, 2, 0, 0};
        assert_int_equal(blocks_run(&rule, &quiet, 7, &reason), 12);
        assert_int_equal(reason, NBC_STOP_PRECISION);
    }
    sim_cell noisy = {2, 4e6, 0.5, NOISE_T3, 0.2, 16, 0, 0};
    assert_int_equal(blocks_run(&rule, &noisy, 7, &reason), 40);
    assert_int_equal(reason, NBC_STOP_MAX);
    nbc_stop_rule budget = default_rule(0.1, 3);
    sim_cell slow = {3, 4e6, 0.5, NOISE_T3, 0.2, 16, 0, 0.2};
    assert_int_equal(blocks_run(&budget, &slow, 7, &reason), 15);
    assert_int_equal(reason, NBC_STOP_BUDGET);
    sim_cell regimes = {4, 4e6, 1, NOISE_NORMAL, 0.01, 2, 0.5, 0};
    blocks_run(&rule, &regimes, 7, &reason);
    assert_true(reason == NBC_STOP_PRECISION || reason == NBC_STOP_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_least_blocks_always_run),
        cmocka_unit_test(test_fixed_count),
        cmocka_unit_test(test_rule_of_the_configuration),
        cmocka_unit_test(test_precision_max_budget),
        cmocka_unit_test(test_estimator),
        cmocka_unit_test(test_simulated_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
