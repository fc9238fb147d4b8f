/* analysis: what the scheduler did to a run's threads (sched.csv, written
 * by bench_nbc; docs/formats.md): per cell, the share of its computing
 * threads' time spent waiting for a CPU, the `interference` flag when that
 * is far beyond the run's norm, and the CPU the library's threads took
 * during the overlap steps (README.md, "Interference"). */
#include "analysis/metrics/metrics.h"
#include "analysis/inputs/inputs.h"
#include "analysis/stats/stats.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the analysis reads of sched.csv (schema/columns.def). */
static const schema_column sched_columns[] = {
    COL_SCHED_CELL, COL_SCHED_BLOCK,  COL_SCHED_KIND,   COL_SCHED_ATTEMPT, COL_SCHED_RANK,
    COL_SCHED_ROLE, COL_SCHED_THREAD, COL_SCHED_WINDOW, COL_SCHED_CPU,     COL_SCHED_RUN_DELAY};

static const char *const role_names[SCHED_ROLE_COUNT] = {
    [SCHED_ROLE_MAIN] = "main",
    [SCHED_ROLE_COMPUTE] = "compute",
    [SCHED_ROLE_SUITE_PROGRESS] = "suite_progress",
    [SCHED_ROLE_WATCHDOG] = "watchdog",
    [SCHED_ROLE_LIBRARY] = "library",
    [SCHED_ROLE_OTHER] = "other",
};

static int sched_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    const char *kinds[RAW_KIND_COUNT];
    for (int k = 0; k < RAW_KIND_COUNT; k++)
        kinds[k] = analysis_raw_kind_name((enum raw_kind)k);
    sched_row row = {0};
    long long cell, block, attempt, rank, thread, window, cpu, delay;
    int kind, role, status;
    if ((status = csv_long(record, COL_SCHED_CELL, 0, LONG_MAX, &cell, err)) ||
        (status = csv_long(record, COL_SCHED_BLOCK, 0, LONG_MAX, &block, err)) ||
        (status = csv_name(record, COL_SCHED_KIND, kinds, RAW_KIND_COUNT, &kind, err)) ||
        (status = csv_long(record, COL_SCHED_ATTEMPT, 0, LONG_MAX, &attempt, err)) ||
        (status = csv_long(record, COL_SCHED_RANK, 0, LONG_MAX, &rank, err)) ||
        (status = csv_name(record, COL_SCHED_ROLE, role_names, SCHED_ROLE_COUNT, &role, err)) ||
        (status = csv_long(record, COL_SCHED_THREAD, 0, LONG_MAX, &thread, err)) ||
        (status = csv_long(record, COL_SCHED_WINDOW, 0, LLONG_MAX, &window, err)) ||
        (status = csv_long(record, COL_SCHED_CPU, -1, LLONG_MAX, &cpu, err)) ||
        (status = csv_long(record, COL_SCHED_RUN_DELAY, -1, LLONG_MAX, &delay, err)))
        return status;
    row = (sched_row){.cell = (long)cell,
                      .block = (long)block,
                      .kind = (enum raw_kind)kind,
                      .attempt = (long)attempt,
                      .rank = (long)rank,
                      .role = (enum sched_role)role,
                      .thread = (long)thread,
                      .window_ns = window,
                      .cpu_ns = cpu,
                      .run_delay_ns = delay};
    return csv_push(ctx, &row, err);
}

int analysis_parse_sched(const char *buf, size_t len, const char *file_name, sched_row **rows,
                         size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_SCHED, CSV_COLUMNS(sched_columns), false, NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, sched_fn, sizeof **rows, (void **)rows,
                          count, err);
}

interference_rules analysis_default_interference(void)
{
    return (interference_rules){
        /* README.md, "Interference": a computing thread that waited for its
         * CPU 5 % of the median block's steps is slowed by about as much,
         * half the 10 % that marks a slowed GEMM step (r_comp_slowdown 1.1),
         * where a quiet run waits well under 0.1 %. */
        .min_delay_share = 0.05,
        /* ... and three times the run's own median: a deployment whose
         * progress thread shares the computing cores (progress) delays
         * every step alike; that is what it costs, measured by the metrics,
         * not interference. */
        .min_ratio_to_norm = 3.0,
    };
}

/* Orders rows by (cell, block, kind, rank), the latest attempt first. */
static int by_step_latest_first(const void *a, const void *b, void *ctx)
{
    const sched_row *rows = ctx, *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];
    const long kx[] = {x->cell, x->block, (long)x->kind, x->rank, -x->attempt};
    const long ky[] = {y->cell, y->block, (long)y->kind, y->rank, -y->attempt};
    for (size_t k = 0; k < sizeof kx / sizeof *kx; k++)
        if (kx[k] != ky[k])
            return kx[k] < ky[k] ? -1 : 1;
    return 0;
}

/* last[i]: row i belongs to the last attempt of its (cell, block, kind,
 * rank), the kept one (a late attempt is always redone; docs/formats.md). */
