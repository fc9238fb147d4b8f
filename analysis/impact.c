/* analysis: the MPI impact ratio (eq. 2, paper section 3.2.1) from
 * passive.csv (inside MPI_Init/MPI_Finalize, no communication) and
 * compute_ref.csv (the same step in a program without MPI). Like with like:
 * for each host, matrix_n and phase present in both files, T = the slowest
 * rank's (passive) or process's (compute_ref) t_comp_s, as a step lasts as
 * long as its slowest thread; T over phases is the mean of the phases' T;
 * r_MPI_impact = T_passive / T_compute_ref. */
#include "analysis/analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const bit_name impact_warning_names[] = {
    {IMPACT_PROCS_DIFFER, "procs_differ"},
    {IMPACT_THREADS_DIFFER, "threads_differ"},
    {IMPACT_WARMUP_DIFFER, "warmup_steps_differ"},
    {IMPACT_REPS_DIFFER, "reps_differ"},
};

void analysis_impact_warnings_text(unsigned warnings, char *out, size_t out_size)
{
    bits_text(impact_warning_names, sizeof impact_warning_names / sizeof *impact_warning_names,
              warnings, out, out_size);
}

static int compare_key(const char *host_a, long long n_a, const char *host_b, long long n_b)
{
    int by_host = strcmp(host_a, host_b);
    if (by_host != 0)
        return by_host;
    return (n_a > n_b) - (n_a < n_b);
}

