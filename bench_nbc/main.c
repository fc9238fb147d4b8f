/* bench_nbc: measures how an MPI library overlaps a nonblocking collective
 * with computation (the BenchNBC method, sections 4 and 5.1 of the paper).
 *
 *   mpiexec -n P bench_nbc -c configs/default.conf [--set section.key=value]...
 *   mpiexec -n P bench_nbc --resume RUN_DIR
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

#ifndef BENCH_NBC_REVISION
#define BENCH_NBC_REVISION "unknown"
#endif

#if defined(MPICH_VERSION)
static const char compiled_mpi[] = "mpich";
#elif defined(OMPI_MAJOR_VERSION)
static const char compiled_mpi[] = "openmpi";
#else
static const char compiled_mpi[] = "unknown";
#endif

static const char *const mpi_profiles[] = {"mpich", "openmpi"};

/* Environment variables that change how MPI, OpenMP or BLAS progress and
 * place threads: recorded in meta.json. */
static const char *const recorded_env_prefixes[] = {
    "MPICH_", "MPIR_CVAR_", "OMPI_MCA_", "UCX_",      "OMP_", "OPENBLAS_",
    "GOMP_",  "HYDRA_",     "PMI_",      "SLURM_JOB", "FI_",  "HWLOC_",
};

static volatile sig_atomic_t stop_signal;

/* BENCH_NBC_FAULT=hang:RANK:CELL (tests only): RANK hangs in the wait of
 * CELL, as if a message were lost, so the watchdog can be seen to work. */
static int fault_hang_cell(int rank)
{
    const char *fault = getenv("BENCH_NBC_FAULT");
    int fault_rank, cell;
    if (fault && sscanf(fault, "hang:%d:%d", &fault_rank, &cell) == 2 && fault_rank == rank)
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
    const char **sets;
    int set_count;
    bool help, list;
} cli;

static void usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n P bench_nbc [-c FILE] [--set section.key=value]...\n"
                 "       mpiexec -n P bench_nbc --resume RUN_DIR\n"
                 "  -c, --config FILE     configuration (INI); defaults apply to keys it omits\n"
                 "  -s, --set KEY=VALUE   override one key, e.g. --set grid.comm_times=1ms,8ms,2\n"
                 "  -r, --resume RUN_DIR  continue an interrupted run in its folder\n"
                 "  -l, --list            list the collectives and what their byte size means\n"
                 "  -h, --help            this text and every configuration key\n"
                 "Writes a new folder under run.results_dir; see docs/formats.md.\n\n");
}

