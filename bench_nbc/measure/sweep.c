/* The sweep (Algorithm 1 over the grid). Each cell runs a warm-up block,
 * recorded and not used, then run.repetitions blocks (with run.half_width,
 * more until its interval is narrow enough: stopping.h); a block measures the
 * three kinds once each, in one of the 6 orders of a Williams design, and a
 * share of the blocks their null controls as well (block_order.h). A late
 * attempt redoes its whole block. Cells run in an order shuffled from a
 * recorded seed, so slow drift of the machine does not draw structure on the
 * heatmap; with run.visits > 1 a cell's blocks are shared by visits spread
 * over the sweep, each with its own warm-up block (visit_plan.h). Every
 * attempt, late or kept, goes to raw.csv as its cell ends (sweep_raw.h). */
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/measure/sweep_raw.h"
#include "bench_nbc/measure/visit_plan.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Rank 0: what the stopping rule reads of the cell so far (the 95 %
 * interval of r_overhead), from the rows raw.csv
 * will hold, by the analysis's estimator (stopping.h). */
static int cell_interval(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                         const nbc_attempt_log *log, const int64_t *all, nbc_stop_state *state)
{
    char *text = NULL, err[1024];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return MPI_ERR_NO_MEM;
    int rc = fprintf(f, "%s\n", run_output_header(OUT_RAW)) < 0 ? MPI_ERR_IO : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = nbc_raw_print_cell(run, plan, cell, log, all, f);
    if (fclose(f) != 0 && rc == MPI_SUCCESS)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS &&
        nbc_stop_estimate(text, len, run->ranks, state, err, sizeof err) != 0) {
        fprintf(stderr, "bench_nbc: cell %zu: %s\n", cell, err);
        rc = MPI_ERR_OTHER;
    }
    free(text);
    return rc;
}

/* After a complete measured block: whether the cell stops and why
 * (stopping.h). The cell's estimates are computed at the rule's looks (every
 * Williams cycle from run.repetitions on) and when the cell is about to
 * stop on its cap or budget (so that sweep.csv records the half-width it
 * stopped at), and only when run.half_width asks for them; rank 0 decides,
 * every rank receives its answer. before_s: the cell's time in its earlier
 * visits; start_ns: this visit's start. Collective. */
