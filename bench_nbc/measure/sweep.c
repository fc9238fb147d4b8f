/* The sweep (Algorithm 1 over the grid). Each cell runs a warm-up block,
 * recorded and not used, then run.repetitions blocks (with run.half_width,
 * more until its interval is narrow enough: stopping.h); a block measures the
 * three kinds once each, in one of the 6 orders of a Williams design, and a
 * share of the blocks their null controls as well (block_order.h). A late
 * attempt redoes its whole block. Cells run in an order shuffled from a
 * recorded seed, so slow drift of the machine does not draw structure on the
 * heatmap. Every attempt, late or kept, goes to raw.csv as its cell ends. */
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Per attempt and rank, what raw.csv holds besides the cell's columns. */
enum { ROW_T1, ROW_T4 = ROW_T1 + 3, ROW_WALL, ROW_DEADLINE, ROW_LATE, ROW_FIELDS };

/* Converts one cell's attempts of this rank to global time and gathers them
 * on rank 0: *all holds log->count rows of ROW_FIELDS per rank, rank after
 * rank (NULL on the other ranks). Every rank made the same attempts (they
 * are collective), so the logs line up. Collective. */
static int gather_cell(nbc_run *run, const nbc_attempt_log *log, int64_t **all)
{
    size_t per_rank = log->count * ROW_FIELDS;
    const clocksync_model *model = clocksync_get_model(run->sync);
    int64_t *mine = malloc((per_rank ? per_rank : 1) * sizeof *mine);
    *all = run->rank == 0 ? malloc((per_rank ? per_rank : 1) * run->ranks * sizeof **all) : NULL;
    int rc = mine && (run->rank != 0 || *all) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (size_t i = 0; rc == MPI_SUCCESS && i < log->count; i++) {
        const nbc_attempt *a = &log->items[i];
        int64_t *row = &mine[i * ROW_FIELDS];
        for (int k = 0; k < 4; k++)
            row[ROW_T1 + k] =
                clocksync_model_to_global(model, a->sample.t_ns[k]) - run->epoch_global_ns;
        row[ROW_WALL] = a->wall_start_ns;
        row[ROW_DEADLINE] = a->deadline_global_ns - run->epoch_global_ns;
        row[ROW_LATE] = a->exit_late_ns;
    }
    if (rc == MPI_SUCCESS && per_rank > 0)
        rc = MPI_Gather(mine, (int)per_rank, MPI_INT64_T, *all, (int)per_rank, MPI_INT64_T, 0,
                        run->comm);
    free(mine);
    if (rc != MPI_SUCCESS) {
        free(*all);
        *all = NULL;
    }
    return rc;
}

/* raw.csv's rows of one cell from what gather_cell gathered (rank 0). */
static int print_cell(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                      const nbc_attempt_log *log, const int64_t *all, FILE *f)
{
    size_t per_rank = log->count * ROW_FIELDS;
    const nbc_comm_calibration *comm = &plan->comm[cell / plan->comp_count];
    const compute_calib_result *comp = &plan->comp[cell % plan->comp_count];
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < log->count; i++) {
        const nbc_attempt *a = &log->items[i];
        for (int r = 0; r < run->ranks; r++) {
            const int64_t *t = &all[r * per_rank + i * ROW_FIELDS];
            if (fprintf(f,
                        "%zu,%s,%.9g,%.9g,%zu,%zu,%d,%s,%s,%d,%" PRId64 ",%" PRId64 ".%06" PRId64
                        ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                        ",%" PRId64 ",%d,%" PRId64 "\n",
                        cell, run->coll->name, comm->target_s, comp->target_s, comm->bytes,
                        comp->matrix_n, a->block, a->block == 0 ? "warmup" : "measure",
                        nbc_kind_names[a->kind], a->attempt, a->seq, t[ROW_WALL] / 1000000000,
                        (t[ROW_WALL] % 1000000000) / 1000, r, t[ROW_T1], t[ROW_T1 + 1],
                        t[ROW_T1 + 2], t[ROW_T4], t[ROW_DEADLINE], t[ROW_LATE], a->tolerance_ns,
                        a->late, a->start_skew_ns) < 0)
                rc = MPI_ERR_IO;
        }
    }
    return rc;
}

