/* stages/: the pipeline of main.c, each stage in the file named for it,
 * each writing files the next reads (docs/formats.md).
 *
 *   plan_stage.c    MPI started, the rank placed, the deployment plan applied
 *   job_config.c    the configuration read and loaded once (before MPI_Init),
 *                   made rank 0's, and validated for the job
 *   study.c         the job's (collective, rank count) studies, one after the
 *                   other on the first N ranks, the others waiting asleep
 *   run_folder.c    the run folder set up: config.ini, the first meta.json
 *   run_guards.c    watchdog, stop signals, faults aimed by the tests
 *   clock_sync_stage.c  the clocks synchronized, at the start and the end
 *   calibration_stage.c sizes for the targets, the barrier's precision
 *   prior_run.c     what a resumed run folder already holds, broadcast
 *   sweep_stage.c   the sweep with its records around it
 *   finish_stage.c  the raw records converted, meta.json's end, the status
 *
 * The command line stage is bench_nbc/cli.c. */
#ifndef BENCH_NBC_STAGES_H
#define BENCH_NBC_STAGES_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "config/config.h"

/* ---- the pipeline (main.c): one job's state, passed through its stages ---- */
typedef struct nbc_cli {
    const char *config_path;
    const char *resume_dir;
    const char *run_dir_file;
    bool stop_after_calibration;
    const char **sets; /* --set, in order */
    int set_count;
    bool help, list, plan, version;
    nbc_replay replay; /* --replay CELL RUN_DIR (replay.c) */
} nbc_cli;

/* A study measured whose raw.csv still holds times extrapolated from the
 * job's start clock point: what converting them again by interpolation
 * needs once the job's end point is taken, so one end point serves every
 * study of the job (finish_stage.c). */
typedef struct nbc_study_rewrite {
    nbc_run run;      /* its ranks' communicator (owned) and clock context (owned) */
    char dir[4096];   /* rank 0: its run folder, opened again for the rewrite */
    nbc_resume prior; /* the calibrations `plan` points into; raw_keep_bytes */
    nbc_sweep_plan plan;
    nbc_sweep_record record;
} nbc_study_rewrite;

/* What the job's studies share, measured once for the job
 * (clock_sync_stage.c, calibration_stage.c). */
typedef struct nbc_shared {
    clocksync_ctx *sync;        /* the job's clock sync, shared by its studies */
    double clock_read_ns;       /* what one read of the clock costs */
    compute_calib_result *comp; /* the job's computation calibration, shared */
    size_t comp_kept;           /* of them, kept from the resumed run folder */
    bool comp_calibrated;       /* false: a stop signal came first */
    double elapsed_s;           /* what the clock sync and computation calibration took */
} nbc_shared;

/* One study, from its run folder to its end: what its calibration and
 * sweep stages read and write. */
typedef struct nbc_study {
    nbc_run run; /* the current study's (the job's before the first) */
    meta_info meta;
    nbc_resume prior; /* what the folder held, then the sizes calibrated */
    bool calibrated, stopped, interrupted;
    nbc_sweep_plan plan;
    nbc_sweep_record record;
    size_t unreachable;
    size_t comm_own; /* of prior->comm, those the run folder held (run.calibration_from) */
    int rc;          /* MPI_SUCCESS, or the error that failed the run */
    int kept;        /* cells whose every block was kept */
    watchdog_record fire_record; /* what the watchdog records of it when it fires */
} nbc_study;

typedef struct nbc_job {
    char err[1024]; /* the message of the last failure */
    nbc_cli cli;
    int cli_status, plan_status; /* 2: bad command line or plan, said after MPI_Init */
    nbc_deployment_state dep;
    nbc_config cfg;
    /* The configuration as this process read and loaded it before MPI_Init
     * (job_config.c); made rank 0's after it. */
    char *config_text;         /* NULL: none, or not readable here */
    const char *config_origin; /* what messages call it */
    bool config_loaded;        /* false: config_err says why */
    char config_err[1024];
    placement place;
    nbc_threads *threads_log;
    int provided, rank, ranks; /* MPI_Init_thread's level; MPI_COMM_WORLD */
    unsigned seed;             /* of the sweep's orders, in config.ini */
    volatile sig_atomic_t stop_signal;
    /* The studies: every (collective, rank count) of run.collectives x
     * run.ranks (run.collective on every rank when no lists), one after the
     * other, each on the first N ranks and in its own run folder. */
    const nbc_collective **colls;
    size_t coll_count;
    int *rank_counts;
    size_t rank_count_count;
    size_t study_count, next_study;
    bool in_study;               /* this rank measures the current study */
    MPI_Comm study_comm;         /* the current study's first N ranks */
    MPI_Comm waiting;            /* MPI_COMM_WORLD's duplicate the others wait on */
    nbc_shared shared;           /* clock sync and computation sizes, once for the job */
    char first_dir[4096];        /* rank 0: the first study's run folder */
    int study_status, status;    /* the current study's exit status; the job's */
    nbc_study study;             /* the current one */
    nbc_study_rewrite *rewrites; /* this rank's studies, for the job's end point */
    size_t rewrite_count;
} nbc_job;

