/* analysis: the MPI impact ratio (eq. 2, paper section 3.2.1) of one run
 * from passive.csv (inside MPI_Init/MPI_Finalize, no communication) and
 * compute_ref.csv (the same step in a program without MPI), both one row
 * per rank or process and measured step.
 *
 * Pairs close in time (README.md, "MPI impact"): compute_ref --phase
 * before runs just before the passive step before the sweep, compute_ref
 * --phase after just after the passive step after it; compute_ref --phase
 * aa, just before compute_ref before, is the A/A partner. In each pair and
 * for each matrix_n, numerator and denominator are the same statistic,
 * T = the largest over the ranks (passive) or processes (compute_ref) of
 * each one's median over its steps (a step lasts as long as its slowest
 * thread, a job as long as its slowest rank); a pair's ratio never spans
 * the sweep. r_MPI_impact = the pairs' geometric mean, its interval the
 * paired t-interval over them (impact/paired.h): the machine's speed moves
 * between pairs, which no resampling of the steps within one can see. The
 * study pools the same pairs over its launches (impact/study.h). Per host
 * (impact.csv) and over the whole job (the cells' r_mpi_impact).
 *
 * The phases' own intervals, and the run's with a single pair: a
 * bootstrap of the steps. Step k of every rank of a phase ran at about the
 * same moment, so a resample draws step numbers and every rank takes the
 * same ones; ranks with unequal step counts draw their own. */
#include "analysis/impact/sides.h"
#include "analysis/inputs/inputs.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const bit_name impact_warning_names[] = {
    {IMPACT_PROCS_DIFFER, "procs_differ"},         {IMPACT_THREADS_DIFFER, "threads_differ"},
    {IMPACT_WARMUP_DIFFER, "warmup_steps_differ"}, {IMPACT_REPS_DIFFER, "reps_differ"},
    {IMPACT_PHASE_UNPAIRED, "phase_unpaired"},     {IMPACT_STEPS_DIFFER, "steps_differ"},
    {IMPACT_PHASES_DISAGREE, "phases_disagree"},
};

void analysis_impact_warnings_text(unsigned warnings, char *out, size_t out_size)
{
    bits_text(impact_warning_names, sizeof impact_warning_names / sizeof *impact_warning_names,
              warnings, out, out_size);
}

static const schema_file program_files[PROGRAM_COUNT] = {SCHEMA_PASSIVE, SCHEMA_COMPUTE_REF,
                                                         SCHEMA_COMPUTE_REF};

/* Rows are grouped per host and matrix_n (impact.csv) or per matrix_n
 * over every host (the job); within a group by phase, member, step. */
static int compare_in_host(const void *a, const void *b)
{
    const step_row *x = a, *y = b;
    int host = strcmp(x->host, y->host);
    if (host)
        return host;
    if (x->matrix_n != y->matrix_n)
        return x->matrix_n < y->matrix_n ? -1 : 1;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

static int compare_in_job(const void *a, const void *b)
{
    const step_row *x = a, *y = b;
    if (x->matrix_n != y->matrix_n)
        return x->matrix_n < y->matrix_n ? -1 : 1;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    int host = strcmp(x->host, y->host);
    if (host)
        return host;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

/* -1, 0, 1: the group of a is before, the same as, after that of b. */
static int compare_group(const step_row *a, const step_row *b, bool by_host)
{
    int host = by_host ? strcmp(a->host, b->host) : 0;
    if (host)
        return host;
    return (a->matrix_n > b->matrix_n) - (a->matrix_n < b->matrix_n);
}

/* Each group draws its own stream: its interval depends neither on the
 * other groups nor on their order. */
static uint64_t group_stream(const char *host, long long matrix_n)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const char *c = host; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    h = (h ^ (uint64_t)matrix_n) * 0x100000001b3ULL;
    return h ^ 0x696d70616374ULL; /* "impact": apart from the cells' streams */
}

static int impact_intervals(group_sides *g, impact_row *row, const uncertainty_rules *rules,
                            size_t steps[IMPACT_QUANTITIES], analysis_error *err)
{
    size_t resamples = (size_t)rules->resamples;
    double *replicates = malloc(resamples * IMPACT_QUANTITIES * sizeof *replicates);
    double *column = malloc(resamples * sizeof *column);
    if (!replicates || !column) {
        free(replicates);
        free(column);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact intervals)");
    }
    boot_rng rng;
    boot_rng_seed(&rng, (uint64_t)rules->seed, group_stream(row->host, row->matrix_n));
    double t_mpi[PHASE_COUNT], t_ref[PHASE_COUNT];
    for (size_t r = 0; r < resamples; r++)
        impact_ratios(g, row->phases, &rng, NULL, replicates + r * IMPACT_QUANTITIES, t_mpi, t_ref);
    for (int q = 0; q < IMPACT_QUANTITIES; q++) {
        for (size_t r = 0; r < resamples; r++)
            column[r] = replicates[r * IMPACT_QUANTITIES + q];
        metric_bounds ci = {NAN, NAN};
        bool used = q == IMPACT_OVER_PHASES || (q < PHASE_COUNT && (row->phases & (1u << q))) ||
                    (q == IMPACT_AA && isfinite(row->r_aa));
        if (used)
            ci = boot_summarize(column, resamples, steps[q], rules->confidence).ci;
        if (q < PHASE_COUNT)
            row->r_phase_ci[q] = ci;
        else if (q == IMPACT_OVER_PHASES)
            row->r_mpi_impact_ci = ci;
        else
            row->r_aa_ci = ci;
    }
    /* Two pairs or more: the spread between the pairs, which the steps'
     * bootstrap cannot see (the machine's speed moves between pairs). */
    double log_ratios[PHASE_COUNT];
    size_t pairs = 0;
    for (int p = 0; p < PHASE_COUNT; p++)
        if (row->phases & (1u << p))
            log_ratios[pairs++] = log(row->r_phase[p]);
    impact_paired paired = impact_paired_interval(log_ratios, pairs, rules->confidence);
    if (isfinite(paired.lo))
        row->r_mpi_impact_ci = (metric_bounds){paired.lo, paired.hi};
    free(replicates);
    free(column);
    return ANALYSIS_OK;
}

