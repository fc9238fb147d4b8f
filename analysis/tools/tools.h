/* analysis/tools: the command lines of nbc-analyze, nbc-compare and
 * nbc-trace (their mains), and the options the first two share
 * (tool_options.c). Included by these files only. */
#ifndef ANALYSIS_TOOLS_TOOLS_H
#define ANALYSIS_TOOLS_TOOLS_H

#include "analysis/figures/figures.h"

/* The options nbc-analyze and nbc-compare take: getopt_long codes and
 * their help lines. */
enum {
    CLI_NO_PLOTS = 'n',
    CLI_OVERHEAD_MAX = 'm',
    CLI_PALETTE = 'p',
    CLI_VERSION = 'V',
    CLI_FIGURE_SIZE = 0x300, /* long options only */
    CLI_NO_TITLES,
};
const char *cli_common_help(void);
/* Applies a common option: 1 when opt was one (applied), 0 when it is not,
 * -1 when its value is bad (the message is printed). */
int cli_common_option(const char *program, int opt, const char *arg, analysis_options *options);
/* Prints a run's outcome; returns the exit status so far (the worst). A
 * missing gnuplot is reported but is not a failure. */
int cli_report_status(const char *program, int status, const analysis_error *err, int worst);

#endif
