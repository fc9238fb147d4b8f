/* cli: version line and exit-status table (cli.h). */
#include "cli/cli.h"

#ifndef BENCH_NBC_VERSION
#error "BENCH_NBC_VERSION is defined by cli/module.mk from the file VERSION"
#endif
#ifndef BENCH_NBC_REVISION
#error "BENCH_NBC_REVISION is defined by cli/module.mk"
#endif

static const struct {
    int code;
    const char *word;
    const char *meaning;
} exit_statuses[] = {
#define EXIT_STATUS(code, NAME, word, meaning) {code, word, meaning},
#include "cli/exit_status.def"
#undef EXIT_STATUS
};

const char *cli_version(void)
{
    return BENCH_NBC_VERSION;
}

const char *cli_revision(void)
{
    return BENCH_NBC_REVISION;
}

void cli_print_version(FILE *out, const char *tool)
{
    fprintf(out, "%s %s (revision %s)\n", tool, cli_version(), cli_revision());
}

void cli_print_exit_statuses(FILE *out)
{
    fputs("exit status:\n", out);
    for (size_t i = 0; i < sizeof exit_statuses / sizeof *exit_statuses; i++)
        fprintf(out, "  %d  %-13s %s\n", exit_statuses[i].code, exit_statuses[i].word,
                exit_statuses[i].meaning);
}
