/* analysis: metrics per cell (paper sections 3 and 4.1), diagnosis (section
 * 3.3) and MPI impact (section 3.2.1). */
#include "analysis/analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Names ------------------------------------------------------------------ */

static const char *const diagnosis_names[DIAG_COUNT] = {
    [DIAG_OVERLAP] = "overlap",
    [DIAG_NO_PROGRESS] = "no_progress",
    [DIAG_COMP_SLOWDOWN] = "comp_slowdown",
    [DIAG_CONTENTION] = "contention",
    [DIAG_NOISE] = "noise",
    [DIAG_INVALID] = "invalid",
};

const char *analysis_diagnosis_name(enum diagnosis diagnosis)
{
    return diagnosis < DIAG_COUNT ? diagnosis_names[diagnosis] : "?";
}

bool analysis_diagnosis_from_name(const char *name, enum diagnosis *diagnosis)
{
    for (int d = 0; d < DIAG_COUNT; d++) {
        if (strcmp(name, diagnosis_names[d]) == 0) {
            *diagnosis = (enum diagnosis)d;
            return true;
        }
    }
    return false;
}

static const struct {
    unsigned bit;
    const char *name;
} invalid_reason_names[] = {
    {INVALID_COMM_CALIBRATION, "comm_calibration"},
    {INVALID_COMP_CALIBRATION, "comp_calibration"},
    {INVALID_LATE_RETRIES, "late_retries"},
    {INVALID_NO_REPETITIONS, "no_repetitions"},
};

void analysis_invalid_reasons_text(unsigned reasons, char *out, size_t out_size)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof invalid_reason_names / sizeof *invalid_reason_names; i++) {
        if (!(reasons & invalid_reason_names[i].bit))
            continue;
        int n = snprintf(out + o, out_size - o, "%s%s", o ? "+" : "", invalid_reason_names[i].name);
        if (n < 0 || (size_t)n >= out_size - o)
            return;
        o += (size_t)n;
    }
    if (o == 0)
        snprintf(out, out_size, "none");
}

/* ---- Diagnosis --------------------------------------------------------------- */

diagnosis_thresholds analysis_default_thresholds(void)
{
    return (diagnosis_thresholds){
        /* r_overhead 0 is perfect overlap, 1 serialized (eq. 1): within 30 %
         * of perfect counts as overlapping. */
        .overlap_max_r_overhead = 0.3,
        /* r_comm ~ 0 means the collective progressed during the computation,
         * ~ 1 that it was all done in the calls (eq. 4, section 3.3.1). */
        .progressed_max_r_comm = 0.3,
        /* GEMM steps repeat within a few percent; 10 % slower is a slowdown. */
        .slowed_min_r_comp_slowdown = 1.1,
        /* ... or when the extra computation time explains half the overhead
         * (a 5 % slower 1 s step next to a 10 ms collective is r_overhead 5). */
        .slowed_min_share_of_overhead = 0.5,
        /* section 3.3.3: slowed computation and communication not hidden. */
        .contention_min_r_comm = 0.7,
        /* the spread (IQR) must stay below the effect it would blur: the
         * distance from perfect overlap, and never less than half the
         * overlap-to-serialized distance. */
        .noise_min_effect = 0.5,
        /* a repetition may be retried once on average (late rank at the
         * window barrier); more means the clocks or the machine misbehaved. */
        .late_retries_max_per_rep = 1.0,
    };
}

typedef bool (*diagnosis_rule_fn)(const cell_metrics *cell, const diagnosis_thresholds *th);

static bool rule_invalid(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    (void)th;
    return !cell->valid || isnan(cell->r_overhead);
}

static bool rule_spread_exceeds_effect(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    return cell->r_overhead_iqr > fmax(fabs(cell->r_overhead), th->noise_min_effect);
}

static bool rule_overlap(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    return cell->r_overhead <= th->overlap_max_r_overhead;
}

/* The computation is slowed (eq. 3), or its extra time explains most of the
 * overhead (it is measured in units of the shorter reference, eq. 1). */
static bool computation_slowed(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    if (cell->r_comp_slowdown >= th->slowed_min_r_comp_slowdown)
        return true;
    double extra_in_overhead_units =
        (cell->t_comp - cell->t_comp_ref) / fmin(cell->t_comm_ref, cell->t_comp_ref);
    return extra_in_overhead_units >= th->slowed_min_share_of_overhead * cell->r_overhead;
}

