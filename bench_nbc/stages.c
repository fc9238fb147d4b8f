/* The stages before the sweep, on every rank: what a resumed run already
 * has, the computation and communication sizes for the targets (paper
 * sections 4.3 and 5.1), and the passive computation time (equation 2),
 * before the sweep and after it. */
#include "bench_nbc/driver.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* A barrier that does not burn the CPU while it waits: a rank that ends its
 * steps first would otherwise busy-poll (MPICH, Open MPI) next to a rank
 * still computing, and on cores that share a physical one (SMT, virtual
 * CPUs) slow it; compute_ref's processes wait asleep. */
static int quiet_barrier(MPI_Comm comm)
{
    MPI_Request request;
    int done = 0, rc = MPI_Ibarrier(comm, &request);
    while (rc == MPI_SUCCESS && !(rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE)) && !done) {
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 200000};
        nanosleep(&pause, NULL);
    }
    return rc;
}

/* t_comp_passive_mpi (equation 2): the GEMM step inside MPI with no
 * communication in flight, on every rank at the same time. The no-MPI
 * reference (compute_ref) runs the same way: as many processes per host,
 * the same warm-up steps and repetitions, every step recorded (one row
 * each, docs/formats.md), so the analysis takes the same statistic of both
 * and the ratio compares like with like. */
void nbc_measure_passive(nbc_run *run, const placement *place, const compute_calib_result *comp,
                         size_t count, const char *phase)
{
    int reps = nbc_passive_reps(run->cfg);
    for (size_t j = 0; j < count; j++) {
        double t[reps];
        compute_step_timing timing;
        int failed = 0;
        /* Ranks start each size together, as compute_ref's processes do. */
        NBC_CHECK_MPI(quiet_barrier(run->comm));
        for (int i = -NBC_PASSIVE_WARMUP_STEPS; i < reps && !failed; i++) {
            /* The suite's progress thread polls here as in every comp_ref
             * step: the same threads run on both sides of equation 2. */
            if (run->progress_thread)
                progress_thread_activate(run->progress_thread);
            failed = compute_step(run->team, comp[j].matrix_n, &timing) != 0;
            if (run->progress_thread)
                progress_thread_deactivate(run->progress_thread);
            if (i >= 0)
                t[i] = timing.step_s;
        }
        NBC_CHECK_MPI(quiet_barrier(run->comm)); /* nobody polls while others compute */
        nbc_exit_if_any_failed(failed, compute_team_error(run->team), 1);
        /* every step is kept: the analysis resamples them for the interval
         * of equation 2 */
        double *all = run->rank == 0 ? malloc((size_t)run->ranks * reps * sizeof *all) : NULL;
        char *hosts = run->rank == 0 ? malloc((size_t)run->ranks * 256) : NULL;
        nbc_exit_if_any_failed(run->rank == 0 && (!all || !hosts), "out of memory", 1);
        NBC_CHECK_MPI(MPI_Gather(t, reps, MPI_DOUBLE, all, reps, MPI_DOUBLE, 0, run->comm));
        NBC_CHECK_MPI(MPI_Gather(place->host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, run->comm));
        FILE *f = run->rank == 0 ? run_output_file(run->out, OUT_PASSIVE) : NULL;
        for (int r = 0; f && r < run->ranks; r++)
            for (int i = 0; i < reps; i++)
                fprintf(f, "%s,%d,%d,%zu,%.9g,%s,%d,%d,%d,%.9g\n", hosts + 256 * r, r,
                        compute_team_threads(run->team), comp[j].matrix_n, comp[j].target_s, phase,
                        NBC_PASSIVE_WARMUP_STEPS, reps, i, all[(size_t)r * reps + i]);
        free(all);
        free(hosts);
    }
}

int nbc_passive_reps(const nbc_config *cfg)
{
    return cfg->run.repetitions < 5 ? 5 : cfg->run.repetitions;
}

/* What the run folder already holds: nothing for a new run; for --resume,
 * what rank 0 reads there, broadcast to every rank. Exits 2 on a folder that
 * does not belong to this configuration and library. */
