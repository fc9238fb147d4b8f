"""Pages for print, for the Python tools that write one (nbc-report,
nbc-fingerprint): the print rules (PRINT_CSS) and the sizes they imply,
the table of contents, and the HTML page printed to PDF by weasyprint."""
import itertools
import os
import re
import shutil
import subprocess
import sys

from .cli import ExitStatus, fail


def html_to_pdf(program, html_path, pdf_path):
    """The page html_path printed to pdf_path by weasyprint (written
    atomically). Returns (written, error): (False, None) when weasyprint is
    not installed (said on stderr for program), (False, message) when it
    failed."""
    tool = shutil.which("weasyprint")
    if not tool:
        print("%s: weasyprint is not installed: %s not written (apt-get install weasyprint)"
              % (program, pdf_path), file=sys.stderr)
        return False, None
    done = subprocess.run([tool, "--quiet", html_path, pdf_path + ".tmp"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return False, "weasyprint failed on %s (exit status %d): %s" % (
            html_path, done.returncode, done.stderr.strip()[-500:])
    os.replace(pdf_path + ".tmp", pdf_path)
    return True, None


def write_pdf(program, html_path, pdf_path):
    """html_to_pdf for program, its failure program's (exit status 1);
    whether the PDF was written."""
    written, error = html_to_pdf(program, html_path, pdf_path)
    if error:
        fail(program, error, ExitStatus.FAILURE)
    return written


# ---- A page for print (what html_to_pdf prints; nbc-report's) ---------------------------
# The page box weasyprint prints on; figures are sized to its height.
PAGE_MARGIN_MM = 15
PAGE_HEIGHT_MM = 297 - 2 * PAGE_MARGIN_MM

# Screen and print rules of a page html_to_pdf prints: each figure whole
# with its caption, headings kept with what follows, wide tables fitted
# (table.wide) or on a landscape page (.turned), the contents' page numbers
# (weasyprint's target-counter; a browser shows the links only).
PRINT_CSS = """
@page { size: A4; margin: %(margin)dmm;
        @bottom-right { content: counter(page) " / " counter(pages); font-size: 8pt;
                        color: #666; } }
@page turned { size: A4 landscape; }
@media screen { body { max-width: 62em; margin: 1.5em auto; padding: 0 1em; } }
@media print { body { margin: 0; } }
h1, h2, h3, h4, h5 { break-after: avoid; page-break-after: avoid; }
table { border-collapse: collapse; margin: 0.4em 0 1em 0; max-width: 100%%; }
td, th { overflow-wrap: anywhere; }
td:first-child, th:first-child { overflow-wrap: normal; }  /* a row's name breaks between words */
/* ... and, in fixed columns, inside a word longer than its column (r_comp_slowdown) */
table.wide td:first-child, table.wide th:first-child { overflow-wrap: break-word; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
table.wide { table-layout: fixed; width: 100%%; font-size: 8pt; }
table.wide td, table.wide th { padding: 1px 3px; }
.turned { page: turned; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1em 0; break-inside: avoid; page-break-inside: avoid; }
figure img { display: block; max-width: 100%%; width: auto; height: auto; }
nav.toc ol { list-style: none; padding-left: 1.2em; margin: 0.2em 0; }
nav.toc > ol { padding-left: 0; }
@media print {
  nav.toc a { color: inherit; text-decoration: none; }
  nav.toc a::after { content: leader('.') target-counter(attr(href), page); }
}
""" % {"margin": PAGE_MARGIN_MM}

# A table wider than this many columns is set small in fixed columns; wider
# than TURNED_COLUMNS, on a landscape page.
WIDE_COLUMNS = 6
TURNED_COLUMNS = 10


def table_class(columns):
    """The class of a table of that many columns under PRINT_CSS ("" when it fits as it is)."""
    if columns > TURNED_COLUMNS:
        return "wide turned"
    return "wide" if columns > WIDE_COLUMNS else ""


def figure_max_height_mm(caption, chars_per_line=90, line_mm=4.5, reserve_mm=45):
    """The tallest an image may be printed for it, its caption (its lines
    estimated from the text's length at chars_per_line) and the headings
    kept with it (reserve_mm) to fit one page; at least a third of it."""
    lines = sum(1 + len(line) // chars_per_line for line in caption.split("\n"))
    return max(PAGE_HEIGHT_MM // 3, int(PAGE_HEIGHT_MM - reserve_mm - lines * line_mm))


_HEADING = re.compile(r'<h([23])((?: [^>]*)?)>(.*?)</h\1>'
                      r'|<figure\b[^>]*\bdata-toc="([^"]*)"[^>]*>', re.S)
_ID = re.compile(r'\bid="([^"]*)"')
_TAG = re.compile(r"<[^>]*>")


def with_contents(body):
    """(body, contents): body (HTML) with an id on every <h2> and <h3>
    lacking one, and a nested list of links to them (levels 1 and 2) and
    to the figures that carry data-toc="TEXT" and an id (level 3)."""
    entries, numbers = [], itertools.count(1)

    def anchor(match):
        if match.group(4) is not None:  # a figure listed by its data-toc
            found = _ID.search(match.group(0))
            if found:
                entries.append((4, found.group(1), match.group(4)))
            return match.group(0)
        level, attrs, text = int(match.group(1)), match.group(2), match.group(3)
        found = _ID.search(attrs)
        if found:
            ident = found.group(1)
        else:
            ident = "s%d" % next(numbers)
            attrs = ' id="%s"%s' % (ident, attrs)
        entries.append((level, ident, _TAG.sub("", text).strip()))
        return "<h%d%s>%s</h%d>" % (level, attrs, text, level)

    body = _HEADING.sub(anchor, body)
    root = []
    open_lists = [(1, root)]  # (level, its list) from the outermost
    for level, ident, text in entries:
        while open_lists[-1][0] >= level:
            open_lists.pop()
        children = []
        open_lists[-1][1].append((ident, text, children))
        open_lists.append((level, children))

    def listed(nodes):
        return "<ol>%s</ol>" % "".join('<li><a href="#%s">%s</a>%s</li>' % (
            ident, text, listed(children) if children else "") for ident, text, children in nodes)
    return body, '<nav class="toc">%s</nav>' % listed(root) if root else ""