static bool rule_contention(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    return computation_slowed(cell, th) && cell->r_comm >= th->contention_min_r_comm;
}

static bool rule_not_progressed(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    return cell->r_comm > th->progressed_max_r_comm;
}

static bool rule_always(const cell_metrics *cell, const diagnosis_thresholds *th)
{
    (void)cell;
    (void)th;
    return true;
}

/* First match wins; README.md lists the same table. */
static const struct {
    enum diagnosis diagnosis;
    diagnosis_rule_fn applies;
} diagnosis_rules[] = {
    {DIAG_INVALID, rule_invalid},
    {DIAG_NOISE, rule_spread_exceeds_effect},
    {DIAG_OVERLAP, rule_overlap},
    {DIAG_CONTENTION, rule_contention},
    {DIAG_COMP_SLOWDOWN, computation_slowed},
    {DIAG_NO_PROGRESS, rule_not_progressed},
    /* overhead that neither ratio explains: skew between ranks or unstable
     * references, so the cell's number is not to be trusted */
    {DIAG_NOISE, rule_always},
};

enum diagnosis analysis_diagnose(const cell_metrics *cell, const diagnosis_thresholds *thresholds)
{
    for (size_t i = 0; i < sizeof diagnosis_rules / sizeof *diagnosis_rules; i++)
        if (diagnosis_rules[i].applies(cell, thresholds))
            return diagnosis_rules[i].diagnosis;
    return DIAG_NOISE;
}

/* ---- Cells ------------------------------------------------------------------- */

/* to_ns - from_ns in seconds. raw.csv may hold any int64 times, whose
 * difference need not fit an int64_t: the magnitude is taken unsigned. */
static double ns_between_s(int64_t from_ns, int64_t to_ns)
{
    if (to_ns >= from_ns)
        return (double)((uint64_t)to_ns - (uint64_t)from_ns) * 1e-9;
    return -(double)((uint64_t)from_ns - (uint64_t)to_ns) * 1e-9;
}

/* Per-repetition values of one cell, one array entry per repetition. */
typedef struct cell_series {
    double *comm_spans;
    size_t comm_count;
    double *comp_spans;
    size_t comp_count;
    double *measured; /* overlap spans, section 4.1 */
    double *call;     /* on the rank that finished last */
    double *comp;
    double *wait;
    double *start_skew; /* last minus first rank into the collective */
    long *deciding_rank;
    size_t overlap_count;
    double *scratch;
    size_t dropped; /* repetitions that lacked some rank */
} cell_series;

static int series_alloc(cell_series *s, size_t rows, analysis_error *err)
{
    *s = (cell_series){0};
    size_t n = rows ? rows : 1;
    s->comm_spans = malloc(n * sizeof(double));
    s->comp_spans = malloc(n * sizeof(double));
    s->measured = malloc(n * sizeof(double));
    s->call = malloc(n * sizeof(double));
    s->comp = malloc(n * sizeof(double));
    s->wait = malloc(n * sizeof(double));
    s->scratch = malloc(n * sizeof(double));
    s->start_skew = malloc(n * sizeof(double));
    s->deciding_rank = malloc(n * sizeof(long));
    if (!s->comm_spans || !s->comp_spans || !s->measured || !s->call || !s->comp || !s->wait ||
        !s->scratch || !s->start_skew || !s->deciding_rank)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu rows in a cell)", rows);
    return ANALYSIS_OK;
}

static void series_free(cell_series *s)
{
    free(s->comm_spans);
    free(s->comp_spans);
    free(s->measured);
    free(s->call);
    free(s->comp);
    free(s->wait);
    free(s->scratch);
    free(s->start_skew);
    free(s->deciding_rank);
}

