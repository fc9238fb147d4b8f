/* What a run folder already holds when --resume continues it: calibrations,
 * the passive step, whole cells; read by rank 0 (resume.c) and broadcast. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load_prior(nbc_run *run, const char *resume_dir, bool calibrations_only,
                       nbc_resume *prior);

/* Rank 0: run.calibration_from's folder against this run; 0 with its
 * calibrations in *from, or -1 with the reason it is not the same work. */
static int read_calibration_from(const nbc_run *run, nbc_resume *from, char *err, size_t errlen)
{
    const nbc_config *cfg = run->cfg;
    const char *dir = cfg->run.calibration_from;
    if (cfg->run.collectives_count > 0 || cfg->run.ranks_count > 0) {
        snprintf(err, errlen,
                 "run.calibration_from: a run with another's sizes measures one collective at "
                 "one rank count (allowed: run.collectives and run.ranks empty)");
        return -1;
    }
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_object *meta = json_object_from_file(path), *v;
    if (!meta) {
        snprintf(err, errlen,
                 "run.calibration_from: %s is missing or not JSON: not a run folder of bench_nbc",
                 path);
        return -1;
    }
    int ranks = json_object_object_get_ex(meta, "ranks", &v) ? json_object_get_int(v) : -1;
    const char *mpi = json_object_object_get_ex(meta, "mpi", &v) ? json_object_get_string(v) : "?";
    const char *coll =
        json_object_object_get_ex(meta, "collective", &v) ? json_object_get_string(v) : "?";
    json_object *lib = NULL, *version_json = NULL;
    const char *version = json_object_object_get_ex(meta, "mpi_library", &lib) &&
                                  json_object_object_get_ex(lib, "version", &version_json)
                              ? json_object_get_string(version_json)
                              : "?";
    int status = -1;
    if (strcmp(version, nbc_library_version()) != 0) {
        snprintf(err, errlen,
                 "run.calibration_from: %s ran with %s %s, this run with %s: not the same "
                 "library (allowed: a run of the same library and version)",
                 dir, mpi, version, nbc_library_version());
    } else if (ranks != run->ranks || strcmp(mpi, nbc_compiled_mpi()) != 0 ||
               strcmp(coll, run->coll->name) != 0) {
        snprintf(err, errlen,
                 "run.calibration_from: %s measured %s on %d ranks with %s, this run %s on %d "
                 "ranks with %s: not the same work (allowed: a run of the same collective, rank "
                 "count and library)",
                 dir, coll, ranks, mpi, run->coll->name, run->ranks, nbc_compiled_mpi());
    } else if (nbc_resume_read_calibrations(dir, cfg, from, err, errlen) != 0) {
        /* err says why */
    } else if (from->comp_done < cfg->grid.comp_count ||
               from->comm_done < nbc_comm_axis_count(cfg)) {
        snprintf(err, errlen,
                 "run.calibration_from: %s holds %zu of %zu computation and %zu of %zu "
                 "communication sizes of this run's grid: another grid, or a calibration cut "
                 "short (allowed: a run of the same grid.comp_times and grid.comm_times or "
                 "grid.comm_sizes that ended its calibration)",
                 dir, from->comp_done, cfg->grid.comp_count, from->comm_done,
                 nbc_comm_axis_count(cfg));
    } else {
        status = 0;
    }
    json_object_put(meta);
    return status;
}

/* run.calibration_from: the sizes this run's folder does not hold yet taken
 * from that folder, on every rank; *comp_own, *comm_own: how many the run's
 * own folder held (the rest are the caller's to write there). Exits 2 when
 * the folder is not the same work. */
