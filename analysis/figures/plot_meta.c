/* analysis: a figure's title text (library, deployment), and its title
 * and caption inside its files, so that an SVG
 * or a PDF copied away from its plots folder still says what it shows and
 * how it was measured. The text is NAME.caption.txt's (docs/formats.md):
 * its first line is the title (what, library, deployment), the rest the
 * caption (statistics, provenance). gnuplot draws; this writes the SVG's
 * <title> and <desc> and the PDF's Title and Subject afterwards. */
#include "analysis/figures/figures.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- Title text -------------------------------------------------------------- */

/* Whether word (len bytes) is a version: digits first, or "v" and a digit. */
static bool version_word(const char *word, size_t len)
{
    return len > 0 && (isdigit((unsigned char)word[0]) ||
                       (len > 1 && word[0] == 'v' && isdigit((unsigned char)word[1])));
}

/* The raw version text's first clause as a name: its words up to the
 * version (without "Version", ":" or a "v" before the digits), the clause
 * as it is when it holds no version. */
static void name_from_version_text(const char *text, char *out, size_t out_size)
{
    size_t clause = strcspn(text, ";\n"), o = 0;
    bool versioned = false;
    out[0] = '\0';
    for (size_t i = 0; i < clause && !versioned;) {
        while (i < clause && isspace((unsigned char)text[i]))
            i++;
        size_t len = 0;
        while (i + len < clause && !isspace((unsigned char)text[i + len]))
            len++;
        const char *word = text + i;
        i += len;
        versioned = version_word(word, len);
        bool filler = !versioned && ((len == 7 && strncasecmp(word, "version", 7) == 0) ||
                                     (len == 8 && strncasecmp(word, "version:", 8) == 0) ||
                                     (len == 1 && word[0] == ':'));
        if (versioned && word[0] == 'v')
            word++, len--;
        if (len == 0 || filler || o + len + 2 > out_size || o + len > 60)
            continue;
        o += (size_t)snprintf(out + o, out_size - o, "%s%.*s", o ? " " : "", (int)len, word);
    }
}

void plot_library_name(const run_meta *meta, char *out, size_t out_size)
{
    if (meta->mpi_library_name[0])
        snprintf(out, out_size, "%s", meta->mpi_library_name);
    else
        name_from_version_text(meta->mpi_library_version[0] ? meta->mpi_library_version : meta->mpi,
                               out, out_size);
    if (!out[0])
        snprintf(out, out_size, "library unknown");
}

void plot_title_tail(const run_meta *meta, const cell_table *cells, const char *separator,
                     char *out, size_t out_size)
{
    char library[160];
    plot_library_name(meta, library, sizeof library);
    long ranks = meta->ranks;
    for (size_t i = 0; ranks == 0 && i < cells->count; i++)
        ranks = cells->cells[i].ranks;
    char threads[32] = "?";
    if (meta->threads_per_rank > 0)
        snprintf(threads, sizeof threads, "%ld", meta->threads_per_rank);
    snprintf(out, out_size, "%s, %ld rank%s x %s thread%s%s%s deployment%s", library, ranks,
             ranks == 1 ? "" : "s", threads, meta->threads_per_rank == 1 ? "" : "s", separator,
             meta->deployment[0] ? meta->deployment : "unknown",
             meta->synthetic ? ", SYNTHETIC data" : "");
}

void plot_short_tail(const run_meta *meta, char *out, size_t out_size)
{
    char library[160];
    plot_library_name(meta, library, sizeof library);
    snprintf(out, out_size, "%s, %s%s", library, meta->deployment[0] ? meta->deployment : "?",
             meta->synthetic && !strstr(library, "synthetic") ? " (synthetic)" : "");
}

/* ---- The caption in the files ------------------------------------------------- */

/* The caption file split: title (first line, without its final '.') and
 * the rest. Both point into text, which is modified. */
static void split_caption(char *text, const char **title, const char **rest)
{
    char *newline = strchr(text, '\n');
    if (newline)
        *newline = '\0';
    size_t n = strlen(text);
    if (n > 0 && text[n - 1] == '.')
        text[n - 1] = '\0';
    *title = text;
    *rest = newline ? newline + 1 : "";
    /* no trailing newline in the caption */
    char *end = newline ? newline + 1 + strlen(newline + 1) : text + n;
    while (end > *rest && (end[-1] == '\n' || end[-1] == ' '))
        *--end = '\0';
}

/* ---- SVG ------------------------------------------------------------------------- */

static void xml_text(strbuf *out, const char *text)
{
    for (; *text; text++) {
        char c = *text;
        const char *entity = c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : NULL;
        if (entity)
            strbuf_printf(out, "%s", entity);
        else
            strbuf_printf(out, "%c", c);
    }
}

/* svg with the content of the element <tag>...</tag> (its first) replaced;
 * false when it has none. */
