/* The MPI impact (eq. 2) in pairs close in time, on simulated launches of
 * a machine whose speed moves: 25 % (log-normal) between the phases a
 * minute apart, 3 % between two processes seconds apart (a pair), 0.5 %
 * from step to step. The passive steps take the size's true impact times
 * what compute_ref takes at the same speed; the A/A partner's truth is 1.
 * The paired t-interval must cover the truth at about its nominal 95 %, per
 * run (over its two pairs) and over a study's launches (each launch's mean
 * log ratio a unit), where a bootstrap of the steps (conditional on each
 * process's speed) covers it far less often, and so do a study's pairs
 * pooled as independent when the launches differ.
 * Reported per size: no median over the sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/impact/impact.h"

enum { SIZES = 5, MEMBERS = 2, ROUNDS = 10, LAUNCHES = 3, REPETITIONS = 300 };
static const double base_s[SIZES] = {0.001, 0.002, 0.004, 0.008, 0.016};

/* splitmix64: the test's own generator. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state)
{
    return ((double)(next_u64(state) >> 11) + 0.5) * 0x1.0p-53;
}

static double normal(uint64_t *state)
{
    return sqrt(-2 * log(uniform(state))) * cos(2 * M_PI * uniform(state));
}

typedef struct machine {
    double phase_drift;   /* log sd of the speed between phases */
    double pair_drift;    /* log sd between two adjacent processes */
    double step_noise;    /* log sd of a step */
    double launch_effect; /* log sd of the passive program's speed against
                           * compute_ref's, drawn once a launch (its
                           * placement, its start-up): both pairs share it */
} machine;

static const machine drifting = {0.25, 0.03, 0.005, 0};
/* As a virtual machine here read in one default study: the launches' pairs
 * 4 % apart, the same way at every size, 2-3 % between a launch's two
 * pairs. */
static const machine drifting_launches = {0.25, 0.02, 0.005, 0.04};

static passive_row passive[2 * SIZES * MEMBERS * ROUNDS];
static compute_ref_row refs[3 * SIZES * MEMBERS * ROUNDS];
static size_t n_passive, n_refs;

enum program { PASSIVE, REF, AA };

/* One process's steps of every size at one speed, in rounds. */
static void process_steps(uint64_t *state, enum program prog, enum run_phase phase, double speed,
                          const double impact[SIZES], const machine *m)
{
    double rounds[ROUNDS];
    for (int k = 0; k < ROUNDS; k++)
        rounds[k] = exp(m->step_noise * normal(state));
    for (int s = 0; s < SIZES; s++)
        for (int member = 0; member < MEMBERS; member++)
            for (int k = 0; k < ROUNDS; k++) {
                double t = base_s[s] * speed * rounds[k] * exp(m->step_noise * normal(state));
                long long n = 100 * (s + 1);
                if (prog == PASSIVE) {
                    passive[n_passive++] = (passive_row){.host = "node",
                                                         .rank = member,
                                                         .threads = 1,
                                                         .matrix_n = n,
                                                         .comp_target_s = base_s[s],
                                                         .phase = phase,
                                                         .warmup_steps = 1,
                                                         .reps = ROUNDS,
                                                         .step = k,
                                                         .t_comp_s = t * impact[s],
                                                         .window_ns = NAN,
                                                         .compute_cpu_ns = NAN,
                                                         .compute_run_delay_ns = NAN,
                                                         .progress_cpu_ns = NAN};
                } else {
                    compute_ref_row *r = &refs[n_refs++];
                    *r = (compute_ref_row){.host = "node",
                                           .proc = member,
                                           .procs = MEMBERS,
                                           .threads = 1,
                                           .matrix_n = n,
                                           .comp_target_s = base_s[s],
                                           .phase = phase,
                                           .warmup_steps = 1,
                                           .reps = ROUNDS,
                                           .step = k,
                                           .t_comp_s = t};
                    r->aa = prog == AA;
                }
            }
}

/* One launch in the suite's order: aa, ref, passive | sweep | passive,
 * ref; the speed moves between the phases and, a little, between any two
 * processes. */
static void simulate_launch(uint64_t *state, const double impact[SIZES], const machine *m)
{
    n_passive = n_refs = 0;
    static const enum program order[2][3] = {{AA, REF, PASSIVE}, {PASSIVE, REF, PASSIVE}};
    static const int programs[2] = {3, 2};
    double launch_speed = exp(m->launch_effect * normal(state)); /* the passive program's */
    for (int phase = 0; phase < 2; phase++) {
        double phase_speed = exp(m->phase_drift * normal(state));
        for (int i = 0; i < programs[phase]; i++)
            process_steps(state, order[phase][i], (enum run_phase)phase,
                          phase_speed * exp(m->pair_drift * normal(state)) *
                              (order[phase][i] == PASSIVE ? launch_speed : 1),
                          impact, m);
    }
}

