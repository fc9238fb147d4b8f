/* analysis: metrics per cell (paper sections 3 and 4.1) from the kept
 * attempts of raw.csv, and the grid cells raw.csv lacks. README.md, "How the
 * metrics are computed", is the specification of this file. */
#include "analysis/analysis_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* to_ns - from_ns in seconds. raw.csv may hold any int64 times, whose
 * difference need not fit an int64_t: the magnitude is taken unsigned. */
static double ns_between_s(int64_t from_ns, int64_t to_ns)
{
    if (to_ns >= from_ns)
        return (double)((uint64_t)to_ns - (uint64_t)from_ns) * 1e-9;
    return -(double)((uint64_t)from_ns - (uint64_t)to_ns) * 1e-9;
}

/* ---- Attempts and blocks ------------------------------------------------------ */

/* The rows of one attempt: one (block, kind, attempt), sorted by rank. */
typedef struct attempt {
    const raw_row *rows;
    size_t n;
} attempt;

/* How attempts are judged (README.md, "Lateness"): by the driver's `late`
 * column, or again against another tolerance. */
typedef struct lateness_judge {
    bool again;
    double tolerance_ns;
} lateness_judge;

/* The lateness the driver judged an attempt on (clocksync_settle_attempt):
 * the latest exit from the window barrier, or the start skew when it is
 * larger (recorded by raw.csv's start_skew_ns; -1, never larger, in older
 * files). */
static int64_t attempt_exit_late_ns(const attempt *a)
{
    int64_t most = 0;
    for (size_t i = 0; i < a->n; i++) {
        most = a->rows[i].exit_late_ns > most ? a->rows[i].exit_late_ns : most;
        most = a->rows[i].start_skew_ns > most ? a->rows[i].start_skew_ns : most;
    }
    return most;
}

/* A warm-up attempt is never used; its verdict only tells whether the
 * driver gave up on the cell there, so it stays the driver's. */
static bool attempt_late(const attempt *a, const lateness_judge *judge)
{
    if (!judge->again || a->rows[0].role == RAW_ROLE_WARMUP)
        return a->rows[0].late;
    return (double)attempt_exit_late_ns(a) > judge->tolerance_ns;
}

/* One usable measured block: the statistics of its kept attempts. "local":
 * one rank's own duration; "slowest local": the largest over ranks. */
typedef struct block_stats {
    double comm_span;          /* comm_ref: max(t4) - min(t1), section 4.1 */
    double comp_span;          /* comp_ref: max(t3) - min(t2) */
    double measured_span;      /* overlap: max(t4) - min(t1) */
    double comm_local;         /* comm_ref: slowest local t4 - t1 */
    double comp_local;         /* comp_ref: slowest local t3 - t2 */
    double mpi_local;          /* overlap: slowest local (t2 - t1) + (t4 - t3) */
    double comp_of_mpi_rank;   /* ... its t3 - t2 */
    int64_t last_arrival_ns;   /* overlap: max(t3), the last rank's arrival at the wait */
    double mpi_from_last;      /* overlap: slowest (t2 - t1) + max(0, t4 - max(t3)) */
    double call;               /* ... its t2 - t1 */
    double wait;               /* ... its max(0, t4 - max(t3)) */
    double comp_overlap_local; /* overlap: slowest local t3 - t2 */
    double measured_local;     /* overlap: slowest local t4 - t1 */
    double start_skew;         /* overlap: max(t1) - min(t1) */
    long deciding_rank;        /* overlap: the rank that ends last */
    /* the null controls' slowest local times, NAN when the block has none */
    double null_local[NULL_PAIR_COUNT];
} block_stats;

static void reference_stats(const attempt *a, int first, int last, double *span, double *local)
{
    int64_t start = a->rows[0].t_ns[first], end = a->rows[0].t_ns[last];
    *local = 0;
    for (size_t i = 0; i < a->n; i++) {
        const int64_t *t = a->rows[i].t_ns;
        start = t[first] < start ? t[first] : start;
        end = t[last] > end ? t[last] : end;
        *local = fmax(*local, ns_between_s(t[first], t[last]));
    }
    *span = ns_between_s(start, end);
}

/* A null control is timed as its reference: comm_null t1 to t4, comp_null
 * t2 to t3. Used when kept with every rank. */
static double null_local_of(const attempt *a, int first, int last, long expected_ranks)
{
    double span, local;
    if (!a->rows || (long)a->n < expected_ranks)
        return NAN;
    reference_stats(a, first, last, &span, &local);
    return local;
}

