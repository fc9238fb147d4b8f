/* Internal API shared by the driver's files (bench_nbc/). The program's
 * public interface is its command line; this header is not used elsewhere.
 *
 *   main.c          the pipeline: the stages in their order
 *   cli.c           the command line, --help, --list, --plan
 *   job_config.c    the configuration read, parsed and validated for the job
 *   plan_stage.c    MPI started, the rank placed, the deployment plan applied
 *   study.c         the job's (collective, rank count) studies, one after the
 *                   other on the first N ranks, the others waiting asleep
 *   run_folder.c    the run folder set up: config.ini, the first meta.json
 *   run_guards.c    watchdog, stop signals, faults aimed by the tests
 *   clock_sync_stage.c  the clocks synchronized, at the start and the end
 *   calibration_stage.c sizes for the targets, the barrier's precision
 *   passive_step.c  the computation inside MPI alone (equation 2)
 *   prior_run.c     what a resumed run folder already holds, broadcast
 *   sweep_stage.c   the sweep with its records around it
 *   finish_stage.c  the raw records converted, meta.json's end, the status
 *   coll_config.c   the collective's options and buffers as configured
 *   placement.c     which cores a rank computes on
 *   meta.c          meta.json
 *   library.c       the MPI library: its profile, settings, checks
 *   deployment.c    the deployment plan (deploy/plan.h) carried out: its
 *                   environment, the threads MPI_Init created bound, the record
 *   errors.c        failing together on every rank
 *   collectives.c   the table of operations and their buffers
 *   measure.c       one timed measurement of a kind (Algorithm 1 and the
 *                   references), behind the window barrier, with retries
 *   progress.c      the benchmark's own progress thread (progress.mode=thread)
 *   threadlog.c     every thread's role and CPUs (meta.json), the scheduler's
 *                   counters per attempt (sched.csv); placement refusals
 *   watchdog.c      ends a hung job with a message naming cell, rank, call
 *   calibrate.c     message and matrix sizes for target times
 *   size_search.c   the message size search (no MPI, size_search.h)
 *   stopping.c      when a cell has blocks enough (no MPI, stopping.h)
 *   sweep.c         the grid of cells, repetitions, raw records
 *   resume.c        what an interrupted run folder already holds
 *   output.c        the run folder: CSV files and meta.json
 *   node_record.c   provenance.json: each node's facts (provenance/), warnings
 *   mpit.c          the library seen through MPI_T: control variables,
 *                   performance counters per cell */
#ifndef BENCH_NBC_DRIVER_H
#define BENCH_NBC_DRIVER_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_nbc/measure/block_order.h"
#include "bench_nbc/collectives/collectives.h"
#include "config/config.h"
#include "bench_nbc/measure/stopping.h"
#include "clocksync/clocksync.h"
#include "compute/compute.h"
#include "deploy/plan.h"

#include <sys/types.h>

/* Local timestamps t1..t4 of one measurement on one rank (see docs/formats.md
 * for what each kind puts in them). */
typedef struct nbc_sample {
    int64_t t_ns[4];
} nbc_sample;

/* One attempt of one kind, as this rank saw it: every attempt is recorded,
 * the late ones too (docs/formats.md, raw.csv). */
typedef struct nbc_attempt {
    nbc_sample sample;          /* local clock */
    int64_t wall_start_ns;      /* CLOCK_REALTIME just before t1 */
    int64_t deadline_global_ns; /* the window barrier's deadline (extrapolated global time) */
    int64_t exit_late_ns;       /* this rank left the barrier this long after the deadline */
    int64_t tolerance_ns;       /* the lateness tolerated */
    int64_t start_skew_ns;      /* what clocksync_settle_attempt judged, the same on every rank */
    int64_t seq;                /* run-wide attempt number, the same on every rank */
    int block;                  /* 0: warm-up */
    int attempt;                /* 0-based, per (block, kind) */
    nbc_kind kind;
    bool late; /* some rank left later than tolerance_ns: discarded and redone */
} nbc_attempt;

/* The attempts of one cell, in time order. */
typedef struct nbc_attempt_log {
    nbc_attempt *items;
    size_t count, capacity;
} nbc_attempt_log;

