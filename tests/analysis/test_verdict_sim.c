/* The verdict's whole procedure simulated (analysis/README.md, "The
 * verdict"): for each simulated configuration and cell, LAUNCHES launches of
 * BLOCKS blocks each, every second one a null block whose second triple
 * repeats the three kinds at the same moment (TRIPLES in all), with
 *   - two scheduler regimes: in each block the collective completes in the
 *     background with the launch's probability pi_L (r_overhead 0 in that
 *     block) or waits to be serialized (1), as a progress thread sharing the
 *     computation's core does;
 *   - heavy tails: Student t (3 df) noise on every block, and a block in 20
 *     delayed by an exponential extra (mean: the shorter step);
 *   - launch-to-launch shifts: the machine's speed (a lognormal factor on
 *     every time of the launch), the regime's share (pi_L = pi +- 0.15) and
 *     an additive shift of the overhead (normal, 0.08).
 * The truth of a cell is the mean over launches of what one launch measures
 * with unlimited blocks: 1 - pi + E[outlier] = 1 - pi + 0.05. Each launch's
 * blocks go through verdict_launch_of and the launches through
 * verdict_combine, the code that writes verdict.csv. Asserted: the 95 %
 * interval of r_overhead covers the truth within 2 points of nominal, the
 * confident readings whose band excludes the truth stay under the stated
 * 5 %, and an interval that ignores the launch spread (the blocks pooled as
 * if independent) misses it, so the simulation can tell. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/metrics/metrics.h"

/* the default study's design (configs/study-default.conf: run.null_share
 * 0.5) */
enum { LAUNCHES = 5, BLOCKS = 6, TRIPLES = BLOCKS + BLOCKS / 2, CONFIGURATIONS = 6000 };

/* splitmix64, seeded once: the run is the same every time. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
    return sqrt(-2 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

static double student3(uint64_t *s)
{
    double z = normal(s), c = 0;
    for (int i = 0; i < 3; i++) {
        double g = normal(s);
        c += g * g;
    }
    return z / sqrt(c / 3);
}

typedef struct cell_truth {
    double comm_s, comp_s; /* the references */
    double pi;             /* the share of blocks the collective completes in the background */
    double pi_spread;      /* pi_L = pi +- this (uniform) */
} cell_truth;

static const double OUTLIER_SHARE = 0.05; /* with mean 1 (the shorter step): +0.05 */

static double truth_of(const cell_truth *c)
{
    return 1 - c->pi + OUTLIER_SHARE;
}

/* One launch of a cell: its blocks, then the null blocks' repeats (each
 * at its block's moment: the machine's speed of that block). */
static void simulate_launch(const cell_truth *c, uint64_t *s, block_values *b)
{
    double speed_launch = exp(0.15 * normal(s));
    double pi = c->pi + c->pi_spread * (2 * uniform(s) - 1);
    double shift = 0.08 * normal(s);
    double longer = fmax(c->comm_s, c->comp_s), shorter = fmin(c->comm_s, c->comp_s);
    double moment[BLOCKS];
    for (int i = 0; i < BLOCKS; i++)
        moment[i] = exp(0.03 * normal(s));
    for (int i = 0; i < TRIPLES; i++) {
        int block = i < BLOCKS ? i : 2 * (i - BLOCKS) + 1;
        double speed = speed_launch * moment[block];
        bool background = uniform(s) < pi;
        double x = (background ? 0 : 1) + shift + 0.05 * student3(s);
        if (uniform(s) < OUTLIER_SHARE)
            x += -log(uniform(s));
        double comm = c->comm_s * speed * (1 + 0.02 * normal(s));
        double comp = c->comp_s * speed * (1 + 0.02 * normal(s));
        b[i] = (block_values){
            .block = block + 1,
            .repeat = i >= BLOCKS,
            .comm_span = comm,
            .comp_span = comp,
            .measured_span = longer * speed * (1 + 0.02 * normal(s)) + shorter * speed * x,
            .comm_local = comm,
            .comp_local = comp,
            .mpi_from_last = comm * (background ? 0.1 : 1),
            .comp_overlap_local = comp * (1 + 0.02 * normal(s)),
        };
    }
}