static block_stats block_of(const attempt kept[RAW_KIND_COUNT], long expected_ranks)
{
    block_stats b = {0};
    reference_stats(&kept[RAW_KIND_COMM_REF], 0, 3, &b.comm_span, &b.comm_local);
    reference_stats(&kept[RAW_KIND_COMP_REF], 1, 2, &b.comp_span, &b.comp_local);
    b.null_local[NULL_COMM] = null_local_of(&kept[RAW_KIND_COMM_NULL], 0, 3, expected_ranks);
    b.null_local[NULL_COMP] = null_local_of(&kept[RAW_KIND_COMP_NULL], 1, 2, expected_ranks);
    const attempt *o = &kept[RAW_KIND_OVERLAP];
    reference_stats(o, 0, 3, &b.measured_span, &b.measured_local);
    int64_t first_start = o->rows[0].t_ns[0], last_start = first_start;
    int64_t last_end = o->rows[0].t_ns[3], last_arrival = o->rows[0].t_ns[2];
    for (size_t i = 0; i < o->n; i++)
        last_arrival = o->rows[i].t_ns[2] > last_arrival ? o->rows[i].t_ns[2] : last_arrival;
    b.last_arrival_ns = last_arrival;
    b.deciding_rank = o->rows[0].rank;
    b.mpi_local = b.mpi_from_last = -1;
    for (size_t i = 0; i < o->n; i++) {
        const int64_t *t = o->rows[i].t_ns;
        first_start = t[0] < first_start ? t[0] : first_start;
        last_start = t[0] > last_start ? t[0] : last_start;
        if (t[3] > last_end) {
            last_end = t[3];
            b.deciding_rank = o->rows[i].rank;
        }
        double call = ns_between_s(t[0], t[1]), wait = ns_between_s(t[2], t[3]);
        if (call + wait > b.mpi_local) {
            b.mpi_local = call + wait;
            b.comp_of_mpi_rank = ns_between_s(t[1], t[2]);
        }
        /* The collective cannot end before its last rank calls the wait
         * (without progress): a rank's wait before that is the others'
         * computation. A rank whose wait ended before the last arrival
         * (the collective done without it) waited for none of it. */
        double wait_from_last = fmax(0.0, ns_between_s(last_arrival, t[3]));
        if (call + wait_from_last > b.mpi_from_last) {
            b.mpi_from_last = call + wait_from_last;
            b.call = call;
            b.wait = wait_from_last;
        }
        b.comp_overlap_local = fmax(b.comp_overlap_local, ns_between_s(t[1], t[2]));
    }
    b.start_skew = ns_between_s(first_start, last_start);
    return b;
}

/* What the attempts of one cell gave. */
typedef struct cell_work {
    block_stats *blocks; /* usable measured blocks */
    long *block_numbers;
    attempt (*kept)[RAW_KIND_COUNT];
    size_t block_count;
    long attempts;      /* of measured blocks */
    long late_attempts; /* of them, judged late */
    int64_t driver_tolerance_ns;
    size_t late_blocks;       /* a kind without an attempt on time */
    size_t incomplete_blocks; /* a kind without any attempt (the driver stopped) */
    size_t short_blocks;      /* a kept attempt without every rank */
    bool warmup_late;         /* the driver gave up in the warm-up */
    long ranks;               /* most ranks in an attempt */
    long flag_disagreements;  /* late flag against max(exit_late, start_skew) > tolerance */
} cell_work;

static void work_free(cell_work *w)
{
    free(w->blocks);
    free(w->block_numbers);
    free(w->kept);
}

static size_t attempt_end(const raw_row *rows, size_t begin, size_t end)
{
    size_t e = begin + 1;
    while (e < end && rows[e].kind == rows[begin].kind && rows[e].attempt == rows[begin].attempt)
        e++;
    return e;
}

/* The pass of a block whose attempts are kept (README.md, "Blocks and
 * attempts"): the driver redoes a whole block after a late attempt, each
 * pass numbered one more, so the kept pass is the first from which every
 * kind tried has an attempt on time, the largest over kinds of the number
 * of their first attempt on time. */
static long kept_pass(const raw_row *rows, size_t begin, size_t end, const lateness_judge *judge)
{
    long first_on_time[RAW_KIND_COUNT], pass = 0;
    for (int kind = 0; kind < RAW_KIND_COUNT; kind++)
        first_on_time[kind] = -1;
    for (size_t k = begin; k < end;) {
        size_t e = attempt_end(rows, k, end);
        attempt a = {rows + k, e - k};
        if (first_on_time[rows[k].kind] < 0 && !attempt_late(&a, judge))
            first_on_time[rows[k].kind] = rows[k].attempt;
        k = e;
    }
    for (int kind = 0; kind < RAW_KIND_COUNT; kind++)
        pass = first_on_time[kind] > pass ? first_on_time[kind] : pass;
    return pass;
}

/* One block's attempts, rows[begin..end): per kind, the first attempt judged
 * on time in the kept pass or after it; a kind with no attempt that far (a
 * file whose driver redid a late kind alone) keeps its first on time. */
static void add_block(cell_work *w, const raw_row *rows, size_t begin, size_t end,
                      const lateness_judge *judge, long expected_ranks)
{
    attempt kept[RAW_KIND_COUNT] = {{0}}, first[RAW_KIND_COUNT] = {{0}};
    bool tried[RAW_KIND_COUNT] = {false}, reaches_pass[RAW_KIND_COUNT] = {false};
    bool measured = rows[begin].role == RAW_ROLE_MEASURE;
    long pass = kept_pass(rows, begin, end, judge);
    for (size_t k = begin; k < end;) {
        size_t e = attempt_end(rows, k, end);
        attempt a = {rows + k, e - k};
        enum raw_kind kind = rows[k].kind;
        bool late = attempt_late(&a, judge);
        bool by_values = attempt_exit_late_ns(&a) > rows[k].tolerance_ns;
        w->flag_disagreements += by_values != rows[k].late;
        w->ranks = (long)a.n > w->ranks ? (long)a.n : w->ranks;
        tried[kind] = true;
        if (measured) {
            w->attempts++;
            w->late_attempts += late;
            w->driver_tolerance_ns = rows[k].tolerance_ns > w->driver_tolerance_ns
                                         ? rows[k].tolerance_ns
                                         : w->driver_tolerance_ns;
        }
        reaches_pass[kind] = reaches_pass[kind] || rows[k].attempt >= pass;
        if (!late && !first[kind].rows)
            first[kind] = a;
        if (!late && !kept[kind].rows && rows[k].attempt >= pass)
            kept[kind] = a;
        k = e;
    }
    for (int kind = 0; kind < RAW_KIND_COUNT; kind++)
        if (!reaches_pass[kind])
            kept[kind] = first[kind];
    /* Every kind tried must have an attempt on time (the driver gives up on
     * a cell when one has none, null controls included); the three kinds of
     * the metrics must be there with every rank. */
    bool no_kept = false, missing = false, short_of_ranks = false;
    for (int kind = 0; kind < RAW_KIND_COUNT; kind++)
        no_kept = no_kept || (tried[kind] && !kept[kind].rows);
    for (int kind = 0; kind < RAW_KIND_MAIN_COUNT; kind++) {
        missing = missing || !tried[kind];
        short_of_ranks = short_of_ranks || (kept[kind].rows && (long)kept[kind].n < expected_ranks);
    }
    if (!measured) {
        w->warmup_late = w->warmup_late || no_kept;
    } else if (no_kept) {
        w->late_blocks++;
    } else if (missing) {
        w->incomplete_blocks++;
    } else if (short_of_ranks) {
        w->short_blocks++; /* a span without every rank is not the collective's */
    } else {
        w->blocks[w->block_count] = block_of(kept, expected_ranks);
        w->block_numbers[w->block_count] = rows[begin].block;
        memcpy(w->kept[w->block_count], kept, sizeof kept);
        w->block_count++;
    }
}

