/* library/: the MPI library this process runs with, and where it runs.
 *
 *   library.c       its profile (configs/mpi/, mpiprofile/), settings, checks
 *   deployment.c    the deployment plan (deploy/plan.h) carried out: its
 *                   environment, the threads MPI_Init created bound, the record
 *   placement.c     which cores a rank computes on
 *   coll_config.c   the collective's options and buffers as configured, with
 *                   the library's size limits */
#ifndef BENCH_NBC_LIBRARY_H
#define BENCH_NBC_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench_nbc/collectives/collectives.h"
#include "compute/compute.h"
#include "config/config.h"
#include "deploy/plan.h"
#include "mpiprofile/mpiprofile.h"

/* ---- placement.c ---- */
typedef struct placement {
    int cpus[COMPUTE_MAX_CPUS]; /* this rank's cores */
    int cpu_count;
    int local_rank, local_ranks;
    char host[256];
    bool split;           /* the ranks of this host shared one CPU set and were given slices */
    bool may_share_cores; /* in: ranks may outnumber cores (compute.kernel = sleep) */
} placement;

/* Collective: this rank's cores (its allowed set, or its slice of it when the
 * ranks of a host share one set) and host. 0, or -1 with a message. */
int nbc_place_rank(placement *p, char *err, size_t errlen);

/* ---- library.c: the MPI library this process runs with ---- */
/* Before MPI_Init (allowed for MPI_Get_library_version): identifies the
 * library against the profiles of configs/mpi/ (mpiprofile/); the generic
 * profile, with a warning, when none matches. Called again, does nothing. */
void nbc_library_identify(void);
/* The profile and version identified (the generic profile when none). */
const mpiprofile *nbc_library_profile(void);
const char *nbc_library_version(void);
/* The library as its users name it, its profile's display name and
 * version ("MPICH 4.0.2", meta.json mpi_library_name); "" for a library
 * without a profile or without a version. */
void nbc_library_name(char *out, size_t out_size);
/* Records a setting of the deployment plan for meta.json's mpi_library
 * (applied: set by bench_nbc; user_value: what the environment had). */
void nbc_library_record_setting(const char *name, const char *value, const char *source,
                                const char *user_value, bool applied);
/* What rank 0 prints once MPI runs (workarounds, warnings), or NULL. */
const char *nbc_library_note(void);
/* The values run.mpi accepts: auto, every profile, generic. */
const char *const *nbc_library_profile_names(size_t *count);
/* run.mpi against the library (and its profiles readable): 0, or -1 with a
 * message. What a deployment needs of the library is the plan's. */
int nbc_library_check(const nbc_config *cfg, char *err, size_t errlen);
/* The largest S a collective can take with this library, from the profile's
 * size limits that apply to its version ([size_limit.*], a limit per
 * buffer divided by the blocks of S of the largest buffer, rounded down to
 * the collective's unit); SIZE_MAX when none applies. *limit (may be NULL)
 * gets the limit, or NULL. A scenario's parts each have their own limit on
 * their own bytes: the smallest S that brings one to it is the scenario's
 * (*limit that part's). */
size_t nbc_library_max_bytes(const nbc_collective *coll, const coll_options *options, int ranks,
                             const mpiprofile_size_limit **limit);
/* "MPICH 4.0.2 (profile mpich, [size_limit.NAME]): REASON" for messages. */
void nbc_library_describe_limit(const mpiprofile_size_limit *limit, char *out, size_t outlen);
/* Records a size limit that applies to a collective of the run for
 * meta.json's mpi_library.size_limits (once per limit and collective):
 * max_s_bytes is the largest S it leaves, capped whether it lowers the
 * communication calibration's search. */
void nbc_library_record_size_limit(const mpiprofile_size_limit *limit, const char *collective,
                                   size_t max_s_bytes, bool capped);
/* meta.json's "mpi_library": profile, version, file, settings, workarounds,
 * size limits, warnings (a new reference). */
struct json_object *nbc_library_json(void);
/* The profile name of the library this process runs with (e.g. "mpich";
 * the run folder's and meta.json's "mpi"). */
const char *nbc_compiled_mpi(void);

