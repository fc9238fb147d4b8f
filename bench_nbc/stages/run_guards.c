/* What guards a run while it measures: the watchdog that ends a hung job
 * with a message, SIGTERM/SIGINT turned into a stop the ranks agree on, and
 * the faults the tests aim at a rank (BENCH_NBC_FAULT). */
#include "bench_nbc/errors.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the signal handler leaves its mark: the job's flag (a handler
 * has no other way to reach it). */
static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int signo)
{
    (void)signo;
    if (stop_flag)
        *stop_flag = 1;
}

/* BENCH_NBC_FAULT=KIND:RANK:CELL[,KIND:RANK:CELL...] (tests only) aims
 * faults at RANK in CELL: `hang`, it hangs in the wait, as if a message
 * were lost, so the watchdog can be seen to work; `late`, it reports
 * itself late at every window barrier, so the retries run out; `late_once`,
 * late once, at the first attempt of the second kind of block 1, so the
 * block's redo can be seen; `late_burst`, late at every window barrier of
 * the cell's first second, a burst of interference shorter than a patience
 * of a few seconds (run.late_patience_s). The cells (below 64) of the
 * faults of `kind` aimed at this rank, one bit each. */
static uint64_t fault_cells(const char *kind, int rank)
{
    uint64_t cells = 0;
    for (const char *item = getenv("BENCH_NBC_FAULT"); item && *item;
         item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL) {
        char fault_kind[16];
        int fault_rank, cell;
        if (sscanf(item, "%15[a-z_]:%d:%d", fault_kind, &fault_rank, &cell) == 3 &&
            strcmp(fault_kind, kind) == 0 && fault_rank == rank && cell >= 0 && cell < 64)
            cells |= UINT64_C(1) << cell;
    }
    return cells;
}

/* The first cell of fault_cells, else -1. */
static int fault_cell(const char *kind, int rank)
{
    uint64_t cells = fault_cells(kind, rank);
    for (int cell = 0; cell < 64; cell++)
        if (cells & UINT64_C(1) << cell)
            return cell;
    return -1;
}

void nbc_start_guards(nbc_study *study)
{
    nbc_run *run = &study->run;
    char err[1024] = "";
    study->fire_record = (watchdog_record){.run = run, .meta = &study->meta};
    nbc_threads_note_existing(run->threads); /* the watchdog is the thread that appears next */
    run->watchdog = watchdog_start(run->rank, run->cfg->watchdog.factor, run->cfg->watchdog.floor_s,
                                   nbc_meta_record_watchdog, &study->fire_record, err, sizeof err);
    nbc_exit_if_any_failed(run->watchdog == NULL, err, 1);
    /* Every thread of the rank runs now (each run folder lists them). */
    nbc_threads_register(run->threads, run->team, progress_thread_tid(run->progress_thread),
                         nbc_threads_newest(run->threads));
    run->fault_hang_cell = fault_cell("hang", run->rank);
    run->fault_late_cells = fault_cells("late", run->rank);
    run->fault_late_once_cell = fault_cell("late_once", run->rank);
    run->fault_late_burst_cells = fault_cells("late_burst", run->rank);

    stop_flag = run->stop_signal;
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}