/* Returns 0, or 2 with a message in err. Every rank parses the same argv. */
static int parse_cli(int argc, char **argv, cli *c, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"resume", required_argument, NULL, 'r'}, {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
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
    while ((opt = getopt_long(argc, argv, ":c:s:r:lh", longopts, NULL)) != -1) {
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
        case 'h':
            c->help = true;
            break;
        case ':':
            snprintf(err, errlen, "option %s needs a value; see --help", argv[optind - 1]);
            return 2;
        default:
            snprintf(err, errlen,
                     "unknown option %s (allowed: --config, --set, --resume, "
                     "--list, --help)",
                     argv[optind - 1]);
            return 2;
        }
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

/* Pre-MPI_Init look at the configuration (file readable here, --set): only
 * to choose the thread level and the library's progress environment, which
 * must be set before MPI_Init. The real validation comes after. */
static void configure_before_init(const cli *c, int *thread_level, const char **note)
{
    nbc_config cfg;
    char err[512], *text = NULL;
    *thread_level = MPI_THREAD_FUNNELED;
    if (nbc_config_init(&cfg, err, sizeof err) != 0)
        return;
    const char *path = c->config_path;
    char resume_path[PATH_MAX];
    if (c->resume_dir) {
        snprintf(resume_path, sizeof resume_path, "%s/config.ini", c->resume_dir);
        path = resume_path;
    }
    bool ok = true;
    if (path && nbc_config_read_file(path, &text, err, sizeof err) == 0)
        ok = nbc_config_parse_text(&cfg, text, path, err, sizeof err) == 0;
    for (int i = 0; ok && i < c->set_count; i++)
        ok = nbc_config_set(&cfg, c->sets[i], err, sizeof err) == 0;
    free(text);
    if (ok) {
        bool async = cfg.run.deployment == NBC_DEPLOYMENT_PROGRESS ||
                     (cfg.run.deployment == NBC_DEPLOYMENT_DEDICATED &&
                      cfg.progress.mode == NBC_PROGRESS_NONE && strcmp(compiled_mpi, "mpich") == 0);
        /* MPICH's asynchronous progress thread (the paper's "progress"
         * deployment); a value the user set explicitly is kept, and checked. */
        if (async && strcmp(compiled_mpi, "mpich") == 0)
            setenv("MPICH_ASYNC_PROGRESS", "1", 0);
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
        /* MPICH before 4.1 delivers wrong data from the second start of
         * MPI_Allgather_init on power-of-two rank counts (pmodels/mpich
         * issue 6423, fixed by PR 6425); its ring algorithm is right. The
         * setting is recorded with the environment in meta.json. */
        if (strcmp(cfg.run.collective, "allgather_init") == 0 &&
            setenv("MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM", "sched_ring", 0) == 0)
            *note = "MPICH < 4.1: allgather_init uses MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM="
                    "sched_ring (wrong data otherwise, MPICH issue 6423)";
#endif
        if (cfg.progress.mode == NBC_PROGRESS_THREAD ||
            (cfg.run.deployment == NBC_DEPLOYMENT_DEDICATED && strcmp(compiled_mpi, "mpich") != 0))
            *thread_level = MPI_THREAD_MULTIPLE;
    }
    nbc_config_free(&cfg);
}

/* ---- placement ---------------------------------------------------------- */

typedef struct placement {
    int cpus[COMPUTE_MAX_CPUS]; /* this rank's cores */
    int cpu_count;
    int local_rank, local_ranks;
    char host[256];
    bool split; /* the ranks of this host shared one CPU set and were given slices */
} placement;

/* This rank's cores: its allowed CPU set, or its slice of it when the ranks
 * of a host were all given the same set (no binding by the launcher), so
 * ranks x threads never exceeds the cores (MPICH busy-polls). */
static int place_rank(placement *p, char *err, size_t errlen)
{
    if (gethostname(p->host, sizeof p->host - 1) != 0)
        snprintf(p->host, sizeof p->host, "unknown");
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Comm_split_type failed");
        return -1;
    }
    int rc = MPI_Comm_rank(node, &p->local_rank) | MPI_Comm_size(node, &p->local_ranks);
    int count = compute_allowed_cpus(p->cpus, COMPUTE_MAX_CPUS, err, errlen);
    /* A signature of the set: equal sets give equal signatures everywhere. */
    long long sig[2] = {count, 0}, lo[2], hi[2];
    for (int i = 0; i < count; i++)
        sig[1] = sig[1] * 1000003LL + p->cpus[i] + 1;
    rc |= MPI_Allreduce(sig, lo, 2, MPI_LONG_LONG, MPI_MIN, node);
    rc |= MPI_Allreduce(sig, hi, 2, MPI_LONG_LONG, MPI_MAX, node);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI failed while placing ranks");
        return -1;
    }
    if (count < 0)
        return -1;
    p->cpu_count = count;
    if (p->local_ranks > 1 && lo[0] == hi[0] && lo[1] == hi[1]) {
        int per_rank = count / p->local_ranks;
        if (per_rank < 1) {
            snprintf(err, errlen,
                     "%d ranks on host %s share %d cores: at most one rank per core (MPI "
                     "libraries that busy-poll slow down by orders of magnitude otherwise)",
                     p->local_ranks, p->host, count);
            return -1;
        }
        memmove(p->cpus, p->cpus + p->local_rank * per_rank, (size_t)per_rank * sizeof(int));
        p->cpu_count = per_rank;
        p->split = true;
    }
    return 0;
}

/* ---- meta.json ------------------------------------------------------------ */

static void iso_time(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, size, "unknown");
}

typedef struct meta_info {
    const char *status;
    char start_time[32], end_time[32];
    char library_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int mpi_version, mpi_subversion, thread_level;
    json_object *hosts;     /* per rank */
    json_object *binding;   /* per rank: cpu list */
    json_object *clocksync; /* filled at the end */
    int nodes, threads;
    int cells_total, cells_done;
    double calibration_s, sweep_s;
    const char *failure; /* why the run failed, when it did */
} meta_info;

static json_object *environment_json(void)
{
    extern char **environ;
    json_object *env = json_object_new_object();
    for (char **e = environ; env && *e; e++) {
        for (size_t i = 0; i < sizeof recorded_env_prefixes / sizeof *recorded_env_prefixes; i++) {
            size_t n = strlen(recorded_env_prefixes[i]);
            const char *eq = strchr(*e, '=');
            if (eq && strncmp(*e, recorded_env_prefixes[i], n) == 0) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
                json_object_object_add(env, name, json_object_new_string(eq + 1));
                break;
            }
        }
    }
    return env;
}

/* Durations to the millisecond, written as such (not 17 digits). */
static json_object *seconds_json(double s)
{
    char text[32];
    snprintf(text, sizeof text, "%.3f", s);
    return json_object_new_double_s(s, text);
}

