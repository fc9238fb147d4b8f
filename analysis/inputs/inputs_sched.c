/* analysis: sched.csv's reader (docs/formats.md), and the join that gives
 * each raw.csv row the time the host took from its rank's computing
 * threads during the step (README.md, "Host preemptions"). */
#include "analysis/inputs/inputs.h"

#include <limits.h>
#include <stdlib.h>

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
    long long cell, block, attempt, rank, thread, window, cpu, delay, voluntary = -1;
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
    /* vol_switches: -1 (or a file without the column) where not read */
    if (csv_field_position(record, COL_SCHED_VOL_SWITCHES) != SIZE_MAX &&
        (status = csv_long(record, COL_SCHED_VOL_SWITCHES, -1, LLONG_MAX, &voluntary, err)))
        return status;
    sched_row row = {.cell = (long)cell,
                     .block = (long)block,
                     .kind = (enum raw_kind)kind,
                     .attempt = (long)attempt,
                     .rank = (long)rank,
                     .role = (enum sched_role)role,
                     .thread = (long)thread,
                     .window_ns = window,
                     .cpu_ns = cpu,
                     .run_delay_ns = delay,
                     .vol_switches = voluntary};
    return csv_push(ctx, &row, err);
}

int analysis_parse_sched(const char *buf, size_t len, const char *file_name, sched_row **rows,
                         size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_SCHED, CSV_COLUMNS(sched_columns), false, NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, sched_fn, sizeof **rows, (void **)rows,
                          count, err);
}

/* ---- The join ------------------------------------------------------------- */

/* One (cell, block, kind, attempt, rank) and the most its computing threads
 * were off their CPUs. */
typedef struct stolen_key {
    long cell, block, attempt, rank;
    int kind;
    int64_t stolen_ns;
} stolen_key;

static int compare_keys(const void *pa, const void *pb)
{
    const stolen_key *a = pa, *b = pb;
    long da[5] = {a->cell, a->block, a->kind, a->attempt, a->rank};
    long db[5] = {b->cell, b->block, b->kind, b->attempt, b->rank};
    for (int i = 0; i < 5; i++)
        if (da[i] != db[i])
            return da[i] < db[i] ? -1 : 1;
    return 0;
}

/* A thread tells the time the host took when it computes or calls MPI
 * (main, compute), was read whole, and never gave its CPU up: then every
 * moment of the window it ran, waited in the run queue, or was kept off
 * its CPU by something the scheduler does not see (the hypervisor running
 * another guest, an interrupt). A thread that slept tells nothing. */
static bool tells_stolen(const sched_row *r)
{
    return (r->role == SCHED_ROLE_MAIN || r->role == SCHED_ROLE_COMPUTE) && r->cpu_ns >= 0 &&
           r->run_delay_ns >= 0 && r->vol_switches == 0;
}

int analysis_raw_join_sched(raw_table *raw, const sched_row *rows, size_t count,
                            analysis_error *err)
{
    stolen_key *keys = malloc((count ? count : 1) * sizeof *keys);
    if (!keys)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu sched.csv rows)", count);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const sched_row *r = &rows[i];
        if (!tells_stolen(r))
            continue;
        long long off = r->window_ns - r->cpu_ns - r->run_delay_ns;
        keys[n++] = (stolen_key){.cell = r->cell,
                                 .block = r->block,
                                 .attempt = r->attempt,
                                 .rank = r->rank,
                                 .kind = (int)r->kind,
                                 .stolen_ns = off > 0 ? off : 0};
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    for (size_t i = 0; i < raw->row_count; i++) {
        raw_row *row = &raw->rows[i];
        stolen_key want = {.cell = raw->cells[row->cell_index].cell,
                           .block = row->block,
                           .attempt = row->attempt,
                           .rank = row->rank,
                           .kind = (int)row->kind};
        /* the first key of this attempt and rank, then the most of its threads */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (compare_keys(&keys[mid], &want) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        row->host_stolen_ns = -1;
        for (size_t k = lo; k < n && compare_keys(&keys[k], &want) == 0; k++)
            row->host_stolen_ns =
                keys[k].stolen_ns > row->host_stolen_ns ? keys[k].stolen_ns : row->host_stolen_ns;
    }
    free(keys);
    return ANALYSIS_OK;
}