/* ---- deployment.c ---- */
enum { NBC_MAX_TRACKED_THREADS = 256 };
/* A thread whose place the deployment decides. */
typedef struct nbc_tracked_thread {
    pid_t tid;
    char name[32];
    char cpus_before[256];              /* allowed CPUs as MPI_Init left them */
    char cpus[256];                     /* allowed CPUs once bound */
    char bound_by[96];                  /* the library's setting, sched_setaffinity, ... */
    bool confirmed;                     /* allowed only the plan's CPUs */
    int64_t cpu_ns_start, cpu_ns_sweep; /* on-CPU time, at the sweep's start and over it */
} nbc_tracked_thread;

typedef struct nbc_deployment_state {
    bool planned;
    deploy_plan plan;
    struct json_object *plan_json;
    int cpus[COMPUTE_MAX_CPUS]; /* the placement the plan was made for */
    int cpu_count;
    char placement_source[160];
    pid_t before[NBC_MAX_TRACKED_THREADS]; /* threads before MPI_Init */
    int before_count;
    nbc_tracked_thread library[NBC_MAX_TRACKED_THREADS]; /* created by MPI_Init */
    int library_count;
    nbc_tracked_thread suite; /* tid 0: none */
    const char *binding;      /* "confirmed", "unconfirmed", "not required" */
} nbc_deployment_state;

/* Before MPI_Init: the plan for the placement guessed from the allowed CPUs
 * and the launcher's local rank count. 0, or -1 with the refusal in err. */
int nbc_deployment_plan_before_init(nbc_deployment_state *st, const nbc_config *cfg, char *err,
                                    size_t errlen);
/* The MPI constant of the plan's thread level (funneled when no plan). */
int nbc_deployment_thread_level(const nbc_deployment_state *st);
/* MPI_THREAD_* (as MPI_Init_thread provided it) as a deploy_thread_level. */
deploy_thread_level nbc_deployment_level_of(int mpi_level);
/* Sets the plan's environment (recorded in mpi_library.settings); when the
 * OpenMP wait policy was not the plan's, starts the program again (execv)
 * so the OpenMP runtime reads it. -1 when that failed. */
int nbc_deployment_apply_env(nbc_deployment_state *st, char **argv);
/* The threads just before MPI_Init, then those MPI_Init created. */
void nbc_deployment_before_init_threads(nbc_deployment_state *st);
int nbc_deployment_after_init_threads(nbc_deployment_state *st);
/* After placing the rank: the plan again, for its real cores. */
int nbc_deployment_plan_rank(nbc_deployment_state *st, const nbc_config *cfg,
                             const placement *place, char *err, size_t errlen);
/* Binds every thread MPI_Init created to the plan's library CPUs and, for
 * dedicated, confirms it from their allowed CPUs: -1 with a message when not
 * confirmed and progress.unconfirmed_ok is false. */
int nbc_deployment_bind_library_threads(nbc_deployment_state *st, char *err, size_t errlen);
/* The suite's progress thread, for the record (tid 0: none). */
void nbc_deployment_track_suite_thread(nbc_deployment_state *st, pid_t tid);
/* On-CPU time of the tracked threads at the sweep's start (end = false) and
 * over it (end = true). */
void nbc_deployment_sweep_mark(nbc_deployment_state *st, bool end);
/* A thread's on-CPU time (ns) from /proc/self/task/<tid>/schedstat; -1. */
int64_t nbc_thread_cpu_ns(pid_t tid);
/* This rank's record: its binding verdict and tracked threads. */
struct json_object *nbc_deployment_rank_json(const nbc_deployment_state *st, int rank);
void nbc_deployment_free(nbc_deployment_state *st);

/* ---- coll_config.c ---- */
/* The collective's options as configured (run.root, run.datatype,
 * run.in_place); the datatype's name must be valid. */
coll_options nbc_coll_options(const nbc_config *cfg);
/* nbc_buffer_bytes_fn for the configuration's limits: the exact buffers
 * of run.collective with its options. */
uint64_t nbc_config_buffer_bytes(const nbc_config *cfg, uint64_t bytes, int ranks, char *what,
                                 size_t whatlen);
/* nbc_size_limit_fn: the library profile's size limit for the
 * configuration's collective (recorded for meta.json when there is one). */
uint64_t nbc_config_size_limit(const nbc_config *cfg, int ranks, char *why, size_t whylen);

#endif
