/* The configuration's keys: the single definition of every key, its type,
 * unit, default, bounds or allowed values and its documentation (--help,
 * docs/running.md), and the look-ups in it. The rest of the configuration
 * knows keys only through this table (config_keys). */
#include "config/config.h"
#include "config/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const deployment_names[] = {
#define DEPLOYMENT(id, name, ...) [NBC_DEPLOYMENT_##id] = name,
#include "deploy/deployments.def"
#undef DEPLOYMENT
};

/* The library profile's section [deployment.<key>] each deployment reads. */
static const char *const deployment_profile_keys[] = {
#define DEPLOYMENT(id, name, thread, cores, library_threads, polls, profile_key, meaning)          \
    [NBC_DEPLOYMENT_##id] = profile_key,
#include "deploy/deployments.def"
#undef DEPLOYMENT
};

/* run.deployment's help: each row's name and meaning. */
#define DEPLOYMENT(id, name, thread, cores, library_threads, polls, profile_key, meaning)          \
    " " name " = " meaning "."
static const char deployment_help[] =
    "Where every thread runs (paper section 7; bench_nbc --plan shows it)."
#include "deploy/deployments.def"
    ;
#undef DEPLOYMENT

static const char *const kernel_names[] = COMPUTE_KERNEL_NAMES;

/* The rows of clocksync's method table, in its order (clocksync_method_name;
 * tests/clocksync/test_methods.c checks they agree). */
static const char *const clocksync_method_names[] = {"linear", "hierarchical"};

static const char *const progress_mode_names[] = {
    [NBC_PROGRESS_NONE] = "none",
    [NBC_PROGRESS_TEST] = "test",
    [NBC_PROGRESS_THREAD] = "thread",
};

#define FIELD(f)      offsetof(nbc_config, f)
#define AT_LEAST(v)   .lo = {true, (v), false}
#define ABOVE(v)      .lo = {true, (v), true}
#define BELOW(v)      .hi = {true, (v), true}
#define AT_MOST(v)    .hi = {true, (v), false}
#define CHOICES(list) .choices = (list), .choice_count = ARRAY_SIZE(list)
#define KEY(sec, key, value_type, value_unit, default_value, field)                                \
    .section = (sec), .name = (key), .type = (value_type), .unit = (value_unit),                   \
    .default_text = (default_value), .offset = FIELD(field)

static const key_desc key_table[CONFIG_KEY_COUNT] = {
    {KEY("run", "collective", TYPE_NAME, NULL, "ibcast", run.collective),
     .names = NAMES_COLLECTIVES,
     .names_help = "a name from the driver's collectives table (bench_nbc --list)",
     .help = "The nonblocking collective the sweep measures (one per run; the study runner "
             "loops over several)."},
    {KEY("run", "collectives", TYPE_NAME_LIST, NULL, "", run.collectives),
     .offset2 = FIELD(run.collectives_count), .names = NAMES_COLLECTIVES,
     .names_help = "names from the driver's collectives table (bench_nbc --list), comma-separated",
     .help = "Several collectives measured by one job, e.g. ibcast,iallreduce,ialltoall: one "
             "clock sync and one computation calibration serve them all, each gets its own "
             "run folder (with its own communication calibration). Empty = run.collective "
             "alone."},
    {KEY("run", "ranks", TYPE_INT_LIST, "ranks", "", run.ranks), .offset2 = FIELD(run.ranks_count),
     AT_LEAST(2),
     .help = "Rank counts to measure each collective at, e.g. 2,4: each on a sub-communicator of "
             "the job's first N ranks (as IMB's -npmin), N at most the job's size; the other "
             "ranks wait asleep. Empty = the job's size."},
    {KEY("run", "deployment", TYPE_ENUM, NULL, "basic", run.deployment), CHOICES(deployment_names),
     .help = deployment_help},
    {KEY("run", "mpi", TYPE_NAME, NULL, "auto", run.mpi), .names = NAMES_MPI_PROFILES,
     .names_help = "auto or a library profile of configs/mpi/ (mpich, openmpi, ...)",
     .help = "MPI library profile of the run: auto (the library the driver runs with, "
             "identified from MPI_Get_library_version) or a profile name, refused when it is "
             "not that library."},
    {KEY("run", "results_dir", TYPE_PATH, NULL, "results", run.results_dir),
     .help = "Folder in which each run creates its own folder; created when missing if its "
             "parent exists."},
    {KEY("run", "calibration_from", TYPE_RUN_DIR, NULL, "", run.calibration_from),
     .help = "A run folder whose calibration (message bytes and GEMM order per cell) this run "
             "measures with instead of calibrating: the same work in every deployment of a "
             "comparison. Refused (exit 2) unless that run calibrated the same grid, "
             "collective, rank count and library. Empty = calibrate here."},
    {KEY("run", "threads", TYPE_INT, "threads", "0", run.threads), AT_LEAST(0),
     .help = "OpenMP threads computing per rank; 0 = every core of the rank's CPU set, minus "
             "the one dedicated and thread leave free for progress."},
    {KEY("run", "repetitions", TYPE_INT, NULL, "12", run.repetitions), AT_LEAST(1), BELOW(100000),
     .help = "Blocks per cell, each measuring the three kinds (comm_ref, comp_ref, overlap) "
             "once in one of the 6 orders of a Williams design (a multiple of 6 balances "
             "carry-over), after one warm-up block that is recorded and not used; the "
             "analysis keeps medians. With run.half_width > 0 the least blocks a cell runs "
             "(more follow until its r_overhead interval is narrow enough)."},
    {KEY("run", "max_repetitions", TYPE_INT, NULL, "40", run.max_repetitions), AT_LEAST(1),
     BELOW(100000),
     .help = "With run.half_width > 0: the most blocks a cell runs (at least run.repetitions)."},
    {KEY("run", "visits", TYPE_INT, NULL, "1", run.visits), AT_LEAST(1), BELOW(100000),
     .help = "Visits that share a cell's run.repetitions blocks, spread over the sweep: the "
             "cells (at most 25 at a time) are visited in rounds, each visit a warm-up block "
             "and its share of the blocks, so that a slow spell of the machine moves one visit "
             "of several cells, not every block of one. 1 = each cell's blocks back to back, "
             "as the paper measures."},
    {KEY("run", "half_width", TYPE_DOUBLE, NULL, "0", run.half_width), AT_LEAST(0),
     .help = "Adaptive repetitions: from run.repetitions blocks on, the cell is looked at every "
             "6 blocks (a Williams cycle) and stops when the 95 % interval of its r_overhead is "
             "at most this half-width (absolute, units of r_overhead), else at "
             "run.max_repetitions or run.cell_budget_s (analysis/README.md, Stopping). "
             "0 (the default) = a fixed run.repetitions blocks per cell, the count the "
             "verdict's error rates are stated for (analysis/README.md, The verdict)."},
    {KEY("run", "cell_budget_s", TYPE_DURATION, "s", "0s", run.cell_budget_s), AT_LEAST(0),
     .help = "With run.half_width > 0: a cell past this time (warm-up included) stops at the end "
             "of its block, once it has run.repetitions blocks (analysis/README.md, Stopping); "
             "0 = no budget."},
    /* 0.02: the error lateness adds to eq. 1 and r_comm is at most this share, under a tenth of
     * the narrowest band of r_overhead's reading (0.25 wide), analysis/README.md
     * "Lateness". */
    {KEY("run", "late_tolerance", TYPE_DOUBLE, NULL, "0.02", run.late_tolerance), ABOVE(0),
     BELOW(1),
     .help = "A block is redone when a rank left a window barrier later than this share of "
             "min(t_comm_ref, t_comp_ref) after the deadline (floored at the barrier precision "
             "measured at start): the error lateness adds to r_overhead (eq. 1) is divided by "
             "that shorter reference."},
    /* 100: a late attempt redoes its whole block (k = 3 kinds, 6 with the null
     * controls), a pass is on time with probability (1 - p)^k, and all of
     * 1 + max_retries passes fail with (1 - (1 - p)^k)^(1 + max_retries):
     * at p = 1/3 and k = 6, 14 % with 20 redos, 0.01 % with 100
     * (analysis/README.md, "Blocks and attempts"). */
    {KEY("run", "max_retries", TYPE_INT, NULL, "100", run.max_retries), AT_LEAST(0), BELOW(100000),
     .help = "Redos of a block after a late attempt (the whole block, in its order); when they "
             "run out the cell stops and is invalid (reason late)."},
    /* 20 s: a block late in half its redos in a row is in a burst of interference from
     * outside (another process's I/O or CPU, a VM stalled by its host), which on a busy VM
     * was seen to last 10 to 50 s; routine lateness, even oversubscribed, has streaks of 10
     * to 20 passes (bench_nbc/measure/sweep.c). */
    {KEY("run", "late_patience_s", TYPE_DURATION, "s", "20s", run.late_patience_s), AT_LEAST(0),
     .help = "A block late in half its redos in a row (50 passes of 100) pauses before every "
             "tenth further pass, the ranks sleeping, so that a burst of interference passes "
             "instead of using up its redos; the pauses of one block total this, and a cell "
             "after one that ran out of redos does not pause; 0 = redo at once."},
    {KEY("run", "null_share", TYPE_DOUBLE, NULL, "0.5", run.null_share), AT_LEAST(0),
     .hi = {true, 1, false},
     .help = "Share of the blocks that also measure a second comm_ref, comp_ref and overlap "
             "step (kinds comm_null, comp_null, overlap_null): ratios whose truth is exactly 1, "
             "the analysis's check of its intervals (null-control coverage)."},
    {KEY("run", "seed", TYPE_INT, NULL, "0", run.seed), AT_LEAST(0),
     .help = "Seed of the shuffled cell order and of the kind orders of each cell; 0 = chosen "
             "from the clock (the seed used is recorded in config.ini and meta.json)."},
    {KEY("run", "max_cells", TYPE_INT, "cells", "400", run.max_cells), AT_LEAST(1),
     .help =
         "Largest grid (comm_times or comm_sizes x comp_times cells) accepted without run.force."},
    {KEY("run", "force", TYPE_BOOL, NULL, "false", run.force),
     .help = "Accept a grid of more than run.max_cells cells."},
    {KEY("run", "check", TYPE_BOOL, NULL, "false", run.check),
     .help = "Check the data every collective delivers into its receive buffers."},
    /* The collective's options (bench_nbc/collectives/collectives.c checks them against it). */
    {KEY("run", "root", TYPE_INT, "rank", "0", run.root), AT_LEAST(0),
     .help = "Root of the rooted operations (ibcast, ireduce, igather(v), iscatter(v) and their "
             "_init forms); refused when not below the number of ranks; others ignore it."},
    {KEY("run", "datatype", TYPE_NAME, NULL, "auto", run.datatype), .names = NAMES_DATATYPES,
     .names_help = "auto, byte, int, double",
     .help = "Element type of the messages; S stays in bytes, rounded down to whole elements. "
             "auto = byte, or double for reductions; reductions (MPI_SUM) take int or double "
             "only."},
    {KEY("run", "in_place", TYPE_BOOL, NULL, "false", run.in_place),
     .help = "Pass MPI_IN_PLACE (the input is taken from the receive buffer; at the root only "
             "for rooted operations); refused for operations the MPI standard gives no "
             "MPI_IN_PLACE: ibcast, ibarrier, the neighbourhood collectives."},
    {KEY("run", "background_share", TYPE_DOUBLE, "share of starts", "0.85", run.background_share),
     AT_LEAST(0), AT_MOST(1),
     .help = "synthetic_intermittent only: the share of its starts that complete in the "
             "background (as synthetic_perfect); the others wait on the CPU (as "
             "synthetic_serial), like a progress thread on a shared core. Its known r_overhead "
             "(eq. 1 on median spans) is 0 above 0.5 and 1 below (docs/collectives.md)."},
    {KEY("compute", "kernel", TYPE_ENUM, NULL, "gemm", compute.kernel), CHOICES(kernel_names),
     .help = "The computation (fixed work per step, calibrated alike): gemm = dgemm with the "
             "BLAS (the paper's); triad = a[i] = b[i] + s c[i] streaming through 96 MiB per "
             "thread, memory-bound (does progress hurt memory-bound work?); sleep = a "
             "known-answer stand-in for tests: each step sleeps as long as a dgemm at 1 GFLOP/s "
             "per thread, rank k (1 + k/10) times as long, without using a CPU, so many ranks "
             "can share few cores; synthetic_steal adds its stolen time to the step."},
    {KEY("compute", "ref_warmup_s", TYPE_DURATION, "s", "1s", compute.ref_warmup_s), AT_LEAST(0),
     .help = "How long each compute_ref process computes before it measures (eq. 2's "
             "reference): bench_nbc's passive step follows seconds of calibration on a warm "
             "process, and a fresh one computes its first steps slower (up to 1.7x at 1 ms); "
             "0 in tests that do not judge the impact's value."},
    {KEY("grid", "comm_times", TYPE_GRID, "s", "1ms,64ms,2", grid.comm_times_s),
     .offset2 = FIELD(grid.comm_count), .may_be_empty = true,
     .help = "Target durations of the collective: the X axis of the heatmaps, each reached by "
             "searching a message size. Empty when grid.comm_sizes gives the axis (exactly one "
             "of the two is set)."},
    {KEY("grid", "comm_sizes", TYPE_BYTES_LIST, "bytes", "", grid.comm_sizes_bytes),
     .offset2 = FIELD(grid.comm_size_count),
     .help = "The X axis as message sizes S instead of times, e.g. 1MiB,4MiB,16MiB (as OSU's "
             "-m): the communication calibration measures the collective's time at each size "
             "instead of searching a size for a time, and the cells' communication target is "
             "the size (calib_comm.csv size_given). Set grid.comm_times empty with it "
             "(--set grid.comm_times=)."},
    {KEY("grid", "comp_times", TYPE_GRID, "s", "1ms,64ms,2", grid.comp_times_s),
     .offset2 = FIELD(grid.comp_count),
     .help = "Target durations of the compute step: the Y axis of the heatmaps."},
    {KEY("calibration", "tolerance", TYPE_DOUBLE, NULL, "0.10", calibration.tolerance), ABOVE(0),
     BELOW(1),
     .help = "Relative error to a target time at which a calibration stops (10 % in the "
             "paper, section 5.1)."},
    {KEY("calibration", "max_iterations", TYPE_INT, NULL, "12", calibration.max_iterations),
     AT_LEAST(1),
     .help = "Candidate sizes tried per target; past them the target keeps 0 bytes and its "
             "cells are invalid."},
    {KEY("calibration", "runs_per_point", TYPE_INT, NULL, "5", calibration.runs_per_point),
     AT_LEAST(1), AT_MOST(125),
     .help = "Runs of each candidate size; their 10 % trimmed mean is kept (the paper keeps "
             "the median, which jumps over targets where a step is bimodal). While that mean's "
             "standard error is above a quarter of the tolerance, up to 8 times as many runs."},
    {KEY("calibration", "max_bytes", TYPE_BYTES, "bytes", "256MiB", calibration.max_bytes),
     ABOVE(0),
     .help = "Largest message size S the communication calibration may try. The buffers of "
             "the collective at S (send and receive, e.g. 2 x ranks x S for ialltoall; "
             "bench_nbc --list says what S is) times the ranks on the node must fit in the "
             "node's available memory, or the run is refused before it starts."},
    {KEY("clocksync", "roundtrips", TYPE_INT, NULL, "1000", clocksync.roundtrips), AT_LEAST(10),
     .help = "Round trips to rank 0 per rank and per clock calibration; the minimum-RTT "
             "samples are kept."},
    {KEY("clocksync", "method", TYPE_ENUM, NULL, "linear", clocksync.method),
     CHOICES(clocksync_method_names),
     .help = "How the offsets to rank 0 are measured: linear = rank 0 measures every other rank "
             "in turn (p - 1 rounds); hierarchical = along a binomial tree, ceil(log2 p) rounds "
             "run twice, the lines composed down to rank 0 (for hundreds of ranks or more)."},
    {KEY("clocksync", "drift_gap_s", TYPE_DURATION, "s", "1s", clocksync.drift_gap_s), ABOVE(0),
     .help = "Minimum time between the two clock calibrations a drift estimate uses."},
    {KEY("clocksync", "resync_interval_s", TYPE_DURATION, "s", "300s", clocksync.resync_interval_s),
     AT_LEAST(0),
     .help = "Longest time between clock re-calibrations during the sweep (they also come "
             "as the run's length doubles and when the clock's predicted error would pass a "
             "quarter of a cell's lateness tolerance); 0 = never."},
    {KEY("clocksync", "barrier_margin_us", TYPE_DOUBLE, "us", "200", clocksync.barrier_margin_us),
     ABOVE(0),
     .help = "How far ahead the window barrier sets its deadline; a rank arriving later makes "
             "the repetition retried."},
    {KEY("progress", "mode", TYPE_PROGRESS, NULL, "none", progress.mode),
     .offset2 = FIELD(progress.test_count),
     .help = "none = Algorithm 1 as in the paper, no MPI_Test; test:K = the compute step in K "
             "chunks with an MPI_Test between chunks. The suite's own progress thread is a "
             "deployment of its own: run.deployment=thread."},
    {KEY("progress", "test_chunks", TYPE_INT, "chunks", "16", progress.test_chunks), AT_LEAST(1),
     .help = "K used by deployment manual when progress.mode is none."},
    {KEY("progress", "test_period_us", TYPE_DOUBLE, "us", "0", progress.test_period_us),
     AT_LEAST(0),
     .help = "MPI_Test every P us of computation: each cell's compute step runs in max(1, "
             "round(t_comp / P)) chunks with an MPI_Test between chunks, t_comp the cell's "
             "calibrated computation time (sweep.csv test_chunks). Polls in any deployment but "
             "thread, in place of deployment manual's progress.test_chunks. 0 = off (the "
             "chunk counts progress.mode=test:K and progress.test_chunks apply); set with "
             "test:K, or with progress.test_chunks at another value than its default, is an "
             "error."},
    {KEY("progress", "unconfirmed_ok", TYPE_BOOL, NULL, "false", progress.unconfirmed_ok),
     .help = "Deployment dedicated: when the binding of the library's progress thread to the "
             "free core cannot be confirmed from its allowed CPUs, run anyway and mark the run "
             "unconfirmed in meta.json (false: refuse, exit 2)."},
    {KEY("progress", "oversubscribe", TYPE_BOOL, NULL, "false", progress.oversubscribe),
     .help = "Deployment thread on a rank with no core to spare: let the suite's progress "
             "thread share the compute cores (false: refuse, exit 2)."},
    {KEY("watchdog", "factor", TYPE_DOUBLE, NULL, "20", watchdog.factor), AT_LEAST(2),
     .help = "A call taking more than factor x its expected time, and more than "
             "watchdog.floor_s, aborts the run cleanly."},
    {KEY("watchdog", "floor_s", TYPE_DURATION, "s", "30s", watchdog.floor_s), ABOVE(0),
     .help = "Shortest time a call may take before the watchdog acts."},
};

_Static_assert(ARRAY_SIZE(key_table) == CONFIG_KEY_COUNT, "CONFIG_KEY_COUNT: the table's rows");

const key_desc *config_keys(void)
{
    return key_table;
}

const key_desc *config_find_key(const char *section, const char *name, size_t *index)
{
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        if (strcmp(config_keys()[i].section, section) == 0 &&
            strcmp(config_keys()[i].name, name) == 0) {
            if (index)
                *index = i;
            return &config_keys()[i];
        }
    }
    return NULL;
}

