/* meta.json: everything needed to reproduce and to label a run (library and
 * its profile, ranks, binding, deployment, environment, configuration, clock sync,
 * revision, times), written atomically by rank 0 at the start and the end
 * of a run and when the watchdog ends it. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "cli/cli.h"
#include "provenance/provenance.h"

#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Adds `key` to meta.json's system keys (created on first use). */
void nbc_meta_add_system(meta_info *meta, const char *key, json_object *value)
{
    if (!meta->system)
        meta->system = json_object_new_object();
    json_object_object_add(meta->system, key, value);
}

void nbc_iso_time_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, size, "unknown");
}

json_object *nbc_meta_environment_json(void)
{
    extern char **environ;
    json_object *env = json_object_new_object();
    for (char **e = environ; env && *e; e++) {
        /* what changes how MPI, OpenMP or BLAS progress and place threads
         * (provenance/env_prefixes.c) */
        const char *eq = strchr(*e, '=');
        if (eq && provenance_env_recorded(*e, PROVENANCE_ENV_META)) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            json_object_object_add(env, name, json_object_new_string(eq + 1));
        }
    }
    return env;
}

/* Durations to the millisecond, written as such (not 17 digits). */
static json_object *seconds_json(double s)
{
    char text[32];
    snprintf(text, sizeof text, "%.3f", s);
    return json_object_new_double_s(s, text);
}

/* The BLAS and how it runs one thread per call (compute_blas_check ran before
 * the team was created). */
static json_object *blas_json(void)
{
    compute_blas_info blas;
    compute_blas_get_info(&blas);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(blas.name));
    json_object_object_add(o, "version", json_object_new_string(blas.version));
    json_object_object_add(o, "library", json_object_new_string(blas.library));
    json_object_object_add(o, "threading", json_object_new_string(blas.threading));
    json_object_object_add(o, "threads_reported", json_object_new_int(blas.threads_reported));
    json_object_object_add(o, "cpu_per_wall", json_object_new_double(blas.cpu_per_wall));
    json_object_object_add(o, "cpu_per_caller_cpu",
                           json_object_new_double(blas.cpu_per_caller_cpu));
    json_object_object_add(o, "background_cpu_per_wall",
                           json_object_new_double(blas.background_cpu_per_wall));
    json_object_object_add(o, "measured_s", json_object_new_double(blas.measured_s));
    json_object_object_add(o, "windows", json_object_new_int(blas.windows));
    json_object_object_add(o, "one_thread_per_call",
                           json_object_new_boolean(blas.one_thread_per_call));
    return o;
}

/* The keys of `from` (NULL: none) as top-level keys of `to`. */
static void merge_keys(json_object *to, json_object *from)
{
    if (!from)
        return;
    json_object_object_foreach(from, key, value)
        json_object_object_add(to, key, json_object_get(value));
}

/* meta.json from `o`, pretty, atomically (temporary file + rename). */
static int write_meta_object(run_output *out, json_object *o)
{
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
    char *with_newline = text ? malloc(strlen(text) + 2) : NULL;
    int rc = -1;
    if (with_newline) {
        sprintf(with_newline, "%s\n", text);
        rc = run_output_write_atomic(out, "meta.json", with_newline);
    }
    free(with_newline);
    return rc;
}

/* A scenario's parts (docs/formats.md), or null for one operation. */
static json_object *scenario_json(const nbc_collective *coll)
{
    if (!coll->scenario)
        return NULL;
    json_object *parts = json_object_new_array();
    for (int i = 0; parts && i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        json_object *p = json_object_new_object();
        if (!p)
            continue; /* json-c's own allocation: the member is then short */
        json_object_object_add(p, "collective", json_object_new_string(part->collective));
        json_object_object_add(p, "communicator",
                               json_object_new_string(nbc_scenario_comm_names()[part->comm]));
        /* one key per meaning: a share of S, or bytes whatever S is */
        if (part->fixed_bytes)
            json_object_object_add(p, "bytes", json_object_new_int64((int64_t)part->fixed_bytes));
        else
            json_object_object_add(p, "weight", json_object_new_double(part->weight));
        json_object_array_add(parts, p);
    }
    return parts;
}

