/* analysis: the gnuplot plumbing shared by every figure (nbc-analyze,
 * nbc-compare): quoting, the script that renders PNG, SVG and PDF from one
 * body, and running gnuplot in the plots folder. */
#include "analysis/figures/figures.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The printed page: text at PLOT_FONT_PT, never under the 7 pt journals
 * ask for (DESIGN.md, "Figures for print"); PNGs at PLOT_PNG_DPI. */
enum { PLOT_PNG_DPI = 200 };
static const double plot_points_per_inch = 72.0, cairo_text_dpi = 96.0;

/* --figure-size presets: a journal column and a page width. */
static const struct {
    const char *name;
    figure_size size;
} figure_presets[] = {
    {"column", {3.5, 0}},
    {"page", {7.0, 0}},
};

int plot_figure_size_parse(const char *text, figure_size *out)
{
    for (size_t i = 0; i < sizeof figure_presets / sizeof *figure_presets; i++)
        if (strcmp(text, figure_presets[i].name) == 0) {
            *out = figure_presets[i].size;
            return 0;
        }
    /* narrower than 2 in leaves no room for 7 pt tick labels */
    static const double min_width_in = 2.0, min_height_in = 1.5, max_in = 20.0;
    char *end = NULL;
    double width = strtod(text, &end);
    if (end == text || (*end != 'x' && *end != 'X'))
        return -1;
    const char *rest = end + 1;
    double height = strtod(rest, &end);
    if (end == rest || *end != '\0' || !(width >= min_width_in && width <= max_in) ||
        !(height == 0 || (height >= min_height_in && height <= max_in)))
        return -1;
    *out = (figure_size){width, height};
    return 0;
}

static const char gnuplot_install_hint[] = "apt-get install gnuplot-nox";

/* ---- Script text helpers ------------------------------------------------------ */

