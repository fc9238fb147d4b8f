/* analysis: the overlap frontier (README.md, "Overlap frontier"). For each
 * communication target of a run's grid (a row of cells of one message
 * size), the largest computation target up to which the collective stays
 * hidden: every cell from the smallest computation up to it has r_overhead
 * (eq. 1) at or below a threshold. Its interval comes from the cells' 95 %
 * block-bootstrap intervals: the lower end where every interval's upper end
 * is still at or below the threshold (surely hidden), the upper end where
 * every interval's lower end is (possibly hidden). A cell that is invalid
 * or without an estimate breaks the row: the frontier is then
 * "not determined", never carried across the cell. Times in seconds.
 *
 * Files: frontier.csv (schema/columns.def, docs/formats.md) and the figure
 * plots/frontier.{gp,dat,png,svg,pdf} beside nbc-analyze's others;
 * nbc-compare writes several runs' frontiers in OUT_DIR/compare_frontier.csv
 * and draws them in OUT_DIR/compare_frontier.*.
 * Both read cells.csv alone, so old analyzed runs get a frontier too. */
#ifndef ANALYSIS_FRONTIER_H
#define ANALYSIS_FRONTIER_H

#include "analysis/analysis_internal.h"

#include <stddef.h>

/* How a row's scan ended (frontier.csv `status`). */
enum frontier_status {
    FRONTIER_WITHIN,         /* hidden up to a column, not at the next one */
    FRONTIER_BEYOND_GRID,    /* hidden at every column: the frontier is at least the last */
    FRONTIER_NONE,           /* not hidden at the smallest computation */
    FRONTIER_NOT_DETERMINED, /* a cell that cannot be read came first */
    FRONTIER_STATUS_COUNT
};
const char *frontier_status_name(enum frontier_status status);

/* One row of frontier.csv: one communication target. */
typedef struct frontier_row {
    double comm_target_s;
    long long bytes;     /* of the row's cells (the first valid one) */
    double t_comm_ref_s; /* median over the row's valid cells of t_comm_ref */
    double threshold;    /* of r_overhead */
    enum frontier_status status;
    double comp_target_s;       /* the frontier; NAN for none and not_determined */
    double comp_ci_lo_s;        /* every interval's upper end at or below the threshold up to it */
    double comp_ci_hi_s;        /* every interval's lower end ...; INFINITY: beyond the grid */
    double next_comp_target_s;  /* the first column not hidden (within, none); else NAN */
    double break_comp_target_s; /* the cell that broke the point scan; NAN when none did */
    char break_reason[ANALYSIS_NAME_MAX]; /* "none", "no_estimate" or the
                                           * invalid reasons ("unreachable", "late", ...) */
    /* at the frontier cell (NAN without one): eq. 1 and its interval, and
     * the time the step took beyond perfect overlap, Delta_measured of
     * section 3.1 = t_measured - max(t_comm_ref, t_comp_ref), with its
     * interval (eq. 1's times min(t_comm_ref, t_comp_ref)) */
    double r_overhead;
    metric_bounds r_overhead_ci;
    double lengthening_s;
    metric_bounds lengthening_ci_s;
    double r_comm; /* eq. 4: the collective's own time there, over its reference */
    metric_bounds r_comm_ci;
} frontier_row;

typedef struct frontier_table {
    frontier_row *rows; /* by communication target, ascending */
    size_t count;
} frontier_table;

/* The default threshold of r_overhead and its reason (README.md). */
double frontier_default_threshold(void);

/* The frontier of every communication target of cells (any order). */
int frontier_compute(const cell_table *cells, double threshold, frontier_table *out,
                     analysis_error *err);
void frontier_table_free(frontier_table *table);

/* frontier.csv's text (header from the schema). */
void frontier_csv_text(strbuf *sb, const frontier_table *table);
/* One row's fields from comm_target_s on, and "\n" (frontier.csv and
 * compare_frontier.csv). */
void frontier_csv_row(strbuf *sb, const frontier_row *r);

/* --frontier-threshold=R: 0 and *out set, else -1 after one message on
 * stderr naming the option and what it allows. */
int frontier_parse_threshold(const char *program, const char *text, double *out);

/* nbc-analyze: frontier.csv and plots/frontier.* of an analyzed run. */
int frontier_write_run(const char *run_dir, double threshold, const analysis_options *options,
                       analysis_error *err);

/* nbc-compare: the frontiers of the runs in out_dir/compare_frontier.csv
 * (schema/columns.def) and one figure, out_dir/compare_frontier.*, a curve
 * per run. */
int frontier_write_compare(const char *const *run_dirs, size_t run_count, const char *out_dir,
                           double threshold, const analysis_options *options, analysis_error *err);

#endif
