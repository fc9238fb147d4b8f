/* bench_nbc: measures how an MPI library overlaps a nonblocking collective
 * with computation (the BenchNBC method, sections 4 and 5.1 of the paper).
 *
 *   mpiexec -n P bench_nbc -c configs/default.conf [--set section.key=value]...
 *   mpiexec -n P bench_nbc --resume RUN_DIR
 *   (--stop-after calibration: stop before the sweep, which --resume runs;
 *   --run-dir-file FILE: the run folder's path for the program launching it)
 *
 * Stages, each writing files the next reads (docs/formats.md):
 *   configuration -> clock sync -> computation calibration -> passive
 *   computation (MPI impact) -> communication calibration -> sweep -> end
 *   clock sync and raw records converted by interpolation.
 * Bad input of any kind exits 2 on every rank, before any measurement. */
#include "bench_nbc/datacheck.h"
#include "bench_nbc/driver.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

/* BENCH_NBC_FAULT=KIND:RANK:CELL (tests only) aims a fault at RANK in CELL:
 * `hang`, it hangs in the wait, as if a message were lost, so the watchdog
 * can be seen to work; `late`, it reports itself late at every window
 * barrier, so the retries run out. CELL when the fault is `kind` and aimed
 * at this rank, else -1. */
static int fault_cell(const char *kind, int rank)
{
    const char *fault = getenv("BENCH_NBC_FAULT");
    char fault_kind[16];
    int fault_rank, cell;
    if (fault && sscanf(fault, "%15[a-z]:%d:%d", fault_kind, &fault_rank, &cell) == 3 &&
        strcmp(fault_kind, kind) == 0 && fault_rank == rank)
        return cell;
    return -1;
}

static void on_stop_signal(int signo)
{
    (void)signo;
    stop_signal = 1;
}

typedef struct cli {
    const char *config_path;
    const char *resume_dir;
    const char *run_dir_file;
    bool stop_after_calibration;
    const char **sets;
    int set_count;
    bool help, list, plan;
    nbc_replay replay; /* --replay CELL RUN_DIR (replay.c) */
} cli;

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
                 "      --stop-after calibration  stop before the sweep, once clock sync,\n"
                 "                        calibrations and the passive step are written\n"
                 "                        (meta.json status calibrated, exit 0); --resume\n"
                 "                        RUN_DIR then runs the sweep\n"
                 "      --run-dir-file FILE  rank 0 writes the run folder's absolute path\n"
                 "                        into FILE (atomically) once the folder exists\n"
                 "  -l, --list            list the collectives and what their byte size means\n"
                 "  -p, --plan            print the deployment plan as JSON (environment, thread\n"
                 "                        level, progress thread, cores) without starting MPI\n"
                 "  -h, --help            this text and every configuration key\n"
                 "Writes a new folder under run.results_dir; see docs/formats.md.\n\n");
}