static int collect_blocks(const raw_row *rows, size_t n, const lateness_judge *judge,
                          long expected_ranks, cell_work *w, analysis_error *err)
{
    *w = (cell_work){0};
    size_t capacity = 1;
    for (size_t i = 1; i < n; i++)
        capacity += rows[i].block != rows[i - 1].block;
    w->blocks = malloc(capacity * sizeof *w->blocks);
    w->block_numbers = malloc(capacity * sizeof *w->block_numbers);
    w->kept = malloc(capacity * sizeof *w->kept);
    if (!w->blocks || !w->block_numbers || !w->kept) {
        work_free(w);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu blocks)", capacity);
    }
    for (size_t begin = 0; begin < n;) {
        size_t end = begin + 1;
        while (end < n && rows[end].block == rows[begin].block)
            end++;
        add_block(w, rows, begin, end, judge, expected_ranks);
        begin = end;
    }
    return ANALYSIS_OK;
}

/* ---- Cell metrics ------------------------------------------------------------- */

/* The median over usable blocks of one field of block_stats. */
static double median_field(const cell_work *w, size_t offset, double *scratch)
{
    for (size_t i = 0; i < w->block_count; i++)
        scratch[i] = *(const double *)((const char *)&w->blocks[i] + offset);
    return stats_median(scratch, w->block_count);
}
#define MEDIAN_OF(w, field, scratch) median_field(w, offsetof(block_stats, field), scratch)

/* The per-block statistics of a cell as series (intervals.c), and the null
 * pairs over the blocks holding both: values holds SERIES_COUNT + 4 arrays
 * of block_count values. */
static void cell_series_of(const cell_work *w, double *values, cell_series *s)
{
    size_t n = w->block_count;
    static const size_t offsets[SERIES_COUNT] = {
        [SERIES_COMM_SPAN] = offsetof(block_stats, comm_span),
        [SERIES_COMP_SPAN] = offsetof(block_stats, comp_span),
        [SERIES_MEASURED_SPAN] = offsetof(block_stats, measured_span),
        [SERIES_COMM_LOCAL] = offsetof(block_stats, comm_local),
        [SERIES_COMP_LOCAL] = offsetof(block_stats, comp_local),
        [SERIES_MPI_LOCAL] = offsetof(block_stats, mpi_local),
        [SERIES_COMP_OVERLAP_LOCAL] = offsetof(block_stats, comp_overlap_local),
        [SERIES_COMP_OF_MPI_RANK] = offsetof(block_stats, comp_of_mpi_rank),
        [SERIES_MPI_FROM_LAST] = offsetof(block_stats, mpi_from_last),
    };
    *s = (cell_series){.n = n};
    for (int i = 0; i < SERIES_COUNT; i++) {
        double *series = values + (size_t)i * n;
        for (size_t b = 0; b < n; b++)
            series[b] = *(const double *)((const char *)&w->blocks[b] + offsets[i]);
        s->values[i] = series;
    }
    /* a null control against its reference's same statistic (eqs. 3, 4
     * denominators) */
    static const size_t reference_offsets[NULL_PAIR_COUNT] = {
        [NULL_COMM] = offsetof(block_stats, comm_local),
        [NULL_COMP] = offsetof(block_stats, comp_local),
    };
    for (int p = 0; p < NULL_PAIR_COUNT; p++) {
        double *null = values + (size_t)(SERIES_COUNT + 2 * p) * n, *reference = null + n;
        size_t k = 0;
        for (size_t b = 0; b < n; b++) {
            if (isnan(w->blocks[b].null_local[p]))
                continue;
            null[k] = w->blocks[b].null_local[p];
            reference[k++] = *(const double *)((const char *)&w->blocks[b] + reference_offsets[p]);
        }
        s->null_n[p] = k;
        s->null_values[p][0] = null;
        s->null_values[p][1] = reference;
    }
}

/* The definitions of README.md ("How the metrics are computed"): per block
 * spans and slowest-local times, the median over blocks of each, then every
 * ratio is a ratio of medians (the paper's estimand, section 5.1) whose
 * numerator and denominator are the same statistic:
 *   r_overhead      (eq. 1) = (median overlap span - max(median comm span,
 *                   median comp span)) / min(the same two);
 *   r_comm          (eq. 4) = median slowest (t2-t1) + max(0, t4 -
 *                   max over ranks of t3) in overlap (the wait from the
 *                   last rank's arrival at it) / median slowest local
 *                   t4-t1 in comm_ref; r_comm_local_wait the same with
 *                   each rank's own wait t4-t3;
 *   r_comp_slowdown (eq. 3) = median slowest local t3-t2 in overlap /
 *                   median slowest local t3-t2 in comp_ref.
 * cell_quantities (intervals.c) holds the formulas, so the bootstrap
 * resamples the very same function. */