typedef struct progress_thread progress_thread;
typedef struct nbc_threads nbc_threads;
typedef struct watchdog watchdog;
typedef struct run_output run_output;
typedef struct nbc_mpit nbc_mpit;

/* Everything a stage needs, passed down explicitly. */
typedef struct nbc_run {
    MPI_Comm comm;
    int rank, ranks;
    const nbc_config *cfg;
    const nbc_collective *coll;
    clocksync_ctx *sync;
    compute_team *team;
    nbc_progress_mode progress; /* effective mode (deployment manual -> test) */
    int test_chunks;            /* K for progress test */
    progress_thread *progress_thread;
    run_output *out;                    /* rank 0 only, else NULL */
    volatile sig_atomic_t *stop_signal; /* set by SIGTERM/SIGINT */
    int max_retries;                    /* redos of a block with a late attempt */
    int64_t barrier_precision_ns;       /* floor of the lateness tolerance, measured */
    int64_t next_seq;                   /* run-wide attempt counter (raw.csv seq) */
    int64_t epoch_global_ns;            /* raw.csv times count from here */
    bool check;                         /* verify received data (run.check) */
    coll_options coll_options;          /* run.root, run.datatype, run.in_place */
    watchdog *watchdog;                 /* NULL: none */
    nbc_threads *threads;               /* the thread record (threadlog.c); NULL: none */
    int fault_hang_cell;                /* BENCH_NBC_FAULT: this rank hangs in that cell */
    bool fault_hang;                    /* set by the sweep while in that cell */
    int fault_late_cell;                /* BENCH_NBC_FAULT: this rank is late in that cell */
    bool fault_late;                    /* set by the sweep while in that cell */
    int fault_late_once_cell;           /* BENCH_NBC_FAULT: late once in that cell */
    bool fault_late_once;               /* set by the sweep while in that cell */
    nbc_mpit *mpit;                     /* MPI_T counters read around each cell; or NULL */
} nbc_run;

/* ---- measure.c ---- */
/* What a measurement needs besides the kind. */
typedef struct nbc_measure_spec {
    nbc_kind kind;
    coll_instance *inst; /* NULL only for KIND_COMP_REF */
    size_t matrix_n;
    double expected_s;    /* about how long it takes (the watchdog's scale) */
    int64_t tolerance_ns; /* a rank leaving the barrier later makes the attempt late */
    int block;
    int attempt; /* the block's pass (raw.csv attempt): 0, then one more per redo */
} nbc_measure_spec;

/* One attempt behind a window barrier, appended to `log`; *late: a rank
 * left the barrier more than spec->tolerance_ns late (the same answer on
 * every rank). A late attempt is not kept: the caller redoes it, or all it
 * belongs to (the sweep redoes the whole block). Collective. */
int nbc_measure(nbc_run *run, const nbc_measure_spec *spec, nbc_attempt_log *log, bool *late);
/* The lateness tolerance of a cell (docs/formats.md, raw.csv tolerance_ns):
 * max(late_tolerance x min(t_comm_s, t_comp_s), precision_ns). */
int64_t nbc_lateness_tolerance_ns(double late_tolerance, double t_comm_s, double t_comp_s,
                                  int64_t precision_ns);
/* Collective: the barrier's precision here, the 90th percentile over `count`
 * window barriers of the latest rank's exit lateness (ns, at least 1 us). */
int nbc_measure_barrier_precision(nbc_run *run, int count, int64_t *precision_ns);
void nbc_attempt_log_free(nbc_attempt_log *log);
/* Allocates the buffers of a message size on every rank; MPI_ERR_NO_MEM on
 * all of them when any rank could not (it prints why). Collective. */
int nbc_prepare_instance(nbc_run *run, size_t bytes, coll_instance *inst);
/* max(end) - min(start) over ranks in global time (extrapolated: for
 * calibration decisions, identical on every rank). Collective. */
int nbc_global_span_s(nbc_run *run, int64_t start_local_ns, int64_t end_local_ns, double *span_s);

/* Collective: whether SIGTERM/SIGINT reached any rank, so every rank stops
 * at the same point (Slurm signals every task, a terminal only some). */
