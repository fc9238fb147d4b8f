/* Sizes for target times (sections 4.3 and 5.1 of the paper): the message
 * size of the collective and the matrix size of the computation, each found
 * by measuring its reference on all ranks. Every rank computes the same
 * decisions from the same (allreduced) measurements, so they stay in step. */
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/measure/size_search.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- communication ---------------------------------------------------- */

/* A calibration point's measurement, judged late on the same scale as the
 * sweep's (its own expected time is the shorter reference here). The sizes
 * are a search, not a result: when the retries run out the last attempt
 * still guides it, and nothing of the calibration goes to raw.csv. */
static int calibration_measure(nbc_run *run, nbc_kind kind, coll_instance *inst, size_t matrix_n,
                               double expected_s, nbc_sample *sample)
{
    static const int64_t calibration_floor_ns = 10000;
    nbc_measure_spec spec = {
        .kind = kind,
        .inst = inst,
        .matrix_n = matrix_n,
        .expected_s = expected_s,
        .t_comp_s = expected_s,
        .tolerance_ns = nbc_lateness_tolerance_ns(run->cfg->run.late_tolerance, expected_s,
                                                  expected_s, calibration_floor_ns),
    };
    nbc_attempt_log log = {0};
    bool late = true;
    int rc = MPI_SUCCESS;
    /* One kind alone: a late attempt is redone by itself. */
    for (spec.attempt = 0; rc == MPI_SUCCESS && late && spec.attempt <= run->max_retries;
         spec.attempt++)
        rc = nbc_measure(run, &spec, &log, &late);
    if (rc == MPI_SUCCESS)
        *sample = log.items[log.count - 1].sample;
    nbc_attempt_log_free(&log);
    return rc;
}

/* The calibration's options from the configuration: runs_per_point runs
 * of each candidate, up to 8 times as many while their estimate is less
 * precise than a quarter of the tolerance (compute_calib_point_rule). */
static compute_calib_options calibration_options(const nbc_config *cfg)
{
    compute_calib_options options = compute_calib_defaults();
    options.tolerance = cfg->calibration.tolerance;
    options.reps = cfg->calibration.runs_per_point;
    options.max_reps = 8 * cfg->calibration.runs_per_point;
    options.max_iterations = cfg->calibration.max_iterations;
    return options;
}

typedef struct comm_measure_context {
    nbc_run *run;
    coll_instance *inst;
    double expected_s;
    int error;
} comm_measure_context;

/* compute_measure_fn: one comm reference, its span across ranks (the same
 * on every rank, so all take the same decisions). The size is the
 * instance's. */