int nbc_meta_write(nbc_run *run, const meta_info *m)
{
    const nbc_config *cfg = run->cfg;
    json_object *o = json_object_new_object();
    if (!o)
        return -1;
    char first_line[MPI_MAX_LIBRARY_VERSION_STRING];
    snprintf(first_line, sizeof first_line, "%s", m->library_version);
    first_line[strcspn(first_line, "\n")] = '\0';
    char progress[32];
    nbc_progress_mode_text(run->progress, run->test_chunks, progress, sizeof progress);
    json_object_object_add(o, "status", json_object_new_string(m->status));
    json_object_object_add(o, "collective", json_object_new_string(run->coll->name));
    json_object_object_add(o, "synthetic", json_object_new_boolean(run->coll->synthetic));
    json_object_object_add(o, "size_meaning", json_object_new_string(run->coll->size_meaning));
    json_object_object_add(o, "scenario", scenario_json(run->coll));
    json_object_object_add(o, "mpi", json_object_new_string(nbc_compiled_mpi()));
    json_object_object_add(o, "mpi_library_version", json_object_new_string(first_line));
    char library_name[160];
    nbc_library_name(library_name, sizeof library_name);
    if (library_name[0])
        json_object_object_add(o, "mpi_library_name", json_object_new_string(library_name));
    json_object_object_add(o, "mpi_library_version_full",
                           json_object_new_string(m->library_version));
    json_object_object_add(o, "mpi_library", nbc_library_json());
    char standard[16];
    snprintf(standard, sizeof standard, "%d.%d", m->mpi_version, m->mpi_subversion);
    json_object_object_add(o, "mpi_standard", json_object_new_string(standard));
    static const char *const levels[] = {"single", "funneled", "serialized", "multiple"};
    json_object_object_add(o, "mpi_thread_level",
                           json_object_new_string(m->thread_level >= 0 && m->thread_level <= 3
                                                      ? levels[m->thread_level]
                                                      : "unknown"));
    json_object_object_add(o, "ranks", json_object_new_int(run->ranks));
    json_object_object_add(o, "nodes", json_object_new_int(m->nodes));
    json_object_object_add(o, "hosts", json_object_get(m->hosts));
    json_object_object_add(o, "threads_per_rank", json_object_new_int(m->threads));
    json_object_object_add(o, "binding", json_object_get(m->binding));
    json_object_object_add(o, "deployment",
                           json_object_new_string(nbc_deployment_name(cfg->run.deployment)));
    json_object_object_add(o, "progress", json_object_new_string(progress));
    json_object_object_add(o, "blas", blas_json());
    json_object_object_add(o, "cpu_topology",
                           json_object_new_string(compute_cpu_topology_source()));
    json_object_object_add(o, "environment", nbc_meta_environment_json());
    json_object_object_add(o, "config", nbc_config_to_json(cfg));
    /* Whose sizes this run measured with: null when it calibrated them. */
    json_object_object_add(o, "calibration_from",
                           cfg->run.calibration_from && cfg->run.calibration_from[0]
                               ? json_object_new_string(cfg->run.calibration_from)
                               : NULL);
    /* The passive step's rounds, for compute_ref, which may measure before
     * it (the ABBA order: analysis/README.md). */
    json_object_object_add(o, "passive_warmup_steps",
                           json_object_new_int(NBC_PASSIVE_WARMUP_STEPS));
    json_object_object_add(o, "passive_reps", json_object_new_int(nbc_passive_reps(cfg)));
    if (m->clocksync)
        json_object_object_add(o, "clocksync", json_object_get(m->clocksync));
    merge_keys(o, m->deployment);
    merge_keys(o, m->measurement);
    merge_keys(o, m->system);
    merge_keys(o, m->thread_record);
    json_object_object_add(o, "revision", json_object_new_string(cli_revision()));
    json_object_object_add(o, "start_time", json_object_new_string(m->start_time));
    json_object_object_add(o, "end_time", json_object_new_string(m->end_time));
    if (m->failure)
        json_object_object_add(o, "failure", json_object_new_string(m->failure));
    json_object_object_add(o, "cells_total", json_object_new_int(m->cells_total));
    json_object_object_add(o, "cells_done", json_object_new_int(m->cells_done));
    json_object_object_add(o, "calibration_s", seconds_json(m->calibration_s));
    json_object_object_add(o, "sweep_s", seconds_json(m->sweep_s));
    int rc = write_meta_object(run->out, o);
    json_object_put(o);
    return rc;
}

