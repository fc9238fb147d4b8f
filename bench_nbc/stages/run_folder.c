/* The run folder set up by rank 0: created (or reopened by --resume), with
 * config.ini and the first meta.json (hosts, binding, deployment, system),
 * its path published for the program launching the run. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collective: meta.json's record of the deployment (docs/formats.md):
 * rank 0's plan, every rank's verdict on the binding and its tracked
 * threads; NULL except on rank 0. */
json_object *nbc_deployment_meta_json(nbc_run *run, const nbc_deployment_state *dep)
{
    json_object *ranks = nbc_meta_gather_json(run, nbc_deployment_rank_json(dep, run->rank));
    if (run->rank != 0)
        return NULL;
    json_object *o = json_object_new_object();
    const char *binding = "not required";
    for (size_t r = 0; r < json_object_array_length(ranks); r++) {
        json_object *one = json_object_array_get_idx(ranks, r), *b;
        if (one && json_object_object_get_ex(one, "binding", &b) &&
            strcmp(json_object_get_string(b), "not required") != 0 &&
            strcmp(binding, "unconfirmed") != 0)
            binding =
                strcmp(json_object_get_string(b), "confirmed") == 0 ? "confirmed" : "unconfirmed";
    }
    json_object_object_add(o, "deployment_plan", json_object_get(dep->plan_json));
    json_object_object_add(o, "progress_binding", json_object_new_string(binding));
    json_object_object_add(o, "deployment_threads", ranks);
    return o;
}

/* Collective: the thread list of every rank into meta.json's `key`
 * ("threads_start", "threads_end"; docs/formats.md). */
void nbc_record_threads(nbc_run *run, meta_info *meta, const char *host, const char *key)
{
    json_object *all =
        nbc_meta_gather_json(run, nbc_threads_rank_json(run->threads, run->rank, host));
    if (run->rank == 0)
        json_object_object_add(meta->thread_record, key, all);
}

/* Collective: every rank's host and cores in meta (hosts, binding, nodes). */
static void record_hosts(nbc_job *job, meta_info *meta)
{
    int rank = job->study.run.rank, ranks = job->study.run.ranks,
        threads = job->dep.plan.compute_count;
    const compute_team *team = job->study.run.team;
    int free_cpu = threads < job->place.cpu_count ? job->place.cpus[threads] : -1;
    char *hosts = rank == 0 ? malloc((size_t)ranks * 256) : NULL;
    char cpus[COMPUTE_MAX_CPUS * 6] = "";
    for (int t = 0; t < threads; t++)
        snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), "%s%d", t ? "," : "",
                 compute_team_cpu(team, t));
    if (free_cpu >= 0)
        snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), " free:%d", free_cpu);
    char *all_cpus = rank == 0 ? malloc((size_t)ranks * 256) : NULL;
    char mine_cpus[256];
    snprintf(mine_cpus, sizeof mine_cpus, "%s", cpus);
    nbc_exit_if_any_failed(rank == 0 && (!hosts || !all_cpus), "out of memory", 1);
    NBC_CHECK_MPI(
        MPI_Gather(job->place.host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, job->study.run.comm));
    NBC_CHECK_MPI(
        MPI_Gather(mine_cpus, 256, MPI_CHAR, all_cpus, 256, MPI_CHAR, 0, job->study.run.comm));
    if (rank == 0) {
        meta->hosts = json_object_new_array();
        meta->binding = json_object_new_array();
        for (int r = 0; r < ranks; r++) {
            bool seen = false;
            for (int q = 0; q < r; q++)
                seen |= strcmp(hosts + 256 * q, hosts + 256 * r) == 0;
            meta->nodes += !seen;
            json_object_array_add(meta->hosts, json_object_new_string(hosts + 256 * r));
            json_object_array_add(meta->binding, json_object_new_string(all_cpus + 256 * r));
        }
    }
    free(hosts);
    free(all_cpus);
}

/* meta.json's "job": the study's place in its job and whose clock sync and
 * computation calibration it used (docs/formats.md). */
static json_object *job_json(const nbc_job *job)
{
    bool shared = job->study_count > 1;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "studies", json_object_new_int((int)job->study_count));
    json_object_object_add(o, "study", json_object_new_int((int)job->next_study));
    json_object_object_add(o, "job_ranks", json_object_new_int(job->ranks));
    json_object_object_add(o, "clock_sync", json_object_new_string(shared ? "shared" : "own"));
    json_object_object_add(o, "computation_calibration",
                           json_object_new_string(shared ? "shared" : "own"));
    json_object_object_add(o, "shared_calibration_s",
                           json_object_new_double(job->shared.elapsed_s));
    /* The folder whose calib_comp.csv was measured first: this job's first. */
    json_object_object_add(o, "calibrated_in",
                           json_object_new_string(job->first_dir[0]
                                                      ? job->first_dir
                                                      : run_output_dir(job->study.run.out)));
    return o;
}

