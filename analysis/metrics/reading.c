/* The reading of one cell over launches (verdict.h): pure, no I/O. */
#include "analysis/metrics/metrics.h"

#include <math.h>

static double mean_of(const block_values *b, size_t n, size_t offset)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += *(const double *)((const char *)&b[i] + offset);
    return sum / (double)n;
}

#define MEAN(blocks, n, field) mean_of(blocks, n, offsetof(block_values, field))

verdict_launch verdict_launch_of(const block_values *blocks, size_t n, long long bytes,
                                 long long matrix_n)
{
    verdict_launch l = {.valid = false,
                        .bytes = bytes,
                        .matrix_n = matrix_n,
                        .blocks = (long)n,
                        .r_overhead = NAN,
                        .r_comm = NAN,
                        .ended_share = NAN,
                        .r_comp_slowdown = NAN,
                        .r_overhead_down = 0,
                        .r_overhead_up = 0};
    if (n < 2)
        return l;
    /* Means, not medians: where a thread on a shared core completes the
     * collective in some blocks and not in others, a median jumps between
     * the two modes with the share of blocks in each; a mean moves with it
     * smoothly, and its launch-to-launch spread is what the t-interval
     * measures. */
    double comm = MEAN(blocks, n, comm_span), comp = MEAN(blocks, n, comp_span);
    double measured = MEAN(blocks, n, measured_span);
    double comm_local = MEAN(blocks, n, comm_local), comp_local = MEAN(blocks, n, comp_local);
    if (!(comm > 0 && comp > 0 && comm_local > 0 && comp_local > 0) || isnan(measured))
        return l;
    l.r_overhead = eq1_r_overhead(comm, comp, measured);                  /* eq. 1 */
    l.r_comm = MEAN(blocks, n, mpi_from_last) / comm_local;               /* eq. 4 */
    l.r_comp_slowdown = MEAN(blocks, n, comp_overlap_local) / comp_local; /* eq. 3 */
    size_t ended = 0;
    for (size_t i = 0; i < n; i++)
        ended += blocks[i].mpi_from_last <= VERDICT_ENDED_MAX_R_COMM * comm_local;
    l.ended_share = (double)ended / (double)n;
    l.valid = !isnan(l.r_overhead) && !isnan(l.r_comm) && !isnan(l.r_comp_slowdown);
    /* Waits that reach the median block of a kind are systematic (a
     * scheduler tick locked to the cell's timing): they move every launch
     * alike, which no spread over launches shows, so they bound the launch
     * estimate; sporadic ones vary between launches, and the t-interval
     * over them holds those. */
    double wait[RAW_KIND_MAIN_COUNT];
    int read = block_foreign_waits(blocks, n, wait);
    if (read < 0)
        l.valid = false; /* out of memory: no reading rather than an unbounded one */
    if (read > 0 &&
        !eq1_foreign_shifts(comm, comp, measured, wait, &l.r_overhead_down, &l.r_overhead_up))
        l.valid = false; /* a step that waited as long as it took: no reading */
    return l;
}

verdict_interval verdict_t_interval(const double *x, size_t n, double confidence)
{
    double sum = 0, sum2 = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(x[i])) {
            sum += x[i];
            k++;
        }
    }
    verdict_interval out = {.value = k ? sum / (double)k : NAN, .lo = NAN, .hi = NAN};
    if (k < 2)
        return out;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            sum2 += (x[i] - out.value) * (x[i] - out.value);
    double se = sqrt(sum2 / (double)(k - 1) / (double)k);
    double t = stats_student_quantile(0.5 + confidence / 2, (long)k - 1);
    out.lo = out.value - t * se;
    out.hi = out.value + t * se;
    return out;
}

/* The interval inside what a class claims (a band, or a group's bands):
 * [lo, hi] within [claim_lo, claim_hi). */
static bool inside_claim(verdict_interval v, verdict_class c)
{
    double lo, hi;
    return verdict_class_claim(c, &lo, &hi) && !isnan(v.lo) && v.lo >= lo && v.hi < hi;
}

