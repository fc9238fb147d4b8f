/* analysis: nbc-compare's inputs. Each run folder is loaded (analyzed first
 * when it has no cells.csv), the cells every run has are found, compute
 * times are scaled by --normalize-cores, and the runs are grouped into
 * configurations and their launches (comparison.c). */
#include "analysis/compare/compare_internal.h"
#include "analysis/analyze/analyze.h"
#include "analysis/inputs/inputs.h"
#include "analysis/tables/tables.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int read_optional(const char *dir, const char *name, char **buf, size_t *len, bool *present,
                         char *path, size_t path_size, analysis_error *err)
{
    bool missing;
    *present = false;
    int status = analysis_path(path, path_size, dir, name, err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, buf, len, &missing, err);
    if (status != ANALYSIS_OK && missing)
        return ANALYSIS_OK;
    *present = status == ANALYSIS_OK;
    return status;
}

static void make_label(compare_run *run)
{
    size_t n = strlen(run->dir);
    while (n > 1 && run->dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && run->dir[start - 1] != '/')
        start--;
    size_t length = n - start < sizeof run->label - 1 ? n - start : sizeof run->label - 1;
    for (size_t i = 0; i < length; i++) /* the label goes into CSV and titles */
        run->label[i] = run->dir[start + i] == ',' ? ';' : run->dir[start + i];
    run->label[length] = '\0';
}

int load_compare_run(compare_run *run, const analysis_options *options, analysis_error *err)
{
    char path[4200];
    char *buf = NULL;
    size_t len;
    bool present;
    struct stat st;
    make_label(run);
    run->core_scale = 1; /* until --normalize-cores scales it */
    if (stat(run->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: not a run folder (no such directory)",
                             run->dir);
    int status = read_optional(run->dir, "cells.csv", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && !present) {
        /* not analyzed yet: the same code as nbc-analyze, tables only */
        analysis_options tables_only = *options;
        tables_only.plots = false;
        if (options->report)
            fprintf(options->report, "%s has no cells.csv yet: analyzing it first\n", run->dir);
        status = analysis_analyze_run(run->dir, &tables_only, err);
        if (status == ANALYSIS_OK)
            status =
                read_optional(run->dir, "cells.csv", &buf, &len, &present, path, sizeof path, err);
    }
    if (status == ANALYSIS_OK)
        status = analysis_parse_cells(buf, len, path, &run->cells, err);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK && run->cells.count == 0)
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no cells", path);
    if (status == ANALYSIS_OK)
        status = read_optional(run->dir, "meta.json", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && present)
        status = analysis_parse_meta(buf, len, path, &run->meta, err);
    else if (status == ANALYSIS_OK)
        analysis_warn("%s: no meta.json: the titles lack the library and deployment", run->dir);
    free(buf);
    buf = NULL;
    if (status == ANALYSIS_OK)
        status =
            read_optional(run->dir, "impact.csv", &buf, &len, &present, path, sizeof path, err);
    if (status == ANALYSIS_OK && present) {
        status = analysis_parse_impact(buf, len, path, &run->impact, err);
        run->have_impact = status == ANALYSIS_OK;
    }
    free(buf);
    /* The readings over launches are the study verdict's, from the raw
     * records; a folder kept without them is read from cells.csv, and says so. */
    if (status == ANALYSIS_OK)
        status = analysis_path(path, sizeof path, run->dir, "raw.csv", err);
    if (status == ANALYSIS_OK && stat(path, &st) == 0) {
        status = verdict_launch_grid_load(run->dir, &run->launches, err);
        run->have_launches = status == ANALYSIS_OK;
    } else if (status == ANALYSIS_OK) {
        analysis_warn("%s: no raw.csv: its launch estimates are cells.csv's, not the study "
                      "verdict's (the means of the blocks)",
                      run->dir);
    }
    return status;
}

static size_t find_cell(const cell_table *cells, double comm_target_s, double comp_target_s)
{
    for (size_t i = 0; i < cells->count; i++)
        if (analysis_same_target(cells->cells[i].comm_target_s, comm_target_s) &&
            analysis_same_target(cells->cells[i].comp_target_s, comp_target_s))
            return i;
    return cells->count;
}

