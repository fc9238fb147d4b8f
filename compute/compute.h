/* compute: the GEMM workload that stands for a real HPC application
 * (paper sections 3.2.1 and 5.1).
 *
 * An OpenMP team with one thread per core; each thread owns its matrices
 * (allocated and first-touched by itself, 64-byte aligned) and runs one
 * sequential cblas_dgemm n x n x n per step. The step time is that of the
 * slowest thread: CLOCK_MONOTONIC_RAW (else CLOCK_MONOTONIC) before and after the
 * parallel region.
 * Calibration finds the n whose step takes a target time.
 *
 * No MPI here: the same objects link into the MPI driver and into compute_ref.
 * All functions are called from one thread (the one that created the team).
 */
#ifndef COMPUTE_COMPUTE_H
#define COMPUTE_COMPUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest CPU id and team size handled (the size of a cpu_set_t). */
#define COMPUTE_MAX_CPUS 1024

/* ---- Environment checks ------------------------------------------------ */

/* The BLAS this build links (make BLAS=openblas|blis|mkl|generic) and how it
 * was brought to one thread per call. */
typedef struct compute_blas_info {
    const char *name;     /* "openblas", "blis", "mkl" or "generic" */
    char version[256];    /* the library's own version string */
    char library[512];    /* the file cblas_dgemm came from (dladdr) */
    char threading[256];  /* how one thread per call was achieved, e.g. "serial
                           * build (openblas_get_parallel() = 0)" */
    int threads_reported; /* threads per call the library reports once limited
                           * (0: it has no way to say: generic) */
    /* Measured on the calling thread: windows of 20 ms of dgemm (n = 256),
     * the process's CPU time (every thread's) against wall time and against
     * the calling thread's own CPU time, until enough windows in a row show
     * one thread (at most 1.1 times the caller's CPU time: 3, and half as
     * many as were measured before them, since a BLAS's idle pool may spin for a
     * while after it starts) or 0.8 s have passed. Figures of the passing
     * windows, or of all windows when refused. */
    double cpu_per_wall;            /* process CPU / wall: ~1 for one thread */
    double cpu_per_caller_cpu;      /* process CPU / calling thread's CPU: ~1 for
                                     * one thread, ~k for k, whatever the load */
    double measured_s;              /* wall time of those windows */
    int windows;                    /* windows measured */
    double background_cpu_per_wall; /* other threads' rate before any dgemm,
                                     * reported, not subtracted */
    bool one_thread_per_call;       /* the check passed */
} compute_blas_info;

/* Forces the BLAS to one thread per call where it has a way (the serial build
 * needs none), then confirms it by measurement: the process's CPU time during
 * dgemms against that of their calling thread. 0 when one thread per call
 * holds, with a summary in message; -1 otherwise, with a message naming the
 * BLAS, what was measured and the fix. Callers refuse to run (exit 2) on -1.
 * Call it on the thread that will create the team, before any other dgemm
 * and before starting threads that keep a core busy (MPI_Init: MPICH's
 * progress thread would count as the BLAS's). It measures once per process
 * (~80 ms; up to 0.8 s while a BLAS's idle pool spins down) and later
 * calls return the same result. */
int compute_blas_check(char *message, size_t message_size);

/* The BLAS and the result of compute_blas_check (run first if it has not
 * run), for the run's metadata. */
void compute_blas_get_info(compute_blas_info *info);

/* How compute_allowed_cpus tells cores apart: "hwloc", or "sysfs" when built
 * without hwloc (HWLOC=0, or no hwloc.pc): the core_cpus_list (or, before
 * Linux 5.6, thread_siblings_list) of /sys/devices/system/cpu/cpu<N>/topology.
 * The environment variable COMPUTE_SYSFS_CPU_DIR replaces
 * /sys/devices/system/cpu in the sysfs build (tests give it a made-up
 * topology). */
const char *compute_cpu_topology_source(void);

/* The CPUs the calling thread may run on, one per physical core (the first
 * hardware thread of each core: the paper keeps one thread per core, no
 * hyperthreading), in increasing order. Returns the count (>= 1) written to
 * cpu_ids[0..capacity), or -1 with a message. Call it before creating a
 * team: a team binds the calling thread to one CPU. */
int compute_allowed_cpus(int *cpu_ids, int capacity, char *error, size_t error_size);

/* MemAvailable from /proc/meminfo (sysconf(_SC_AVPHYS_PAGES) as fallback);
 * 0 when neither can be read. */
