/* clocksync_check: measures, on the ranks it runs on, how good the global
 * clock and the window barrier are, next to MPI_Barrier.
 *
 *   mpiexec -n 2 build/mpich/clocksync_check [--barriers K] [--wait-s T] ...
 *
 * Skews are max minus min of the ranks' exit times. "Estimated" skews use the
 * clock model (what the benchmark relies on); "true" ones use the raw
 * monotonic clock, corrected for each rank's time-namespace offset
 * (/proc/self/timens_offsets) to rank 0's: meaningful only when every rank
 * runs on one kernel (same boot_id: network-namespace "nodes" count as one
 * machine) and no preload fakes the clock (checked, else reported as "na").
 * The model error is the same comparison per rank after each MPI_Barrier:
 * the model's global time of a local reading minus rank 0's true clock at
 * that instant (the midpoint of two raw reads around it). */
#include "cli/cli.h"
#include "clocksync/check_run.h"
#include "clocksync/clocksync.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Late barriers a sweep affords: each late exit redoes its measurement,
 * and above this share the redos, and the selection of quiet moments they
 * make, cost more than the barrier's precision gains. */
static const double barrier_late_share_max = 0.02;

/* Two raw reads around a local one further apart than this were interrupted;
 * half of it bounds how far the midpoint may lie from the local read. */
enum { TRUE_PAIR_MAX_NS = 1000 };

/* A rank that leaves the window barrier later than this after its deadline
 * calls the barrier late (clocksync_window_barrier). */
enum { BARRIER_EXIT_TOLERANCE_NS = 10000 };

typedef struct check_options {
    clocksync_options sync;
    int barriers;
    double wait_s;
    double skew_offset_us, skew_drift_ppm; /* simulated clock of ranks >= 1 */
    bool skew_clock;
    bool busy_thread;      /* a thread polls on each rank's core */
    check_run_options run; /* the long run (--run-s) */
} check_options;

/* What each rank reports to rank 0 at the end. */
typedef struct rank_report {
    double offset_us, latency_us, drift_ppm, drift_bound_ppm, residual_us;
    int late_barriers;
    int any_late_barriers; /* barriers some rank left late (the same on every rank) */
    double wakeup_median_us, wakeup_p99_us; /* sleep overshoot measured at start */
    double spin_us;                         /* the barrier's spin after a sleep; 0: spins only */
    bool spin_capped;                       /* the wake-up could not be covered */
    long spun, slept, fallbacks;            /* barriers by wait; spins that lost the core */
    double latency_max_us;                  /* the slowest point's one-way latency */
    double bound_max_us;                    /* the loosest point's error bound (clocksync_point) */
    double model_error_us;                  /* max |model - truth| over the barrier exits */
    int truth_pairs;                        /* of them, exits whose truth was read uninterrupted */
    double calibration_s;                   /* the longer of the first and last calibrations */
    double calibrated_at_s; /* the first calibration's end, from the simulated clock's origin */
    bool faked_clock;       /* libfaketime preloaded: no truth */
    int residual_beyond;    /* points whose residual exceeded predicted error + own bound */
    char host[64];
    char boot_id[40];
} rank_report;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: mpiexec -n P clocksync_check [options]\n"
        "  --method M            how offsets are measured: linear or hierarchical "
        "(default linear)\n"
        "  --roundtrips N        round trips per rank and calibration (default 1000)\n"
        "  --barriers K          window barriers and MPI_Barriers measured (default 1000)\n"
        "  --wait-s T            seconds between the drift estimate and the residual check "
        "(default 2)\n"
        "  --drift-gap-s G       seconds between the two calibrations of the drift estimate "
        "(default 1)\n"
        "  --margin-us M         initial window-barrier margin (default 200)\n"
        "  --sleep-min-ms S      the barrier sleeps at least S ms before its spin, as beside\n"
        "                        a busy progress thread (default 0: it spins its margin)\n"
        "  --busy-thread         a thread of each rank polls on the rank's core the whole\n"
        "                        run, as a library's progress thread (use with --sleep-min-ms)\n"
        "  --skew-clock OFF,PPM  give ranks >= 1 a simulated clock OFF us ahead, PPM fast\n"
        "  --run-s T             then a run of T seconds of attempts, as a sweep's: resync\n"
        "                        when due (clocksync_resync_due), window barrier, start,\n"
        "                        lateness by exit and start skew (default 0: none)\n"
        "  --tolerance-us X      the run's lateness tolerance (default 10)\n"
        "  --resync-interval-s I the run's longest time between points, 0: never resync\n"
        "                        (default 300)\n"
        "  --version             the version and revision\n"
        "  --help                this text\n"
        "The last line holds key=value figures.\n");
    cli_print_exit_statuses(out);
}