/* The cells of the first run that every other run has too. */
int common_cells(const compare_run *runs, size_t run_count, common_cell **out, size_t *count,
                 analysis_error *err)
{
    const cell_table *first = &runs[0].cells;
    common_cell *common = calloc(first->count, sizeof *common);
    size_t *indexes = malloc(first->count * run_count * sizeof *indexes);
    if (!common || !indexes) {
        free(common);
        free(indexes);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (common cells)");
    }
    size_t n = 0;
    for (size_t i = 0; i < first->count; i++) {
        common_cell c = {first->cells[i].comm_target_s, first->cells[i].comp_target_s,
                         indexes + n * run_count};
        bool everywhere = find_cell(first, c.comm_target_s, c.comp_target_s) == i;
        for (size_t r = 0; r < run_count && everywhere; r++) {
            c.index[r] = find_cell(&runs[r].cells, c.comm_target_s, c.comp_target_s);
            everywhere = c.index[r] < runs[r].cells.count;
        }
        if (everywhere)
            common[n++] = c;
    }
    *out = common;
    *count = n;
    if (n == 0) {
        free(indexes);
        free(common);
        *out = NULL;
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "the runs have no cell in common (no pair of communication and "
                             "computation targets appears in all of them)");
    }
    return ANALYSIS_OK;
}

void free_common(common_cell *common)
{
    if (common)
        free(common[0].index); /* one block for all indexes */
    free(common);
}

/* ---- Compute cores (--normalize-cores, README.md) ----------------------- */

int write_text(const char *out_dir, const char *name, const strbuf *sb, analysis_error *err)
{
    char path[4200];
    int status = sb->ok ? analysis_path(path, sizeof path, out_dir, name, err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, sb->data, sb->len, err);
    return status;
}

/* A rank's compute cores: the length of meta.json's
 * deployment_plan.compute.cpus (rank 0's plan, for its real cores). */
static int read_compute_cores(compare_run *run, analysis_error *err)
{
    char path[4200];
    char *buf = NULL;
    size_t len;
    bool present;
    int status = read_optional(run->dir, "meta.json", &buf, &len, &present, path, sizeof path, err);
    if (status != ANALYSIS_OK)
        return status;
    if (!present)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s: --normalize-cores needs meta.json (its "
                             "deployment_plan.compute.cpus, the compute cores): no such file",
                             path);
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
    json_object *plan, *compute, *cpus;
    bool found = root && json_object_object_get_ex(root, "deployment_plan", &plan) &&
                 json_object_object_get_ex(plan, "compute", &compute) &&
                 json_object_object_get_ex(compute, "cpus", &cpus) &&
                 json_object_is_type(cpus, json_type_array) && json_object_array_length(cpus) > 0;
    run->compute_cores = found ? (long)json_object_array_length(cpus) : 0;
    json_object_put(root);
    if (tok)
        json_tokener_free(tok);
    free(buf);
    if (!found)
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s: deployment_plan.compute.cpus is %s: --normalize-cores needs "
                             "each run's compute cores (a non-empty array of CPUs, written by "
                             "bench_nbc)",
                             path, root ? "missing or not a non-empty array" : "unreadable JSON");
    return ANALYSIS_OK;
}

/* Scales a run's compute times by k = (most compute cores of the runs) /
 * (its own): the time its compute cores would take for the node-level work
 * of the run with the most, under perfect strong scaling of the
 * computation over cores. t_comp_ref and t_comp (and their local forms)
 * grow by k, the overlap step by the added computation (k - 1) t_comp with
 * its MPI time unchanged, and r_overhead (eq. 1) is recomputed from them;
 * its interval is mapped by the same affine function of r_overhead (the
 * compute times taken as known). r_comm (MPI time only) and
 * r_comp_slowdown (compute over compute) do not change. */
static void scale_compute(compare_run *run, double k)
{
    run->core_scale = k;
    if (k == 1)
        return;
    for (size_t i = 0; i < run->cells.count; i++) {
        cell_metrics *c = &run->cells.cells[i];
        double before_max = fmax(c->t_comm_ref, c->t_comp_ref);
        double before_min = fmin(c->t_comm_ref, c->t_comp_ref);
        double added = (k - 1) * c->t_comp;
        c->t_comp_ref *= k;
        c->t_comp_ref_local *= k;
        c->t_comp *= k;
        c->t_measured += added;
        c->t_measured_local += added;
        double after_max = fmax(c->t_comm_ref, c->t_comp_ref);
        double after_min = fmin(c->t_comm_ref, c->t_comp_ref);
        /* r' = (r m + added + M - M') / m' for r and both interval ends */
        double slope = before_min / after_min;
        double shift = (added + before_max - after_max) / after_min;
        c->r_overhead = c->r_overhead * slope + shift;
        c->r_overhead_ci.lo = c->r_overhead_ci.lo * slope + shift;
        c->r_overhead_ci.hi = c->r_overhead_ci.hi * slope + shift;
        /* the reading follows its r_overhead: never a band the value left */
        if (verdict_class_is_band(c->overlap) && !verdict_band_of(c->r_overhead, &c->overlap))
            c->overlap = c->class = VERDICT_INVALID;
    }
}

