/* measure/: the measurements of a study (sections 4 and 5.1 of the paper).
 *
 *   measure.c       one timed attempt of a kind (Algorithm 1 and the
 *                   references), behind the window barrier, with retries
 *   block_order.c   the kinds of a block and their order (no MPI, block_order.h)
 *   stopping.c      when a cell has blocks enough (no MPI, stopping.h)
 *   size_search.c   the message size search (no MPI, size_search.h)
 *   analysis_rules.c  the analysis's off-target threshold, one owner
 *   calibrate.c     message and matrix sizes for target times
 *   sweep.c         the grid of cells, their visits and repetitions
 *   sweep_raw.c     raw.csv's rows of a cell (sweep_raw.h)
 *   sweep_record.c  which cells can be measured, the record, its lateness
 *   visit_plan.c    how a cell's blocks spread over the sweep (no MPI, visit_plan.h)
 *   passive_step.c  the computation inside MPI alone (equation 2)
 *   progress.c      the benchmark's own progress thread (progress.mode=thread)
 *   watchdog.c      ends a hung job with a message naming cell, rank, call
 *   threadlog.c     every thread's role and CPUs, the scheduler's counters
 *                   per attempt (sched.csv); placement refusals
 *
 * The run folder's files are written through runfolder/runfolder.h. */
#ifndef BENCH_NBC_MEASURE_H
#define BENCH_NBC_MEASURE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/stopping.h"
#include "bench_nbc/run.h"
#include "compute/compute.h"

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
    /* the compute step's time, which progress.test_period_us divides */
    double t_comp_s;
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
/* Active around each timed step only; deactivate returns once the thread is
 * parked, so it never shares a core with the window barrier. */
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

/* Whether a calibrated computation size still takes its target, measured
 * again on every rank (compute_calib_check, within nbc_off_target_max_error():
 * the miss the analysis flags as comp_off_target). The same answer on every
 * rank. again: the measurement. */
int nbc_check_comp(nbc_run *run, const compute_calib_result *calibrated, compute_point *again,
                   bool *holds);

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
    int clock_points;  /* clock points taken inside the cell, before a late block's redo */
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
/* The sweep's lateness on stdout (rank 0), and a warning on stderr above a
 * tenth: the share of attempts the tolerance discarded, per run, hence per
 * collective and deployment. */
void nbc_sweep_report_lateness(const nbc_run *run, const nbc_sweep_record *record);

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
/* Between the window barrier and t1: the main thread's run-queue delay so
 * far (one pread). After nbc_threads_after_attempt, foreign_wait_ns is the
 * time the main thread then waited for its CPU up to the snapshot after t4,
 * less the CPU time the rank's progress and library threads allowed on the
 * main thread's CPUs took over the attempt: the part of the timed region
 * other processes took (raw.csv
 * foreign_wait_ns); -1 when not read. */
void nbc_threads_at_t1(nbc_threads *t);
int64_t nbc_threads_foreign_wait_ns(const nbc_threads *t);
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
int nbc_threads_write_cell(nbc_run *run, nbc_threads *t, size_t cell, const nbc_attempt_log *log);
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
