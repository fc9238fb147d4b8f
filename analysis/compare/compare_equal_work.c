/* analysis: the equal-work comparison of nbc-compare ("should I turn the
 * progress thread on?"). Each configuration against its reference (the
 * configuration of deployment basic of the same library and collective,
 * else the first of them) at the same message bytes and GEMM order in every
 * cell: t(configuration) / t(reference) of the overlap step's end-to-end
 * time t_measured (Algorithm 1, t4 - t1 over all ranks), per cell and over
 * the grid. Launch i of one configuration is paired with launch i of the
 * other (a study interleaves them, A B A B ...); the interval is Student's
 * t over the pairs' log ratios (df = pairs - 1), back-transformed. The grid's
 * figure is the geometric mean over the cells valid in every pair, each
 * pair's mean log ratio then the same t-interval over the pairs. Runs whose
 * sizes differ are refused: that is not the same work. */
#include "analysis/compare/compare_internal.h"
#include "analysis/stats/stats.h"
#include "schema/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a deployment means, for the sentence (DESIGN.md, Deployments). */
static const struct {
    const char *name;
    const char *words;
} deployment_words[] = {
    {"basic", "the library's defaults"},
    {"progress", "the library's asynchronous progress thread (e.g. MPICH_ASYNC_PROGRESS=1)"},
    {"dedicated", "the library's progress thread on a core of its own"},
    {"thread", "the suite's progress thread"},
    {"manual", "MPI_Test polling in the computation"},
};

static const char *words_of(const char *deployment)
{
    for (size_t i = 0; i < sizeof deployment_words / sizeof *deployment_words; i++)
        if (strcmp(deployment_words[i].name, deployment) == 0)
            return deployment_words[i].words;
    return deployment;
}

static void bytes_text(long long bytes, char *out, size_t size)
{
    if (bytes >= (1LL << 20) && bytes % (1LL << 20) == 0)
        snprintf(out, size, "%lld MiB", bytes >> 20);
    else if (bytes >= (1LL << 20))
        snprintf(out, size, "%.3g MiB", (double)bytes / (double)(1LL << 20));
    else if (bytes >= 1024)
        snprintf(out, size, "%.3g KiB", (double)bytes / 1024.0);
    else
        snprintf(out, size, "%lld B", bytes);
}

/* A ratio and its interval from log ratios: exp of the mean, and of the
 * mean +- t(0.975, count - 1) standard errors (NAN below two). */
typedef struct ratio_interval {
    double ratio, lo, hi;
    size_t pairs;
} ratio_interval;

static ratio_interval ratio_of_logs(const double *logs, size_t count)
{
    ratio_interval r = {NAN, NAN, NAN, count};
    if (count == 0)
        return r;
    double sum = 0;
    for (size_t k = 0; k < count; k++)
        sum += logs[k];
    double mean = sum / (double)count;
    r.ratio = exp(mean);
    if (count < 2)
        return r;
    double ss = 0;
    for (size_t k = 0; k < count; k++)
        ss += (logs[k] - mean) * (logs[k] - mean);
    double se = sqrt(ss / (double)(count - 1) / (double)count);
    double t = stats_student_quantile(0.975, (long)count - 1);
    r.lo = exp(mean - t * se);
    r.hi = exp(mean + t * se);
    return r;
}

/* The runs of configuration c, in launch order; how many. */
static size_t launches_of(const compare_run *runs, size_t run_count, size_t c, size_t *out)
{
    size_t k = 0;
    for (size_t r = 0; r < run_count; r++)
        if (runs[r].config == c)
            out[k++] = r;
    return k;
}

static bool same_library_and_collective(const compare_run *a, const compare_run *b)
{
    return strcmp(a->meta.mpi, b->meta.mpi) == 0 &&
           strcmp(a->meta.collective, b->meta.collective) == 0;
}

/* The reference of configuration c: deployment basic of its library and
 * collective, else the first configuration of them. */
static size_t reference_of(const compare_run *runs, const compare_config *configs,
                           size_t config_count, size_t c)
{
    const compare_run *mine = &runs[configs[c].first_run];
    size_t first = c;
    for (size_t d = config_count; d-- > 0;) {
        const compare_run *other = &runs[configs[d].first_run];
        if (same_library_and_collective(mine, other))
            first = d;
    }
    for (size_t d = 0; d < config_count; d++) {
        const compare_run *other = &runs[configs[d].first_run];
        if (same_library_and_collective(mine, other) &&
            strcmp(other->meta.deployment, "basic") == 0)
            return d;
    }
    return first;
}

/* 0 when every run of both lists measured the sizes of the first in every
 * common cell; else -1 with the first difference in why. */
