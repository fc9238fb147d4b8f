/* A study's verdict (verdict.h): study.json's runs grouped by configuration
 * (mpi, collective, deployment, setting), each launch's cells computed by
 * the analysis library, one row of verdict.csv per configuration and cell. */
#include "analysis/verdict/verdict.h"
#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"
#include "analysis/metrics/metrics.h"

#include "schema/schema.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOST_LAUNCHES = 256 };

/* One run of study.json (strings owned by the parsed document). */
typedef struct study_run {
    const char *mpi, *collective, *deployment, *run_dir;
    char setting[256];
    long launch;
} study_run;

static const char *string_of(json_object *run, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(run, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* setting: null (empty), {name, value} as NAME=VALUE, a string as it is;
 * anything else as its JSON text, with ';' and '\'' for the commas and
 * quotes that would break the CSV row. */
static void setting_of(json_object *run, char *out, size_t size)
{
    json_object *v = NULL, *name = NULL, *value = NULL;
    if (!json_object_object_get_ex(run, "setting", &v) || v == NULL)
        snprintf(out, size, "%s", "");
    else if (json_object_is_type(v, json_type_string))
        snprintf(out, size, "%s", json_object_get_string(v));
    else if (json_object_object_get_ex(v, "name", &name) &&
             json_object_object_get_ex(v, "value", &value))
        snprintf(out, size, "%s=%s", json_object_get_string(name), json_object_get_string(value));
    else
        snprintf(out, size, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    for (char *c = out; *c; c++)
        *c = *c == ',' ? ';' : *c == '"' ? '\'' : *c;
}

static bool same_configuration(const study_run *a, const study_run *b)
{
    return strcmp(a->mpi, b->mpi) == 0 && strcmp(a->collective, b->collective) == 0 &&
           strcmp(a->deployment, b->deployment) == 0 && strcmp(a->setting, b->setting) == 0;
}

/* The runs of study.json that completed (the others, pending, failed or
 * interrupted, are named on stderr: their launch is missing from the
 * verdict, which counts launches). */
static int read_runs(json_object *root, const char *path, study_run **out, size_t *count,
                     analysis_error *err)
{
    json_object *runs = NULL;
    if (!json_object_object_get_ex(root, "runs", &runs) ||
        !json_object_is_type(runs, json_type_array))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no array \"runs\"", path);
    size_t n = json_object_array_length(runs);
    study_run *list = calloc(n ? n : 1, sizeof *list);
    if (!list)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *run = json_object_array_get_idx(runs, i), *launch = NULL;
        study_run r = {.mpi = string_of(run, "mpi"),
                       .collective = string_of(run, "collective"),
                       .deployment = string_of(run, "deployment"),
                       .run_dir = string_of(run, "run_dir")};
        const char *status = string_of(run, "status");
        if (!status || strcmp(status, "complete") != 0) {
            /* a pending run has no folder yet (run_dir null) */
            fprintf(stderr, "nbc-analyze --study: %s run %zu is %s: left out of the verdict\n",
                    path, i + 1, status ? status : "without a status");
            continue;
        }
        if (!r.mpi || !r.collective || !r.deployment || !r.run_dir ||
            !json_object_object_get_ex(run, "launch", &launch) ||
            !json_object_is_type(launch, json_type_int)) {
            free(list);
            return analysis_fail(err, ANALYSIS_ERR_INPUT,
                                 "%s: run %zu lacks one of mpi, collective, deployment, run_dir "
                                 "(strings) and launch (an integer)",
                                 path, i + 1);
        }
        r.launch = (long)json_object_get_int64(launch);
        setting_of(run, r.setting, sizeof r.setting);
        list[k++] = r;
    }
    *out = list;
    *count = k;
    return ANALYSIS_OK;
}

static void put_interval(FILE *f, verdict_interval v)
{
    fprintf(f, ",%.6g,%.6g,%.6g", v.value, v.lo, v.hi);
}

static int write_configuration(FILE *f, const study_run *runs, const size_t *members, size_t n,
                               const verdict_launch_grid *launches)
{
    const study_run *first = &runs[members[0]];
    const verdict_launch_grid *grid = &launches[0];
    for (size_t i = 0; i < grid->count; i++) {
        const verdict_launch_cell *c = &grid->cells[i];
        verdict_launch est[MOST_LAUNCHES];
        for (size_t k = 0; k < n; k++)
            est[k] = verdict_launch_grid_cell(&launches[k], c->cell);
        verdict_reading r = verdict_combine(est, n, VERDICT_CONFIDENCE);
        fprintf(f, "%s,%s,%s,%s,%ld,%.9g,%.9g,%lld,%lld,%d,%ld,%ld", first->mpi, first->collective,
                first->deployment, first->setting, c->cell, c->comm_target_s, c->comp_target_s,
                r.bytes, r.matrix_n, r.sizes_agree, r.launches, r.launches_run);
        put_interval(f, r.r_overhead);
        fprintf(f, ",%s,%s,%d", verdict_class_name(r.overlap), verdict_class_name(r.class),
                r.confident);
        put_interval(f, r.r_comm);
        put_interval(f, r.ended_share);
        put_interval(f, r.r_comp_slowdown);
        if (fputc('\n', f) == EOF)
            return -1;
    }
    return ferror(f) ? -1 : 0;
}

/* A reading counted as verdict.csv's readers count it (nbc-verdict's tally). */
static void count_reading(verdict_summary *s, const verdict_reading *r)
{
    const char *group = verdict_class_get(r->overlap)->group;
    if (r->confident) {
        s->confident++;
        s->confident_overlap += strcmp(group, "overlap") == 0;
    } else if (!verdict_class_is_band(r->overlap)) {
        s->invalid++;
    } else if (strcmp(group, "overlap") == 0) {
        s->suggest_overlap++;
    } else {
        s->suggest_none++;
    }
}

/* The impact.csv row of the largest size of the launches' pooled pairs. */
static int summary_impact(const char *const *run_dirs, size_t n, const uncertainty_rules *rules,
                          verdict_summary *s, analysis_error *err)
{
    impact_study study = {0};
    impact_config config = {.mpi = "", .collective = "", .deployment = "", .setting = ""};
    int status = ANALYSIS_OK;
    for (size_t k = 0; k < n && status == ANALYSIS_OK; k++)
        status = impact_study_add_run_dir(&study, &config, run_dirs[k], rules, err);
    if (status == ANALYSIS_OK)
        impact_study_finish(&study, rules->confidence);
    for (size_t i = 0; status == ANALYSIS_OK && i < study.count; i++) {
        const impact_study_row *row = &study.rows[i];
        if (!row->largest)
            continue;
        s->have_impact = true;
        s->comp_target_s = row->comp_target_s;
        s->r_mpi_impact = row->impact.ratio;
        s->r_mpi_impact_lo = row->impact.lo;
        s->r_mpi_impact_hi = row->impact.hi;
        s->aa_lo = row->aa.lo;
        s->aa_hi = row->aa.hi;
        s->cpu_wait_share = row->cpu_wait_share;
        s->estimable = row->estimable;
    }
    impact_study_free(&study);
    return status;
}

int verdict_summary_of_runs(const char *const *run_dirs, size_t n, const uncertainty_rules *rules,
                            verdict_summary *out, analysis_error *err)
{
    *out = (verdict_summary){.launches = (long)n,
                             .comp_target_s = NAN,
                             .r_mpi_impact = NAN,
                             .r_mpi_impact_lo = NAN,
                             .r_mpi_impact_hi = NAN,
                             .aa_lo = NAN,
                             .aa_hi = NAN,
                             .cpu_wait_share = NAN};
    if (n == 0 || n > MOST_LAUNCHES)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%zu launches of a configuration: 1 to %d", n,
                             MOST_LAUNCHES);
    verdict_launch_grid *launches = calloc(n, sizeof *launches);
    verdict_launch *est = calloc(n, sizeof *est);
    int status =
        launches && est ? ANALYSIS_OK : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (size_t k = 0; k < n && status == ANALYSIS_OK; k++)
        status = verdict_launch_grid_load(run_dirs[k], &launches[k], err);
    const verdict_launch_grid *grid = status == ANALYSIS_OK ? &launches[0] : NULL;
    for (size_t i = 0; grid && i < grid->count; i++) {
        for (size_t k = 0; k < n; k++)
            est[k] = verdict_launch_grid_cell(&launches[k], grid->cells[i].cell);
        verdict_reading r = verdict_combine(est, n, VERDICT_CONFIDENCE);
        out->cells++;
        count_reading(out, &r);
    }
    for (size_t k = 0; launches && k < n; k++)
        verdict_launch_grid_free(&launches[k]);
    free(launches);
    free(est);
    if (status == ANALYSIS_OK)
        status = summary_impact(run_dirs, n, rules, out, err);
    return status;
}

