/* synth_run: writes a synthetic run folder (docs/formats.md) whose answers
 * are known, for the analysis tests and the example under tests/data/.
 *
 * Every cell follows one behaviour model (section 3.3 of the paper):
 *   overlap        the collective progresses during the computation
 *   no_progress    all of the collective happens in MPI_Wait (serialized)
 *   comp_slowdown  progress happens but the computation is 1.5x slower
 *   contention     1.5x slower computation and no progress
 *   noise          overlap, then 2.5 and 0.2 shorter-reference times late in
 *                  every second and third repetition (spread > effect)
 * --scenario NAME gives every cell that model; --scenario mixed picks one
 * by the cell's place in the grid (overlap where computation is 4x longer,
 * slowdown where it is longer, no progress where communication is longer,
 * contention where it is 8x longer, one noisy cell). Times carry +-1 %
 * deterministic jitter.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum model { MODEL_OVERLAP, MODEL_NO_PROGRESS, MODEL_COMP_SLOWDOWN, MODEL_CONTENTION, MODEL_NOISE };

static const struct {
    const char *name;
    int model; /* -1: mixed */
} scenarios[] = {
    {"mixed", -1},
    {"overlap", MODEL_OVERLAP},
    {"no_progress", MODEL_NO_PROGRESS},
    {"comp_slowdown", MODEL_COMP_SLOWDOWN},
    {"contention", MODEL_CONTENTION},
    {"noise", MODEL_NOISE},
};

enum { MAX_TARGETS = 16 };

typedef struct synth_config {
    const char *out_dir;
    double comm_ms[MAX_TARGETS];
    size_t comm_count;
    double comp_ms[MAX_TARGETS];
    size_t comp_count;
    int ranks;
    int threads;
    int reps;
    int scenario;
    double unconverged_comm_ms; /* 0: every calibration converged */
    bool compute_ref;
    const char *mpi;
    const char *deployment;
    const char *collective;
    uint64_t seed;
} synth_config;

static const double call_s = 2e-6; /* time inside MPI_I<coll> */
static const double slow_factor = 1.5;

static double jitter(uint64_t *state, double amplitude)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    double unit = (double)(*state >> 11) / (double)(1ULL << 53); /* [0, 1) */
    return 1.0 + amplitude * (2.0 * unit - 1.0);
}

static int mixed_model(double comm_ms, double comp_ms, size_t cell, size_t cells)
{
    double ratio = log2(comp_ms / comm_ms);
    if (cell == cells / 2 - 1)
        return MODEL_NOISE;
    if (ratio >= 2)
        return MODEL_OVERLAP;
    if (ratio >= 0)
        return MODEL_COMP_SLOWDOWN; /* the slower computation is the longer part */
    return ratio >= -2 ? MODEL_NO_PROGRESS : MODEL_CONTENTION;
}

static int parse_list(const char *text, double *out, size_t *count)
{
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        return -1;
    *count = 0;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *end;
        double value = strtod(item, &end);
        if (*end != '\0' || !(value > 0) || *count == MAX_TARGETS) {
            free(copy);
            return -1;
        }
        out[(*count)++] = value;
    }
    free(copy);
    return *count ? 0 : -1;
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "synth_run: cannot create %s: %s\n", path, strerror(errno));
    return f;
}

static int close_out(FILE *f)
{
    return fclose(f) == 0 ? 0 : -1;
}

static long long ns(double seconds)
{
    return llround(seconds * 1e9);
}