int nbc_meta_replace_key(run_output *out, const char *key, json_object *value)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/meta.json", run_output_dir(out));
    json_object *meta = json_object_from_file(path);
    int rc = -1;
    if (meta && json_object_is_type(meta, json_type_object)) {
        json_object_object_add(meta, key, value);
        value = NULL;
        rc = write_meta_object(out, meta);
    }
    if (rc != 0)
        fprintf(stderr, "bench_nbc: cannot update %s's %s\n", path, key);
    json_object_put(value);
    json_object_put(meta);
    return rc;
}

/* The watchdog is about to end the job: rank 0 records why in meta.json
 * (every finished cell is already on disk). */
void nbc_meta_record_watchdog(void *context, const char *message)
{
    watchdog_record *r = context;
    if (r->run->rank != 0 || !r->run->out)
        return;
    r->meta->status = "failed";
    r->meta->failure = message;
    nbc_iso_time_now(r->meta->end_time, sizeof r->meta->end_time);
    nbc_meta_write(r->run, r->meta);
}

/* The clock sync summary of every rank (collective; NULL except on rank 0). */
json_object *nbc_meta_gather_json(nbc_run *run, json_object *mine)
{
    const char *text = json_object_to_json_string(mine);
    int len = (int)strlen(text) + 1;
    int *lens = run->rank == 0 ? calloc((size_t)run->ranks, sizeof *lens) : NULL;
    int *offsets = run->rank == 0 ? calloc((size_t)run->ranks, sizeof *offsets) : NULL;
    nbc_exit_if_any_failed(run->rank == 0 && (!lens || !offsets),
                           "out of memory gathering meta.json's records", 1);
    NBC_CHECK_MPI(MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, run->comm));
    size_t total = 0;
    for (int r = 0; lens && r < run->ranks; r++) {
        offsets[r] = (int)total;
        total += (size_t)lens[r];
    }
    char *all = run->rank == 0 ? malloc(total + 1) : NULL;
    nbc_exit_if_any_failed(run->rank == 0 && !all, "out of memory gathering meta.json's records",
                           1);
    NBC_CHECK_MPI(MPI_Gatherv(text, len, MPI_CHAR, all, lens, offsets, MPI_CHAR, 0, run->comm));
    json_object_put(mine);
    json_object *array = NULL;
    if (run->rank == 0) {
        array = json_object_new_array();
        for (int r = 0; r < run->ranks; r++)
            json_object_array_add(array, json_tokener_parse(all + offsets[r]));
    }
    free(lens);
    free(offsets);
    free(all);
    return array;
}

/* One rank's clock model: its first offset, drift, and every point with
 * the error the model predicted for it and what was measured
 * (clocksync.h, "Error bound"). */