static bool replace_element(strbuf *out, const char *svg, const char *tag, const char *text)
{
    char open[32], close[32];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *start = strstr(svg, open);
    const char *end = start ? strstr(start, close) : NULL;
    if (!end)
        return false;
    strbuf_printf(out, "%.*s%s", (int)(start - svg), svg, open);
    xml_text(out, text);
    strbuf_printf(out, "%s", end);
    return true;
}

static int svg_metadata(const char *svg_path, const char *title, const char *rest,
                        analysis_error *err)
{
    char *svg = NULL;
    size_t len = 0;
    bool missing = false;
    int status = analysis_read_file(svg_path, &svg, &len, &missing, err);
    if (missing) /* gnuplot wrote no SVG: nothing to add */
        return ANALYSIS_OK;
    strbuf titled = {0}, out = {0};
    /* gnuplot writes <title>Gnuplot</title><desc>Produced by GNUPLOT...</desc> */
    if (status == ANALYSIS_OK && replace_element(&titled, svg, "title", title) && titled.ok &&
        replace_element(&out, titled.data, "desc", rest))
        status = out.ok ? analysis_write_file_atomic(svg_path, out.data, out.len, err)
                        : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", svg_path);
    strbuf_free(&titled);
    strbuf_free(&out);
    free(svg);
    return status;
}

/* ---- PDF ------------------------------------------------------------------------- */

/* A PDF text string as UTF-16BE hex with its byte-order mark (ISO
 * 32000-1, 7.9.2.2): any character, nothing to escape. */
static void pdf_text(strbuf *out, const char *utf8)
{
    strbuf_printf(out, "<FEFF");
    const unsigned char *s = (const unsigned char *)utf8;
    while (*s) {
        unsigned long cp = 0xfffd;
        int extra = *s < 0x80             ? 0
                    : (*s & 0xe0) == 0xc0 ? 1
                    : (*s & 0xf0) == 0xe0 ? 2
                    : (*s & 0xf8) == 0xf0 ? 3
                                          : -1;
        if (extra >= 0) {
            cp = extra == 0 ? *s : *s & (0x3fu >> extra);
            for (int k = 1; k <= extra; k++) {
                if ((s[k] & 0xc0) != 0x80) { /* a cut sequence: one replacement character */
                    cp = 0xfffd;
                    extra = k - 1;
                    break;
                }
                cp = (cp << 6) | (s[k] & 0x3fu);
            }
        }
        s += extra >= 0 ? extra + 1 : 1;
        if (cp >= 0x10000) { /* a surrogate pair */
            cp -= 0x10000;
            strbuf_printf(out, "%04lX%04lX", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
            strbuf_printf(out, "%04lX", cp);
        }
    }
    strbuf_printf(out, ">");
}

/* The last occurrence of key in [data, data + len), or NULL. */
static const char *find_last(const char *data, size_t len, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = len >= k ? len - k + 1 : 0; i-- > 0;)
        if (memcmp(data + i, key, k) == 0)
            return data + i;
    return NULL;
}

/* The number after key inside [from, to), or -1. */
static long number_after(const char *from, const char *to, const char *key)
{
    for (const char *p = from; p + strlen(key) < to; p++)
        if (memcmp(p, key, strlen(key)) == 0)
            return strtol(p + strlen(key), NULL, 10);
    return -1;
}

/* A new document information dictionary, appended as an incremental
 * update (ISO 32000-1, 7.5.6): the object, a cross-reference section for
 * it and a trailer pointing to the previous one. It needs the classic
 * trailer cairo writes (/Size, /Root); another structure is left as it is,
 * with a warning. */
