"""The fingerprint's files: fingerprint.csv (docs/formats.md) and the page
fingerprint.html (the figure, the verdicts, the table, the ways not run),
each written atomically."""
import datetime
import html
import math
import os
import re

from ..cli import ExitStatus, version_line
from .data import COLUMNS, PROGRAM, STATS, fail
from .lines import percent
from .svg import CAPTION


def cell_text(value):
    if isinstance(value, float):
        return "nan" if math.isnan(value) else "%.6g" % value
    return str(value)


def write_atomic(path, text):
    try:
        with open(path + ".tmp", "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    except OSError as e:
        fail("%s: cannot write: %s" % (path, e.strerror), ExitStatus.FAILURE)


def csv_text(rows):
    lines = [",".join(COLUMNS)]
    for r in rows:
        out = []
        for name in COLUMNS:
            text = cell_text(r[name])
            out.append('"%s"' % text.replace('"', '""') if re.search(r'[,"\n]', text) else text)
        lines.append(",".join(out))
    return "\n".join(lines) + "\n"


STYLE = ("@page{size:A4;margin:1.5cm}body{font-family:sans-serif;max-width:60em;"
         "margin:1em auto;font-size:11pt}table{border-collapse:collapse;font-size:8pt;"
         "width:100%;table-layout:fixed;overflow-wrap:anywhere}td,th{border:1px solid #ccc;"
         "padding:2px 4px;text-align:left}figure{margin:1em 0}figcaption{font-size:9pt;"
         "max-width:40em}.skip{color:#666}")
TABLE_COLUMNS = [("library", "library"), ("collective_name", "MPI operation"), ("label", "way"),
                 ("status", "status"), ("cells_valid", "valid cells"),
                 ("progressed_share", "progressed (confirmed)"),
                 ("progressed_point_share", "progressed (point)"),
                 ("overhead", "r_overhead [95 %]"), ("slowdown", "r_comp_slowdown [95 %]"),
                 ("impact", "r_MPI_impact [95 %]")]


def html_cell(r, column):
    if column in STATS:
        m, a, b = (r[c] for c in STATS[column])
        if not math.isfinite(m):
            return ""
        return "%.2f" % m + (" [%.2f, %.2f]" % (a, b) if math.isfinite(a) else "")
    value = r[column]
    if column.endswith("_share"):
        return "" if not math.isfinite(value) else percent(value)
    return cell_text(value)


def page_html(rows, verdicts, svg, dirs):
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    libraries = sorted({r["library"] for r in rows})
    title = "Progress fingerprint: %s" % ", ".join(libraries)
    body = ["<h1>%s</h1>" % html.escape(title), "<h2>Verdicts</h2><ul>"]
    body += ["<li>%s</li>" % html.escape(v) for v in verdicts]
    body.append("</ul><figure>%s<figcaption><b>Figure 1.</b> %s</figcaption></figure>"
                % (svg, html.escape(CAPTION)))
    body.append("<h2>The ways (fingerprint.csv)</h2><table><tr>%s</tr>" % "".join(
        "<th>%s</th>" % html.escape(h) for _, h in TABLE_COLUMNS))
    for r in rows:
        body.append("<tr%s>%s</tr>" % ("" if r["status"] == "measured" else ' class="skip"',
                                       "".join("<td>%s</td>" % html.escape(html_cell(r, c))
                                               for c, _ in TABLE_COLUMNS)))
    body.append("</table>")
    notrun = [r for r in rows if r["status"] != "measured"]
    if notrun:
        body.append("<h2>Ways not run</h2><ul>")
        body += ["<li>%s, %s, %s: %s: %s</li>" % tuple(html.escape(str(x)) for x in (
            r["library"], r["collective_name"], r["label"], r["status"], r["reason"]))
            for r in notrun]
        body.append("</ul>")
    body.append("<h2>Sources</h2><ul>%s</ul>" % "".join(
        "<li>%s</li>" % html.escape(os.path.abspath(d)) for d in dirs))
    body.append("<p>Written %s by %s. The table's columns: docs/formats.md, "
                "\"fingerprint.csv\".</p>" % (when, html.escape(version_line(PROGRAM))))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>"
            "<style>%s</style></head><body>\n%s\n</body></html>\n"
            % (html.escape(title), STYLE, "\n".join(body)))