/* Settings that differ between the programs, in the phases used. */
static unsigned unlike_steps(const side *mpi, const side *ref, bool by_host)
{
    unsigned warnings = 0;
    if (by_host && ref->procs != (long)mpi->members)
        warnings |= IMPACT_PROCS_DIFFER;
    if (impact_ranges_differ(&mpi->threads, &ref->threads))
        warnings |= IMPACT_THREADS_DIFFER;
    if (impact_ranges_differ(&mpi->warmup, &ref->warmup))
        warnings |= IMPACT_WARMUP_DIFFER;
    if (impact_ranges_differ(&mpi->reps, &ref->reps))
        warnings |= IMPACT_REPS_DIFFER;
    if (mpi->fewest != mpi->most || ref->fewest != ref->most)
        warnings |= IMPACT_STEPS_DIFFER;
    return warnings;
}

/* Why the passive steps took what they took (README.md, "MPI impact"):
 * over every step of every rank of the phases used, the computing threads'
 * run-queue delay / (their CPU time + delay), and the progress and library
 * threads' CPU time / the same; NAN when a step lacks the counters. */
static void passive_shares(group_sides *g, unsigned phases, impact_row *row)
{
    double cpu = 0, delay = 0, progress = 0;
    bool complete = true;
    for (int p = 0; p < PHASE_COUNT; p++) {
        if (!(phases & (1u << p)))
            continue;
        const side *s = &g->sides[PROGRAM_PASSIVE][p];
        for (size_t i = 0; i < s->first[s->members]; i++) {
            const step_row *r = &s->rows[i];
            complete = complete && !isnan(r->compute_cpu_ns) && !isnan(r->compute_run_delay_ns) &&
                       !isnan(r->progress_cpu_ns);
            cpu += r->compute_cpu_ns;
            delay += r->compute_run_delay_ns;
            progress += r->progress_cpu_ns;
        }
    }
    bool defined = complete && cpu + delay > 0;
    row->passive_delay_share = defined ? delay / (cpu + delay) : NAN;
    row->passive_progress_cpu_share = defined ? progress / (cpu + delay) : NAN;
}

/* keep, when not NULL, receives the group's steps of a row made (the
 * caller frees them with group_free): the joint median resamples them. */