static int pdf_metadata(const char *pdf_path, const char *title, const char *rest,
                        analysis_error *err)
{
    char *pdf = NULL;
    size_t len = 0;
    bool missing = false;
    int status = analysis_read_file(pdf_path, &pdf, &len, &missing, err);
    if (missing)
        return ANALYSIS_OK;
    if (status != ANALYSIS_OK)
        return status;
    const char *startxref = find_last(pdf, len, "startxref");
    const char *trailer = startxref ? find_last(pdf, (size_t)(startxref - pdf), "trailer") : NULL;
    long prev = startxref ? number_after(startxref, pdf + len, "startxref") : -1;
    long size = trailer ? number_after(trailer, startxref, "/Size ") : -1;
    long root = trailer ? number_after(trailer, startxref, "/Root ") : -1;
    if (prev <= 0 || size <= 0 || root <= 0) {
        analysis_warn("%s: no classic PDF trailer (/Size, /Root): its Title and Subject are not "
                      "set (the caption is in the .caption.txt beside it)",
                      pdf_path);
        free(pdf);
        return ANALYSIS_OK;
    }
    strbuf update = {0};
    size_t object_at = len + 1;
    strbuf_printf(&update, "\n%ld 0 obj\n<< /Title ", size);
    pdf_text(&update, title);
    strbuf_printf(&update, " /Subject ");
    pdf_text(&update, rest);
    strbuf_printf(&update, " /Creator (bench_nbc) /Producer (gnuplot, cairo) >>\nendobj\n");
    size_t xref_at = len + update.len;
    /* each cross-reference entry is 20 bytes: 10 digits, 5 digits, n, space, newline */
    strbuf_printf(&update,
                  "xref\n%ld 1\n%010zu 00000 n \ntrailer\n<< /Size %ld /Root %ld 0 R /Info %ld 0 "
                  "R /Prev %ld >>\nstartxref\n%zu\n%%%%EOF\n",
                  size, object_at, size + 1, root, size, prev, xref_at);
    free(pdf);
    if (!update.ok) {
        strbuf_free(&update);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", pdf_path);
    }
    FILE *f = fopen(pdf_path, "ab");
    if (!f) {
        strbuf_free(&update);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "cannot open %s: %s", pdf_path,
                             strerror(errno));
    }
    bool written = fwrite(update.data, 1, update.len, f) == update.len;
    int saved = errno;
    if (fclose(f) != 0 && written) {
        written = false;
        saved = errno;
    }
    strbuf_free(&update);
    if (!written)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "cannot write %s: %s", pdf_path,
                             strerror(saved));
    return ANALYSIS_OK;
}

int plot_figure_metadata(const char *dir, const char *base, analysis_error *err)
{
    char name[300], path[4200];
    snprintf(name, sizeof name, "%s.caption.txt", base);
    char *caption = NULL;
    size_t len = 0;
    bool missing = false;
    int status = analysis_path(path, sizeof path, dir, name, err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, &caption, &len, &missing, err);
    if (missing) /* a figure without a caption file is left as gnuplot wrote it */
        return ANALYSIS_OK;
    const char *title = "", *rest = "";
    if (status == ANALYSIS_OK)
        split_caption(caption, &title, &rest);
    snprintf(name, sizeof name, "%s.svg", base);
    if (status == ANALYSIS_OK)
        status = analysis_path(path, sizeof path, dir, name, err);
    if (status == ANALYSIS_OK)
        status = svg_metadata(path, title, rest, err);
    snprintf(name, sizeof name, "%s.pdf", base);
    if (status == ANALYSIS_OK)
        status = analysis_path(path, sizeof path, dir, name, err);
    if (status == ANALYSIS_OK)
        status = pdf_metadata(path, title, rest, err);
    free(caption);
    return status;
}

/* ---- Figures not drawn --------------------------------------------------------- */

int plot_record_not_drawn(const char *dir, const char *base, const char *reason,
                          analysis_error *err)
{
    char path[4200], *old = NULL;
    size_t len = 0, base_len = strlen(base);
    bool missing = false;
    analysis_error ignored;
    int status = analysis_path(path, sizeof path, dir, PLOT_NOT_DRAWN_FILE, err);
    if (status == ANALYSIS_OK &&
        analysis_read_file(path, &old, &len, &missing, &ignored) != ANALYSIS_OK)
        old = NULL;
    /* the other figures' lines kept, this one's replaced */
    strbuf text = {.ok = true};
    for (char *line = old, *next; line && *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next)
            *next++ = '\0';
        if (line[0] && !(strncmp(line, base, base_len) == 0 && line[base_len] == '\t'))
            strbuf_printf(&text, "%s\n", line);
    }
    free(old);
    if (reason)
        strbuf_printf(&text, "%s\t%s\n", base, reason);
    if (status == ANALYSIS_OK && !text.ok)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", path);
    if (status == ANALYSIS_OK && text.len > 0)
        status = analysis_write_file_atomic(path, text.data, text.len, err);
    else if (status == ANALYSIS_OK && unlink(path) != 0 && errno != ENOENT)
        status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: %s", path, strerror(errno));
    strbuf_free(&text);
    /* a figure of an earlier analysis must not stand for this one */
    if (status == ANALYSIS_OK && reason)
        status = plot_remove_figure(dir, base, true, err);
    return status;
}

int plot_remove_figure(const char *dir, const char *base, bool with_data, analysis_error *err)
{
    static const char *const extensions[] = {"png", "svg", "pdf", "gp", "caption.txt", "dat"};
    size_t count = sizeof extensions / sizeof *extensions - (with_data ? 0 : 1);
    int status = ANALYSIS_OK;
    for (size_t i = 0; status == ANALYSIS_OK && i < count; i++) {
        char name[300], path[4200];
        snprintf(name, sizeof name, "%s.%s", base, extensions[i]);
        status = analysis_path(path, sizeof path, dir, name, err);
        if (status == ANALYSIS_OK && unlink(path) != 0 && errno != ENOENT)
            status = analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: %s", path, strerror(errno));
    }
    return status;
}
