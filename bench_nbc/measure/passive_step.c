/* The passive step: the computation's time inside MPI with no
 * communication in flight (t_comp_passive_mpi, equation 2), before the sweep
 * and after it, written to passive.csv. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A barrier that does not burn the CPU while it waits: a rank that ends its
 * steps first would otherwise busy-poll (MPICH, Open MPI) next to a rank
 * still computing, and on cores that share a physical one (SMT, virtual
 * CPUs) slow it; compute_ref's processes wait asleep. */
int nbc_quiet_barrier(MPI_Comm comm)
{
    MPI_Request request;
    int done = 0, rc = MPI_Ibarrier(comm, &request);
    while (rc == MPI_SUCCESS && !(rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE)) && !done) {
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 200000};
        nanosleep(&pause, NULL);
    }
    return rc;
}

/* Per step: window_ns, compute_cpu_ns, compute_run_delay_ns,
 * progress_cpu_ns (nbc_step_sched, in passive.csv's order). */
enum { PASSIVE_SCHED_FIELDS = 4 };

/* One row per rank and measured step of size j, rank 0 writing. */
static void write_passive_size(nbc_run *run, const placement *place,
                               const compute_calib_result *size, const char *phase, int reps,
                               const double *t, const int64_t *sched)
{
    double *all = run->rank == 0 ? malloc((size_t)run->ranks * reps * sizeof *all) : NULL;
    int64_t *all_sched =
        run->rank == 0
            ? malloc((size_t)run->ranks * reps * PASSIVE_SCHED_FIELDS * sizeof *all_sched)
            : NULL;
    char *hosts = run->rank == 0 ? malloc((size_t)run->ranks * 256) : NULL;
    nbc_exit_if_any_failed(run->rank == 0 && (!all || !all_sched || !hosts), "out of memory", 1);
    NBC_CHECK_MPI(MPI_Gather(t, reps, MPI_DOUBLE, all, reps, MPI_DOUBLE, 0, run->comm));
    NBC_CHECK_MPI(MPI_Gather(sched, reps * PASSIVE_SCHED_FIELDS, MPI_INT64_T, all_sched,
                             reps * PASSIVE_SCHED_FIELDS, MPI_INT64_T, 0, run->comm));
    NBC_CHECK_MPI(MPI_Gather(place->host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, run->comm));
    FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_PASSIVE) : NULL;
    for (int r = 0; f && r < run->ranks; r++)
        for (int i = 0; i < reps; i++) {
            const int64_t *v = &all_sched[((size_t)r * reps + i) * PASSIVE_SCHED_FIELDS];
            fprintf(f,
                    "%s,%d,%d,%zu,%.9g,%s,%d,%d,%d,%.9g,%" PRId64 ",%" PRId64 ",%" PRId64
                    ",%" PRId64 "\n",
                    hosts + 256 * r, r, compute_team_threads(run->team), size->matrix_n,
                    size->target_s, phase, NBC_PASSIVE_WARMUP_STEPS, reps, i,
                    all[(size_t)r * reps + i], v[0], v[1], v[2], v[3]);
        }
    free(all);
    free(all_sched);
    free(hosts);
}

/* t_comp_passive_mpi (equation 2): the GEMM step inside MPI with no
 * communication in flight, on every rank at the same time. The no-MPI
 * reference (compute_ref) runs the same way: as many processes per host,
 * the same warm-up and repetitions, the sizes in the same rounds, every
 * step recorded (one row each, docs/formats.md), so the analysis takes the
 * same statistic of both and the ratio compares like with like.
 *
 * In rounds: the warm-up rounds, then each round one step of every size,
 * the ranks starting each round together. A slow spell of the machine then
 * lands on a few steps of every size, which each rank's median passes over,
 * instead of on every step of the sizes measured during it. */
void nbc_measure_passive(nbc_run *run, const placement *place, const compute_calib_result *comp,
                         size_t count, const char *phase)
{
    int reps = nbc_passive_reps(run->cfg);
    /* The scheduler's counters around every step say why a step took what
     * it took (a thread that held the core, or a slower computation). */
    char err[256];
    if (nbc_threads_open_step_probe(run->threads, err, sizeof err) != 0)
        fprintf(stderr,
                "bench_nbc: rank %d: warning: passive.csv without the threads' counters: %s\n",
                run->rank, err);
    /* [size][step] and [size][step][field] */
    double *t = malloc((count ? count : 1) * reps * sizeof *t);
    int64_t *sched = malloc((count ? count : 1) * reps * PASSIVE_SCHED_FIELDS * sizeof *sched);
    nbc_exit_if_any_failed(!t || !sched, "out of memory", 1);
    int failed = 0;
    /* A rank that failed still takes every barrier: the ranks' collective
     * calls stay in step until all learn of it below. */
    for (int round = -NBC_PASSIVE_WARMUP_STEPS; round < reps; round++) {
        NBC_CHECK_MPI(nbc_quiet_barrier(run->comm));
        for (size_t j = 0; j < count && !failed; j++) {
            compute_step_timing timing;
            /* The suite's progress thread polls here as in every comp_ref
             * step: the same threads run on both sides of equation 2. */
            if (run->progress_thread)
                progress_thread_activate(run->progress_thread);
            nbc_threads_before_step(run->threads);
            failed = compute_step(run->team, comp[j].matrix_n, &timing) != 0;
            nbc_step_sched counters = nbc_threads_after_step(run->threads);
            if (run->progress_thread)
                progress_thread_deactivate(run->progress_thread);
            if (round >= 0) {
                size_t at = j * (size_t)reps + (size_t)round;
                t[at] = timing.step_s;
                int64_t *v = &sched[at * PASSIVE_SCHED_FIELDS];
                v[0] = counters.window_ns;
                v[1] = counters.compute_cpu_ns;
                v[2] = counters.compute_run_delay_ns;
                v[3] = counters.progress_cpu_ns;
            }
        }
    }
    NBC_CHECK_MPI(nbc_quiet_barrier(run->comm)); /* nobody polls while others compute */
    nbc_exit_if_any_failed(failed, compute_team_error(run->team), 1);
    /* every step is kept: the analysis resamples them for the interval of
     * equation 2 */
    for (size_t j = 0; j < count; j++)
        write_passive_size(run, place, &comp[j], phase, reps, &t[j * (size_t)reps],
                           &sched[j * (size_t)reps * PASSIVE_SCHED_FIELDS]);
    free(t);
    free(sched);
}

int nbc_passive_reps(const nbc_config *cfg)
{
    return cfg->run.repetitions < 5 ? 5 : cfg->run.repetitions;
}
