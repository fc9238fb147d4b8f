/* compute_ref: the reference computation time t_comp_ref (paper section
 * 3.2.1, equation 2), the same GEMM step as the driver's, in a program with
 * no MPI at all. Writes compute_ref.csv (docs/formats.md).
 *
 * With --run RUN_DIR it reproduces the conditions of the run's passive step
 * on this host, so that equation 2 compares like with like: one process per
 * rank the run had here, each on that rank's CPUs, all computing at the
 * same time, the sizes in rounds (one step of each size a round) with the
 * passive step's warm-up rounds and repetitions, each process reporting
 * every step (one row each, as passive.csv). */
#include "cli/cli.h"
#include "compute/compute.h"
#include "compute/compute_ref_options.h"
#include "schema/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct output {
    int fd;
    bool locked; /* a file several processes may append to */
    char host[256];
} output;

/* One write per line under an exclusive lock: processes on several nodes may
 * append to the same file, and a line must never be split. */
static void write_locked(output *out, const char *text, bool only_if_empty)
{
    if (out->locked && flock(out->fd, LOCK_EX) != 0)
        fail("cannot lock the output file: %s", strerror(errno));
    struct stat status;
    bool skip = false;
    if (only_if_empty) {
        if (fstat(out->fd, &status) != 0)
            fail("cannot stat the output file: %s", strerror(errno));
        skip = out->locked && status.st_size > 0;
    }
    size_t length = strlen(text);
    if (!skip && write(out->fd, text, length) != (ssize_t)length)
        fail("cannot write the output: %s", strerror(errno));
    if (out->locked && flock(out->fd, LOCK_UN) != 0)
        fail("cannot unlock the output file: %s", strerror(errno));
}

static void open_output(output *out, const char *path)
{
    out->fd = STDOUT_FILENO;
    out->locked = false;
    if (path != NULL) {
        out->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (out->fd < 0)
            fail("-o: cannot open '%s': %s", path, strerror(errno));
        out->locked = true;
    }
    if (gethostname(out->host, sizeof out->host) != 0)
        fail("gethostname: %s", strerror(errno));
    out->host[sizeof out->host - 1] = '\0';
    /* the header of compute_ref.csv (schema/columns.def) */
    char header[2048];
    int len = schema_header(SCHEMA_COMPUTE_REF, header, sizeof header - 1);
    if (len < 0)
        fail("the header of %s does not fit", schema_file_name(SCHEMA_COMPUTE_REF));
    memcpy(header + len, "\n", 2);
    write_locked(out, header, true);
}

/* Warm-up steps (OpenBLAS sets up its buffers on a thread's first call),
 * then `reps` steps, each kept (the analysis resamples them). */
static void measure_size(compute_team *team, size_t matrix_n, int warmup_steps, int reps,
                         double *t_comp_s)
{
    double warm_up_s;
    for (int i = 0; i < warmup_steps; i++)
        if (compute_measure_local(team, matrix_n, &warm_up_s) != 0)
            fail("n = %zu: %s", matrix_n, compute_team_error(team));
    for (int i = 0; i < reps; i++)
        if (compute_measure_local(team, matrix_n, &t_comp_s[i]) != 0)
            fail("n = %zu: %s", matrix_n, compute_team_error(team));
}

/* One line per step of one process at size i. */
static void write_rows(output *out, const settings *s, int proc, int procs, int threads, int i,
                       const double *t_comp_s)
{
    for (int step = 0; step < s->reps; step++) {
        char line[768];
        snprintf(line, sizeof line, "%s,%d,%d,%d,%zu,%.9g,%s,%d,%d,%d,%.9g,%.4f\n", out->host, proc,
                 procs, threads, s->sizes[i], s->targets_s[i], s->phase, s->warmup_steps, s->reps,
                 step, t_comp_s[step], compute_gflops(s->sizes[i], t_comp_s[step]));
        write_locked(out, line, false);
    }
}