static int compare_passive(const void *a, const void *b)
{
    const passive_row *x = *(const passive_row *const *)a, *y = *(const passive_row *const *)b;
    int key = compare_key(x->host, x->matrix_n, y->host, y->matrix_n);
    if (key != 0)
        return key;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int compare_ref(const void *a, const void *b)
{
    const compute_ref_row *x = *(const compute_ref_row *const *)a;
    const compute_ref_row *y = *(const compute_ref_row *const *)b;
    int key = compare_key(x->host, x->matrix_n, y->host, y->matrix_n);
    if (key != 0)
        return key;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    return (x->proc > y->proc) - (x->proc < y->proc);
}

/* The range of values a setting took in one program's rows. */
typedef struct value_range {
    long lo;
    long hi;
    bool seen;
} value_range;

static void range_add(value_range *r, long value)
{
    r->lo = r->seen && r->lo < value ? r->lo : value;
    r->hi = r->seen && r->hi > value ? r->hi : value;
    r->seen = true;
}

static bool ranges_differ(const value_range *a, const value_range *b)
{
    return a->lo != a->hi || b->lo != b->hi || a->lo != b->lo;
}

/* What one phase of one (host, matrix_n) gave in each program. */
typedef struct phase_side {
    double slowest_s;
    long members; /* distinct ranks or processes */
    long procs;   /* compute_ref's own count */
    value_range threads, warmup, reps;
} phase_side;

/* One row of one program; a new member when its rank or process was not
 * the previous row's (rows are sorted by phase, then rank or process). */
static void side_add(phase_side *s, bool new_member, double t_comp_s, long threads,
                     long warmup_steps, long reps)
{
    s->slowest_s = s->members ? fmax(s->slowest_s, t_comp_s) : t_comp_s;
    s->members += new_member;
    range_add(&s->threads, threads);
    range_add(&s->warmup, warmup_steps);
    range_add(&s->reps, reps);
}

static void passive_phases(const passive_row *const *rows, size_t n, phase_side *sides)
{
    for (size_t i = 0; i < n; i++) {
        const passive_row *r = rows[i];
        bool new_member = i == 0 || rows[i - 1]->phase != r->phase || rows[i - 1]->rank != r->rank;
        side_add(&sides[r->phase], new_member, r->t_comp_s, r->threads, r->warmup_steps, r->reps);
    }
}

static void ref_phases(const compute_ref_row *const *rows, size_t n, phase_side *sides)
{
    for (size_t i = 0; i < n; i++) {
        const compute_ref_row *r = rows[i];
        bool new_member = i == 0 || rows[i - 1]->phase != r->phase || rows[i - 1]->proc != r->proc;
        side_add(&sides[r->phase], new_member, r->t_comp_s, r->threads, r->warmup_steps, r->reps);
        sides[r->phase].procs = r->procs > sides[r->phase].procs ? r->procs : sides[r->phase].procs;
    }
}

/* One impact row from one (host, matrix_n) of each file; false when no
 * phase is in both. */
static bool impact_of(const passive_row *const *passive, size_t passive_n,
                      const compute_ref_row *const *refs, size_t ref_n, impact_row *row)
{
    phase_side mpi[PHASE_COUNT] = {{0}}, ref[PHASE_COUNT] = {{0}};
    passive_phases(passive, passive_n, mpi);
    ref_phases(refs, ref_n, ref);
    *row =
        (impact_row){.matrix_n = passive[0]->matrix_n, .comp_target_s = passive[0]->comp_target_s};
    snprintf(row->host, sizeof row->host, "%s", passive[0]->host);
    double passive_sum = 0, ref_sum = 0;
    int phases = 0;
    for (int p = 0; p < PHASE_COUNT; p++) {
        row->t_passive_phase_s[p] = NAN;
        row->t_ref_phase_s[p] = NAN;
        if (!mpi[p].members || !ref[p].members)
            continue;
        phases++;
        row->t_passive_phase_s[p] = mpi[p].slowest_s;
        row->t_ref_phase_s[p] = ref[p].slowest_s;
        passive_sum += mpi[p].slowest_s;
        ref_sum += ref[p].slowest_s;
        row->ranks = mpi[p].members > row->ranks ? mpi[p].members : row->ranks;
        row->procs = ref[p].procs > row->procs ? ref[p].procs : row->procs;
        if (ref[p].procs != mpi[p].members)
            row->warnings |= IMPACT_PROCS_DIFFER;
        if (ranges_differ(&mpi[p].threads, &ref[p].threads))
            row->warnings |= IMPACT_THREADS_DIFFER;
        if (ranges_differ(&mpi[p].warmup, &ref[p].warmup))
            row->warnings |= IMPACT_WARMUP_DIFFER;
        if (ranges_differ(&mpi[p].reps, &ref[p].reps))
            row->warnings |= IMPACT_REPS_DIFFER;
    }
    if (!phases)
        return false;
    row->t_comp_passive_mpi_s = passive_sum / phases;
    row->t_comp_ref_s = ref_sum / phases;
    row->r_mpi_impact = row->t_comp_passive_mpi_s / row->t_comp_ref_s; /* eq. 2 */
    return true;
}

int analysis_compute_impact(const run_inputs *in, impact_table *impact, analysis_error *err)
{
    *impact = (impact_table){0};
    size_t np = in->passive_count, nr = in->compute_ref_count, capacity = 0;
    const passive_row **passive = malloc((np ? np : 1) * sizeof *passive);
    const compute_ref_row **refs = malloc((nr ? nr : 1) * sizeof *refs);
    int status = passive && refs
                     ? ANALYSIS_OK
                     : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact)");
    for (size_t i = 0; status == ANALYSIS_OK && i < np; i++)
        passive[i] = &in->passive[i];
    for (size_t i = 0; status == ANALYSIS_OK && i < nr; i++)
        refs[i] = &in->compute_ref[i];
    if (status == ANALYSIS_OK) {
        qsort(passive, np, sizeof *passive, compare_passive);
        qsort(refs, nr, sizeof *refs, compare_ref);
    }
    size_t r = 0;
    for (size_t begin = 0; status == ANALYSIS_OK && begin < np;) {
        const passive_row *p = passive[begin];
        size_t end = begin + 1;
        while (end < np &&
               compare_key(passive[end]->host, passive[end]->matrix_n, p->host, p->matrix_n) == 0)
            end++;
        while (r < nr && compare_key(refs[r]->host, refs[r]->matrix_n, p->host, p->matrix_n) < 0)
            r++;
        size_t r_end = r;
        while (r_end < nr &&
               compare_key(refs[r_end]->host, refs[r_end]->matrix_n, p->host, p->matrix_n) == 0)
            r_end++;
        impact_row row;
        if (r_end == r) {
            analysis_warn("compute_ref.csv has no row for host %s, matrix_n %lld: no MPI impact "
                          "for it",
                          p->host, p->matrix_n);
        } else if (!impact_of(passive + begin, end - begin, refs + r, r_end - r, &row)) {
            analysis_warn("host %s, matrix_n %lld: passive.csv and compute_ref.csv have no phase "
                          "in common (before, after): no MPI impact for it",
                          p->host, p->matrix_n);
        } else {
            if (row.warnings) {
                char text[128];
                analysis_impact_warnings_text(row.warnings, text, sizeof text);
                analysis_warn("host %s, matrix_n %lld: compute_ref and the MPI run differ (%s: "
                              "%ld ranks, %ld processes): r_mpi_impact compares unlike steps",
                              row.host, row.matrix_n, text, row.ranks, row.procs);
            }
            status = analysis_grow((void **)&impact->rows, &capacity, impact->count,
                                   sizeof *impact->rows, err);
            if (status == ANALYSIS_OK)
                impact->rows[impact->count++] = row;
        }
        begin = end;
    }
    free(passive);
    free(refs);
    if (status != ANALYSIS_OK)
        analysis_impact_table_free(impact);
    return status;
}

void analysis_impact_table_free(impact_table *impact)
{
    free(impact->rows);
    *impact = (impact_table){0};
}