bool nbc_stop_requested(const nbc_run *run);

/* ---- watchdog.c ---- */
/* Where a rank is, for the watchdog's message. */
typedef enum {
    PHASE_IDLE,
    PHASE_BARRIER,
    PHASE_START,
    PHASE_COMPUTE,
    PHASE_WAIT,
    PHASE_SETTLE,
    PHASE_CALIBRATION,
    PHASE_COUNT
} nbc_phase;
extern const char *const nbc_phase_names[PHASE_COUNT];

/* Called (from the watchdog thread) just before it ends the job. */
typedef void (*watchdog_fire_fn)(void *context, const char *message);

/* A thread that ends the job (MPI_Abort, status 4) when an armed section
 * takes longer than max(factor x expected, floor_s). All calls accept NULL. */
watchdog *watchdog_start(int rank, double factor, double floor_s, watchdog_fire_fn on_fire,
                         void *on_fire_context, char *err, size_t errlen);
void watchdog_context(watchdog *w, const char *context);
void watchdog_arm(watchdog *w, double expected_s);
void watchdog_phase(watchdog *w, nbc_phase phase);
void watchdog_disarm(watchdog *w);
int watchdog_stop(watchdog *w);

/* ---- progress.c ---- */
/* The library's own progress function of one int handle
 * (MPIX_Stream_progress), found by its name after MPI_Init. */
typedef int progress_poll_fn(int handle);
/* Starts a thread bound to `cpu` (-1: the caller's CPUs) that drives MPI
 * progress while active (deployment thread): poll(poll_argument), or
 * MPI_Iprobe on a duplicate of comm when poll is NULL; needs
 * MPI_THREAD_MULTIPLE. NULL with a message on failure. */
progress_thread *progress_thread_start(MPI_Comm comm, int cpu, progress_poll_fn *poll,
                                       int poll_argument, char *err, size_t errlen);
void progress_thread_activate(progress_thread *pt);
void progress_thread_deactivate(progress_thread *pt);
int progress_thread_stop(progress_thread *pt);
/* The thread's id in the kernel (/proc/self/task/<tid>); 0 for NULL. */
pid_t progress_thread_tid(const progress_thread *pt);

/* ---- calibrate.c ---- */
typedef struct nbc_comm_calibration {
    double target_s;
    size_t bytes; /* measured at: the closest size when it converged or missed by at most
                     nbc_off_target_max_error(), else 0 (the target's cells not measured) */
    size_t bytes_closest;
    double t_s;     /* measured at bytes_closest (trimmed mean, compute_measure_point) */
    double t_se_s;  /* t_s's standard error (0 when kept from a resumed run) */
    int runs;       /* runs behind t_s */
    bool imprecise; /* less precise than the rule asks after the most runs */
    int iterations;
    bool converged;
    /* grid.comm_sizes gave bytes: t_s was measured at it and target_s is t_s (the cell's
     * target is the size, never off it) */
    bool size_given;
} nbc_comm_calibration;

/* floor_bytes: the size of a shorter target, which the answer must exceed
 * (0: none). */
int nbc_calibrate_comm(nbc_run *run, double target_s, size_t start_bytes, size_t floor_bytes,
                       nbc_comm_calibration *result);
/* The collective's time at a given size (grid.comm_sizes): no search. */
int nbc_measure_comm_size(nbc_run *run, size_t bytes, nbc_comm_calibration *result);
/* floor: the calibration of the shorter target with the largest n, which
 * the answer must exceed (NULL: none). */
int nbc_calibrate_comp(nbc_run *run, double target_s, size_t start_n,
                       const compute_calib_result *floor, size_t max_n,
                       compute_calib_result *result, char *err, size_t errlen);

/* ---- sweep.c ---- */
typedef struct nbc_sweep_plan {
    const nbc_comm_calibration *comm; /* [comm_count] */
    size_t comm_count;
    const compute_calib_result *comp; /* [comp_count] */
    size_t comp_count;
    const bool *cell_done; /* [comm_count * comp_count], cells kept from an earlier run; or NULL */
    uint64_t seed;         /* cell order and block orders */
    bool sizable;          /* false: the collective has one size (ibarrier), measured as it is */
} nbc_sweep_plan;