static size_t calibrate_target(compute_team *team, const settings *s, double target_s,
                               size_t start_n)
{
    compute_calib_options options = compute_calib_defaults();
    options.tolerance = s->tolerance;
    options.max_matrix_n = compute_team_max_matrix_n(team);
    options.start_n = start_n;
    compute_calib_result result;
    char error[512];
    if (compute_calibrate(&options, target_s, compute_measure_local, team, &result, error,
                          sizeof error) != 0)
        fail("target %g s: %s (%s)", target_s, error, compute_team_error(team));
    fprintf(stderr, "compute_ref: target %g s: n = %zu, %.6g s, %s after %d iterations\n", target_s,
            result.matrix_n, result.t_s, compute_calib_status_name(result.status),
            result.iterations);
    return result.matrix_n;
}

/* ---- --run RUN_DIR ---- */

/* A rank of the run on this host: the CPUs it computed on. */
typedef struct host_rank {
    int cpu_ids[COMPUTE_MAX_CPUS];
    int cpu_count;
    int rank;              /* in the run */
    compute_kernel kernel; /* the run's compute.kernel */
} host_rank;

/* "0,1 free:2" (meta.json binding): the computing CPUs before the space. */
static int parse_binding(const char *binding, int *cpu_ids)
{
    int count = 0;
    for (const char *p = binding; *p && *p != ' ' && count < COMPUTE_MAX_CPUS;) {
        char *end;
        long cpu = strtol(p, &end, 10);
        if (end == p || cpu < 0 || cpu >= COMPUTE_MAX_CPUS)
            return -1;
        cpu_ids[count++] = (int)cpu;
        p = *end == ',' ? end + 1 : end;
    }
    return count;
}

/* The ranks the run had on this host, from its meta.json. */
static int read_host_ranks(const char *run_dir, const char *host, host_rank *ranks, int capacity)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/meta.json", run_dir);
    json_object *meta = json_object_from_file(path), *hosts, *binding;
    if (!meta)
        bad_usage("--run: %s is missing or not JSON: not a run folder", path);
    if (!json_object_object_get_ex(meta, "hosts", &hosts) ||
        !json_object_object_get_ex(meta, "binding", &binding) ||
        json_object_array_length(hosts) != json_object_array_length(binding))
        bad_usage("--run: %s has no hosts and binding of every rank", path);
    /* The run's kernel (the sleep kernel's sleeps are rank k's (1 + k/10)
     * times as long); a run of an older bench_nbc computed dgemm. */
    static const char *const kernel_names[] = COMPUTE_KERNEL_NAMES;
    json_object *config, *compute_section, *kernel;
    compute_kernel run_kernel = COMPUTE_KERNEL_GEMM;
    if (json_object_object_get_ex(meta, "config", &config) &&
        json_object_object_get_ex(config, "compute", &compute_section) &&
        json_object_object_get_ex(compute_section, "kernel", &kernel)) {
        size_t k = 0, count = sizeof kernel_names / sizeof *kernel_names;
        while (k < count && strcmp(json_object_get_string(kernel), kernel_names[k]) != 0)
            k++;
        if (k == count)
            bad_usage("--run: %s: compute.kernel '%s' is not one of this compute_ref's", path,
                      json_object_get_string(kernel));
        run_kernel = (compute_kernel)k;
    }
    int count = 0;
    for (size_t r = 0; r < json_object_array_length(hosts); r++) {
        if (strcmp(json_object_get_string(json_object_array_get_idx(hosts, r)), host) != 0)
            continue;
        if (count == capacity)
            bad_usage("--run: more than %d ranks on host %s", capacity, host);
        const char *cpus = json_object_get_string(json_object_array_get_idx(binding, r));
        ranks[count].cpu_count = parse_binding(cpus ? cpus : "", ranks[count].cpu_ids);
        ranks[count].rank = (int)r;
        ranks[count].kernel = run_kernel;
        if (ranks[count].cpu_count <= 0)
            bad_usage("--run: %s: rank %zu's binding '%s' is not a CPU list", path, r,
                      cpus ? cpus : "");
        count++;
    }
    json_object_put(meta);
    if (count == 0)
        bad_usage("--run: the run had no rank on this host (%s)", host);
    return count;
}