static bool parse_double(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*value);
}

/* Returns 0, or 2 with a message (printed by rank 0 only) for bad input. */
static int parse_options(int argc, char **argv, check_options *opt, int rank)
{
    static const struct option longopts[] = {
        {"method", required_argument, NULL, 'M'},
        {"roundtrips", required_argument, NULL, 'r'},
        {"barriers", required_argument, NULL, 'b'},
        {"wait-s", required_argument, NULL, 'w'},
        {"drift-gap-s", required_argument, NULL, 'g'},
        {"margin-us", required_argument, NULL, 'm'},
        {"sleep-min-ms", required_argument, NULL, 'S'},
        {"busy-thread", no_argument, NULL, 'B'},
        {"skew-clock", required_argument, NULL, 's'},
        {"run-s", required_argument, NULL, 'R'},
        {"tolerance-us", required_argument, NULL, 't'},
        {"resync-interval-s", required_argument, NULL, 'i'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    clocksync_options_default(&opt->sync);
    opt->barriers = 1000;
    opt->wait_s = 2.0;
    opt->run.tolerance_us = 10;
    opt->run.resync_interval_s = 300;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        double v = 0;
        const char *bad = NULL;
        switch (c) {
        case 'M':
            opt->sync.method = clocksync_method_find(optarg);
            if (opt->sync.method < 0)
                bad = "--method: needs linear or hierarchical";
            break;
        case 'r':
            if (!parse_double(optarg, &v) || v < 10 || v > 1e7 || v != floor(v))
                bad = "--roundtrips: needs an integer from 10 to 10000000";
            opt->sync.roundtrips = (int)v;
            break;
        case 'b':
            if (!parse_double(optarg, &v) || v < 1 || v > 1e7 || v != floor(v))
                bad = "--barriers: needs an integer from 1 to 10000000";
            opt->barriers = (int)v;
            break;
        case 'w':
            if (!parse_double(optarg, &v) || v < 0 || v > 86400)
                bad = "--wait-s: needs seconds from 0 to 86400";
            opt->wait_s = v;
            break;
        case 'g':
            if (!parse_double(optarg, &v) || v <= 0 || v > 3600)
                bad = "--drift-gap-s: needs seconds above 0, at most 3600";
            opt->sync.drift_gap_s = v;
            break;
        case 'm':
            if (!parse_double(optarg, &v) || v <= 0 || v > 1e6)
                bad = "--margin-us: needs microseconds above 0, at most 1000000";
            opt->sync.barrier_margin_s = v * 1e-6;
            break;
        case 'S':
            if (!parse_double(optarg, &v) || v < 0 || v > 1000)
                bad = "--sleep-min-ms: needs milliseconds from 0 to 1000";
            opt->sync.barrier_sleep_min_s = v * 1e-3;
            break;
        case 'B':
            opt->busy_thread = true;
            break;
        case 's':
            opt->skew_clock =
                sscanf(optarg, "%lf,%lf", &opt->skew_offset_us, &opt->skew_drift_ppm) == 2 &&
                fabs(opt->skew_drift_ppm) < 1e5;
            if (!opt->skew_clock)
                bad = "--skew-clock: needs OFFSET_US,DRIFT_PPM, e.g. 1500,50";
            break;
        case 'R':
            if (!parse_double(optarg, &v) || v < 0 || v > 86400)
                bad = "--run-s: needs seconds from 0 to 86400";
            opt->run.run_s = v;
            break;
        case 't':
            if (!parse_double(optarg, &v) || v <= 0 || v > 1e6)
                bad = "--tolerance-us: needs microseconds above 0, at most 1000000";
            opt->run.tolerance_us = v;
            break;
        case 'i':
            if (!parse_double(optarg, &v) || v < 0 || v > 86400)
                bad = "--resync-interval-s: needs seconds from 0 to 86400";
            opt->run.resync_interval_s = v;
            break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            return 1;
        case 'V':
            if (rank == 0)
                cli_print_version(stdout, "clocksync_check");
            return 1;
        default:
            bad = "unknown option";
            break;
        }
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "clocksync_check: %s (got '%s'); see --help\n", bad,
                        optarg ? optarg : argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        if (rank == 0)
            fprintf(stderr, "clocksync_check: unexpected argument '%s'; see --help\n",
                    argv[optind]);
        return 2;
    }
    return 0;
}

/* Per barrier k, max - min over ranks of times[rank * k_count + k], in us. */
static void skews_us(const int64_t *times, int ranks, int k_count, double *skew)
{
    for (int k = 0; k < k_count; k++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int r = 0; r < ranks; r++) {
            int64_t t = times[(size_t)r * k_count + k];
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
        skew[k] = (double)(hi - lo) * 1e-3;
    }
}

/* This time namespace's CLOCK_MONOTONIC offset (and CLOCK_MONOTONIC_RAW's:
 * the kernel shifts both), in ns; 0 where the kernel has no time namespaces. */
static int64_t timens_monotonic_offset_ns(void)
{
    FILE *f = fopen("/proc/self/timens_offsets", "r");
    if (!f)
        return 0;
    char name[32];
    long long sec, nsec;
    int64_t offset = 0;
    while (fscanf(f, "%31s %lld %lld", name, &sec, &nsec) == 3)
        if (strcmp(name, "monotonic") == 0)
            offset = (int64_t)sec * 1000000000 + nsec;
    fclose(f);
    return offset;
}

/* One value per kernel boot: ranks that share it read one physical clock. */
static void read_boot_id(char *out, size_t size)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(out, (int)size, f))
        snprintf(out, size, "unknown");
    if (f)
        fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    check_options opt = {0};
    int verdict = parse_options(argc, argv, &opt, rank);
    if (verdict != 0) {
        MPI_Finalize();
        return verdict == 1 ? 0 : 2;
    }

    /* "True" times are rank 0's clock: the raw clock moved out of this
     * rank's time namespace into rank 0's. */
    int64_t ns_offset_ns = timens_monotonic_offset_ns(), rank0_ns_offset_ns = ns_offset_ns;
    CHECK_MPI(MPI_Bcast(&rank0_ns_offset_ns, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
    int64_t to_rank0_ns = rank0_ns_offset_ns - ns_offset_ns;

    double origin_s = MPI_Wtime();
    clocksync_skewed_clock skewed = {
        .base = clocksync_monotonic_clock(),
        .origin_ns = clocksync_monotonic_ns(),
        .offset_ns = (int64_t)llround(opt.skew_offset_us * 1e3),
        .drift_ppm = opt.skew_drift_ppm,
    };
    clocksync_clock clock = clocksync_skewed_clock_make(&skewed);
    /* Before the context: its wake-up latency is measured beside the thread,
     * as in a deployment whose library thread starts in MPI_Init. */
    check_busy *busy = NULL;
    char busy_why[160] = "";
    int busy_ok = !opt.busy_thread || check_busy_start(rank, &busy, busy_why, sizeof busy_why) == 0,
        all_ok;
    CHECK_MPI(MPI_Allreduce(&busy_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (!all_ok) {
        if (!busy_ok)
            fprintf(stderr, "clocksync_check: --busy-thread: %s\n", busy_why);
        check_busy_stop(busy);
        MPI_Finalize();
        return 1;
    }
    clocksync_ctx *sync;
    CHECK_MPI(clocksync_create(&sync, MPI_COMM_WORLD, &opt.sync,
                               opt.skew_clock && rank > 0 ? &clock : NULL));
    rank_report me = {0};
    double started_s = MPI_Wtime();
    CHECK_MPI(clocksync_calibrate(sync));
    me.calibration_s = MPI_Wtime() - started_s;
    me.calibrated_at_s = MPI_Wtime() - origin_s;
    CHECK_MPI(clocksync_prepare_realtime(sync));

    int k_count = opt.barriers;
    int64_t *window_est = malloc((size_t)k_count * sizeof *window_est);
    int64_t *window_true = malloc((size_t)k_count * sizeof *window_true);
    int64_t *mpi_est = malloc((size_t)k_count * sizeof *mpi_est);
    int64_t *mpi_true = malloc((size_t)k_count * sizeof *mpi_true);
    bool *pair_ok = malloc((size_t)k_count * sizeof *pair_ok);
    bool *barrier_late = malloc((size_t)k_count * sizeof *barrier_late);
    if (!window_est || !window_true || !mpi_est || !mpi_true || !pair_ok || !barrier_late) {
        fprintf(stderr, "clocksync_check: out of memory for %d barriers\n", k_count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t *window_local = window_est, *mpi_local = mpi_est; /* converted in place below */

    for (int k = 0; k < k_count; k++) {
        clocksync_barrier_result res;
        CHECK_MPI(clocksync_window_barrier(sync, BARRIER_EXIT_TOLERANCE_NS, &res));
        window_true[k] = clocksync_monotonic_ns() + to_rank0_ns;
        window_local[k] = res.exit_local_ns;
        me.late_barriers += !res.on_time;
        bool any_late;
        CHECK_MPI(clocksync_barrier_settle(sync, &res, &any_late));
        me.any_late_barriers += any_late;
        barrier_late[k] = any_late;
    }
    for (int k = 0; k < k_count; k++) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        /* The raw clock read around the local one: their midpoint is the
         * local reading's true instant, unless the rank lost its core
         * between the reads (then the pair is no truth). */
        int64_t before_ns = clocksync_monotonic_ns();
        mpi_local[k] = clocksync_now_local_ns(sync);
        int64_t now_ns = clocksync_monotonic_ns();
        mpi_true[k] = before_ns + (now_ns - before_ns) / 2 + to_rank0_ns;
        pair_ok[k] = now_ns - before_ns < TRUE_PAIR_MAX_NS;
        /* Let every rank leave before the next barrier starts. */
        int64_t until = now_ns + 100000;
        while (clocksync_monotonic_ns() < until)
            ;
    }

    run_figures run = {0};
    int points_before_run = clocksync_get_model(sync)->n_points;
    if (opt.run.run_s > 0)
        check_long_run(sync, &opt.run, to_rank0_ns, &run);
    /* The points of the run: each predicted within its bound (clocksync.h). */
    const clocksync_model *run_model = clocksync_get_model(sync);
    for (int i = points_before_run; i < run_model->n_points; i++) {
        const clocksync_point *p = &run_model->points[i];
        me.residual_beyond += fabs(p->residual_ns) > p->predicted_error_ns + p->bound_ns + 1;
    }

    struct timespec pause = {.tv_sec = (time_t)opt.wait_s,
                             .tv_nsec = (long)((opt.wait_s - floor(opt.wait_s)) * 1e9)};
    nanosleep(&pause, NULL);
    double measured_ns, predicted_ns;
    CHECK_MPI(clocksync_measure_residual(sync, &measured_ns, &predicted_ns));
    me.residual_us = (measured_ns - predicted_ns) * 1e-3;
    started_s = MPI_Wtime();
    CHECK_MPI(clocksync_calibrate(sync));
    me.calibration_s = fmax(me.calibration_s, MPI_Wtime() - started_s);

    /* Post-mortem conversion: interpolation over the whole model. */
    const clocksync_model *model = clocksync_get_model(sync);
    for (int k = 0; k < k_count; k++) {
        window_est[k] = clocksync_model_to_global(model, window_local[k]);
        mpi_est[k] = clocksync_model_to_global(model, mpi_local[k]);
    }
    for (int k = 0; k < k_count; k++) {
        if (!pair_ok[k])
            continue;
        me.truth_pairs++;
        me.model_error_us =
            fmax(me.model_error_us, fabs((double)(mpi_est[k] - mpi_true[k])) * 1e-3);
    }
    for (int i = 0; i < model->n_points; i++) {
        me.latency_max_us = fmax(me.latency_max_us, model->points[i].latency_ns * 1e-3);
        me.bound_max_us = fmax(me.bound_max_us, model->points[i].bound_ns * 1e-3);
    }
    me.offset_us = model->points[0].offset_ns * 1e-3;
    me.latency_us = model->points[0].latency_ns * 1e-3;
    me.drift_ppm = clocksync_model_drift_ppm(model);
    me.drift_bound_ppm = clocksync_model_drift_bound_ppm(model);
    me.wakeup_median_us = clocksync_get_wakeup(sync)->median_ns * 1e-3;
    me.wakeup_p99_us = clocksync_get_wakeup(sync)->p99_ns * 1e-3;
    me.spin_us = (double)clocksync_get_barrier_wait(sync)->spin_ns * 1e-3;
    me.spin_capped = clocksync_get_barrier_wait(sync)->spin_capped;
    const clocksync_wait_governor *gov = clocksync_get_wait_governor(sync);
    me.spun = gov->spun;
    me.slept = gov->slept;
    me.fallbacks = gov->fallbacks;
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        strcpy(me.host, "unknown");
    read_boot_id(me.boot_id, sizeof me.boot_id);
    /* libfaketime fakes CLOCK_MONOTONIC itself: the "true" clock is not. */
    const char *preload = getenv("LD_PRELOAD");
    me.faked_clock = preload && strstr(preload, "faketime");

    rank_report *reports = rank == 0 ? malloc((size_t)size * sizeof *reports) : NULL;
    size_t all_n = rank == 0 ? (size_t)size * k_count : 0;
    int64_t *all[4] = {NULL};
    int64_t *mine[4] = {window_est, window_true, mpi_est, mpi_true};
    for (int i = 0; i < 4 && rank == 0; i++)
        if (!(all[i] = malloc(all_n * sizeof(int64_t))))
            MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0 && !reports)
        MPI_Abort(MPI_COMM_WORLD, 1);
    CHECK_MPI(
        MPI_Gather(&me, sizeof me, MPI_BYTE, reports, sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK_MPI(MPI_Gather(mine[i], k_count, MPI_INT64_T, all[i], k_count, MPI_INT64_T, 0,
                             MPI_COMM_WORLD));

    if (rank == 0) {
        bool shared_clock = true, all_truth = true;
        int worst_drift = 0, worst_residual = 0, worst_error = 0, late = 0;
        double wake_median_us = 0, wake_p99_us = 0, spin_us = 0;
        bool spin_capped = false;
        for (int r = 0; r < size; r++) {
            rank_report *rep = &reports[r];
            shared_clock &= strcmp(rep->boot_id, reports[0].boot_id) == 0 &&
                            strcmp(rep->boot_id, "unknown") != 0 && !rep->faked_clock;
        }
        for (int r = 0; r < size; r++) {
            rank_report *rep = &reports[r];
            char error[32] = "na";
            if (shared_clock && rep->truth_pairs > 0)
                snprintf(error, sizeof error, "%.3f", rep->model_error_us);
            printf("rank=%d host=%s offset_us=%.3f latency_us=%.3f latency_max_us=%.3f "
                   "drift_ppm=%.3f drift_bound_ppm=%.3f residual_us=%.3f model_error_us=%s "
                   "truth_pairs=%d error_bound_us=%.3f calibration_s=%.4f calibrated_at_s=%.4f "
                   "late_barriers=%d wakeup_median_us=%.1f wakeup_p99_us=%.1f barriers_spun=%ld "
                   "barriers_slept=%ld barrier_fallbacks=%ld\n",
                   r, rep->host, rep->offset_us, rep->latency_us, rep->latency_max_us,
                   rep->drift_ppm, rep->drift_bound_ppm, rep->residual_us, error, rep->truth_pairs,
                   rep->bound_max_us, rep->calibration_s, rep->calibrated_at_s, rep->late_barriers,
                   rep->wakeup_median_us, rep->wakeup_p99_us, rep->spun, rep->slept,
                   rep->fallbacks);
            wake_median_us = fmax(wake_median_us, rep->wakeup_median_us);
            wake_p99_us = fmax(wake_p99_us, rep->wakeup_p99_us);
            spin_us = fmax(spin_us, rep->spin_us);
            spin_capped |= rep->spin_capped;
            all_truth &= rep->truth_pairs > 0;
            if (rep->model_error_us > reports[worst_error].model_error_us)
                worst_error = r;
            if (fabs(rep->drift_ppm) > fabs(reports[worst_drift].drift_ppm))
                worst_drift = r;
            if (fabs(rep->residual_us) > fabs(reports[worst_residual].residual_us))
                worst_residual = r;
            late += rep->late_barriers;
        }
        /* Per rank, comma-separated: each rank decides its own wait. */
        char spun_list[256] = "", slept_list[256] = "";
        for (int r = 0, a = 0, b = 0; r < size; r++) {
            int n = snprintf(spun_list + a, sizeof spun_list - (size_t)a, "%s%ld", r ? "," : "",
                             reports[r].spun);
            int m = snprintf(slept_list + b, sizeof slept_list - (size_t)b, "%s%ld", r ? "," : "",
                             reports[r].slept);
            if (n < 0 || m < 0 || a + n >= (int)sizeof spun_list || b + m >= (int)sizeof slept_list)
                break; /* many ranks: the per-rank lines above have them all */
            a += n;
            b += m;
        }
        double *skew = malloc((size_t)k_count * sizeof *skew);
        if (!skew)
            MPI_Abort(MPI_COMM_WORLD, 1);
        double fig[4][2]; /* [window est, window true, mpi est, mpi true][p50, p99] */
        /* The barriers the lateness rule kept (no rank late, start skew
         * within the tolerance) and their true skew's p90: what the rule
         * promises, on a quiet machine or a loaded one. */
        int on_time = 0;
        double on_time_p90_us = NAN;
        for (int i = 0; i < 4; i++) {
            skews_us(all[i], size, k_count, skew);
            if (i == 1) {
                for (int k = 0; k < k_count; k++)
                    if (!barrier_late[k])
                        skew[on_time++] = skew[k];
                if (on_time > 0)
                    on_time_p90_us = check_percentile(skew, on_time, 0.90);
                skews_us(all[i], size, k_count, skew);
            }
            fig[i][0] = check_percentile(skew, k_count, 0.50);
            fig[i][1] = check_percentile(skew, k_count, 0.99);
        }
        char true_window[128], true_mpi[128], model_error[32] = "na";
        if (shared_clock) {
            if (all_truth)
                snprintf(model_error, sizeof model_error, "%.3f",
                         reports[worst_error].model_error_us);
            snprintf(true_window, sizeof true_window,
                     "%.3f barrier_true_skew_p99_us=%.3f barrier_true_skew_on_time_p90_us=%.3f",
                     fig[1][0], fig[1][1], on_time_p90_us);
            snprintf(true_mpi, sizeof true_mpi, "%.3f mpi_barrier_true_skew_p99_us=%.3f", fig[3][0],
                     fig[3][1]);
        } else {
            snprintf(true_window, sizeof true_window,
                     "na barrier_true_skew_p99_us=na barrier_true_skew_on_time_p90_us=na");
            snprintf(true_mpi, sizeof true_mpi, "na mpi_barrier_true_skew_p99_us=na");
        }
        if (opt.run.run_s > 0) {
            int beyond = 0;
            for (int r = 0; r < size; r++)
                beyond += reports[r].residual_beyond;
            char kept[32] = "na", all[32] = "na", end[32] = "na", end_p50[32] = "na";
            char resolved[32] = "na";
            double bound_max_us = 0;
            for (int r = 0; r < size; r++)
                bound_max_us = fmax(bound_max_us, reports[r].bound_max_us);
            if (shared_clock) {
                snprintf(kept, sizeof kept, "%.3f", run.kept_true_skew_max_us);
                snprintf(resolved, sizeof resolved, "%.3f", run.kept_true_skew_resolved_max_us);
                snprintf(all, sizeof all, "%.3f", run.all_true_skew_max_us);
                snprintf(end, sizeof end, "%.3f", run.end_true_skew_max_us);
                snprintf(end_p50, sizeof end_p50, "%.3f", run.end_true_skew_p50_us);
            }
            printf("run_s=%.1f run_tolerance_us=%.3f run_attempts=%d run_kept=%d run_late=%d "
                   "run_resyncs=%d run_points=%d run_residual_beyond_bound=%d "
                   "run_kept_true_skew_max_us=%s run_all_true_skew_max_us=%s "
                   "run_end_true_skew_max_us=%s run_end_true_skew_p50_us=%s run_end_kept=%d "
                   "run_kept_true_skew_resolved_max_us=%s run_point_bound_max_us=%.3f "
                   "run_late_share=%.4f\n",
                   opt.run.run_s, opt.run.tolerance_us, run.attempts, run.kept, run.late,
                   run.resyncs, clocksync_get_model(sync)->n_points, beyond, kept, all, end,
                   end_p50, run.end_kept, resolved, bound_max_us,
                   run.attempts ? (double)run.late / run.attempts : 0.0);
        }
        /* The window barrier against MPI_Barrier, on the truth where there
         * is one: worse in median, or late more often than a sweep can
         * afford (its late exits are redone, so they, not the p99, are its
         * tail's cost), names its likely cause. */
        int t = shared_clock ? 1 : 0;
        double late_share = k_count > 0 ? (double)reports[0].any_late_barriers / k_count : 0.0;
        if (fig[t][0] > fig[t + 2][0] || late_share > barrier_late_share_max || spin_capped)
            fprintf(stderr,
                    "clocksync_check: warning: the window barrier's exit skew (p50 %.3f us, p99 "
                    "%.3f us, %.1f %% late) is worse than MPI_Barrier's (p50 %.3f us, p99 %.3f "
                    "us) or late too often. %s\n",
                    fig[t][0], fig[t][1], 100 * late_share, fig[t + 2][0], fig[t + 2][1],
                    spin_us > 0
                        ? "It sleeps before its deadline here and this machine wakes late from a "
                          "sleep (see wakeup_p99_us): give the thread it sleeps for a core of its "
                          "own, or on bare metal keep the cores out of deep idle states "
                          "(cpupower idle-set -D 0, or the kernel's idle=poll)"
                        : "It spun its whole margin, so something else ran on the ranks' cores "
                          "(another job, more ranks x threads than cores): measure alone");
        printf("# method %s; %d ranks, %d barriers each; true skews and model errors need one "
               "kernel and no faked clock: %s\n",
               clocksync_get_method_name(sync), size, k_count, shared_clock ? "yes" : "no");
        printf("barrier_skew_p50_us=%.3f barrier_skew_p99_us=%.3f mpi_barrier_skew_p50_us=%.3f "
               "offset_error_us=%.3f drift_ppm=%.3f mpi_barrier_skew_p99_us=%.3f "
               "barrier_true_skew_p50_us=%s mpi_barrier_true_skew_p50_us=%s late_barriers=%d "
               "ranks=%d method=%s model_error_max_us=%s late_barrier_share=%.4f "
               "wakeup_median_us=%.1f wakeup_p99_us=%.1f barrier_wait=%s barrier_spin_us=%.1f "
               "barriers_spun=%s barriers_slept=%s barriers_on_time=%d barrier_tolerance_us=%.1f\n",
               fig[0][0], fig[0][1], fig[2][0], fabs(reports[worst_residual].residual_us),
               reports[worst_drift].drift_ppm, fig[2][1], true_window, true_mpi, late, size,
               clocksync_get_method_name(sync), model_error, late_share, wake_median_us,
               wake_p99_us, spin_us > 0 ? "sleep" : "spin", spin_us, spun_list, slept_list, on_time,
               BARRIER_EXIT_TOLERANCE_NS * 1e-3);
        free(skew);
    }
    for (int i = 0; i < 4; i++)
        free(all[i]);
    free(reports);
    free(window_est);
    free(window_true);
    free(mpi_est);
    free(mpi_true);
    free(pair_ok);
    free(barrier_late);
    clocksync_free(sync);
    check_busy_stop(busy);
    /* Rank 0 printed while the others waited: enter MPI_Finalize together
     * (MPICH 4.0 over TCP can hang when one rank comes long after). */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