void nbc_load_prior(nbc_run *run, const char *resume_dir, nbc_resume *prior)
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
        } else if (ranks != run->ranks || strcmp(mpi, nbc_compiled_mpi()) != 0) {
            snprintf(err, sizeof err,
                     "--resume: %s ran on %d ranks with %s; resume it the same way (this is %d "
                     "ranks with %s)",
                     resume_dir, ranks, mpi, run->ranks, nbc_compiled_mpi());
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
    nbc_exit_if_any_failed(bad, err, 2);
    unsigned long long counts[4] = {prior->comp_done, prior->comm_done, prior->passive_done,
                                    (unsigned long long)prior->next_seq};
    long keep = prior->raw_keep_bytes;
    NBC_CHECK_MPI(MPI_Bcast(counts, 4, MPI_UNSIGNED_LONG_LONG, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(&keep, 1, MPI_LONG, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(prior->comp, (int)(cfg->grid.comp_count * sizeof *prior->comp),
                            MPI_BYTE, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(prior->comm, (int)(cfg->grid.comm_count * sizeof *prior->comm),
                            MPI_BYTE, 0, run->comm));
    NBC_CHECK_MPI(MPI_Bcast(prior->cell_done, (int)cells, MPI_C_BOOL, 0, run->comm));
    prior->comp_done = counts[0];
    prior->comm_done = counts[1];
    prior->passive_done = counts[2] != 0;
    prior->next_seq = (int64_t)counts[3];
    prior->raw_keep_bytes = keep;
}

/* Matrix sizes for every computation target (those a resumed run already
 * has are kept). */
bool nbc_calibrate_computation(nbc_run *run, compute_calib_result *comp, size_t done)
{
    const nbc_config *cfg = run->cfg;
    char err[1024] = "";
    unsigned long long max_n_mine = compute_team_max_matrix_n(run->team), max_n;
    NBC_CHECK_MPI(
        MPI_Allreduce(&max_n_mine, &max_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, run->comm));
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
            nbc_exit_if_any_failed(rc != MPI_SUCCESS, err, 1);
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
    nbc_exit_if_any_failed(compute_team_reserve(run->team, largest_n) != 0,
                           compute_team_error(run->team), 1);
    return true;
}

/* Message sizes for every communication target (kept ones are reused). */
bool nbc_calibrate_communication(nbc_run *run, nbc_comm_calibration *comm, size_t done)
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
            nbc_exit_if_any_failed(rc != MPI_SUCCESS, "the communication calibration failed", 1);
            write_calib_comm(run, &comm[i]);
        }
        if (comm[i].bytes_closest > 0)
            start_bytes = comm[i].bytes_closest;
        if (run->rank == 0)
            fprintf(stderr,
                    "bench_nbc: communication %.3g ms -> %zu B, %.3g ms (%s%s, %d sizes tried)\n",
                    comm[i].target_s * 1e3, comm[i].bytes_closest, comm[i].t_s * 1e3,
                    comm[i].converged ? "converged" : "NOT converged: its cells are not measured",
                    i < done ? ", kept" : "", comm[i].iterations);
    }
    bool write_failed = run->rank == 0 && run_output_flush(run->out) != 0;
    nbc_exit_if_any_failed(write_failed, "cannot write the calibration files", 1);
    return true;
}

coll_options nbc_coll_options(const nbc_config *cfg)
{
    int datatype = nbc_collective_datatype_find(cfg->run.datatype);
    return (coll_options){.root = cfg->run.root,
                          .datatype = datatype < 0 ? COLL_AUTO : (coll_datatype)datatype,
                          .in_place = cfg->run.in_place};
}

uint64_t nbc_config_buffer_bytes(const nbc_config *cfg, uint64_t bytes, int ranks, char *what,
                                 size_t whatlen)
{
    const nbc_collective *coll = nbc_collective_find(cfg->run.collective);
    if (!coll) /* validated before: unreachable */
        return 4 * bytes;
    coll_options options = nbc_coll_options(cfg);
    nbc_collective_describe_buffers(coll, &options, ranks, what, whatlen);
    return nbc_collective_buffer_bytes(coll, &options, bytes, ranks);
}