/* The largest relative miss of a calibrated time that the analysis still
 * reads as its target (analysis_default_thresholds: off_target_max_error):
 * a target missed by less is measured at its closest size, flagged
 * converged = 0. */
double nbc_off_target_max_error(void);
/* Whether a computation target is measured (converged, or within that). */
bool nbc_comp_measurable(const compute_calib_result *comp);
/* Cells whose targets calibration could not reach are not measured; a
 * collective without a size is measured at the time it takes. */
bool nbc_cell_reachable(const nbc_sweep_plan *plan, size_t cell);

/* How many blocks a cell ran and why it stopped (sweep.csv, docs/formats.md). */
typedef struct nbc_cell_stop {
    int blocks; /* measured blocks run (for late: the block it stopped in included) */
    nbc_stop_reason reason;
    double half_width; /* of r_overhead's 95 % interval when it stopped; NAN: not computed */
    double elapsed_s;  /* the cell's time, its warm-up included */
} nbc_cell_stop;

/* What this session measured, kept in local time so the raw records can be
 * converted again once the end calibration is known (interpolation). */
typedef struct nbc_sweep_record {
    size_t cells;          /* comm_count * comp_count */
    bool *measured;        /* [cells]: measured in this session */
    nbc_attempt_log *logs; /* [cells] */
    nbc_cell_stop *stops;  /* [cells] */
    size_t *order;         /* [cells]: cells in the order they ran */
    size_t order_count;
} nbc_sweep_record;

int nbc_sweep_record_init(nbc_sweep_record *record, size_t cells);
void nbc_sweep_record_free(nbc_sweep_record *record);

/* Runs every reachable cell not done, in an order shuffled from plan->seed,
 * and appends its rows to raw.csv (times extrapolated from the clock model
 * as it stands). Returns MPI_SUCCESS or an error; *interrupted is set when
 * a stop signal cut the sweep short (only whole cells are kept). */
int nbc_sweep(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record,
              bool *interrupted);

/* After the end calibration: rewrites raw.csv atomically, keeping its first
 * `keep_bytes` (rows of earlier sessions) and converting this session's
 * samples again by interpolation. Collective. */
int nbc_sweep_rewrite_raw(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                          long keep_bytes);

/* ---- resume.c (rank 0 reads, main broadcasts) ---- */
typedef struct nbc_resume {
    compute_calib_result *comp; /* [comp_count], the first comp_done valid */
    size_t comp_done;
    nbc_comm_calibration *comm; /* [comm_count], the first comm_done valid */
    size_t comm_done;
    bool passive_done;     /* passive.csv holds every size of every rank, before the sweep */
    bool *cell_done;       /* [cells]: whole in raw.csv, with its row in sweep.csv */
    long raw_keep_bytes;   /* raw.csv up to the last whole cell */
    long sweep_keep_bytes; /* sweep.csv up to the row of that cell */
    int64_t next_seq;      /* after the last attempt kept in raw.csv */
} nbc_resume;

int nbc_resume_load(const char *dir, const nbc_config *cfg, int ranks, nbc_resume *state, char *err,
                    size_t errlen);
/* The calibrations of a run folder, read without changing it (the rest of
 * state is empty). 0, or -1 with a message. */
int nbc_resume_read_calibrations(const char *dir, const nbc_config *cfg, nbc_resume *state,
                                 char *err, size_t errlen);
void nbc_resume_free(nbc_resume *state);

/* ---- replay.c: one cell of a finished or cut run measured again ---- */
struct meta_info;
/* bench_nbc --replay CELL RUN_DIR makes a new run folder from RUN_DIR's
 * config.ini and calibrations (never writing into RUN_DIR) and measures only
 * that cell (docs/running.md). */
typedef struct nbc_replay {
    const char *cell_text; /* NULL: not a replay */
    const char *run_dir;
    const char *const *sets; /* --set given with --replay (run.results_dir only) */
    int set_count;
    long cell;
    char config_path[4096]; /* RUN_DIR/config.ini: the configuration */
    char run_dir_abs[4096];
    bool *mask;             /* [cells]: true for every cell but the replayed one */
    struct json_object *of; /* meta.json's replay_of (rank 0) */
} nbc_replay;