/* An interval that ignores the launch spread: the blocks of every launch
 * pooled, the per-block r_overhead's standard error over all of them. */
static bool pooled_covers(block_values b[LAUNCHES][TRIPLES], double truth)
{
    double sum = 0, sum2 = 0, n = LAUNCHES * TRIPLES;
    for (int l = 0; l < LAUNCHES; l++) {
        for (int i = 0; i < TRIPLES; i++) {
            const block_values *v = &b[l][i];
            double r = (v->measured_span - fmax(v->comm_span, v->comp_span)) /
                       fmin(v->comm_span, v->comp_span);
            sum += r;
            sum2 += r * r;
        }
    }
    double mean = sum / n, se = sqrt((sum2 / n - mean * mean) * n / (n - 1) / n);
    return fabs(mean - truth) <= 1.96 * se;
}

static void whole_procedure_holds_its_error_rates(void **state)
{
    (void)state;
    /* references 2:1 either way and 4:1, shares of background completion
     * across the three bands and their bounds (truths 0.05 .. 1.05) */
    static const double ratios[][2] = {
        {0.002, 0.004}, {0.004, 0.002}, {0.001, 0.004}, {0.004, 0.001}, {0.008, 0.008}};
    uint64_t s = 42;
    long covered = 0, pooled = 0, confident = 0, wrong = 0;
    for (long k = 0; k < CONFIGURATIONS; k++) {
        cell_truth c = {.comm_s = ratios[k % 5][0],
                        .comp_s = ratios[k % 5][1],
                        .pi = (double)(k % 11) / 10,
                        .pi_spread = 0.15};
        if (c.pi == 0 || c.pi == 1)
            c.pi_spread = 0; /* one regime: no library progress, or always */
        double truth = truth_of(&c);
        block_values b[LAUNCHES][TRIPLES];
        verdict_launch est[LAUNCHES];
        for (int l = 0; l < LAUNCHES; l++) {
            simulate_launch(&c, &s, b[l]);
            est[l] = verdict_launch_of(b[l], TRIPLES, 1000, 100);
        }
        verdict_reading r = verdict_combine(est, LAUNCHES, VERDICT_CONFIDENCE);
        assert_int_equal(r.launches, LAUNCHES);
        covered += truth >= r.r_overhead.lo && truth <= r.r_overhead.hi;
        pooled += pooled_covers(b, truth);
        if (r.confident) {
            double lo, hi;
            assert_true(verdict_class_claim(r.class, &lo, &hi));
            confident++;
            wrong += !(truth >= lo && truth < hi);
        }
    }
    double coverage = (double)covered / CONFIGURATIONS;
    double pooled_coverage = (double)pooled / CONFIGURATIONS;
    double wrong_rate = confident ? (double)wrong / confident : 0;
    printf("figure: %d launches x %d blocks (%d triples), %d cells: the t interval over launches "
           "covers the truth in %.1f %% (blocks pooled: %.1f %%); %ld confident, %ld of them wrong "
           "(%.2f %%)\n",
           LAUNCHES, BLOCKS, TRIPLES, CONFIGURATIONS, 100 * coverage, 100 * pooled_coverage,
           confident, wrong, 100 * wrong_rate);
    /* 6000 cells: a binomial standard error of 0.28 %, so 2 points is 7 of them */
    assert_true(fabs(coverage - VERDICT_CONFIDENCE) <= 0.02);
    assert_true(wrong_rate <= 1 - VERDICT_CONFIDENCE);
    assert_true(confident > CONFIGURATIONS / 10); /* the test says something of claims */
    /* the negative control: ignoring the launches undercovers, by 5 points
     * or more (18 standard errors) */
    assert_true(pooled_coverage < VERDICT_CONFIDENCE - 0.05);
}

static block_values block_of(double comm, double comp, double measured)
{
    return (block_values){.comm_span = comm,
                          .comp_span = comp,
                          .measured_span = measured,
                          .comm_local = comm,
                          .comp_local = comp,
                          .mpi_from_last = comm,
                          .comp_overlap_local = comp};
}

