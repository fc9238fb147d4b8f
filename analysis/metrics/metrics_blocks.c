/* analysis: the usable blocks of one cell from its rows of raw.csv (paper
 * section 4.1): which attempts are kept (README.md, "Blocks and attempts",
 * "Lateness") and each kept block's spans and slowest-local times. */
#include "analysis/metrics/metrics_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* to_ns - from_ns in seconds. raw.csv may hold any int64 times, whose
 * difference need not fit an int64_t: the magnitude is taken unsigned. */
double ns_between_s(int64_t from_ns, int64_t to_ns)
{
    if (to_ns >= from_ns)
        return (double)((uint64_t)to_ns - (uint64_t)from_ns) * 1e-9;
    return -(double)((uint64_t)from_ns - (uint64_t)to_ns) * 1e-9;
}

/* ---- Attempts and blocks ------------------------------------------------------ */

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

/* The worst rank's wait for a CPU another process held; NAN: a rank's
 * was not read. */
static double foreign_wait_of(const attempt *a)
{
    double most = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->rows[i].foreign_wait_ns < 0)
            return NAN;
        most = fmax(most, (double)a->rows[i].foreign_wait_ns * 1e-9);
    }
    return most;
}

static block_stats block_of(const attempt kept[RAW_KIND_COUNT], long expected_ranks)
{
    block_stats b = {0};
    for (int kind = 0; kind < RAW_KIND_MAIN_COUNT; kind++)
        b.foreign_wait[kind] = foreign_wait_of(&kept[kind]);
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

/* A null block's second triple as a block of its own: comm_null as the
 * block's comm_ref, comp_null as comp_ref, overlap_null as the overlap
 * step. false when one of them lacks a rank. */
static bool repeat_of(const attempt kept[RAW_KIND_COUNT], long expected_ranks, block_stats *out)
{
    static const enum raw_kind repeat[RAW_KIND_MAIN_COUNT] = {
        [RAW_KIND_COMM_REF] = RAW_KIND_COMM_NULL,
        [RAW_KIND_COMP_REF] = RAW_KIND_COMP_NULL,
        [RAW_KIND_OVERLAP] = RAW_KIND_OVERLAP_NULL,
    };
    attempt triple[RAW_KIND_COUNT] = {{0}};
    for (int kind = 0; kind < RAW_KIND_MAIN_COUNT; kind++) {
        triple[kind] = kept[repeat[kind]];
        if (!triple[kind].rows || (long)triple[kind].n < expected_ranks)
            return false;
    }
    *out = block_of(triple, expected_ranks);
    return true;
}

void cell_work_free(cell_work *w)
{
    free(w->repeats);
    free(w->repeat_numbers);
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
    long pass = kept_pass(rows, begin, end, judge), block_attempts = 0;
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
            block_attempts++;
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
    /* Discarded as the driver counts them: every attempt but the kept one
     * of each kind (the late ones and the rest of the passes they ended),
     * all of them when the block kept none. */
    long kept_attempts = 0;
    for (int kind = 0; kind < RAW_KIND_COUNT && !no_kept; kind++)
        kept_attempts += kept[kind].rows != NULL;
    if (measured)
        w->discarded_attempts += block_attempts - kept_attempts;
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
        if (repeat_of(kept, expected_ranks, &w->repeats[w->repeat_count]))
            w->repeat_numbers[w->repeat_count++] = rows[begin].block;
    }
}

int collect_blocks(const raw_row *rows, size_t n, const lateness_judge *judge, long expected_ranks,
                   cell_work *w, analysis_error *err)
{
    *w = (cell_work){0};
    size_t capacity = 1;
    for (size_t i = 1; i < n; i++)
        capacity += rows[i].block != rows[i - 1].block;
    w->blocks = malloc(capacity * sizeof *w->blocks);
    w->block_numbers = malloc(capacity * sizeof *w->block_numbers);
    w->kept = malloc(capacity * sizeof *w->kept);
    w->repeats = malloc(capacity * sizeof *w->repeats);
    w->repeat_numbers = malloc(capacity * sizeof *w->repeat_numbers);
    if (!w->blocks || !w->block_numbers || !w->kept || !w->repeats || !w->repeat_numbers) {
        cell_work_free(w);
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