/* Reads every run's compute cores, scales the compute times, and writes
 * out_dir/normalization.csv (run,compute_cores,core_scale). */
int normalize_cores(compare_run *runs, size_t run_count, const char *out_dir, FILE *report,
                    analysis_error *err)
{
    long most = 0;
    for (size_t r = 0; r < run_count; r++) {
        int status = read_compute_cores(&runs[r], err);
        if (status != ANALYSIS_OK)
            return status;
        most = runs[r].compute_cores > most ? runs[r].compute_cores : most;
    }
    for (size_t r = 0; r < run_count; r++) {
        scale_compute(&runs[r], (double)most / (double)runs[r].compute_cores);
        if (report)
            fprintf(report,
                    "--normalize-cores: %s computes on %ld core%s: compute times x %ld/%ld = "
                    "%.4g (perfect strong scaling assumed)\n",
                    runs[r].label, runs[r].compute_cores, runs[r].compute_cores == 1 ? "" : "s",
                    most, runs[r].compute_cores, runs[r].core_scale);
    }
    strbuf csv = {0};
    strbuf_printf(&csv, "run,compute_cores,core_scale\n");
    for (size_t r = 0; r < run_count; r++)
        strbuf_printf(&csv, "%s,%ld,%.9g\n", runs[r].label, runs[r].compute_cores,
                      runs[r].core_scale);
    int status = write_text(out_dir, "normalization.csv", &csv, err);
    strbuf_free(&csv);
    return status;
}

/* The figures' line saying so, or "" without --normalize-cores. */
void normalize_note(const compare_run *runs, size_t run_count, bool normalized, char *out,
                    size_t out_size)
{
    out[0] = '\0';
    if (!normalized)
        return;
    size_t used = (size_t)snprintf(out, out_size,
                                   "\n--normalize-cores: compute times scaled to the most compute "
                                   "cores (perfect strong scaling assumed)\n");
    for (size_t r = 0; r < run_count && used < out_size; r++)
        used += (size_t)snprintf(out + used, out_size - used, "%s%s x%.3g", r ? ", " : "",
                                 runs[r].label, runs[r].core_scale);
}

/* ---- Configurations and launches ---------------------------------------- */

const char *meta_or(const char *value, const char *fallback)
{
    return value[0] ? value : fallback;
}

static bool same_configuration(const run_meta *a, const run_meta *b)
{
    return strcmp(a->library_profile, b->library_profile) == 0 &&
           strcmp(a->library_version, b->library_version) == 0 &&
           strcmp(a->deployment, b->deployment) == 0 && strcmp(a->collective, b->collective) == 0 &&
           a->ranks == b->ranks && a->nodes == b->nodes &&
           a->threads_per_rank == b->threads_per_rank && a->config_digest == b->config_digest;
}

/* Groups the runs; configurations in the order of their first run. */
int group_runs(compare_run *runs, size_t run_count, compare_config **out, size_t *count,
               analysis_error *err)
{
    compare_config *configs = calloc(run_count, sizeof *configs);
    if (!configs)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (configurations)");
    size_t n = 0;
    for (size_t r = 0; r < run_count; r++) {
        size_t c = 0;
        while (c < n && !same_configuration(&runs[configs[c].first_run].meta, &runs[r].meta))
            c++;
        if (c == n)
            configs[n++] = (compare_config){.first_run = r};
        runs[r].config = c;
        runs[r].launch = ++configs[c].launches;
    }
    for (size_t c = 0; c < n; c++) {
        const run_meta *m = &runs[configs[c].first_run].meta;
        const char *collective = m->collective[0] ? m->collective
                                 : runs[configs[c].first_run].cells.count
                                     ? runs[configs[c].first_run].cells.cells[0].collective
                                     : "?";
        snprintf(configs[c].label, sizeof configs[c].label, "%s %s %s %s",
                 meta_or(m->library_profile, "?"), meta_or(m->library_version, "?"),
                 meta_or(m->deployment, "?"), collective);
        for (size_t d = 0; d < c; d++) /* the same names, another measurement configuration */
            if (strcmp(configs[d].label, configs[c].label) == 0) {
                size_t used = strlen(configs[c].label);
                snprintf(configs[c].label + used, sizeof configs[c].label - used, " #%zu", c + 1);
                break;
            }
    }
    *out = configs;
    *count = n;
    return ANALYSIS_OK;
}