static void launch_impact(uint64_t *state, const double impact[SIZES], const machine *m,
                          long long seed, impact_table *out)
{
    simulate_launch(state, impact, m);
    uncertainty_rules rules = analysis_default_uncertainty();
    rules.resamples = 100; /* the phases' own intervals only */
    rules.seed = seed;
    run_inputs in = {.passive = passive,
                     .passive_count = n_passive,
                     .have_passive = true,
                     .compute_ref = refs,
                     .compute_ref_count = n_refs,
                     .have_compute_ref = true};
    analysis_error err;
    assert_int_equal(analysis_compute_impact(&in, &rules, out, &err), 0);
    assert_int_equal(out->job_count, SIZES);
}

static bool covers(double lo, double hi, double truth)
{
    return lo <= truth && truth <= hi;
}

/* 95 % nominal over REPETITIONS: three binomial standard errors either way
 * (the sizes share each run's speeds: their coverages move together, so
 * the bound is that of one size). */
static void assert_nominal(double share)
{
    double se = sqrt(0.95 * 0.05 / REPETITIONS);
    assert_true(share >= 0.95 - 3 * se && share <= 0.95 + 3 * se);
}

/* One launch's interval: two pairs, t with one degree of freedom. The
 * steps' bootstrap sees neither the 3 % between the processes of a pair nor
 * the 25 % between the phases. */
static void run_interval_covers_on_a_drifting_machine(void **state)
{
    (void)state;
    const double impact[SIZES] = {1.0, 1.0, 1.2, 1.5, 2.0};
    uint64_t seed = 20261201;
    size_t covered = 0, aa_finite = 0;
    for (int rep = 0; rep < REPETITIONS; rep++) {
        impact_table t;
        launch_impact(&seed, impact, &drifting, rep + 1, &t);
        for (size_t s = 0; s < SIZES; s++) {
            const impact_row *row = &t.job[s];
            assert_int_equal(row->pairs, 2);
            covered += covers(row->r_mpi_impact_ci.lo, row->r_mpi_impact_ci.hi, impact[s]);
            aa_finite += isfinite(row->r_aa) && fabs(log(row->r_aa)) < 0.2;
        }
        analysis_impact_table_free(&t);
    }
    double share = (double)covered / (REPETITIONS * SIZES);
    printf("figure: one launch's paired interval of r_MPI_impact covers the truth in %.1f %% "
           "(%d launches x %d sizes, speed moving 25 %% between phases, 3 %% within a pair)\n",
           100 * share, REPETITIONS, SIZES);
    assert_nominal(share);
    /* the A/A pair is adjacent: never the 25 % between the phases */
    assert_true(aa_finite >= (size_t)(0.99 * REPETITIONS * SIZES));
}

/* A study of three launches per size: six pairs, the interval over the
 * three launches (df 2), and the A/A
 * band over three A/A pairs (df 2) holding 1 at its nominal rate; the
 * unpaired A/A (compute_ref after over before, a minute apart) reads the
 * machine's drift, several times wider. */