/* One repetition of one kind, all ranks: spans per section 4.1. */
static void series_add_group(cell_series *s, const raw_row *rows, size_t n)
{
    int64_t first_start = rows[0].t_ns[0], last_start = rows[0].t_ns[0], last_end = rows[0].t_ns[3];
    int64_t first_comp_start = rows[0].t_ns[1], last_comp_end = rows[0].t_ns[2];
    size_t last = 0;
    for (size_t i = 1; i < n; i++) {
        const int64_t *t = rows[i].t_ns;
        first_start = t[0] < first_start ? t[0] : first_start;
        last_start = t[0] > last_start ? t[0] : last_start;
        first_comp_start = t[1] < first_comp_start ? t[1] : first_comp_start;
        last_comp_end = t[2] > last_comp_end ? t[2] : last_comp_end;
        if (t[3] > last_end) {
            last_end = t[3];
            last = i;
        }
    }
    switch (rows[0].kind) {
    case RAW_KIND_COMM_REF:
        s->comm_spans[s->comm_count++] = ns_between_s(first_start, last_end);
        break;
    case RAW_KIND_COMP_REF:
        s->comp_spans[s->comp_count++] = ns_between_s(first_comp_start, last_comp_end);
        break;
    case RAW_KIND_OVERLAP: {
        /* the rank whose overlap ends last decides performance */
        const int64_t *t = rows[last].t_ns;
        size_t k = s->overlap_count++;
        s->measured[k] = ns_between_s(first_start, last_end);
        s->call[k] = ns_between_s(t[0], t[1]);
        s->comp[k] = ns_between_s(t[1], t[2]);
        s->wait[k] = ns_between_s(t[2], t[3]);
        s->deciding_rank[k] = rows[last].rank;
        s->start_skew[k] = ns_between_s(first_start, last_start);
        break;
    }
    case RAW_KIND_COUNT:
        break;
    }
}

static double median_of(double *scratch, const double *values, size_t n)
{
    memcpy(scratch, values, n * sizeof *values);
    return stats_median(scratch, n);
}

/* Medians across repetitions of the per-repetition ratios. */
static void cell_ratios(cell_metrics *cell, const cell_series *s)
{
    size_t n = s->overlap_count;
    double *v = s->scratch;
    double comm_ref = cell->t_comm_ref, comp_ref = cell->t_comp_ref;
    double longer = fmax(comm_ref, comp_ref), shorter = fmin(comm_ref, comp_ref);

    cell->t_measured = median_of(v, s->measured, n);
    cell->t_call = median_of(v, s->call, n);
    cell->t_comp = median_of(v, s->comp, n);
    cell->t_wait = median_of(v, s->wait, n);
    cell->start_skew_s = median_of(v, s->start_skew, n);

    for (size_t i = 0; i < n; i++) /* eq. 1 */
        v[i] = (s->measured[i] - longer) / shorter;
    stats_sort(v, n);
    cell->r_overhead = stats_quantile_sorted(v, n, 0.5);
    cell->r_overhead_iqr = stats_quantile_sorted(v, n, 0.75) - stats_quantile_sorted(v, n, 0.25);

    for (size_t i = 0; i < n; i++) /* eq. 4 */
        v[i] = (s->call[i] + s->wait[i]) / comm_ref;
    cell->r_comm = stats_median(v, n);

    for (size_t i = 0; i < n; i++) /* eq. 3 */
        v[i] = s->comp[i] / comp_ref;
    cell->r_comp_slowdown = stats_median(v, n);

    /* OSU (osu_util.c, print_stats_nbc): max(0, 100 - 100 (t_overall -
     * t_cpu) / t_pure), t_cpu the computation timed inside the overlap loop. */
    for (size_t i = 0; i < n; i++)
        v[i] = fmax(0.0, 100.0 * (1.0 - (s->measured[i] - s->comp[i]) / comm_ref));
    cell->overlap_osu_pct = stats_median(v, n);

    /* IMB-NBC (IMB_output.c, IMB_display_times, NBC branch): 100 max(0,
     * min(1, (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU))), t_CPU the
     * computation timed inside the overlap loop. */
    for (size_t i = 0; i < n; i++) {
        double ratio = (comm_ref + s->comp[i] - s->measured[i]) / fmax(comm_ref, s->comp[i]);
        v[i] = 100.0 * fmax(0.0, fmin(1.0, ratio));
    }
    cell->overlap_imb_pct = stats_median(v, n);
}

static const calib_comm_row *find_calib_comm(const run_inputs *in, const raw_cell *cell)
{
    for (size_t i = 0; i < in->calib_comm_count; i++)
        if (strcmp(in->calib_comm[i].collective, cell->collective) == 0 &&
            analysis_same_target(in->calib_comm[i].comm_target_s, cell->comm_target_s))
            return &in->calib_comm[i];
    return NULL;
}

static const calib_comp_row *find_calib_comp(const run_inputs *in, const raw_cell *cell)
{
    for (size_t i = 0; i < in->calib_comp_count; i++)
        if (analysis_same_target(in->calib_comp[i].comp_target_s, cell->comp_target_s))
            return &in->calib_comp[i];
    return NULL;
}