static int write_meta(nbc_run *run, const meta_info *m)
{
    const nbc_config *cfg = run->cfg;
    json_object *o = json_object_new_object();
    if (!o)
        return -1;
    char first_line[MPI_MAX_LIBRARY_VERSION_STRING];
    snprintf(first_line, sizeof first_line, "%s", m->library_version);
    first_line[strcspn(first_line, "\n")] = '\0';
    char progress[32];
    snprintf(progress, sizeof progress, "%s", nbc_progress_mode_name(run->progress));
    if (run->progress == NBC_PROGRESS_TEST)
        snprintf(progress, sizeof progress, "test:%d", run->test_chunks);
    json_object_object_add(o, "status", json_object_new_string(m->status));
    json_object_object_add(o, "collective", json_object_new_string(run->coll->name));
    json_object_object_add(o, "synthetic", json_object_new_boolean(run->coll->synthetic));
    json_object_object_add(o, "size_meaning", json_object_new_string(run->coll->size_meaning));
    json_object_object_add(o, "mpi", json_object_new_string(compiled_mpi));
    json_object_object_add(o, "mpi_library_version", json_object_new_string(first_line));
    json_object_object_add(o, "mpi_library_version_full",
                           json_object_new_string(m->library_version));
    char standard[16];
    snprintf(standard, sizeof standard, "%d.%d", m->mpi_version, m->mpi_subversion);
    json_object_object_add(o, "mpi_standard", json_object_new_string(standard));
    static const char *const levels[] = {"single", "funneled", "serialized", "multiple"};
    json_object_object_add(o, "mpi_thread_level",
                           json_object_new_string(m->thread_level >= 0 && m->thread_level <= 3
                                                      ? levels[m->thread_level]
                                                      : "unknown"));
    json_object_object_add(o, "ranks", json_object_new_int(run->ranks));
    json_object_object_add(o, "nodes", json_object_new_int(m->nodes));
    json_object_object_add(o, "hosts", json_object_get(m->hosts));
    json_object_object_add(o, "threads_per_rank", json_object_new_int(m->threads));
    json_object_object_add(o, "binding", json_object_get(m->binding));
    json_object_object_add(o, "deployment",
                           json_object_new_string(nbc_deployment_name(cfg->run.deployment)));
    json_object_object_add(o, "progress", json_object_new_string(progress));
    json_object_object_add(o, "blas", json_object_new_string(compute_blas_config()));
    json_object_object_add(o, "environment", environment_json());
    json_object_object_add(o, "config", nbc_config_to_json(cfg));
    if (m->clocksync)
        json_object_object_add(o, "clocksync", json_object_get(m->clocksync));
    json_object_object_add(o, "revision", json_object_new_string(BENCH_NBC_REVISION));
    json_object_object_add(o, "start_time", json_object_new_string(m->start_time));
    json_object_object_add(o, "end_time", json_object_new_string(m->end_time));
    if (m->failure)
        json_object_object_add(o, "failure", json_object_new_string(m->failure));
    json_object_object_add(o, "cells_total", json_object_new_int(m->cells_total));
    json_object_object_add(o, "cells_done", json_object_new_int(m->cells_done));
    json_object_object_add(o, "calibration_s", seconds_json(m->calibration_s));
    json_object_object_add(o, "sweep_s", seconds_json(m->sweep_s));
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
    char *with_newline = text ? malloc(strlen(text) + 2) : NULL;
    int rc = -1;
    if (with_newline) {
        sprintf(with_newline, "%s\n", text);
        rc = run_output_write_atomic(run->out, "meta.json", with_newline);
    }
    free(with_newline);
    json_object_put(o);
    return rc;
}

/* The watchdog is about to end the job: rank 0 records why in meta.json
 * (every finished cell is already on disk). */
typedef struct watchdog_record {
    nbc_run *run;
    meta_info *meta;
} watchdog_record;

static void record_watchdog(void *context, const char *message)
{
    watchdog_record *r = context;
    if (r->run->rank != 0 || !r->run->out)
        return;
    r->meta->status = "failed";
    r->meta->failure = message;
    iso_time(r->meta->end_time, sizeof r->meta->end_time);
    write_meta(r->run, r->meta);
}

/* ---- errors ---------------------------------------------------------------- */

/* Every rank calls this with its own verdict; if any failed, rank 0 prints
 * the first failing rank's message and all exit with `status`. */
