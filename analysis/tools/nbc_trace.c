/* nbc-trace: one cell of a run's raw.csv as a Chrome trace / Perfetto JSON
 * (no MPI needed). See analysis/README.md. */
#include "analysis/tools/tools.h"
#include "analysis/inputs/inputs.h"
#include "analysis/trace/trace.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void usage(FILE *out)
{
    fputs("usage: nbc-trace RUN_DIR CELL [-o FILE]\n"
          "Writes the attempts of one cell of RUN_DIR/raw.csv as Chrome trace JSON (load it in\n"
          "ui.perfetto.dev or chrome://tracing): one track per rank, one slice per attempt\n"
          "named after its kind (args: block, role, attempt, seq, late), with its phases\n"
          "start (t1..t2), compute (t2..t3) and wait (t3..t4) nested inside.\n"
          "  -o, --output=FILE    write there instead of stdout\n"
          "  -V, --version        the version and revision\n"
          "  -h, --help           this text\n",
          out);
    cli_print_exit_statuses(out);
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"output", required_argument, NULL, 'o'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "o:hV", long_options, NULL)) != -1) {
        if (opt == 'o') {
            output = optarg;
        } else if (opt == 'V') {
            cli_print_version(stdout, "nbc-trace");
            return CLI_EXIT_COMPLETE;
        } else if (opt == 'h') {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return ANALYSIS_ERR_INPUT;
        }
    }
    char *end = NULL;
    long cell = optind + 2 == argc ? (errno = 0, strtol(argv[optind + 1], &end, 10)) : -1;
    if (optind + 2 != argc || !end || *end || end == argv[optind + 1] || errno || cell < 0) {
        fprintf(stderr, "nbc-trace: give RUN_DIR and CELL (a cell number of raw.csv, >= 0)\n");
        usage(stderr);
        return ANALYSIS_ERR_INPUT;
    }
    analysis_error err = {{0}};
    char path[4096];
    char *buf = NULL;
    size_t len = 0;
    bool missing = false;
    raw_table table = {0};
    int status = analysis_path(path, sizeof path, argv[optind], "raw.csv", &err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, &buf, &len, &missing, &err);
    if (status == ANALYSIS_OK)
        status = analysis_parse_raw(buf, len, path, &table, &err);
    FILE *out = stdout;
    if (status == ANALYSIS_OK && output && !(out = fopen(output, "w"))) {
        snprintf(err.text, sizeof err.text, "cannot write %s", output);
        status = ANALYSIS_ERR_SYSTEM;
    }
    if (status == ANALYSIS_OK)
        status = analysis_trace_cell(&table, cell, out, &err);
    if (out && out != stdout && fclose(out) != 0 && status == ANALYSIS_OK) {
        snprintf(err.text, sizeof err.text, "cannot write %s", output);
        status = ANALYSIS_ERR_SYSTEM;
    }
    if (status != ANALYSIS_OK)
        fprintf(stderr, "nbc-trace: %s\n", err.text);
    analysis_raw_table_free(&table);
    free(buf);
    return status;
}
