/* analysis: the options nbc-analyze and nbc-compare share (figures,
 * palette, --no-plots) and how their exit status is chosen. */
#include "analysis/tools/tools.h"
#include "analysis/figures/figures.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int cli_parse_overhead_max(const char *program, const char *text, double *out)
{
    static const double lowest = 1.0, highest = 1000.0; /* red must lie beyond yellow (1) */
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(value > lowest && value <= highest)) {
        fprintf(stderr,
                "%s: --overhead-max: '%s' is not allowed (a number above %g and at most %g, "
                "e.g. 2)\n",
                program, text, lowest, highest);
        return -1;
    }
    *out = value;
    return 0;
}

const char *cli_common_help(void)
{
    return "  --no-plots           write the gnuplot scripts and data but do not run gnuplot\n"
           "  --overhead-max=R     --palette=paper: where r_overhead turns red (default 2)\n"
           "  --palette=NAME       colour maps: cividis (default) or viridis (perceptually\n"
           "                       uniform, colour-blind safe; ratios and differences in\n"
           "                       Paul Tol's 'sunset', classes in his 'muted'), or paper\n"
           "                       (section 5.2's colours)\n"
           "  --figure-size=SIZE   printed width of every figure: column (3.5 in, the\n"
           "                       default), page (7 in) or WxH in inches (e.g. 5x3.2);\n"
           "                       text is 7 pt or more at that size\n"
           "  --no-titles          no title above the figures (the caption files stay)\n"
           "  -V, --version        the version and revision\n"
           "  -h, --help           this text\n";
}

int cli_common_option(const char *program, int opt, const char *arg, analysis_options *options)
{
    if (opt == CLI_VERSION) {
        cli_print_version(stdout, program);
        exit(CLI_EXIT_COMPLETE);
    }
    if (opt == CLI_NO_PLOTS) {
        options->plots = false;
        return 1;
    }
    if (opt == CLI_OVERHEAD_MAX)
        return cli_parse_overhead_max(program, arg, &options->r_overhead_max) == 0 ? 1 : -1;
    if (opt == CLI_NO_TITLES) {
        options->titles = false;
        return 1;
    }
    if (opt == CLI_FIGURE_SIZE) {
        if (plot_figure_size_parse(arg, &options->figure) == 0)
            return 1;
        fprintf(stderr,
                "%s: --figure-size: '%s' is not allowed (column, page, or WxH in inches with "
                "W from 2 to 20 and H from 1.5 to 20 or 0, e.g. 5x3.2)\n",
                program, arg);
        return -1;
    }
    if (opt == CLI_PALETTE) {
        if (plot_palette_parse(arg, &options->palette) == 0)
            return 1;
        fprintf(stderr, "%s: --palette: '%s' is not allowed (one of %s)\n", program, arg,
                plot_palette_names());
        return -1;
    }
    return 0;
}

int cli_report_status(const char *program, int status, const analysis_error *err, int worst)
{
    if (status == ANALYSIS_OK)
        return worst;
    if (status == ANALYSIS_NO_GNUPLOT) {
        fprintf(stderr, "%s: %s\n", program, err->text);
        return worst;
    }
    fprintf(stderr, "%s: %s\n", program, err->text);
    /* bad input (2) outranks a system failure (1) in the exit status */
    return status > worst ? status : worst;
}