/* The warm-up steps and repetitions of the run's passive step: meta.json's
 * (written before the passive step, which may follow compute_ref's phase
 * before: the ABBA order), or for a run of an older bench_nbc passive.csv's
 * first row. */
static void read_passive_settings(settings *s)
{
    char path[PATH_MAX], line[4096];
    snprintf(path, sizeof path, "%s/meta.json", s->run_dir);
    json_object *meta = json_object_from_file(path), *warmup, *reps, *config, *compute, *ref;
    if (meta && json_object_object_get_ex(meta, "config", &config) &&
        json_object_object_get_ex(config, "compute", &compute) &&
        json_object_object_get_ex(compute, "ref_warmup_s", &ref)) {
        s->process_warmup_s = json_object_get_double(ref);
        if (!(s->process_warmup_s >= 0 && s->process_warmup_s <= 3600))
            bad_usage("--run: %s: compute.ref_warmup_s %g out of range (0 to 3600 s)", path,
                      s->process_warmup_s);
    }
    bool from_meta = meta && json_object_object_get_ex(meta, "passive_warmup_steps", &warmup) &&
                     json_object_object_get_ex(meta, "passive_reps", &reps);
    if (from_meta) {
        s->warmup_steps = json_object_get_int(warmup);
        s->reps = json_object_get_int(reps);
    }
    json_object_put(meta);
    if (from_meta) {
        if (s->warmup_steps < 0 || s->warmup_steps > 100000 || s->reps < 1 || s->reps > max_reps)
            bad_usage("--run: %s: passive_warmup_steps %d or passive_reps %d out of range", path,
                      s->warmup_steps, s->reps);
        return;
    }
    snprintf(path, sizeof path, "%s/passive.csv", s->run_dir);
    FILE *file = fopen(path, "r");
    if (!file)
        bad_usage("--run: cannot open %s: %s", path, strerror(errno));
    char header[4096];
    if (!fgets(header, sizeof header, file) || !fgets(line, sizeof line, file))
        bad_usage("--run: %s has no passive step rows", path);
    fclose(file);
    char copy[4096];
    int columns[2];
    const char *names[2] = {schema_column_name(COL_PASSIVE_WARMUP_STEPS),
                            schema_column_name(COL_PASSIVE_REPS)};
    for (int c = 0; c < 2; c++) {
        snprintf(copy, sizeof copy, "%s", header);
        columns[c] = column_index(copy, names[c]);
        if (columns[c] < 0)
            bad_usage("--run: %s has no %s column: written by another bench_nbc", path, names[c]);
    }
    int index = 0;
    for (char *field = strtok(line, ",\n"); field; field = strtok(NULL, ",\n"), index++) {
        unsigned long long value;
        if ((index == columns[0] || index == columns[1]) && !parse_size(field, 0, 100000, &value))
            bad_usage("--run: %s: '%s' is not a count", path, field);
        if (index == columns[0])
            s->warmup_steps = (int)value;
        if (index == columns[1])
            s->reps = (int)value;
    }
}

/* What the processes share: a barrier per round, and their results. */
typedef struct shared_state {
    pthread_barrier_t round_barrier;
    int procs;
    int reps;
    double t_comp_s[]; /* [size][proc][step] */
} shared_state;

