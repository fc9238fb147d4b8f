/* analysis/impact: the study's impact.csv, each configuration's launches
 * combined (impact.h). */
#include "analysis/impact/impact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool same_config(const impact_config *a, const impact_config *b)
{
    return strcmp(a->mpi, b->mpi) == 0 && strcmp(a->collective, b->collective) == 0 &&
           strcmp(a->deployment, b->deployment) == 0 && strcmp(a->setting, b->setting) == 0;
}

/* The same computation target in two launches (read back from text). */
static bool same_target(double a_s, double b_s)
{
    return fabs(a_s - b_s) <= 1e-9 * fmax(fabs(a_s), fabs(b_s));
}

static int push_value(double **values, size_t *capacity, size_t count, double value,
                      analysis_error *err)
{
    int status = analysis_grow((void **)values, capacity, count, sizeof **values, err);
    if (status == ANALYSIS_OK)
        (*values)[count] = value;
    return status;
}

static int row_of(impact_study *study, const impact_config *config, const impact_row *job,
                  impact_study_row **out, analysis_error *err)
{
    for (size_t i = 0; i < study->count; i++)
        if (same_config(&study->rows[i].config, config) &&
            same_target(study->rows[i].comp_target_s, job->comp_target_s)) {
            *out = &study->rows[i];
            if ((*out)->matrix_n != job->matrix_n)
                (*out)->matrix_n = -1;
            return ANALYSIS_OK;
        }
    int status = analysis_grow((void **)&study->rows, &study->capacity, study->count,
                               sizeof *study->rows, err);
    if (status != ANALYSIS_OK)
        return status;
    *out = &study->rows[study->count++];
    **out = (impact_study_row){.config = *config,
                               .comp_target_s = job->comp_target_s,
                               .matrix_n = job->matrix_n,
                               .cpu_wait_share = NAN};
    return ANALYSIS_OK;
}

int impact_study_add_run(impact_study *study, const impact_config *config,
                         const impact_table *impact, analysis_error *err)
{
    int status = ANALYSIS_OK;
    for (size_t i = 0; status == ANALYSIS_OK && i < impact->job_count; i++) {
        const impact_row *job = &impact->job[i];
        impact_study_row *row;
        status = row_of(study, config, job, &row, err);
        /* a pair: the passive step and compute_ref adjacent in time (eq. 2);
         * the launch's estimate is the mean log ratio of its pairs */
        double log_sum = 0;
        size_t pairs = 0;
        for (int p = 0; status == ANALYSIS_OK && p < PHASE_COUNT; p++) {
            double log_ratio = log(job->t_passive_phase_s[p] / job->t_ref_phase_s[p]);
            if (!(job->phases & (1u << p)) || !isfinite(log_ratio))
                continue;
            log_sum += log_ratio;
            pairs++;
            status =
                push_value(&row->log_pairs, &row->pairs_capacity, row->pairs++, log_ratio, err);
        }
        if (status == ANALYSIS_OK && pairs)
            status = push_value(&row->log_launches, &row->launches_capacity, row->launches++,
                                log_sum / (double)pairs, err);
        /* the A/A pair: compute_ref --phase aa, then compute_ref --phase before */
        double aa = log(job->t_ref_phase_s[PHASE_BEFORE] / job->t_ref_aa_s);
        if (status == ANALYSIS_OK && isfinite(aa))
            status = push_value(&row->log_aa, &row->aa_capacity, row->aa.pairs++, aa, err);
        if (status == ANALYSIS_OK && isfinite(job->passive_delay_share)) {
            row->share_sum += job->passive_delay_share;
            row->shares++;
        }
    }
    return status;
}

static int compare_rows(const void *a, const void *b)
{
    const impact_study_row *x = a, *y = b;
    int c = strcmp(x->config.mpi, y->config.mpi);
    c = c ? c : strcmp(x->config.collective, y->config.collective);
    c = c ? c : strcmp(x->config.deployment, y->config.deployment);
    c = c ? c : strcmp(x->config.setting, y->config.setting);
    return c ? c : (x->comp_target_s > y->comp_target_s) - (x->comp_target_s < y->comp_target_s);
}

void impact_study_finish(impact_study *study, double confidence)
{
    if (study->count > 1) /* rows is NULL without any: qsort takes no NULL */
        qsort(study->rows, study->count, sizeof *study->rows, compare_rows);
    for (size_t i = 0; i < study->count; i++) {
        impact_study_row *row = &study->rows[i];
        /* one launch is read as its run reads it: over its own pairs */
        row->impact = row->launches == 1
                          ? impact_paired_interval(row->log_pairs, row->pairs, confidence)
                          : impact_paired_interval(row->log_launches, row->launches, confidence);
        row->aa = impact_paired_interval(row->log_aa, row->aa.pairs, confidence);
        row->estimable = impact_estimable(&row->impact, &row->aa);
        row->cpu_wait_share = row->shares ? row->share_sum / (double)row->shares : NAN;
        /* sorted: the last row of its configuration has the largest size */
        row->largest =
            i + 1 == study->count || !same_config(&row->config, &study->rows[i + 1].config);
    }
}

int impact_study_write(const impact_study *study, const char *path, analysis_error *err)
{
    char header[1024];
    if (schema_header(SCHEMA_STUDY_IMPACT, header, sizeof header) < 0)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "the header of %s does not fit",
                             schema_file_name(SCHEMA_STUDY_IMPACT));
    strbuf sb = {0};
    strbuf_printf(&sb, "%s\n", header);
    for (size_t i = 0; i < study->count; i++) {
        const impact_study_row *r = &study->rows[i];
        strbuf_printf(&sb,
                      "%s,%s,%s,%s,%.9g,%lld,%zu,%zu,%.6g,%.6g,%.6g,%zu,%.6g,%.6g,%.6g,%d,%d\n",
                      r->config.mpi, r->config.collective, r->config.deployment, r->config.setting,
                      r->comp_target_s, r->matrix_n, r->pairs, r->launches, r->impact.ratio,
                      r->impact.lo, r->impact.hi, r->aa.pairs, r->aa.lo, r->aa.hi,
                      r->cpu_wait_share, r->estimable, r->largest);
    }
    int status = sb.ok ? analysis_write_file_atomic(path, sb.data, sb.len, err)
                       : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%s)", path);
    strbuf_free(&sb);
    return status;
}

void impact_study_free(impact_study *study)
{
    for (size_t i = 0; i < study->count; i++) {
        free(study->rows[i].log_launches);
        free(study->rows[i].log_pairs);
        free(study->rows[i].log_aa);
    }
    free(study->rows);
    *study = (impact_study){0};
}