/* The effective configuration as the run folder's config.ini; false on failure. */
static bool write_config_ini(const nbc_job *job)
{
    char *ini = NULL;
    size_t ini_len = 0;
    FILE *mem = open_memstream(&ini, &ini_len);
    bool ok = mem && nbc_config_dump_ini(&job->cfg, mem) == 0;
    if (mem)
        ok &= fclose(mem) == 0;
    ok = ok && run_output_write_atomic(job->study.run.out, "config.ini", ini) == 0;
    free(ini);
    return ok;
}

/* Rank 0: config.ini (a new run), meta.json, the published path. */
static bool write_first_files(nbc_job *job, const meta_info *meta)
{
    nbc_run *run = &job->study.run;
    /* A resumed run keeps its folder's config.ini, which it was loaded from. */
    bool ok = job->cli.resume_dir || write_config_ini(job);
    ok = ok && nbc_meta_write(run, meta) == 0;
    if (!ok)
        snprintf(job->err, sizeof job->err, "cannot write the run folder %s",
                 run_output_dir(run->out));
    bool bad = !ok;
    printf("bench_nbc: run folder %s\n", run_output_dir(run->out));
    fflush(stdout);
    if (ok && job->cli.run_dir_file)
        bad =
            run_output_publish_dir(run->out, job->cli.run_dir_file, job->err, sizeof job->err) != 0;
    return bad;
}

void nbc_open_run_folder(nbc_job *job)
{
    nbc_run *run = &job->study.run;
    const nbc_config *cfg = &job->cfg;
    if (run->rank == 0)
        run->out = job->cli.resume_dir
                       ? run_output_open(job->cli.resume_dir, job->err, sizeof job->err)
                       : run_output_create(
                             cfg->run.results_dir, nbc_compiled_mpi(), run->coll->name,
                             nbc_deployment_name(cfg->run.deployment), job->err, sizeof job->err);
    nbc_exit_if_any_failed(run->rank == 0 && run->out == NULL, job->err, 2);

    meta_info *meta = &job->study.meta;
    *meta = (meta_info){.status = "running", .threads = job->dep.plan.compute_count};
    meta->deployment = nbc_deployment_meta_json(run, &job->dep);
    meta->thread_record = run->rank == 0 ? json_object_new_object() : NULL;
    if (run->rank == 0)
        json_object_object_add(
            meta->thread_record, "mpi_thread_level_required",
            json_object_new_string(deploy_thread_level_name(job->dep.plan.thread_level)));
    nbc_iso_time_now(meta->start_time, sizeof meta->start_time);
    int len;
    NBC_CHECK_MPI(MPI_Get_library_version(meta->library_version, &len));
    NBC_CHECK_MPI(MPI_Get_version(&meta->mpi_version, &meta->mpi_subversion));
    meta->thread_level = job->provided;
    record_hosts(job, meta);
    nbc_record_system(run, meta); /* provenance.json, MPI_T: before meta.json names them */
    if (job->cli.replay.cell_text)
        nbc_replay_seed(&job->cli.replay, run, meta);
    if (run->rank == 0) {
        if (!meta->system)
            meta->system = json_object_new_object();
        json_object_object_add(meta->system, "job", job_json(job));
        if (!job->first_dir[0])
            snprintf(job->first_dir, sizeof job->first_dir, "%s", run_output_dir(run->out));
        if (job->study_count > 1)
            fprintf(stderr,
                    "bench_nbc: study %zu of %zu: %s on %d of %d ranks; clock sync: shared, "
                    "computation calibration: shared (%.1f s, %s)\n",
                    job->next_study, job->study_count, run->coll->name, run->ranks, job->ranks,
                    job->shared.elapsed_s, job->first_dir);
    }
    meta->cells_total = (int)(nbc_comm_axis_count(cfg) * cfg->grid.comp_count);
    bool bad = run->rank == 0 && write_first_files(job, meta);
    nbc_exit_if_any_failed(bad, job->err, 1);
    if (run->rank == 0)
        nbc_write_calib_comp_rows(&job->study.run, &job->shared, job->next_study <= 1);
    /* Every thread of the rank: the list of the start. */
    nbc_record_threads(run, meta, job->place.host, "threads_start");
    if (run->rank == 0)
        nbc_meta_write(run, meta);
}
