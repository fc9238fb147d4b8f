/* analysis: one cell's distribution over blocks (nbc-analyze --ecdf): the
 * empirical distribution of eq. 1 per block beside those of the three
 * spans, what the median and its interval summarize. */
#include "analysis/figures/plot_figure.h"

#include <math.h>
#include <stdlib.h>

static void ecdf_block(strbuf *data, const char *name, double *values, size_t n, double scale)
{
    stats_sort(values, n);
    strbuf_printf(data, "# %s\n%.9g 0\n", name, values[0] * scale);
    for (size_t k = 0; k < n; k++)
        strbuf_printf(data, "%.9g %.6f\n", values[k] * scale, (double)(k + 1) / (double)n);
    strbuf_printf(data, "\n\n");
}

/* The empirical distribution over blocks of eq. 1 (with the median
 * references, as r_overhead_iqr) beside those of the three spans: what the
 * median and its interval summarize. */
int plot_ecdf(const plot_ctx *ctx, const run_meta *meta, long cell_number, analysis_error *err)
{
    const cell_table *cells = ctx->cells;
    size_t index = 0;
    while (index < cells->count && cells->cells[index].cell != cell_number)
        index++;
    if (index == cells->count)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "--ecdf: no cell %ld", cell_number);
    const cell_metrics *c = &cells->cells[index];
    size_t n = 0;
    for (size_t b = 0; b < cells->block_count; b++)
        n += cells->blocks[b].cell_index == index && !cells->blocks[b].repeat;
    enum { OVERHEAD, COMM, COMP, MEASURED, SERIES };
    double *values = malloc((n ? n : 1) * SERIES * sizeof *values);
    if (!values)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (ecdf)");
    double longer = fmax(c->t_comm_ref, c->t_comp_ref),
           shorter = fmin(c->t_comm_ref, c->t_comp_ref);
    size_t k = 0;
    for (size_t b = 0; b < cells->block_count; b++) {
        const block_values *v = &cells->blocks[b];
        if (v->cell_index != index || v->repeat)
            continue; /* the blocks the run's medians rest on */
        values[OVERHEAD * n + k] = (v->measured_span - longer) / shorter;
        values[COMM * n + k] = v->comm_span;
        values[COMP * n + k] = v->comp_span;
        values[MEASURED * n + k] = v->measured_span;
        k++;
    }
    strbuf data = {0};
    strbuf_printf(&data,
                  "# cell %ld: value cumulative_share; blocks (gnuplot index): eq. 1 per "
                  "block, comm_ref, comp_ref and overlap spans (ms)\n",
                  cell_number);
    static const char *const names[SERIES] = {"r_overhead per block", "comm_ref span (ms)",
                                              "comp_ref span (ms)", "overlap span (ms)"};
    for (int i = 0; i < SERIES && n > 0; i++)
        ecdf_block(&data, names[i], values + (size_t)i * n, n, i == OVERHEAD ? 1 : 1e3);
    /* about four ticks over the blocks' spread (1, 2 or 5 times a power of
     * ten), so 8 pt labels never run into each other */
    double spread = n > 0 ? values[OVERHEAD * n + n - 1] - values[OVERHEAD * n] : 0;
    double tick = 0;
    if (spread > 0) {
        double unit = pow(10, floor(log10(spread / 4)));
        tick = spread / 4 <= 2 * unit ? 2 * unit : spread / 4 <= 5 * unit ? 5 * unit : 10 * unit;
    }
    free(values);
    char tick_text[32] = "autofreq";
    if (tick > 0)
        snprintf(tick_text, sizeof tick_text, "%g", tick);
    char name[64], data_name[80];
    snprintf(name, sizeof name, "ecdf_cell_%ld", cell_number);
    snprintf(data_name, sizeof data_name, "%s.dat", name);
    int status = plot_write_data(ctx, data_name, &data, err);
    if (status != ANALYSIS_OK)
        return status;

    char what[120], quoted[700];
    snprintf(what, sizeof what, "cell %ld", cell_number); /* its times: the caption */
    int title_lines =
        plot_short_title(ctx, what, plot_run_collective(meta, cells), quoted, sizeof quoted);
    char left[600];
    snprintf(left, sizeof left,
             "Cell %ld: communication %g ms x computation %g ms, %ld blocks, overlap %s. "
             "r_overhead %.3g, %.0f %% interval [%.3g, %.3g] (dashed); mean %.3g (dotted), "
             "p90 %.3g; outside Tukey's fences %.0f %%, bimodality coefficient %.2f%s.",
             cell_number, c->comm_target_s * 1e3, c->comp_target_s * 1e3, c->blocks,
             verdict_class_name(c->overlap), c->r_overhead,
             100 * cells->uncertainty.rules.confidence, c->r_overhead_ci.lo, c->r_overhead_ci.hi,
             c->r_overhead_mean, c->r_overhead_p90, 100 * c->r_overhead_outlier_share,
             c->r_overhead_bimodality, c->r_overhead_bimodal ? " (bimodal)" : "");
    /* side by side on a page, stacked in a column */
    static const double panel_in = 2.6, side_by_side_in = 6.0;
    bool stacked = ctx->size.width_in < side_by_side_in;
    double height_in =
        ctx->size.height_in > 0
            ? ctx->size.height_in
            : fmin(panel_in * (stacked ? 2 : 1) + 0.2 * title_lines, PLOT_PRINT_HEIGHT_MAX_IN);
    strbuf body = {0};
    strbuf_printf(&body,
                  "    set multiplot layout %d,%d title \"%s\"\n"
                  "    set key bottom right\n"
                  "    set grid\n"
                  "    set yrange [0:1]\n"
                  "    set ylabel 'share of blocks'\n"
                  "    set xlabel 'r_overhead of one block (eq. 1)'\n"
                  "    set xtics %s\n"
                  "    set title 'r_overhead per block'\n",
                  stacked ? 2 : 1, stacked ? 1 : 2, quoted, tick_text);
    const double lines[] = {c->r_overhead, c->r_overhead_ci.lo, c->r_overhead_ci.hi,
                            c->r_overhead_mean};
    static const char *const styles[] = {"lw 2 lc rgb '#d73027'", "lw 1.5 dt 2 lc rgb '#d73027'",
                                         "lw 1.5 dt 2 lc rgb '#d73027'",
                                         "lw 1.5 dt 3 lc rgb '#4575b4'"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (isfinite(lines[i]))
            strbuf_printf(&body, "    set arrow from %.9g, graph 0 to %.9g, graph 1 nohead %s\n",
                          lines[i], lines[i], styles[i]);
    strbuf_printf(&body,
                  "    plot '%s' index 0 using 1:2 with steps lw 2 lc rgb '#303030' title "
                  "'blocks'\n"
                  "    unset arrow\n"
                  "    set title 'span of each block'\n"
                  "    set xlabel 'duration (ms)'\n"
                  "    set logscale x 2\n"
                  "    set xtics autofreq\n"
                  "    plot '%s' index 1 using 1:2 with steps lw 2 lc rgb '#4575b4' title "
                  "'comm_ref', '%s' index 2 using 1:2 with steps lw 2 lc rgb '#1a9850' title "
                  "'comp_ref', '%s' index 3 using 1:2 with steps lw 2 lc rgb '#d73027' title "
                  "'overlap'\n"
                  "    unset logscale x\n"
                  "    unset multiplot\n",
                  data_name, data_name, data_name, data_name);
    status =
        plot_write_script(ctx, name, "Distribution over blocks of one cell (nbc-analyze --ecdf)",
                          ctx->size.width_in, height_in, &body, left, err);
    strbuf_free(&body);
    return status;
}
