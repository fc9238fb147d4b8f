/* nbc-compare: runs side by side on their common cells (no MPI needed).
 * See analysis/README.md. */
#include "analysis/analysis_internal.h"

#include <getopt.h>
#include <stdio.h>

static void usage(FILE *out)
{
    fputs("usage: nbc-compare [options] RUN_DIR RUN_DIR... -o OUT_DIR\n"
          "Draws the r_overhead maps of two or more runs side by side on one colour scale,\n"
          "a difference map for two runs, and a summary (stdout and OUT_DIR/summary.csv).\n"
          "Runs without cells.csv are analyzed first.\n"
          "  -o, --output=DIR     folder for the figures and summary.csv (created)\n"
          "  --no-plots           write the gnuplot scripts and data but do not run gnuplot\n"
          "  --overhead-max=R     r_overhead at which the colour saturates to red (default 2)\n"
          "  -h, --help           this text\n"
          "Exit status: 0 done, 1 system failure, 2 bad input.\n",
          out);
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"output", required_argument, NULL, 'o'},
        {"no-plots", no_argument, NULL, 'n'},
        {"overhead-max", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    analysis_options options = analysis_default_options();
    const char *out_dir = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            out_dir = optarg;
            break;
        case 'n':
            options.plots = false;
            break;
        case 'm':
            if (cli_parse_overhead_max("nbc-compare", optarg, &options.r_overhead_max) != 0)
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
    if (!out_dir) {
        fputs("nbc-compare: -o OUT_DIR is required (where the figures and summary.csv go)\n",
              stderr);
        usage(stderr);
        return ANALYSIS_ERR_INPUT;
    }
    analysis_error err;
    int status = analysis_compare_runs((const char *const *)argv + optind, (size_t)(argc - optind),
                                       out_dir, &options, &err);
    return cli_report_status("nbc-compare", status, &err, 0);
}
