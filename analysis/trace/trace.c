/* One cell of raw.csv as a Chrome trace / Perfetto JSON (analysis.h,
 * analysis_trace_cell): a track per rank, a complete event per attempt with
 * its phases nested inside. */
#include "analysis/trace/trace.h"
#include "analysis/inputs/inputs.h"

#include <json-c/json.h>
#include <string.h>

/* The phases between the four timestamps (docs/formats.md, raw.csv). */
static const char *const phase_names[3] = {"start", "compute", "wait"};

/* A complete event ("X") on the rank's track; times in microseconds. */
static json_object *complete_event(const char *name, const char *category, long rank,
                                   int64_t from_ns, int64_t to_ns)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "name", json_object_new_string(name));
    json_object_object_add(e, "cat", json_object_new_string(category));
    json_object_object_add(e, "ph", json_object_new_string("X"));
    json_object_object_add(e, "pid", json_object_new_int(0));
    json_object_object_add(e, "tid", json_object_new_int64(rank));
    json_object_object_add(e, "ts", json_object_new_double((double)from_ns * 1e-3));
    json_object_object_add(e, "dur", json_object_new_double((double)(to_ns - from_ns) * 1e-3));
    return e;
}

static json_object *name_event(const char *what, long rank, const char *name)
{
    json_object *e = json_object_new_object(), *args = json_object_new_object();
    json_object_object_add(e, "name", json_object_new_string(what));
    json_object_object_add(e, "ph", json_object_new_string("M"));
    json_object_object_add(e, "pid", json_object_new_int(0));
    json_object_object_add(e, "tid", json_object_new_int64(rank));
    json_object_object_add(args, "name", json_object_new_string(name));
    json_object_object_add(e, "args", args);
    return e;
}

int analysis_trace_cell(const raw_table *table, long cell, FILE *out, analysis_error *err)
{
    size_t index = table->cell_count;
    for (size_t i = 0; i < table->cell_count; i++)
        if (table->cells[i].cell == cell)
            index = i;
    if (index == table->cell_count) {
        snprintf(err->text, sizeof err->text, "cell %ld is not in raw.csv (%zu cells there)", cell,
                 table->cell_count);
        return ANALYSIS_ERR_INPUT;
    }
    const raw_cell *c = &table->cells[index];
    json_object *root = json_object_new_object(), *events = json_object_new_array();
    char title[160];
    snprintf(title, sizeof title, "cell %ld: %s, comm %g s x comp %g s, %lld B, n=%lld", c->cell,
             c->collective, c->comm_target_s, c->comp_target_s, c->bytes, c->matrix_n);
    json_object_array_add(events, name_event("process_name", 0, title));
    long last_rank = -1;
    for (size_t r = 0; r < table->row_count; r++) {
        const raw_row *row = &table->rows[r];
        if (row->cell_index != index)
            continue;
        if (row->rank > last_rank) { /* rows come sorted by rank within an attempt */
            for (long k = last_rank + 1; k <= row->rank; k++) {
                char name[32];
                snprintf(name, sizeof name, "rank %ld", k);
                json_object_array_add(events, name_event("thread_name", k, name));
            }
            last_rank = row->rank;
        }
        json_object *step = complete_event(analysis_raw_kind_name(row->kind), "step", row->rank,
                                           row->t_ns[0], row->t_ns[3]);
        json_object *args = json_object_new_object();
        json_object_object_add(args, "block", json_object_new_int64(row->block));
        json_object_object_add(args, "role",
                               json_object_new_string(analysis_raw_role_name(row->role)));
        json_object_object_add(args, "attempt", json_object_new_int64(row->attempt));
        json_object_object_add(args, "seq", json_object_new_int64(row->seq));
        json_object_object_add(args, "late", json_object_new_boolean(row->late));
        json_object_object_add(args, "exit_late_ns", json_object_new_int64(row->exit_late_ns));
        json_object_object_add(step, "args", args);
        json_object_array_add(events, step);
        /* Phases without time (a reference's start or wait) are left out. */
        for (int p = 0; p < 3; p++)
            if (row->t_ns[p + 1] > row->t_ns[p])
                json_object_array_add(events, complete_event(phase_names[p], "phase", row->rank,
                                                             row->t_ns[p], row->t_ns[p + 1]));
    }
    json_object_object_add(root, "traceEvents", events);
    json_object_object_add(root, "displayTimeUnit", json_object_new_string("ns"));
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
    int status = text && fprintf(out, "%s\n", text) >= 0 && fflush(out) == 0 ? ANALYSIS_OK
                                                                             : ANALYSIS_ERR_SYSTEM;
    if (status != ANALYSIS_OK)
        snprintf(err->text, sizeof err->text, "cannot write the trace");
    json_object_put(root);
    return status;
}
