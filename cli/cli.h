/* cli: what every bench_nbc tool's command line shares: the exit statuses
 * (cli/exit_status.def, also read by the Python tools) and the --version
 * line. No MPI, no other module: every tool may include it. */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdio.h>

enum cli_exit_status {
#define EXIT_STATUS(code, NAME, word, meaning) CLI_EXIT_##NAME = code,
#include "cli/exit_status.def"
#undef EXIT_STATUS
};

/* The project's version (the file VERSION) and the git revision the tool
 * was built from (`git describe --always --dirty`, "unknown" outside git). */
const char *cli_version(void);
const char *cli_revision(void);

/* Prints "TOOL VERSION (revision REV)" and a newline to out. */
void cli_print_version(FILE *out, const char *tool);

/* Prints the table of exit statuses, one "  CODE  meaning" line each, under
 * an "exit status:" heading (for --help). */
void cli_print_exit_statuses(FILE *out);

#endif