static int decide_stop(nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                       const nbc_attempt_log *log, int blocks, double before_s, int64_t start_ns,
                       nbc_cell_stop *stop)
{
    const nbc_config *cfg = run->cfg;
    nbc_stop_rule rule = nbc_stop_rule_of(cfg->run.repetitions, cfg->run.max_repetitions,
                                          cfg->run.half_width, cfg->run.cell_budget_s);
    nbc_stop_state state = {.blocks = blocks, .ci_lo = NAN, .ci_hi = NAN};
    state.elapsed_s = before_s + (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
    /* rank 0's clock decides whether the budget is spent: its answer to all */
    double budget_s = rule.cell_budget_s;
    int estimate = blocks >= rule.min_blocks && rule.half_width > 0 &&
                   (nbc_stop_is_look(&rule, blocks) || blocks >= rule.max_blocks ||
                    (budget_s > 0 && state.elapsed_s > budget_s));
    int rc = MPI_Bcast(&estimate, 1, MPI_INT, 0, run->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (estimate) {
        int64_t *all;
        rc = nbc_raw_gather_cell(run, log, &all);
        if (rc == MPI_SUCCESS && run->rank == 0)
            rc = cell_interval(run, plan, cell, log, all, &state);
        free(all);
    }
    /* failed, reason, half-width, elapsed: rank 0's, for every rank */
    double answer[4] = {rc != MPI_SUCCESS, NBC_STOP_CONTINUE, NAN, 0};
    if (run->rank == 0 && rc == MPI_SUCCESS) {
        state.elapsed_s = before_s + (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
        answer[1] = nbc_stop_decide(&rule, &state);
        answer[2] = (state.ci_hi - state.ci_lo) / 2;
        answer[3] = state.elapsed_s;
    }
    int brc = MPI_Bcast(answer, 4, MPI_DOUBLE, 0, run->comm);
    if (brc != MPI_SUCCESS)
        return brc;
    if (answer[0] != 0)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    *stop = (nbc_cell_stop){.blocks = blocks,
                            .reason = (nbc_stop_reason)answer[1],
                            .half_width = answer[2],
                            .elapsed_s = answer[3]};
    return MPI_SUCCESS;
}

/* Progress on stderr from rank 0: on a terminal one line rewritten in place
 * after each visit; in a file or pipe (a batch log) a line when at least
 * PROGRESS_PERIOD_S passed since the last one, and the last visit's, so that
 * a sweep of hundreds of cells does not flood the log. The time left follows
 * from the visits (all of a cell's when run.visits is 1). The cell's bytes
 * and matrix order are in the run folder (sweep.csv, calib_*.csv).
 * *shown_s: the elapsed time of the last line printed (0 before the first). */
#define PROGRESS_PERIOD_S 10.0
static void report_progress(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                            const nbc_cell_stop *stop, int visits_done, int visits_total,
                            int cells_done, int cells_total, double elapsed_s, double *shown_s)
{
    if (run->rank != 0)
        return;
    bool tty = isatty(STDERR_FILENO), last = visits_done >= visits_total;
    if (!tty && !last && elapsed_s - *shown_s < PROGRESS_PERIOD_S)
        return;
    *shown_s = elapsed_s;
    const nbc_comm_calibration *comm = &plan->comm[cell / plan->comp_count];
    const compute_calib_result *comp = &plan->comp[cell % plan->comp_count];
    double left_s = visits_done > 0 ? elapsed_s / visits_done * (visits_total - visits_done) : 0;
    char visits[64] = "";
    if (visits_total > cells_total)
        snprintf(visits, sizeof visits, "  visit %d/%d", visits_done, visits_total);
    fprintf(stderr,
            "%sbench_nbc: cell %d/%d%s  comm %.3g ms x comp %.3g ms  %d blocks (%s)  "
            "elapsed %.0f s, about %.0f s left%s",
            tty ? "\r\033[K" : "", cells_done, cells_total, visits, comm->target_s * 1e3,
            comp->target_s * 1e3, stop->blocks, nbc_stop_reason_name(stop->reason), elapsed_s,
            left_s, tty && !last ? "" : "\n");
    fflush(stderr);
}

/* Adds a calibration point when the clock model's schedule says so
 * (clocksync_resync_due: the baseline doubles, at least every resync
 * interval, and whenever extrapolating would err by more than a share of
 * tolerance_ns, the lateness tolerance of what is measured next). *taken:
 * whether it did. Collective. */
static int resync_if_due(nbc_run *run, int64_t tolerance_ns, bool *taken)
{
    watchdog_context(run->watchdog, "a clock resynchronization");
    watchdog_arm(run->watchdog, 0);
    watchdog_phase(run->watchdog, PHASE_CALIBRATION);
    bool due = false;
    int rc =
        clocksync_resync_due(run->sync, tolerance_ns, run->cfg->clocksync.resync_interval_s, &due);
    if (rc == MPI_SUCCESS && due)
        rc = clocksync_calibrate(run->sync);
    watchdog_disarm(run->watchdog);
    *taken = rc == MPI_SUCCESS && due;
    return rc;
}

/* Lateness that lasts: a block whose passes were all late for half its
 * redos is in a burst of interference from outside, not in the routine
 * lateness of a busy machine (where a progress thread shares each compute
 * core, the longest streaks were 13 and 24 passes in about 900 blocks; a
 * burst on a busy VM made 10 of 742 blocks late 50 times in a row). It
 * then pauses before every tenth further pass (run.late_patience_s). */
#define LATE_PAUSE_EVERY 10

/* The pause before pass `attempt` of a block whose passes so far were all
 * late: run.late_patience_s spread over the pauses of the second half of
 * its redos, so that they total the patience whatever max_retries; 0
 * elsewhere, or when the sweep is not patient. */
static double late_pause_s(const nbc_run *run, int attempt, bool patient)
{
    int first = run->max_retries / 2;
    if (!patient || first < LATE_PAUSE_EVERY || attempt < first ||
        (attempt - first) % LATE_PAUSE_EVERY != 0)
        return 0;
    int pauses = (run->max_retries - first) / LATE_PAUSE_EVERY + 1;
    return run->late_patience_s / pauses;
}

/* Every rank sleeps the same pause: the attempts' lateness, hence the
 * streak, is the same on every rank, and the next window barrier aligns
 * them again. SIGTERM or SIGINT ends the pause: the stop is then agreed at
 * the block's end, and a batch system's grace time is not slept away. */
static int pause_ranks(const nbc_run *run, double seconds)
{
    struct timespec left = {.tv_sec = (time_t)seconds,
                            .tv_nsec = (long)((seconds - floor(seconds)) * 1e9)};
    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            return MPI_ERR_OTHER;
        if (*run->stop_signal)
            break;
    }
    return MPI_SUCCESS;
}

/* One block: the kinds of `sequence`, once each. A late attempt ends the
 * pass and the whole block is redone in the same order, its attempts
 * numbered one more (from spec->attempt: 0, or for the warm-up of a cell's
 * later visit the number after its last warm-up pass, so that raw.csv's
 * block 0 holds every visit's warm-up, each pass under its own number): the kept attempts of a
 * block are then one pass, each kind after the predecessor its order gives it (a kind redone alone
 * would follow its own late attempt, warm in cache, and run faster). Before a redo the clocks
 * follow the resync schedule, as between cells: a block redone many times would otherwise
 * extrapolate the model ever further from its last point, and a start-skew bound grown to its cap
 * leaves half the tolerance to the barrier, so every pass could be late because the last ones were
 * (*clock_points counts the points taken). A patient block late pass after pass pauses between
 * passes (late_pause_s; *paused_s adds the pauses up). *kept is false when run->max_retries redos
 * were late as well. Collective. */
static int measure_block(nbc_run *run, nbc_measure_spec *spec, const nbc_kind *sequence, int kinds,
                         const double expected_s[KIND_MAIN_COUNT], const char *where, bool patient,
                         nbc_attempt_log *log, bool *kept, int *clock_points, double *paused_s)
{
    int rc = MPI_SUCCESS;
    bool late = true;
    for (int pass = 0; rc == MPI_SUCCESS && late && pass <= run->max_retries;
         pass++, spec->attempt++) {
        double pause_s = late_pause_s(run, pass, patient);
        if (pause_s > 0) {
            rc = pause_ranks(run, pause_s);
            *paused_s += pause_s;
            if (rc != MPI_SUCCESS)
                break;
        }
        if (pass > 0) {
            bool taken;
            rc = resync_if_due(run, spec->tolerance_ns, &taken);
            *clock_points += taken;
            if (rc != MPI_SUCCESS)
                break;
        }
        late = false;
        for (int turn = 0; turn < kinds && rc == MPI_SUCCESS && !late; turn++) {
            spec->kind = sequence[turn];
            spec->expected_s = expected_s[nbc_kind_measures(spec->kind)];
            char context[320];
            snprintf(context, sizeof context, "%s, %s, block %d, attempt %d", where,
                     nbc_kind_names[spec->kind], spec->block, spec->attempt);
            watchdog_context(run->watchdog, context);
            /* BENCH_NBC_FAULT=late_once: one late attempt, the redo's test;
             * late_burst: late until the burst's end, the patience's test */
            bool always_late = run->fault_late;
            if (run->fault_late_once && spec->block == 1 && turn == 1) {
                run->fault_late = true;
                run->fault_late_once = false;
            }
            if (run->fault_burst_end_ns > clocksync_now_local_ns(run->sync))
                run->fault_late = true;
            rc = nbc_measure(run, spec, log, &late);
            run->fault_late = always_late;
        }
    }
    *kept = rc == MPI_SUCCESS && !late;
    return rc;
}

/* Where a cell stands between its visits (visit_plan.h). */
typedef struct cell_progress {
    nbc_block_orders orders; /* its Williams cycle, continued from visit to visit */
    int visits;              /* made so far */
    int warmup_passes;       /* of its warm-up blocks so far (raw.csv block 0) */
    int blocks;              /* measured blocks done */
    int clock_points;        /* taken inside its blocks */
    double paused_s;         /* its patient pauses */
    double elapsed_s;        /* its time in the visits so far */
    size_t attempts_before;  /* its log's length before its first visit */
} cell_progress;

/* One visit of a cell: its warm-up block, then up to `blocks` measured
 * blocks, each in its order, until the stopping rule says so (*stop: how
 * many, why; NBC_STOP_CONTINUE when the visit's share is done first). Stops
 * the cell (reason late) when a block ran out of redos: the cell is then
 * invalid, and measuring the rest would be time lost. A patient visit's
 * blocks pause in a burst of lateness. */
static int measure_visit(nbc_run *run, const nbc_sweep_plan *plan, size_t cell, coll_instance *inst,
                         bool patient, int blocks, cell_progress *cp, nbc_attempt_log *log,
                         bool *interrupted, nbc_cell_stop *stop)
{
    size_t ci = cell / plan->comp_count, cj = cell % plan->comp_count;
    const nbc_comm_calibration *comm = &plan->comm[ci];
    const compute_calib_result *comp = &plan->comp[cj];
    /* how long each measure takes, a null control as its reference */
    const double expected_s[KIND_MAIN_COUNT] = {comm->t_s, comp->t_s, fmax(comm->t_s, comp->t_s)};
    nbc_measure_spec spec = {
        .inst = inst,
        .matrix_n = comp->matrix_n,
        .t_comp_s = comp->t_s,
        .tolerance_ns = nbc_lateness_tolerance_ns(run->cfg->run.late_tolerance, comm->t_s,
                                                  comp->t_s, run->barrier_precision_ns),
    };
    char where[192];
    snprintf(where, sizeof where, "cell %zu (comm %.3g ms, %zu B x comp %.3g ms, n=%zu)", cell,
             comm->target_s * 1e3, comm->bytes, comp->target_s * 1e3, comp->matrix_n);
    int rc = MPI_SUCCESS;
    bool kept = true;
    int64_t start_ns = clocksync_now_local_ns(run->sync);
    *stop = (nbc_cell_stop){.reason = NBC_STOP_CONTINUE, .half_width = NAN};
    for (int turn = 0; turn <= blocks && stop->reason == NBC_STOP_CONTINUE && rc == MPI_SUCCESS &&
                       kept && !*interrupted;
         turn++) {
        int block = turn == 0 ? 0 : cp->blocks + 1;
        nbc_kind sequence[KIND_COUNT];
        int kinds = nbc_block_sequence(&cp->orders, block, sequence);
        spec.block = block;
        spec.attempt = block == 0 ? cp->warmup_passes : 0;
        rc = measure_block(run, &spec, sequence, kinds, expected_s, where, patient, log, &kept,
                           &cp->clock_points, &cp->paused_s);
        if (block == 0)
            cp->warmup_passes = spec.attempt;
        if (rc == MPI_SUCCESS)
            *interrupted = nbc_stop_requested(run);
        if (rc == MPI_SUCCESS && kept && !*interrupted && block >= 1) {
            cp->blocks = block;
            rc = decide_stop(run, plan, cell, log, block, cp->elapsed_s, start_ns, stop);
        }
        if (!kept)
            *stop = (nbc_cell_stop){.blocks = block > 0 ? block : cp->blocks,
                                    .reason = NBC_STOP_LATE,
                                    .half_width = NAN};
    }
    cp->visits++;
    cp->elapsed_s += (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
    stop->elapsed_s = cp->elapsed_s;
    stop->clock_points = cp->clock_points;
    if (rc == MPI_SUCCESS && !kept && run->rank == 0)
        fprintf(stderr,
                "bench_nbc: cell %zu: block %d was late in all its %d passes (a rank left the "
                "window barrier later than %.3g us), with %.3g s of pauses between them: cell "
                "stopped, invalid (late)%s\n",
                cell, stop->blocks, run->max_retries + 1, (double)spec.tolerance_ns * 1e-3,
                cp->paused_s, cp->paused_s > 0 ? "; the next cell does not pause" : "");
    return rc;
}

/* The cell's row of sweep.csv (rank 0), after its rows of raw.csv. */
static int write_stop(run_output *out, size_t cell, const nbc_cell_stop *stop, int test_chunks)
{
    FILE *f = run_output_file(out, OUT_SWEEP);
    if (!f || fprintf(f, "%zu,%d,%s,%.6g,%.3f,%d,%d\n", cell, stop->blocks,
                      nbc_stop_reason_name(stop->reason), stop->half_width, stop->elapsed_s,
                      test_chunks, stop->clock_points) < 0)
        return MPI_ERR_IO;
    return MPI_SUCCESS;
}

/* A cell that ended: its rows of raw.csv, sched.csv and mpit_pvars.csv,
 * then its row of sweep.csv, flushed; every rank learns of a write failure
 * on rank 0. Collective. */
static int write_ended_cell(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record,
                            size_t cell, FILE *raw)
{
    record->measured[cell] = true;
    record->order[record->order_count++] = cell;
    int rc = nbc_mpit_cell_end(run, cell);
    if (rc == MPI_SUCCESS)
        rc = nbc_raw_write_cell(run, plan, record, cell, raw);
    if (rc == MPI_SUCCESS)
        rc = nbc_threads_write_cell(run, run->threads, cell, &record->logs[cell]);
    if (rc == MPI_SUCCESS && run->rank == 0)
        rc =
            write_stop(run->out, cell, &record->stops[cell],
                       run->progress != NBC_PROGRESS_TEST
                           ? 0
                           : deploy_test_chunks(run->test_chunks, run->cfg->progress.test_period_us,
                                                plan->comp[cell % plan->comp_count].t_s));
    if (rc == MPI_SUCCESS && run->rank == 0 && run_output_flush(run->out) != 0)
        rc = MPI_ERR_IO;
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IO) {
        int failed_here = rc != MPI_SUCCESS, failed_any;
        int brc = MPI_Allreduce(&failed_here, &failed_any, 1, MPI_INT, MPI_MAX, run->comm);
        rc = brc != MPI_SUCCESS ? brc : (failed_any ? MPI_ERR_IO : MPI_SUCCESS);
    }
    return rc;
}

/* The faults BENCH_NBC_FAULT plants in a cell (the tests'), armed at each
 * of its visits. */
static void arm_faults(nbc_run *run, size_t cell)
{
    run->fault_hang = run->fault_hang_cell == (int)cell;
    run->fault_late = cell < 64 && run->fault_late_cells & UINT64_C(1) << cell;
    run->fault_late_once = run->fault_late_once_cell == (int)cell;
    run->fault_burst_end_ns = cell < 64 && run->fault_late_burst_cells & UINT64_C(1) << cell
                                  ? clocksync_now_local_ns(run->sync) + 1000000000
                                  : 0;
}

/* One visit of `cell` (after the clock schedule's resync): its buffers
 * prepared anew (cells come in any order; the visit's warm-up block takes
 * the first touches), measure_visit, the buffers released. Collective. */
static int visit_cell(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record,
                      size_t cell, bool patient, cell_progress *cp, bool *interrupted)
{
    const nbc_config *cfg = run->cfg;
    bool taken;
    int rc = resync_if_due(run,
                           nbc_lateness_tolerance_ns(
                               cfg->run.late_tolerance, plan->comm[cell / plan->comp_count].t_s,
                               plan->comp[cell % plan->comp_count].t_s, run->barrier_precision_ns),
                           &taken);
    coll_instance inst;
    if (rc == MPI_SUCCESS)
        rc = nbc_prepare_instance(run, plan->comm[cell / plan->comp_count].bytes, &inst);
    if (rc != MPI_SUCCESS)
        return rc;
    if (cp->visits == 0)
        nbc_block_orders_init(&cp->orders, cfg->run.null_share, cp->orders.random_state);
    arm_faults(run, cell);
    nbc_mpit_cell_begin(run->mpit);
    int blocks =
        nbc_visit_blocks(cfg->run.repetitions, cfg->run.visits, NBC_ORDER_COUNT, cp->visits);
    rc = measure_visit(run, plan, cell, &inst, patient, blocks, cp, &record->logs[cell],
                       interrupted, &record->stops[cell]);
    if (rc == MPI_SUCCESS && !*interrupted)
        rc = nbc_mpit_cell_pause(run->mpit, cell);
    coll_instance_release(&inst);
    return rc;
}

/* What the rounds share: the visits counted for the progress line, the
 * patience, the attempts issued when the last cell ended. */
typedef struct sweep_tally {
    size_t cells_total;
    int visits_done, visits_total, planned_visits;
    bool patient; /* false after a cell ran out of redos despite its pauses */
    int64_t seq_kept;
    int64_t start_ns;
    double shown_s; /* the elapsed time of the last progress line */
} sweep_tally;

/* One round over the `*open` cells of round[] not ended, in their order:
 * a visit each; a cell that ends is written and leaves the round, the others
 * keep their order. Stops at an error or an interruption (the cells not
 * ended, visited or not, stay in round[]). Collective. */
static int visit_round(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record,
                       FILE *raw, size_t *round, size_t *open, cell_progress *progress,
                       sweep_tally *tally, bool *interrupted)
{
    int rc = MPI_SUCCESS;
    size_t still = 0;
    for (size_t i = 0; i < *open; i++) {
        size_t cell = round[i];
        if (rc != MPI_SUCCESS || *interrupted) {
            round[still++] = cell;
            continue;
        }
        rc = visit_cell(run, plan, record, cell, tally->patient, &progress[cell], interrupted);
        const nbc_cell_stop *stop = &record->stops[cell];
        if (rc != MPI_SUCCESS || *interrupted || stop->reason == NBC_STOP_CONTINUE)
            round[still++] = cell;
        if (rc != MPI_SUCCESS || *interrupted)
            continue;
        tally->patient = stop->reason != NBC_STOP_LATE;
        tally->visits_done++;
        int made = progress[cell].visits, planned = tally->planned_visits;
        if (stop->reason == NBC_STOP_CONTINUE) {
            tally->visits_total += made >= planned; /* adaptive stopping: one more */
        } else {
            tally->visits_total -= made < planned ? planned - made : 0; /* ended early */
            rc = write_ended_cell(run, plan, record, cell, raw);
            tally->seq_kept = run->next_seq;
        }
        report_progress(run, plan, cell, stop, tally->visits_done, tally->visits_total,
                        (int)record->order_count, (int)tally->cells_total,
                        (double)(clocksync_now_local_ns(run->sync) - tally->start_ns) * 1e-9,
                        &tally->shown_s);
    }
    *open = still;
    return rc;
}

int nbc_sweep(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record, bool *interrupted)
{
    *interrupted = false;
    size_t cells = plan->comm_count * plan->comp_count;
    size_t *order = malloc(cells * sizeof *order), total = 0;
    cell_progress *progress = calloc(cells, sizeof *progress);
    if (!order || !progress) {
        free(order);
        free(progress);
        return MPI_ERR_NO_MEM;
    }
    for (size_t c = 0; c < cells; c++)
        if (!(plan->cell_done && plan->cell_done[c]) && nbc_cell_reachable(plan, c))
            order[total++] = c;
    uint64_t random_state = plan->seed;
    nbc_shuffle(order, total, &random_state);
    for (size_t c = 0; c < cells; c++) {
        progress[c].orders.random_state = &random_state;
        progress[c].attempts_before = record->logs[c].count;
    }
    FILE *raw = run->rank == 0 ? run_output_file(run->out, OUT_RAW) : NULL;
    int rc = run->rank != 0 || raw ? MPI_SUCCESS : MPI_ERR_IO;
    int planned = nbc_planned_visits(run->cfg->run.repetitions, run->cfg->run.visits);
    sweep_tally tally = {.cells_total = total,
                         .visits_total = (int)total * planned,
                         .planned_visits = planned,
                         .patient = true,
                         .seq_kept = run->next_seq,
                         .start_ns = clocksync_now_local_ns(run->sync)};
    /* chunk after chunk; in each, rounds until its cells ended, every round
     * after the first in an order shuffled anew */
    size_t chunks = nbc_chunk_count(total);
    for (size_t chunk = 0; chunk < chunks && rc == MPI_SUCCESS && !*interrupted; chunk++) {
        size_t first = nbc_chunk_start(total, chunk);
        size_t open = nbc_chunk_start(total, chunk + 1) - first, *round = &order[first];
        for (int r = 0; open > 0 && rc == MPI_SUCCESS && !*interrupted; r++) {
            if (r > 0)
                nbc_shuffle(round, open, &random_state);
            rc = visit_round(run, plan, record, raw, round, &open, progress, &tally, interrupted);
        }
        if (rc != MPI_SUCCESS || *interrupted) {
            /* cells cut short are not written: they are redone on --resume */
            for (size_t i = 0; i < open; i++)
                record->logs[round[i]].count = progress[round[i]].attempts_before;
            run->next_seq = tally.seq_kept;
        }
    }
    free(order);
    free(progress);
    if (rc == MPI_SUCCESS)
        nbc_sweep_report_lateness(run, record);
    return rc;
}
