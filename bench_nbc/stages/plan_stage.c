/* The plan stage: the deployment plan's environment set, MPI started at the
 * plan's thread level, the configuration validated, the rank placed and its
 * threads bound where the plan says, the compute team and (when the plan
 * has one) the suite's progress thread started. Bad input exits 2 on every
 * rank here, before anything is measured. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* MPI started; 0 when the job goes on, else the status to exit with
 * (--help, --list: 0 once printed). */
static int start_mpi(nbc_job *job, int *argc, char ***argv)
{
    nbc_deployment_state *dep = &job->dep;
    if (job->plan_status == 0 && dep->planned && nbc_deployment_apply_env(dep, *argv) != 0)
        return 1;
    const char *note = nbc_library_note(); /* printed by rank 0 once MPI runs */
    /* The BLAS check counts every thread of the process: it measures before
     * MPI starts its own (MPICH's progress thread), and the call after
     * MPI_Init reports this result. */
    char blas_message[2048];
    (void)compute_blas_check(blas_message, sizeof blas_message);
    nbc_deployment_before_init_threads(dep);
    /* Threads here before MPI_Init are not the library's (threadlog.c). */
    job->threads_log = nbc_threads_create();
    if (MPI_Init_thread(argc, argv, nbc_deployment_thread_level(dep), &job->provided) !=
        MPI_SUCCESS) {
        fprintf(stderr, "bench_nbc: MPI_Init_thread failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    NBC_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &job->rank));
    NBC_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &job->ranks));
    nbc_deployment_after_init_threads(dep);
    nbc_exit_if_any_failed(job->cli_status != 0 || job->plan_status != 0, job->err, 2);
    if (note && job->rank == 0)
        fprintf(stderr, "bench_nbc: %s\n", note);
    if (job->cli.help || job->cli.list) {
        nbc_print_help_or_list(&job->cli, job->rank);
        nbc_threads_free(job->threads_log);
        free(job->cli.sets);
        MPI_Finalize();
        return 0;
    }
    nbc_mpit_job_begin();
    return 0;
}

/* The rank's cores, and the plan for them: the threads MPI_Init created
 * bound (dedicated's binding confirmed before anything is measured). */
static void place_rank(nbc_job *job)
{
    nbc_config *cfg = &job->cfg;
    /* Only a computation that needs no CPU, beside ranks that yield it while
     * they wait, can share cores without measuring the sharing. */
    job->place = (placement){
        .may_share_cores = cfg->compute.kernel == COMPUTE_KERNEL_SLEEP &&
                           mpiprofile_ranks_may_share_cores(nbc_library_profile()) &&
                           strcmp(nbc_library_profile()->name, MPIPROFILE_GENERIC) != 0,
    };
    nbc_exit_if_any_failed(nbc_place_rank(&job->place, job->err, sizeof job->err) != 0, job->err,
                           2);
    bool bad = nbc_validate_config(job);
    /* The deployment, for this rank's cores. */
    bad = bad ||
          nbc_deployment_plan_rank(&job->dep, cfg, &job->place, job->err, sizeof job->err) != 0;
    /* The level the deployment needs, not only the one asked for: a library
     * may provide less (deploy_check_thread_level). */
    bad = bad || deploy_check_thread_level(&job->dep.plan, nbc_deployment_level_of(job->provided),
                                           job->err, sizeof job->err) != 0;
    nbc_exit_if_any_failed(bad, job->err, 2);
    if (job->cli.replay.cell_text)
        nbc_replay_check(&job->cli.replay, cfg, job->rank, job->ranks);
    nbc_exit_if_any_failed(job->threads_log == NULL, "out of memory for the thread record", 1);
    bad = nbc_deployment_bind_library_threads(&job->dep, job->err, sizeof job->err) != 0;
    nbc_exit_if_any_failed(bad, job->err, 2);
    if (strcmp(job->dep.binding, "unconfirmed") == 0)
        fprintf(stderr, "bench_nbc: rank %d: warning: %s; the run is marked unconfirmed\n",
                job->rank, job->err);
}

/* The seed of the sweep's orders: chosen once, written into config.ini so a
 * resumed or repeated run can use it again. */
