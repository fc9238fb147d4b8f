/* The job's studies: every (collective, rank count) of run.collectives x
 * run.ranks, one after the other, each measured by the job's first N ranks
 * on a sub-communicator (as IMB's -npmin), in its own run folder, with the
 * job's clock sync and computation calibration. The other ranks wait asleep
 * until the study's ranks release them with its status. */
#include "bench_nbc/collectives/datacheck.h"
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/run.h"
#include "bench_nbc/stages/stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nbc_plan_studies(nbc_job *job)
{
    nbc_config *cfg = &job->cfg;
    char *err = job->err;
    size_t errlen = sizeof job->err;
    job->coll_count = cfg->run.collectives_count ? cfg->run.collectives_count : 1;
    job->rank_count_count = cfg->run.ranks_count ? cfg->run.ranks_count : 1;
    job->colls = calloc(job->coll_count, sizeof *job->colls);
    job->rank_counts = calloc(job->rank_count_count, sizeof *job->rank_counts);
    nbc_exit_if_any_failed(!job->colls || !job->rank_counts, "out of memory for the studies", 1);
    for (size_t i = 0; i < job->coll_count; i++)
        job->colls[i] = nbc_collective_find(cfg->run.collectives_count ? cfg->run.collectives[i]
                                                                       : cfg->run.collective);
    for (size_t i = 0; i < job->rank_count_count; i++)
        job->rank_counts[i] = cfg->run.ranks_count ? cfg->run.ranks[i] : job->ranks;
    job->study_count = job->coll_count * job->rank_count_count;
    /* Every study is checked before anything is measured. */
    coll_options options = nbc_coll_options(cfg);
    bool bad = false;
    for (size_t s = 0; s < job->study_count && !bad; s++) {
        const nbc_collective *coll = job->colls[s / job->rank_count_count];
        int ranks = job->rank_counts[s % job->rank_count_count];
        bad = (cfg->run.check && nbc_datacheck_supports(coll, err, errlen) != 0) ||
              nbc_collective_check_options(coll, &options, ranks, err, errlen) != 0;
    }
    nbc_exit_if_any_failed(bad, err, 2);
    /* Each study's config.ini is a one-collective run on its ranks, which
     * --resume and the analysis read as they read any run folder. */
    bad = nbc_config_set(cfg, "run.collectives=", err, errlen) != 0 ||
          nbc_config_set(cfg, "run.ranks=", err, errlen) != 0;
    nbc_exit_if_any_failed(bad, err, 1);
    NBC_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &job->waiting));
}

/* The current study ended on its ranks: the others are told its status. */
static void close_study(nbc_job *job)
{
    if (job->in_study) {
        nbc_release_waiting(job->study_status, false);
        nbc_errors_scope(MPI_COMM_NULL, MPI_COMM_NULL);
        NBC_CHECK_MPI(MPI_Comm_free(&job->study_comm));
        job->in_study = false;
    }
}

/* The job's exit status: an interrupted study ends the job (3); else the
 * first study that failed (1) or measured nothing (5). */
static void note_status(nbc_job *job, int status)
{
    if (job->status == 0 || status == 3)
        job->status = status;
}

/* This rank's part of the study: the run on its sub-communicator, with a
 * clock sync context that starts from the job's. */
static void open_study(nbc_job *job, const nbc_collective *coll, int ranks)
{
    char assignment[128];
    snprintf(assignment, sizeof assignment, "run.collective=%s", coll->name);
    nbc_exit_if_any_failed(nbc_config_set(&job->cfg, assignment, job->err, sizeof job->err) != 0,
                           job->err, 1);
    nbc_run *run = &job->study.run;
    run->comm = job->study_comm;
    run->ranks = ranks;
    run->coll = coll;
    run->out = NULL;
    run->mpit = NULL;
    run->next_seq = 0;
    run->barrier_precision_ns = 0;
    NBC_CHECK_MPI(clocksync_create_sub(&run->sync, job->shared.sync, job->study_comm));
    /* raw.csv times count from the study's start, as in a run of its own. */
    run->epoch_global_ns = clocksync_now_global_ns(run->sync);
    NBC_CHECK_MPI(MPI_Bcast(&run->epoch_global_ns, 1, MPI_INT64_T, 0, job->study_comm));
    /* The first study continues what the job loaded (a resumed folder);
     * the others start empty, with the job's computation sizes. */
    if (job->next_study > 1) {
        nbc_load_prior(run, NULL, &job->study.prior);
        memcpy(job->study.prior.comp, job->shared.comp,
               job->cfg.grid.comp_count * sizeof *job->shared.comp);
        job->study.prior.comp_done = job->cfg.grid.comp_count;
    }
    job->in_study = true;
}

bool nbc_next_study(nbc_job *job)
{
    if (job->in_study)
        close_study(job);
    if (job->next_study > 0)
        note_status(job, job->study_status);
    while (job->next_study < job->study_count && job->status != 3) {
        size_t s = job->next_study++;
        const nbc_collective *coll = job->colls[s / job->rank_count_count];
        int ranks = job->rank_counts[s % job->rank_count_count];
        bool member = job->rank < ranks;
        NBC_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, job->rank,
                                     &job->study_comm));
        if (member) {
            /* Failures are decided by the study's ranks; the others hear of
             * them where they wait. */
            nbc_errors_scope(job->study_comm, job->waiting);
            open_study(job, coll, ranks);
            return true;
        }
        note_status(job, nbc_wait_released(job->waiting));
    }
    return false;
}