static void exit_if_any_failed(bool failed, const char *message, int status)
{
    struct {
        int failed, rank;
    } mine = {failed, 0}, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &mine.rank);
    int rank = mine.rank;
    if (MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "bench_nbc: rank %d: MPI_Allreduce failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!first.failed)
        return;
    /* The failing rank's message travels to rank 0, which prints it. */
    char text[1024] = "";
    if (first.rank == rank)
        snprintf(text, sizeof text, "%s", message ? message : "unknown error");
    if (first.rank != 0) {
        if (rank == first.rank)
            MPI_Send(text, sizeof text, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        else if (rank == 0)
            MPI_Recv(text, sizeof text, MPI_CHAR, first.rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        fprintf(stderr, "bench_nbc: %s%s\n", text,
                first.rank != 0 ? " (reported by another rank)" : "");
    MPI_Finalize();
    exit(status);
}

#define CHECK_MPI(call)                                                                            \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ != MPI_SUCCESS) {                                                                 \
            char text_[MPI_MAX_ERROR_STRING] = "";                                                 \
            int len_;                                                                              \
            MPI_Error_string(err_, text_, &len_);                                                  \
            fprintf(stderr, "bench_nbc: %s failed: %s\n", #call, text_);                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* ---- stages ---------------------------------------------------------------- */

static void write_calib_comp(nbc_run *run, const compute_calib_result *r)
{
    FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_CALIB_COMP) : NULL;
    if (f)
        fprintf(f, "%.9g,%zu,%.9g,%.6g,%d,%d\n", r->target_s, r->matrix_n, r->t_s,
                r->gflops_per_thread, r->iterations, r->converged);
}

static void write_calib_comm(nbc_run *run, const nbc_comm_calibration *r)
{
    FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_CALIB_COMM) : NULL;
    if (f)
        fprintf(f, "%s,%.9g,%zu,%.9g,%d,%d\n", run->coll->name, r->target_s, r->bytes, r->t_s,
                r->iterations, r->converged);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* t_comp_passive_mpi (equation 2): the GEMM step inside MPI with no
 * communication in flight, median of `reps` steps, on every rank. */
static void measure_passive(nbc_run *run, const placement *place, const compute_calib_result *comp,
                            size_t count)
{
    int reps = run->cfg->run.repetitions < 3 ? 3 : run->cfg->run.repetitions;
    for (size_t j = 0; j < count; j++) {
        double t[reps];
        compute_step_timing timing;
        int failed = 0;
        for (int i = 0; i < reps && !failed; i++) {
            failed = compute_step(run->team, comp[j].matrix_n, &timing) != 0;
            t[i] = timing.step_s;
        }
        exit_if_any_failed(failed, compute_team_error(run->team), 1);
        qsort(t, (size_t)reps, sizeof t[0], compare_double);
        double median = t[reps / 2];
        double *all = run->rank == 0 ? malloc((size_t)run->ranks * sizeof *all) : NULL;
        char *hosts = run->rank == 0 ? malloc((size_t)run->ranks * 256) : NULL;
        CHECK_MPI(MPI_Gather(&median, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, run->comm));
        CHECK_MPI(MPI_Gather(place->host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, run->comm));
        FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_PASSIVE) : NULL;
        for (int r = 0; f && r < run->ranks; r++)
            fprintf(f, "%s,%d,%d,%zu,%.9g,%d,%.9g\n", hosts + 256 * r, r,
                    compute_team_threads(run->team), comp[j].matrix_n, comp[j].target_s, reps,
                    all[r]);
        free(all);
        free(hosts);
    }
}

static json_object *clocksync_json(nbc_run *run)
{
    const clocksync_model *m = clocksync_get_model(run->sync);
    double mine[4] = {m->n_points ? m->points[0].offset_ns * 1e-3 : 0,
                      m->n_points ? m->points[0].latency_ns * 1e-3 : 0,
                      clocksync_model_drift_ppm(m), m->n_points};
    double *all = run->rank == 0 ? malloc((size_t)run->ranks * sizeof mine) : NULL;
    CHECK_MPI(MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, run->comm));
    if (run->rank != 0)
        return NULL;
    json_object *o = json_object_new_object(), *ranks = json_object_new_array();
    for (int r = 0; all && r < run->ranks; r++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "offset_us", json_object_new_double(all[4 * r]));
        json_object_object_add(e, "latency_us", json_object_new_double(all[4 * r + 1]));
        json_object_object_add(e, "drift_ppm", json_object_new_double(all[4 * r + 2]));
        json_object_object_add(e, "calibrations", json_object_new_int((int)all[4 * r + 3]));
        json_object_array_add(ranks, e);
    }
    json_object_object_add(o, "method", json_object_new_string("linear, min-RTT round trips"));
    json_object_object_add(o, "roundtrips", json_object_new_int(run->cfg->clocksync.roundtrips));
    json_object_object_add(o, "ranks", ranks);
    free(all);
    return o;
}