static void cell_ratios(cell_metrics *c, const cell_work *w, const cell_series *s, double *scratch,
                        double estimate[Q_COUNT])
{
    double median[SERIES_COUNT], mean_measured = 0;
    for (int i = 0; i < SERIES_COUNT; i++) {
        memcpy(scratch, s->values[i], s->n * sizeof *scratch);
        median[i] = stats_median(scratch, s->n);
    }
    for (size_t b = 0; b < s->n; b++)
        mean_measured += s->values[SERIES_MEASURED_SPAN][b] / (double)s->n;
    cell_quantities(median, mean_measured, c->comm_target_s, c->comp_target_s, estimate);
    c->t_comm_ref = median[SERIES_COMM_SPAN];
    c->t_comp_ref = median[SERIES_COMP_SPAN];
    c->t_measured = median[SERIES_MEASURED_SPAN];
    c->t_comm_ref_local = median[SERIES_COMM_LOCAL];
    c->t_comp_ref_local = median[SERIES_COMP_LOCAL];
    c->t_mpi = median[SERIES_MPI_FROM_LAST];
    c->t_comp = median[SERIES_COMP_OVERLAP_LOCAL];
    c->t_call = MEDIAN_OF(w, call, scratch);
    c->t_wait = MEDIAN_OF(w, wait, scratch);
    c->t_measured_local = MEDIAN_OF(w, measured_local, scratch);
    c->start_skew_s = MEDIAN_OF(w, start_skew, scratch);
    c->r_overhead = estimate[Q_R_OVERHEAD];
    c->r_comm = estimate[Q_R_COMM];
    c->r_comp_slowdown = estimate[Q_R_COMP_SLOWDOWN];
    c->comm_unhidden_share = estimate[Q_COMM_UNHIDDEN];
    c->comm_target_error = estimate[Q_COMM_TARGET_ERROR];
    c->comp_target_error = estimate[Q_COMP_TARGET_ERROR];

    /* The peers' percentages on one statistic, the slowest local times (the
     * peers average local times over ranks): t_pure = t_comm_ref_local,
     * t_overall = t_measured_local, t_cpu = t_comp.
     * OSU (osu_util.c, print_stats_nbc): max(0, 100 - 100 (t_overall -
     * t_cpu) / t_pure). */
    double pure = c->t_comm_ref_local, overall = c->t_measured_local, cpu = c->t_comp;
    c->overlap_osu_pct = fmax(0.0, 100.0 * (1.0 - (overall - cpu) / pure));
    /* IMB-NBC (IMB_output.c, IMB_display_times, NBC branch): 100 max(0,
     * min(1, (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU))). */
    c->overlap_imb_pct = 100.0 * fmax(0.0, fmin(1.0, (pure + cpu - overall) / fmax(pure, cpu)));
}

static const calib_comm_row *find_calib_comm(const run_inputs *in, const char *collective,
                                             double comm_target_s)
{
    for (size_t i = 0; i < in->calib_comm_count; i++)
        if (strcmp(in->calib_comm[i].collective, collective) == 0 &&
            analysis_same_target(in->calib_comm[i].comm_target_s, comm_target_s))
            return &in->calib_comm[i];
    return NULL;
}

static const calib_comp_row *find_calib_comp(const run_inputs *in, double comp_target_s)
{
    for (size_t i = 0; i < in->calib_comp_count; i++)
        if (analysis_same_target(in->calib_comp[i].comp_target_s, comp_target_s))
            return &in->calib_comp[i];
    return NULL;
}

static bool comm_converged(const calib_comm_row *row)
{
    /* 0 bytes: the paper's calibration "sticks to 0 bytes" (section 5.1) */
    return row && row->converged && row->bytes > 0;
}

static bool comp_converged(const calib_comp_row *row)
{
    return row && row->converged;
}

static unsigned calibration_reasons(const run_inputs *in, const raw_cell *cell)
{
    unsigned reasons = 0;
    if (in->have_calib_comm) {
        const calib_comm_row *comm = find_calib_comm(in, cell->collective, cell->comm_target_s);
        if (!comm)
            analysis_warn("cell %ld: calib_comm.csv has no row for %s at %g s: cell invalid",
                          cell->cell, cell->collective, cell->comm_target_s);
        /* A measured cell whose calibration missed its target but found a
         * message (the driver measures a close miss at its closest size) is
         * valid: its ratios use the achieved t_comm_ref, and comm_off_target
         * flags it when it is far. No message at all is no cell. */
        if (!comm || comm->bytes <= 0)
            reasons |= INVALID_COMM_CALIBRATION;
    }
    if (in->have_calib_comp) {
        const calib_comp_row *comp = find_calib_comp(in, cell->comp_target_s);
        if (!comp)
            analysis_warn("cell %ld: calib_comp.csv has no row for %g s: cell invalid", cell->cell,
                          cell->comp_target_s);
        if (!comp_converged(comp))
            reasons |= INVALID_COMP_CALIBRATION;
    }
    return reasons;
}