static unsigned calibration_reasons(const run_inputs *in, const raw_cell *cell)
{
    unsigned reasons = 0;
    if (in->have_calib_comm) {
        const calib_comm_row *comm = find_calib_comm(in, cell);
        if (!comm)
            analysis_warn("cell %ld: calib_comm.csv has no row for %s at %g s: cell invalid",
                          cell->cell, cell->collective, cell->comm_target_s);
        if (!comm || !comm->converged || comm->bytes == 0)
            reasons |= INVALID_COMM_CALIBRATION;
    }
    if (in->have_calib_comp) {
        const calib_comp_row *comp = find_calib_comp(in, cell);
        if (!comp)
            analysis_warn("cell %ld: calib_comp.csv has no row for %g s: cell invalid", cell->cell,
                          cell->comp_target_s);
        if (!comp || !comp->converged)
            reasons |= INVALID_COMP_CALIBRATION;
    }
    return reasons;
}

static int compare_rows_by_rank(const void *a, const void *b)
{
    const raw_row *x = *(const raw_row *const *)a, *y = *(const raw_row *const *)b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->rep > y->rep) - (x->rep < y->rep);
}

/* cells_by_rank.csv rows of one cell: each rank's own durations. */
static int rank_rows(const raw_row *rows, size_t n, size_t cell_index, const cell_series *s,
                     cell_table *out, size_t *rank_capacity, analysis_error *err)
{
    const raw_row **by_rank = malloc(n * sizeof *by_rank);
    double *values[7];
    bool ok = by_rank != NULL;
    for (int k = 0; k < 7; k++) {
        values[k] = malloc(n * sizeof(double));
        ok = ok && values[k];
    }
    int status = ok ? ANALYSIS_OK
                    : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (ranks of a cell)");
    enum { COMM, COMPREF, MEASURED, CALL, COMP, WAIT, MPI_TIME };
    for (size_t i = 0; ok && i < n; i++)
        by_rank[i] = &rows[i];
    if (ok)
        qsort(by_rank, n, sizeof *by_rank, compare_rows_by_rank);
    for (size_t begin = 0; status == ANALYSIS_OK && begin < n;) {
        size_t end = begin, count[7] = {0};
        long rank = by_rank[begin]->rank;
        for (; end < n && by_rank[end]->rank == rank; end++) {
            const raw_row *r = by_rank[end];
            const int64_t *t = r->t_ns;
            if (r->kind == RAW_KIND_COMM_REF) {
                values[COMM][count[COMM]++] = ns_between_s(t[0], t[3]);
            } else if (r->kind == RAW_KIND_COMP_REF) {
                values[COMPREF][count[COMPREF]++] = ns_between_s(t[1], t[2]);
            } else {
                values[MEASURED][count[MEASURED]++] = ns_between_s(t[0], t[3]);
                values[CALL][count[CALL]++] = ns_between_s(t[0], t[1]);
                values[COMP][count[COMP]++] = ns_between_s(t[1], t[2]);
                values[WAIT][count[WAIT]++] = ns_between_s(t[2], t[3]);
                values[MPI_TIME][count[MPI_TIME]++] =
                    ns_between_s(t[0], t[1]) + ns_between_s(t[2], t[3]);
            }
        }
        rank_metrics m = {.cell_index = cell_index, .rank = rank, .reps = (long)count[MEASURED]};
        m.t_comm_ref = count[COMM] ? stats_median(values[COMM], count[COMM]) : NAN;
        m.t_comp_ref = count[COMPREF] ? stats_median(values[COMPREF], count[COMPREF]) : NAN;
        m.t_measured = stats_median(values[MEASURED], count[MEASURED]);
        m.t_call = stats_median(values[CALL], count[CALL]);
        m.t_comp = stats_median(values[COMP], count[COMP]);
        m.t_wait = stats_median(values[WAIT], count[WAIT]);
        for (size_t i = 0; i < count[MPI_TIME]; i++) /* eq. 4 with the rank's own reference */
            values[MPI_TIME][i] /= m.t_comm_ref;
        m.r_comm = m.t_comm_ref > 0 ? stats_median(values[MPI_TIME], count[MPI_TIME]) : NAN;
        m.r_comp_slowdown = m.t_comp_ref > 0 ? m.t_comp / m.t_comp_ref : NAN; /* eq. 3 */
        for (size_t i = 0; i < s->overlap_count; i++)
            m.deciding_reps += s->deciding_rank[i] == rank;
        status = analysis_grow((void **)&out->ranks, rank_capacity, out->rank_count,
                               sizeof *out->ranks, err);
        if (status == ANALYSIS_OK)
            out->ranks[out->rank_count++] = m;
        begin = end;
    }
    free(by_rank);
    for (int k = 0; k < 7; k++)
        free(values[k]);
    return status;
}