/* What the run folder already holds: nothing for a new run; for --resume,
 * what rank 0 reads there, broadcast to every rank. Exits 2 on a folder that
 * does not belong to this configuration and library. */
static void load_prior(nbc_run *run, const char *resume_dir, nbc_resume *prior)
{
    const nbc_config *cfg = run->cfg;
    size_t cells = cfg->grid.comm_count * cfg->grid.comp_count;
    char err[PATH_MAX + 1024] = "";
    bool bad = false;
    if (run->rank == 0 && resume_dir) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/meta.json", resume_dir);
        json_object *meta = json_object_from_file(path), *v;
        int ranks =
            meta && json_object_object_get_ex(meta, "ranks", &v) ? json_object_get_int(v) : -1;
        const char *mpi =
            meta && json_object_object_get_ex(meta, "mpi", &v) ? json_object_get_string(v) : "";
        if (!meta) {
            snprintf(err, sizeof err, "--resume: %s is missing or not JSON: not a run folder",
                     path);
            bad = true;
        } else if (ranks != run->ranks || strcmp(mpi, compiled_mpi) != 0) {
            snprintf(err, sizeof err,
                     "--resume: %s ran on %d ranks with %s; resume it the same way (this is %d "
                     "ranks with %s)",
                     resume_dir, ranks, mpi, run->ranks, compiled_mpi);
            bad = true;
        } else {
            bad = nbc_resume_load(resume_dir, cfg, run->ranks, prior, err, sizeof err) != 0;
        }
        json_object_put(meta);
    } else {
        *prior = (nbc_resume){
            .comp = calloc(cfg->grid.comp_count, sizeof(compute_calib_result)),
            .comm = calloc(cfg->grid.comm_count, sizeof(nbc_comm_calibration)),
            .cell_done = calloc(cells, sizeof(bool)),
        };
        bad = !prior->comp || !prior->comm || !prior->cell_done;
        if (bad)
            snprintf(err, sizeof err, "out of memory");
    }
    exit_if_any_failed(bad, err, 2);
    unsigned long long counts[3] = {prior->comp_done, prior->comm_done, prior->passive_done};
    long keep = prior->raw_keep_bytes;
    CHECK_MPI(MPI_Bcast(counts, 3, MPI_UNSIGNED_LONG_LONG, 0, run->comm));
    CHECK_MPI(MPI_Bcast(&keep, 1, MPI_LONG, 0, run->comm));
    CHECK_MPI(MPI_Bcast(prior->comp, (int)(cfg->grid.comp_count * sizeof *prior->comp), MPI_BYTE, 0,
                        run->comm));
    CHECK_MPI(MPI_Bcast(prior->comm, (int)(cfg->grid.comm_count * sizeof *prior->comm), MPI_BYTE, 0,
                        run->comm));
    CHECK_MPI(MPI_Bcast(prior->cell_done, (int)cells, MPI_C_BOOL, 0, run->comm));
    prior->comp_done = counts[0];
    prior->comm_done = counts[1];
    prior->passive_done = counts[2] != 0;
    prior->raw_keep_bytes = keep;
}

/* Matrix sizes for every computation target (those a resumed run already
 * has are kept). */
static bool calibrate_computation(nbc_run *run, compute_calib_result *comp, size_t done)
{
    const nbc_config *cfg = run->cfg;
    char err[1024] = "";
    unsigned long long max_n_mine = compute_team_max_matrix_n(run->team), max_n;
    CHECK_MPI(MPI_Allreduce(&max_n_mine, &max_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, run->comm));
    size_t start_n = compute_calib_defaults().start_n;
    for (size_t j = 0; j < cfg->grid.comp_count; j++) {
        if (j >= done && nbc_stop_requested(run))
            return false;
        char context[128];
        snprintf(context, sizeof context, "the calibration of computation target %.3g ms",
                 cfg->grid.comp_times_s[j] * 1e3);
        watchdog_context(run->watchdog, context);
        if (j >= done) {
            int rc = nbc_calibrate_comp(run, cfg->grid.comp_times_s[j], start_n, (size_t)max_n,
                                        &comp[j], err, sizeof err);
            exit_if_any_failed(rc != MPI_SUCCESS, err, 1);
            write_calib_comp(run, &comp[j]);
        }
        if (comp[j].matrix_n > 0)
            start_n = comp[j].matrix_n;
        if (run->rank == 0)
            fprintf(stderr, "bench_nbc: computation %.3g ms -> n=%zu, %.3g ms (%s%s, %d steps)\n",
                    comp[j].target_s * 1e3, comp[j].matrix_n, comp[j].t_s * 1e3,
                    compute_calib_status_name(comp[j].status), j < done ? ", kept" : "",
                    comp[j].iterations);
    }
    /* Matrices for the largest size, first-touched now, outside the sweep. */
    size_t largest_n = 1;
    for (size_t j = 0; j < cfg->grid.comp_count; j++)
        largest_n = comp[j].matrix_n > largest_n ? comp[j].matrix_n : largest_n;
    exit_if_any_failed(compute_team_reserve(run->team, largest_n) != 0,
                       compute_team_error(run->team), 1);
    return true;
}