void plot_quote(const char *text, char *out, size_t out_size)
{
    size_t o = 0;
    for (size_t i = 0; text[i] && o + 3 < out_size; i++) {
        char c = text[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = c;
        } else if (c == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else {
            out[o++] = (c == '\t' || c == '\r') ? ' ' : c;
        }
    }
    out[o] = '\0';
}

void plot_emit_script(strbuf *script, const char *base_name, const char *comment, double width_in,
                      double height_in, const char *body)
{
    /* one size in inches for the three: the SVG in points (1 unit = 1 pt),
     * the PNG at PLOT_PNG_DPI with its fonts and lines scaled alike. The
     * cairo terminals size text for 96 dpi (pango's), a third larger than
     * the points they are given: their fonts are scaled by 72/96, so that
     * the PDF's and the PNG's text is the size the SVG states (measured:
     * pdftotext's word boxes match DejaVu Sans' advance widths). */
    double png_scale = PLOT_PNG_DPI / plot_points_per_inch;
    double cairo_font_scale = plot_points_per_inch / cairo_text_dpi;
    strbuf_printf(script,
                  "# %s\n"
                  "# Written by nbc-analyze; edit and re-run from this folder:\n"
                  "#   gnuplot %s.gp\n"
                  "# It renders %s.png, %s.svg and %s.pdf, %.2f x %.2f in, text %d pt.\n"
                  "set encoding utf8\n"
                  "do for [fmt in \"png svg pdf\"] {\n"
                  "    if (fmt eq \"png\") { set terminal pngcairo size %d,%d font \"DejaVu "
                  "Sans,%d\" fontscale %.4f linewidth %.4f noenhanced }\n"
                  "    if (fmt eq \"svg\") { set terminal svg size %d,%d font \"DejaVu "
                  "Sans,%d\" noenhanced }\n"
                  "    if (fmt eq \"pdf\") { set terminal pdfcairo size %.2fin,%.2fin font "
                  "\"DejaVu Sans,%d\" fontscale %.4f noenhanced }\n"
                  "    set output \"%s.\".fmt\n"
                  "%s"
                  "    set output\n"
                  "}\n",
                  comment, base_name, base_name, base_name, base_name, width_in, height_in,
                  PLOT_FONT_PT, (int)(width_in * PLOT_PNG_DPI + 0.5),
                  (int)(height_in * PLOT_PNG_DPI + 0.5), PLOT_FONT_PT, png_scale * cairo_font_scale,
                  png_scale, (int)(width_in * plot_points_per_inch + 0.5),
                  (int)(height_in * plot_points_per_inch + 0.5), PLOT_FONT_PT, width_in, height_in,
                  PLOT_FONT_PT, cairo_font_scale, base_name, body);
}

int plot_write_figure(const char *dir, const char *base, const char *comment, double width_in,
                      double height_in, const strbuf *body, const char *caption,
                      analysis_error *err)
{
    strbuf script = {0}, text = {0};
    char path[4200], name[128];
    snprintf(name, sizeof name, "%s.gp", base);
    plot_emit_script(&script, base, comment, width_in, height_in, body->data ? body->data : "");
    strbuf_printf(&text, "%s.\n%s\n", comment, caption);
    int status = script.ok && body->ok && text.ok
                     ? analysis_path(path, sizeof path, dir, name, err)
                     : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", name);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, script.data, script.len, err);
    snprintf(name, sizeof name, "%s.caption.txt", base);
    if (status == ANALYSIS_OK)
        status = analysis_path(path, sizeof path, dir, name, err);
    if (status == ANALYSIS_OK)
        status = analysis_write_file_atomic(path, text.data, text.len, err);
    strbuf_free(&script);
    strbuf_free(&text);
    return status;
}

void plot_emit_ranks_lines(strbuf *script, const char *data_file, const char *const *names,
                           size_t count)
{
    char file[512];
    plot_quote(data_file, file, sizeof file);
    strbuf_printf(script, "    set xlabel \"ranks\"\n"
                          "    set ylabel \"r_overhead (mean of the cells; bars: min, max)\"\n"
                          "    set key outside right top\n"
                          "    set grid\n"
                          "    set offsets 0.5, 0.5, 0.05, 0.05\n"
                          "    set xtics 1\n"
                          "    plot ");
    for (size_t i = 0; i < count; i++) {
        char title[256];
        plot_quote(names[i], title, sizeof title);
        strbuf_printf(script,
                      "%s\"%s\" index %zu using 1:2:3:4 with yerrorlines lw 2 pt 7 title \"%s\"",
                      i ? ", \\\n        " : "", file, i, title);
    }
    strbuf_printf(script, "\n");
}

bool plot_gnuplot_available(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    const char *start = path;
    for (;;) {
        const char *colon = strchr(start, ':');
        size_t n = colon ? (size_t)(colon - start) : strlen(start);
        char candidate[4200];
        if (n > 0 && n + sizeof "/gnuplot" < sizeof candidate) {
            memcpy(candidate, start, n);
            memcpy(candidate + n, "/gnuplot", sizeof "/gnuplot");
            if (access(candidate, X_OK) == 0)
                return true;
        }
        if (!colon)
            return false;
        start = colon + 1;
    }
}

int plot_run_gnuplot(const char *dir, const char *script, analysis_error *err)
{
    if (!plot_gnuplot_available())
        return analysis_fail(err, ANALYSIS_NO_GNUPLOT,
                             "gnuplot is not installed: figures not drawn (install it with "
                             "'%s', then run 'gnuplot %s' in %s or re-run the analysis)",
                             gnuplot_install_hint, script, dir);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0) {
        if (errno != EINTR)
            return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "waiting for gnuplot: %s",
                                 strerror(errno));
    }
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM,
                             "gnuplot failed on %s/%s (exit status %d); its messages are above",
                             dir, script, WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    char base[256];
    snprintf(base, sizeof base, "%s", script);
    char *dot = strrchr(base, '.');
    if (dot)
        *dot = '\0';
    return plot_figure_metadata(dir, base, err);
}

/* ---- The run's figures ------------------------------------------------------------- */