uint64_t compute_available_memory_bytes(void);

/* Bytes the matrices of a team of `threads` take at size n (A, B, C each). */
uint64_t compute_matrix_bytes(int threads, size_t matrix_n);

/* ---- The team ---------------------------------------------------------- */

/* What a compute step runs. Each does fixed work for a size n, time growing
 * like n^3, so the same calibration finds n for a target time. */
typedef enum compute_kernel {
    /* C = A * B with the BLAS, n x n: the paper's computation. */
    COMPUTE_KERNEL_GEMM,
    /* A STREAM-triad-like memory-bound kernel: a[i] = b[i] + s c[i] over
     * n^3 / 8 elements, streaming on through arrays of
     * COMPUTE_TRIAD_ELEMENTS per thread (far beyond a last-level cache), so
     * every step reads and writes memory whatever n: it shows whether
     * progress hurts a memory-bound computation, which dgemm hides. */
    COMPUTE_KERNEL_TRIAD,
    /* A known answer for tests: each thread sleeps as long as its dgemm would
     * take at COMPUTE_SLEEP_FLOPS_PER_S, times options.sleep_scale, without
     * using a CPU. Many ranks can share few cores without disturbing each
     * other, so the statistics over ranks can be checked exactly; CPU time
     * a progress engine takes is modelled with compute_team_add_stolen_ns. */
    COMPUTE_KERNEL_SLEEP,
} compute_kernel;

/* Their names, indexed by compute_kernel (configuration, meta.json). */
#define COMPUTE_KERNEL_NAMES                                                                       \
    {                                                                                              \
        "gemm", "triad", "sleep"                                                                   \
    }

/* The sleep kernel's pace: 1 GFLOP/s, so n = 100 sleeps 2 ms. */
#define COMPUTE_SLEEP_FLOPS_PER_S 1e9
/* The triad kernel's arrays: 3 x 32 MiB per thread. */
#define COMPUTE_TRIAD_ELEMENTS ((size_t)4 << 20)

typedef struct compute_options {
    /* OpenMP threads computing, >= 1. */
    int threads;
    compute_kernel kernel;
    /* COMPUTE_KERNEL_SLEEP: its sleeps are this many times as long (e.g.
     * 1 + rank/10 to skew the ranks); 0 means 1. */
    double sleep_scale;
    /* CPU for each thread, [threads], distinct; NULL: the first `threads`
     * CPUs of compute_allowed_cpus() (so n-1 threads leave the last core
     * free for a progress thread). */
    const int *cpu_ids;
    /* true: do not bind (the OS places the threads). */
    bool no_binding;
    /* Most bytes the team's matrices may take; 0: half of the memory
     * available when the matrices grow (plus what the team already holds). */
    uint64_t memory_limit_bytes;
} compute_options;

typedef struct compute_team compute_team;

/* Creates the OpenMP team and binds thread i to cpu_ids[i]. The calling
 * thread becomes thread 0 (so it is bound too, until compute_team_destroy
 * restores its affinity). No matrices yet: see compute_team_reserve.
 * NULL on error, with a message. */
compute_team *compute_team_create(const compute_options *options, char *error, size_t error_size);
void compute_team_destroy(compute_team *team);

int compute_team_threads(const compute_team *team);
/* CPU of thread i, or -1 when not bound. */
int compute_team_cpu(const compute_team *team, int thread);
/* The OS thread (Linux tid) running team thread i, as of its last binding
 * (creation, or a step that found the slot handed to another thread); 0
 * for a bad thread number. Thread 0 is the caller. For the record of
 * where every thread runs (threads/threads.h). */
long compute_team_tid(const compute_team *team, int thread);
/* Message of the last failed call on this team. */
const char *compute_team_error(const compute_team *team);

/* Largest n whose matrices fit in the team's memory limit right now. With
 * several ranks, take the minimum over ranks so all calibrate alike. */
size_t compute_team_max_matrix_n(const compute_team *team);

/* Makes every thread own A, B, C of at least n x n (each thread allocates and
 * first-touches its own). Checks the memory limit before allocating.
 * 0, or -1 (compute_team_error says why; the team keeps its old matrices). */
int compute_team_reserve(compute_team *team, size_t matrix_n);

