/* Internal API shared by the driver's files (bench_nbc/). The program's
 * public interface is its command line; this header is not used elsewhere.
 *
 *   main.c          command line, set-up, the order of the stages
 *   stages.c        what comes before the sweep: prior data, sizes, passive
 *   placement.c     which cores a rank computes on
 *   meta.c          meta.json
 *   library.c       the MPI library: its profile, settings, checks
 *   errors.c        failing together on every rank
 *   collectives.c   the table of operations and their buffers
 *   measure.c       one timed measurement of a kind (Algorithm 1 and the
 *                   references), behind the window barrier, with retries
 *   progress.c      the benchmark's own progress thread (progress.mode=thread)
 *   watchdog.c      ends a hung job with a message naming cell, rank, call
 *   calibrate.c     message and matrix sizes for target times
 *   sweep.c         the grid of cells, repetitions, raw records
 *   resume.c        what an interrupted run folder already holds
 *   output.c        the run folder: CSV files and meta.json */
#ifndef BENCH_NBC_DRIVER_H
#define BENCH_NBC_DRIVER_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_nbc/collectives.h"
#include "bench_nbc/config.h"
#include "clocksync/clocksync.h"
#include "compute/compute.h"

/* Kinds of measurement in a cell (the sweep rotates their order). */
typedef enum { KIND_COMM_REF, KIND_COMP_REF, KIND_OVERLAP, KIND_COUNT } nbc_kind;
extern const char *const nbc_kind_names[KIND_COUNT];

/* Local timestamps t1..t4 of one measurement on one rank (see docs/formats.md
 * for what each kind puts in them). */
typedef struct nbc_sample {
    int64_t t_ns[4];
} nbc_sample;

typedef struct progress_thread progress_thread;
typedef struct watchdog watchdog;
typedef struct run_output run_output;

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
    int max_retries;                    /* late barriers tolerated per measurement */
    int64_t epoch_global_ns;            /* raw.csv times count from here */
    bool check;                         /* verify received data (run.check) */
    watchdog *watchdog;                 /* NULL: none */
    int fault_hang_cell;                /* BENCH_NBC_FAULT: this rank hangs in that cell */
    bool fault_hang;                    /* set by the sweep while in that cell */
} nbc_run;

/* ---- measure.c ---- */
/* One measurement of `kind` behind a window barrier, redone while any rank
 * was late (up to run->max_retries times; *retries counts the redone ones).
 * expected_s (about how long it takes) sets how late a rank may leave the
 * barrier. inst may be NULL for KIND_COMP_REF. Collective. */
int nbc_measure(nbc_run *run, nbc_kind kind, coll_instance *inst, size_t matrix_n,
                double expected_s, nbc_sample *sample, int *retries);
/* max(end) - min(start) over ranks in global time (extrapolated: for
 * calibration decisions, identical on every rank). Collective. */
int nbc_global_span_s(nbc_run *run, int64_t start_local_ns, int64_t end_local_ns, double *span_s);

/* Median of n >= 1 values (sorts them in place). */
double nbc_median(double *values, int n);

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
/* Starts a thread bound to `cpu` (-1: unbound) that drives MPI progress while
 * active; needs MPI_THREAD_MULTIPLE. NULL with a message on failure. */
progress_thread *progress_thread_start(MPI_Comm comm, int cpu, char *err, size_t errlen);
void progress_thread_activate(progress_thread *pt);
void progress_thread_deactivate(progress_thread *pt);
int progress_thread_stop(progress_thread *pt);

/* ---- calibrate.c ---- */
typedef struct nbc_comm_calibration {
    double target_s;
    size_t bytes; /* 0 when not converged, as the paper does */
    size_t bytes_closest;
    double t_s; /* measured median at bytes_closest */
    int iterations;
    bool converged;
} nbc_comm_calibration;

int nbc_calibrate_comm(nbc_run *run, double target_s, size_t start_bytes,
                       nbc_comm_calibration *result);
int nbc_calibrate_comp(nbc_run *run, double target_s, size_t start_n, size_t max_n,
                       compute_calib_result *result, char *err, size_t errlen);

/* ---- sweep.c ---- */
typedef struct nbc_sweep_plan {
    const nbc_comm_calibration *comm; /* [comm_count] */
    size_t comm_count;
    const compute_calib_result *comp; /* [comp_count] */
    size_t comp_count;
    const bool *cell_done; /* [comm_count * comp_count], cells kept from an earlier run; or NULL */
} nbc_sweep_plan;

/* What this session measured, kept in local time so the raw records can be
 * converted again once the end calibration is known (interpolation). */
