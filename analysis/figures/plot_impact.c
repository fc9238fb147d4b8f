/* analysis: the MPI impact figure (paper eq. 2, fig. 9): r_MPI_impact per
 * computation size and host with its interval, and the A/A floor. */
#include "analysis/figures/plot_figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Distinct hosts of the impact table, in order of first appearance. */
static size_t impact_hosts(const impact_table *impact, const char **hosts, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < impact->count; i++) {
        bool seen = false;
        for (size_t h = 0; h < n && !seen; h++)
            seen = strcmp(hosts[h], impact->rows[i].host) == 0;
        if (!seen && n == max)
            analysis_warn("impact figure: more than %zu hosts, host %s not drawn", max,
                          impact->rows[i].host);
        else if (!seen)
            hosts[n++] = impact->rows[i].host;
    }
    return n;
}

/* Round ratios a log axis about 1 is ticked at, outwards from 1 above and
 * below it. */
static const double ticks_above[] = {1.01, 1.02, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100};
static const double ticks_below[] = {0.99, 0.98, 0.95, 0.9,  0.8,  0.75, 0.5,
                                     0.3,  0.2,  0.1,  0.05, 0.02, 0.01};
enum { TICK_CANDIDATES = sizeof ticks_above / sizeof *ticks_above };

/* One side's ticks inside [1/reach, reach]: the outermost round ratio and
 * the one nearest halfway to 1 on the log axis; their count (0 to 2). */
static size_t side_ticks(const double candidates[TICK_CANDIDATES], double reach, double out[2])
{
    size_t outer = TICK_CANDIDATES;
    for (size_t i = 0; i < TICK_CANDIDATES; i++)
        if (fabs(log(candidates[i])) <= log(reach))
            outer = i;
    if (outer == TICK_CANDIDATES)
        return 0;
    out[0] = candidates[outer];
    if (outer == 0)
        return 1;
    double half = 0.5 * fabs(log(candidates[outer])), best = INFINITY;
    size_t middle = 0;
    for (size_t i = 0; i < outer; i++)
        if (fabs(fabs(log(candidates[i])) - half) < best) {
            best = fabs(fabs(log(candidates[i])) - half);
            middle = i;
        }
    out[1] = candidates[middle];
    return 2;
}