/* One repetition of one kind for every rank, starting at *clock_ns. */
static void write_rep(FILE *raw, const synth_config *cfg, size_t cell, double comm_ms,
                      double comp_ms, int rep, const char *kind, int model, uint64_t *rng,
                      long long *clock_ns)
{
    double comm_s = comm_ms * 1e-3, comp_s = comp_ms * 1e-3;
    long long bytes = llround(comm_ms * 4096), matrix_n = llround(60 * cbrt(comp_ms));
    double longest = 0;
    for (int rank = 0; rank < cfg->ranks; rank++) {
        double skew = 1e-6 * rank; /* ranks leave the window barrier 1 us apart */
        double start = (double)*clock_ns * 1e-9 + skew;
        double t1 = start, t2, t3, t4;
        if (strcmp(kind, "comm_ref") == 0) {
            t2 = t1 + call_s;
            t3 = t2;
            t4 = t1 + comm_s * jitter(rng, 0.01) - skew;
        } else if (strcmp(kind, "comp_ref") == 0) {
            t2 = t1;
            t3 = t2 + comp_s * jitter(rng, 0.01);
            t4 = t3;
        } else {
            static const double noise_delay[] = {0.0, 2.5, 0.2}; /* in shorter-reference units */
            bool slowed = model == MODEL_COMP_SLOWDOWN || model == MODEL_CONTENTION;
            bool progressed =
                model == MODEL_OVERLAP || model == MODEL_COMP_SLOWDOWN || model == MODEL_NOISE;
            double comp = comp_s * (slowed ? slow_factor : 1.0) * jitter(rng, 0.01);
            double wait = progressed ? fmax(1e-6, comm_s - skew - call_s - comp) + 1e-6
                                     : comm_s - skew - call_s;
            if (model == MODEL_NOISE)
                wait += noise_delay[rep % 3] * fmin(comm_s, comp_s);
            t2 = t1 + call_s;
            t3 = t2 + comp;
            t4 = t3 + wait;
        }
        fprintf(raw, "%zu,%s,%.9g,%.9g,%lld,%lld,%d,%s,%d,%lld,%lld,%lld,%lld,0\n", cell,
                cfg->collective, comm_s, comp_s, bytes, matrix_n, rep, kind, rank, ns(t1), ns(t2),
                ns(t3), ns(t4));
        longest = fmax(longest, t4 - start + skew);
    }
    *clock_ns += ns(longest) + 50000; /* 50 us to the next window */
}