typedef struct nbc_sweep_record {
    int reps;
    size_t cells;        /* comm_count * comp_count */
    bool *measured;      /* [cells]: measured in this session */
    nbc_sample *samples; /* [cells][reps][KIND_COUNT] */
    int *retries;        /* [cells][reps][KIND_COUNT] */
} nbc_sweep_record;

int nbc_sweep_record_init(nbc_sweep_record *record, size_t cells, int reps);
void nbc_sweep_record_free(nbc_sweep_record *record);

/* Runs every cell not done and appends its rows to raw.csv (times
 * extrapolated from the clock model as it stands). Returns MPI_SUCCESS or an
 * error; *interrupted is set when a stop signal cut the sweep short (only
 * whole cells are kept). */
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
    bool passive_done;   /* passive.csv holds every size of every rank */
    bool *cell_done;     /* [cells]: whole in raw.csv */
    long raw_keep_bytes; /* raw.csv up to the last whole cell */
} nbc_resume;

int nbc_resume_load(const char *dir, const nbc_config *cfg, int ranks, nbc_resume *state, char *err,
                    size_t errlen);
void nbc_resume_free(nbc_resume *state);

/* ---- output.c (rank 0) ---- */
typedef enum { OUT_RAW, OUT_CALIB_COMM, OUT_CALIB_COMP, OUT_PASSIVE, OUT_FILE_COUNT } out_file;

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
/* Flushes every file; -1 on an I/O error (message on stderr). */
int run_output_flush(run_output *out);
/* Writes path (relative to the run folder) atomically: temporary + rename. */
int run_output_write_atomic(run_output *out, const char *name, const char *text);
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
    bool split; /* the ranks of this host shared one CPU set and were given slices */
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
    struct json_object *hosts;     /* per rank */
    struct json_object *binding;   /* per rank: cpu list */
    struct json_object *clocksync; /* filled at the end */
    int nodes, threads;
    int cells_total, cells_done;
    double calibration_s, sweep_s;
    const char *failure; /* why the run failed, when it did */
} meta_info;

/* ---- library.c: the MPI library this process runs with ---- */
/* Before MPI_Init (allowed for MPI_Get_library_version): identifies the
 * library against the profiles of configs/mpi/ (mpiprofile/); the generic
 * profile, with a warning, when none matches. Called again, does nothing. */
void nbc_library_identify(void);
/* Before MPI_Init: sets the environment the profile gives the run's
 * deployment and collective (workarounds of known bugs) and returns the
 * thread level the deployment needs from the library. */
int nbc_library_prepare(const nbc_config *cfg);
/* After nbc_library_prepare: the library runs its own progress thread for
 * the deployment (else dedicated's free core gets the benchmark's). */
bool nbc_library_drives_progress(void);
/* What rank 0 prints once MPI runs (workarounds, warnings), or NULL. */
const char *nbc_library_note(void);
/* The values run.mpi accepts: auto, every profile, generic. */
const char *const *nbc_library_profile_names(size_t *count);
/* run.mpi and run.deployment against the library: 0, or -1 with a message. */
int nbc_library_check(const nbc_config *cfg, char *err, size_t errlen);
/* meta.json's "mpi_library": profile, version, file, settings, workarounds,
 * warnings (a new reference). */
struct json_object *nbc_library_json(void);
/* The profile name of the library this process runs with (e.g. "mpich";
 * the run folder's and meta.json's "mpi"). */
const char *nbc_compiled_mpi(void);
void nbc_iso_time_now(char *buf, size_t size);
int nbc_meta_write(nbc_run *run, const meta_info *m);
/* Collective: the clock sync summary of every rank (NULL except on rank 0). */
struct json_object *nbc_meta_clocksync_json(nbc_run *run);
/* The watchdog is about to end the job: rank 0 records why in meta.json
 * (every finished cell is already on disk). */
typedef struct watchdog_record {
    nbc_run *run;
    meta_info *meta;
} watchdog_record;
/* watchdog_fire_fn with a watchdog_record: rank 0 writes status "failed". */
void nbc_meta_record_watchdog(void *context, const char *message);

/* ---- stages.c ---- */
/* What the run folder already holds (nothing for a new run), on every rank. */
void nbc_load_prior(nbc_run *run, const char *resume_dir, nbc_resume *prior);
/* Sizes for every target not in `done`; false when a stop signal came. */
bool nbc_calibrate_computation(nbc_run *run, compute_calib_result *comp, size_t done);
bool nbc_calibrate_communication(nbc_run *run, nbc_comm_calibration *comm, size_t done);
/* t_comp_passive_mpi of every size, written to passive.csv. */
void nbc_measure_passive(nbc_run *run, const placement *place, const compute_calib_result *comp,
                         size_t count);

#endif
