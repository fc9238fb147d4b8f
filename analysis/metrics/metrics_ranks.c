/* analysis: cells_by_rank.csv's rows, each rank's own metrics over the
 * usable blocks of a cell (README.md, "cells_by_rank.csv"). */
#include "analysis/metrics/metrics_internal.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>

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
int rank_metrics_of(const cell_work *w, size_t cell_index, cell_table *out, size_t *capacity,
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