static int measure_comm_run(void *context, size_t bytes, double *t_s)
{
    (void)bytes;
    comm_measure_context *c = context;
    nbc_sample s;
    int rc = calibration_measure(c->run, KIND_COMM_REF, c->inst, 0, c->expected_s, &s);
    if (rc == MPI_SUCCESS)
        rc = nbc_global_span_s(c->run, s.t_ns[0], s.t_ns[3], t_s);
    c->error = rc;
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* The comm reference span at `bytes`, as a candidate of the calibration to
 * target_s sees it (compute_measure_point), and its slack
 * (compute_point_slack_s: above 0 when imprecise). */
static int measure_comm(nbc_run *run, size_t bytes, double target_s, compute_point *point,
                        double *slack_s, size_t *used_bytes)
{
    coll_instance inst;
    int rc = nbc_prepare_instance(run, bytes, &inst);
    if (rc != MPI_SUCCESS)
        return rc;
    compute_calib_options options = calibration_options(run->cfg);
    compute_point_rule rule = compute_calib_point_rule(&options, target_s);
    comm_measure_context context = {run, &inst, target_s, MPI_SUCCESS};
    if (compute_measure_point(measure_comm_run, &context, inst.bytes, &rule, point) != 0)
        rc = context.error != MPI_SUCCESS ? context.error : MPI_ERR_NO_MEM;
    *slack_s = rc == MPI_SUCCESS ? compute_point_slack_s(point, &rule) : 0;
    *used_bytes = inst.bytes;
    coll_instance_release(&inst);
    return rc;
}

/* A target the search did not reach: every size it measured (its latest
 * time), on rank 0's stderr (the job's log), so that a time that jumps
 * with the size (two algorithms, a bimodal step) can be seen where it
 * stopped. */
static void report_sizes_tried(const nbc_run *run, const size_search *search)
{
    if (run->rank != 0 || search->converged || !run->coll->sizable)
        return;
    fprintf(stdout, "bench_nbc: communication %.3g ms not reached; sizes tried:",
            search->options.target_s * 1e3);
    for (int i = 0; i < search->n_points; i++)
        fprintf(stdout, "%s %.0f B %.3g ms%s", i > 0 ? "," : "", search->points[i].bytes,
                search->points[i].t_s * 1e3,
                search->points[i].measured_again ? " (measured again)" : "");
    fputs(search->n_points == 0 ? " none\n" : "\n", stdout);
}

int nbc_calibrate_comm(nbc_run *run, double target_s, size_t start_bytes, size_t floor_bytes,
                       nbc_comm_calibration *result)
{
    const nbc_config *cfg = run->cfg;
    size_t coll_max_bytes = nbc_collective_max_bytes(run->coll, &run->coll_options, run->ranks);
    /* A size the library is known to fail is never tried (its profile's
     * [size_limit]; a calibration.max_bytes set above it was refused). */
    size_t library_max_bytes =
        nbc_library_max_bytes(run->coll, &run->coll_options, run->ranks, NULL);
    if (library_max_bytes < coll_max_bytes)
        coll_max_bytes = library_max_bytes;
    size_search_options options = {
        .target_s = target_s,
        .tolerance = cfg->calibration.tolerance,
        .unit_bytes = nbc_collective_unit_bytes(run->coll, &run->coll_options),
        .max_bytes = cfg->calibration.max_bytes < coll_max_bytes
                         ? (size_t)cfg->calibration.max_bytes
                         : coll_max_bytes,
        .floor_bytes = floor_bytes,
        .max_points = cfg->calibration.max_iterations,
        .size_irrelevant = !run->coll->sizable,
    };
    size_search search;
    if (size_search_init(&search, &options, start_bytes) != 0)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    compute_point closest = {0};
    double closest_slack_s = 0;
    while (!size_search_done(&search)) {
        size_t used;
        compute_point point;
        double slack_s;
        rc = measure_comm(run, size_search_next_bytes(&search), target_s, &point, &slack_s, &used);
        if (rc != MPI_SUCCESS)
            break;
        size_search_record(&search, used, point.t_s, slack_s);
        if (search.closest_bytes == used && search.closest_t_s == point.t_s) {
            closest = point;
            closest_slack_s = slack_s;
        }
    }
    /* A target missed by a little is measured at its closest size: the
     * analysis reads that cell's reference as the target's while within its
     * off-target tolerance, and flags it (calib_comm.csv converged = 0). */
    bool measurable = size_search_measurable(&search, nbc_off_target_max_error());
    *result = (nbc_comm_calibration){
        .target_s = target_s,
        .bytes = measurable ? search.closest_bytes : 0,
        .bytes_closest = search.closest_bytes,
        .t_s = search.closest_t_s,
        .t_se_s = closest.standard_error_s,
        .runs = closest.runs,
        .imprecise = closest_slack_s > 0,
        .iterations = search.measurements,
        .converged = search.converged,
    };
    if (rc == MPI_SUCCESS)
        report_sizes_tried(run, &search);
    size_search_free(&search);
    return rc;
}

/* A pilot's stand-in target: long enough that runs_per_point runs meet its
 * precision (a quarter of the tolerance of 1 s) and lateness is judged
 * loosely; the pilot's time is then the target of the measurement kept. */
static const double pilot_target_s = 1.0;

int nbc_measure_comm_size(nbc_run *run, size_t bytes, nbc_comm_calibration *result)
{
    compute_point pilot, point;
    double slack_s;
    size_t used;
    int rc = measure_comm(run, bytes, pilot_target_s, &pilot, &slack_s, &used);
    /* The precision and the lateness the sweep asks of a step this long. */
    if (rc == MPI_SUCCESS)
        rc = measure_comm(run, bytes, pilot.t_s, &point, &slack_s, &used);
    if (rc != MPI_SUCCESS)
        return rc;
    *result = (nbc_comm_calibration){
        .target_s = point.t_s,
        .bytes = used,
        .bytes_closest = used,
        .t_s = point.t_s,
        .t_se_s = point.standard_error_s,
        .runs = point.runs,
        .imprecise = slack_s > 0,
        .iterations = 1,
        .converged = true,
        .size_given = true,
    };
    return MPI_SUCCESS;
}

/* ---- computation ------------------------------------------------------- */

typedef struct comp_measure_context {
    nbc_run *run;
    double target_s;
    int error;
} comp_measure_context;

/* compute_measure_fn: one comp reference on every rank, its span across
 * ranks (the slowest thread of the slowest rank). */
static int measure_comp(void *context, size_t matrix_n, double *t_s)
{
    comp_measure_context *c = context;
    nbc_run *run = c->run;
    int failed = compute_team_reserve(run->team, matrix_n) != 0, any_failed;
    int rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc == MPI_SUCCESS && any_failed) {
        if (failed)
            fprintf(stderr, "bench_nbc: rank %d: %s\n", run->rank, compute_team_error(run->team));
        rc = MPI_ERR_NO_MEM;
    }
    nbc_sample s;
    if (rc == MPI_SUCCESS)
        rc = calibration_measure(run, KIND_COMP_REF, NULL, matrix_n, c->target_s, &s);
    if (rc == MPI_SUCCESS)
        rc = nbc_global_span_s(run, s.t_ns[1], s.t_ns[2], t_s);
    c->error = rc;
    return rc == MPI_SUCCESS ? 0 : -1;
}

int nbc_calibrate_comp(nbc_run *run, double target_s, size_t start_n,
                       const compute_calib_result *floor, size_t max_n,
                       compute_calib_result *result, char *err, size_t errlen)
{
    compute_calib_options options = calibration_options(run->cfg);
    options.max_matrix_n = max_n;
    options.start_n = start_n;
    if (floor) {
        options.floor_n = floor->matrix_n;
        options.floor_t_s = floor->t_s;
    }
    comp_measure_context context = {.run = run, .target_s = target_s, .error = MPI_SUCCESS};
    if (compute_calibrate(&options, target_s, measure_comp, &context, result, err, errlen) != 0)
        return context.error != MPI_SUCCESS ? context.error : MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

int nbc_check_comp(nbc_run *run, const compute_calib_result *calibrated, compute_point *again,
                   bool *holds)
{
    compute_calib_options options = calibration_options(run->cfg);
    comp_measure_context context = {
        .run = run, .target_s = calibrated->target_s, .error = MPI_SUCCESS};
    if (compute_calib_check(&options, calibrated, nbc_off_target_max_error(), measure_comp,
                            &context, again, holds) != 0)
        return context.error != MPI_SUCCESS ? context.error : MPI_ERR_OTHER;
    return MPI_SUCCESS;
}