typedef struct compute_step_timing {
    size_t matrix_n;
    int threads;
    int chunks;
    int64_t start_ns;        /* CLOCK_MONOTONIC before the parallel region */
    int64_t end_ns;          /* after it: the slowest thread is done */
    double step_s;           /* end_ns - start_ns: the step's time */
    double slowest_thread_s; /* the largest of thread_s */
    /* Each thread's own time around its dgemm(s), [threads]; owned by the
     * team, valid until its next step. */
    const double *thread_s;
    /* Threads found moved off their CPU (or replaced by a new OS thread) at
     * the start of this step and bound again; 0 when the binding held. */
    int threads_rebound;
} compute_step_timing;

/* One compute step: every thread runs C = A * B, n x n x n (2 n^3 flops per
 * thread). n <= the reserved size. 0, or -1 (compute_team_error). */
int compute_step(compute_team *team, size_t matrix_n, compute_step_timing *timing);

compute_kernel compute_team_kernel(const compute_team *team);

/* Sleep kernel only: thread 0's running step, or else its next one, lasts
 * stolen_ns longer: the CPU time a progress engine pinned to its core (at a
 * higher priority) would take from it. compute_team_clear_stolen drops what
 * no step took (the operation ended while nothing computed). */
void compute_team_add_stolen_ns(compute_team *team, int64_t stolen_ns);
void compute_team_clear_stolen(compute_team *team);

/* Called by thread 0 between its chunks (e.g. to call MPI_Test). */
typedef void (*compute_between_chunks_fn)(void *context);

/* The same step split into `chunks` column panels of C (the same flops and
 * the same C); thread 0 calls between_chunks(context) chunks - 1 times, the
 * other threads do not wait for it. Thread 0's time includes the calls. */
int compute_step_chunked(compute_team *team, size_t matrix_n, int chunks,
                         compute_between_chunks_fn between_chunks, void *context,
                         compute_step_timing *timing);

/* Read-only view of thread `thread`'s matrices (column-major; after a step
 * at size n, the first n*n elements with leading dimension n), for tests.
 * Returns the size they hold, 0 for a bad thread number. */
size_t compute_team_matrices(const compute_team *team, int thread, const double **a,
                             const double **b, const double **c);

/* ---- Calibration (paper section 5.1) ----------------------------------- */

/* Runs one step at size n and stores its time (seconds) in *t_s; 0, or -1
 * on error. With MPI: run the step on all ranks after a barrier and return
 * the max over ranks, so every rank sees the same value and calibrates
 * alike. */
typedef int (*compute_measure_fn)(void *context, size_t matrix_n, double *t_s);

/* The time a calibration candidate stands for: the 10 % trimmed mean of
 * its runs (the mean of all but the count / 10 fastest and slowest), not
 * their median as in the paper. On a core shared with a busy thread a step
 * is bimodal (it either fits in its scheduler slice or waits out the other
 * thread's turn), and the median jumps from one mode to the other between
 * neighbouring sizes, over the targets in between; the trimmed mean moves
 * continuously with the share of slow runs, yet ignores a far run in ten.
 * Sorts times_s; with standard_error_s, also its standard error (Tukey and
 * McLaughlin; infinite for one run). */
double compute_trimmed_mean(double *times_s, int count, double *standard_error_s);

typedef struct compute_point_rule {
    int runs;           /* runs always taken, 1 to 1000 */
    int most_runs;      /* runs at most (>= runs): batches of `runs` are added while... */
    double precision_s; /* ...the standard error is above this */
} compute_point_rule;

/* What a candidate measured: its time and how precisely. */
typedef struct compute_point {
    double t_s;              /* the trimmed mean of the runs */
    double standard_error_s; /* of t_s; infinite for one run */
    int runs;
} compute_point;

/* Whether the point is still less precise than the rule asks after the most
 * runs it allows: the step is bimodal there, or the node was disturbed
 * throughout. */
bool compute_point_imprecise(const compute_point *point, const compute_point_rule *rule);

/* How far beyond the tolerance a point may lie and still count as reaching
 * its target: twice its standard error when it is imprecise (its 95 %
 * interval then meets the accepted band), at most the band's own half
 * width (the tolerance, 4 x precision_s), else 0. A bimodal step's
 * estimate stays imprecise at any affordable number of runs, and a search
 * that demanded the band itself would stop on a collapsed bracket. */
double compute_point_slack_s(const compute_point *point, const compute_point_rule *rule);

/* measure(size) over the runs the rule asks for; 0, or -1 when a
 * measurement failed or the rule is invalid. */
int compute_measure_point(compute_measure_fn measure, void *context, size_t size,
                          const compute_point_rule *rule, compute_point *point);