static int impact_of(const step_row *const rows[PROGRAM_COUNT], const size_t n[PROGRAM_COUNT],
                     bool by_host, const uncertainty_rules *rules, impact_row *row, bool *made,
                     group_sides *keep, analysis_error *err)
{
    group_sides g;
    memset(&g, 0, sizeof g);
    int status = ANALYSIS_OK;
    bool present[PROGRAM_COUNT][PHASE_COUNT] = {{false}};
    for (int prog = 0; prog < PROGRAM_COUNT; prog++) {
        for (size_t begin = 0; status == ANALYSIS_OK && begin < n[prog];) {
            enum run_phase phase = rows[prog][begin].phase;
            size_t end = begin;
            while (end < n[prog] && rows[prog][end].phase == phase)
                end++;
            status = impact_side_build(&g.sides[prog][phase], rows[prog] + begin, end - begin,
                                       by_host, err);
            present[prog][phase] = true;
            begin = end;
        }
    }
    *row = (impact_row){.matrix_n = rows[PROGRAM_PASSIVE][0].matrix_n,
                        .comp_target_s = rows[PROGRAM_PASSIVE][0].comp_target_s,
                        .r_mpi_impact_ci = {NAN, NAN},
                        .r_aa = NAN,
                        .r_aa_ci = {NAN, NAN},
                        .t_ref_aa_s = NAN,
                        .passive_delay_share = NAN,
                        .passive_progress_cpu_share = NAN};
    snprintf(row->host, sizeof row->host, "%s", by_host ? rows[PROGRAM_PASSIVE][0].host : "all");
    size_t steps[IMPACT_QUANTITIES] = {0};
    for (int p = 0; p < PHASE_COUNT; p++) {
        side *mpi = &g.sides[PROGRAM_PASSIVE][p], *ref = &g.sides[PROGRAM_REF][p];
        row->r_phase[p] = row->t_passive_phase_s[p] = row->t_ref_phase_s[p] = NAN;
        row->r_phase_ci[p] = (metric_bounds){NAN, NAN};
        if (present[PROGRAM_PASSIVE][p] != present[PROGRAM_REF][p])
            row->warnings |= IMPACT_PHASE_UNPAIRED;
        if (present[PROGRAM_PASSIVE][p])
            row->t_passive_phase_s[p] = impact_side_statistic(mpi, NULL, NULL, 0);
        if (present[PROGRAM_REF][p])
            row->t_ref_phase_s[p] = impact_side_statistic(ref, NULL, NULL, 0);
        if (!present[PROGRAM_PASSIVE][p] || !present[PROGRAM_REF][p])
            continue;
        row->phases |= 1u << p;
        steps[p] = mpi->fewest < ref->fewest ? mpi->fewest : ref->fewest;
        size_t *over = &steps[IMPACT_OVER_PHASES];
        *over = !*over || steps[p] < *over ? steps[p] : *over;
        row->pairs++;
        row->passive_steps = !row->passive_steps || (long)mpi->fewest < row->passive_steps
                                 ? (long)mpi->fewest
                                 : row->passive_steps;
        row->ref_steps = !row->ref_steps || (long)ref->fewest < row->ref_steps ? (long)ref->fewest
                                                                               : row->ref_steps;
        row->ranks = (long)mpi->members > row->ranks ? (long)mpi->members : row->ranks;
        row->procs = ref->procs > row->procs ? ref->procs : row->procs;
        row->warnings |= unlike_steps(mpi, ref, by_host);
    }
    *made = status == ANALYSIS_OK && row->phases;
    const side *aa = &g.sides[PROGRAM_AA][PHASE_BEFORE];
    if (aa->members) {
        const side *ref = &g.sides[PROGRAM_REF][PHASE_BEFORE];
        row->t_ref_aa_s = impact_side_statistic(&g.sides[PROGRAM_AA][PHASE_BEFORE], NULL, NULL, 0);
        steps[IMPACT_AA] = ref->fewest < aa->fewest ? ref->fewest : aa->fewest;
    }
    if (*made) {
        double quantities[IMPACT_QUANTITIES], t_mpi[PHASE_COUNT], t_ref[PHASE_COUNT];
        impact_ratios(&g, row->phases, NULL, NULL, quantities, t_mpi, t_ref);
        for (int p = 0; p < PHASE_COUNT; p++)
            row->r_phase[p] = quantities[p];
        row->r_mpi_impact = quantities[IMPACT_OVER_PHASES];
        row->r_aa = quantities[IMPACT_AA];
        double passive_sum = 0, ref_sum = 0;
        int used = 0;
        for (int p = 0; p < PHASE_COUNT; p++)
            if (row->phases & (1u << p)) {
                passive_sum += t_mpi[p];
                ref_sum += t_ref[p];
                used++;
            }
        row->t_comp_passive_mpi_s = passive_sum / used;
        row->t_comp_ref_s = ref_sum / used;
        passive_shares(&g, row->phases, row);
        status = impact_intervals(&g, row, rules, steps, err);
    }
    if (keep && *made && status == ANALYSIS_OK)
        *keep = g;
    else
        impact_group_free(&g);
    return status;
}

