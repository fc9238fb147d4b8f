/* analysis: the cells a run's grid holds (docs/formats.md, cells.csv): the
 * measured cells of raw.csv and the grid points it lacks, and what the
 * calibration files say of each. */
#include "analysis/metrics/metrics_internal.h"
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const calib_comm_row *find_calib_comm(const run_inputs *in, const char *collective,
                                      double comm_target_s)
{
    for (size_t i = 0; i < in->calib_comm_count; i++)
        if (strcmp(in->calib_comm[i].collective, collective) == 0 &&
            analysis_same_target(in->calib_comm[i].comm_target_s, comm_target_s))
            return &in->calib_comm[i];
    return NULL;
}

const calib_comp_row *find_calib_comp(const run_inputs *in, double comp_target_s)
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

unsigned calibration_reasons(const run_inputs *in, const raw_cell *cell)
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
        /* The same for the computation: a close miss the driver measured at
         * its size is valid (comp_off_target flags it when far). */
        if (!comp || comp->matrix_n <= 0)
            reasons |= INVALID_COMP_CALIBRATION;
    }
    return reasons;
}

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
cell_metrics unmeasured_cell(const run_inputs *in, const planned_cell *p)
{
    const char *collective = run_collective(in);
    const calib_comm_row *comm = find_calib_comm(in, collective, p->comm_target_s);
    const calib_comp_row *comp = find_calib_comp(in, p->comp_target_s);
    cell_metrics c = empty_cell(p->cell, collective, p->comm_target_s, p->comp_target_s,
                                comm ? comm->bytes : 0, comp ? comp->matrix_n : 0);
    c.invalid_reasons =
        comm_converged(comm) && comp_converged(comp) ? INVALID_NOT_MEASURED : INVALID_UNREACHABLE;
    return c;
}

/* Measured cells, then the grid's others, in cell order. */
int plan_cells(const run_inputs *in, planned_cell **plan_out, size_t *count, analysis_error *err)
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
long expected_ranks_of(const run_inputs *in)
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
