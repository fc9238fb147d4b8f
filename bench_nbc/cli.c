/* The command line (getopt_long): options, --help and --list, and the
 * first look at the configuration before MPI_Init (--plan prints it). */
#include "bench_nbc/collectives/datacheck.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "bench_nbc/stages/stages.h"
#include "bench_nbc/plan_estimate.h"
#include "cli/cli.h"
#include "compute/compute.h"

#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n P bench_nbc [-c FILE] [--set section.key=value]...\n"
                 "       mpiexec -n P bench_nbc --resume RUN_DIR\n"
                 "       mpiexec -n P bench_nbc --replay CELL RUN_DIR\n"
                 "       bench_nbc --plan [-c FILE] [--set section.key=value]...\n"
                 "  -c, --config FILE     configuration (INI); defaults apply to keys it omits\n"
                 "  -s, --set KEY=VALUE   override one key, e.g. --set grid.comm_times=1ms,8ms,2\n"
                 "  -r, --resume RUN_DIR  continue an interrupted or calibrated run\n"
                 "      --replay CELL RUN_DIR  measure cell CELL (cells.csv's cell) of RUN_DIR\n"
                 "                        again in a new folder, with its sizes and settings;\n"
                 "                        prints the command that does it (replay.sh)\n"
                 "      --stop-after calibration  stop before the sweep, once clock sync and\n"
                 "                        calibrations are written (meta.json status\n"
                 "                        calibrated, exit 0); --resume RUN_DIR then runs\n"
                 "                        the passive step, the sweep and the passive step\n"
                 "      --run-dir-file FILE  rank 0 writes the run folder's absolute path\n"
                 "                        into FILE (atomically) once the folder exists\n"
                 "  -l, --list            list the collectives and what their byte size means\n"
                 "  -p, --plan            print the deployment plan as JSON (environment, thread\n"
                 "                        level, progress thread, cores) without starting MPI\n"
                 "  -V, --version         the version, revision, MPI library and BLAS\n"
                 "  -h, --help            this text and every configuration key\n"
                 "Writes a new folder under run.results_dir; see docs/formats.md.\n\n");
}

/* Returns 0, or 2 with a message in err. Every rank parses the same argv. */
static int parse_cli(int argc, char **argv, nbc_cli *c, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},
        {"resume", required_argument, NULL, 'r'},
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"plan", no_argument, NULL, 'p'},
        {"stop-after", required_argument, NULL, 'A'},
        {"run-dir-file", required_argument, NULL, 'F'},
        {"replay", required_argument, NULL, 'P'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    *c = (nbc_cli){0};
    c->sets = calloc((size_t)argc, sizeof *c->sets);
    if (!c->sets) {
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, ":c:s:r:lhpV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            c->config_path = optarg;
            break;
        case 's':
            c->sets[c->set_count++] = optarg;
            break;
        case 'r':
            c->resume_dir = optarg;
            break;
        case 'l':
            c->list = true;
            break;
        case 'A':
            if (strcmp(optarg, "calibration") != 0) {
                snprintf(err, errlen, "--stop-after: '%s' (allowed: calibration)", optarg);
                return 2;
            }
            c->stop_after_calibration = true;
            break;
        case 'F':
            c->run_dir_file = optarg;
            break;
        case 'P':
            c->replay.cell_text = optarg;
            break;
        case 'h':
            c->help = true;
            break;
        case 'p':
            c->plan = true;
            break;
        case 'V':
            c->version = true;
            break;
        case ':':
            snprintf(err, errlen, "option %s needs a value; see --help", argv[optind - 1]);
            return 2;
        default:
            snprintf(err, errlen,
                     "unknown option %s (allowed: --config, --set, --resume, "
                     "--replay, --stop-after, --run-dir-file, --list, --plan, --version, --help)",
                     argv[optind - 1]);
            return 2;
        }
    }
    if (c->replay.cell_text) {
        int status =
            nbc_replay_cli(&c->replay, argc, argv, &optind, c->config_path || c->resume_dir,
                           c->sets, c->set_count, err, errlen);
        if (status != 0)
            return status;
        c->config_path = c->replay.config_path;
    }
    if (optind < argc) {
        snprintf(err, errlen,
                 "unexpected argument '%s'; options are given with --config, --set, "
                 "--resume",
                 argv[optind]);
        return 2;
    }
    if (c->resume_dir && (c->config_path || c->set_count)) {
        snprintf(err, errlen,
                 "--resume takes its configuration from the run folder: it cannot "
                 "be combined with --config or --set");
        return 2;
    }
    return 0;
}

/* --plan: the cells and the range of durations of the job
 * (plan_estimate.h), as the plan's member "estimate", and one line on
 * stderr for a batch job's --time. */
