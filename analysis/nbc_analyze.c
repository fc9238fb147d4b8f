/* nbc-analyze: metrics, tables and figures of run folders (no MPI needed).
 * See analysis/README.md. */
#include "analysis/analysis_internal.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

enum { OPT_LATE_TOLERANCE = 1000 };

/* --late-tolerance: a share of the shorter calibrated time. */
static int parse_late_tolerance(const char *text, double *out)
{
    static const double highest = 1.0; /* a whole reference late is no measurement */
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(value >= 0 && value <= highest)) {
        fprintf(stderr,
                "nbc-analyze: --late-tolerance: '%s' is not allowed (a number from 0 to %g, "
                "e.g. 0.01: the share of min(t_comm_s, t_comp_s) a rank may leave the window "
                "barrier late)\n",
                text, highest);
        return -1;
    }
    *out = value;
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: nbc-analyze [options] RUN_DIR...\n"
          "Computes the metrics of each run folder into RUN_DIR/cells.csv, cells_by_rank.csv\n"
          "and impact.csv, and draws the figures into RUN_DIR/plots/ (PNG, SVG, PDF).\n"
          "  -q, --quiet          no summary on stdout\n"
          "  --late-tolerance=EPS judge every measured attempt again from raw.csv: late when a\n"
          "                       rank left the window barrier more than max(EPS * min(t_comm_s,\n"
          "                       t_comp_s), meta.json barrier_precision_ns) after its deadline\n"
          "                       (default: raw.csv's late column, the driver's decision)\n",
          out);
    fputs(cli_common_help(), out);
    fputs("Exit status: 0 done, 1 system failure, 2 bad input.\n", out);
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"no-plots", no_argument, NULL, CLI_NO_PLOTS},
        {"overhead-max", required_argument, NULL, CLI_OVERHEAD_MAX},
        {"quiet", no_argument, NULL, 'q'},
        {"late-tolerance", required_argument, NULL, OPT_LATE_TOLERANCE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    analysis_options options = analysis_default_options();
    int opt;
    while ((opt = getopt_long(argc, argv, "qh", long_options, NULL)) != -1) {
        int common = cli_common_option("nbc-analyze", opt, optarg, &options);
        if (common < 0)
            return ANALYSIS_ERR_INPUT;
        if (common > 0)
            continue;
        switch (opt) {
        case 'q':
            options.report = NULL;
            break;
        case OPT_LATE_TOLERANCE:
            if (parse_late_tolerance(optarg, &options.rules.late_tolerance) != 0)
                return ANALYSIS_ERR_INPUT;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return ANALYSIS_ERR_INPUT;
        }
    }
    if (optind >= argc) {
        fputs("nbc-analyze: no run folder given\n", stderr);
        usage(stderr);
        return ANALYSIS_ERR_INPUT;
    }
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        analysis_error err;
        int status = analysis_analyze_run(argv[i], &options, &err);
        worst = cli_report_status("nbc-analyze", status, &err, worst);
    }
    return worst;
}