static long most_ranks_in_a_repetition(const raw_row *rows, size_t n)
{
    /* rows are sorted by (kind, rep, rank): the largest group has them all */
    long most = 0;
    for (size_t begin = 0; begin < n;) {
        size_t end = begin + 1;
        while (end < n && rows[end].kind == rows[begin].kind && rows[end].rep == rows[begin].rep)
            end++;
        most = (long)(end - begin) > most ? (long)(end - begin) : most;
        begin = end;
    }
    return most;
}

static int compute_cell(const run_inputs *in, size_t cell_index, const raw_row *rows, size_t n,
                        long expected_ranks, const diagnosis_thresholds *th, cell_table *out,
                        size_t *rank_capacity, analysis_error *err)
{
    const raw_cell *raw = &in->raw.cells[cell_index];
    cell_metrics *cell = &out->cells[cell_index];
    *cell = (cell_metrics){
        .cell = raw->cell,
        .comm_target_s = raw->comm_target_s,
        .comp_target_s = raw->comp_target_s,
        .bytes = raw->bytes,
        .matrix_n = raw->matrix_n,
        .t_comm_ref = NAN,
        .t_comp_ref = NAN,
        .t_measured = NAN,
        .t_call = NAN,
        .t_comp = NAN,
        .t_wait = NAN,
        .r_overhead = NAN,
        .r_comm = NAN,
        .r_comp_slowdown = NAN,
        .r_overhead_iqr = NAN,
        .overlap_osu_pct = NAN,
        .overlap_imb_pct = NAN,
        .start_skew_s = NAN,
    };
    memcpy(cell->collective, raw->collective, sizeof cell->collective);

    cell_series s;
    int status = series_alloc(&s, n, err);
    long rank0_rows = 0;
    for (size_t begin = 0; status == ANALYSIS_OK && begin < n;) {
        size_t end = begin + 1;
        while (end < n && rows[end].kind == rows[begin].kind && rows[end].rep == rows[begin].rep)
            end++;
        if ((long)(end - begin) < expected_ranks)
            s.dropped++; /* a span without every rank is not the collective's */
        else
            series_add_group(&s, rows + begin, end - begin);
        begin = end;
    }
    for (size_t i = 0; i < n; i++) {
        if (rows[i].rank == 0) {
            cell->late_retries += rows[i].retries;
            rank0_rows++;
        }
    }
    if (status != ANALYSIS_OK) {
        series_free(&s);
        return status;
    }
    if (s.dropped)
        analysis_warn("cell %ld: %zu repetition(s) without all %ld ranks left out", raw->cell,
                      s.dropped, expected_ranks);
    cell->reps = (long)s.overlap_count;
    cell->ranks = most_ranks_in_a_repetition(rows, n);
    cell->invalid_reasons = calibration_reasons(in, raw);
    if ((double)cell->late_retries > th->late_retries_max_per_rep * (double)rank0_rows)
        cell->invalid_reasons |= INVALID_LATE_RETRIES;

    if (s.comm_count)
        cell->t_comm_ref = median_of(s.scratch, s.comm_spans, s.comm_count);
    if (s.comp_count)
        cell->t_comp_ref = median_of(s.scratch, s.comp_spans, s.comp_count);
    if (s.overlap_count && cell->t_comm_ref > 0 && cell->t_comp_ref > 0)
        cell_ratios(cell, &s);
    else
        cell->invalid_reasons |= INVALID_NO_REPETITIONS;
    cell->valid = cell->invalid_reasons == 0;
    cell->diagnosis = analysis_diagnose(cell, th);

    status = rank_rows(rows, n, cell_index, &s, out, rank_capacity, err);
    series_free(&s);
    return status;
}