verdict_reading verdict_combine(const verdict_launch *launches, size_t n, double confidence)
{
    enum { MOST = 256 };
    double q[4][MOST] = {{0}};
    verdict_reading r = {.launches = 0,
                         .launches_run = (long)n,
                         .sizes_agree = true,
                         .bytes = -1,
                         .matrix_n = -1,
                         .overlap = VERDICT_INVALID,
                         .class = VERDICT_INVALID,
                         .confident = false};
    for (size_t i = 0; i < n && r.launches < MOST; i++) {
        const verdict_launch *l = &launches[i];
        if (!l->valid)
            continue;
        if (r.launches == 0) {
            r.bytes = l->bytes;
            r.matrix_n = l->matrix_n;
        } else if (l->bytes != r.bytes || l->matrix_n != r.matrix_n) {
            r.sizes_agree = false;
        }
        q[0][r.launches] = l->r_overhead;
        q[1][r.launches] = l->r_comm;
        q[2][r.launches] = l->ended_share;
        q[3][r.launches] = l->r_comp_slowdown;
        r.launches++;
    }
    size_t k = (size_t)r.launches;
    r.r_overhead = verdict_t_interval(q[0], k, confidence);
    /* each launch's estimate may be off by up to its foreign waits' shift:
     * their mean by up to the mean shift (README.md, "Foreign waits") */
    double down = 0, up = 0;
    for (size_t i = 0, used = 0; i < n && used < k; i++) {
        if (!launches[i].valid)
            continue;
        down += launches[i].r_overhead_down / (double)k;
        up += launches[i].r_overhead_up / (double)k;
        used++;
    }
    r.r_overhead.lo -= down;
    r.r_overhead.hi += up;
    r.r_comm = verdict_t_interval(q[1], k, confidence);
    r.ended_share = verdict_t_interval(q[2], k, confidence);
    r.r_comp_slowdown = verdict_t_interval(q[3], k, confidence);
    if (k == 0)
        return r;
    if (!verdict_band_of(r.r_overhead.value, &r.overlap))
        return r;
    /* Launches that measured different work are not replicates of one
     * cell: their reading is given, never confirmed. */
    bool replicated = k >= 2 && r.sizes_agree;
    verdict_class group;
    r.class = k == 1 ? VERDICT_ONE_LAUNCH : VERDICT_UNCERTAIN;
    /* The claim is the group's: whether the collective overlapped, never
     * by how much. A band inside a group (hidden, partial) is the
     * estimate's reading (overlap); as a class it would change with the
     * interval's width, and two studies that agree would read apart. */
    verdict_class claim = verdict_group_class(r.overlap, &group) ? group : r.overlap;
    if (replicated && inside_claim(r.r_overhead, claim))
        r.class = claim; /* a band that is its group's only one (none) claims itself */
    r.confident = r.class != VERDICT_ONE_LAUNCH && r.class != VERDICT_UNCERTAIN;
    return r;
}

/* Wilson's score interval of a share k / n: inside [0, 1] and not empty at
 * 0 or n, where the blocks of a cell often put it. */
static metric_bounds wilson(size_t k, size_t n, double confidence)
{
    if (n == 0)
        return (metric_bounds){NAN, NAN};
    double z = analysis_normal_quantile(0.5 + confidence / 2), p = (double)k / (double)n;
    double z2n = z * z / (double)n, centre = (p + z2n / 2) / (1 + z2n);
    double half = z * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n)) / (1 + z2n);
    /* exact at the ends, where rounding would leave the bound off 0 or 1 */
    return (metric_bounds){k == 0 ? 0 : fmax(0, centre - half),
                           k == n ? 1 : fmin(1, centre + half)};
}

void verdict_cell_reading(cell_metrics *cell, const block_values *blocks, size_t n)
{
    verdict_launch l = verdict_launch_of(blocks, n, cell->bytes, cell->matrix_n);
    cell->ended_block_share = l.ended_share;
    cell->ended_block_share_ci = (metric_bounds){NAN, NAN};
    if (!isnan(l.ended_share))
        cell->ended_block_share_ci =
            wilson((size_t)lround(l.ended_share * (double)n), n, VERDICT_CONFIDENCE);
    cell->overlap = cell->class = VERDICT_INVALID;
    if (cell->valid && verdict_band_of(cell->r_overhead, &cell->overlap))
        cell->class = VERDICT_ONE_LAUNCH;
}

bool verdict_cell_inside_band(const cell_metrics *cell)
{
    verdict_interval v = {cell->r_overhead, cell->r_overhead_ci.lo, cell->r_overhead_ci.hi};
    return verdict_class_is_band(cell->overlap) && inside_claim(v, cell->overlap);
}
