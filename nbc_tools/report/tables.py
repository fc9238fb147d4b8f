"""nbc-report's tables: values as text, the HTML table every section
uses (sized for print: nbc_tools/pdf.py), and the results table the report
opens with (the verdict lines and a column per run)."""
import html
import os
import re

from .. import files, schema
from ..pdf import table_class
from ..verdict import launch
from ..verdict import study as verdict_study


def esc(value):
    return html.escape(str(value))


def text_of(value):
    if value is None:
        return "none"
    if isinstance(value, float):
        return "%.6g" % value
    if isinstance(value, (list, tuple)):
        return ", ".join(text_of(v) for v in value)
    if isinstance(value, dict):  # key: value pairs, never raw JSON
        return "; ".join("%s: %s" % (k, text_of(v)) for k, v in sorted(value.items())) or "none"
    return str(value)


def name_cell(value):
    """A row's name in a fixed, narrow column, free to break after an
    underscore that ends a part of three characters or more (r_comp_
    slowdown: a zero-width space, which weasyprint breaks at and does not
    print) rather than inside a word."""
    return re.sub(r"(?<=[^\W_]{3})_", "_\u200b", esc(text_of(value)))


def table(rows, header=None):
    rows = list(rows)
    wide = table_class(max([len(header or ())] + [len(r) for r in rows]))
    out = ['<table class="%s">' % wide if wide else "<table>"]
    if header:  # repeated on each page the table runs over
        out.append("<thead><tr>" + "".join("<th>%s</th>" % esc(h) for h in header) +
                   "</tr></thead>")
    for row in rows:
        # in fixed columns only: a zero-width space also stops a search for the name
        out.append("<tr>" + "".join("<td>%s</td>" % (
            name_cell(c) if i == 0 and wide else esc(text_of(c))) for i, c in enumerate(row)) +
            "</tr>")
    out.append("</table>")
    return "\n".join(out)


# The results table: the cells of each reading (cells.csv's overlap, in the
# order of schema/classes.def: the bands, then invalid), then the medians a
# reader compares across configurations.


def results(runs, top):
    """The verdict lines, then a column per run: its configuration, the
    cells of each class, median r_overhead (eq. 1), r_comm (eq. 3),
    r_comp_slowdown (eq. 4) over the valid cells and r_MPI_impact (eq. 2)
    with its interval."""
    analyzed = [r for r in runs if os.path.isfile(os.path.join(r, "cells.csv")) and
                os.path.isfile(os.path.join(r, "meta.json"))]
    if not analyzed:
        return "<p class=missing>no analyzed run (cells.csv): run nbc-analyze first</p>"
    out = ["<ul class=verdicts>%s</ul>" % "".join(
        "<li>%s</li>" % esc(line) for line in launch.verdicts(analyzed))]
    # A study's verdict over its launches (verdict.csv, impact.csv) comes
    # first, its numbers from the same rows as its lines; the lines below
    # are then each launch's own.
    if os.path.isfile(os.path.join(top, "verdict.csv")):
        header, rows = verdict_study.study_table(top)
        out = ["<h3>Over the launches (verdict.csv, impact.csv)</h3>",
               "<ul class=verdicts>%s</ul>" % "".join(
                   "<li>%s</li>" % esc(line) for line in verdict_study.study_lines(top)),
               '<div class="results">%s</div>' % table(
                   [[h] + [row[i] for row in rows] for i, h in enumerate(header[1:], 1)],
                   [header[0]] + [row[0] for row in rows]),
               "<h3>Each launch</h3>"] + out
    rows, counts_of = [], {run: launch.class_counts(files.read_csv(
        os.path.join(run, "cells.csv"))) for run in analyzed}
    # The classes some run has: a column of zeros says nothing.
    classes = [k["name"] for k in schema.band_classes()
               if any(c.get(k["name"]) for c in counts_of.values())]
    for run in analyzed:
        cells = files.read_csv(os.path.join(run, "cells.csv"))
        counts = counts_of[run]
        valid = [c for c in cells if c.get(schema.column("CELLS_VALID")) == "1"]
        impact = files.read_csv(os.path.join(run, "impact.csv"))
        name, coll, dep, _ = launch.verdict(run)
        medians = ["%.3g" % files.median_of(valid, k) if valid else "-"
                   for k in map(schema.column, ("CELLS_R_OVERHEAD", "CELLS_R_COMM",
                                                 "CELLS_R_COMP_SLOWDOWN"))]
        found = launch.run_largest_impact(impact)
        rows.append([name, coll, dep, len(valid)] +
                    [counts.get(k, 0) for k in classes] + medians +
                    ["-" if found is None else "%.3g [%.3g, %.3g] at %g ms" % (
                        found[1] + (1e3 * found[0],))])
    header = ["MPI library", "Collective", "Deployment", "valid cells"] + classes + [
        "median r_overhead (valid cells)", "median r_comm (valid cells)",
        "median r_comp_slowdown (valid cells)", "r_MPI_impact at the largest size [95 %]"]
    # A column per run, a row per quantity: a printed page holds a few runs
    # where it would not hold a column per quantity.
    out.append('<div class="results">%s</div>' % table(
        [[h] + [row[i] for row in rows] for i, h in enumerate(header[1:], 1)],
        ["MPI library"] + [row[0] for row in rows]))
    out.append("<p>Readings: cells.csv's overlap, the band of r_overhead (eq. 1) in one "
               "launch, never a verdict (analysis/README.md \"The verdict\"). Ratios: medians over the valid cells of eqs. 1, 3 and 4; "
               "r_MPI_impact (eq. 2): at the largest computation size, with its interval "
               "(impact.csv).</p>")
    return "\n".join(out)
