/* deploy: the deployment plan, the one place that decides what a
 * deployment (run.deployment, paper section 7) means on a given library and
 * rank: the environment set before MPI_Init, the thread level asked of
 * MPI_Init_thread, which progress thread runs (the library's, the suite's,
 * none) and on which cores, the compute team's cores, the OpenMP wait
 * policy, the progress mode of the measurement; or a refusal with its
 * message. bench_nbc asks it before MPI_Init (environment, thread level),
 * after placing the rank (cores), and for `bench_nbc --plan`, which prints
 * the plan as JSON without starting MPI (docs/running.md).
 *
 * Plain C, no MPI (the thread level is a deploy_thread_level, in the order
 * of MPI's constants): unit tests give it any profile, configuration,
 * placement and environment.
 *
 * The deployments are the rows of deploy/deployments.def (what each means,
 * whose progress thread runs, which cores it takes): plan.c applies a row.
 * A library's progress switch set by the user in a deployment that does not
 * want it, or any setting of the plan the user set otherwise, is refused. */
#ifndef DEPLOY_PLAN_H
#define DEPLOY_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "compute/compute.h"
#include "mpiprofile/mpiprofile.h"

struct json_object;

/* MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE, in the standard's order. */
typedef enum {
    DEPLOY_THREAD_SINGLE,
    DEPLOY_THREAD_FUNNELED,
    DEPLOY_THREAD_SERIALIZED,
    DEPLOY_THREAD_MULTIPLE,
} deploy_thread_level;

typedef enum {
    DEPLOY_PROGRESS_NONE,    /* no progress thread */
    DEPLOY_PROGRESS_LIBRARY, /* the MPI library's own (MPICH_ASYNC_PROGRESS, ...) */
    DEPLOY_PROGRESS_SUITE,   /* bench_nbc's (bench_nbc/measure/progress.c) */
} deploy_progress_thread;

/* How the progress thread gets its cores. */
typedef enum {
    DEPLOY_BIND_SHARED,          /* it shares the compute cores (bound to the rank's cores) */
    DEPLOY_BIND_LIBRARY_SETTING, /* the library's own setting (bind_setting) */
    DEPLOY_BIND_AFTER_INIT,      /* sched_setaffinity on the threads MPI_Init created */
    DEPLOY_BIND_SUITE,           /* the suite binds its own thread */
} deploy_bind;

/* One variable set before MPI_Init. */
typedef struct deploy_setting {
    char *name, *value;
    char source[160]; /* "profile mpich, deployment dedicated", "OpenMP wait policy" */
    char *user_value; /* what the environment already held, or NULL */
} deploy_setting;

enum { DEPLOY_MAX_SETTINGS = 32 };

typedef struct deploy_input {
    const nbc_config *cfg;
    const mpiprofile *profile; /* the library's (mpiprofile_identify) */
    const char *version;       /* the library's version */
    const int *cpus;           /* this rank's cores, in order (placement) */
    int cpu_count;
    const char *placement_source;   /* how they were found, for the record */
    int machine_cpus;               /* CPUs of the node: bounds the local ranks ({free_cpus*}) */
    const char *const *environment; /* NAME=VALUE, NULL-terminated: the user's */
} deploy_input;

typedef struct deploy_plan {
    nbc_deployment deployment;
    bool refused;
    char refusal[1024]; /* the message (exit 2) when refused */
    deploy_setting env[DEPLOY_MAX_SETTINGS];
    size_t env_count;
    deploy_thread_level thread_level; /* asked of MPI_Init_thread; provided must be >= */
    deploy_progress_thread progress_thread;
    deploy_bind bind;
    const char *bind_setting; /* DEPLOY_BIND_LIBRARY_SETTING: the variable's name */
    bool confirm;             /* the binding must be confirmed after MPI_Init (dedicated) */
    bool unconfirmed_ok;      /* ... else the run goes on, marked unconfirmed */
    bool oversubscribed;      /* the suite's thread shares the compute cores */
    int progress_cpus[COMPUTE_MAX_CPUS]; /* where the progress thread runs */
    int progress_cpu_count;
    /* Where the threads MPI_Init creates are bound (the library's progress
     * thread and its helpers): the free cores for dedicated, else the rank's. */
    int library_cpus[COMPUTE_MAX_CPUS];
    int library_cpu_count;
    int compute_cpus[COMPUTE_MAX_CPUS]; /* one OpenMP thread each */
    int compute_count;
    const char *wait_policy; /* OMP_WAIT_POLICY: "passive" where a progress thread shares cores */
    double barrier_sleep_min_s; /* the window barrier's least sleep: a busy library thread shares
                                   the cores; 0: it spins its whole margin */
    const char *barrier_why;    /* why it spins or sleeps, for the run's log and meta.json */
    nbc_progress_mode progress_mode;
    int test_chunks;       /* progress_mode test: K; 0 with a period (deploy_test_chunks) */
    double test_period_us; /* > 0: MPI_Test every P us, the chunks follow each cell's t_comp */
    /* What the suite's progress thread calls (deployment thread): the
     * library's own progress function where its profile names one for this
     * version (resolved after MPI_Init), else NULL: MPI_Iprobe on a private
     * communicator. poll_why says which, and why. */
    const char *poll_function;
    int poll_argument;
    char poll_why[320];
} deploy_plan;

/* Makes the plan of in->cfg's deployment. 0, or -1 with plan->refused and
 * the message in plan->refusal (the key named, the reason, what would run).
 * The plan must be freed either way. */
int deploy_plan_make(const deploy_input *in, deploy_plan *plan);
void deploy_plan_free(deploy_plan *plan);

/* The chunks of a compute step of t_comp_s in progress mode test: with a
 * period P (progress.test_period_us > 0), max(1, round(t_comp_s / P)), so
 * that MPI_Test polls every P of computation whatever the cell; else the
 * fixed count (test:K, progress.test_chunks). */
int deploy_test_chunks(int fixed_chunks, double test_period_us, double t_comp_s);

/* MPI_Init_thread's provided level against the plan's: 0 when it is at
 * least plan->thread_level; -1 with a message naming the deployment, both
 * levels and what needs the level. */
int deploy_check_thread_level(const deploy_plan *plan, deploy_thread_level provided, char *err,
                              size_t errlen);

/* The plan as JSON (docs/running.md, "bench_nbc --plan"); a new reference,
 * NULL when out of memory. */
struct json_object *deploy_plan_json(const deploy_plan *plan, const deploy_input *in);

/* The row's meaning (deployments.def), "unknown" out of range. */
const char *deploy_meaning(nbc_deployment deployment);

/* The deployments' table (deploy/deployments.def) as a JSON array, one
 * object per row with its fields named as there in lower case (name,
 * thread, cores, library_threads, polls, profile_key, meaning): what
 * `bench_nbc --plan` and `schema_doc --json` list as "deployments", for the
 * tools in other languages. A new reference, NULL when out of memory. */
struct json_object *deploy_table_json(void);

/* Names for the record: "none", "library", "suite"; "shared", ...;
 * "single" .. "multiple". */
const char *deploy_progress_thread_name(deploy_progress_thread thread);
const char *deploy_bind_name(deploy_bind bind);
const char *deploy_thread_level_name(deploy_thread_level level);

/* "0,2,5" into buf. */
void deploy_cpu_list(const int *cpus, int count, char *buf, size_t len);

#endif