/* The configurations in the order of their first run; each one's launches
 * loaded, written, freed before the next. */
static int write_verdict(FILE *f, const study_run *runs, size_t count, analysis_error *err)
{
    bool *done = calloc(count ? count : 1, sizeof *done);
    size_t *members = calloc(count ? count : 1, sizeof *members);
    verdict_launch_grid *launches = calloc(count ? count : 1, sizeof *launches);
    int status = ANALYSIS_OK;
    if (!done || !members || !launches)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory");
    for (size_t i = 0; i < count && status == ANALYSIS_OK; i++) {
        if (done[i])
            continue;
        size_t n = 0;
        for (size_t j = i; j < count; j++) {
            if (!done[j] && same_configuration(&runs[i], &runs[j])) {
                done[j] = true;
                members[n++] = j;
            }
        }
        if (n > MOST_LAUNCHES) {
            status = analysis_fail(err, ANALYSIS_ERR_INPUT,
                                   "%s %s %s: %zu launches, at most %d are read", runs[i].mpi,
                                   runs[i].collective, runs[i].deployment, n, MOST_LAUNCHES);
            break;
        }
        for (size_t k = 0; k < n && status == ANALYSIS_OK; k++)
            status = verdict_launch_grid_load(runs[members[k]].run_dir, &launches[k], err);
        if (status == ANALYSIS_OK && write_configuration(f, runs, members, n, launches) != 0)
            status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "verdict.csv: %s", strerror(errno));
        for (size_t k = 0; k < n; k++)
            verdict_launch_grid_free(&launches[k]);
    }
    free(done);
    free(members);
    free(launches);
    return status;
}

