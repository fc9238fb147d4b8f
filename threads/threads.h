/* threads: every thread of this process, what it is for and where it may
 * run, the scheduler's counters of a thread, and the refusal of degenerate
 * placements (DESIGN.md: "a deployment is defined by where every thread
 * runs; a run proves it by recording each thread's CPUs and CPU time").
 *
 * Plain C on Linux's /proc/self/task, no MPI: bench_nbc registers the
 * threads it knows (main, compute team, its progress thread, watchdog) and
 * every other thread is classified by when it appeared (MPI_Init's threads
 * are the library's). Times are integer nanoseconds; a counter the kernel
 * does not expose is -1 ("unavailable"). */
#ifndef THREADS_THREADS_H
#define THREADS_THREADS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- Roles ----------------------------------------------------------- */

typedef enum {
    THREADS_ROLE_MAIN,           /* the thread that called main() (also compute 0) */
    THREADS_ROLE_COMPUTE,        /* a worker of the compute team (compute/team.c) */
    THREADS_ROLE_SUITE_PROGRESS, /* bench_nbc's own progress thread */
    THREADS_ROLE_WATCHDOG,       /* bench_nbc's watchdog (sleeps) */
    THREADS_ROLE_LIBRARY,        /* appeared in or after MPI_Init, not the suite's */
    THREADS_ROLE_OTHER,          /* existed before MPI_Init: a BLAS pool, a runtime's helper */
    THREADS_ROLE_COUNT
} threads_role;

/* "main", "compute", "suite_progress", "watchdog", "library", "other". */
const char *threads_role_name(threads_role role);

/* What the program knows of its threads; tids of 0 are absent. */
typedef struct threads_known {
    const pid_t *before_init; /* threads that existed before MPI_Init */
    int before_init_count;
    pid_t main_tid;
    const pid_t *compute_tids; /* [compute_count]; compute_tids[0] is usually main_tid */
    int compute_count;
    pid_t suite_progress_tid;
    pid_t watchdog_tid;
} threads_known;

/* The role of `tid`; *compute_index is its place in the compute team, or
 * -1. The main thread is THREADS_ROLE_MAIN, with its team index (0) when it
 * computes: "main" and "compute" are the computing threads. */
threads_role threads_classify(const threads_known *known, pid_t tid, int *compute_index);

/* ---- Listing --------------------------------------------------------- */

typedef struct threads_entry {
    pid_t tid;
    char name[32]; /* /proc/self/task/T/comm */
    threads_role role;
    int compute_index; /* place in the compute team, -1 when not computing */
    char cpus[256];    /* allowed CPUs, as Cpus_allowed_list ("0-3,8"); "unknown" */
    cpu_set_t allowed; /* the same set (empty when unknown) */
} threads_entry;

/* Every thread of this process, in /proc/self/task order. Returns the count
 * (at most capacity; more threads are left out), -1 with a message. */
int threads_list(const threads_known *known, threads_entry *out, int capacity, char *err,
                 size_t errlen);

/* The tids of this process (at most capacity); -1 when /proc is unreadable. */
int threads_tids(pid_t *tids, int capacity);

/* A thread's name (comm) into buf; "" when it has gone. */
void threads_name(pid_t tid, char *buf, size_t len);

/* ---- CPU lists ------------------------------------------------------- */

/* "0-3,8" from a set (the kernel's Cpus_allowed_list format); "" when empty. */
void threads_cpu_list(const cpu_set_t *set, char *buf, size_t len);
/* The reverse; 0, or -1 when the text is not a CPU list. */
int threads_parse_cpu_list(const char *text, cpu_set_t *set);
/* A thread's allowed CPUs as text ("unknown" when it cannot be asked). */
void threads_allowed_text(pid_t tid, char *buf, size_t len);

/* ---- Scheduler counters ---------------------------------------------- */

typedef struct threads_sched {
    int64_t cpu_ns;         /* time on a CPU (the thread's CPU clock; else schedstat field 1) */
    int64_t run_delay_ns;   /* time runnable, waiting for a CPU (schedstat field 2) */
    int64_t vol_switches;   /* voluntary context switches (it blocked or slept) */
    int64_t invol_switches; /* involuntary ones (preempted) */
    int64_t migrations;     /* moves between CPUs (se.nr_migrations); -1: unavailable */
} threads_sched;

/* Parsers of the /proc/self/task/T files (text as read, NUL-terminated).
 * Each fills the fields its file holds and leaves the others; 0, or -1
 * when the text lacks them. schedstat: "cpu_ns run_delay_ns timeslices".
 * sched (CONFIG_SCHED_DEBUG): se.nr_migrations, nr_voluntary_switches,
 * nr_involuntary_switches. status: voluntary_ctxt_switches,
 * nonvoluntary_ctxt_switches. */
int threads_parse_schedstat(const char *text, threads_sched *s);
int threads_parse_sched(const char *text, threads_sched *s);
int threads_parse_status(const char *text, threads_sched *s);

/* The CPU time of a thread of this process (its CPU clock, as
 * CLOCK_THREAD_CPUTIME_ID is for the caller: exact, where schedstat lags
 * by up to a scheduler tick for a running thread); -1 when it has gone. */
int64_t threads_cpu_ns(pid_t tid);

/* b - a, field by field (-1 where either is unavailable). */
threads_sched threads_sched_diff(const threads_sched *a, const threads_sched *b);

/* A set of threads whose counters are read often: each thread's files are
 * opened once and read with pread (per thread: its CPU clock, schedstat,
 * and sched or, where the kernel has no sched file, status). */
typedef struct threads_probe threads_probe;

/* NULL with a message when a file of a thread cannot be opened. */
threads_probe *threads_probe_open(const pid_t *tids, int count, char *err, size_t errlen);
int threads_probe_count(const threads_probe *p);
pid_t threads_probe_tid(const threads_probe *p, int i);
/* Whether se.nr_migrations is read (the kernel's sched file is there). */
bool threads_probe_has_migrations(const threads_probe *p);
/* Counters of every thread, into out[count]. A thread that has ended reads
 * as all -1. 0, or -1 on a malformed file. */
int threads_probe_read(threads_probe *p, threads_sched *out);
/* Thread i's run-queue delay alone (schedstat field 2, one pread): the
 * reading cheap enough to take between a window barrier and t1. -1 when
 * the thread has gone or the file is malformed. */
int64_t threads_probe_run_delay_ns(threads_probe *p, int i);
void threads_probe_close(threads_probe *p);

/* ---- Degenerate placements ------------------------------------------- */

/* One rank's place: its host and the CPUs its compute threads are bound to
 * (one per thread, in team order; -1 for a thread left unbound). */
typedef struct threads_rank_place {
    int rank;
    const char *host;
    const int *compute_cpus;
    int compute_count;
} threads_rank_place;

/* The refusals (exit 2 before anything is measured), in this order:
 *   - a one-rank job: a collective on one rank moves nothing, so
 *     calibration can reach no target and every cell would be invalid;
 *   - two compute threads of one rank on the same CPU;
 *   - two ranks of one host (same host name) computing on a common CPU,
 *     unless may_share (a computation that needs no CPU: compute.kernel =
 *     sleep beside a library that yields).
 * 0 when the placement is sound, -1 with one message naming the ranks, the
 * host and the CPUs. */
int threads_check_placement(const threads_rank_place *ranks, int count, bool may_share, char *err,
                            size_t errlen);

#endif
