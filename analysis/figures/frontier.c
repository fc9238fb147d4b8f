/* analysis: the overlap frontier of a run's grid, computed from its cells
 * (frontier.h; README.md, "Overlap frontier"). */
#include "analysis/figures/figures.h"
#include "analysis/metrics/metrics.h"
#include "analysis/stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[FRONTIER_STATUS_COUNT] = {
    [FRONTIER_WITHIN] = "within",
    [FRONTIER_BEYOND_GRID] = "beyond_grid",
    [FRONTIER_NONE] = "none",
    [FRONTIER_NOT_DETERMINED] = "not_determined",
};

const char *frontier_status_name(enum frontier_status status)
{
    return status < FRONTIER_STATUS_COUNT ? status_names[status] : "?";
}

/* r_overhead (eq. 1) is the share of the serialization cost paid,
 * Delta_measured / Delta_serialized (section 3.1); where the computation is
 * the longer part it is the share of the collective's time left unhidden.
 * Values within 0.1 of 0 are not told apart from perfect overlap by these
 * references (below -0.1 they read the references' imprecision), so the
 * collective counts as hidden up to +0.1, the same margin on the other
 * side. */
double frontier_default_threshold(void)
{
    return 0.1;
}

/* What one cell tells the scan, on the value it reads (the estimate, or an
 * end of its interval). */
enum reading { READ_HIDDEN, READ_NOT_HIDDEN, READ_BROKEN };

static enum reading read_cell(const cell_metrics *c, double value, double threshold)
{
    if (!c->valid || !isfinite(value))
        return READ_BROKEN;
    return value <= threshold ? READ_HIDDEN : READ_NOT_HIDDEN;
}

/* The value a scan reads: the estimate, or an end of its 95 % interval. */
enum scan_value { SCAN_ESTIMATE, SCAN_CI_HI, SCAN_CI_LO };

static double scan_value_of(const cell_metrics *c, enum scan_value which)
{
    static const size_t offsets[] = {
        [SCAN_ESTIMATE] = offsetof(cell_metrics, r_overhead),
        [SCAN_CI_HI] = offsetof(cell_metrics, r_overhead_ci.hi),
        [SCAN_CI_LO] = offsetof(cell_metrics, r_overhead_ci.lo),
    };
    double value;
    memcpy(&value, (const char *)c + offsets[which], sizeof value);
    return value;
}

/* One scan up a row (cells by computation target, ascending): it stops at
 * the first cell not hidden or broken. */
typedef struct scan {
    enum frontier_status status;
    size_t hidden; /* cells hidden from the first on */
} scan;

static scan scan_row(const cell_metrics *const *row, size_t n, enum scan_value which,
                     double threshold)
{
    scan s = {FRONTIER_BEYOND_GRID, 0};
    for (; s.hidden < n; s.hidden++) {
        enum reading r = read_cell(row[s.hidden], scan_value_of(row[s.hidden], which), threshold);
        if (r == READ_BROKEN) {
            s.status = FRONTIER_NOT_DETERMINED;
            return s;
        }
        if (r == READ_NOT_HIDDEN) {
            s.status = s.hidden ? FRONTIER_WITHIN : FRONTIER_NONE;
            return s;
        }
    }
    return s;
}

