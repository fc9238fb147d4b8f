/* nbc-analyze: metrics, tables and figures of run folders (no MPI needed).
 * See analysis/README.md. */
#include "analysis/tools/tools.h"
#include "analysis/analyze/analyze.h"
#include "analysis/figures/figures.h"
#include "analysis/impact/impact.h"
#include "analysis/tables/tables.h"
#include "analysis/verdict/verdict.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_LATE_TOLERANCE = 1000,
    OPT_ECDF,
    OPT_SEED,
    OPT_RESAMPLES,
    OPT_TABLE,
    OPT_FRONTIER,
    OPT_STUDY
};

/* An integer option within [lowest, highest]; the message names the option. */
static int parse_integer(const char *option, const char *text, long long lowest, long long highest,
                         const char *meaning, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value < lowest || value > highest) {
        fprintf(stderr, "nbc-analyze: %s: '%s' is not allowed (an integer from %lld to %lld: %s)\n",
                option, text, lowest, highest, meaning);
        return -1;
    }
    *out = value;
    return 0;
}

/* --ecdf=CELL[,CELL...]: cell numbers (the column `cell` of cells.csv). */
static int parse_ecdf(const char *text, long **cells, size_t *count)
{
    enum { MOST = 64 };
    static long numbers[MOST];
    size_t n = 0;
    char copy[1024];
    if (strlen(text) >= sizeof copy) {
        fprintf(stderr, "nbc-analyze: --ecdf: the list is too long (at most %d cells)\n", MOST);
        return -1;
    }
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        long long value;
        if (n == MOST) {
            fprintf(stderr, "nbc-analyze: --ecdf: more than %d cells\n", MOST);
            return -1;
        }
        if (parse_integer("--ecdf", item, 0, LONG_MAX,
                          "cell numbers, the column `cell` of cells.csv, separated by commas, "
                          "e.g. --ecdf=0,12",
                          &value) != 0)
            return -1;
        numbers[n++] = (long)value;
    }
    if (n == 0) {
        fprintf(stderr, "nbc-analyze: --ecdf: no cell given (e.g. --ecdf=0,12)\n");
        return -1;
    }
    *cells = numbers;
    *count = n;
    return 0;
}

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
          "       nbc-analyze --study STUDY_DIR\n"
          "Computes the metrics of each run folder into RUN_DIR/cells.csv, cells_by_rank.csv\n"
          "and impact.csv, and draws the figures into RUN_DIR/plots/ (PNG, SVG, PDF).\n"
          "  -q, --quiet          no summary on stdout\n"
          "  --late-tolerance=EPS judge every measured attempt again from raw.csv: late when a\n"
          "                       rank left the window barrier more than max(EPS * min(t_comm_s,\n"
          "                       t_comp_s), meta.json barrier_precision_ns) after its deadline\n"
          "                       (default: raw.csv's late column, the driver's decision)\n"
          "  --ecdf=CELL[,CELL..] also draw the distribution over blocks of these cells\n"
          "                       (numbers of the column `cell` of cells.csv) into\n"
          "                       plots/ecdf_cell_CELL.{png,svg,pdf}\n"
          "  --seed=N             seed of the bootstrap (default 1; written to summary.txt\n"
          "                       and cells.csv)\n"
          "  --resamples=B        bootstrap resamples per cell (default 2000)\n"
          "  --table[=FORMAT]     print each run's cells table on stdout (the summary then\n"
          "                       goes to stderr): text (default; as RUN_DIR/cells.txt) or\n"
          "                       json (the same rows as JSON lines)\n"
          "  --frontier-threshold=R  the largest r_overhead (eq. 1) counted as hidden in\n"
          "                       RUN_DIR/frontier.csv and plots/frontier.* (default 0.1)\n"
          "  --study=STUDY_DIR    the study's tables over its launches (STUDY_DIR/study.json,\n"
          "                       written by nbc-run): STUDY_DIR/verdict.csv, and\n"
          "                       STUDY_DIR/impact.csv (the MPI impact per configuration\n"
          "                       and computation size, from the pairs of all launches)\n",
          out);
    fputs(cli_common_help(), out);
    cli_print_exit_statuses(out);
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"no-plots", no_argument, NULL, CLI_NO_PLOTS},
        {"overhead-max", required_argument, NULL, CLI_OVERHEAD_MAX},
        {"palette", required_argument, NULL, CLI_PALETTE},
        {"figure-size", required_argument, NULL, CLI_FIGURE_SIZE},
        {"no-titles", no_argument, NULL, CLI_NO_TITLES},
        {"quiet", no_argument, NULL, 'q'},
        {"late-tolerance", required_argument, NULL, OPT_LATE_TOLERANCE},
        {"ecdf", required_argument, NULL, OPT_ECDF},
        {"seed", required_argument, NULL, OPT_SEED},
        {"resamples", required_argument, NULL, OPT_RESAMPLES},
        {"table", optional_argument, NULL, OPT_TABLE},
        {"frontier-threshold", required_argument, NULL, OPT_FRONTIER},
        {"study", required_argument, NULL, OPT_STUDY},
        {"version", no_argument, NULL, CLI_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    analysis_options options = analysis_default_options();
    long *ecdf_cells = NULL;
    double frontier_threshold = frontier_default_threshold();
    long long value;
    const char *study_dir = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "qhV", long_options, NULL)) != -1) {
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
        case OPT_ECDF:
            if (parse_ecdf(optarg, &ecdf_cells, &options.ecdf_count) != 0)
                return ANALYSIS_ERR_INPUT;
            options.ecdf_cells = ecdf_cells;
            break;
        case OPT_SEED:
            if (parse_integer("--seed", optarg, 0, LLONG_MAX, "the bootstrap's seed", &value) != 0)
                return ANALYSIS_ERR_INPUT;
            options.rules.uncertainty.seed = value;
            break;
        case OPT_RESAMPLES:
            /* fewer leave the intervals' 2 % tails a handful of replicates */
            if (parse_integer("--resamples", optarg, 200, 1000000, "bootstrap resamples per cell",
                              &value) != 0)
                return ANALYSIS_ERR_INPUT;
            options.rules.uncertainty.resamples = (long)value;
            break;
        case OPT_TABLE:
            options.table = TABLE_TEXT;
            if (optarg && (analysis_table_format_parse(optarg, &options.table) != 0 ||
                           options.table == TABLE_NONE)) {
                fprintf(stderr, "nbc-analyze: --table: '%s' is not allowed (text or json)\n",
                        optarg);
                return ANALYSIS_ERR_INPUT;
            }
            break;
        case OPT_FRONTIER:
            if (frontier_parse_threshold("nbc-analyze", optarg, &frontier_threshold) != 0)
                return ANALYSIS_ERR_INPUT;
            break;
        case OPT_STUDY:
            study_dir = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return ANALYSIS_ERR_INPUT;
        }
    }
    if (options.table != TABLE_NONE && options.report == stdout)
        options.report = stderr; /* stdout holds the tables alone, for harnesses */
    if (study_dir) {
        if (optind < argc) {
            fputs("nbc-analyze: --study takes no run folder (its runs are study.json's)\n", stderr);
            return ANALYSIS_ERR_INPUT;
        }
        /* The study's two tables: the verdict over its launches, then the
         * impact per computation size over their pairs. */
        analysis_error err;
        int worst = cli_report_status("nbc-analyze", verdict_study(study_dir, &err), &err, 0);
        return cli_report_status("nbc-analyze",
                                 impact_study_of_dir(study_dir, &options.rules.uncertainty,
                                                     options.report ? stdout : NULL, &err),
                                 &err, worst);
    }
    if (optind >= argc) {
        fputs("nbc-analyze: no run folder given\n", stderr);
        usage(stderr);
        return ANALYSIS_ERR_INPUT;
    }
    int worst = 0;
    bool some_without_valid = false;
    for (int i = optind; i < argc; i++) {
        analysis_error err;
        long valid = -1;
        options.valid_cells = &valid;
        int status = analysis_analyze_run(argv[i], &options, &err);
        worst = cli_report_status("nbc-analyze", status, &err, worst);
        if (status == ANALYSIS_OK || status == ANALYSIS_NO_GNUPLOT) {
            analysis_options frontier = options; /* gnuplot's absence said once */
            frontier.plots = options.plots && status == ANALYSIS_OK;
            worst = cli_report_status(
                "nbc-analyze", frontier_write_run(argv[i], frontier_threshold, &frontier, &err),
                &err, worst);
        }
        some_without_valid |= status == ANALYSIS_OK && valid == 0;
    }
    /* Every file is written; the run has nothing to show (said above). */
    return worst == 0 && some_without_valid ? CLI_EXIT_NO_VALID_CELL : worst;
}
