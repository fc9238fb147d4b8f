/* The job's configuration: read and loaded once by every process before
 * MPI_Init (the deployment plan needs it), rank 0's text then made the
 * job's, and validated against this job (its ranks, cores, memory,
 * library) before anything is measured. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/stages/stages.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The configuration's one source: --config's file (--replay's
 * RUN_DIR/config.ini, replay.c), or the resumed run folder's config.ini;
 * NULL: none (the defaults and --set). origin names it in messages. */
static const char *config_source(const nbc_cli *c, char *path, size_t size, const char **origin)
{
    *origin = c->config_path;
    if (!c->resume_dir)
        return c->config_path;
    snprintf(path, size, "%s/config.ini", c->resume_dir);
    *origin = "config.ini of the resumed run";
    return path;
}

int nbc_read_config(nbc_job *job)
{
    const nbc_cli *c = &job->cli;
    char *err = job->config_err, path[PATH_MAX];
    size_t errlen = sizeof job->config_err;
    const char *source = config_source(c, path, sizeof path, &job->config_origin);
    job->config_text = NULL;
    bool read = !source || nbc_config_read_file(source, &job->config_text, err, errlen) == 0;
    if (!read && c->resume_dir) {
        char why[512];
        snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, err);
        snprintf(err, errlen, "--resume: %s is not a run folder of bench_nbc (%s)", c->resume_dir,
                 why);
    }
    job->config_loaded = read && nbc_config_load(&job->cfg, job->config_text, job->config_origin,
                                                 c->sets, c->set_count, err, errlen) == 0;
    return job->config_loaded ? 0 : 2;
}

/* Rank 0's text is the job's, broadcast so that other nodes need no access
 * to the file: a rank that read another text (or none) loads rank 0's. */
static void share_config_text(nbc_job *job)
{
    const nbc_cli *c = &job->cli;
    long len = 0;
    if (job->rank == 0)
        len = job->config_text ? (long)strlen(job->config_text) : -1;
    NBC_CHECK_MPI(MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    if (len < 0) { /* rank 0 could not read it: its message says why */
        job->config_loaded = false;
        return;
    }
    char *text = job->rank == 0 ? job->config_text : malloc((size_t)len + 1);
    int failed = text == NULL, any_failed;
    NBC_CHECK_MPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (any_failed) {
        snprintf(job->config_err, sizeof job->config_err,
                 "out of memory for the configuration text");
        job->config_loaded = false;
        if (job->rank != 0)
            free(text);
        return;
    }
    NBC_CHECK_MPI(MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (job->rank == 0)
        return;
    if (!job->config_text || strcmp(job->config_text, text) != 0) {
        nbc_config_free(&job->cfg);
        job->config_loaded =
            nbc_config_load(&job->cfg, text, job->config_origin, c->sets, c->set_count,
                            job->config_err, sizeof job->config_err) == 0;
    }
    free(job->config_text);
    job->config_text = text;
}

void nbc_load_config(nbc_job *job)
{
    const nbc_cli *c = &job->cli;
    if (c->config_path || c->resume_dir)
        share_config_text(job);
    free(job->config_text);
    job->config_text = NULL;
    /* Parsing is deterministic, but a rank may still fail alone (memory). */
    nbc_exit_if_any_failed(!job->config_loaded, job->config_err, 2);
}

nbc_config_limits nbc_config_limits_known(int ranks, int local_ranks, int available_cores)
{
    size_t n_names, n_profiles, n_datatypes;
    const char *const *names = nbc_collective_names(&n_names);
    const char *const *datatypes = nbc_collective_datatype_names(&n_datatypes);
    const char *const *profiles = nbc_library_profile_names(&n_profiles);
    return (nbc_config_limits){
        .collectives = names,
        .collective_count = n_names,
        .collective_unavailable = nbc_scenario_unavailable,
        .mpi_profiles = profiles,
        .mpi_profile_count = n_profiles,
        .available_cores = available_cores,
        .available_memory_bytes =
            compute_available_memory_bytes() / (uint64_t)(local_ranks > 0 ? local_ranks : 1),
        .datatypes = datatypes,
        .datatype_count = n_datatypes,
        .buffer_bytes = nbc_config_buffer_bytes,
        .size_limit = nbc_config_size_limit,
        .ranks = ranks,
        .local_ranks = local_ranks,
    };
}

int nbc_check_config(nbc_config *cfg, const nbc_config_limits *limits, char *err, size_t errlen)
{
    bool bad = nbc_config_validate(cfg, limits, err, errlen) != 0;
    /* Each of run.collectives has its buffers checked against the memory,
     * as run.collective is. */
    char *alone = cfg->run.collectives_count ? strdup(cfg->run.collective) : NULL;
    bad = bad || (cfg->run.collectives_count && !alone);
    for (size_t i = 0; !bad && i < cfg->run.collectives_count; i++) {
        char assignment[128];
        snprintf(assignment, sizeof assignment, "run.collective=%s", cfg->run.collectives[i]);
        bad = nbc_config_set(cfg, assignment, err, errlen) != 0 ||
              nbc_config_validate(cfg, limits, err, errlen) != 0;
    }
    if (alone) {
        char assignment[128];
        snprintf(assignment, sizeof assignment, "run.collective=%s", alone);
        bad = nbc_config_set(cfg, assignment, err, errlen) != 0 || bad;
        free(alone);
    }
    /* run.mpi against the library. */
    return bad || nbc_library_check(cfg, err, errlen) != 0 ? -1 : 0;
}

bool nbc_validate_config(nbc_job *job)
{
    nbc_config_limits limits =
        nbc_config_limits_known(job->ranks, job->place.local_ranks, job->place.cpu_count);
    return nbc_check_config(&job->cfg, &limits, job->err, sizeof job->err) != 0;
}
