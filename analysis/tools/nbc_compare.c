/* nbc-compare: runs side by side on their common cells (no MPI needed).
 * See analysis/README.md. */
#include "analysis/tools/tools.h"
#include "analysis/analyze/analyze.h"
#include "analysis/compare/compare.h"
#include "analysis/figures/figures.h"
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>

enum { OPT_NORMALIZE_CORES = 1000, OPT_FRONTIER };

static void usage(FILE *out)
{
    fputs("usage: nbc-compare [options] RUN_DIR RUN_DIR... -o OUT_DIR\n"
          "Draws the r_overhead maps of two or more runs side by side on one colour scale,\n"
          "a difference map for two runs, and a summary (stdout and OUT_DIR/summary.csv).\n"
          "Runs without cells.csv are analyzed first.\n"
          "  -o, --output=DIR     folder for the figures and summary.csv (created)\n"
          "  --normalize-cores    scale each run's compute times by (most compute cores of\n"
          "                       the runs) / (its own), from meta.json's\n"
          "                       deployment_plan.compute.cpus: dedicated (n-1 of n cores)\n"
          "                       against basic for the same node-level work, assuming\n"
          "                       perfect strong scaling of the computation over cores;\n"
          "                       r_overhead recomputed, OUT_DIR/normalization.csv\n"
          "  --frontier-threshold=R  the largest r_overhead (eq. 1) counted as hidden in\n"
          "                       OUT_DIR/compare_frontier.* (default 0.1)\n",
          out);
    fputs(cli_common_help(), out);
    cli_print_exit_statuses(out);
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"output", required_argument, NULL, 'o'},
        {"no-plots", no_argument, NULL, CLI_NO_PLOTS},
        {"overhead-max", required_argument, NULL, CLI_OVERHEAD_MAX},
        {"palette", required_argument, NULL, CLI_PALETTE},
        {"figure-size", required_argument, NULL, CLI_FIGURE_SIZE},
        {"no-titles", no_argument, NULL, CLI_NO_TITLES},
        {"normalize-cores", no_argument, NULL, OPT_NORMALIZE_CORES},
        {"frontier-threshold", required_argument, NULL, OPT_FRONTIER},
        {"version", no_argument, NULL, CLI_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    analysis_options options = analysis_default_options();
    const char *out_dir = NULL;
    double frontier_threshold = frontier_default_threshold();
    int opt;
    while ((opt = getopt_long(argc, argv, "o:hV", long_options, NULL)) != -1) {
        int common = cli_common_option("nbc-compare", opt, optarg, &options);
        if (common < 0)
            return ANALYSIS_ERR_INPUT;
        if (common > 0)
            continue;
        switch (opt) {
        case 'o':
            out_dir = optarg;
            break;
        case OPT_NORMALIZE_CORES:
            options.normalize_cores = true;
            break;
        case OPT_FRONTIER:
            if (frontier_parse_threshold("nbc-compare", optarg, &frontier_threshold) != 0)
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
    int worst = cli_report_status("nbc-compare", status, &err, 0);
    if (status == ANALYSIS_OK) /* the runs' cells.csv exist now */
        worst = cli_report_status("nbc-compare",
                                  frontier_write_compare((const char *const *)argv + optind,
                                                         (size_t)(argc - optind), out_dir,
                                                         frontier_threshold, &options, &err),
                                  &err, worst);
    return worst;
}