/* cli.c: -1 when the job goes on, else the status to exit with (--plan
 * printed, without MPI). */
int nbc_parse_stage(nbc_job *job, int argc, char **argv);
/* Rank 0: the usage and keys (--help) and the collectives (both). */
void nbc_print_help_or_list(const nbc_cli *c, int rank);
/* plan_stage.c: -1 when the job goes on, else the status to exit with
 * (--help, --list); bad input exits 2 on every rank. */
int nbc_plan_stage(nbc_job *job, int *argc, char ***argv);
/* job_config.c: before MPI_Init, on every process, the configuration read
 * from its one source (--config, --replay's or --resume's config.ini) and
 * loaded with --set into job->cfg, once (0, or 2 with job->config_err).
 * After MPI_Init, rank 0's text made the job's (exit 2 on every rank when
 * bad), and the configuration checked against the job's limits (true: bad,
 * job->err says why). */
int nbc_read_config(nbc_job *job);
void nbc_load_config(nbc_job *job);
bool nbc_validate_config(nbc_job *job);
/* The limits a configuration is checked against: the collectives, datatypes
 * and library profiles the build knows, the memory of the node shared by
 * local_ranks, the cores of the rank (0: unknown, as ranks). */
nbc_config_limits nbc_config_limits_known(int ranks, int local_ranks, int available_cores);
/* Every check of a run on cfg (nbc_config_validate, each of run.collectives,
 * run.mpi against the library): 0, or -1 with err; used before MPI_Init by
 * --plan too. */
int nbc_check_config(nbc_config *cfg, const nbc_config_limits *limits, char *err, size_t errlen);
/* run_folder.c: collective; exits 2 when the folder cannot be made. */
void nbc_open_run_folder(nbc_job *job);
/* Collective: meta.json's record of the deployment (NULL except on rank 0). */
struct json_object *nbc_deployment_meta_json(nbc_run *run, const nbc_deployment_state *dep);
/* Collective: every rank's threads into meta's thread record under `key`. */
void nbc_record_threads(nbc_run *run, meta_info *meta, const char *host, const char *key);
/* run_guards.c: watchdog started (it records into study's meta), threads_start
 * recorded, signals caught (into study->run.stop_signal). */
void nbc_start_guards(nbc_study *study);
/* clock_sync_stage.c: the job's sync, on every rank, once; the job's end
 * point, on every rank, once (an MPI error code). */
void nbc_clock_sync_stage(nbc_run *run, const deploy_plan *deployment, nbc_shared *shared);
int nbc_clock_sync_end(nbc_run *run, const nbc_shared *shared);
/* calibration_stage.c: the job's computation sizes, on every rank, once
 * (kept ones of a resumed run reused); a study's passive step and message
 * sizes. study->calibrated false on a stop signal. */
void nbc_computation_stage(nbc_study *study, const nbc_cli *cli, nbc_shared *shared);
void nbc_calibration_stage(nbc_study *study, const nbc_cli *cli, const placement *place,
                           const nbc_shared *shared);
/* Rank 0: the job's computation sizes into the study's calib_comp.csv
 * (for the first study, those a resumed run folder holds are not written
 * again). */
void nbc_write_calib_comp_rows(nbc_run *run, const nbc_shared *shared, bool first_study);
/* study.c: the job's studies from the configuration (exit 2 on every rank
 * for one the collective refuses); then, collective on every rank, the
 * next study this rank measures (false: none left). Ranks outside a study
 * wait asleep in here. */
void nbc_plan_studies(nbc_job *job);
bool nbc_next_study(nbc_job *job);
/* Cells calibration could not reach, said once on rank 0; how many. */
size_t nbc_report_unreachable(const nbc_run *run, const nbc_sweep_plan *plan, bool calibrated);
/* sweep_stage.c: every reachable cell not done, with seed's orders (none
 * with --stop-after calibration), and the records around it (sched.csv,
 * the deployment's threads' CPU time, meta's measurement). */
void nbc_sweep_stage(nbc_study *study, const nbc_cli *cli, unsigned seed, nbc_deployment_state *dep,
                     const nbc_shared *shared);
/* finish_stage.c: a study's end (its status in job->study_status); the
 * job's end point, every study's raw.csv converted by interpolation, and
 * the job's exit status, MPI ended. */
void nbc_finish_study(nbc_job *job);
int nbc_finish_stage(nbc_job *job);

/* prior_run.c: what the run folder already holds (nothing for a new run),
 * on every rank. */
void nbc_load_prior(nbc_run *run, const char *resume_dir, nbc_resume *prior);
/* --replay: RUN_DIR's calibrations only, RUN_DIR unchanged. */
void nbc_load_prior_calibrations(nbc_run *run, const char *run_dir, nbc_resume *prior);
/* run.calibration_from: the sizes prior lacks from that run folder (exit 2
 * when it is not the same work); how many the run's own folder held. */
void nbc_load_calibration_from(nbc_run *run, nbc_resume *prior, size_t *comp_own, size_t *comm_own);

#endif