/* The tolerance --late-tolerance applies to a cell (cell_rules). */
static int judge_for_cell(const run_inputs *in, const cell_rules *rules, const raw_cell *cell,
                          lateness_judge *judge, analysis_error *err)
{
    *judge = (lateness_judge){.again = !isnan(rules->late_tolerance)};
    if (!judge->again)
        return ANALYSIS_OK;
    const calib_comm_row *comm = find_calib_comm(in, cell->collective, cell->comm_target_s);
    const calib_comp_row *comp = find_calib_comp(in, cell->comp_target_s);
    if (!comm || !isfinite(comm->t_comm_s) || !comp || !isfinite(comp->t_comp_s))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "--late-tolerance: cell %ld (%s, %g s x %g s) has no calibrated "
                             "time in %s: the tolerance is a share of min(t_comm_s, t_comp_s)",
                             cell->cell, cell->collective, cell->comm_target_s, cell->comp_target_s,
                             !comm || !isfinite(comm->t_comm_s) ? "calib_comm.csv"
                                                                : "calib_comp.csv");
    judge->tolerance_ns = fmax(rules->late_tolerance * fmin(comm->t_comm_s, comp->t_comp_s) * 1e9,
                               in->meta.barrier_precision_ns);
    return ANALYSIS_OK;
}

static cell_metrics empty_cell(long number, const char *collective, double comm_target_s,
                               double comp_target_s, long long bytes, long long matrix_n)
{
    cell_metrics c = {
        .cell = number,
        .comm_target_s = comm_target_s,
        .comp_target_s = comp_target_s,
        .bytes = bytes,
        .matrix_n = matrix_n,
    };
    double *undefined[] = {
        &c.t_comm_ref,
        &c.t_comp_ref,
        &c.t_measured,
        &c.t_call,
        &c.t_comp,
        &c.t_wait,
        &c.r_overhead,
        &c.r_comm,
        &c.r_comp_slowdown,
        &c.r_overhead_iqr,
        &c.overlap_osu_pct,
        &c.overlap_imb_pct,
        &c.late_share,
        &c.tolerance_ns,
        &c.start_skew_s,
        &c.t_mpi,
        &c.t_comm_ref_local,
        &c.t_comp_ref_local,
        &c.t_measured_local,
        &c.comm_target_error,
        &c.comp_target_error,
        &c.comm_unhidden_share,
        &c.r_overhead_ci.lo,
        &c.r_overhead_ci.hi,
        &c.r_comm_ci.lo,
        &c.r_comm_ci.hi,
        &c.r_comm_local_wait,
        &c.r_comm_local_wait_ci.lo,
        &c.r_comm_local_wait_ci.hi,
        &c.r_comp_slowdown_ci.lo,
        &c.r_comp_slowdown_ci.hi,
        &c.diagnosis_p,
        &c.diagnosis_group_p,
        &c.r_overhead_mean,
        &c.r_overhead_mean_ci.lo,
        &c.r_overhead_mean_ci.hi,
        &c.r_overhead_p90,
        &c.r_overhead_outlier_share,
        &c.r_overhead_bimodality,
        &c.comm_null_ratio,
        &c.comm_null_ci.lo,
        &c.comm_null_ci.hi,
        &c.comp_null_ratio,
        &c.comp_null_ci.lo,
        &c.comp_null_ci.hi,
        &c.r_mpi_impact,
        &c.r_mpi_impact_ci.lo,
        &c.r_mpi_impact_ci.hi,
    };
    for (size_t i = 0; i < sizeof undefined / sizeof *undefined; i++)
        *undefined[i] = NAN;
    c.diagnosis = c.diagnosis_point = DIAG_INVALID;
    snprintf(c.collective, sizeof c.collective, "%s", collective);
    snprintf(c.stop, sizeof c.stop, "none");
    return c;
}

/* ---- cells_by_rank.csv --------------------------------------------------------- */