/* Gathers one cell's rows and writes them to `f` (rank 0). Collective. */
static int write_cell(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                      size_t cell, FILE *f)
{
    int64_t *all;
    int rc = gather_cell(run, &record->logs[cell], &all);
    if (rc == MPI_SUCCESS && run->rank == 0)
        rc = print_cell(run, plan, cell, &record->logs[cell], all, f);
    free(all);
    return rc;
}

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
        rc = print_cell(run, plan, cell, log, all, f);
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
 * every rank receives its answer. Collective. */
static int decide_stop(nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                       const nbc_attempt_log *log, int blocks, int64_t start_ns,
                       nbc_cell_stop *stop)
{
    const nbc_config *cfg = run->cfg;
    nbc_stop_rule rule = nbc_stop_rule_of(cfg->run.repetitions, cfg->run.max_repetitions,
                                          cfg->run.half_width, cfg->run.cell_budget_s);
    nbc_stop_state state = {.blocks = blocks, .ci_lo = NAN, .ci_hi = NAN};
    state.elapsed_s = (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
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
        rc = gather_cell(run, log, &all);
        if (rc == MPI_SUCCESS && run->rank == 0)
            rc = cell_interval(run, plan, cell, log, all, &state);
        free(all);
    }
    /* failed, reason, half-width, elapsed: rank 0's, for every rank */
    double answer[4] = {rc != MPI_SUCCESS, NBC_STOP_CONTINUE, NAN, 0};
    if (run->rank == 0 && rc == MPI_SUCCESS) {
        state.elapsed_s = (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9;
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
 * after each cell; in a file or pipe (a batch log) a line when at least
 * PROGRESS_PERIOD_S passed since the last one, and the last cell's, so that a
 * sweep of hundreds of cells does not flood the log. The cell's bytes and
 * matrix order are in the run folder (sweep.csv, calib_*.csv). *shown_s:
 * the elapsed time of the last line printed (0 before the first). */
#define PROGRESS_PERIOD_S 10.0
static void report_progress(const nbc_run *run, const nbc_sweep_plan *plan, size_t cell,
                            const nbc_cell_stop *stop, int done, int total, double elapsed_s,
                            double *shown_s)
{
    if (run->rank != 0)
        return;
    bool tty = isatty(STDERR_FILENO);
    if (!tty && done < total && elapsed_s - *shown_s < PROGRESS_PERIOD_S)
        return;
    *shown_s = elapsed_s;
    const nbc_comm_calibration *comm = &plan->comm[cell / plan->comp_count];
    const compute_calib_result *comp = &plan->comp[cell % plan->comp_count];
    double left_s = done > 0 ? elapsed_s / done * (total - done) : 0;
    fprintf(stderr,
            "%sbench_nbc: cell %d/%d  comm %.3g ms x comp %.3g ms  %d blocks (%s)  "
            "elapsed %.0f s, about %.0f s left%s",
            tty ? "\r\033[K" : "", done, total, comm->target_s * 1e3, comp->target_s * 1e3,
            stop->blocks, nbc_stop_reason_name(stop->reason), elapsed_s, left_s,
            tty && done < total ? "" : "\n");
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
 * numbered one more: the kept attempts of a block are then one pass, each
 * kind after the predecessor its order gives it (a kind redone alone would
 * follow its own late attempt, warm in cache, and run faster). Before a
 * redo the clocks follow the resync schedule, as between cells: a block
 * redone many times would otherwise extrapolate the model ever further
 * from its last point, and a start-skew bound grown to its cap leaves half
 * the tolerance to the barrier, so every pass could be late because the
 * last ones were (*clock_points counts the points taken). A patient block
 * late pass after pass pauses between passes (late_pause_s; *paused_s adds
 * the pauses up). *kept is false when run->max_retries redos were late as well.
 * Collective. */
static int measure_block(nbc_run *run, nbc_measure_spec *spec, const nbc_kind *sequence, int kinds,
                         const double expected_s[KIND_MAIN_COUNT], const char *where, bool patient,
                         nbc_attempt_log *log, bool *kept, int *clock_points, double *paused_s)
{
    int rc = MPI_SUCCESS;
    bool late = true;
    for (spec->attempt = 0; rc == MPI_SUCCESS && late && spec->attempt <= run->max_retries;
         spec->attempt++) {
        double pause_s = late_pause_s(run, spec->attempt, patient);
        if (pause_s > 0) {
            rc = pause_ranks(run, pause_s);
            *paused_s += pause_s;
            if (rc != MPI_SUCCESS)
                break;
        }
        if (spec->attempt > 0) {
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

/* One cell: the warm-up block and the measured blocks, each in its order,
 * until the stopping rule says so (*stop: how many, why). Stops early
 * (reason late) when a block ran out of redos: the cell is then invalid,
 * and measuring the rest would be time lost. A patient cell's blocks pause
 * in a burst of lateness. */
static int measure_cell(nbc_run *run, const nbc_sweep_plan *plan, size_t cell, coll_instance *inst,
                        bool patient, nbc_attempt_log *log, uint64_t *random_state,
                        bool *interrupted, nbc_cell_stop *stop)
{
    size_t ci = cell / plan->comp_count, cj = cell % plan->comp_count;
    const nbc_comm_calibration *comm = &plan->comm[ci];
    const compute_calib_result *comp = &plan->comp[cj];
    nbc_block_orders orders;
    nbc_block_orders_init(&orders, run->cfg->run.null_share, random_state);
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
    int clock_points = 0;
    double paused_s = 0;
    int64_t start_ns = clocksync_now_local_ns(run->sync);
    *stop = (nbc_cell_stop){.reason = NBC_STOP_CONTINUE, .half_width = NAN};
    for (int block = 0;
         stop->reason == NBC_STOP_CONTINUE && rc == MPI_SUCCESS && kept && !*interrupted; block++) {
        nbc_kind sequence[KIND_COUNT];
        int kinds = nbc_block_sequence(&orders, block, sequence);
        spec.block = block;
        rc = measure_block(run, &spec, sequence, kinds, expected_s, where, patient, log, &kept,
                           &clock_points, &paused_s);
        if (rc == MPI_SUCCESS)
            *interrupted = nbc_stop_requested(run);
        if (rc == MPI_SUCCESS && kept && !*interrupted && block >= 1)
            rc = decide_stop(run, plan, cell, log, block, start_ns, stop);
        if (!kept)
            *stop = (nbc_cell_stop){
                .blocks = block,
                .reason = NBC_STOP_LATE,
                .half_width = NAN,
                .elapsed_s = (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9};
    }
    stop->clock_points = clock_points;
    if (rc == MPI_SUCCESS && !kept && run->rank == 0)
        fprintf(stderr,
                "bench_nbc: cell %zu: block %d was late in all its %d passes (a rank left the "
                "window barrier later than %.3g us), with %.3g s of pauses between them: cell "
                "stopped, invalid (late)%s\n",
                cell, stop->blocks, run->max_retries + 1, (double)spec.tolerance_ns * 1e-3,
                paused_s, paused_s > 0 ? "; the next cell does not pause" : "");
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

/* What lateness cost the blocks of one cell's log (the measured ones, or
 * with the warm-up too): attempts, late ones, discarded ones (late, or on
 * time in a pass a late one ended) and blocks redone. The log holds a
 * block's attempts together. */
typedef struct lateness_count {
    long attempts, late, discarded, blocks, redone;
} lateness_count;

static void count_lateness(const nbc_attempt_log *log, bool with_warmup, lateness_count *n)
{
    for (size_t begin = 0; begin < log->count;) {
        const nbc_attempt *first = &log->items[begin];
        size_t end = begin + 1;
        while (end < log->count && log->items[end].block == first->block)
            end++;
        const nbc_attempt *last = &log->items[end - 1];
        if (with_warmup || first->block >= 1) {
            n->blocks++;
            n->redone += last->attempt > 0;
            for (size_t i = begin; i < end; i++) {
                const nbc_attempt *a = &log->items[i];
                n->attempts++;
                n->late += a->late;
                n->discarded += a->late || a->attempt != last->attempt || last->late;
            }
        }
        begin = end;
    }
}

/* The sweep's lateness on stderr (rank 0): the share of attempts the
 * tolerance discarded, per run, hence per collective and deployment. */
static void report_lateness(const nbc_run *run, const nbc_sweep_record *record)
{
    lateness_count n = {0}, paid = {0};
    for (size_t i = 0; i < record->order_count; i++) {
        count_lateness(&record->logs[record->order[i]], false, &n);
        count_lateness(&record->logs[record->order[i]], true, &paid);
    }
    if (run->rank != 0 || n.attempts == 0)
        return;
    fprintf(stdout,
            "bench_nbc: %s: lateness: %ld of %ld attempts late (%.1f %%), %ld discarded "
            "with the passes they ended (%.1f %%), %ld of %ld blocks redone; tolerance %g of the "
            "shorter reference, at least %.1f us\n",
            run->coll->name, n.late, n.attempts, 100.0 * (double)n.late / (double)n.attempts,
            n.discarded, 100.0 * (double)n.discarded / (double)n.attempts, n.redone, n.blocks,
            run->cfg->run.late_tolerance, (double)run->barrier_precision_ns * 1e-3);
    /* Above this share, redoing costs more than a tenth of the run's time,
     * and what is kept is selected by the machine's quiet moments. The
     * warm-up's redos are paid alike: a cell whose warm-up is late pass
     * after pass is lost to the same cause. */
    static const double lateness_warn_share = 0.10;
    if ((double)paid.discarded > lateness_warn_share * (double)paid.attempts)
        fprintf(stderr,
                "bench_nbc: warning: %s: more than %.0f %% of attempts (warm-up included) late or "
                "discarded: the "
                "window barrier often left late (a busy machine, or wake-ups from sleep; see "
                "\"Window barrier on virtual machines\" in docs/running.md): measure alone, give "
                "a progress thread a core of its own, or raise run.late_tolerance\n",
                run->coll->name, 100 * lateness_warn_share);
}

int nbc_sweep(nbc_run *run, const nbc_sweep_plan *plan, nbc_sweep_record *record, bool *interrupted)
{
    *interrupted = false;
    size_t cells = plan->comm_count * plan->comp_count;
    size_t *order = malloc(cells * sizeof *order), total = 0;
    if (!order)
        return MPI_ERR_NO_MEM;
    for (size_t c = 0; c < cells; c++)
        if (!(plan->cell_done && plan->cell_done[c]) && nbc_cell_reachable(plan, c))
            order[total++] = c;
    uint64_t random_state = plan->seed;
    nbc_shuffle(order, total, &random_state);
    FILE *raw = run->rank == 0 ? run_output_file(run->out, OUT_RAW) : NULL;
    int rc = run->rank != 0 || raw ? MPI_SUCCESS : MPI_ERR_IO;
    int64_t start_ns = clocksync_now_local_ns(run->sync);
    double shown_s = 0; /* the elapsed time of the last progress line */
    /* After a cell that ran out of redos despite its pauses, the machine is
     * busy for longer than the patience: the next cells fail as fast as
     * they used to, until one keeps its blocks. */
    bool patient = true;
    for (size_t done = 0; done < total && rc == MPI_SUCCESS && !*interrupted; done++) {
        size_t cell = order[done];
        bool taken;
        rc = resync_if_due(run,
                           nbc_lateness_tolerance_ns(run->cfg->run.late_tolerance,
                                                     plan->comm[cell / plan->comp_count].t_s,
                                                     plan->comp[cell % plan->comp_count].t_s,
                                                     run->barrier_precision_ns),
                           &taken);
        /* Buffers per cell, since cells come in any order; the warm-up block
         * takes the first touches. */
        coll_instance inst;
        if (rc == MPI_SUCCESS)
            rc = nbc_prepare_instance(run, plan->comm[cell / plan->comp_count].bytes, &inst);
        if (rc != MPI_SUCCESS)
            break;
        run->fault_hang = run->fault_hang_cell == (int)cell;
        run->fault_late = cell < 64 && run->fault_late_cells & UINT64_C(1) << cell;
        run->fault_late_once = run->fault_late_once_cell == (int)cell;
        run->fault_burst_end_ns = cell < 64 && run->fault_late_burst_cells & UINT64_C(1) << cell
                                      ? clocksync_now_local_ns(run->sync) + 1000000000
                                      : 0;
        int64_t seq_before = run->next_seq;
        size_t attempts_before = record->logs[cell].count;
        nbc_mpit_cell_begin(run->mpit);
        rc = measure_cell(run, plan, cell, &inst, patient, &record->logs[cell], &random_state,
                          interrupted, &record->stops[cell]);
        patient = record->stops[cell].reason != NBC_STOP_LATE;
        if (rc == MPI_SUCCESS && !*interrupted)
            rc = nbc_mpit_cell_end(run, cell);
        coll_instance_release(&inst);
        if (rc != MPI_SUCCESS || *interrupted) {
            /* a cell cut short is not written: it is redone on --resume */
            record->logs[cell].count = attempts_before;
            run->next_seq = seq_before;
            break;
        }
        record->measured[cell] = true;
        record->order[record->order_count++] = cell;
        rc = write_cell(run, plan, record, cell, raw);
        if (rc == MPI_SUCCESS)
            rc = nbc_threads_write_cell(run, run->threads, cell); /* sched.csv */
        if (rc == MPI_SUCCESS && run->rank == 0)
            rc = write_stop(run->out, cell, &record->stops[cell],
                            run->progress != NBC_PROGRESS_TEST
                                ? 0
                                : deploy_test_chunks(run->test_chunks,
                                                     run->cfg->progress.test_period_us,
                                                     plan->comp[cell % plan->comp_count].t_s));
        if (rc == MPI_SUCCESS && run->rank == 0 && run_output_flush(run->out) != 0)
            rc = MPI_ERR_IO;
        /* Every rank learns of a write failure on rank 0. */
        if (rc == MPI_SUCCESS || rc == MPI_ERR_IO) {
            int failed_here = rc != MPI_SUCCESS, failed_any;
            int brc = MPI_Allreduce(&failed_here, &failed_any, 1, MPI_INT, MPI_MAX, run->comm);
            rc = brc != MPI_SUCCESS ? brc : (failed_any ? MPI_ERR_IO : MPI_SUCCESS);
        }
        report_progress(run, plan, cell, &record->stops[cell], (int)done + 1, (int)total,
                        (double)(clocksync_now_local_ns(run->sync) - start_ns) * 1e-9, &shown_s);
    }
    free(order);
    if (rc == MPI_SUCCESS)
        report_lateness(run, record);
    return rc;
}

int nbc_sweep_rewrite_raw(nbc_run *run, const nbc_sweep_plan *plan, const nbc_sweep_record *record,
                          long keep_bytes)
{
    FILE *f = NULL;
    int failed = 0;
    if (run->rank == 0) {
        f = run_output_begin_replace(run->out, OUT_RAW, keep_bytes);
        failed = f == NULL;
    }
    int rc = MPI_Bcast(&failed, 1, MPI_INT, 0, run->comm);
    if (rc != MPI_SUCCESS || failed)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_IO;
    for (size_t i = 0; i < record->order_count && rc == MPI_SUCCESS; i++)
        rc = write_cell(run, plan, record, record->order[i], f);
    if (run->rank == 0) {
        if (rc == MPI_SUCCESS && run_output_commit_replace(run->out, OUT_RAW, f) != 0)
            rc = MPI_ERR_IO;
        else if (rc != MPI_SUCCESS)
            fclose(f);
    }
    return rc;
}