int plot_impact(const plot_ctx *ctx, const impact_table *impact, analysis_error *err)
{
    enum { MAX_HOSTS = 16 };
    const char *hosts[MAX_HOSTS];
    size_t host_count = impact_hosts(impact, hosts, MAX_HOSTS);
    heat_axis sizes;
    double *targets = malloc(impact->count * sizeof *targets);
    if (!targets)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (impact)");
    for (size_t i = 0; i < impact->count; i++)
        targets[i] = impact->rows[i].comp_target_s;
    int status = heat_axis_build(&sizes, targets, impact->count, err);
    free(targets);
    if (status != ANALYSIS_OK)
        return status;

    /* bars side by side per computation size, one colour per host */
    /* points side by side per computation size, one per host */
    double spread = 0.6 / (double)host_count, lowest = 1.0, highest = 1.0;
    strbuf data = {0};
    strbuf_printf(&data, "# x r_mpi_impact label ci_lo ci_hi r_aa r_aa_ci_lo r_aa_ci_hi; one block "
                         "(gnuplot index) per host\n");
    bool has_floor = false; /* the A/A floor, where compute_ref ran before and after */
    for (size_t h = 0; h < host_count; h++) {
        strbuf_printf(&data, "%s# %s\n", h ? "\n\n" : "", hosts[h]);
        for (size_t i = 0; i < impact->count; i++) {
            const impact_row *r = &impact->rows[i];
            if (strcmp(r->host, hosts[h]) != 0)
                continue;
            double x = (double)heat_axis_index(&sizes, r->comp_target_s) - 0.3 +
                       spread * ((double)h + 0.5);
            strbuf_printf(&data, "%.4f %.6g \"%.2f\" %.6g %.6g %.6g %.6g %.6g\n", x,
                          r->r_mpi_impact, r->r_mpi_impact, r->r_mpi_impact_ci.lo,
                          r->r_mpi_impact_ci.hi, r->r_aa, r->r_aa_ci.lo, r->r_aa_ci.hi);
            has_floor = has_floor || isfinite(r->r_aa_ci.lo);
            double values[] = {r->r_mpi_impact, r->r_mpi_impact_ci.lo, r->r_mpi_impact_ci.hi,
                               r->r_aa_ci.lo, r->r_aa_ci.hi};
            for (size_t k = 0; k < sizeof values / sizeof *values; k++)
                if (isfinite(values[k]) && values[k] > 0) {
                    lowest = fmin(lowest, values[k]);
                    highest = fmax(highest, values[k]);
                }
        }
    }
    status = plot_write_data(ctx, "impact.dat", &data, err);

    /* a ratio axis (log) symmetric about 1 (no impact), at least +-5 % */
    double reach = fmax(fmax(highest, 1 / lowest), 1.05) * 1.02;
    char title[700];
    int title_lines = plot_short_title(ctx, "r_MPI_impact", NULL, title, sizeof title);
    double height_in = ctx->size.height_in > 0 ? ctx->size.height_in
                                               : 0.6 * ctx->size.width_in + 0.2 * (title_lines + 1);
    strbuf body = {0};
    strbuf_printf(&body,
                  "    set title \"%s\"\n"
                  "    set xrange [-0.6:%zu.6]\n"
                  "    set logscale y\n"
                  "    set yrange [%.6g:%.6g]\n"
                  "    set xlabel 'computation time, target (ms)'\n"
                  "    set ylabel 'r_MPI_impact (1: none)'\n"
                  "    set grid ytics\n"
                  "    set tics out nomirror\n"
                  "    set key %s below horizontal font ',%d'\n"
                  "    set xtics (",
                  title, sizes.count - 1, 1 / reach, reach,
                  host_count > 1 || has_floor ? "on" : "off", PLOT_LABEL_PT);
    for (size_t i = 0; i < sizes.count; i++) {
        char ms[32];
        plot_format_ms(sizes.targets_s[i], ms, sizeof ms);
        strbuf_printf(&body, "%s\"%s\" %zu", i ? ", " : "", ms, i);
    }
    /* round ratios (0.95, 0.98, 1, 1.02, 1.05), never the range's ends */
    double above[2], below[2];
    size_t n_above = side_ticks(ticks_above, reach, above),
           n_below = side_ticks(ticks_below, reach, below);
    strbuf_printf(&body, ")\n    set ytics (\"1\" 1");
    for (size_t i = 0; i < n_above; i++)
        strbuf_printf(&body, ", \"%g\" %g", above[i], above[i]);
    for (size_t i = 0; i < n_below; i++)
        strbuf_printf(&body, ", \"%g\" %g", below[i], below[i]);
    /* Paul Tol's "bright" colours, one per host */
    static const char *const host_colours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44",
                                               "#66ccee", "#aa3377", "#bbbbbb"};
    static const int host_points[] = {7, 5, 9, 11, 13, 4, 6};
    strbuf_printf(&body, ")\n    plot 1 with lines lw 1.5 dt 2 lc rgb '#303030' notitle");
    for (size_t h = 0; h < host_count; h++) {
        /* a key a reader understands: the hosts apart, or what the points are */
        char key[240], host[260];
        if (host_count > 1)
            snprintf(key, sizeof key, "host %s", hosts[h]);
        else
            snprintf(key, sizeof key, "r_MPI_impact, 95 %% interval");
        plot_quote(key, host, sizeof host);
        size_t k = h % (sizeof host_colours / sizeof *host_colours);
        strbuf_printf(&body,
                      ", \\\n        'impact.dat' index %zu using 1:2:4:5 with yerrorbars pt %d "
                      "ps 0.8 lw 1.5 lc rgb '%s' title \"%s\"",
                      h, host_points[k], host_colours[k], host);
    }
    /* the A/A floor: what compute_ref alone varies, beside each point */
    for (size_t h = 0; has_floor && h < host_count; h++)
        strbuf_printf(&body,
                      ", \\\n        'impact.dat' index %zu using ($1+%.4f):6:7:8 with yerrorbars "
                      "pt 1 ps 0.6 lw 1 lc rgb '#999999' %s",
                      h, 0.4 * spread, h == 0 ? "title 'A/A floor'" : "notitle");
    strbuf_printf(&body, "\n");
    if (status == ANALYSIS_OK)
        status = plot_write_script(
            ctx, "impact", "MPI impact on computation (paper eq. 2, fig. 9)", ctx->size.width_in,
            height_in, &body,
            "Points: r_MPI_impact = t_passive_mpi / t_ref per host and "
            "computation size, bars its 95 % interval; grey, where measured: "
            "the A/A pair (compute_ref before over its partner just before) and its "
            "interval; log axis, dashed at 1 (no impact).",
            err);
    strbuf_free(&body);
    heat_axis_free(&sizes);
    return status;
}