/* Command line: --replay's CELL is given, RUN_DIR is the next argument
 * (*next, advanced). Refuses --config, --resume and any --set but
 * run.results_dir. 0, or 2 with a message. No MPI. */
int nbc_replay_cli(nbc_replay *r, int argc, char **argv, int *next, bool has_config,
                   const char *const *sets, int set_count, char *err, size_t errlen);
/* Collective, once the configuration is valid and before anything is
 * measured: RUN_DIR's meta.json and calibrations against this job (a
 * different rank count or library, an unknown or unreachable cell: exit 2
 * on every rank; a different library version, node count or environment: a
 * warning on rank 0). Builds the cell mask. */
void nbc_replay_check(nbc_replay *r, const nbc_config *cfg, int rank, int ranks);
/* Collective, once the new run folder exists: rank 0 copies RUN_DIR's
 * calibrations into it, adds replay_of to meta, writes replay.sh and
 * prints the command on stdout (exit 1 on every rank when a file could
 * not be written). */
void nbc_replay_seed(nbc_replay *r, nbc_run *run, struct meta_info *meta);
void nbc_replay_free(nbc_replay *r);

/* ---- output.c (rank 0) ---- */
/* OUT_SWEEP last: a cell's sweep.csv row is flushed after its raw.csv rows. */
typedef enum {
    OUT_RAW,
    OUT_CALIB_COMM,
    OUT_CALIB_COMP,
    OUT_PASSIVE,
    OUT_SCHED,
    OUT_SWEEP,
    OUT_FILE_COUNT
} out_file;

/* Creates a new run folder under results_dir, named
 * <date>-<time>-<mpi_profile>-<collective>-<deployment> (never reusing a
 * name), or opens an existing one to resume. NULL with a message on failure. */
run_output *run_output_create(const char *results_dir, const char *mpi_profile,
                              const char *collective, const char *deployment, char *err,
                              size_t errlen);
run_output *run_output_open(const char *run_dir, char *err, size_t errlen);
const char *run_output_dir(const run_output *out);
/* The CSV file of a kind (header written when the file is new). */
FILE *run_output_file(run_output *out, out_file which);
/* Its file name and header line (no newline). */
const char *run_output_name(out_file which);
const char *run_output_header(out_file which);
/* Flushes every file; -1 on an I/O error (message on stderr). */
int run_output_flush(run_output *out);
/* Flushes every file and waits until the disk has them (fsync), so no
 * write-back of them runs during what is measured next; -1 on an error. */
int run_output_sync(run_output *out);
/* Writes path (relative to the run folder) atomically: temporary + rename. */
int run_output_write_atomic(run_output *out, const char *name, const char *text);
/* --run-dir-file: writes the run folder's absolute path and a newline into
 * file (temporary + rename), for the program that launched the run. */
int run_output_publish_dir(const run_output *out, const char *file, char *err, size_t errlen);
/* Replacing a CSV file atomically: begin copies its first keep_bytes (the
 * header included; 0: a fresh header) into a temporary file and returns it
 * for the caller to append to; commit renames
 * it over the file (which stays open for appending). */
FILE *run_output_begin_replace(run_output *out, out_file which, long keep_bytes);
int run_output_commit_replace(run_output *out, out_file which, FILE *replacement);
void run_output_close(run_output *out);

/* ---- errors.c ---- */
/* Collective: every rank passes its own verdict; if any failed, rank 0
 * prints the first failing rank's message once and every rank exits with
 * `status` (2 for bad input, 1 for failures). */
void nbc_exit_if_any_failed(bool failed, const char *message, int status);
/* An MPI call failed: names it and aborts the job (the communicator is no
 * longer trustworthy). */
void nbc_mpi_failed(const char *call, int err);
/* While a study runs on the first N ranks: `deciding` (its communicator)
 * decides failures, the ranks outside it wait on `waiting` (a duplicate of
 * MPI_COMM_WORLD) in nbc_wait_released; MPI_COMM_NULL, MPI_COMM_NULL: the
 * whole job decides. */