static void warn_row(const impact_row *row)
{
    char text[160];
    if (row->warnings & IMPACT_PHASE_UNPAIRED) {
        char phases[64] = "";
        for (int p = 0; p < PHASE_COUNT; p++)
            if (row->phases & (1u << p))
                snprintf(phases + strlen(phases), sizeof phases - strlen(phases), "%s%s",
                         phases[0] ? " and " : "", analysis_phase_name((enum run_phase)p));
        analysis_warn("host %s, matrix_n %lld: a phase of passive.csv or compute_ref.csv has no "
                      "partner in the other file: r_mpi_impact from the %s phase only",
                      row->host, row->matrix_n, phases);
    }
    unsigned unlike = row->warnings & ~(unsigned)(IMPACT_PHASE_UNPAIRED | IMPACT_PHASES_DISAGREE);
    if (unlike) {
        analysis_impact_warnings_text(unlike, text, sizeof text);
        analysis_warn("host %s, matrix_n %lld: compute_ref and the MPI run differ (%s: "
                      "%ld ranks, %ld processes, %ld and %ld steps): r_mpi_impact compares unlike "
                      "steps",
                      row->host, row->matrix_n, text, row->ranks, row->procs, row->passive_steps,
                      row->ref_steps);
    }
}

/* The rows of both programs as steps. */
static int collect_steps(const run_inputs *in, step_row *rows[PROGRAM_COUNT],
                         size_t n[PROGRAM_COUNT], analysis_error *err)
{
    n[PROGRAM_PASSIVE] = in->passive_count;
    n[PROGRAM_REF] = n[PROGRAM_AA] = 0;
    for (size_t i = 0; i < in->compute_ref_count; i++)
        n[in->compute_ref[i].aa ? PROGRAM_AA : PROGRAM_REF]++;
    for (int prog = 0; prog < PROGRAM_COUNT; prog++) {
        rows[prog] = malloc((n[prog] ? n[prog] : 1) * sizeof *rows[prog]);
        if (!rows[prog])
            return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact)");
    }
    for (size_t i = 0; i < n[PROGRAM_PASSIVE]; i++) {
        const passive_row *r = &in->passive[i];
        rows[PROGRAM_PASSIVE][i] = (step_row){r->host,
                                              r->rank,
                                              r->matrix_n,
                                              r->comp_target_s,
                                              r->phase,
                                              r->step,
                                              r->t_comp_s,
                                              r->threads,
                                              r->warmup_steps,
                                              r->reps,
                                              0,
                                              r->compute_cpu_ns,
                                              r->compute_run_delay_ns,
                                              r->progress_cpu_ns};
    }
    size_t next[PROGRAM_COUNT] = {0};
    for (size_t i = 0; i < in->compute_ref_count; i++) {
        const compute_ref_row *r = &in->compute_ref[i];
        int prog = r->aa ? PROGRAM_AA : PROGRAM_REF;
        rows[prog][next[prog]++] = (step_row){
            r->host,     r->proc,    r->matrix_n,     r->comp_target_s, r->phase, r->step,
            r->t_comp_s, r->threads, r->warmup_steps, r->reps,          r->procs, NAN,
            NAN,         NAN};
    }
    return ANALYSIS_OK;
}

/* Every group of passive.csv joined with the same group of compute_ref.csv
 * into rows (per host when by_host, else per matrix_n over the job). */