size_t config_key_index(const char *section, const char *name)
{
    size_t index = 0;
    const key_desc *key = config_find_key(section, name, &index);
    if (key == NULL)
        abort(); /* a cross-key rule names a key the table lacks: a bug here */
    return index;
}

bool config_is_section(const char *section)
{
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
        if (strcmp(config_keys()[i].section, section) == 0)
            return true;
    return false;
}

/* The sections, in table order. */
size_t config_list_sections(const char *sections[CONFIG_KEY_COUNT])
{
    size_t count = 0;
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
        if (count == 0 || strcmp(sections[count - 1], config_keys()[i].section) != 0)
            sections[count++] = config_keys()[i].section;
    return count;
}

size_t config_list_keys_of(const char *section, const char *names[CONFIG_KEY_COUNT])
{
    size_t count = 0;
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
        if (strcmp(config_keys()[i].section, section) == 0)
            names[count++] = config_keys()[i].name;
    return count;
}

const char *nbc_deployment_name(nbc_deployment deployment)
{
    return (size_t)deployment < ARRAY_SIZE(deployment_names) ? deployment_names[deployment]
                                                             : "unknown";
}

const char *nbc_deployment_profile_key(nbc_deployment deployment)
{
    return (size_t)deployment < ARRAY_SIZE(deployment_profile_keys)
               ? deployment_profile_keys[deployment]
               : "unknown";
}

const char *nbc_progress_mode_name(nbc_progress_mode mode)
{
    return (size_t)mode < ARRAY_SIZE(progress_mode_names) ? progress_mode_names[mode] : "unknown";
}

void nbc_progress_mode_text(nbc_progress_mode mode, int test_count, char *buf, size_t len)
{
    if (mode == NBC_PROGRESS_TEST && test_count > 0)
        snprintf(buf, len, "%s:%d", nbc_progress_mode_name(mode), test_count);
    else
        snprintf(buf, len, "%s", nbc_progress_mode_name(mode));
}