static const raw_row *rank_row(const attempt *a, long rank)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) { /* rows of an attempt are sorted by rank */
        size_t mid = (lo + hi) / 2;
        if (a->rows[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->n && a->rows[lo].rank == rank ? &a->rows[lo] : NULL;
}

static int compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Each rank's own medians over the usable blocks, its local times against
 * its own local references (ratios of medians, as for the cell). */
static int rank_metrics_of(const cell_work *w, size_t cell_index, cell_table *out, size_t *capacity,
                           analysis_error *err)
{
    size_t total = 0;
    for (size_t b = 0; b < w->block_count; b++)
        total += w->kept[b][RAW_KIND_OVERLAP].n;
    enum { COMM, COMPREF, MEASURED, CALL, COMP, WAIT, MPI_TIME, MPI_FROM_LAST, SERIES };
    size_t n = w->block_count ? w->block_count : 1;
    long *ranks = malloc((total ? total : 1) * sizeof *ranks);
    double *values = malloc(SERIES * n * sizeof *values);
    if (!ranks || !values) {
        free(ranks);
        free(values);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (ranks of a cell)");
    }
    size_t rank_count = 0;
    for (size_t b = 0; b < w->block_count; b++)
        for (size_t i = 0; i < w->kept[b][RAW_KIND_OVERLAP].n; i++)
            ranks[rank_count++] = w->kept[b][RAW_KIND_OVERLAP].rows[i].rank;
    qsort(ranks, rank_count, sizeof *ranks, compare_long);
    int status = ANALYSIS_OK;
    for (size_t r = 0; status == ANALYSIS_OK && r < rank_count; r++) {
        if (r > 0 && ranks[r] == ranks[r - 1])
            continue;
        rank_metrics m = {.cell_index = cell_index, .rank = ranks[r]};
        double *series[SERIES];
        for (int s = 0; s < SERIES; s++)
            series[s] = values + (size_t)s * n;
        size_t k = 0;
        for (size_t b = 0; b < w->block_count; b++) {
            const raw_row *comm = rank_row(&w->kept[b][RAW_KIND_COMM_REF], m.rank);
            const raw_row *comp = rank_row(&w->kept[b][RAW_KIND_COMP_REF], m.rank);
            const raw_row *over = rank_row(&w->kept[b][RAW_KIND_OVERLAP], m.rank);
            if (!comm || !comp || !over)
                continue;
            const int64_t *t = over->t_ns;
            series[COMM][k] = ns_between_s(comm->t_ns[0], comm->t_ns[3]);
            series[COMPREF][k] = ns_between_s(comp->t_ns[1], comp->t_ns[2]);
            series[MEASURED][k] = ns_between_s(t[0], t[3]);
            series[CALL][k] = ns_between_s(t[0], t[1]);
            series[COMP][k] = ns_between_s(t[1], t[2]);
            series[WAIT][k] = ns_between_s(t[2], t[3]);
            series[MPI_TIME][k] = series[CALL][k] + series[WAIT][k];
            /* the wait from the last rank's arrival at it, as the cell's r_comm */
            series[MPI_FROM_LAST][k] =
                series[CALL][k] + fmax(0.0, ns_between_s(w->blocks[b].last_arrival_ns, t[3]));
            m.deciding_blocks += w->blocks[b].deciding_rank == m.rank;
            k++;
        }
        m.blocks = (long)k;
        m.t_comm_ref = stats_median(series[COMM], k);
        m.t_comp_ref = stats_median(series[COMPREF], k);
        m.t_measured = stats_median(series[MEASURED], k);
        m.t_call = stats_median(series[CALL], k);
        m.t_comp = stats_median(series[COMP], k);
        m.t_wait = stats_median(series[WAIT], k);
        /* eq. 4 against the rank's own reference, from the last arrival
         * and on the rank's own wait */
        m.r_comm = stats_median(series[MPI_FROM_LAST], k) / m.t_comm_ref;
        m.r_comm_local_wait = stats_median(series[MPI_TIME], k) / m.t_comm_ref;
        m.r_comp_slowdown = m.t_comp / m.t_comp_ref; /* eq. 3, own reference */
        status =
            analysis_grow((void **)&out->ranks, capacity, out->rank_count, sizeof *out->ranks, err);
        if (status == ANALYSIS_OK)
            out->ranks[out->rank_count++] = m;
    }
    free(ranks);
    free(values);
    return status;
}

/* ---- One measured cell ----------------------------------------------------------- */

typedef struct run_counts {
    long flag_disagreements;
    size_t short_blocks;
    size_t incomplete_blocks;
} run_counts;

/* Where a cell's outputs go: its row, its ranks' rows, its blocks, its
 * estimates and intervals. */
typedef struct cell_outputs {
    cell_table *table;
    size_t rank_capacity;
    size_t block_capacity;
    cell_uncertainty *uncertainty; /* one per cell of the table */
} cell_outputs;

static int add_block_values(const cell_work *w, size_t cell_index, cell_outputs *out,
                            analysis_error *err)
{
    cell_table *t = out->table;
    for (size_t b = 0; b < w->block_count; b++) {
        int status = analysis_grow((void **)&t->blocks, &out->block_capacity, t->block_count,
                                   sizeof *t->blocks, err);
        if (status != ANALYSIS_OK)
            return status;
        t->blocks[t->block_count++] = (block_values){
            .cell_index = cell_index,
            .block = w->block_numbers[b],
            .comm_span = w->blocks[b].comm_span,
            .comp_span = w->blocks[b].comp_span,
            .measured_span = w->blocks[b].measured_span,
        };
    }
    return ANALYSIS_OK;
}

static int compute_cell(const run_inputs *in, const raw_cell *raw, const raw_row *rows, size_t n,
                        long expected_ranks, const cell_rules *rules, size_t cell_index,
                        cell_outputs *out, run_counts *counts, analysis_error *err)
{
    cell_metrics *cell = &out->table->cells[cell_index];
    cell_uncertainty *u = &out->uncertainty[cell_index];
    *cell = empty_cell(raw->cell, raw->collective, raw->comm_target_s, raw->comp_target_s,
                       raw->bytes, raw->matrix_n);
    lateness_judge judge;
    cell_work w;
    int status = judge_for_cell(in, rules, raw, &judge, err);
    if (status == ANALYSIS_OK)
        status = collect_blocks(rows, n, &judge, expected_ranks, &w, err);
    if (status != ANALYSIS_OK)
        return status;
    size_t blocks = w.block_count ? w.block_count : 1;
    double *scratch = malloc(blocks * sizeof *scratch);
    double *series_values = malloc((SERIES_COUNT + 2 * NULL_PAIR_COUNT) * blocks * sizeof *scratch);
    if (!scratch || !series_values) {
        free(scratch);
        free(series_values);
        work_free(&w);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu blocks)", w.block_count);
    }
    counts->flag_disagreements += w.flag_disagreements;
    counts->short_blocks += w.short_blocks;
    counts->incomplete_blocks += w.incomplete_blocks;
    cell->blocks = (long)w.block_count;
    cell->ranks = w.ranks;
    cell->attempts = w.attempts;
    cell->late_attempts = w.late_attempts;
    cell->late_share = w.attempts ? (double)w.late_attempts / (double)w.attempts : NAN;
    cell->tolerance_ns = judge.again ? judge.tolerance_ns : (double)w.driver_tolerance_ns;
    cell->invalid_reasons = calibration_reasons(in, raw);
    snprintf(cell->stop, sizeof cell->stop, "unknown");
    for (size_t i = 0; i < in->sweep_count; i++)
        if (in->sweep[i].cell == raw->cell)
            snprintf(cell->stop, sizeof cell->stop, "%s", in->sweep[i].stop);
    if (w.late_blocks || w.warmup_late)
        cell->invalid_reasons |= INVALID_LATE;
    cell_series series;
    cell_series_of(&w, series_values, &series);
    if (w.block_count)
        cell_ratios(cell, &w, &series, scratch, u->estimate);
    /* A size the axis gives (grid.comm_sizes) is the cell's target: there
     * is no time to miss, so no comm_target_error and never comm_off_target. */
    const calib_comm_row *calib =
        in->have_calib_comm ? find_calib_comm(in, raw->collective, raw->comm_target_s) : NULL;
    cell->comm_size_given = calib && calib->size_given;
    if (cell->comm_size_given)
        cell->comm_target_error = u->estimate[Q_COMM_TARGET_ERROR] = NAN;
    if (!(cell->t_comm_ref > 0 && cell->t_comp_ref > 0 && cell->t_comm_ref_local > 0 &&
          cell->t_comp_ref_local > 0))
        cell->invalid_reasons |= INVALID_NO_BLOCKS;
    cell->valid = cell->invalid_reasons == 0;
    status = cell_intervals(&series, rules, cell, u, err);
    if (status == ANALYSIS_OK)
        status = rank_metrics_of(&w, cell_index, out->table, &out->rank_capacity, err);
    if (status == ANALYSIS_OK)
        status = add_block_values(&w, cell_index, out, err);
    free(scratch);
    free(series_values);
    work_free(&w);
    return status;
}

/* ---- The grid ---------------------------------------------------------------------- */

/* A cell to write: measured (raw != NULL) or a grid point raw.csv lacks. */
typedef struct planned_cell {
    long cell;
    const raw_cell *raw;
    size_t raw_index;
    double comm_target_s; /* the grid point, when raw == NULL */
    double comp_target_s;
} planned_cell;

static int compare_planned(const void *a, const void *b)
{
    const planned_cell *x = a, *y = b;
    if (x->cell != y->cell)
        return x->cell < y->cell ? -1 : 1;
    return (x->raw == NULL) - (y->raw == NULL);
}

/* Distinct targets, ascending: the axis of the grid (docs/formats.md). */
static size_t distinct_sorted(double *targets, size_t n)
{
    stats_sort(targets, n);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (distinct == 0 || !analysis_same_target(targets[distinct - 1], targets[i]))
            targets[distinct++] = targets[i];
    return distinct;
}

static const raw_cell *find_raw_cell(const raw_table *raw, long number, double comm_target_s,
                                     double comp_target_s)
{
    size_t lo = 0, hi = raw->cell_count;
    while (lo < hi) { /* cells are sorted by number: the grid position first */
        size_t mid = (lo + hi) / 2;
        if (raw->cells[mid].cell < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    const raw_cell *c = lo < raw->cell_count ? &raw->cells[lo] : NULL;
    if (c && c->cell == number && analysis_same_target(c->comm_target_s, comm_target_s) &&
        analysis_same_target(c->comp_target_s, comp_target_s))
        return c;
    for (size_t i = 0; i < raw->cell_count; i++)
        if (analysis_same_target(raw->cells[i].comm_target_s, comm_target_s) &&
            analysis_same_target(raw->cells[i].comp_target_s, comp_target_s))
            return &raw->cells[i];
    return NULL;
}

/* The grid points raw.csv has no cell at, appended to plan[*count..]. */
static void plan_unmeasured(const run_inputs *in, const double *comm, size_t comm_count,
                            const double *comp, size_t comp_count, planned_cell *plan,
                            size_t *count)
{
    size_t misplaced = 0;
    for (size_t i = 0; i < comm_count; i++) {
        for (size_t j = 0; j < comp_count; j++) {
            long number = (long)(i * comp_count + j);
            const raw_cell *measured = find_raw_cell(&in->raw, number, comm[i], comp[j]);
            if (measured)
                misplaced += measured->cell != number;
            else
                plan[(*count)++] = (planned_cell){
                    .cell = number, .comm_target_s = comm[i], .comp_target_s = comp[j]};
        }
    }
    if (misplaced)
        analysis_warn("%zu cells of raw.csv are not numbered by their place in the grid of the "
                      "calibration files (comm_index * comp_count + comp_index)",
                      misplaced);
}

/* The run's collective: raw.csv's, or calib_comm.csv's when no cell was
 * measured (every target unreachable); NULL when neither says. */
static const char *run_collective(const run_inputs *in)
{
    if (in->raw.cell_count > 0)
        return in->raw.cells[0].collective;
    return in->have_calib_comm && in->calib_comm_count > 0 ? in->calib_comm[0].collective : NULL;
}

/* A grid cell without rows: unreachable when a calibration did not reach
 * its target (the driver does not measure those), else not measured (a run
 * cut short). */
static cell_metrics unmeasured_cell(const run_inputs *in, const planned_cell *p)
{
    const char *collective = run_collective(in);
    const calib_comm_row *comm = find_calib_comm(in, collective, p->comm_target_s);
    const calib_comp_row *comp = find_calib_comp(in, p->comp_target_s);
    cell_metrics c = empty_cell(p->cell, collective, p->comm_target_s, p->comp_target_s,
                                comm ? comm->bytes : 0, comp ? comp->matrix_n : 0);
    c.invalid_reasons =
        comm_converged(comm) && comp_converged(comp) ? INVALID_NOT_MEASURED : INVALID_UNREACHABLE;
    c.diagnosis = DIAG_INVALID;
    return c;
}

/* Measured cells, then the grid's others, in cell order. */
static int plan_cells(const run_inputs *in, planned_cell **plan_out, size_t *count,
                      analysis_error *err)
{
    const raw_table *raw = &in->raw;
    const char *collective = run_collective(in);
    bool grid = in->have_calib_comm && in->have_calib_comp && collective != NULL;
    size_t comm_count = grid ? in->calib_comm_count : 0;
    size_t comp_count = grid ? in->calib_comp_count : 0;
    double *comm = malloc((comm_count + 1) * sizeof *comm);
    double *comp = malloc((comp_count + 1) * sizeof *comp);
    planned_cell *plan = NULL;
    if (comm && comp) {
        size_t c = 0;
        for (size_t i = 0; i < comm_count; i++)
            if (strcmp(in->calib_comm[i].collective, collective) == 0)
                comm[c++] = in->calib_comm[i].comm_target_s;
        comm_count = distinct_sorted(comm, c);
        for (size_t i = 0; i < comp_count; i++)
            comp[i] = in->calib_comp[i].comp_target_s;
        comp_count = distinct_sorted(comp, comp_count);
        plan = malloc((raw->cell_count + comm_count * comp_count + 1) * sizeof *plan);
    }
    if (!plan) {
        free(comm);
        free(comp);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (the grid)");
    }
    size_t n = 0;
    for (size_t i = 0; i < raw->cell_count; i++)
        plan[n++] =
            (planned_cell){.cell = raw->cells[i].cell, .raw = &raw->cells[i], .raw_index = i};
    if (grid)
        plan_unmeasured(in, comm, comm_count, comp, comp_count, plan, &n);
    free(comm);
    free(comp);
    qsort(plan, n, sizeof *plan, compare_planned);
    *plan_out = plan;
    *count = n;
    return ANALYSIS_OK;
}

/* Every attempt should carry every rank of the run. */
static long expected_ranks_of(const run_inputs *in)
{
    if (in->meta.ranks > 0)
        return in->meta.ranks;
    const raw_row *rows = in->raw.rows;
    long most = 0;
    for (size_t begin = 0; begin < in->raw.row_count;) {
        size_t end = begin + 1;
        while (end < in->raw.row_count && rows[end].cell_index == rows[begin].cell_index &&
               rows[end].block == rows[begin].block && rows[end].kind == rows[begin].kind &&
               rows[end].attempt == rows[begin].attempt)
            end++;
        most = (long)(end - begin) > most ? (long)(end - begin) : most;
        begin = end;
    }
    return most;
}

int analysis_compute_cells(const run_inputs *in, const cell_rules *rules, cell_table *out,
                           analysis_error *err)
{
    const raw_table *raw = &in->raw;
    *out = (cell_table){0};
    if (!isnan(rules->late_tolerance) && !(rules->late_tolerance >= 0))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "--late-tolerance: %g is not allowed (a number >= 0)",
                             rules->late_tolerance);
    const uncertainty_rules *u = &rules->uncertainty;
    if (u->resamples < 1 || !(u->confidence > 0 && u->confidence < 1) || u->seed < 0)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "bootstrap: %ld resamples, confidence %g, seed %lld are not allowed "
                             "(resamples >= 1, 0 < confidence < 1, seed >= 0)",
                             u->resamples, u->confidence, u->seed);
    if (!isnan(rules->late_tolerance) && isnan(in->meta.barrier_precision_ns))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "--late-tolerance needs meta.json's key 'barrier_precision_ns' (the "
                             "floor of the tolerance), which %s",
                             in->meta.present ? "it lacks" : "is missing");
    planned_cell *plan = NULL;
    size_t count = 0;
    int status = plan_cells(in, &plan, &count, err);
    if (status != ANALYSIS_OK)
        return status;
    out->cells = calloc(count ? count : 1, sizeof *out->cells);
    /* rows of raw cell c start at row_start[c] (rows are sorted by cell) */
    size_t *row_start = malloc((raw->cell_count + 1) * sizeof *row_start);
    if (!out->cells || !row_start) {
        free(plan);
        free(row_start);
        free(out->cells);
        out->cells = NULL;
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", count);
    }
    out->count = count;
    for (size_t c = 0, r = 0; c <= raw->cell_count; c++) {
        while (r < raw->row_count && raw->rows[r].cell_index < c)
            r++;
        row_start[c] = r;
    }
    long expected_ranks = expected_ranks_of(in);
    cell_outputs outputs = {.table = out, .uncertainty = malloc(count * sizeof(cell_uncertainty))};
    if (!outputs.uncertainty)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu cells)", count);
    run_counts counts = {0};
    for (size_t k = 0; status == ANALYSIS_OK && k < count; k++) {
        cell_uncertainty *u = &outputs.uncertainty[k];
        for (int q = 0; q < Q_COUNT; q++) {
            u->estimate[q] = NAN;
            u->interval[q] = (boot_summary){{NAN, NAN}, NAN};
        }
        if (!plan[k].raw) {
            out->cells[k] = unmeasured_cell(in, &plan[k]);
            continue;
        }
        size_t c = plan[k].raw_index;
        status =
            compute_cell(in, plan[k].raw, raw->rows + row_start[c], row_start[c + 1] - row_start[c],
                         expected_ranks, rules, k, &outputs, &counts, err);
    }
    if (status == ANALYSIS_OK)
        status = diagnose_run(out, rules, err);
    free(outputs.uncertainty);
    free(plan);
    free(row_start);
    if (status != ANALYSIS_OK) {
        analysis_cell_table_free(out);
        return status;
    }
    if (counts.short_blocks)
        analysis_warn("%zu measured block(s) without all %ld ranks in a kept attempt left out",
                      counts.short_blocks, expected_ranks);
    if (counts.incomplete_blocks)
        analysis_warn("%zu measured block(s) lacking a kind altogether left out (a run cut short "
                      "inside a block?)",
                      counts.incomplete_blocks);
    if (counts.flag_disagreements)
        analysis_warn("%ld attempt(s) whose late flag disagrees with max(exit_late_ns, "
                      "start_skew_ns) > tolerance_ns in raw.csv: the flag (the driver's "
                      "decision) was used",
                      counts.flag_disagreements);
    return ANALYSIS_OK;
}

void analysis_cell_table_free(cell_table *cells)
{
    free(cells->cells);
    free(cells->ranks);
    free(cells->blocks);
    *cells = (cell_table){0};
}