static int by_comp_target(const void *a, const void *b)
{
    const cell_metrics *x = *(const cell_metrics *const *)a, *y = *(const cell_metrics *const *)b;
    return (x->comp_target_s > y->comp_target_s) - (x->comp_target_s < y->comp_target_s);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Why the cell broke the scan. */
static void break_reason(const cell_metrics *c, char *out, size_t out_size)
{
    if (!c->valid)
        analysis_invalid_reasons_text(c->invalid_reasons, out, out_size);
    else
        snprintf(out, out_size, "no_estimate");
}

static void fill_row(const cell_metrics *const *row, size_t n, double threshold, double *scratch,
                     frontier_row *out)
{
    *out = (frontier_row){.comm_target_s = row[0]->comm_target_s,
                          .bytes = row[0]->bytes,
                          .threshold = threshold,
                          .comp_target_s = NAN,
                          .comp_ci_lo_s = NAN,
                          .comp_ci_hi_s = NAN,
                          .next_comp_target_s = NAN,
                          .break_comp_target_s = NAN,
                          .r_overhead = NAN,
                          .r_overhead_ci = {NAN, NAN},
                          .lengthening_s = NAN,
                          .lengthening_ci_s = {NAN, NAN},
                          .r_comm = NAN,
                          .r_comm_ci = {NAN, NAN}};
    snprintf(out->break_reason, sizeof out->break_reason, "none");
    size_t valid = 0;
    for (size_t i = 0; i < n; i++)
        if (row[i]->valid && isfinite(row[i]->t_comm_ref)) {
            if (valid == 0)
                out->bytes = row[i]->bytes;
            scratch[valid++] = row[i]->t_comm_ref;
        }
    out->t_comm_ref_s = stats_median(scratch, valid); /* NAN without a valid cell */

    scan point = scan_row(row, n, SCAN_ESTIMATE, threshold);
    scan sure = scan_row(row, n, SCAN_CI_HI, threshold);
    scan possible = scan_row(row, n, SCAN_CI_LO, threshold);
    out->status = point.status;
    if (point.status == FRONTIER_WITHIN || point.status == FRONTIER_BEYOND_GRID) {
        const cell_metrics *c = row[point.hidden - 1];
        double shorter = fmin(c->t_comm_ref, c->t_comp_ref);
        out->comp_target_s = c->comp_target_s;
        out->r_overhead = c->r_overhead;
        out->r_overhead_ci = c->r_overhead_ci;
        /* Delta_measured (section 3.1) = eq. 1 x Delta_serialized, the
         * references taken as known for its interval */
        out->lengthening_s = c->r_overhead * shorter;
        out->lengthening_ci_s =
            (metric_bounds){c->r_overhead_ci.lo * shorter, c->r_overhead_ci.hi * shorter};
        out->r_comm = c->r_comm;
        out->r_comm_ci = c->r_comm_ci;
    }
    if (point.status == FRONTIER_WITHIN || point.status == FRONTIER_NONE)
        out->next_comp_target_s = row[point.hidden]->comp_target_s;
    if (point.status == FRONTIER_NOT_DETERMINED) {
        out->break_comp_target_s = row[point.hidden]->comp_target_s;
        break_reason(row[point.hidden], out->break_reason, sizeof out->break_reason);
    }
    /* the lower end: cells up to it hidden even at their interval's top */
    if (sure.hidden > 0)
        out->comp_ci_lo_s = row[sure.hidden - 1]->comp_target_s;
    /* the upper end: cells up to it possibly hidden; with no column shown
     * not hidden above them, the grid does not bound it */
    if (possible.status == FRONTIER_BEYOND_GRID || possible.status == FRONTIER_NOT_DETERMINED)
        out->comp_ci_hi_s = INFINITY;
    else if (possible.hidden > 0)
        out->comp_ci_hi_s = row[possible.hidden - 1]->comp_target_s;
}

int frontier_compute(const cell_table *cells, double threshold, frontier_table *out,
                     analysis_error *err)
{
    *out = (frontier_table){0};
    size_t n = cells->count;
    const cell_metrics **sorted = malloc((n ? n : 1) * sizeof *sorted);
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    out->rows = malloc((n ? n : 1) * sizeof *out->rows);
    if (!sorted || !scratch || !out->rows) {
        free(sorted);
        free(scratch);
        frontier_table_free(out);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (frontier)");
    }
    /* the communication targets, ascending: each is a row of the grid */
    double *targets = scratch;
    size_t target_count = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t t = 0; t < target_count && !seen; t++)
            seen = analysis_same_target(targets[t], cells->cells[i].comm_target_s);
        if (!seen)
            targets[target_count++] = cells->cells[i].comm_target_s;
    }
    qsort(targets, target_count, sizeof *targets, by_value);
    double *row_targets = malloc((target_count ? target_count : 1) * sizeof *row_targets);
    if (!row_targets) {
        free(sorted);
        free(scratch);
        frontier_table_free(out);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (frontier)");
    }
    memcpy(row_targets, targets, target_count * sizeof *targets);
    for (size_t t = 0; t < target_count; t++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (analysis_same_target(row_targets[t], cells->cells[i].comm_target_s))
                sorted[m++] = &cells->cells[i];
        qsort(sorted, m, sizeof *sorted, by_comp_target);
        fill_row(sorted, m, threshold, scratch, &out->rows[out->count++]);
    }
    free(row_targets);
    free(sorted);
    free(scratch);
    return ANALYSIS_OK;
}

void frontier_table_free(frontier_table *table)
{
    free(table->rows);
    *table = (frontier_table){0};
}

void frontier_csv_row(strbuf *sb, const frontier_row *r)
{
    strbuf_printf(sb,
                  "%.9g,%lld,%.10g,%.6g,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%.6g,%.6g,%.6g,%.10g,"
                  "%.10g,%.10g,%.6g,%.6g,%.6g\n",
                  r->comm_target_s, r->bytes, r->t_comm_ref_s, r->threshold,
                  frontier_status_name(r->status), r->comp_target_s, r->comp_ci_lo_s,
                  r->comp_ci_hi_s, r->next_comp_target_s, r->break_comp_target_s, r->break_reason,
                  r->r_overhead, r->r_overhead_ci.lo, r->r_overhead_ci.hi, r->lengthening_s,
                  r->lengthening_ci_s.lo, r->lengthening_ci_s.hi, r->r_comm, r->r_comm_ci.lo,
                  r->r_comm_ci.hi);
}

void frontier_csv_text(strbuf *sb, const frontier_table *table)
{
    char header[1024];
    if (schema_header(SCHEMA_FRONTIER, header, sizeof header) < 0) {
        sb->ok = false;
        return;
    }
    strbuf_printf(sb, "%s\n", header);
    for (size_t i = 0; i < table->count; i++)
        frontier_csv_row(sb, &table->rows[i]);
}

int frontier_parse_threshold(const char *program, const char *text, double *out)
{
    /* r_overhead 1 is serialized: a threshold there or above calls every
     * unprogressed collective hidden */
    static const double highest = 1.0;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(value >= 0 && value < highest)) {
        fprintf(stderr,
                "%s: --frontier-threshold: '%s' is not allowed (a number from 0 to below %g: "
                "the largest r_overhead, eq. 1, at which the collective counts as hidden; "
                "default %g)\n",
                program, text, highest, frontier_default_threshold());
        return -1;
    }
    *out = value;
    return 0;
}