/* Returns 0, or 2 with a message in err. Every rank parses the same argv. */
static int parse_cli(int argc, char **argv, cli *c, char *err, size_t errlen)
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
        {NULL, 0, NULL, 0},
    };
    *c = (cli){0};
    c->sets = calloc((size_t)argc, sizeof *c->sets);
    if (!c->sets) {
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, ":c:s:r:lhp", longopts, NULL)) != -1) {
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
        case ':':
            snprintf(err, errlen, "option %s needs a value; see --help", argv[optind - 1]);
            return 2;
        default:
            snprintf(err, errlen,
                     "unknown option %s (allowed: --config, --set, --resume, --replay, "
                     "--stop-after, --run-dir-file, --list, --plan, --help)",
                     argv[optind - 1]);
            return 2;
        }
    }
    if (c->replay.cell_text) {
        int status = nbc_replay_cli(&c->replay, argc, argv, &optind,
                                    c->config_path || c->resume_dir, c->sets, c->set_count, err,
                                    errlen);
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

/* The configuration text every rank parses: the file (or the run folder's
 * config.ini) read by rank 0 and broadcast, so other nodes need no access. */
static int read_config_text(const cli *c, int rank, char **text, char *err, size_t errlen)
{
    char path[PATH_MAX];
    const char *source = c->config_path;
    if (c->resume_dir) {
        snprintf(path, sizeof path, "%s/config.ini", c->resume_dir);
        source = path;
    }
    long len = 0;
    int failed = 0;
    *text = NULL;
    if (rank == 0 && source) {
        failed = nbc_config_read_file(source, text, err, errlen) != 0;
        if (failed && c->resume_dir) {
            char why[512];
            snprintf(why, sizeof why, "%s", err);
            snprintf(err, errlen, "--resume: %s is not a run folder of bench_nbc (%s)",
                     c->resume_dir, why);
        }
        len = failed ? -1 : (long)strlen(*text);
    }
    if (MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    if (len < 0)
        return -1;
    if (rank != 0 && source) {
        *text = malloc((size_t)len + 1);
        failed = *text == NULL;
    }
    int any_failed;
    if (MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS ||
        any_failed) {
        snprintf(err, errlen, "out of memory for the configuration text");
        return -1;
    }
    if (source && MPI_Bcast(*text, (int)len + 1, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    return 0;
}

/* Pre-MPI_Init look at the configuration (file readable here, --set): the
 * library identifies itself (MPI_Get_library_version) and the deployment
 * plan (deploy/plan.h) gives the environment the library reads in MPI_Init
 * and the thread level. 0; 2 with a message for bad input (a refused plan);
 * the real validation of the configuration comes after MPI_Init. */
static int configure_before_init(const cli *c, nbc_deployment_state *dep, char *err, size_t errlen)
{
    nbc_config cfg;
    char *text = NULL;
    nbc_library_identify();
    if (nbc_config_init(&cfg, err, errlen) != 0)
        return 2;
    const char *path = c->config_path;
    char resume_path[PATH_MAX];
    if (c->resume_dir) {
        snprintf(resume_path, sizeof resume_path, "%s/config.ini", c->resume_dir);
        path = resume_path;
    }
    int status = path && nbc_config_read_file(path, &text, err, errlen) != 0 ? 2 : 0;
    if (status == 0 && text)
        status = nbc_config_parse_text(&cfg, text, path, err, errlen) != 0 ? 2 : 0;
    for (int i = 0; status == 0 && i < c->set_count; i++)
        status = nbc_config_set(&cfg, c->sets[i], err, errlen) != 0 ? 2 : 0;
    free(text);
    /* A file that cannot be read is reported after MPI_Init, by every rank;
     * --plan reports it here. */
    if (status == 0)
        status = nbc_deployment_plan_before_init(dep, &cfg, err, errlen) != 0 ? 2 : 0;
    else if (!c->plan)
        status = 0;
    nbc_config_free(&cfg);
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

/* Cells whose targets calibration could not reach are not measured: said
 * once, on rank 0, when calibration ends. Returns how many. */
static size_t report_unreachable(const nbc_run *run, const nbc_sweep_plan *plan, bool calibrated)
{
    size_t cells = plan->comm_count * plan->comp_count, unreachable = 0;
    for (size_t c = 0; calibrated && c < cells; c++)
        unreachable += !nbc_cell_reachable(plan, c);
    if (unreachable && run->rank == 0) {
        fprintf(stderr,
                "bench_nbc: %zu of %zu cells not measured, calibration did not reach:", unreachable,
                cells);
        for (size_t i = 0; plan->sizable && i < plan->comm_count; i++)
            if (!plan->comm[i].converged || plan->comm[i].bytes == 0)
                fprintf(stderr, " comm %.3g ms (closest %.3g ms at %zu B);",
                        plan->comm[i].target_s * 1e3, plan->comm[i].t_s * 1e3,
                        plan->comm[i].bytes_closest);
        for (size_t j = 0; j < plan->comp_count; j++)
            if (!plan->comp[j].converged)
                fprintf(stderr, " comp %.3g ms (closest %.3g ms at n=%zu);",
                        plan->comp[j].target_s * 1e3, plan->comp[j].t_s * 1e3,
                        plan->comp[j].matrix_n);
        fprintf(stderr, "\n");
    }
    return unreachable;
}

/* The lateness tolerance is floored at the barrier precision measured here:
 * on a busy node that floor can exceed the share of the shortest references
 * the rule asks for, and the cells concerned then accept more lateness (their
 * tolerance_ns in raw.csv says how much). Said once, on rank 0. */
static void warn_loose_barrier(const nbc_run *run, const nbc_comm_calibration *comm,
                               const compute_calib_result *comp)
{
    const nbc_config *cfg = run->cfg;
    double shortest_s = INFINITY;
    for (size_t i = 0; i < cfg->grid.comm_count; i++)
        shortest_s = fmin(shortest_s, comm[i].t_s > 0 ? comm[i].t_s : INFINITY);
    for (size_t j = 0; j < cfg->grid.comp_count; j++)
        shortest_s = fmin(shortest_s, comp[j].t_s > 0 ? comp[j].t_s : INFINITY);
    double share_ns = cfg->run.late_tolerance * shortest_s * 1e9;
    if (run->rank == 0 && isfinite(share_ns) && (double)run->barrier_precision_ns > share_ns)
        fprintf(stderr,
                "bench_nbc: warning: the window barrier's precision here (%.1f us, 90th "
                "percentile) exceeds run.late_tolerance x the shortest reference (%.1f us): "
                "cells that short tolerate up to %.1f us of lateness (raw.csv tolerance_ns); "
                "is the node busy?\n",
                (double)run->barrier_precision_ns * 1e-3, share_ns * 1e-3,
                (double)run->barrier_precision_ns * 1e-3);
}

/* Collective: meta.json's record of the deployment (docs/formats.md):
 * rank 0's plan, every rank's verdict on the binding and its tracked
 * threads; NULL except on rank 0. */
static json_object *deployment_json(nbc_run *run, const nbc_deployment_state *dep)
{
    json_object *ranks = nbc_meta_gather_json(run, nbc_deployment_rank_json(dep, run->rank));
    if (run->rank != 0)
        return NULL;
    json_object *o = json_object_new_object();
    const char *binding = "not required";
    for (size_t r = 0; r < json_object_array_length(ranks); r++) {
        json_object *one = json_object_array_get_idx(ranks, r), *b;
        if (one && json_object_object_get_ex(one, "binding", &b) &&
            strcmp(json_object_get_string(b), "not required") != 0 &&
            strcmp(binding, "unconfirmed") != 0)
            binding =
                strcmp(json_object_get_string(b), "confirmed") == 0 ? "confirmed" : "unconfirmed";
    }
    json_object_object_add(o, "deployment_plan", json_object_get(dep->plan_json));
    json_object_object_add(o, "progress_binding", json_object_new_string(binding));
    json_object_object_add(o, "deployment_threads", ranks);
    return o;
}

/* Collective: the thread list of every rank into meta.json's `key`
 * ("threads_start", "threads_end"; docs/formats.md). */
static void record_threads(nbc_run *run, meta_info *meta, const char *host, const char *key)
{
    json_object *all =
        nbc_meta_gather_json(run, nbc_threads_rank_json(run->threads, run->rank, host));
    if (run->rank == 0)
        json_object_object_add(meta->thread_record, key, all);
}

/* Cells whose every block was kept: measured now and not stopped late, or
 * kept by an earlier session of a resumed run. */
static int cells_kept(const nbc_sweep_record *record, const bool *done_before)
{
    int kept = 0;
    for (size_t c = 0; c < record->cells; c++) {
        const nbc_attempt_log *log = &record->logs[c];
        kept += done_before[c] ||
                (record->measured[c] && log->count > 0 && !log->items[log->count - 1].late);
    }
    return kept;
}

/* meta.json's record of how the sweep measured (docs/formats.md). */
static json_object *measurement_json(const nbc_run *run, unsigned seed,
                                     const nbc_sweep_record *record, size_t unreachable,
                                     double clock_read_ns)
{
    json_object *o = json_object_new_object(), *order = json_object_new_array();
    for (size_t i = 0; order && i < record->order_count; i++)
        json_object_array_add(order, json_object_new_int64((int64_t)record->order[i]));
    json_object_object_add(o, "late_tolerance",
                           json_object_new_double(run->cfg->run.late_tolerance));
    json_object_object_add(o, "barrier_precision_ns",
                           json_object_new_int64(run->barrier_precision_ns));
    json_object_object_add(o, "max_retries", json_object_new_int(run->max_retries));
    json_object_object_add(o, "sweep_seed", json_object_new_int64(seed));
    json_object_object_add(o, "cell_order", order);
    json_object_object_add(o, "warmup_blocks", json_object_new_int(1));
    json_object_object_add(o, "cells_unreachable", json_object_new_int64((int64_t)unreachable));
    json_object_object_add(o, "clock_source", json_object_new_string(clocksync_clock_source()));
    json_object_object_add(o, "clock_read_ns", json_object_new_double(clock_read_ns));
    return o;
}

int main(int argc, char **argv)
{
    char err[1024] = "";
    cli c;
    int cli_status = parse_cli(argc, argv, &c, err, sizeof err);
    int provided;
    static nbc_deployment_state dep; /* large: the plan's CPU lists */
    int plan_status = 0;
    if (cli_status == 0 && !c.help && !c.list)
        plan_status = configure_before_init(&c, &dep, err, sizeof err);
    if (cli_status == 0 && c.plan) {
        int status = print_plan(&dep, plan_status, err);
        nbc_deployment_free(&dep);
        free(c.sets);
        return status;
    }
    if (plan_status == 0 && dep.planned && nbc_deployment_apply_env(&dep, argv) != 0)
        return 1;
    const char *note = nbc_library_note(); /* printed by rank 0 once MPI runs */
    /* The BLAS check counts every thread of the process: it measures before
     * MPI starts its own (MPICH's progress thread), and the call after
     * MPI_Init reports this result. */
    char blas_message[2048];
    (void)compute_blas_check(blas_message, sizeof blas_message);
    nbc_deployment_before_init_threads(&dep);
    /* Threads here before MPI_Init are not the library's (threadlog.c). */
    nbc_threads *threads_log = nbc_threads_create();
    if (MPI_Init_thread(&argc, &argv, nbc_deployment_thread_level(&dep), &provided) !=
        MPI_SUCCESS) {
        fprintf(stderr, "bench_nbc: MPI_Init_thread failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, ranks;
    NBC_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    NBC_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
    nbc_deployment_after_init_threads(&dep);
    nbc_exit_if_any_failed(cli_status != 0 || plan_status != 0, err, 2);
    if (note && rank == 0)
        fprintf(stderr, "bench_nbc: %s\n", note);
    if (c.help || c.list) {
        if (rank == 0) {
            if (c.help) {
                usage(stdout);
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
        }
        nbc_threads_free(threads_log);
        free(c.sets);
        MPI_Finalize();
        return 0;
    }

    /* ---- configuration, validated before anything is measured ---- */
    nbc_config cfg;
    char *text = NULL;
    bool bad = nbc_config_init(&cfg, err, sizeof err) != 0 ||
               read_config_text(&c, rank, &text, err, sizeof err) != 0;
    const char *origin = c.resume_dir ? "config.ini of the resumed run" : c.config_path;
    if (!bad && text)
        bad = nbc_config_parse_text(&cfg, text, origin, err, sizeof err) != 0;
    for (int i = 0; !bad && i < c.set_count; i++)
        bad = nbc_config_set(&cfg, c.sets[i], err, sizeof err) != 0;
    free(text);
    /* Parsing is deterministic, but a rank may still fail alone (memory). */
    nbc_exit_if_any_failed(bad, err, 2);

    /* Only a computation that needs no CPU, beside ranks that yield it while
     * they wait, can share cores without measuring the sharing. */
    placement place = {
        .may_share_cores = cfg.compute.kernel == COMPUTE_KERNEL_SLEEP &&
                           !nbc_library_profile()->busy_polls &&
                           strcmp(nbc_library_profile()->name, MPIPROFILE_GENERIC) != 0,
    };
    nbc_exit_if_any_failed(nbc_place_rank(&place, err, sizeof err) != 0, err, 2);
    size_t n_names, n_profiles, n_datatypes;
    const char *const *names = nbc_collective_names(&n_names);
    const char *const *datatypes = nbc_collective_datatype_names(&n_datatypes);
    const char *const *profiles = nbc_library_profile_names(&n_profiles);
    nbc_config_limits limits = {
        .collectives = names,
        .collective_count = n_names,
        .mpi_profiles = profiles,
        .mpi_profile_count = n_profiles,
        .available_cores = place.cpu_count,
        .available_memory_bytes = compute_available_memory_bytes() / (uint64_t)place.local_ranks,
        .datatypes = datatypes,
        .datatype_count = n_datatypes,
        .buffer_bytes = nbc_config_buffer_bytes,
        .ranks = ranks,
        .local_ranks = place.local_ranks,
    };
    bad = nbc_config_validate(&cfg, &limits, err, sizeof err) != 0;
    /* run.mpi against the library; the deployment, for this rank's cores. */
    bad = bad || nbc_library_check(&cfg, err, sizeof err) != 0;
    bad = bad || nbc_deployment_plan_rank(&dep, &cfg, &place, err, sizeof err) != 0;
    /* The level the deployment needs, not only the one asked for: a library
     * may provide less (deploy_check_thread_level). */
    bad = bad || deploy_check_thread_level(&dep.plan, nbc_deployment_level_of(provided), err,
                                           sizeof err) != 0;
    nbc_exit_if_any_failed(bad, err, 2);
    if (c.replay.cell_text)
        nbc_replay_check(&c.replay, &cfg, rank, ranks);
    nbc_exit_if_any_failed(threads_log == NULL, "out of memory for the thread record", 1);
    const deploy_plan *deploy = &dep.plan;
    int threads = deploy->compute_count;
    /* Every thread MPI_Init created goes where the plan says; dedicated's
     * binding is confirmed before anything is measured. */
    bad = nbc_deployment_bind_library_threads(&dep, err, sizeof err) != 0;
    nbc_exit_if_any_failed(bad, err, 2);
    if (strcmp(dep.binding, "unconfirmed") == 0)
        fprintf(stderr, "bench_nbc: rank %d: warning: %s; the run is marked unconfirmed\n", rank,
                err);

    /* The seed of the sweep's orders: chosen once, written into config.ini
     * so a resumed or repeated run can use it again. */
    unsigned seed = (unsigned)cfg.run.seed;
    if (seed == 0 && rank == 0)
        seed = 1 + (unsigned)(time(NULL) % 2147483646);
    NBC_CHECK_MPI(MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD));
    char seed_assignment[64];
    snprintf(seed_assignment, sizeof seed_assignment, "run.seed=%u", seed);
    nbc_exit_if_any_failed(nbc_config_set(&cfg, seed_assignment, err, sizeof err) != 0, err, 2);

    const nbc_collective *coll = nbc_collective_find(cfg.run.collective);
    nbc_exit_if_any_failed(compute_blas_check(err, sizeof err) != 0, err, 2);
    nbc_exit_if_any_failed(cfg.run.check && nbc_datacheck_supports(coll, err, sizeof err) != 0, err,
                           2);
    coll_options coll_opts = nbc_coll_options(&cfg);
    nbc_exit_if_any_failed(
        nbc_collective_check_options(coll, &coll_opts, ranks, err, sizeof err) != 0, err, 2);

    compute_options copt = {
        .threads = threads,
        .cpu_ids = deploy->compute_cpus,
        .kernel = cfg.compute.kernel,
        .sleep_scale = 1.0 + rank / 10.0, /* rank k works (1 + k/10) T, like the synthetic rows */
    };
    compute_team *team = compute_team_create(&copt, err, sizeof err);
    nbc_exit_if_any_failed(team == NULL, err, 2);
    int free_cpu = threads < place.cpu_count ? place.cpus[threads] : -1;

    nbc_run run = {
        .comm = MPI_COMM_WORLD,
        .rank = rank,
        .ranks = ranks,
        .cfg = &cfg,
        .coll = coll,
        .team = team,
        .progress = deploy->progress_mode,
        .test_chunks = deploy->test_chunks,
        .stop_signal = &stop_signal,
        .max_retries = cfg.run.max_retries,
        .check = cfg.run.check,
        .coll_options = coll_opts,
        .threads = threads_log,
    };
    /* Degenerate placements are refused before anything is measured. */
    nbc_threads_check_placement(&run, place.host, place.may_share_cores);
    if (deploy->progress_thread == DEPLOY_PROGRESS_SUITE) {
        /* Oversubscribed, it inherits the compute team's first core. */
        int cpu = deploy->oversubscribed ? -1 : deploy->progress_cpus[0];
        run.progress_thread = progress_thread_start(MPI_COMM_WORLD, cpu, err, sizeof err);
        nbc_exit_if_any_failed(run.progress_thread == NULL, err, 2);
        nbc_deployment_track_suite_thread(&dep, progress_thread_tid(run.progress_thread));
    }

    /* ---- the run folder ---- */
    if (rank == 0)
        run.out = c.resume_dir
                      ? run_output_open(c.resume_dir, err, sizeof err)
                      : run_output_create(cfg.run.results_dir, nbc_compiled_mpi(), coll->name,
                                          nbc_deployment_name(cfg.run.deployment), err, sizeof err);
    nbc_exit_if_any_failed(rank == 0 && run.out == NULL, err, 2);

    meta_info meta = {.status = "running", .threads = threads};
    meta.deployment = deployment_json(&run, &dep);
    meta.thread_record = rank == 0 ? json_object_new_object() : NULL;
    if (rank == 0) {
        json_object_object_add(
            meta.thread_record, "mpi_thread_level_required",
            json_object_new_string(deploy_thread_level_name(deploy->thread_level)));
    }
    nbc_iso_time_now(meta.start_time, sizeof meta.start_time);
    int len;
    NBC_CHECK_MPI(MPI_Get_library_version(meta.library_version, &len));
    NBC_CHECK_MPI(MPI_Get_version(&meta.mpi_version, &meta.mpi_subversion));
    meta.thread_level = provided;
    {
        char *hosts = rank == 0 ? malloc((size_t)ranks * 256) : NULL;
        char cpus[COMPUTE_MAX_CPUS * 6] = "";
        for (int t = 0; t < threads; t++)
            snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), "%s%d", t ? "," : "",
                     compute_team_cpu(team, t));
        if (free_cpu >= 0)
            snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), " free:%d", free_cpu);
        char *all_cpus = rank == 0 ? malloc((size_t)ranks * 256) : NULL;
        char mine_cpus[256];
        snprintf(mine_cpus, sizeof mine_cpus, "%s", cpus);
        NBC_CHECK_MPI(
            MPI_Gather(place.host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD));
        NBC_CHECK_MPI(
            MPI_Gather(mine_cpus, 256, MPI_CHAR, all_cpus, 256, MPI_CHAR, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            meta.hosts = json_object_new_array();
            meta.binding = json_object_new_array();
            for (int r = 0; r < ranks; r++) {
                bool seen = false;
                for (int q = 0; q < r; q++)
                    seen |= strcmp(hosts + 256 * q, hosts + 256 * r) == 0;
                meta.nodes += !seen;
                json_object_array_add(meta.hosts, json_object_new_string(hosts + 256 * r));
                json_object_array_add(meta.binding, json_object_new_string(all_cpus + 256 * r));
            }
        }
        free(hosts);
        free(all_cpus);
    }
    nbc_record_system(&run, &meta); /* provenance.json, MPI_T: before meta.json names them */
    if (c.replay.cell_text)
        nbc_replay_seed(&c.replay, &run, &meta);
    size_t cells = cfg.grid.comm_count * cfg.grid.comp_count;
    meta.cells_total = (int)cells;
    if (rank == 0) {
        char *ini = NULL;
        size_t ini_len = 0;
        FILE *mem = open_memstream(&ini, &ini_len);
        bool ok = mem && nbc_config_dump_ini(&cfg, mem) == 0;
        if (mem)
            ok &= fclose(mem) == 0;
        ok = ok && (c.resume_dir || run_output_write_atomic(run.out, "config.ini", ini) == 0);
        ok = ok && nbc_meta_write(&run, &meta) == 0;
        free(ini);
        if (!ok)
            snprintf(err, sizeof err, "cannot write the run folder %s", run_output_dir(run.out));
        bad = !ok;
        printf("bench_nbc: run folder %s\n", run_output_dir(run.out));
        fflush(stdout);
        if (ok && c.run_dir_file)
            bad = run_output_publish_dir(run.out, c.run_dir_file, err, sizeof err) != 0;
    }
    nbc_exit_if_any_failed(bad, err, 1);

    watchdog_record fire_record = {.run = &run, .meta = &meta};
    nbc_threads_note_existing(threads_log); /* the watchdog is the thread that appears next */
    run.watchdog = watchdog_start(rank, cfg.watchdog.factor, cfg.watchdog.floor_s,
                                  nbc_meta_record_watchdog, &fire_record, err, sizeof err);
    nbc_exit_if_any_failed(run.watchdog == NULL, err, 1);
    /* Every thread of the rank runs now: the list of the start. */
    nbc_threads_register(threads_log, team, progress_thread_tid(run.progress_thread),
                         nbc_threads_newest(threads_log));
    record_threads(&run, &meta, place.host, "threads_start");
    if (rank == 0)
        nbc_meta_write(&run, &meta);
    run.fault_hang_cell = fault_cell("hang", rank);
    run.fault_late_cell = fault_cell("late", rank);

    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    /* ---- clocks ---- */
    clocksync_options sopt = {
        .method = cfg.clocksync.method,
        .roundtrips = cfg.clocksync.roundtrips,
        .drift_gap_s = cfg.clocksync.drift_gap_s,
        .barrier_margin_s = cfg.clocksync.barrier_margin_us * 1e-6,
    };
    NBC_CHECK_MPI(clocksync_create(&run.sync, MPI_COMM_WORLD, &sopt, NULL));
    double clock_read_ns = clocksync_clock_read_ns(clocksync_get_clock(run.sync));
    watchdog_context(run.watchdog, "the start of the run");
    watchdog_arm(run.watchdog, 0);
    watchdog_phase(run.watchdog, PHASE_CALIBRATION);
    NBC_CHECK_MPI(clocksync_calibrate(run.sync));
    watchdog_disarm(run.watchdog);
    run.epoch_global_ns = clocksync_now_global_ns(run.sync);
    NBC_CHECK_MPI(MPI_Bcast(&run.epoch_global_ns, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
    int64_t calibration_start_ns = clocksync_now_local_ns(run.sync);

    /* ---- sizes (calibration decisions use the extrapolated global time;
     * the window barrier corrects itself) ---- */
    nbc_resume prior;
    nbc_load_prior(&run, c.replay.cell_text && run.out ? run_output_dir(run.out) : c.resume_dir,
                   &prior);
    compute_calib_result *comp = prior.comp;
    nbc_comm_calibration *comm = prior.comm;
    /* A stop signal during calibration keeps the sizes found so far. */
    bool calibrated = nbc_calibrate_computation(&run, comp, prior.comp_done);
    if (calibrated && !prior.passive_done)
        nbc_measure_passive(&run, &place, comp, cfg.grid.comp_count, "before");
    if (calibrated)
        NBC_CHECK_MPI(clocksync_prepare_realtime(run.sync));
    calibrated = calibrated && nbc_calibrate_communication(&run, comm, prior.comm_done);
    if (calibrated) {
        NBC_CHECK_MPI(nbc_measure_barrier_precision(&run, 100, &run.barrier_precision_ns));
        warn_loose_barrier(&run, comm, comp);
    }
    run.next_seq = prior.next_seq;
    meta.calibration_s = (double)(clocksync_now_local_ns(run.sync) - calibration_start_ns) * 1e-9;

    /* ---- the sweep ---- */
    nbc_sweep_plan plan = {
        .comm = comm,
        .comm_count = cfg.grid.comm_count,
        .comp = comp,
        .comp_count = cfg.grid.comp_count,
        .cell_done = c.replay.cell_text ? c.replay.mask : prior.cell_done,
        .seed = seed,
        .sizable = coll->sizable,
    };
    size_t unreachable = report_unreachable(&run, &plan, calibrated);
    /* --stop-after calibration: no sweep and no end stages; --resume runs them. */
    bool stopped = calibrated && c.stop_after_calibration;
    nbc_sweep_record record;
    nbc_exit_if_any_failed(nbc_sweep_record_init(&record, cells) != 0,
                           "out of memory for the sweep's records", 1);
    long raw_keep_bytes = prior.raw_keep_bytes;
    bool interrupted = !calibrated;
    int64_t sweep_start_ns = clocksync_now_local_ns(run.sync);
    nbc_deployment_sweep_mark(&dep, false);
    /* sched.csv: the scheduler's counters over every attempt of the sweep */
    if (nbc_threads_start_recording(threads_log, err, sizeof err) != 0)
        fprintf(stderr, "bench_nbc: rank %d: warning: no sched.csv rows: %s\n", rank, err);
    int rc = calibrated && !stopped ? nbc_sweep(&run, &plan, &record, &interrupted) : MPI_SUCCESS;
    nbc_threads_stop_recording(threads_log);
    nbc_deployment_sweep_mark(&dep, true);
    meta.sweep_s = (double)(clocksync_now_local_ns(run.sync) - sweep_start_ns) * 1e-9;
    for (size_t cell = 0; cell < cells; cell++)
        meta.cells_done += record.measured[cell] || prior.cell_done[cell];
    if (rank == 0)
        meta.measurement = measurement_json(&run, seed, &record, unreachable, clock_read_ns);

    /* ---- end calibration: raw records converted by interpolation ---- */
    watchdog_context(run.watchdog, "the end of the run");
    watchdog_arm(run.watchdog, 0);
    watchdog_phase(run.watchdog, PHASE_CALIBRATION);
    if (rc == MPI_SUCCESS && !stopped)
        rc = clocksync_calibrate(run.sync);
    watchdog_disarm(run.watchdog);
    if (rc == MPI_SUCCESS && !stopped)
        rc = nbc_sweep_rewrite_raw(&run, &plan, &record, raw_keep_bytes);
    /* The passive step again, so drift over the sweep shows in equation 2;
     * after raw.csv is rewritten and synced, so no write-back of the
     * sweep's records competes with it (rank 0 computed ~10 % slower
     * before that). */
    if (rc == MPI_SUCCESS && !interrupted && !stopped)
        nbc_measure_passive(&run, &place, comp, cfg.grid.comp_count, "after");
    meta.clocksync = rc == MPI_SUCCESS ? nbc_meta_clocksync_json(&run) : NULL;
    if (rc == MPI_SUCCESS) {
        json_object_put(meta.deployment);
        meta.deployment = deployment_json(&run, &dep);
        /* Threads that appeared during the run show in the list of the end. */
        record_threads(&run, &meta, place.host, "threads_end");
        json_object *cost = nbc_meta_gather_json(&run, nbc_threads_cost_json(threads_log));
        if (rank == 0)
            json_object_object_add(meta.thread_record, "sched_snapshot", cost);
    }
    int kept = cells_kept(&record, prior.cell_done);
    if (rank == 0)
        json_object_object_add(meta.thread_record, "cells_kept", json_object_new_int(kept));
    meta.status = rc != MPI_SUCCESS ? "failed"
                  : interrupted     ? "interrupted"
                  : stopped         ? "calibrated"
                                    : "complete";
    nbc_iso_time_now(meta.end_time, sizeof meta.end_time);
    if (rank == 0) {
        nbc_meta_write(&run, &meta);
        fprintf(stderr, "bench_nbc: %s: %d of %d cells in %s (calibration %.1f s, sweep %.1f s)\n",
                meta.status, meta.cells_done, meta.cells_total, run_output_dir(run.out),
                meta.calibration_s, meta.sweep_s);
    }
    /* 3 tells a batch script the run was cut short but kept its cells; 5
     * that it ended with nothing to analyse. */
    int status = rc != MPI_SUCCESS ? 1 : interrupted ? 3 : stopped ? 0 : kept == 0 ? 5 : 0;
    if (status == 5 && rank == 0)
        fprintf(stderr,
                "bench_nbc: no cell was measured whole: %zu of %zu cells unreachable (calibration "
                "did not reach their targets), the other %zu stopped late (every retry of an "
                "attempt left the window barrier late; raw.csv); exit status 5\n",
                unreachable, cells, cells - unreachable);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "bench_nbc: rank %d: the run failed (MPI error %d)\n", rank, rc);

    json_object_put(meta.hosts);
    json_object_put(meta.binding);
    json_object_put(meta.clocksync);
    json_object_put(meta.measurement);
    json_object_put(meta.deployment);
    json_object_put(meta.system);
    nbc_mpit_free(run.mpit);
    json_object_put(meta.thread_record);
    nbc_threads_free(threads_log);
    nbc_deployment_free(&dep);
    nbc_sweep_record_free(&record);
    nbc_resume_free(&prior);
    if (progress_thread_stop(run.progress_thread) != MPI_SUCCESS)
        status = 1;
    if (watchdog_stop(run.watchdog) != 0)
        status = 1;
    clocksync_free(run.sync);
    compute_team_destroy(team);
    run_output_close(run.out);
    nbc_config_free(&cfg);
    nbc_replay_free(&c.replay);
    free(c.sets);
    /* Rank 0 reaches this last (it writes the files); MPICH 4.0 over TCP
     * can hang in MPI_Finalize when one rank enters it long after the
     * others, so they enter it together. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
