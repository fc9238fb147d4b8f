/* nbc-analyze: metrics, tables and figures of run folders (no MPI needed).
 * See analysis/README.md. */
#include "analysis/analysis_internal.h"

#include <getopt.h>
#include <stdio.h>

static void usage(FILE *out)
{
    fputs("usage: nbc-analyze [options] RUN_DIR...\n"
          "Computes the metrics of each run folder into RUN_DIR/cells.csv, cells_by_rank.csv\n"
          "and impact.csv, and draws the figures into RUN_DIR/plots/ (PNG, SVG, PDF).\n"
          "  --no-plots           write the gnuplot scripts and data but do not run gnuplot\n"
          "  --overhead-max=R     r_overhead at which the colour saturates to red (default 2)\n"
          "  -q, --quiet          no summary on stdout\n"
          "  -h, --help           this text\n"
          "Exit status: 0 done, 1 system failure, 2 bad input.\n",
          out);
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"no-plots", no_argument, NULL, 'n'},
        {"overhead-max", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    analysis_options options = analysis_default_options();
    int opt;
    while ((opt = getopt_long(argc, argv, "qh", long_options, NULL)) != -1) {
        switch (opt) {
        case 'n':
            options.plots = false;
            break;
        case 'm':
            if (cli_parse_overhead_max("nbc-analyze", optarg, &options.r_overhead_max) != 0)
                return ANALYSIS_ERR_INPUT;
            break;
        case 'q':
            options.report = NULL;
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