/* eq. 1 on the means: two modes, half the blocks each, read as their mean
 * (a median would take either mode). */
static void launch_estimate_is_eq1_on_means(void **state)
{
    (void)state;
    block_values b[4] = {block_of(1, 2, 2), block_of(1, 2, 3), block_of(1, 2, 2),
                         block_of(1, 2, 3)};
    verdict_launch l = verdict_launch_of(b, 4, 10, 20);
    assert_true(l.valid);
    assert_float_equal(l.r_overhead, 0.5, 1e-12);
    assert_float_equal(l.r_comm, 1.0, 1e-12);
    assert_float_equal(l.ended_share, 0.0, 1e-12);
    assert_false(verdict_launch_of(b, 1, 10, 20).valid);
}

/* README.md, "Foreign waits", over launches: three launches read 1.0
 * (none, confident) from blocks whose means are comm 1, comp 2, overlap 3;
 * a wait of 0.2 in every comp_ref step (the longer reference) could hide
 * eq1(1, 1.8, 3) - 1 = +0.2 and 0.3 in every overlap step eq1(1, 2, 2.7) -
 * 1 = -0.3: the interval over the launches is stretched by those (their
 * mean over launches), and 0.7 below it leaves band none: not confident.
 * A wait in one block of four (sporadic: not the median block's) and
 * blocks whose waits were not read (NAN) move nothing. */
static void foreign_waits_widen_the_launches_interval(void **state)
{
    (void)state;
    enum { L = 3, B = 4 };
    block_values b[L][B];
    verdict_launch l[L], quiet[L];
    for (int i = 0; i < L; i++) {
        for (int j = 0; j < B; j++) {
            b[i][j] = block_of(1, 2, 3 + 0.01 * (i - 1) + 0.001 * j);
            b[i][j].foreign_wait[0] = NAN;
            b[i][j].foreign_wait[1] = b[i][j].foreign_wait[2] = NAN;
        }
        quiet[i] = verdict_launch_of(b[i], B, 8, 10);
        for (int j = 0; j < B; j++) {
            b[i][j].foreign_wait[0] = j == 0 ? 0.5 : 0;
            b[i][j].foreign_wait[1] = 0.2;
            b[i][j].foreign_wait[2] = 0.3;
        }
        l[i] = verdict_launch_of(b[i], B, 8, 10);
        assert_true(l[i].valid);
        assert_float_equal(l[i].r_overhead, quiet[i].r_overhead, 0);
        assert_float_equal(l[i].r_overhead_up, 0.2 / 1.0, 1e-9);
        assert_float_equal(l[i].r_overhead_down, 0.3 / 1.0, 1e-9);
        assert_float_equal(quiet[i].r_overhead_up + quiet[i].r_overhead_down, 0, 0);
    }
    verdict_reading q = verdict_combine(quiet, L, VERDICT_CONFIDENCE);
    verdict_reading r = verdict_combine(l, L, VERDICT_CONFIDENCE);
    assert_true(q.confident);
    assert_int_equal(q.class, VERDICT_NONE);
    assert_float_equal(r.r_overhead.value, q.r_overhead.value, 0);
    assert_float_equal(r.r_overhead.lo, q.r_overhead.lo - 0.3, 1e-9);
    assert_float_equal(r.r_overhead.hi, q.r_overhead.hi + 0.2, 1e-9);
    assert_int_equal(r.overlap, VERDICT_NONE);
    assert_false(r.confident);
}

