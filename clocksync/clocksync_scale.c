/* clocksync_scale: how the clock synchronization methods scale, on
 * simulated ranks (clocksync_simulate: the calibration code of the MPI runs,
 * virtual clocks and latencies, no MPI), so thousands of ranks fit on a
 * laptop.
 *
 *   clocksync_scale [--ranks 2,4,...] [--methods linear,hierarchical] [--check] ...
 *
 * Per method and number of ranks: the messages of one calibration, those on
 * its critical path, the time that path takes at two one-way latencies, and
 * the ranks' clock errors right after a synchronization (two calibrations
 * --gap-s apart) and --horizon-s later. --check: exit 1 unless, at the
 * largest rank count, hierarchical needs at most 1/50 of linear's
 * critical-path messages and its median error after the horizon is within
 * 2x of linear's. */
#include "clocksync/clocksync.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_COUNTS = 32 };

/* The latencies the critical path is priced at: one-way, per message. */
static const struct {
    const char *label;
    double latency_ns;
} priced[] = {
    {"1.5us", 1500},
    {"50us", 50000},
};
enum { PRICED = sizeof priced / sizeof *priced };

typedef struct scale_options {
    clocksync_sim_options sim;
    int counts[MAX_COUNTS], n_counts;
    int methods[8], n_methods;
    bool check;
} scale_options;

typedef struct row {
    int64_t messages, critical;
    double sync_median_ns, horizon_median_ns, horizon_worst_ns;
} row;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clocksync_scale [options]\n"
            "  --ranks N,N,...      rank counts (default 2,4,16,64,256,1024,4096)\n"
            "  --methods M,M,...    methods (default: all: linear,hierarchical)\n"
            "  --roundtrips N       round trips per rank, sweep and calibration (default 1000)\n"
            "  --latency-ns MIN,TAIL  one-way latency: MIN + exponential tail of mean TAIL "
            "(default 1500,200)\n"
            "  --offset-us U        clocks of ranks >= 1 up to U us off rank 0's (default 1000)\n"
            "  --drift-ppm D        ... and up to D ppm fast or slow (default 20)\n"
            "  --gap-s G            between the two calibrations of a synchronization "
            "(default 30)\n"
            "  --horizon-s H        errors checked H s after it (default 60)\n"
            "  --seed S             of the simulated clocks and latencies (default 1)\n"
            "  --check              exit 1 unless hierarchical meets its targets at the "
            "largest count\n");
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool parse_list(const char *text, int *values, int max, int *count, bool methods)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    *count = 0;
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*count == max)
            return false;
        char *end;
        long v = methods ? clocksync_method_find(tok) : strtol(tok, &end, 10);
        if (methods ? v < 0 : (*end != '\0' || v < 2 || v > 65536))
            return false;
        values[(*count)++] = (int)v;
    }
    return *count > 0;
}

static bool parse_number(const char *text, double lo, double hi, double *value)
{
    char *end;
    *value = strtod(text, &end);
    return end != text && *end == '\0' && *value >= lo && *value <= hi;
}