int verdict_study(const char *study_dir, analysis_error *err)
{
    char path[4096], out_path[4096], tmp_path[4200];
    snprintf(path, sizeof path, "%s/study.json", study_dir);
    snprintf(out_path, sizeof out_path, "%s/verdict.csv", study_dir);
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", out_path);
    json_object *root = json_object_from_file(path);
    if (!root)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: %s", path, json_util_get_last_err());
    study_run *runs = NULL;
    size_t count = 0;
    int status = read_runs(root, path, &runs, &count, err);
    if (status == ANALYSIS_OK && count == 0)
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no complete run", path);
    FILE *f = NULL;
    if (status == ANALYSIS_OK && !(f = fopen(tmp_path, "w")))
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: %s", tmp_path, strerror(errno));
    if (status == ANALYSIS_OK && schema_write_header(f, SCHEMA_VERDICT) != 0)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: %s", tmp_path, strerror(errno));
    if (status == ANALYSIS_OK)
        status = write_verdict(f, runs, count, err);
    if (f && fclose(f) != 0 && status == ANALYSIS_OK)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: %s", tmp_path, strerror(errno));
    if (status == ANALYSIS_OK && rename(tmp_path, out_path) != 0)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: %s", out_path, strerror(errno));
    if (status != ANALYSIS_OK && f)
        remove(tmp_path);
    free(runs);
    json_object_put(root);
    return status;
}
