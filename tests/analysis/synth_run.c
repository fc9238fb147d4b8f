/* synth_run: writes a synthetic run folder (docs/formats.md) whose answers
 * are known, for the analysis tests.
 *
 * Every cell follows one behaviour model (section 3.3 of the paper):
 *   overlap        the collective progresses during the computation
 *   no_progress    all of the collective happens in MPI_Wait (serialized)
 *   comp_slowdown  progress happens but the computation is 1.5x slower
 *   contention     1.5x slower computation and a 1.5x slower collective
 *                  in the wait
 *   comm_slowed    the computation at its speed, the collective 1.5x
 *                  slower in the wait
 *   unexplained    overlap, but rank k enters the overlap step k/2 shorter
 *                  references late: the spans grow, no ratio explains it
 * --scenario NAME gives every cell that model; --scenario mixed picks one
 * by the cell's place in the grid (overlap where computation is 4x longer,
 * slowdown where it is longer, no progress where communication is up to 4x
 * longer, contention beyond, one unexplained cell). Times carry +-1 %
 * deterministic jitter. Cells run in a shuffled order (--seed), each as a
 * warm-up block and --blocks measured blocks whose three kinds rotate; with
 * --late-share X an attempt is late (rank 1 leaves the window barrier 3
 * tolerances late) with probability X and is redone. Cells of an unconverged
 * communication target (--unconverged-comm-ms) are not measured. With
 * --null-share X that share of the measured blocks (spread evenly, as the
 * driver does) also measures the null controls comm_null and comp_null at
 * random places: copies of the references, so null / reference is 1.
 * --scenario frontier: overlap where the computation target is at most
 * --frontier-ms X (default 4), no progress beyond: a collective hidden up
 * to a known computation time in every row (the overlap frontier's test).
 * --slow-factor X (default 1.5) is how much slower a slowed computation or
 * collective is: 1.2, r_comm's threshold between no_progress and
 * comm_slowed, makes comm_slowed cells whose class is a coin toss and
 * whose group (no_overlap) is sure.
 * --launch-shift X makes the overlap step's computation (1 + X) times as
 * long in every cell: what one launch of a configuration may do unlike
 * another (another placement, another node), for nbc-compare's launches.
 * meta.json holds a `config` whose run.seed and run.results_dir differ
 * between launches, as bench_nbc's do.
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

enum model {
    MODEL_OVERLAP,
    MODEL_NO_PROGRESS,
    MODEL_COMP_SLOWDOWN,
    MODEL_CONTENTION,
    MODEL_COMM_SLOWED,
    MODEL_UNEXPLAINED
};

static const struct {
    const char *name;
    int model; /* -1: mixed */
} scenarios[] = {
    {"mixed", -1},
    {"frontier", -2},
    {"overlap", MODEL_OVERLAP},
    {"no_progress", MODEL_NO_PROGRESS},
    {"comp_slowdown", MODEL_COMP_SLOWDOWN},
    {"contention", MODEL_CONTENTION},
    {"comm_slowed", MODEL_COMM_SLOWED},
    {"unexplained", MODEL_UNEXPLAINED},
};

enum { MAX_TARGETS = 16, KINDS = 3, ALL_KINDS = 5 };
enum { KIND_COMM_NULL = 3, KIND_COMP_NULL = 4 };
static const char *const kind_names[ALL_KINDS] = {"comm_ref", "comp_ref", "overlap", "comm_null",
                                                  "comp_null"};

typedef struct synth_config {
    const char *out_dir;
    double comm_ms[MAX_TARGETS];
    size_t comm_count;
    double comp_ms[MAX_TARGETS];
    size_t comp_count;
    int ranks;
    int threads;
    int blocks;
    int scenario;
    double unconverged_comm_ms; /* 0: every calibration converged */
    double late_share;
    double null_share;
    double launch_shift; /* the overlap step's computation (1 + X) times as long */
    double slow_factor;  /* a slowed computation or collective takes X times as long */
    double frontier_ms;  /* --scenario frontier: overlap up to this computation target */
    bool compute_ref;
    const char *mpi;
    const char *deployment;
    const char *collective;
    uint64_t seed;
} synth_config;

static const double call_s = 2e-6;                 /* time inside MPI_I<coll> */
static const double late_tolerance = 0.01;         /* meta.json late_tolerance */
static const double barrier_precision_ns = 2000.0; /* meta.json barrier_precision_ns */
static const double epoch_wall_s = 1767225600.0;   /* the run's epoch on the wall clock */