static int check_equal_work(const compare_run *runs, const size_t *list, size_t count,
                            const common_cell *common, size_t n, char *why, size_t why_size)
{
    for (size_t i = 0; i < n; i++) {
        const cell_metrics *first = &runs[list[0]].cells.cells[common[i].index[list[0]]];
        for (size_t k = 1; k < count; k++) {
            const cell_metrics *c = &runs[list[k]].cells.cells[common[i].index[list[k]]];
            if (c->bytes != first->bytes || c->matrix_n != first->matrix_n) {
                snprintf(why, why_size,
                         "cell comm %g ms x comp %g ms has S = %lld B, n = %lld in %s and S = "
                         "%lld B, n = %lld in %s",
                         common[i].comm_target_s * 1e3, common[i].comp_target_s * 1e3, first->bytes,
                         first->matrix_n, runs[list[0]].label, c->bytes, c->matrix_n,
                         runs[list[k]].label);
                return -1;
            }
        }
    }
    return 0;
}

/* t_measured of common cell i in run r, or NAN where it is not valid. */
static double t_measured_at(const compare_run *runs, size_t r, const common_cell *common, size_t i)
{
    const cell_metrics *c = &runs[r].cells.cells[common[i].index[r]];
    return c->valid && c->t_measured > 0 && isfinite(c->t_measured) ? c->t_measured : NAN;
}

typedef struct pairing {
    size_t c, ref;
    const size_t *mine, *theirs; /* runs in launch order */
    size_t pairs;
} pairing;

/* The log ratio of pair k in common cell i, NAN where either is invalid. */
static double log_ratio(const compare_run *runs, const pairing *p, const common_cell *common,
                        size_t i, size_t k)
{
    return log(t_measured_at(runs, p->mine[k], common, i) /
               t_measured_at(runs, p->theirs[k], common, i));
}

/* One configuration against its reference: its rows and its sentence. */
static void compare_pair(const compare_run *runs, const pairing *p, const compare_config *configs,
                         const common_cell *common, size_t n, double *logs, strbuf *csv,
                         strbuf *text)
{
    const compare_run *mine = &runs[p->mine[0]], *theirs = &runs[p->theirs[0]];
    const char *mpi = meta_or(mine->meta.mpi, "?"), *coll = meta_or(mine->meta.collective, "?");
    const char *dep = meta_or(mine->meta.deployment, "?");
    const char *ref_dep = meta_or(theirs->meta.deployment, "?");
    size_t largest = n; /* the cell of the longest targets with a ratio */
    ratio_interval at_largest = {NAN, NAN, NAN, 0};
    for (size_t i = 0; i < n; i++) {
        size_t m = 0;
        for (size_t k = 0; k < p->pairs; k++) {
            double l = log_ratio(runs, p, common, i, k);
            if (isfinite(l))
                logs[m++] = l;
        }
        ratio_interval r = ratio_of_logs(logs, m);
        const cell_metrics *cell = &mine->cells.cells[common[i].index[p->mine[0]]];
        strbuf_printf(csv, "cell,%s,%s,%s,%s,%zu,%zu,%.9g,%.9g,%lld,%lld,1,%zu,%.6g,%.6g,%.6g\n",
                      mpi, coll, dep, ref_dep, p->c + 1, p->ref + 1, common[i].comm_target_s,
                      common[i].comp_target_s, cell->bytes, cell->matrix_n, r.pairs, r.ratio, r.lo,
                      r.hi);
        if (m > 0 && (largest == n || common[i].comm_target_s > common[largest].comm_target_s ||
                      (common[i].comm_target_s == common[largest].comm_target_s &&
                       common[i].comp_target_s > common[largest].comp_target_s))) {
            largest = i;
            at_largest = r;
        }
    }
    /* The grid: the cells valid in every pair, each pair's mean log ratio. */
    size_t cells = 0;
    for (size_t k = 0; k < p->pairs; k++) {
        double sum = 0;
        size_t used = 0;
        for (size_t i = 0; i < n; i++) {
            bool everywhere = true;
            for (size_t q = 0; q < p->pairs && everywhere; q++)
                everywhere = isfinite(log_ratio(runs, p, common, i, q));
            if (everywhere) {
                sum += log_ratio(runs, p, common, i, k);
                used++;
            }
        }
        cells = used;
        logs[k] = used ? sum / (double)used : NAN;
    }
    ratio_interval grid =
        cells ? ratio_of_logs(logs, p->pairs) : (ratio_interval){NAN, NAN, NAN, 0};
    strbuf_printf(csv, "grid,%s,%s,%s,%s,%zu,%zu,,,,,%zu,%zu,%.6g,%.6g,%.6g\n", mpi, coll, dep,
                  ref_dep, p->c + 1, p->ref + 1, cells, grid.pairs, grid.ratio, grid.lo, grid.hi);
    char interval[96] = "";
    strbuf_printf(text,
                  "equal work, %s %s, configuration %zu (%s) against %zu (%s), %zu pair%s of "
                  "launches:\n",
                  mpi, coll, p->c + 1, configs[p->c].label, p->ref + 1, configs[p->ref].label,
                  p->pairs, p->pairs == 1 ? "" : "s");
    if (largest == n) {
        strbuf_printf(text, "  no cell valid in both: no ratio\n");
        return;
    }
    const cell_metrics *cell = &mine->cells.cells[common[largest].index[p->mine[0]]];
    char size[48];
    if (mine->meta.synthetic) /* its size is a duration */
        snprintf(size, sizeof size, "S = %lld ns", cell->bytes);
    else
        bytes_text(cell->bytes, size, sizeof size);
    if (isnan(at_largest.lo))
        snprintf(interval, sizeof interval, "(one pair: no interval)");
    else
        snprintf(interval, sizeof interval, "[%.2f, %.2f]", at_largest.lo, at_largest.hi);
    strbuf_printf(text,
                  "  with %s (%s), computation (n = %lld, %g ms) + %s of %s (%g ms) takes %.2fx "
                  "as long as with %s (%s) %s\n",
                  words_of(dep), dep, cell->matrix_n, common[largest].comp_target_s * 1e3, coll,
                  size, common[largest].comm_target_s * 1e3, at_largest.ratio, words_of(ref_dep),
                  ref_dep, interval);
    if (isnan(grid.ratio)) {
        strbuf_printf(text, "  over the grid: no cell valid in every pair\n");
        return;
    }
    if (isnan(grid.lo))
        snprintf(interval, sizeof interval, "(one pair: no interval)");
    else
        snprintf(interval, sizeof interval, "[%.2f, %.2f]", grid.lo, grid.hi);
    strbuf_printf(text,
                  "  over the grid (the geometric mean over the %zu cell%s valid in every pair): "
                  "%.2fx as long %s\n",
                  cells, cells == 1 ? "" : "s", grid.ratio, interval);
}