/* Message sizes for every communication target (kept ones are reused). */
static bool calibrate_communication(nbc_run *run, nbc_comm_calibration *comm, size_t done)
{
    const nbc_config *cfg = run->cfg;
    size_t start_bytes = 1024;
    for (size_t i = 0; i < cfg->grid.comm_count; i++) {
        if (i >= done && nbc_stop_requested(run))
            return false;
        char context[128];
        snprintf(context, sizeof context, "the calibration of communication target %.3g ms",
                 cfg->grid.comm_times_s[i] * 1e3);
        watchdog_context(run->watchdog, context);
        if (i >= done) {
            int rc = nbc_calibrate_comm(run, cfg->grid.comm_times_s[i], start_bytes, &comm[i]);
            /* Every rank has the same verdict (a data check failure is
             * allreduced); the failing rank printed why. */
            exit_if_any_failed(rc != MPI_SUCCESS, "the communication calibration failed", 1);
            write_calib_comm(run, &comm[i]);
        }
        if (comm[i].bytes_closest > 0)
            start_bytes = comm[i].bytes_closest;
        if (run->rank == 0)
            fprintf(stderr,
                    "bench_nbc: communication %.3g ms -> %zu B, %.3g ms (%s%s, %d sizes tried)\n",
                    comm[i].target_s * 1e3, comm[i].bytes_closest, comm[i].t_s * 1e3,
                    comm[i].converged ? "converged" : "NOT converged: cells invalid",
                    i < done ? ", kept" : "", comm[i].iterations);
    }
    bool write_failed = run->rank == 0 && run_output_flush(run->out) != 0;
    exit_if_any_failed(write_failed, "cannot write the calibration files", 1);
    return true;
}