static double unit_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / (double)(1ULL << 53); /* [0, 1) */
}

static double jitter(uint64_t *state, double amplitude)
{
    return 1.0 + amplitude * (2.0 * unit_random(state) - 1.0);
}

static int mixed_model(double comm_ms, double comp_ms, size_t cell, size_t cells)
{
    double ratio = log2(comp_ms / comm_ms);
    if (cell == cells / 2 - 1)
        return MODEL_UNEXPLAINED;
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

static long long bytes_of(double comm_ms)
{
    return llround(comm_ms * 4096);
}

static long long matrix_n_of(double comp_ms)
{
    return llround(60 * cbrt(comp_ms));
}

/* Where the sweep is: the clock, the attempt sequence, the random state. */
typedef struct sweep_state {
    FILE *raw;
    long long clock_ns;
    long long seq;
    uint64_t rng;
} sweep_state;

typedef struct cell_plan {
    size_t cell;
    double comm_ms;
    double comp_ms;
    int model;
} cell_plan;

/* The times of one rank in one attempt of one kind. */
static void rank_times(const cell_plan *c, int kind, int rank, double start,
                       const synth_config *cfg, uint64_t *rng, double t[4])
{
    double comm_s = c->comm_ms * 1e-3, comp_s = c->comp_ms * 1e-3;
    double skew = 1e-6 * rank; /* ranks leave the window barrier 1 us apart */
    t[0] = start + skew;
    if (kind == KIND_COMM_NULL || kind == KIND_COMP_NULL)
        kind -= KIND_COMM_NULL; /* a null control is its reference again */
    if (kind == 0) {
        t[1] = t[2] = t[0] + call_s;
        t[3] = t[0] + comm_s * jitter(rng, 0.01) - skew;
        return;
    }
    if (kind == 1) {
        t[1] = t[0];
        t[2] = t[3] = t[1] + comp_s * jitter(rng, 0.01);
        return;
    }
    int m = c->model;
    bool comp_slowed = m == MODEL_COMP_SLOWDOWN || m == MODEL_CONTENTION;
    bool comm_slowed = m == MODEL_CONTENTION || m == MODEL_COMM_SLOWED;
    bool progressed = m == MODEL_OVERLAP || m == MODEL_COMP_SLOWDOWN || m == MODEL_UNEXPLAINED;
    if (m == MODEL_UNEXPLAINED) /* a late start the ratios do not see */
        t[0] += 0.5 * rank * fmin(comm_s, comp_s);
    double comp = comp_s * (comp_slowed ? cfg->slow_factor : 1.0) * (1 + cfg->launch_shift) *
                  jitter(rng, 0.01);
    double comm = comm_s * (comm_slowed ? cfg->slow_factor : 1.0);
    double wait =
        progressed ? fmax(1e-6, comm - skew - call_s - comp) + 1e-6 : comm - skew - call_s;
    t[1] = t[0] + call_s;
    t[2] = t[1] + comp;
    t[3] = t[2] + wait;
}

static void write_attempt(sweep_state *s, const synth_config *cfg, const cell_plan *c, int block,
                          int kind, int attempt, bool late, long long tolerance_ns)
{
    double start = (double)s->clock_ns * 1e-9, longest = 0;
    long long deadline = s->clock_ns;
    for (int rank = 0; rank < cfg->ranks; rank++) {
        double t[4];
        rank_times(c, kind, rank, start, cfg, &s->rng, t);
        long long exit_late = late && rank == 1 % cfg->ranks ? 3 * tolerance_ns : 0;
        fprintf(s->raw,
                "%zu,%s,%.9g,%.9g,%lld,%lld,%d,%s,%s,%d,%lld,%.6f,%d,%lld,%lld,%lld,%lld,%lld,"
                "%lld,%lld,%d\n",
                c->cell, cfg->collective, c->comm_ms * 1e-3, c->comp_ms * 1e-3,
                bytes_of(c->comm_ms), matrix_n_of(c->comp_ms), block,
                block == 0 ? "warmup" : "measure", kind_names[kind], attempt, s->seq,
                epoch_wall_s + t[0], rank, ns(t[0]), ns(t[1]), ns(t[2]), ns(t[3]), deadline,
                exit_late, tolerance_ns, late ? 1 : 0);
        longest = fmax(longest, t[3] - start);
    }
    s->seq++;
    s->clock_ns += ns(longest) + 50000; /* 50 us to the next window */
}

/* The 6 orders of the three kinds (a Williams design for 3 treatments). */
static const int kind_orders[6][KINDS] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                          {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

static void write_cell(sweep_state *s, const synth_config *cfg, const cell_plan *c)
{
    long long tolerance_ns =
        llround(fmax(late_tolerance * fmin(c->comm_ms, c->comp_ms) * 1e6, barrier_precision_ns));
    for (int block = 0; block <= cfg->blocks; block++) {
        int sequence[ALL_KINDS], count = KINDS;
        memcpy(sequence, kind_orders[(c->cell + (size_t)block) % 6], sizeof(int) * KINDS);
        bool null_block =
            block >= 1 && floor(block * cfg->null_share) > floor((block - 1) * cfg->null_share);
        for (int null = KIND_COMM_NULL; null_block && null <= KIND_COMP_NULL; null++) {
            int at = (int)(unit_random(&s->rng) * (count + 1));
            memmove(sequence + at + 1, sequence + at, sizeof(int) * (size_t)(count - at));
            sequence[at] = null;
            count++;
        }
        for (int k = 0; k < count; k++) {
            int attempt = 0;
            while (block > 0 && unit_random(&s->rng) < cfg->late_share)
                write_attempt(s, cfg, c, block, sequence[k], attempt++, true, tolerance_ns);
            write_attempt(s, cfg, c, block, sequence[k], attempt, false, tolerance_ns);
        }
    }
}

static int write_meta(const synth_config *cfg, const size_t *order, size_t measured)
{
    FILE *meta = open_out(cfg->out_dir, "meta.json");
    if (!meta)
        return 1;
    fprintf(
        meta,
        "{\n  \"status\": \"complete\",\n  \"collective\": \"%s\",\n  \"synthetic\": true,\n"
        "  \"mpi\": \"%s\",\n  \"mpi_library_version\": \"%s synthetic 1.0\",\n"
        "  \"ranks\": %d,\n  \"nodes\": %d,\n  \"threads_per_rank\": %d,\n"
        "  \"deployment\": \"%s\",\n  \"progress\": \"none\",\n  \"late_tolerance\": %g,\n"
        "  \"barrier_precision_ns\": %g,\n  \"max_retries\": 10,\n  \"sweep_seed\": %llu,\n"
        "  \"mpi_library\": {\"profile\": \"%s\", \"version\": \"1.0\"},\n"
        "  \"config\": {\"run\": {\"seed\": %llu, \"results_dir\": \"%s\", \"repetitions\": %d, "
        "\"null_share\": %g}, \"grid\": {\"comm_times\": %zu, \"comp_times\": %zu}},\n"
        "  \"cell_order\": [",
        cfg->collective, cfg->mpi, cfg->mpi, cfg->ranks, cfg->ranks, cfg->threads, cfg->deployment,
        late_tolerance, barrier_precision_ns, (unsigned long long)cfg->seed, cfg->mpi,
        (unsigned long long)cfg->seed, cfg->out_dir, cfg->blocks, cfg->null_share, cfg->comm_count,
        cfg->comp_count);
    for (size_t i = 0; i < measured; i++)
        fprintf(meta, "%s%zu", i ? ", " : "", order[i]);
    fprintf(meta, "],\n  \"clock_source\": \"CLOCK_MONOTONIC_RAW\",\n  \"clock_read_ns\": 20,\n"
                  "  \"warmup_blocks\": 1\n}\n");
    return close_out(meta);
}

static int write_calibrations(const synth_config *cfg)
{
    FILE *calib = open_out(cfg->out_dir, "calib_comm.csv");
    if (!calib)
        return 1;
    fprintf(calib, "collective,comm_target_s,bytes,t_comm_s,iterations,converged\n");
    for (size_t i = 0; i < cfg->comm_count; i++) {
        bool converged = cfg->comm_ms[i] != cfg->unconverged_comm_ms;
        fprintf(calib, "%s,%.9g,%lld,%.9g,%d,%d\n", cfg->collective, cfg->comm_ms[i] * 1e-3,
                converged ? bytes_of(cfg->comm_ms[i]) : 0, cfg->comm_ms[i] * 1e-3, 5,
                converged ? 1 : 0);
    }
    int failed = close_out(calib);
    calib = open_out(cfg->out_dir, "calib_comp.csv");
    if (!calib)
        return 1;
    fprintf(calib, "comp_target_s,matrix_n,t_comp_s,gflops_per_thread,iterations,converged\n");
    for (size_t i = 0; i < cfg->comp_count; i++)
        fprintf(calib, "%.9g,%lld,%.9g,10.0,4,1\n", cfg->comp_ms[i] * 1e-3,
                matrix_n_of(cfg->comp_ms[i]), cfg->comp_ms[i] * 1e-3);
    return failed | close_out(calib);
}

/* passive.csv a few percent slower than compute_ref.csv (rank k at size i
 * by 1 + (1 + k + i) %), before and after the sweep, every step +-0.5 %;
 * one rank (and one compute_ref process) per node. The excess is waiting:
 * the computing threads' CPU time is the step's share 1 / (1 + (1 + k + i)
 * %) of their runnable time, the rest their run-queue delay, during which
 * a progress thread ran (as much CPU time). */
enum { PASSIVE_STEPS = 5 };

static int write_passive_and_reference(const synth_config *cfg)
{
    static const char *const phases[] = {"before", "after"};
    uint64_t rng = cfg->seed ^ 0x5eedULL;
    FILE *passive = open_out(cfg->out_dir, "passive.csv");
    if (!passive)
        return 1;
    fprintf(passive, "host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,"
                     "t_comp_s,window_ns,compute_cpu_ns,compute_run_delay_ns,progress_cpu_ns\n");
    for (int p = 0; p < 2; p++)
        for (int rank = 0; rank < cfg->ranks; rank++)
            for (size_t i = 0; i < cfg->comp_count; i++)
                for (int step = 0; step < PASSIVE_STEPS; step++) {
                    /* the step's excess over the reference is time its
                     * threads waited for the CPU while a progress thread
                     * ran: delay share 1 - 1 / slower */
                    double slower = 1.01 + 0.01 * (double)((size_t)rank + i);
                    double t = cfg->comp_ms[i] * 1e-3 * slower * jitter(&rng, 0.005);
                    double runnable_ns = t * 1e9 * cfg->threads;
                    long long cpu_ns = llround(runnable_ns / slower);
                    long long delay_ns = llround(runnable_ns) - cpu_ns;
                    fprintf(passive, "node%d,%d,%d,%lld,%.9g,%s,2,%d,%d,%.9g,%lld,%lld,%lld,%lld\n",
                            rank, rank, cfg->threads, matrix_n_of(cfg->comp_ms[i]),
                            cfg->comp_ms[i] * 1e-3, phases[p], PASSIVE_STEPS, step, t,
                            llround(t * 1e9) + 20000, cpu_ns, delay_ns, delay_ns);
                }
    int failed = close_out(passive);
    if (!cfg->compute_ref)
        return failed;
    FILE *ref = open_out(cfg->out_dir, "compute_ref.csv");
    if (!ref)
        return 1;
    fprintf(ref, "host,proc,procs,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,"
                 "t_comp_s,gflops_per_thread\n");
    /* aa: the A/A partner, run just before the phase before's */
    static const char *const ref_phases[] = {"aa", "before", "after"};
    for (int p = 0; p < 3; p++)
        for (int rank = 0; rank < cfg->ranks; rank++)
            for (size_t i = 0; i < cfg->comp_count; i++)
                for (int step = 0; step < PASSIVE_STEPS; step++)
                    fprintf(ref, "node%d,0,1,%d,%lld,%.9g,%s,2,%d,%d,%.9g,10.0\n", rank,
                            cfg->threads, matrix_n_of(cfg->comp_ms[i]), cfg->comp_ms[i] * 1e-3,
                            ref_phases[p], PASSIVE_STEPS, step,
                            cfg->comp_ms[i] * 1e-3 * jitter(&rng, 0.005));
    return failed | close_out(ref);
}

static int write_run(const synth_config *cfg)
{
    if (mkdir(cfg->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "synth_run: cannot create %s: %s\n", cfg->out_dir, strerror(errno));
        return 1;
    }
    size_t cells = cfg->comm_count * cfg->comp_count, measured = 0;
    cell_plan plan[MAX_TARGETS * MAX_TARGETS];
    size_t order[MAX_TARGETS * MAX_TARGETS];
    for (size_t c = 0; c < cfg->comm_count; c++) {
        for (size_t p = 0; p < cfg->comp_count; p++) {
            size_t cell = c * cfg->comp_count + p;
            plan[cell] = (cell_plan){
                cell, cfg->comm_ms[c], cfg->comp_ms[p],
                cfg->scenario >= 0 ? cfg->scenario
                : cfg->scenario == -2
                    ? (cfg->comp_ms[p] <= cfg->frontier_ms ? MODEL_OVERLAP : MODEL_NO_PROGRESS)
                    : mixed_model(cfg->comm_ms[c], cfg->comp_ms[p], cell, cells)};
            if (cfg->comm_ms[c] != cfg->unconverged_comm_ms) /* unreachable: not measured */
                order[measured++] = cell;
        }
    }
    sweep_state s = {.clock_ns = 1000000, .rng = cfg->seed};
    for (size_t i = measured; i > 1; i--) { /* the shuffled cell order */
        size_t j = (size_t)(unit_random(&s.rng) * (double)i);
        size_t swap = order[i - 1];
        order[i - 1] = order[j];
        order[j] = swap;
    }
    int failed = write_meta(cfg, order, measured) | write_calibrations(cfg);
    s.raw = open_out(cfg->out_dir, "raw.csv");
    if (!s.raw)
        return 1;
    fprintf(s.raw, "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,"
                   "attempt,seq,wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,"
                   "exit_late_ns,tolerance_ns,late\n");
    for (size_t i = 0; i < measured; i++)
        write_cell(&s, cfg, &plan[order[i]]);
    failed |= close_out(s.raw);
    failed |= write_passive_and_reference(cfg);
    if (failed) {
        fprintf(stderr, "synth_run: writing into %s failed\n", cfg->out_dir);
        return 1;
    }
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: synth_run --out DIR [--comm-ms LIST] [--comp-ms LIST] [--ranks N]\n"
          "                 [--blocks N] [--scenario mixed|overlap|no_progress|comp_slowdown|\n"
          "                 contention|comm_slowed|unexplained] [--unconverged-comm-ms X]\n"
          "                 [--late-share X] [--null-share X] [--no-compute-ref] [--mpi NAME]\n"
          "                 [--deployment NAME] [--seed N] [--launch-shift X]\n"
          "                 [--slow-factor X]\n"
          "                 [--scenario frontier [--frontier-ms X]]\n",
          out);
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"out", required_argument, NULL, 'o'},
        {"comm-ms", required_argument, NULL, 'c'},
        {"comp-ms", required_argument, NULL, 'p'},
        {"ranks", required_argument, NULL, 'r'},
        {"blocks", required_argument, NULL, 'n'},
        {"scenario", required_argument, NULL, 's'},
        {"unconverged-comm-ms", required_argument, NULL, 'u'},
        {"late-share", required_argument, NULL, 'l'},
        {"null-share", required_argument, NULL, 'N'},
        {"no-compute-ref", no_argument, NULL, 'R'},
        {"mpi", required_argument, NULL, 'm'},
        {"deployment", required_argument, NULL, 'd'},
        {"seed", required_argument, NULL, 'S'},
        {"launch-shift", required_argument, NULL, 'L'},
        {"frontier-ms", required_argument, NULL, 'F'},
        {"slow-factor", required_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    synth_config cfg = {.ranks = 2,
                        .threads = 1,
                        .blocks = 3,
                        .scenario = -1,
                        .compute_ref = true,
                        .mpi = "mpich",
                        .deployment = "basic",
                        .collective = "ibcast",
                        .seed = 42,
                        .frontier_ms = 4,
                        .slow_factor = 1.5};
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
            cfg.blocks = atoi(optarg);
            bad = cfg.blocks < 1 || cfg.blocks > 100;
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
        case 'l':
            cfg.late_share = atof(optarg);
            bad = !(cfg.late_share >= 0 && cfg.late_share < 0.9);
            break;
        case 'N':
            cfg.null_share = atof(optarg);
            bad = !(cfg.null_share >= 0 && cfg.null_share <= 1);
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
        case 'L':
            cfg.launch_shift = atof(optarg);
            bad = !(cfg.launch_shift > -0.5 && cfg.launch_shift < 1);
            break;
        case 'X':
            cfg.slow_factor = atof(optarg);
            bad = !(cfg.slow_factor >= 1 && cfg.slow_factor <= 10);
            break;
        case 'F':
            cfg.frontier_ms = atof(optarg);
            bad = !(cfg.frontier_ms > 0);
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