static json_object *clocksync_rank_json(const clocksync_ctx *sync)
{
    const clocksync_model *m = clocksync_get_model(sync);
    json_object *e = json_object_new_object(), *points = json_object_new_array();
    const clocksync_point *first = m->n_points ? &m->points[0] : NULL;
    const clocksync_point *last = m->n_points ? &m->points[m->n_points - 1] : NULL;
    json_object_object_add(e, "offset_us",
                           json_object_new_double(first ? first->offset_ns * 1e-3 : 0));
    json_object_object_add(e, "latency_us",
                           json_object_new_double(first ? first->latency_ns * 1e-3 : 0));
    json_object_object_add(e, "drift_ppm", json_object_new_double(clocksync_model_drift_ppm(m)));
    json_object_object_add(e, "calibrations", json_object_new_int(m->n_points));
    json_object_object_add(e, "baseline", json_object_new_int(m->baseline));
    json_object_object_add(e, "last_offset_us",
                           json_object_new_double(last ? last->offset_ns * 1e-3 : 0));
    double u = clocksync_model_drift_uncertainty(m);
    json_object_object_add(e, "drift_uncertainty_ppm",
                           isfinite(u) ? json_object_new_double(u * 1e6) : NULL);
    for (int i = 0; i < m->n_points; i++) {
        const clocksync_point *p = &m->points[i];
        json_object *o = json_object_new_object();
        json_object_object_add(
            o, "at_s", json_object_new_double((double)(p->local_ns - first->local_ns) * 1e-9));
        json_object_object_add(o, "offset_us", json_object_new_double(p->offset_ns * 1e-3));
        json_object_object_add(o, "bound_us", json_object_new_double(p->bound_ns * 1e-3));
        json_object_object_add(o, "spread_us", json_object_new_double(p->spread_ns * 1e-3));
        json_object_object_add(o, "predicted_error_us",
                               json_object_new_double(p->predicted_error_ns * 1e-3));
        json_object_object_add(o, "residual_us", json_object_new_double(p->residual_ns * 1e-3));
        json_object_array_add(points, o);
    }
    json_object_object_add(e, "points", points);
    /* The wake-up latency measured at start and the barrier's wait from it
     * (clocksync.h, "Waiting"). */
    const clocksync_wakeup *w = clocksync_get_wakeup(sync);
    const clocksync_barrier_wait *wait = clocksync_get_barrier_wait(sync);
    json_object *wake = json_object_new_object();
    json_object_object_add(wake, "median_us", json_object_new_double(w->median_ns * 1e-3));
    json_object_object_add(wake, "p99_us", json_object_new_double(w->p99_ns * 1e-3));
    json_object_object_add(wake, "max_us", json_object_new_double(w->max_ns * 1e-3));
    json_object_object_add(wake, "samples", json_object_new_int(w->samples));
    json_object_object_add(wake, "request_us",
                           json_object_new_double((double)w->request_ns * 1e-3));
    json_object_object_add(e, "wakeup", wake);
    json_object *bw = json_object_new_object();
    json_object_object_add(bw, "wait",
                           json_object_new_string(wait->sleep_min_ns > 0 ? "sleep" : "spin"));
    json_object_object_add(bw, "sleep_min_ms",
                           json_object_new_double((double)wait->sleep_min_ns * 1e-6));
    json_object_object_add(bw, "spin_us", json_object_new_double((double)wait->spin_ns * 1e-3));
    json_object_object_add(bw, "spin_capped", json_object_new_boolean(wait->spin_capped));
    /* What the machine allowed: a spin that lost the core to another
     * process made this rank sleep until clean barriers passed. */
    const clocksync_wait_governor *gov = clocksync_get_wait_governor(sync);
    json_object_object_add(bw, "barriers", json_object_new_int64(gov->barriers));
    json_object_object_add(bw, "spun", json_object_new_int64(gov->spun));
    json_object_object_add(bw, "slept", json_object_new_int64(gov->slept));
    json_object_object_add(bw, "fallbacks", json_object_new_int64(gov->fallbacks));
    json_object_object_add(bw, "first_fallback_at", json_object_new_int64(gov->first_fallback_at));
    json_object_object_add(e, "barrier", bw);
    return e;
}

json_object *nbc_meta_clocksync_json(nbc_run *run, const char *raw_times)
{
    json_object *ranks = nbc_meta_gather_json(run, clocksync_rank_json(run->sync));
    if (run->rank != 0)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "method",
                           json_object_new_string(clocksync_get_method_name(run->sync)));
    json_object_object_add(o, "raw_times", json_object_new_string(raw_times));
    json_object_object_add(o, "roundtrips", json_object_new_int(run->cfg->clocksync.roundtrips));
    json_object_object_add(o, "ranks", ranks);
    return o;
}