static void one_launch_or_other_sizes_never_confident(void **state)
{
    (void)state;
    verdict_launch l[3] = {
        {.valid = true,
         .bytes = 8,
         .matrix_n = 10,
         .r_overhead = 1.0,
         .r_comm = 1,
         .ended_share = 0,
         .r_comp_slowdown = 1},
        {.valid = true,
         .bytes = 8,
         .matrix_n = 10,
         .r_overhead = 1.01,
         .r_comm = 1,
         .ended_share = 0,
         .r_comp_slowdown = 1},
        {.valid = true,
         .bytes = 8,
         .matrix_n = 10,
         .r_overhead = 0.99,
         .r_comm = 1,
         .ended_share = 0,
         .r_comp_slowdown = 1},
    };
    verdict_reading r = verdict_combine(l, 1, VERDICT_CONFIDENCE);
    assert_int_equal(r.class, VERDICT_ONE_LAUNCH);
    assert_int_equal(r.overlap, VERDICT_NONE);
    assert_false(r.confident);
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_true(r.confident);
    assert_int_equal(r.class, VERDICT_NONE);
    l[2].bytes = 16;
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_false(r.sizes_agree);
    assert_false(r.confident);
    /* an interval across 0.75 is uncertain */
    l[2].bytes = 8;
    l[0].r_overhead = 0.5;
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_int_equal(r.class, VERDICT_UNCERTAIN);
    l[0].valid = l[1].valid = l[2].valid = false;
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_int_equal(r.class, VERDICT_INVALID);
}

static verdict_launch launch_at(double r_overhead)
{
    return (verdict_launch){.valid = true,
                            .bytes = 8,
                            .matrix_n = 10,
                            .r_overhead = r_overhead,
                            .r_comm = 1,
                            .ended_share = 0,
                            .r_comp_slowdown = 1};
}

/* The claim is the group's: an interval below 0.75, across 0.25 or inside
 * one band of the group, claims hidden_or_partial (the estimate's band is
 * the overlap reading); one at 0.75 and above claims none; one across 0.75
 * is uncertain. */
static void an_overlap_claim_is_the_groups_whatever_the_width(void **state)
{
    (void)state;
    double lo, hi;
    assert_true(verdict_class_claim(VERDICT_HIDDEN_OR_PARTIAL, &lo, &hi));
    assert_true(isinf(lo) && lo < 0);
    assert_float_equal(hi, verdict_class_get(VERDICT_PARTIAL)->band_hi, 0);
    assert_false(verdict_class_claim(VERDICT_UNCERTAIN, &lo, &hi));
    verdict_class group;
    assert_true(verdict_group_class(VERDICT_HIDDEN, &group));
    assert_int_equal(group, VERDICT_HIDDEN_OR_PARTIAL);
    assert_false(verdict_group_class(VERDICT_NONE, &group));

    verdict_launch l[3] = {launch_at(0.15), launch_at(0.25), launch_at(0.35)};
    verdict_reading r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_true(r.r_overhead.lo < 0.25 && r.r_overhead.hi < 0.75);
    assert_int_equal(r.overlap, VERDICT_PARTIAL);
    assert_true(r.confident);
    assert_int_equal(r.class, VERDICT_HIDDEN_OR_PARTIAL);

    l[2] = launch_at(0.9); /* across 0.75 */
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_false(r.confident);
    assert_int_equal(r.class, VERDICT_UNCERTAIN);

    l[0] = launch_at(0.40), l[1] = launch_at(0.41), l[2] = launch_at(0.42);
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE); /* inside partial: the group all the same */
    assert_int_equal(r.overlap, VERDICT_PARTIAL);
    assert_int_equal(r.class, VERDICT_HIDDEN_OR_PARTIAL);

    l[0] = launch_at(0.10), l[1] = launch_at(0.11), l[2] = launch_at(0.12);
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_int_equal(r.overlap, VERDICT_HIDDEN);
    assert_int_equal(r.class, VERDICT_HIDDEN_OR_PARTIAL);

    l[0] = launch_at(0.95), l[1] = launch_at(1.0), l[2] = launch_at(1.05);
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_int_equal(r.class, VERDICT_NONE);

    l[1].bytes = 16; /* other sizes: never confident, not even at the group */
    l[0] = launch_at(0.1), l[2] = launch_at(0.5);
    r = verdict_combine(l, 3, VERDICT_CONFIDENCE);
    assert_false(r.confident);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launch_estimate_is_eq1_on_means),
        cmocka_unit_test(foreign_waits_widen_the_launches_interval),
        cmocka_unit_test(one_launch_or_other_sizes_never_confident),
        cmocka_unit_test(whole_procedure_holds_its_error_rates),
        cmocka_unit_test(an_overlap_claim_is_the_groups_whatever_the_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