static void run_process(const settings *s, const host_rank *rank, shared_state *shared, int proc)
{
    char message[2048], error[512];
    if (compute_blas_check(message, sizeof message) != 0)
        fail("refusing to run: %s", message);
    compute_options options = {
        .threads = rank->cpu_count,
        .cpu_ids = rank->cpu_ids,
        .kernel = rank->kernel,
        .sleep_scale = 1.0 + rank->rank / 10.0,
    };
    compute_team *team = compute_team_create(&options, error, sizeof error);
    if (!team)
        fail("process %d: %s", proc, error);
    /* bench_nbc's passive step follows its calibration, seconds of GEMM on a
     * warm process and core; a fresh process computes its first steps
     * slower (up to 1.7 x here at 1 ms), so it warms up as long first. */
    size_t largest_n = 0;
    for (int i = 0; i < s->count; i++)
        largest_n = s->sizes[i] > largest_n ? s->sizes[i] : largest_n;
    if (compute_team_reserve(team, largest_n) != 0)
        fail("process %d: %s", proc, compute_team_error(team));
    double unused_s;
    int64_t warmup_ns = (int64_t)(s->process_warmup_s * 1e9);
    for (int64_t until_ns = compute_now_ns() + warmup_ns; compute_now_ns() < until_ns;)
        if (compute_measure_local(team, s->sizes[0], &unused_s) != 0)
            fail("process %d: %s", proc, compute_team_error(team));
    /* In rounds, as bench_nbc's passive step: the warm-up rounds, then each
     * round one step of every size, the processes starting each round
     * together. A slow spell of the machine (GEMM slower on every CPU for a
     * few hundred ms; docs/measurements.md, "compute_ref's first steps and
     * slow spells") then lands on a few steps of every size, which each
     * process's median passes over, instead of on every step of the sizes
     * measured during it. */
    for (int round = -s->warmup_steps; round < s->reps; round++) {
        int rc = pthread_barrier_wait(&shared->round_barrier);
        if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
            fail("pthread_barrier_wait: %s", strerror(rc));
        for (int i = 0; i < s->count; i++) {
            double *t_s =
                round < 0 ? &unused_s
                          : &shared->t_comp_s[((size_t)i * shared->procs + proc) * shared->reps +
                                              (size_t)round];
            if (compute_measure_local(team, s->sizes[i], t_s) != 0)
                fail("process %d, n = %zu: %s", proc, s->sizes[i], compute_team_error(team));
        }
    }
    compute_team_destroy(team);
}