static bool *last_attempts(const sched_row *rows, size_t count)
{
    size_t *order = malloc((count + 1) * sizeof *order);
    bool *last = calloc(count + 1, sizeof *last);
    if (!order || !last) {
        free(order);
        free(last);
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    qsort_r(order, count, sizeof *order, by_step_latest_first, (void *)rows);
    for (size_t k = 0, first = 0; k < count; k++) {
        const sched_row *r = &rows[order[k]], *f = &rows[order[first]];
        if (r->cell != f->cell || r->block != f->block || r->kind != f->kind || r->rank != f->rank)
            first = k, f = r;
        last[order[k]] = r->attempt == f->attempt;
    }
    free(order);
    return last;
}

static bool computing(enum sched_role role)
{
    return role == SCHED_ROLE_MAIN || role == SCHED_ROLE_COMPUTE;
}

/* Per cell: the median over measured blocks of the block's worst delay
 * share (over the overlap and comp_ref steps, ranks and computing
 * threads), and the library's CPU share of the overlap steps. */
typedef struct cell_sched {
    long cell;
    double *block_share; /* [blocks], indexed by block - 1; NAN: none */
    long blocks;
    double library_cpu_ns, overlap_window_ns;
    bool any_overlap;
} cell_sched;

static cell_sched *find_cell(cell_sched *cs, size_t n, long cell)
{
    for (size_t i = 0; i < n; i++)
        if (cs[i].cell == cell)
            return &cs[i];
    return NULL;
}

int analysis_sched_apply(const sched_row *rows, size_t count, const interference_rules *rules,
                         cell_table *cells, analysis_error *err)
{
    for (size_t c = 0; c < cells->count; c++) {
        cells->cells[c].compute_delay_share = NAN;
        cells->cells[c].library_cpu_share = NAN;
        cells->cells[c].interference = false;
    }
    if (count == 0)
        return ANALYSIS_OK;
    cell_sched *cs = calloc(cells->count + 1, sizeof *cs);
    if (!cs)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (sched.csv)");
    long most_blocks = 1;
    for (size_t i = 0; i < count; i++)
        most_blocks = rows[i].block > most_blocks ? rows[i].block : most_blocks;
    int status = ANALYSIS_OK;
    for (size_t c = 0; c < cells->count && status == ANALYSIS_OK; c++) {
        cs[c].cell = cells->cells[c].cell;
        cs[c].blocks = most_blocks;
        cs[c].block_share = malloc((size_t)most_blocks * sizeof *cs[c].block_share);
        if (!cs[c].block_share)
            status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (sched.csv)");
        for (long b = 0; cs[c].block_share && b < most_blocks; b++)
            cs[c].block_share[b] = NAN;
    }
    bool *last = last_attempts(rows, count);
    if (!last && status == ANALYSIS_OK)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (sched.csv)");
    for (size_t i = 0; status == ANALYSIS_OK && i < count; i++) {
        const sched_row *r = &rows[i];
        cell_sched *s = find_cell(cs, cells->count, r->cell);
        bool step = r->kind == RAW_KIND_OVERLAP || r->kind == RAW_KIND_COMP_REF;
        if (!s || !last[i] || r->block < 1 || !step || r->window_ns <= 0)
            continue;
        if (computing(r->role) && r->run_delay_ns >= 0) {
            double share = (double)r->run_delay_ns / (double)r->window_ns;
            double *b = &s->block_share[r->block - 1];
            *b = isnan(*b) || share > *b ? share : *b;
        }
        if (r->kind == RAW_KIND_OVERLAP && computing(r->role) && r->thread == 0) {
            s->overlap_window_ns += (double)r->window_ns; /* once per rank and step */
            s->any_overlap = true;
        }
        if (r->kind == RAW_KIND_OVERLAP && r->role == SCHED_ROLE_LIBRARY && r->cpu_ns >= 0)
            s->library_cpu_ns += (double)r->cpu_ns;
    }
    double *medians = calloc(cells->count + 1, sizeof *medians);
    size_t with_data = 0;
    if (!medians && status == ANALYSIS_OK)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (sched.csv)");
    for (size_t c = 0; status == ANALYSIS_OK && c < cells->count; c++) {
        double *shares = cs[c].block_share;
        size_t n = 0;
        for (long b = 0; b < cs[c].blocks; b++)
            if (!isnan(shares[b]))
                shares[n++] = shares[b];
        cell_metrics *m = &cells->cells[c];
        if (n > 0) {
            m->compute_delay_share = stats_median(shares, n);
            medians[with_data++] = m->compute_delay_share;
        }
        if (cs[c].any_overlap)
            m->library_cpu_share = cs[c].library_cpu_ns / cs[c].overlap_window_ns;
    }
    if (status == ANALYSIS_OK && with_data > 0) {
        double norm = stats_median(medians, with_data);
        for (size_t c = 0; c < cells->count; c++) {
            cell_metrics *m = &cells->cells[c];
            m->interference = !isnan(m->compute_delay_share) &&
                              m->compute_delay_share > rules->min_delay_share &&
                              m->compute_delay_share > rules->min_ratio_to_norm * norm;
        }
        cells->run_delay_share_norm = norm;
    }
    for (size_t c = 0; c < cells->count; c++)
        free(cs[c].block_share);
    free(cs);
    free(last);
    free(medians);
    return status;
}

int analysis_sched_cells(const char *run_dir, cell_table *cells, analysis_error *err)
{
    char path[4200];
    char *buf = NULL;
    size_t len = 0;
    bool missing = false;
    cells->run_delay_share_norm = NAN;
    int status = analysis_path(path, sizeof path, run_dir, schema_file_name(SCHEMA_SCHED), err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, &buf, &len, &missing, err);
    if (status != ANALYSIS_OK && missing) {
        /* a run of an older bench_nbc: no columns to fill */
        interference_rules none = analysis_default_interference();
        free(buf);
        return analysis_sched_apply(NULL, 0, &none, cells, err);
    }
    sched_row *rows = NULL;
    size_t count = 0;
    if (status == ANALYSIS_OK)
        status = analysis_parse_sched(buf, len, path, &rows, &count, err);
    free(buf);
    if (status == ANALYSIS_OK) {
        interference_rules rules = analysis_default_interference();
        status = analysis_sched_apply(rows, count, &rules, cells, err);
    }
    free(rows);
    return status;
}