static void study_pools_pairs_per_size(void **state)
{
    (void)state;
    const double impact[SIZES] = {1.0, 1.0, 1.2, 1.5, 2.0};
    uint64_t seed = 424242;
    size_t covered = 0, aa_covered = 0;
    double paired_width = 0, unpaired_width = 0;
    for (int rep = 0; rep < REPETITIONS; rep++) {
        impact_study study = {0};
        impact_config config = {.mpi = "mpich", .collective = "ibcast", .deployment = "basic"};
        double unpaired[SIZES][LAUNCHES];
        analysis_error err;
        for (int l = 0; l < LAUNCHES; l++) {
            impact_table t;
            launch_impact(&seed, impact, &drifting, rep * LAUNCHES + l + 1, &t);
            for (size_t s = 0; s < SIZES; s++)
                unpaired[s][l] =
                    log(t.job[s].t_ref_phase_s[PHASE_AFTER] / t.job[s].t_ref_phase_s[PHASE_BEFORE]);
            assert_int_equal(impact_study_add_run(&study, &config, &t, &err), 0);
            analysis_impact_table_free(&t);
        }
        impact_study_finish(&study, 0.95);
        assert_int_equal(study.count, SIZES);
        for (size_t s = 0; s < SIZES; s++) {
            const impact_study_row *row = &study.rows[s];
            assert_int_equal(row->pairs, 2 * LAUNCHES);
            assert_int_equal(row->launches, LAUNCHES);
            assert_int_equal(row->impact.pairs, LAUNCHES);
            assert_int_equal(row->aa.pairs, LAUNCHES);
            covered += covers(row->impact.lo, row->impact.hi, impact[s]);
            aa_covered += covers(row->aa.lo, row->aa.hi, 1.0);
            impact_paired old = impact_paired_interval(unpaired[s], LAUNCHES, 0.95);
            paired_width += log(row->aa.hi / row->aa.lo);
            unpaired_width += log(old.hi / old.lo);
        }
        impact_study_free(&study);
    }
    double share = (double)covered / (REPETITIONS * SIZES);
    double aa = (double)aa_covered / (REPETITIONS * SIZES);
    printf("figure: a study's paired interval covers the truth in %.1f %%, its A/A band "
           "holds 1 in %.1f %%; the band is %.1fx narrower than an A/A a minute apart\n",
           100 * share, 100 * aa, unpaired_width / paired_width);
    assert_nominal(share);
    assert_nominal(aa);
    assert_true(unpaired_width > 3 * paired_width);
}

/* Five launches (the default study's) on a machine whose passive program
 * runs a few percent apart from compute_ref from launch to launch: the
 * interval over the launches covers the truth at its nominal rate; the ten
 * pairs pooled as if independent (df 9) read the launches' shared offset
 * as precision and cover far less, an idle library's interval missing 1
 * at most sizes of some studies. */
static void study_interval_is_over_the_launches(void **state)
{
    (void)state;
    enum { STUDY_LAUNCHES = 5 };
    const double impact[SIZES] = {1.0, 1.0, 1.2, 1.5, 2.0};
    uint64_t seed = 5150;
    size_t covered = 0, pooled_covered = 0;
    for (int rep = 0; rep < REPETITIONS; rep++) {
        impact_study study = {0};
        impact_config config = {.mpi = "mpich", .collective = "ibcast", .deployment = "basic"};
        double pairs[SIZES][2 * STUDY_LAUNCHES];
        analysis_error err;
        for (int l = 0; l < STUDY_LAUNCHES; l++) {
            impact_table t;
            launch_impact(&seed, impact, &drifting_launches, rep * STUDY_LAUNCHES + l + 1, &t);
            for (size_t s = 0; s < SIZES; s++)
                for (int p = 0; p < 2; p++)
                    pairs[s][2 * l + p] =
                        log(t.job[s].t_passive_phase_s[p] / t.job[s].t_ref_phase_s[p]);
            assert_int_equal(impact_study_add_run(&study, &config, &t, &err), 0);
            analysis_impact_table_free(&t);
        }
        impact_study_finish(&study, 0.95);
        for (size_t s = 0; s < SIZES; s++) {
            const impact_study_row *row = &study.rows[s];
            assert_int_equal(row->launches, STUDY_LAUNCHES);
            covered += covers(row->impact.lo, row->impact.hi, impact[s]);
            impact_paired pooled = impact_paired_interval(pairs[s], 2 * STUDY_LAUNCHES, 0.95);
            pooled_covered += covers(pooled.lo, pooled.hi, impact[s]);
        }
        impact_study_free(&study);
    }
    double share = (double)covered / (REPETITIONS * SIZES);
    double pooled = (double)pooled_covered / (REPETITIONS * SIZES);
    printf("figure: with launches 4 %% apart, a 5-launch study's interval covers the truth in "
           "%.1f %%; its 10 pairs pooled as independent in %.1f %%\n",
           100 * share, 100 * pooled);
    assert_nominal(share);
    assert_true(pooled < 0.95 - 3 * sqrt(0.95 * 0.05 / REPETITIONS)); /* below the nominal band */
}

/* The paired interval's arithmetic on given log ratios, and "not
 * estimable" when the A/A band is wider than the effect. */
