/* bench_nbc: measures how an MPI library overlaps a nonblocking collective
 * with computation (the BenchNBC method, sections 4 and 5.1 of the paper).
 *
 *   mpiexec -n P bench_nbc -c configs/default.conf [--set section.key=value]...
 *   mpiexec -n P bench_nbc --resume RUN_DIR
 *   (--stop-after calibration: stop before the sweep, which --resume runs;
 *   --run-dir-file FILE: the run folder's path for the program launching it)
 *
 * The pipeline, each stage in the file named for it, each writing files the
 * next reads (docs/formats.md). Bad input of any kind exits 2 on every rank,
 * before any measurement. */
#include "bench_nbc/stages/stages.h"

int main(int argc, char **argv)
{
    static nbc_job job; /* large: the deployment plan's CPU lists */
    int status;
    /* command line, and the configuration's deployment plan (--plan) */
    if ((status = nbc_parse_stage(&job, argc, argv)) >= 0)
        return status;
    /* MPI started, configuration and studies validated, ranks placed */
    if ((status = nbc_plan_stage(&job, &argc, &argv)) >= 0)
        return status;
    nbc_start_guards(&job.study); /* watchdog, stop signals */
    /* Once for the job, its studies share them: the clocks synchronized,
     * the matrix sizes. */
    nbc_clock_sync_stage(&job.study.run, &job.dep.plan, &job.shared);
    nbc_computation_stage(&job.study, &job.cli, &job.shared);
    /* Each (collective, rank count) on the job's first N ranks, in its own
     * run folder; the other ranks wait asleep inside nbc_next_study. */
    while (nbc_next_study(&job)) {
        nbc_open_run_folder(&job); /* config.ini, meta.json, calib_comp.csv */
        /* passive step (equation 2), message sizes */
        nbc_calibration_stage(&job.study, &job.cli, &job.place, &job.shared);
        nbc_sweep_stage(&job.study, &job.cli, job.seed, &job.dep, &job.shared);
        nbc_finish_study(&job); /* end clock point, raw records in global time */
    }
    return nbc_finish_stage(&job);
}