static int impact_groups(step_row *rows[PROGRAM_COUNT], const size_t n[PROGRAM_COUNT], bool by_host,
                         const uncertainty_rules *rules, impact_row **out, size_t *count,
                         group_sides **kept, analysis_error *err)
{
    size_t kept_capacity = 0;
    for (int prog = 0; prog < PROGRAM_COUNT; prog++)
        qsort(rows[prog], n[prog], sizeof *rows[prog], by_host ? compare_in_host : compare_in_job);
    size_t capacity = 0, r[PROGRAM_COUNT] = {0};
    int status = ANALYSIS_OK;
    const step_row *passive = rows[PROGRAM_PASSIVE];
    for (size_t begin = 0; status == ANALYSIS_OK && begin < n[PROGRAM_PASSIVE];) {
        size_t end = begin + 1;
        while (end < n[PROGRAM_PASSIVE] &&
               compare_group(&passive[end], &passive[begin], by_host) == 0)
            end++;
        const step_row *group[PROGRAM_COUNT] = {passive + begin};
        size_t group_n[PROGRAM_COUNT] = {end - begin};
        for (int prog = PROGRAM_REF; prog < PROGRAM_COUNT; prog++) {
            const step_row *refs = rows[prog];
            while (r[prog] < n[prog] && compare_group(&refs[r[prog]], &passive[begin], by_host) < 0)
                r[prog]++;
            size_t r_end = r[prog];
            while (r_end < n[prog] && compare_group(&refs[r_end], &passive[begin], by_host) == 0)
                r_end++;
            group[prog] = refs + r[prog];
            group_n[prog] = r_end - r[prog];
        }
        impact_row row;
        group_sides sides;
        bool made = false;
        if (group_n[PROGRAM_REF] == 0) {
            if (by_host)
                analysis_warn("%s has no row for host %s, matrix_n %lld: no MPI impact for it",
                              schema_file_name(program_files[PROGRAM_REF]), passive[begin].host,
                              passive[begin].matrix_n);
        } else {
            status =
                impact_of(group, group_n, by_host, rules, &row, &made, kept ? &sides : NULL, err);
            if (status == ANALYSIS_OK && !made && by_host)
                analysis_warn("host %s, matrix_n %lld: passive.csv and compute_ref.csv have no "
                              "phase in common (before, after): no MPI impact for it",
                              passive[begin].host, passive[begin].matrix_n);
        }
        if (status == ANALYSIS_OK && made && by_host && row.warnings)
            warn_row(&row);
        if (status == ANALYSIS_OK && made)
            status = analysis_grow((void **)out, &capacity, *count, sizeof **out, err);
        if (status == ANALYSIS_OK && made && kept)
            status = analysis_grow((void **)kept, &kept_capacity, *count, sizeof **kept, err);
        if (status == ANALYSIS_OK && made && kept)
            (*kept)[*count] = sides;
        else if (made && kept)
            impact_group_free(&sides);
        if (status == ANALYSIS_OK && made)
            (*out)[(*count)++] = row;
        begin = end;
    }
    return status;
}

int analysis_compute_impact(const run_inputs *in, const uncertainty_rules *rules,
                            impact_table *impact, analysis_error *err)
{
    *impact = (impact_table){0};
    step_row *rows[PROGRAM_COUNT] = {NULL, NULL};
    size_t n[PROGRAM_COUNT];
    group_sides *job_sides = NULL;
    int status = collect_steps(in, rows, n, err);
    if (status == ANALYSIS_OK)
        status = impact_groups(rows, n, true, rules, &impact->rows, &impact->count, NULL, err);
    if (status == ANALYSIS_OK)
        status =
            impact_groups(rows, n, false, rules, &impact->job, &impact->job_count, &job_sides, err);
    if (status == ANALYSIS_OK)
        status = impact_joint_medians(job_sides, impact->job, impact->job_count, rules,
                                      &impact->median, err);
    for (size_t i = 0; job_sides && i < impact->job_count; i++)
        impact_group_free(&job_sides[i]);
    free(job_sides);
    for (int prog = 0; prog < PROGRAM_COUNT; prog++)
        free(rows[prog]);
    if (status != ANALYSIS_OK)
        analysis_impact_table_free(impact);
    return status;
}

const impact_row *analysis_impact_largest(const impact_row *rows, size_t count)
{
    const impact_row *best = NULL;
    for (size_t i = 0; i < count; i++) {
        const impact_row *r = &rows[i];
        if (!isfinite(r->r_mpi_impact))
            continue;
        if (!best || r->comp_target_s > best->comp_target_s ||
            (r->comp_target_s == best->comp_target_s && r->r_mpi_impact > best->r_mpi_impact))
            best = r;
    }
    return best;
}

void analysis_impact_into_cells(const impact_table *impact, cell_table *cells)
{
    for (size_t i = 0; i < cells->count; i++) {
        cell_metrics *c = &cells->cells[i];
        c->r_mpi_impact = NAN;
        c->r_mpi_impact_ci = (metric_bounds){NAN, NAN};
        for (size_t j = 0; impact && j < impact->job_count; j++)
            if (impact->job[j].matrix_n == c->matrix_n) {
                c->r_mpi_impact = impact->job[j].r_mpi_impact;
                c->r_mpi_impact_ci = impact->job[j].r_mpi_impact_ci;
            }
    }
}

void analysis_impact_table_free(impact_table *impact)
{
    free(impact->rows);
    free(impact->job);
    *impact = (impact_table){0};
}