void nbc_errors_scope(MPI_Comm deciding, MPI_Comm waiting);
/* Rank 0 of the deciding ranks tells the waiting ones (every rank of the
 * waiting communicator calls it or waits): the study's status, and whether
 * it was fatal (then everyone exits with it). */
void nbc_release_waiting(int status, bool fatal);
/* A rank outside the study: asleep until released; the study's status (a
 * fatal one exits here). */
int nbc_wait_released(MPI_Comm waiting);
#define NBC_CHECK_MPI(call)                                                                        \
    do {                                                                                           \
        int nbc_err_ = (call);                                                                     \
        if (nbc_err_ != MPI_SUCCESS)                                                               \
            nbc_mpi_failed(#call, nbc_err_);                                                       \
    } while (0)

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

/* ---- meta.c (rank 0 writes) ---- */
struct json_object;
typedef struct meta_info {
    const char *status;
    char start_time[32], end_time[32];
    char library_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int mpi_version, mpi_subversion, thread_level;
    struct json_object *hosts;       /* per rank */
    struct json_object *binding;     /* per rank: cpu list */
    struct json_object *clocksync;   /* filled at the end */
    struct json_object *measurement; /* how the sweep measured: top-level keys (docs/formats.md) */
    struct json_object *deployment;  /* the plan and its threads: top-level keys */
    struct json_object *system;      /* provenance, warnings, MPI_T: top-level keys */
    struct json_object *thread_record; /* every thread, sched.csv's cost: top-level keys */
    int nodes, threads;
    int cells_total, cells_done;
    double calibration_s, sweep_s;
    const char *failure; /* why the run failed, when it did */
} meta_info;
/* Adds a top-level key of meta.json to meta->system (takes the reference). */
void nbc_meta_add_system(meta_info *meta, const char *key, struct json_object *value);

/* ---- library.c: the MPI library this process runs with ---- */
/* Before MPI_Init (allowed for MPI_Get_library_version): identifies the
 * library against the profiles of configs/mpi/ (mpiprofile/); the generic
 * profile, with a warning, when none matches. Called again, does nothing. */
void nbc_library_identify(void);
/* The profile and version identified (the generic profile when none). */
const mpiprofile *nbc_library_profile(void);
const char *nbc_library_version(void);
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
 * gets the limit, or NULL. */
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

void nbc_iso_time_now(char *buf, size_t size);
int nbc_meta_write(nbc_run *run, const meta_info *m);
/* Rank 0: the run folder's meta.json with `key` set to `value` (taken),
 * the rest as it is on disk; 0, or -1 with a message. */
int nbc_meta_replace_key(run_output *out, const char *key, struct json_object *value);
/* This process's variables of the prefixes meta.json's `environment`
 * records (a new object). */
struct json_object *nbc_meta_environment_json(void);
/* Collective: every rank's object (a new reference, consumed) gathered into
 * an array on rank 0, indexed by rank; NULL on the other ranks. */
struct json_object *nbc_meta_gather_json(nbc_run *run, struct json_object *mine);
/* Collective: the clock sync summary of every rank (NULL except on rank 0);
 * raw_times says how raw.csv's times were converted (docs/formats.md). */
struct json_object *nbc_meta_clocksync_json(nbc_run *run, const char *raw_times);
/* The watchdog is about to end the job: rank 0 records why in meta.json
 * (every finished cell is already on disk). */
typedef struct watchdog_record {
    nbc_run *run;
    meta_info *meta;
} watchdog_record;
/* watchdog_fire_fn with a watchdog_record: rank 0 writes status "failed". */
void nbc_meta_record_watchdog(void *context, const char *message);

/* ---- node_record.c ---- */
/* Collective: provenance.json and topology-<host>.xml of every node written
 * by rank 0, the warnings printed and added to meta (`provenance`,
 * `warnings`). 0, or -1 on rank 0 when a file could not be written. */
int nbc_provenance_record(nbc_run *run, meta_info *meta);
/* Collective: nbc_provenance_record and nbc_mpit_start; every rank exits (1)
 * when rank 0 could not write their files. */
void nbc_record_system(nbc_run *run, meta_info *meta);

/* ---- mpit.c ---- */
/* Collective: MPI_T started; rank 0 writes mpit_cvars.csv and adds `mpi_t`
 * and `collective_settings` to meta; the performance counters the library
 * exposes are readied for the cells (run->mpit; NULL when none). 0, or -1
 * on rank 0 when mpit_cvars.csv could not be written. */
int nbc_mpit_start(nbc_run *run, meta_info *meta);
/* Around one cell's measurements (sweep.c): the counters read before it,
 * and after it their deltas appended to mpit_pvars.csv by rank 0
 * (collective; MPI error code). Both do nothing for NULL. */
void nbc_mpit_cell_begin(nbc_mpit *m);
int nbc_mpit_cell_end(nbc_run *run, size_t cell);
/* Sessions and MPI_T ended (before MPI_Finalize); accepts NULL. */
void nbc_mpit_free(nbc_mpit *m);

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

typedef struct nbc_job {
    char err[1024]; /* the message of the last failure */
    nbc_cli cli;
    int cli_status, plan_status; /* 2: bad command line or plan, said after MPI_Init */
    nbc_deployment_state dep;
    nbc_config cfg;
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
    bool in_study;              /* this rank measures the current study */
    MPI_Comm study_comm;        /* the current study's first N ranks */
    MPI_Comm waiting;           /* MPI_COMM_WORLD's duplicate the others wait on */
    clocksync_ctx *job_sync;    /* the job's clock sync, shared by its studies */
    compute_calib_result *comp; /* the job's computation calibration, shared */
    size_t comp_kept;           /* of them, kept from the resumed run folder */
    bool comp_calibrated;       /* false: a stop signal came first */
    double shared_s;            /* what the clock sync and computation calibration took */
    char first_dir[4096];       /* rank 0: the first study's run folder */
    int study_status, status;   /* the current study's exit status; the job's */
    nbc_run run;                /* the current study's (the job's before the first) */
    meta_info meta;
    watchdog_record fire_record;
    double clock_read_ns;
    nbc_resume prior; /* what the folder held, then the sizes calibrated */
    bool calibrated, stopped, interrupted;
    nbc_sweep_plan plan;
    nbc_sweep_record record;
    size_t unreachable;
    int rc;                      /* MPI_SUCCESS, or the error that failed the run */
    int kept;                    /* cells whose every block was kept */
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
/* job_config.c: job->cfg as the text and --set say (exit 2 when bad), and
 * checked against the job's limits (true: bad, job->err says why). */
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
/* run_guards.c: watchdog started, threads_start recorded, signals caught. */
void nbc_start_guards(nbc_job *job);
/* clock_sync_stage.c: the job's sync, on every rank, once; the job's end
 * point, on every rank, once (an MPI error code). */
void nbc_clock_sync_stage(nbc_job *job);
int nbc_clock_sync_end(nbc_job *job);
/* calibration_stage.c: the job's computation sizes, on every rank, once
 * (kept ones of a resumed run reused); a study's passive step and message
 * sizes. job->calibrated false on a stop signal. */
void nbc_computation_stage(nbc_job *job);
void nbc_calibration_stage(nbc_job *job);
/* Rank 0: the job's computation sizes into the study's calib_comp.csv
 * (those a resumed run folder holds are not written again). */
void nbc_write_calib_comp_rows(nbc_job *job);
/* study.c: the job's studies from the configuration (exit 2 on every rank
 * for one the collective refuses); then, collective on every rank, the
 * next study this rank measures (false: none left). Ranks outside a study
 * wait asleep in here. */
void nbc_plan_studies(nbc_job *job);
bool nbc_next_study(nbc_job *job);
/* Cells calibration could not reach, said once on rank 0; how many. */
size_t nbc_report_unreachable(const nbc_run *run, const nbc_sweep_plan *plan, bool calibrated);
/* sweep_stage.c */
void nbc_sweep_stage(nbc_job *job);
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

/* ---- passive_step.c ---- */
/* t_comp_passive_mpi of every size, written to passive.csv with `phase`
 * ("before" or "after" the sweep): each rank's nbc_passive_reps steps
 * after NBC_PASSIVE_WARMUP_STEPS, one row each. */
enum { NBC_PASSIVE_WARMUP_STEPS = 1 };
int nbc_passive_reps(const nbc_config *cfg);
void nbc_measure_passive(nbc_run *run, const placement *place, const compute_calib_result *comp,
                         size_t count, const char *phase);
/* A barrier that sleeps while it waits (MPI_Ibarrier + nanosleep): a rank
 * done first does not busy-poll next to ranks still working. */
int nbc_quiet_barrier(MPI_Comm comm);

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

/* ---- threadlog.c: every thread, its role, CPUs and scheduler counters ---- */
struct json_object;
/* Before MPI_Init: the calling thread is main; the threads there now are
 * not the library's. NULL when out of memory. */
nbc_threads *nbc_threads_create(void);
/* The suite's threads, once they run (0: absent). */
void nbc_threads_register(nbc_threads *t, const compute_team *team, pid_t suite_tid,
                          pid_t watchdog_tid);
/* Notes the threads there now; newest then returns the first thread not
 * among them (0: none): the one a pthread_create made in between. */
void nbc_threads_note_existing(nbc_threads *t);
pid_t nbc_threads_newest(const nbc_threads *t);
/* This rank's threads: {rank, host, threads: [{tid, name, role,
 * compute_index, cpus, cpu_list}]} (docs/formats.md, meta.json "threads"). */
struct json_object *nbc_threads_rank_json(const nbc_threads *t, int rank, const char *host);
/* The sweep's attempts are recorded between these two (calibration's are
 * not): the probe opens the files of the computing, progress and library
 * threads. 0, or -1 with a message. */
int nbc_threads_start_recording(nbc_threads *t, char *err, size_t errlen);
void nbc_threads_stop_recording(nbc_threads *t);
/* Around an attempt, outside its timed region: before the window barrier,
 * and after t4 (a snapshot of every probed thread's counters each). NULL t:
 * nothing. after returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
void nbc_threads_before_attempt(nbc_threads *t);
int nbc_threads_after_attempt(nbc_threads *t, const nbc_attempt *a);
/* The passive step's readings (passive.csv): the scheduler's counters of
 * the rank's probed threads over one step, summed per role. */
typedef struct nbc_step_sched {
    int64_t window_ns;            /* between the two readings; -1: not read */
    int64_t compute_cpu_ns;       /* the computing threads (main, compute) */
    int64_t compute_run_delay_ns; /* their time runnable, waiting for a CPU */
    int64_t progress_cpu_ns;      /* the suite's progress and the library's threads; 0: none */
} nbc_step_sched;
/* Before a passive step's sizes: the probe opens on the threads there now
 * (while the sweep records, its probe is kept and its armed attempt left
 * alone). 0, or -1 with a message (the steps then read as -1). */
int nbc_threads_open_step_probe(nbc_threads *t, char *err, size_t errlen);
/* Around one step, outside its timed region (compute_step times it): a
 * reading before, the sums since at the end (all -1 when not read; the
 * computing threads' -1 when one of them could not be read). NULL t: -1. */
void nbc_threads_before_step(nbc_threads *t);
nbc_step_sched nbc_threads_after_step(nbc_threads *t);
/* Collective, when a cell's raw rows are written: its sched.csv rows
 * gathered and written by rank 0; threads started since are probed from
 * now on. */
int nbc_threads_write_cell(nbc_run *run, nbc_threads *t, size_t cell);
/* The snapshots' cost on this rank: {threads_probed, snapshots, mean_ns,
 * max_ns, migrations_available}. */
struct json_object *nbc_threads_cost_json(const nbc_threads *t);
void nbc_threads_free(nbc_threads *t);
/* Collective, before anything is measured: refuses (exit 2 on every rank,
 * one message) a degenerate placement of the compute team's CPUs
 * (threads_check_placement: one rank, two ranks of a host on a common CPU,
 * two threads of a team on one CPU); may_share as there. */
void nbc_threads_check_placement(nbc_run *run, const char *host, bool may_share);

#endif