int analysis_compute_cells(const run_inputs *in, const diagnosis_thresholds *thresholds,
                           cell_table *out, analysis_error *err)
{
    const raw_table *raw = &in->raw;
    *out = (cell_table){0};
    out->cells = calloc(raw->cell_count ? raw->cell_count : 1, sizeof *out->cells);
    if (!out->cells)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)",
                             raw->cell_count);
    out->count = raw->cell_count;

    /* every repetition should carry every rank of the run */
    long expected_ranks = in->meta.ranks;
    if (expected_ranks <= 0) {
        for (size_t begin = 0; begin < raw->row_count;) {
            size_t end = begin + 1;
            while (end < raw->row_count && raw->rows[end].cell_index == raw->rows[begin].cell_index)
                end++;
            long ranks = most_ranks_in_a_repetition(raw->rows + begin, end - begin);
            expected_ranks = ranks > expected_ranks ? ranks : expected_ranks;
            begin = end;
        }
    }

    size_t rank_capacity = 0;
    int status = ANALYSIS_OK;
    size_t begin = 0;
    for (size_t c = 0; status == ANALYSIS_OK && c < raw->cell_count; c++) {
        size_t end = begin;
        while (end < raw->row_count && raw->rows[end].cell_index == c)
            end++;
        status = compute_cell(in, c, raw->rows + begin, end - begin, expected_ranks, thresholds,
                              out, &rank_capacity, err);
        begin = end;
    }
    if (status != ANALYSIS_OK)
        analysis_cell_table_free(out);
    return status;
}

void analysis_cell_table_free(cell_table *cells)
{
    free(cells->cells);
    free(cells->ranks);
    *cells = (cell_table){0};
}

/* ---- MPI impact (eq. 2) ------------------------------------------------------- */

static int compare_impact(const void *a, const void *b)
{
    const impact_row *x = a, *y = b;
    int by_host = strcmp(x->host, y->host);
    if (by_host != 0)
        return by_host;
    return (x->matrix_n > y->matrix_n) - (x->matrix_n < y->matrix_n);
}

int analysis_compute_impact(const run_inputs *in, impact_table *impact, analysis_error *err)
{
    *impact = (impact_table){0};
    size_t n = in->passive_count, capacity = 0;
    double *refs = malloc((in->compute_ref_count ? in->compute_ref_count : 1) * sizeof *refs);
    bool *done = calloc(n ? n : 1, sizeof *done);
    int status = refs && done ? ANALYSIS_OK
                              : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact)");
    for (size_t i = 0; status == ANALYSIS_OK && i < n; i++) {
        if (done[i])
            continue;
        const passive_row *p = &in->passive[i];
        /* the host's slowest rank, as the slowest thread defines a step */
        impact_row row = {.matrix_n = p->matrix_n, .comp_target_s = p->comp_target_s};
        memcpy(row.host, p->host, sizeof row.host);
        row.t_comp_passive_mpi_s = p->t_comp_s;
        for (size_t j = i; j < n; j++) {
            const passive_row *q = &in->passive[j];
            if (!done[j] && q->matrix_n == p->matrix_n && strcmp(q->host, p->host) == 0) {
                done[j] = true;
                row.t_comp_passive_mpi_s = fmax(row.t_comp_passive_mpi_s, q->t_comp_s);
            }
        }
        size_t ref_count = 0;
        bool threads_differ = false;
        for (size_t j = 0; j < in->compute_ref_count; j++) {
            const compute_ref_row *r = &in->compute_ref[j];
            if (r->matrix_n == p->matrix_n && strcmp(r->host, p->host) == 0) {
                refs[ref_count++] = r->t_comp_s;
                threads_differ = threads_differ || r->threads != p->threads;
            }
        }
        if (ref_count == 0) {
            analysis_warn("compute_ref.csv has no row for host %s, matrix_n %lld: no MPI impact "
                          "for it",
                          p->host, p->matrix_n);
            continue;
        }
        if (threads_differ)
            analysis_warn("host %s, matrix_n %lld: compute_ref ran with another thread count "
                          "than the MPI run (%ld): r_mpi_impact compares unlike runs",
                          p->host, p->matrix_n, p->threads);
        row.t_comp_ref_s = stats_median(refs, ref_count);
        row.r_mpi_impact = row.t_comp_passive_mpi_s / row.t_comp_ref_s;
        status = analysis_grow((void **)&impact->rows, &capacity, impact->count,
                               sizeof *impact->rows, err);
        if (status == ANALYSIS_OK)
            impact->rows[impact->count++] = row;
    }
    free(refs);
    free(done);
    if (status != ANALYSIS_OK) {
        analysis_impact_table_free(impact);
        return status;
    }
    if (impact->count > 1)
        qsort(impact->rows, impact->count, sizeof *impact->rows, compare_impact);
    return ANALYSIS_OK;
}

void analysis_impact_table_free(impact_table *impact)
{
    free(impact->rows);
    *impact = (impact_table){0};
}
