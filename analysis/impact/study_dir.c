/* analysis/impact: a study folder's impact.csv (study.h): study.json's runs,
 * each run folder's passive.csv and compute_ref.csv, their pairs pooled per
 * configuration and size. */
#include "analysis/impact/impact.h"
#include "analysis/inputs/inputs.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A member of a run's object as text ("" when absent or null). */
static void member_text(json_object *run, const char *name, char *out, size_t out_size)
{
    json_object *value;
    out[0] = '\0';
    if (json_object_object_get_ex(run, name, &value) &&
        json_object_is_type(value, json_type_string))
        snprintf(out, out_size, "%s", json_object_get_string(value));
}

/* The run's configuration; its setting as NAME=VALUE (CSV-safe: a comma of
 * either becomes ';'). */
static void run_config(json_object *run, impact_config *config)
{
    memset(config, 0, sizeof *config);
    member_text(run, "mpi", config->mpi, sizeof config->mpi);
    member_text(run, "collective", config->collective, sizeof config->collective);
    member_text(run, "deployment", config->deployment, sizeof config->deployment);
    json_object *setting;
    if (json_object_object_get_ex(run, "setting", &setting) &&
        json_object_is_type(setting, json_type_object)) {
        char name[ANALYSIS_NAME_MAX], value[ANALYSIS_NAME_MAX];
        member_text(setting, "name", name, sizeof name);
        member_text(setting, "value", value, sizeof value);
        snprintf(config->setting, sizeof config->setting, "%s=%s", name, value);
    }
    char *fields[] = {config->mpi, config->collective, config->deployment, config->setting};
    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
        for (char *c = fields[f]; *c; c++)
            *c = *c == ',' || *c == '\n' ? ';' : *c;
}

/* One file of the run folder; *present false when it does not exist. */
static int read_run_file(const char *run_dir, schema_file file, char **buf, size_t *len,
                         bool *present, analysis_error *err)
{
    char path[4200];
    bool missing = false;
    *buf = NULL;
    int status = analysis_path(path, sizeof path, run_dir, schema_file_name(file), err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, buf, len, &missing, err);
    *present = status == ANALYSIS_OK;
    return status != ANALYSIS_OK && missing ? ANALYSIS_OK : status;
}

int impact_study_add_run_dir(impact_study *study, const impact_config *config, const char *run_dir,
                             const uncertainty_rules *rules, analysis_error *err)
{
    run_inputs in;
    memset(&in, 0, sizeof in);
    char *passive = NULL, *ref = NULL;
    size_t passive_len = 0, ref_len = 0;
    bool have_passive = false, have_ref = false;
    int status = read_run_file(run_dir, SCHEMA_PASSIVE, &passive, &passive_len, &have_passive, err);
    if (status == ANALYSIS_OK)
        status = read_run_file(run_dir, SCHEMA_COMPUTE_REF, &ref, &ref_len, &have_ref, err);
    if (status == ANALYSIS_OK && have_passive && have_ref)
        status = analysis_parse_passive(passive, passive_len, schema_file_name(SCHEMA_PASSIVE),
                                        &in.passive, &in.passive_count, err);
    if (status == ANALYSIS_OK && have_passive && have_ref)
        status = analysis_parse_compute_ref(ref, ref_len, schema_file_name(SCHEMA_COMPUTE_REF),
                                            &in.compute_ref, &in.compute_ref_count, err);
    impact_table impact = {0};
    if (status == ANALYSIS_OK && have_passive && have_ref)
        status = analysis_compute_impact(&in, rules, &impact, err);
    if (status == ANALYSIS_OK && have_passive && have_ref)
        status = impact_study_add_run(study, config, &impact, err);
    if (status == ANALYSIS_OK && !(have_passive && have_ref))
        analysis_warn("%s: no passive.csv or compute_ref.csv: no impact pairs from it", run_dir);
    analysis_impact_table_free(&impact);
    free(in.passive);
    free(in.compute_ref);
    free(passive);
    free(ref);
    return status;
}

static void report_rows(const impact_study *study, FILE *report)
{
    for (size_t i = 0; report && i < study->count; i++) {
        const impact_study_row *r = &study->rows[i];
        fprintf(report,
                "impact %s %s %s%s%s, %.3g ms: %.3g [%.3g, %.3g] over %zu launches (%zu pairs), "
                "A/A band [%.3g, %.3g] over %zu, CPU wait %.2f%s%s\n",
                r->config.mpi, r->config.collective, r->config.deployment,
                r->config.setting[0] ? " " : "", r->config.setting, r->comp_target_s * 1e3,
                r->impact.ratio, r->impact.lo, r->impact.hi, r->launches, r->pairs, r->aa.lo,
                r->aa.hi, r->aa.pairs, r->cpu_wait_share,
                r->estimable ? "" : ": not estimable here", r->largest ? " (largest size)" : "");
    }
}

int impact_study_of_dir(const char *study_dir, const uncertainty_rules *rules, FILE *report,
                        analysis_error *err)
{
    char path[4200];
    int status = analysis_path(path, sizeof path, study_dir, "study.json", err);
    if (status != ANALYSIS_OK)
        return status;
    json_object *root = json_object_from_file(path), *runs;
    if (!root || !json_object_object_get_ex(root, "runs", &runs) ||
        !json_object_is_type(runs, json_type_array)) {
        json_object_put(root);
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s: not a study (no readable study.json "
                             "with a list \"runs\")",
                             path);
    }
    impact_study study = {0};
    for (size_t i = 0; status == ANALYSIS_OK && i < json_object_array_length(runs); i++) {
        json_object *run = json_object_array_get_idx(runs, i);
        char run_dir[4096];
        member_text(run, "run_dir", run_dir, sizeof run_dir);
        if (!run_dir[0])
            continue; /* not begun */
        impact_config config;
        run_config(run, &config);
        status = impact_study_add_run_dir(&study, &config, run_dir, rules, err);
    }
    json_object_put(root);
    if (status == ANALYSIS_OK) {
        impact_study_finish(&study, rules->confidence);
        status = analysis_path(path, sizeof path, study_dir, "impact.csv", err);
    }
    if (status == ANALYSIS_OK)
        status = impact_study_write(&study, path, err);
    if (status == ANALYSIS_OK)
        report_rows(&study, report);
    impact_study_free(&study);
    return status;
}