/* Returns 0, 1 for --help, 2 with a message for bad input. */
static int parse_options(int argc, char **argv, scale_options *opt)
{
    static const struct option longopts[] = {
        {"ranks", required_argument, NULL, 'r'},
        {"methods", required_argument, NULL, 'm'},
        {"roundtrips", required_argument, NULL, 'n'},
        {"latency-ns", required_argument, NULL, 'l'},
        {"offset-us", required_argument, NULL, 'o'},
        {"drift-ppm", required_argument, NULL, 'd'},
        {"gap-s", required_argument, NULL, 'g'},
        {"horizon-s", required_argument, NULL, 'H'},
        {"seed", required_argument, NULL, 's'},
        {"check", no_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    clocksync_sim_options_default(&opt->sim);
    static const int default_counts[] = {2, 4, 16, 64, 256, 1024, 4096};
    opt->n_counts = sizeof default_counts / sizeof *default_counts;
    memcpy(opt->counts, default_counts, sizeof default_counts);
    opt->n_methods = clocksync_method_count();
    for (int i = 0; i < opt->n_methods; i++)
        opt->methods[i] = i;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        double v = 0, w = 0;
        const char *bad = NULL;
        switch (c) {
        case 'r':
            if (!parse_list(optarg, opt->counts, MAX_COUNTS, &opt->n_counts, false))
                bad = "--ranks: needs rank counts from 2 to 65536, comma-separated";
            break;
        case 'm':
            if (!parse_list(optarg, opt->methods, 8, &opt->n_methods, true))
                bad = "--methods: needs method names (linear, hierarchical), comma-separated";
            break;
        case 'n':
            if (!parse_number(optarg, 10, 1e6, &v) || v != floor(v))
                bad = "--roundtrips: needs an integer from 10 to 1000000";
            opt->sim.roundtrips = (int)v;
            break;
        case 'l':
            if (sscanf(optarg, "%lf,%lf", &v, &w) != 2 || !(v >= 0 && v < 1e9) ||
                !(w >= 0 && w < 1e9))
                bad = "--latency-ns: needs MIN,TAIL in ns, e.g. 1500,200";
            opt->sim.latency_min_ns = v;
            opt->sim.latency_tail_ns = w;
            break;
        case 'o':
            if (!parse_number(optarg, 0, 1e9, &v))
                bad = "--offset-us: needs microseconds from 0 to 1e9";
            opt->sim.max_offset_ns = v * 1e3;
            break;
        case 'd':
            if (!parse_number(optarg, 0, 1000, &v))
                bad = "--drift-ppm: needs ppm from 0 to 1000";
            opt->sim.max_drift_ppm = v;
            break;
        case 'g':
            if (!parse_number(optarg, 0, 1e6, &v))
                bad = "--gap-s: needs seconds from 0 to 1e6";
            opt->sim.gap_s = v;
            break;
        case 'H':
            if (!parse_number(optarg, 0, 1e6, &v))
                bad = "--horizon-s: needs seconds from 0 to 1e6";
            opt->sim.horizon_s = v;
            break;
        case 's':
            if (!parse_number(optarg, 0, 1e18, &v) || v != floor(v))
                bad = "--seed: needs a whole number";
            opt->sim.seed = (uint64_t)v;
            break;
        case 'c':
            opt->check = true;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            bad = "unknown option";
            break;
        }
        if (bad) {
            fprintf(stderr, "clocksync_scale: %s (got '%s'); see --help\n", bad,
                    optarg ? optarg : argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "clocksync_scale: unexpected argument '%s'; see --help\n", argv[optind]);
        return 2;
    }
    return 0;
}

/* Median and largest |error| over ranks 1 .. p-1. */
static void summarize(const double *errors, int p, double *median, double *worst)
{
    double *a = malloc((size_t)p * sizeof *a);
    if (!a) {
        fprintf(stderr, "clocksync_scale: out of memory\n");
        exit(1);
    }
    for (int r = 1; r < p; r++)
        a[r - 1] = fabs(errors[r]);
    qsort(a, (size_t)(p - 1), sizeof *a, compare_double);
    *median = p % 2 ? 0.5 * (a[(p - 1) / 2 - 1] + a[(p - 1) / 2]) : a[(p - 1) / 2];
    *worst = a[p - 2];
    free(a);
}

int main(int argc, char **argv)
{
    scale_options opt = {0};
    int verdict = parse_options(argc, argv, &opt);
    if (verdict != 0)
        return verdict == 1 ? 0 : 2;

    printf("# clocksync_scale: one calibration per row; %d round trips per rank and sweep; "
           "one-way latency %.0f ns + exponential tail of mean %.0f ns; clocks up to %.0f us "
           "and %.0f ppm off rank 0's; errors |model - truth| over ranks >= 1, right after a "
           "synchronization (two calibrations %.0f s apart) and %.0f s later\n",
           opt.sim.roundtrips, opt.sim.latency_min_ns, opt.sim.latency_tail_ns,
           opt.sim.max_offset_ns * 1e-3, opt.sim.max_drift_ppm, opt.sim.gap_s, opt.sim.horizon_s);
    printf("%-12s %6s %10s %10s", "method", "ranks", "messages", "critical");
    for (int i = 0; i < PRICED; i++)
        printf(" %10s", "sync_s@");
    printf(" %12s %12s %12s\n", "err_sync_p50", "err_p50", "err_max");
    printf("%-12s %6s %10s %10s", "", "", "", "");
    for (int i = 0; i < PRICED; i++)
        printf(" %10s", priced[i].label);
    printf(" %12s %12s %12s\n", "ns", "ns@horizon", "ns@horizon");

    row last[8] = {{0}};
    for (int ci = 0; ci < opt.n_counts; ci++) {
        for (int mi = 0; mi < opt.n_methods; mi++) {
            clocksync_sim_options so = opt.sim;
            so.ranks = opt.counts[ci];
            so.method = opt.methods[mi];
            clocksync_sim_result res;
            if (clocksync_simulate(&so, &res) != 0) {
                fprintf(stderr,
                        "clocksync_scale: simulation of %s on %d ranks failed (out of memory, "
                        "or a calibration longer than --gap-s %.0f s)\n",
                        clocksync_method_name(so.method), so.ranks, so.gap_s);
                return 1;
            }
            row rw = {.messages = res.messages, .critical = res.critical_messages};
            double worst_sync;
            summarize(res.error_sync_ns, so.ranks, &rw.sync_median_ns, &worst_sync);
            summarize(res.error_horizon_ns, so.ranks, &rw.horizon_median_ns, &rw.horizon_worst_ns);
            printf("%-12s %6d %10lld %10lld", clocksync_method_name(so.method), so.ranks,
                   (long long)rw.messages, (long long)rw.critical);
            for (int i = 0; i < PRICED; i++)
                printf(" %10.4g", (double)rw.critical * priced[i].latency_ns * 1e-9);
            printf(" %12.1f %12.1f %12.1f\n", rw.sync_median_ns, rw.horizon_median_ns,
                   rw.horizon_worst_ns);
            fflush(stdout);
            last[mi] = rw;
            clocksync_sim_result_free(&res);
        }
    }

    int lin = -1, hier = -1;
    for (int mi = 0; mi < opt.n_methods; mi++) {
        const char *name = clocksync_method_name(opt.methods[mi]);
        lin = strcmp(name, "linear") == 0 ? mi : lin;
        hier = strcmp(name, "hierarchical") == 0 ? mi : hier;
    }
    if (lin < 0 || hier < 0)
        return 0;
    double path_ratio = (double)last[lin].critical / (double)last[hier].critical;
    double error_ratio = last[hier].horizon_median_ns / last[lin].horizon_median_ns;
    bool met = path_ratio >= 50 && error_ratio <= 2;
    printf("hierarchical_vs_linear ranks=%d critical_path_ratio=%.1f median_error_ratio=%.2f "
           "targets=%s\n",
           opt.counts[opt.n_counts - 1], path_ratio, error_ratio, met ? "met" : "missed");
    return opt.check && !met ? 1 : 0;
}
