/* The job's configuration: the text rank 0 reads, parsed by every rank with
 * the --set overrides, then validated against this job (its ranks, cores,
 * memory, library) before anything is measured. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/stages/stages.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The configuration text every rank parses: the file (or the run folder's
 * config.ini) read by rank 0 and broadcast, so other nodes need no access. */
static int read_config_text(const nbc_cli *c, int rank, char **text, char *err, size_t errlen)
{
    char path[PATH_MAX];
    const char *source = c->config_path;
    if (c->resume_dir) {
        snprintf(path, sizeof path, "%s/config.ini", c->resume_dir);
        source = path;
    }
    long len = 0;
    int failed = 0;
    *text = NULL;
    if (rank == 0 && source) {
        failed = nbc_config_read_file(source, text, err, errlen) != 0;
        if (failed && c->resume_dir) {
            char why[512];
            snprintf(why, sizeof why, "%s", err);
            snprintf(err, errlen, "--resume: %s is not a run folder of bench_nbc (%s)",
                     c->resume_dir, why);
        }
        len = failed ? -1 : (long)strlen(*text);
    }
    if (MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    if (len < 0)
        return -1;
    if (rank != 0 && source) {
        *text = malloc((size_t)len + 1);
        failed = *text == NULL;
    }
    int any_failed;
    if (MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS ||
        any_failed) {
        snprintf(err, errlen, "out of memory for the configuration text");
        return -1;
    }
    if (source && MPI_Bcast(*text, (int)len + 1, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    return 0;
}

void nbc_load_config(nbc_job *job)
{
    const nbc_cli *c = &job->cli;
    char *text = NULL;
    const char *origin = c->resume_dir ? "config.ini of the resumed run" : c->config_path;
    bool bad = read_config_text(c, job->rank, &text, job->err, sizeof job->err) != 0 ||
               nbc_config_load(&job->cfg, text, origin, c->sets, c->set_count, job->err,
                               sizeof job->err) != 0;
    free(text);
    /* Parsing is deterministic, but a rank may still fail alone (memory). */
    nbc_exit_if_any_failed(bad, job->err, 2);
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