void nbc_load_calibration_from(nbc_run *run, nbc_resume *prior, size_t *comp_own, size_t *comm_own)
{
    const nbc_config *cfg = run->cfg;
    size_t comps = cfg->grid.comp_count, comms = nbc_comm_axis_count(cfg);
    char err[PATH_MAX + 1024] = "";
    nbc_resume from = {0};
    bool bad = run->rank == 0 && read_calibration_from(run, &from, err, sizeof err) != 0;
    nbc_exit_if_any_failed(bad, err, 2);
    unsigned long long own[2] = {prior->comp_done, prior->comm_done};
    if (run->rank == 0) {
        memcpy(prior->comp + own[0], from.comp + own[0], (comps - own[0]) * sizeof *prior->comp);
        memcpy(prior->comm + own[1], from.comm + own[1], (comms - own[1]) * sizeof *prior->comm);
    }
    nbc_resume_free(&from);
    NBC_CHECK_MPI(
        MPI_Bcast(prior->comp, (int)(comps * sizeof *prior->comp), MPI_BYTE, 0, run->comm));
    NBC_CHECK_MPI(
        MPI_Bcast(prior->comm, (int)(comms * sizeof *prior->comm), MPI_BYTE, 0, run->comm));
    *comp_own = own[0];
    *comm_own = own[1];
    prior->comp_done = comps;
    prior->comm_done = comms;
}

/* What the run folder already holds: nothing for a new run; for --resume,
 * what rank 0 reads there, broadcast to every rank. Exits 2 on a folder that
 * does not belong to this configuration and library. */
void nbc_load_prior(nbc_run *run, const char *resume_dir, nbc_resume *prior)
{
    load_prior(run, resume_dir, false, prior);
}

/* --replay: the source run's calibrations only, read without changing it
 * (nbc_replay_check has matched its ranks and library). */
void nbc_load_prior_calibrations(nbc_run *run, const char *run_dir, nbc_resume *prior)
{
    load_prior(run, run_dir, true, prior);
}

static void load_prior(nbc_run *run, const char *resume_dir, bool calibrations_only,
                       nbc_resume *prior)
{
    const nbc_config *cfg = run->cfg;
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    char err[PATH_MAX + 1024] = "";
    bool bad = false;
    if (run->rank == 0 && resume_dir) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/meta.json", resume_dir);
        json_object *meta = json_object_from_file(path), *v;
        int ranks =
            meta && json_object_object_get_ex(meta, "ranks", &v) ? json_object_get_int(v) : -1;
        const char *mpi =
            meta && json_object_object_get_ex(meta, "mpi", &v) ? json_object_get_string(v) : "";
        if (!meta) {
            snprintf(err, sizeof err, "--resume: %s is missing or not JSON: not a run folder",
                     path);
            bad = true;
        } else if (ranks != run->ranks || strcmp(mpi, nbc_compiled_mpi()) != 0) {
            snprintf(err, sizeof err,
                     "--resume: %s ran on %d ranks with %s; resume it the same way (this is %d "
                     "ranks with %s)",
                     resume_dir, ranks, mpi, run->ranks, nbc_compiled_mpi());
            bad = true;
        } else {
            bad = (calibrations_only
                       ? nbc_resume_read_calibrations(resume_dir, cfg, prior, err, sizeof err)
                       : nbc_resume_load(resume_dir, cfg, run->ranks, prior, err, sizeof err)) != 0;
        }
        json_object_put(meta);
    } else {
        *prior = (nbc_resume){
            .comp = calloc(cfg->grid.comp_count, sizeof(compute_calib_result)),
            .comm = calloc(nbc_comm_axis_count(cfg), sizeof(nbc_comm_calibration)),
            .cell_done = calloc(cells, sizeof(bool)),
        };
        bad = !prior->comp || !prior->comm || !prior->cell_done;
        if (bad)
            snprintf(err, sizeof err, "out of memory");
    }
    nbc_exit_if_any_failed(bad, err, 2);
    unsigned long long counts[4] = {prior->comp_done, prior->comm_done, prior->passive_done,
                                    (unsigned long long)prior->next_seq};
    long keep = prior->raw_keep_bytes;
    NBC_CHECK_MPI(MPI_Bcast(counts, 4, MPI_UNSIGNED_LONG_LONG, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(&keep, 1, MPI_LONG, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(prior->comp, (int)(cfg->grid.comp_count * sizeof *prior->comp),
                            MPI_BYTE, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(prior->comm, (int)(nbc_comm_axis_count(cfg) * sizeof *prior->comm),
                            MPI_BYTE, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(prior->cell_done, (int)cells, MPI_C_BOOL, 0, run->comm));
    prior->comp_done = counts[0];
    prior->comm_done = counts[1];
    prior->passive_done = counts[2] != 0;
    prior->next_seq = (int64_t)counts[3];
    prior->raw_keep_bytes = keep;
}