int write_equal_work(const compare_run *runs, size_t run_count, const compare_config *configs,
                     size_t config_count, const common_cell *common, size_t n, const char *out_dir,
                     FILE *report, analysis_error *err)
{
    size_t *order = malloc(2 * run_count * sizeof *order);
    double *logs = malloc((run_count + n + 1) * sizeof *logs);
    size_t *both = malloc(2 * run_count * sizeof *both);
    if (!order || !logs || !both) {
        free(order);
        free(logs);
        free(both);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (equal work)");
    }
    strbuf csv = {0}, text = {0};
    strbuf_printf(&text, "%s", ""); /* (ok, also when it stays empty) */
    /* The cell's coordinates under cells.csv's names. */
    strbuf_printf(&csv,
                  "scope,mpi,%s,deployment,reference_deployment,configuration,"
                  "reference_configuration,%s,%s,%s,%s,cells,pairs,ratio,ratio_lo,ratio_hi\n",
                  schema_column_name(COL_CELLS_COLLECTIVE),
                  schema_column_name(COL_CELLS_COMM_TARGET),
                  schema_column_name(COL_CELLS_COMP_TARGET), schema_column_name(COL_CELLS_BYTES),
                  schema_column_name(COL_CELLS_MATRIX_N));
    size_t compared = 0;
    for (size_t c = 0; c < config_count; c++) {
        size_t ref = reference_of(runs, configs, config_count, c);
        if (ref == c)
            continue;
        size_t *mine = order, *theirs = order + run_count;
        size_t mine_count = launches_of(runs, run_count, c, mine);
        size_t theirs_count = launches_of(runs, run_count, ref, theirs);
        /* the reference first: a difference is said against its sizes */
        memcpy(both, theirs, theirs_count * sizeof *both);
        memcpy(both + theirs_count, mine, mine_count * sizeof *both);
        char why[512];
        if (check_equal_work(runs, both, mine_count + theirs_count, common, n, why, sizeof why) !=
            0) {
            strbuf_printf(&text,
                          "equal work: configuration %zu (%s) against %zu (%s) refused, not the "
                          "same work: %s (runs that calibrated separately; a study's runs share "
                          "one calibration, bench_nbc run.calibration_from)\n",
                          c + 1, configs[c].label, ref + 1, configs[ref].label, why);
            continue;
        }
        pairing p = {.c = c,
                     .ref = ref,
                     .mine = mine,
                     .theirs = theirs,
                     .pairs = mine_count < theirs_count ? mine_count : theirs_count};
        compare_pair(runs, &p, configs, common, n, logs, &csv, &text);
        compared++;
    }
    free(order);
    free(logs);
    free(both);
    int status = ANALYSIS_OK;
    if (!csv.ok || !text.ok)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (equal work)");
    if (report && text.len)
        fputs(text.data, report);
    /* Without a configuration compared, no table: nothing in it would be
     * the same work. */
    if (status == ANALYSIS_OK && compared > 0)
        status = write_text(out_dir, "equal_work.csv", &csv, err);
    if (status == ANALYSIS_OK && text.len)
        status = write_text(out_dir, "equal_work.txt", &text, err);
    strbuf_free(&csv);
    strbuf_free(&text);
    return status;
}