static void choose_seed(nbc_job *job)
{
    unsigned seed = (unsigned)job->cfg.run.seed;
    if (seed == 0 && job->rank == 0)
        seed = 1 + (unsigned)(time(NULL) % 2147483646);
    NBC_CHECK_MPI(MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD));
    char seed_assignment[64];
    snprintf(seed_assignment, sizeof seed_assignment, "run.seed=%u", seed);
    nbc_exit_if_any_failed(
        nbc_config_set(&job->cfg, seed_assignment, job->err, sizeof job->err) != 0, job->err, 2);
    job->seed = seed;
}

/* The collective and its options checked, the compute team and the suite's
 * progress thread started: job->study.run ready for the stages. */
static void start_run(nbc_job *job)
{
    const nbc_config *cfg = &job->cfg;
    const deploy_plan *deploy = &job->dep.plan;
    char *err = job->err;
    size_t errlen = sizeof job->err;
    const nbc_collective *coll = job->colls[0];
    nbc_exit_if_any_failed(compute_blas_check(err, errlen) != 0, err, 2);
    coll_options coll_opts = nbc_coll_options(cfg);

    compute_options copt = {
        .threads = deploy->compute_count,
        .cpu_ids = deploy->compute_cpus,
        .kernel = cfg->compute.kernel,
        /* rank k works (1 + k/10) T, like the synthetic rows */
        .sleep_scale = 1.0 + job->rank / 10.0,
    };
    compute_team *team = compute_team_create(&copt, err, errlen);
    nbc_exit_if_any_failed(team == NULL, err, 2);

    job->study.run = (nbc_run){
        .comm = MPI_COMM_WORLD,
        .rank = job->rank,
        .ranks = job->ranks,
        .cfg = cfg,
        .coll = coll,
        .team = team,
        .progress = deploy->progress_mode,
        .test_chunks = deploy->test_chunks,
        .stop_signal = &job->stop_signal,
        .max_retries = cfg->run.max_retries,
        .late_patience_s = cfg->run.late_patience_s,
        .check = cfg->run.check,
        .coll_options = coll_opts,
        .threads = job->threads_log,
    };
    /* Degenerate placements are refused before anything is measured. */
    nbc_threads_check_placement(&job->study.run, job->place.host, job->place.may_share_cores);
    if (deploy->progress_thread == DEPLOY_PROGRESS_SUITE) {
        /* Oversubscribed, it inherits the compute team's first core. */
        int cpu = deploy->oversubscribed ? -1 : deploy->progress_cpus[0];
        progress_poll_fn *poll = NULL;
        if (deploy->poll_function) {
            /* The profile says this version exports it: a library that
             * does not is not the one the plan was made for. */
            *(void **)&poll = dlsym(RTLD_DEFAULT, deploy->poll_function);
            if (!poll)
                snprintf(err, errlen,
                         "run.deployment: \"thread\" would call %s, but this MPI library does "
                         "not export it (%s); fix the profile's poll_versions in configs/mpi "
                         "(docs/mpi-profiles.md)",
                         deploy->poll_function, deploy->poll_why);
            nbc_exit_if_any_failed(poll == NULL, err, 2);
        }
        job->study.run.progress_thread =
            progress_thread_start(MPI_COMM_WORLD, cpu, poll, deploy->poll_argument, err, errlen);
        nbc_exit_if_any_failed(job->study.run.progress_thread == NULL, err, 2);
        nbc_deployment_track_suite_thread(&job->dep,
                                          progress_thread_tid(job->study.run.progress_thread));
    }
}

int nbc_plan_stage(nbc_job *job, int *argc, char ***argv)
{
    /* Standard output is the run's record (its folder, what calibration
     * found), standard error what needs the reader (progress, warnings,
     * errors): a caller such as nbc-run logs the one and shows the other.
     * Line-buffered, so that a log holding both keeps their order. */
    if (setvbuf(stdout, NULL, _IOLBF, 0) != 0)
        fprintf(stderr, "bench_nbc: note: standard output stays fully buffered\n");
    int status = start_mpi(job, argc, argv);
    if (status != 0 || job->cli.help || job->cli.list)
        return status;
    nbc_load_config(job);
    place_rank(job);
    choose_seed(job);
    nbc_plan_studies(job);
    start_run(job);
    return -1;
}