int main(int argc, char **argv)
{
    char err[1024] = "";
    cli c;
    int cli_status = parse_cli(argc, argv, &c, err, sizeof err);
    int thread_level = MPI_THREAD_FUNNELED, provided;
    const char *note = NULL; /* printed by rank 0 once MPI runs */
    if (cli_status == 0)
        configure_before_init(&c, &thread_level, &note);
    if (MPI_Init_thread(&argc, &argv, thread_level, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "bench_nbc: MPI_Init_thread failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, ranks;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
    exit_if_any_failed(cli_status != 0, err, 2);
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
            for (size_t i = 0; i < n; i++)
                printf("  %-22s %s\n", colls[i].name, colls[i].size_meaning);
        }
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
    exit_if_any_failed(bad, err, 2);

    placement place = {0};
    exit_if_any_failed(place_rank(&place, err, sizeof err) != 0, err, 2);
    size_t n_names;
    const char *const *names = nbc_collective_names(&n_names);
    nbc_config_limits limits = {
        .collectives = names,
        .collective_count = n_names,
        .mpi_profiles = mpi_profiles,
        .mpi_profile_count = sizeof mpi_profiles / sizeof *mpi_profiles,
        .available_cores = place.cpu_count,
        .available_memory_bytes = compute_available_memory_bytes() / (uint64_t)place.local_ranks,
    };
    bad = nbc_config_validate(&cfg, &limits, err, sizeof err) != 0;
    if (!bad && strcmp(cfg.run.mpi, compiled_mpi) != 0) {
        snprintf(err, sizeof err,
                 "config: run.mpi: \"%s\" but this bench_nbc was built with %s (allowed here: %s; "
                 "build/%s/bench_nbc is the %s build)",
                 cfg.run.mpi, compiled_mpi, compiled_mpi, cfg.run.mpi, cfg.run.mpi);
        bad = true;
    }
    const char *async_env = getenv("MPICH_ASYNC_PROGRESS");
    if (!bad && cfg.run.deployment == NBC_DEPLOYMENT_PROGRESS) {
        if (strcmp(compiled_mpi, "mpich") != 0) {
            snprintf(err, sizeof err,
                     "config: run.deployment: \"progress\" needs a library progress thread; "
                     "%s has none for collectives here (allowed with %s: basic, dedicated, "
                     "manual)",
                     compiled_mpi, compiled_mpi);
            bad = true;
        } else if (!async_env || strcmp(async_env, "1") != 0) {
            snprintf(err, sizeof err,
                     "config: run.deployment: \"progress\" turns on MPICH_ASYNC_PROGRESS=1, but "
                     "the environment sets MPICH_ASYNC_PROGRESS=%s",
                     async_env ? async_env : "");
            bad = true;
        }
    }
    if (!bad && cfg.run.deployment == NBC_DEPLOYMENT_BASIC && async_env &&
        strcmp(async_env, "0") != 0) {
        snprintf(err, sizeof err,
                 "config: run.deployment: \"basic\" means library defaults, but the environment "
                 "sets MPICH_ASYNC_PROGRESS=%s (use run.deployment=progress, or unset it)",
                 async_env);
        bad = true;
    }
    int threads = nbc_config_compute_threads(&cfg, place.cpu_count);
    if (!bad && cfg.run.deployment == NBC_DEPLOYMENT_DEDICATED && place.cpu_count < 2) {
        snprintf(err, sizeof err,
                 "config: run.deployment: \"dedicated\" leaves one core free for progress, but "
                 "this rank has %d core(s) (host %s, %d rank(s) there)",
                 place.cpu_count, place.host, place.local_ranks);
        bad = true;
    }
    exit_if_any_failed(bad, err, 2);

    const nbc_collective *coll = nbc_collective_find(cfg.run.collective);
    nbc_progress_mode progress = cfg.progress.mode;
    int test_chunks = cfg.progress.test_count;
    if (cfg.run.deployment == NBC_DEPLOYMENT_MANUAL && progress == NBC_PROGRESS_NONE) {
        progress = NBC_PROGRESS_TEST;
        test_chunks = cfg.progress.test_chunks;
    }
    /* Dedicated without a library progress thread: ours, on the free core. */
    if (cfg.run.deployment == NBC_DEPLOYMENT_DEDICATED && progress == NBC_PROGRESS_NONE &&
        strcmp(compiled_mpi, "mpich") != 0)
        progress = NBC_PROGRESS_THREAD;
    exit_if_any_failed(compute_blas_check(err, sizeof err) != 0, err, 2);
    exit_if_any_failed(cfg.run.check && nbc_datacheck_supports(coll, err, sizeof err) != 0, err, 2);

    compute_options copt = {.threads = threads, .cpu_ids = place.cpus};
    compute_team *team = compute_team_create(&copt, err, sizeof err);
    exit_if_any_failed(team == NULL, err, 2);
    int free_cpu = threads < place.cpu_count ? place.cpus[threads] : -1;

    nbc_run run = {
        .comm = MPI_COMM_WORLD,
        .rank = rank,
        .ranks = ranks,
        .cfg = &cfg,
        .coll = coll,
        .team = team,
        .progress = progress,
        .test_chunks = test_chunks,
        .stop_signal = &stop_signal,
        .max_retries = 20,
        .check = cfg.run.check,
    };
    if (progress == NBC_PROGRESS_THREAD) {
        run.progress_thread = progress_thread_start(MPI_COMM_WORLD, free_cpu, err, sizeof err);
        exit_if_any_failed(run.progress_thread == NULL, err, 2);
    }

    /* ---- the run folder ---- */
    if (rank == 0)
        run.out = c.resume_dir
                      ? run_output_open(c.resume_dir, err, sizeof err)
                      : run_output_create(cfg.run.results_dir, compiled_mpi, coll->name,
                                          nbc_deployment_name(cfg.run.deployment), err, sizeof err);
    exit_if_any_failed(rank == 0 && run.out == NULL, err, 2);

    meta_info meta = {.status = "running", .threads = threads};
    iso_time(meta.start_time, sizeof meta.start_time);
    int len;
    CHECK_MPI(MPI_Get_library_version(meta.library_version, &len));
    CHECK_MPI(MPI_Get_version(&meta.mpi_version, &meta.mpi_subversion));
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
        CHECK_MPI(MPI_Gather(place.host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Gather(mine_cpus, 256, MPI_CHAR, all_cpus, 256, MPI_CHAR, 0, MPI_COMM_WORLD));
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
        ok = ok && write_meta(&run, &meta) == 0;
        free(ini);
        if (!ok)
            snprintf(err, sizeof err, "cannot write the run folder %s", run_output_dir(run.out));
        bad = !ok;
        printf("bench_nbc: run folder %s\n", run_output_dir(run.out));
        fflush(stdout);
    }
    exit_if_any_failed(bad, err, 1);

    watchdog_record fire_record = {.run = &run, .meta = &meta};
    run.watchdog = watchdog_start(rank, cfg.watchdog.factor, cfg.watchdog.floor_s, record_watchdog,
                                  &fire_record, err, sizeof err);
    exit_if_any_failed(run.watchdog == NULL, err, 1);
    run.fault_hang_cell = fault_hang_cell(rank);

    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    /* ---- clocks ---- */
    clocksync_options sopt = {
        .roundtrips = cfg.clocksync.roundtrips,
        .drift_gap_s = cfg.clocksync.drift_gap_s,
        .barrier_margin_s = cfg.clocksync.barrier_margin_us * 1e-6,
    };
    CHECK_MPI(clocksync_create(&run.sync, MPI_COMM_WORLD, &sopt, NULL));
    watchdog_context(run.watchdog, "the start of the run");
    watchdog_arm(run.watchdog, 0);
    watchdog_phase(run.watchdog, PHASE_CALIBRATION);
    CHECK_MPI(clocksync_calibrate(run.sync));
    watchdog_disarm(run.watchdog);
    run.epoch_global_ns = clocksync_now_global_ns(run.sync);
    CHECK_MPI(MPI_Bcast(&run.epoch_global_ns, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
    int64_t calibration_start_ns = clocksync_now_local_ns(run.sync);

    /* ---- sizes (calibration decisions use the extrapolated global time;
     * the window barrier corrects itself) ---- */
    nbc_resume prior;
    load_prior(&run, c.resume_dir, &prior);
    compute_calib_result *comp = prior.comp;
    nbc_comm_calibration *comm = prior.comm;
    /* A stop signal during calibration keeps the sizes found so far. */
    bool calibrated = calibrate_computation(&run, comp, prior.comp_done);
    if (calibrated && !prior.passive_done)
        measure_passive(&run, &place, comp, cfg.grid.comp_count);
    if (calibrated)
        CHECK_MPI(clocksync_prepare_realtime(run.sync));
    calibrated = calibrated && calibrate_communication(&run, comm, prior.comm_done);
    meta.calibration_s = (double)(clocksync_now_local_ns(run.sync) - calibration_start_ns) * 1e-9;

    /* ---- the sweep ---- */
    nbc_sweep_plan plan = {
        .comm = comm,
        .comm_count = cfg.grid.comm_count,
        .comp = comp,
        .comp_count = cfg.grid.comp_count,
        .cell_done = prior.cell_done,
    };
    nbc_sweep_record record;
    exit_if_any_failed(nbc_sweep_record_init(&record, cells, cfg.run.repetitions) != 0,
                       "out of memory for the sweep's records", 1);
    long raw_keep_bytes = prior.raw_keep_bytes;
    bool interrupted = !calibrated;
    int64_t sweep_start_ns = clocksync_now_local_ns(run.sync);
    int rc = calibrated ? nbc_sweep(&run, &plan, &record, &interrupted) : MPI_SUCCESS;
    meta.sweep_s = (double)(clocksync_now_local_ns(run.sync) - sweep_start_ns) * 1e-9;
    for (size_t cell = 0; cell < cells; cell++)
        meta.cells_done += record.measured[cell] || prior.cell_done[cell];

    /* ---- end calibration: raw records converted by interpolation ---- */
    watchdog_context(run.watchdog, "the end of the run");
    watchdog_arm(run.watchdog, 0);
    watchdog_phase(run.watchdog, PHASE_CALIBRATION);
    if (rc == MPI_SUCCESS)
        rc = clocksync_calibrate(run.sync);
    watchdog_disarm(run.watchdog);
    if (rc == MPI_SUCCESS)
        rc = nbc_sweep_rewrite_raw(&run, &plan, &record, raw_keep_bytes);
    meta.clocksync = rc == MPI_SUCCESS ? clocksync_json(&run) : NULL;
    meta.status = rc != MPI_SUCCESS ? "failed" : interrupted ? "interrupted" : "complete";
    iso_time(meta.end_time, sizeof meta.end_time);
    if (rank == 0) {
        write_meta(&run, &meta);
        fprintf(stderr, "bench_nbc: %s: %d of %d cells in %s (calibration %.1f s, sweep %.1f s)\n",
                meta.status, meta.cells_done, meta.cells_total, run_output_dir(run.out),
                meta.calibration_s, meta.sweep_s);
    }
    /* 3 tells a batch script the run was cut short but kept its cells. */
    int status = rc != MPI_SUCCESS ? 1 : interrupted ? 3 : 0;
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "bench_nbc: rank %d: the run failed (MPI error %d)\n", rank, rc);

    json_object_put(meta.hosts);
    json_object_put(meta.binding);
    json_object_put(meta.clocksync);
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
    free(c.sets);
    MPI_Finalize();
    return status;
}
