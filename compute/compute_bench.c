/* compute_bench: GFLOP/s per thread of the harness's step next to a plain
 * single-threaded cblas_dgemm loop, to show the harness costs nothing. The
 * machine is shared and noisy: the three are measured in turns, several
 * rounds, and each keeps its best trimmed mean. */
#include "compute/blas_cblas.h"
#include "compute/compute.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const size_t sizes[] = {64, 128, 256, 512, 1024};
enum { size_count = sizeof sizes / sizeof *sizes, rounds = 5, kind_count = 3 };
/* Each estimate spans about this long, so small sizes get many reps. */
static const double estimate_span_s = 0.02;

typedef struct plain_matrices {
    double *a, *b, *c;
} plain_matrices;

/* compute_measure_fn of the plain loop: one dgemm in the calling thread. */
static int measure_plain(void *context, size_t matrix_n, double *t_s)
{
    const plain_matrices *m = context;
    int n = (int)matrix_n;
    int64_t start_ns = compute_now_ns();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, m->a, n, m->b, n, 0.0,
                m->c, n);
    *t_s = (double)(compute_now_ns() - start_ns) / 1e9;
    return 0;
}

typedef struct kind {
    compute_measure_fn measure;
    void *context;
    const compute_team *team; /* for its error message; NULL for the plain loop */
} kind;

static compute_team *create_team(int threads, const int *cpus, size_t matrix_n)
{
    char error[512];
    compute_options options = {.threads = threads, .cpu_ids = cpus};
    compute_team *team = compute_team_create(&options, error, sizeof error);
    if (team == NULL) {
        fprintf(stderr, "compute_bench: %s\n", error);
        return NULL;
    }
    if (compute_team_reserve(team, matrix_n) != 0) {
        fprintf(stderr, "compute_bench: %s\n", compute_team_error(team));
        compute_team_destroy(team);
        return NULL;
    }
    return team;
}

static plain_matrices plain_create(size_t matrix_n)
{
    size_t bytes = matrix_n * matrix_n * sizeof(double);
    plain_matrices m = {aligned_alloc(64, bytes), aligned_alloc(64, bytes),
                        aligned_alloc(64, bytes)};
    if (m.a != NULL && m.b != NULL && m.c != NULL) {
        for (size_t k = 0; k < matrix_n * matrix_n; k++) {
            m.a[k] = (double)(k % 101) / 101.0 - 0.5;
            m.b[k] = (double)(k % 97) / 97.0 - 0.5;
        }
    }
    return m;
}

/* Best (over rounds) trimmed-mean GFLOP/s of each kind at size n, in turns.
 * Returns the kind that failed, or -1. */
static int measure_size(const kind *kinds, size_t matrix_n, double *gflops)
{
    double warm_up_s;
    if (kinds[0].measure(kinds[0].context, matrix_n, &warm_up_s) != 0)
        return 0;
    int reps = (int)fmin(fmax(estimate_span_s / warm_up_s, 5), 999);
    for (int k = 0; k < kind_count; k++)
        gflops[k] = 0;
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < kind_count; k++) {
            compute_point point;
            if (kinds[k].measure(kinds[k].context, matrix_n, &warm_up_s) != 0 ||
                compute_measure_point(kinds[k].measure, kinds[k].context, matrix_n,
                                      &(compute_point_rule){reps, reps, 0}, &point) != 0)
                return k;
            gflops[k] = fmax(gflops[k], compute_gflops(matrix_n, point.t_s));
        }
    }
    return -1;
}

int main(void)
{
    char message[1024];
    if (compute_blas_check(message, sizeof message) != 0) {
        fprintf(stderr, "compute_bench: refusing to run: %s\n", message);
        return 2;
    }
    int cpus[COMPUTE_MAX_CPUS];
    int cores = compute_allowed_cpus(cpus, COMPUTE_MAX_CPUS, message, sizeof message);
    if (cores < 1) {
        fprintf(stderr, "compute_bench: %s\n", message);
        return 1;
    }
    size_t largest = sizes[size_count - 1];
    /* Both teams make the caller their thread 0 (bound to the first core),
     * so the plain loop runs there too. */
    compute_team *one = create_team(1, cpus, largest);
    compute_team *all = one != NULL ? create_team(cores, cpus, largest) : NULL;
    plain_matrices plain = plain_create(largest);
    int status = 0;
    if (one == NULL || all == NULL || plain.a == NULL || plain.b == NULL || plain.c == NULL) {
        fprintf(stderr, "compute_bench: cannot set up n = %zu\n", largest);
        status = 1;
    }
    const kind kinds[kind_count] = {{measure_plain, &plain, NULL},
                                    {compute_measure_local, one, one},
                                    {compute_measure_local, all, all}};
    compute_blas_info blas;
    compute_blas_get_info(&blas);
    if (status == 0)
        printf("GFLOP/s per thread, best of %d trimmed means (%s: %s)\n", rounds, blas.name,
               blas.version);
    for (int i = 0; i < size_count && status == 0; i++) {
        double gflops[kind_count];
        int failed = measure_size(kinds, sizes[i], gflops);
        if (failed >= 0) {
            fprintf(stderr, "compute_bench: n = %zu: %s\n", sizes[i],
                    kinds[failed].team != NULL ? compute_team_error(kinds[failed].team)
                                               : "plain dgemm failed");
            status = 1;
            break;
        }
        printf("figure: compute n=%zu: plain dgemm %.1f, harness 1 thread %.1f (%.0f %%), "
               "harness %d threads %.1f (%.0f %%) GFLOP/s per thread\n",
               sizes[i], gflops[0], gflops[1], 100 * gflops[1] / gflops[0], cores, gflops[2],
               100 * gflops[2] / gflops[0]);
    }
    free(plain.a);
    free(plain.b);
    free(plain.c);
    compute_team_destroy(all);
    compute_team_destroy(one);
    return status;
}