static int run_reference(settings *s)
{
    output out;
    char default_output[PATH_MAX];
    snprintf(default_output, sizeof default_output, "%s/compute_ref.csv", s->run_dir);
    char calib[PATH_MAX];
    snprintf(calib, sizeof calib, "%s/calib_comp.csv", s->run_dir);
    read_sizes_file(s, calib);
    read_passive_settings(s);
    open_output(&out, s->output_path ? s->output_path : default_output);
    static host_rank ranks[COMPUTE_MAX_CPUS];
    int procs = read_host_ranks(s->run_dir, out.host, ranks, COMPUTE_MAX_CPUS);

    size_t shared_bytes =
        sizeof(shared_state) + (size_t)s->count * procs * s->reps * sizeof(double);
    shared_state *shared =
        mmap(NULL, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        fail("mmap: %s", strerror(errno));
    shared->procs = procs;
    shared->reps = s->reps;
    pthread_barrierattr_t attr;
    if (pthread_barrierattr_init(&attr) != 0 ||
        pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) != 0 ||
        pthread_barrier_init(&shared->round_barrier, &attr, (unsigned)procs) != 0)
        fail("cannot set up a barrier between the processes");
    pthread_barrierattr_destroy(&attr);
    /* No OpenMP or BLAS thread exists yet in this process: forking is safe. */
    fflush(NULL);
    pid_t children[COMPUTE_MAX_CPUS];
    for (int p = 0; p < procs; p++) {
        children[p] = fork();
        if (children[p] < 0)
            fail("fork: %s", strerror(errno));
        if (children[p] == 0) {
            run_process(s, &ranks[p], shared, p);
            _exit(0);
        }
    }
    int failed = 0;
    for (int p = 0; p < procs; p++) {
        int status;
        if (waitpid(children[p], &status, 0) != children[p] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            failed = 1;
    }
    if (failed)
        fail("a measuring process failed (its message is above)");
    for (int i = 0; i < s->count; i++)
        for (int p = 0; p < procs; p++)
            write_rows(&out, s, p, procs, ranks[p].cpu_count, i,
                       &shared->t_comp_s[((size_t)i * procs + p) * s->reps]);
    if (out.locked && close(out.fd) != 0)
        fail("-o: cannot close the output: %s", strerror(errno));
    pthread_barrier_destroy(&shared->round_barrier);
    munmap(shared, shared_bytes);
    return 0;
}

/* --blas: the BLAS this build uses and how it runs one thread per call, for
 * scripts (one "key: value" per line); exit status 0, or 2 when refused. */
static int print_blas(void)
{
    char message[2048];
    int status = compute_blas_check(message, sizeof message);
    compute_blas_info blas;
    compute_blas_get_info(&blas);
    printf("name: %s\nversion: %s\nlibrary: %s\nthreading: %s\nthreads_reported: %d\n"
           "cpu_per_wall: %.3f\ncpu_per_caller_cpu: %.3f\nmeasured_s: %.4f\nwindows: %d\n"
           "background_cpu_per_wall: %.3f\none_thread_per_call: %s\ncpu_topology: %s\n",
           blas.name, blas.version, blas.library, blas.threading, blas.threads_reported,
           blas.cpu_per_wall, blas.cpu_per_caller_cpu, blas.measured_s, blas.windows,
           blas.background_cpu_per_wall, blas.one_thread_per_call ? "yes" : "no",
           compute_cpu_topology_source());
    if (status != 0)
        fprintf(stderr, "compute_ref: refusing to run: %s\n", message);
    return status == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    static settings s; /* large: not on the stack */
    parse_arguments(argc, argv, &s);
    if (s.blas_only)
        return print_blas();
    if (s.source == source_run)
        return run_reference(&s);

    char message[2048];
    if (compute_blas_check(message, sizeof message) != 0) {
        fprintf(stderr, "compute_ref: refusing to run: %s\n", message);
        return 2;
    }
    fprintf(stderr, "compute_ref: %s; cores from %s\n", message, compute_cpu_topology_source());
    char error[512];
    if (s.threads == 0) {
        int allowed[COMPUTE_MAX_CPUS];
        s.threads = compute_allowed_cpus(allowed, COMPUTE_MAX_CPUS, error, sizeof error);
        if (s.threads < 0)
            fail("%s", error);
    }
    compute_options team_options = {
        .threads = s.threads,
        .cpu_ids = s.cpu_count > 0 ? s.cpu_ids : NULL,
    };
    compute_team *team = compute_team_create(&team_options, error, sizeof error);
    if (team == NULL) {
        fprintf(stderr, "compute_ref: --threads %d%s: %s\n", s.threads,
                s.cpu_count > 0 ? " --cpus" : "", error);
        return 2;
    }

    output out;
    open_output(&out, s.output_path);
    size_t previous_n = compute_calib_defaults().start_n;
    for (int i = 0; i < s.count; i++) {
        size_t matrix_n = s.sizes[i];
        if (s.source == source_targets) {
            matrix_n = calibrate_target(team, &s, s.targets_s[i], previous_n);
            previous_n = matrix_n;
        }
        s.sizes[i] = matrix_n;
        double t_comp_s[max_reps];
        measure_size(team, matrix_n, s.warmup_steps, s.reps, t_comp_s);
        write_rows(&out, &s, 0, 1, compute_team_threads(team), i, t_comp_s);
    }
    if (out.locked && close(out.fd) != 0)
        fail("-o: cannot close '%s': %s", s.output_path, strerror(errno));
    compute_team_destroy(team);
    return 0;
}