static int write_run(const synth_config *cfg)
{
    if (mkdir(cfg->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "synth_run: cannot create %s: %s\n", cfg->out_dir, strerror(errno));
        return 1;
    }
    FILE *meta = open_out(cfg->out_dir, "meta.json");
    if (!meta)
        return 1;
    fprintf(meta,
            "{\n  \"status\": \"complete\",\n  \"collective\": \"%s\",\n  \"synthetic\": true,\n"
            "  \"mpi\": \"%s\",\n  \"mpi_library_version\": \"%s synthetic 1.0\",\n"
            "  \"ranks\": %d,\n  \"nodes\": %d,\n  \"threads_per_rank\": %d,\n"
            "  \"deployment\": \"%s\",\n  \"progress\": \"none\"\n}\n",
            cfg->collective, cfg->mpi, cfg->mpi, cfg->ranks, cfg->ranks, cfg->threads,
            cfg->deployment);
    int failed = close_out(meta);

    FILE *calib = open_out(cfg->out_dir, "calib_comm.csv");
    if (!calib)
        return 1;
    fprintf(calib, "collective,comm_target_s,bytes,t_comm_s,iterations,converged\n");
    for (size_t i = 0; i < cfg->comm_count; i++) {
        bool converged = cfg->comm_ms[i] != cfg->unconverged_comm_ms;
        fprintf(calib, "%s,%.9g,%lld,%.9g,%d,%d\n", cfg->collective, cfg->comm_ms[i] * 1e-3,
                converged ? llround(cfg->comm_ms[i] * 4096) : 0, cfg->comm_ms[i] * 1e-3, 5,
                converged ? 1 : 0);
    }
    failed |= close_out(calib);

    calib = open_out(cfg->out_dir, "calib_comp.csv");
    if (!calib)
        return 1;
    fprintf(calib, "comp_target_s,matrix_n,t_comp_s,gflops_per_thread,iterations,converged\n");
    for (size_t i = 0; i < cfg->comp_count; i++)
        fprintf(calib, "%.9g,%lld,%.9g,10.0,4,1\n", cfg->comp_ms[i] * 1e-3,
                llround(60 * cbrt(cfg->comp_ms[i])), cfg->comp_ms[i] * 1e-3);
    failed |= close_out(calib);

    FILE *raw = open_out(cfg->out_dir, "raw.csv");
    if (!raw)
        return 1;
    fprintf(raw, "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,"
                 "t1_ns,t2_ns,t3_ns,t4_ns,retries\n");
    uint64_t rng = cfg->seed;
    long long clock_ns = 1000000;
    size_t cells = cfg->comm_count * cfg->comp_count, cell = 0;
    static const char *const kinds[] = {"comm_ref", "comp_ref", "overlap"};
    for (size_t c = 0; c < cfg->comm_count; c++) {
        for (size_t p = 0; p < cfg->comp_count; p++, cell++) {
            int model = cfg->scenario >= 0
                            ? cfg->scenario
                            : mixed_model(cfg->comm_ms[c], cfg->comp_ms[p], cell, cells);
            for (int rep = 0; rep < cfg->reps; rep++)
                for (int k = 0; k < 3; k++)
                    write_rep(raw, cfg, cell, cfg->comm_ms[c], cfg->comp_ms[p], rep, kinds[k],
                              model, &rng, &clock_ns);
        }
    }
    failed |= close_out(raw);

    FILE *passive = open_out(cfg->out_dir, "passive.csv");
    if (!passive)
        return 1;
    fprintf(passive, "host,rank,threads,matrix_n,comp_target_s,reps,t_comp_s\n");
    for (int rank = 0; rank < cfg->ranks; rank++)
        for (size_t i = 0; i < cfg->comp_count; i++) /* a few percent slower inside MPI */
            fprintf(passive, "node%d,%d,%d,%lld,%.9g,5,%.9g\n", rank, rank, cfg->threads,
                    llround(60 * cbrt(cfg->comp_ms[i])), cfg->comp_ms[i] * 1e-3,
                    cfg->comp_ms[i] * 1e-3 * (1.01 + 0.01 * (double)((size_t)rank + i)));
    failed |= close_out(passive);

    if (cfg->compute_ref) {
        FILE *ref = open_out(cfg->out_dir, "compute_ref.csv");
        if (!ref)
            return 1;
        fprintf(ref, "host,threads,matrix_n,reps,t_comp_s,gflops_per_thread\n");
        for (int rank = 0; rank < cfg->ranks; rank++)
            for (size_t i = 0; i < cfg->comp_count; i++)
                fprintf(ref, "node%d,%d,%lld,5,%.9g,10.0\n", rank, cfg->threads,
                        llround(60 * cbrt(cfg->comp_ms[i])), cfg->comp_ms[i] * 1e-3);
        failed |= close_out(ref);
    }
    if (failed) {
        fprintf(stderr, "synth_run: writing into %s failed\n", cfg->out_dir);
        return 1;
    }
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: synth_run --out DIR [--comm-ms LIST] [--comp-ms LIST] [--ranks N]\n"
          "                 [--reps N] [--scenario mixed|overlap|no_progress|comp_slowdown|\n"
          "                 contention|noise] [--unconverged-comm-ms X] [--no-compute-ref]\n"
          "                 [--mpi NAME] [--deployment NAME] [--seed N]\n",
          out);
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"out", required_argument, NULL, 'o'},
        {"comm-ms", required_argument, NULL, 'c'},
        {"comp-ms", required_argument, NULL, 'p'},
        {"ranks", required_argument, NULL, 'r'},
        {"reps", required_argument, NULL, 'n'},
        {"scenario", required_argument, NULL, 's'},
        {"unconverged-comm-ms", required_argument, NULL, 'u'},
        {"no-compute-ref", no_argument, NULL, 'R'},
        {"mpi", required_argument, NULL, 'm'},
        {"deployment", required_argument, NULL, 'd'},
        {"seed", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    synth_config cfg = {.ranks = 2,
                        .threads = 1,
                        .reps = 3,
                        .scenario = -1,
                        .compute_ref = true,
                        .mpi = "mpich",
                        .deployment = "basic",
                        .collective = "ibcast",
                        .seed = 42};
    parse_list("1,2,4,8,16,32", cfg.comm_ms, &cfg.comm_count);
    parse_list("1,2,4,8,16,32", cfg.comp_ms, &cfg.comp_count);
    int opt;
    bool bad = false;
    while (!bad && (opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            cfg.out_dir = optarg;
            break;
        case 'c':
            bad = parse_list(optarg, cfg.comm_ms, &cfg.comm_count) != 0;
            break;
        case 'p':
            bad = parse_list(optarg, cfg.comp_ms, &cfg.comp_count) != 0;
            break;
        case 'r':
            cfg.ranks = atoi(optarg);
            bad = cfg.ranks < 1 || cfg.ranks > 64;
            break;
        case 'n':
            cfg.reps = atoi(optarg);
            bad = cfg.reps < 1 || cfg.reps > 100;
            break;
        case 's':
            bad = true;
            for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
                if (strcmp(optarg, scenarios[i].name) == 0) {
                    cfg.scenario = scenarios[i].model;
                    bad = false;
                }
            }
            break;
        case 'u':
            cfg.unconverged_comm_ms = atof(optarg);
            break;
        case 'R':
            cfg.compute_ref = false;
            break;
        case 'm':
            cfg.mpi = optarg;
            break;
        case 'd':
            cfg.deployment = optarg;
            break;
        case 'S':
            cfg.seed = strtoull(optarg, NULL, 10);
            break;
        default:
            bad = true;
        }
    }
    if (bad || !cfg.out_dir || optind != argc) {
        fprintf(stderr, "synth_run: bad arguments\n");
        usage(stderr);
        return 2;
    }
    return write_run(&cfg);
}