static void add_estimate(json_object *plan, const nbc_config *cfg, const deploy_plan *deployment)
{
    nbc_plan_estimate e = nbc_plan_estimate_of(cfg, deployment->barrier_sleep_min_s);
    json_object *o = json_object_new_object(), *range;
    if (!o)
        return;
    json_object_object_add(o, "cells_per_run", json_object_new_int64((int64_t)e.cells_per_run));
    json_object_object_add(o, "runs", json_object_new_int64((int64_t)e.runs));
    json_object_object_add(o, "blocks_per_cell", (range = json_object_new_array()) ? range : NULL);
    if (range) {
        json_object_array_add(range, json_object_new_int(e.blocks_lo));
        json_object_array_add(range, json_object_new_int(e.blocks_hi));
    }
    const struct {
        const char *name;
        const double *s;
    } spans[] = {{"sweep_s", e.sweep_s}, {"calibration_s", e.calibration_s}, {"job_s", e.job_s}};
    for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
        if (!(range = json_object_new_array()))
            continue;
        json_object_array_add(range, json_object_new_double(round(spans[i].s[0])));
        json_object_array_add(range, json_object_new_double(round(spans[i].s[1])));
        json_object_object_add(o, spans[i].name, range);
    }
    json_object_object_add(plan, "estimate", o);
    fprintf(stderr,
            "bench_nbc: %zu run(s) of %zu cells, %d to %d blocks a cell: about %.0f to %.0f s "
            "(sweep %.0f to %.0f s; with nbc-run, compute_ref adds about the passive step's "
            "time)\n",
            e.runs, e.cells_per_run, e.blocks_lo, e.blocks_hi, e.job_s[0], e.job_s[1], e.sweep_s[0],
            e.sweep_s[1]);
}

/* Pre-MPI_Init look at the configuration (read and loaded once, for the
 * whole job: job_config.c): the library identifies itself
 * (MPI_Get_library_version) and the deployment plan (deploy/plan.h) gives
 * the environment the library reads in MPI_Init and the thread level. 0; 2
 * with a message for bad input (a refused plan); the real validation of the
 * configuration comes after MPI_Init. */
static int configure_before_init(nbc_job *job)
{
    const nbc_cli *c = &job->cli;
    nbc_library_identify();
    int status = nbc_read_config(job);
    if (status != 0)
        snprintf(job->err, sizeof job->err, "%s", job->config_err);
    /* --plan checks the configuration as a run would, with what is known
     * before MPI_Init (the job's ranks are not). */
    if (status == 0 && c->plan) {
        int cpus[COMPUTE_MAX_CPUS];
        char why[256];
        int cores = compute_allowed_cpus(cpus, COMPUTE_MAX_CPUS, why, sizeof why);
        nbc_config_limits limits = nbc_config_limits_known(0, 0, cores > 0 ? cores : 0);
        status = nbc_check_config(&job->cfg, &limits, job->err, sizeof job->err) != 0 ? 2 : 0;
    }
    /* A configuration that cannot be read or loaded is reported after
     * MPI_Init, by every rank; --plan reports it here. */
    if (status == 0)
        status =
            nbc_deployment_plan_before_init(&job->dep, &job->cfg, job->err, sizeof job->err) != 0
                ? 2
                : 0;
    else if (!c->plan)
        status = 0;
    if (status == 0 && c->plan && job->dep.plan_json)
        add_estimate(job->dep.plan_json, &job->cfg, &job->dep.plan);
    return status;
}

/* bench_nbc --plan: the plan as JSON on stdout, without MPI_Init. */
static int print_plan(const nbc_deployment_state *dep, int status, const char *err)
{
    if (!dep->plan_json) {
        fprintf(stderr, "bench_nbc: %s\n", err);
        return status ? status : 1;
    }
    printf("%s\n", json_object_to_json_string_ext(dep->plan_json, JSON_C_TO_STRING_PRETTY));
    if (status)
        fprintf(stderr, "bench_nbc: %s\n", err);
    return status;
}

/* bench_nbc --version: without MPI_Init (MPI_Get_library_version may be
 * called before it) and without a run. */
static void print_version(void)
{
    cli_print_version(stdout, "bench_nbc");
    nbc_library_identify();
    compute_blas_info blas;
    compute_blas_get_info(&blas);
    printf("MPI library: %s %s\nBLAS: %s %s (%s)\n", nbc_library_profile()->display_name,
           nbc_library_version(), blas.name, blas.version, blas.library);
}

int nbc_parse_stage(nbc_job *job, int argc, char **argv)
{
    job->cli_status = parse_cli(argc, argv, &job->cli, job->err, sizeof job->err);
    if (job->cli_status == 0 && job->cli.version) {
        print_version();
        free(job->cli.sets);
        return CLI_EXIT_COMPLETE;
    }
    if (job->cli_status == 0 && !job->cli.help && !job->cli.list)
        job->plan_status = configure_before_init(job);
    if (job->cli_status == 0 && job->cli.plan) {
        int status = print_plan(&job->dep, job->plan_status, job->err);
        nbc_deployment_free(&job->dep);
        nbc_config_free(&job->cfg);
        free(job->config_text);
        free(job->cli.sets);
        return status;
    }
    return -1;
}

void nbc_print_help_or_list(const nbc_cli *c, int rank)
{
    if (rank != 0)
        return;
    if (c->help) {
        usage(stdout);
        cli_print_exit_statuses(stdout);
        printf("\n");
        nbc_config_print_help(stdout);
        printf("\n");
    }
    size_t n;
    const nbc_collective *colls = nbc_collectives(&n);
    printf("collectives (run.collective) and what the byte size means:\n");
    for (size_t i = 0; i < n; i++) {
        char why[256];
        bool checked =
            colls[i].synthetic || nbc_datacheck_supports(&colls[i], why, sizeof why) == 0;
        printf("  %-24s  %s%s\n", colls[i].name, colls[i].size_meaning,
               checked ? "" : " [no data check]");
    }
    /* Scenarios are selected the same way, so they follow in the same list. */
    colls = nbc_scenarios(&n);
    for (size_t i = 0; i < n; i++) {
        char parts[512];
        nbc_scenario_describe_parts(&colls[i], parts, sizeof parts);
        printf("  %-24s  %s [parts: %s]\n", colls[i].name, colls[i].size_meaning, parts);
    }
}