static void estimable_beside_the_band(void **state)
{
    (void)state;
    const double two[] = {0.0, 0.1};
    impact_paired p = impact_paired_interval(two, 2, 0.95);
    double half = 12.7062047 * sqrt(0.005) / sqrt(2.0); /* t(0.975, 1) sd / sqrt(n) */
    assert_int_equal(p.pairs, 2);
    assert_true(fabs(p.ratio - exp(0.05)) < 1e-12);
    assert_true(fabs(log(p.lo) - (0.05 - half)) < 1e-6 && fabs(log(p.hi) - (0.05 + half)) < 1e-6);
    const double one[] = {0.3};
    impact_paired single = impact_paired_interval(one, 1, 0.95);
    assert_true(fabs(single.ratio - exp(0.3)) < 1e-12 && isnan(single.lo) && isnan(single.hi));

    const double small_effect[] = {0.05, 0.04, 0.06, 0.05, 0.05, 0.04};
    const double wide_aa[] = {0.10, -0.12, 0.05};
    const double large_effect[] = {0.70, 0.68, 0.72, 0.69, 0.71, 0.70};
    const double narrow_aa[] = {0.01, -0.01, 0.0};
    impact_paired small = impact_paired_interval(small_effect, 6, 0.95);
    impact_paired large = impact_paired_interval(large_effect, 6, 0.95);
    impact_paired wide = impact_paired_interval(wide_aa, 3, 0.95);
    impact_paired narrow = impact_paired_interval(narrow_aa, 3, 0.95);
    assert_true(small.lo > 1);                     /* an interval apart from 1 ... */
    assert_false(impact_estimable(&small, &wide)); /* ... but inside what A/A reads */
    assert_true(impact_estimable(&large, &wide));
    assert_true(impact_estimable(&small, &narrow));
    assert_false(impact_estimable(&large, &single)); /* no band: not estimable */
}

/* Two configurations, five sizes each: one row per configuration and size,
 * each its own size's figure (not the median over the sizes, 1.2), the
 * largest size's row marked, and the CSV's rows as many. */
static void one_row_per_size_and_the_largest_marked(void **state)
{
    (void)state;
    const double basic[SIZES] = {1.0, 1.0, 1.0, 1.0, 1.0};
    const double progress[SIZES] = {1.0, 1.1, 1.2, 1.5, 2.0};
    const machine quiet = {0.25, 0.002, 0.002, 0};
    uint64_t seed = 7;
    impact_study study = {0};
    analysis_error err;
    for (int l = 0; l < LAUNCHES; l++)
        for (int d = 0; d < 2; d++) {
            impact_config config = {.mpi = "mpich", .collective = "ibcast"};
            snprintf(config.deployment, sizeof config.deployment, "%s", d ? "progress" : "basic");
            impact_table t;
            launch_impact(&seed, d ? progress : basic, &quiet, l * 2 + d + 1, &t);
            assert_int_equal(impact_study_add_run(&study, &config, &t, &err), 0);
            analysis_impact_table_free(&t);
        }
    impact_study_finish(&study, 0.95);
    assert_int_equal(study.count, 2 * SIZES);
    size_t basic_holding_1 = 0;
    for (size_t i = 0; i < study.count; i++) {
        const impact_study_row *row = &study.rows[i];
        bool is_progress = strcmp(row->config.deployment, "progress") == 0;
        size_t s = i % SIZES;
        assert_true(fabs(row->comp_target_s - base_s[s]) < 1e-12);
        double truth = is_progress ? progress[s] : basic[s];
        assert_true(fabs(log(row->impact.ratio / truth)) < 0.02);
        assert_int_equal(row->largest, s == SIZES - 1);
        if (truth > 1.05)
            assert_true(row->estimable);
        basic_holding_1 += !is_progress && row->impact.lo <= 1 && 1 <= row->impact.hi;
    }
    assert_true(basic_holding_1 >= SIZES - 1);
    char dir[] = "/tmp/impact_study_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/impact.csv", dir);
    int written = impact_study_write(&study, path, &err);
    if (written != 0)
        fprintf(stderr, "%s\n", err.text);
    assert_int_equal(written, 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int lines = 0, largest_rows = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        size_t n = strlen(line);
        largest_rows += n >= 3 && strcmp(line + n - 3, ",1\n") == 0;
    }
    assert_int_equal(fclose(f), 0);
    assert_int_equal(lines, 1 + 2 * SIZES);
    assert_int_equal(largest_rows, 2);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    impact_study_free(&study);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(estimable_beside_the_band),
        cmocka_unit_test(one_row_per_size_and_the_largest_marked),
        cmocka_unit_test(run_interval_covers_on_a_drifting_machine),
        cmocka_unit_test(study_pools_pairs_per_size),
        cmocka_unit_test(study_interval_is_over_the_launches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
