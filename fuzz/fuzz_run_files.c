/* Fuzz target: the analysis' readers of the other files of a run folder and
 * of its own tables (calib_comm.csv, calib_comp.csv, passive.csv,
 * compute_ref.csv, meta.json, cells.csv, impact.csv). Every reader gets the
 * same input, so one corpus serves them all (each stops at the header of a
 * file that is not its own). When the input reads both as passive.csv and as
 * compute_ref.csv (a header holding the columns of both), the MPI impact
 * (eq. 2) is computed from the two. Promises checked: a failure has a
 * message and leaves no rows; names read are NUL-terminated; an impact row
 * per (host, matrix_n) at most, each from a phase both files have. */
#include "fuzz/fuzz.h"

#include "analysis/analysis.h"

#include <math.h>
#include <string.h>

#define TARGET "run_files"

static void require_result(int status, const analysis_error *err, const void *rows, size_t count)
{
    if (status == ANALYSIS_OK)
        return;
    fuzz_require(status == ANALYSIS_ERR_INPUT || status == ANALYSIS_ERR_SYSTEM, TARGET,
                 "a failure is bad input or a system error");
    fuzz_require(err->text[0] != '\0', TARGET, "a failure has a message");
    fuzz_require(rows == NULL && count == 0, TARGET, "a failure leaves no rows");
}

static void require_name(const char *name, size_t size)
{
    fuzz_require(memchr(name, '\0', size) != NULL, TARGET, "a name is NUL-terminated");
}

static void fuzz_calibrations(const char *buf, size_t len)
{
    analysis_error err = {""};
    calib_comm_row *comm = NULL;
    size_t count = 0;
    int status = analysis_parse_calib_comm(buf, len, "calib_comm.csv", &comm, &count, &err);
    require_result(status, &err, comm, count);
    for (size_t i = 0; i < count; i++)
        require_name(comm[i].collective, sizeof comm[i].collective);
    free(comm);

    calib_comp_row *comp = NULL;
    status = analysis_parse_calib_comp(buf, len, "calib_comp.csv", &comp, &count, &err);
    require_result(status, &err, comp, count);
    free(comp);
}

static void fuzz_impact(const char *buf, size_t len)
{
    analysis_error err = {""};
    run_inputs in = {0};
    int status =
        analysis_parse_passive(buf, len, "passive.csv", &in.passive, &in.passive_count, &err);
    require_result(status, &err, in.passive, in.passive_count);
    in.have_passive = status == ANALYSIS_OK;
    for (size_t i = 0; i < in.passive_count; i++)
        require_name(in.passive[i].host, sizeof in.passive[i].host);

    status = analysis_parse_compute_ref(buf, len, "compute_ref.csv", &in.compute_ref,
                                        &in.compute_ref_count, &err);
    require_result(status, &err, in.compute_ref, in.compute_ref_count);
    in.have_compute_ref = status == ANALYSIS_OK;
    for (size_t i = 0; i < in.compute_ref_count; i++)
        require_name(in.compute_ref[i].host, sizeof in.compute_ref[i].host);

    if (in.have_passive && in.have_compute_ref) {
        impact_table impact;
        uncertainty_rules rules = analysis_default_uncertainty();
        rules.resamples = 200; /* the fewest allowed: the fuzzer looks for crashes */
        status = analysis_compute_impact(&in, &rules, &impact, &err);
        require_result(status, &err, impact.rows, impact.count);
        fuzz_require(impact.count <= in.passive_count && impact.job_count <= in.passive_count,
                     TARGET, "at most one impact row per passive row");
        for (size_t i = 0; i < impact.count + impact.job_count; i++) {
            const impact_row *row =
                i < impact.count ? &impact.rows[i] : &impact.job[i - impact.count];
            fuzz_require(row->phases != 0 && row->ranks >= 1 && row->procs >= 1 &&
                             row->passive_steps >= 1 && row->ref_steps >= 1,
                         TARGET, "an impact row comes from a phase both files have");
            for (int p = 0; p < PHASE_COUNT; p++)
                fuzz_require(!(row->phases & (1u << p)) || !isnan(row->t_passive_phase_s[p]),
                             TARGET, "a phase used has its passive T");
            fuzz_require(isnan(row->r_mpi_impact_ci.lo) ||
                             row->r_mpi_impact_ci.lo <= row->r_mpi_impact_ci.hi,
                         TARGET, "an interval is ordered");
            require_name(row->host, sizeof row->host);
        }
        analysis_impact_table_free(&impact);
    }
    analysis_run_inputs_free(&in);
}

static void fuzz_meta(const char *buf, size_t len)
{
    analysis_error err = {""};
    run_meta meta;
    int status = analysis_parse_meta(buf, len, "meta.json", &meta, &err);
    require_result(status, &err, NULL, 0);
    fuzz_require(meta.present == (status == ANALYSIS_OK), TARGET, "meta.present says it was read");
    require_name(meta.status, sizeof meta.status);
    require_name(meta.collective, sizeof meta.collective);
    require_name(meta.mpi, sizeof meta.mpi);
    require_name(meta.mpi_library_version, sizeof meta.mpi_library_version);
    require_name(meta.deployment, sizeof meta.deployment);
    require_name(meta.progress, sizeof meta.progress);
}

static void fuzz_tables(const char *buf, size_t len)
{
    analysis_error err = {""};
    cell_table cells;
    int status = analysis_parse_cells(buf, len, "cells.csv", &cells, &err);
    require_result(status, &err, cells.cells, cells.count);
    for (size_t i = 0; i < cells.count; i++)
        require_name(cells.cells[i].collective, sizeof cells.cells[i].collective);
    analysis_cell_table_free(&cells);

    impact_table impact;
    status = analysis_parse_impact(buf, len, "impact.csv", &impact, &err);
    require_result(status, &err, impact.rows, impact.count);
    analysis_impact_table_free(&impact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    fuzz_calibrations(buf, size);
    fuzz_impact(buf, size);
    fuzz_meta(buf, size);
    fuzz_tables(buf, size);
    return 0;
}