/* The local measurement: context is a compute_team *; reserves n and runs
 * compute_step, returning step_s. */
int compute_measure_local(void *team, size_t matrix_n, double *t_s);

typedef struct compute_calib_options {
    double tolerance;    /* relative error accepted, e.g. 0.10 */
    int reps;            /* measurements per candidate; their trimmed mean counts */
    int max_reps;        /* more, up to this (0: reps), while that is less precise than a
                            quarter of the tolerance (compute_calib_point_rule) */
    int max_iterations;  /* candidates measured at most */
    size_t max_matrix_n; /* largest n memory allows (compute_team_max_matrix_n) */
    size_t start_n;      /* first candidate (e.g. the n of a smaller target) */
    size_t floor_n;      /* the answer must be larger: the n of a shorter target (0: none) */
    double floor_t_s;    /* floor_n's measured time (0: unknown) */
} compute_calib_options;

/* tolerance 0.10 (the paper's), reps 5, max_reps 40, max_iterations 20, start_n 64,
 * floor_n 0, floor_t_s 0, max_matrix_n 0 (must be set). */
compute_calib_options compute_calib_defaults(void);

typedef enum compute_calib_status {
    COMPUTE_CALIB_CONVERGED,     /* |t - target| <= tolerance * target (+ the slack of an
                                    imprecise t, compute_point_slack_s) */
    COMPUTE_CALIB_NOT_CONVERGED, /* out of iterations, or no integer n fits: closest kept */
    COMPUTE_CALIB_TOO_SMALL,     /* even n = 1 takes longer than the target */
    COMPUTE_CALIB_TOO_LARGE,     /* the target needs more memory than allowed */
    COMPUTE_CALIB_ERROR,         /* the measurement failed or bad options */
} compute_calib_status;

const char *compute_calib_status_name(compute_calib_status status);

/* The rule for one candidate of a calibration to target_s: options' reps,
 * up to max_reps while the standard error is above tolerance * target / 4. */
compute_point_rule compute_calib_point_rule(const compute_calib_options *options, double target_s);

typedef struct compute_calib_result {
    double target_s;
    size_t matrix_n;          /* the n found (closest measured when not converged) */
    double t_s;               /* measured at matrix_n (trimmed mean), not the target */
    double t_se_s;            /* t_s's standard error (0 when not measured here) */
    int runs;                 /* runs behind t_s */
    bool imprecise;           /* t_s less precise than the rule asks after the most runs */
    double gflops_per_thread; /* 2 n^3 / t_s / 1e9 */
    int iterations;           /* candidates measured */
    bool converged;
    compute_calib_status status;
} compute_calib_result;

/* Finds n such that measure(n) ~ target_s: models t ~ c n^3 (refit from each
 * candidate's estimate, compute_calib_point_rule; log-log interpolation
 * once the target is bracketed; a bracket steeper than n^4 holds a
 * disturbed measurement and loses its older end). With floor_n, only
 * n > floor_n are candidates, so sizes rise with their targets; with
 * floor_t_s as well, the floor is the first lower bound of the search. A
 * candidate whose estimate is implausible (n = floor_n + 1 already too long,
 * or a time grown faster than n^4 from the floor's) is measured twice more
 * and the median of the three estimates decides: a disturbed candidate is
 * not judged on one estimate. Still too long at floor_n + 1: NOT_CONVERGED
 * there. Returns 0 whatever the status, -1 (status ERROR) when the
 * measurement failed or the options are invalid, with a message. */
int compute_calibrate(const compute_calib_options *options, double target_s,
                      compute_measure_fn measure, void *context, compute_calib_result *result,
                      char *error, size_t error_size);

/* Whether a calibrated size still takes its target: its n measured again
 * as a candidate is (compute_calib_point_rule) and found within max_error
 * of the target, beyond the slack of an imprecise estimate
 * (compute_point_slack_s). A machine whose speed changed between the
 * calibration and the check (a VM whose host took the core's other
 * hardware thread for a second) fails it: the size would not take its
 * target in the sweep either. again: the measurement. 0, or -1 when the
 * measurement failed. */
int compute_calib_check(const compute_calib_options *options,
                        const compute_calib_result *calibrated, double max_error,
                        compute_measure_fn measure, void *context, compute_point *again,
                        bool *holds);

/* GFLOP/s of one thread doing an n x n x n dgemm in t_s seconds. */
double compute_gflops(size_t matrix_n, double t_s);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t compute_now_ns(void);

#endif
