#!/usr/bin/env python3
"""nbc-fingerprint: a library's progress fingerprint, one page.

    nbc-fingerprint [-o OUT] [--no-pdf] DIR...

DIR is a study folder (study.json: its runs and the ways it skipped, as
`nbc-run --fingerprint` writes it) or a run folder. Each run is one way of
driving progress - its deployment (basic, progress, dedicated, thread,
manual), and the MPI_Test period when it polled by period (meta.json
deployment_plan.test_period_us) - of one library and collective. For each,
over the valid cells of its runs' cells.csv (launches pooled):

- the share of cells where the collective progressed during the
  computation: r_overhead's 95 % interval inside a band of group overlap
  (hidden, partial: schema/classes.def), beside the same share by point
  estimate (cells.csv overlap);
- the median r_overhead (eq. 1) and r_comp_slowdown (eq. 3) over those
  cells, each with the distribution-free 95 % interval of a median from
  order statistics (the binomial rank interval; none under 6 cells);
- r_MPI_impact (eq. 2): nbc-verdict's figure, at the largest computation
  size (impact.csv) with its interval (the median of the launches'
  figures, no interval, with several launches).

It writes OUT/fingerprint.csv (docs/formats.md, "fingerprint.csv"),
OUT/fingerprint.svg (the figure: one row per way, a journal column wide),
OUT/fingerprint.html (the figure, the verdicts, the table, the ways not run
with their reason; fingerprint.pdf too with weasyprint), and prints one
verdict line per library and collective. OUT is DIR when one is given;
several DIRs (two libraries side by side) need -o. Standard library only;
nbc-verdict, beside it, names the columns. See docs/running.md
("A library's progress fingerprint")."""
import argparse
import csv
import datetime
import html
import json
import math
import os
import re
import statistics
import sys

PROGRAM = "nbc-fingerprint"
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [os.path.join(_HERE, *up, "cli") for up in
                (("..",), ("..", ".."), ("..", "share", "bench_nbc"))]
from nbc_cli import (ExitStatus, exit_status_help, html_to_pdf, sibling_module,  # noqa: E402
                     version_line)

# The ways in the page's order, with their words: (figure label, verdict
# words). Polling by period ("manual-<P>us") follows, by period.
WAYS = {
    "basic": ("basic (none)", "no help (basic)"),
    "progress": ("library thread", "its progress thread"),
    "dedicated": ("dedicated core", "its progress thread on a free core"),
    "thread": ("suite thread", "the suite's progress thread"),
    "manual": ("MPI_Test K chunks", "MPI_Test between K compute chunks"),
}
POLLING = re.compile(r"^([a-z]+)-([0-9.]+)us$")
# A way drives progress when the collective progressed during the
# computation in at least this share of its valid cells (confirmed claims).
MOST = 0.5
# fingerprint.csv's columns in order; docs/formats.md ("fingerprint.csv")
# defines them.
COLUMNS = ["library", "mpi_profile", "collective_name", "way", "label", "deployment",
           "test_period_us", "status", "reason", "runs", "cells_total", "cells_valid",
           "cells_progressed", "cells_progressed_point", "progressed_share",
           "progressed_point_share", "r_overhead_median", "r_overhead_lo", "r_overhead_hi",
           "r_comp_slowdown_median", "r_comp_slowdown_lo", "r_comp_slowdown_hi",
           "r_mpi_impact_median", "r_mpi_impact_lo", "r_mpi_impact_hi", "run_folders"]


# The three columns of each statistic with an interval: median, low, high.
STATS = {name: tuple("r_%s_%s" % (stem, end) for end in ("median", "lo", "hi"))
         for name, stem in (("overhead", "overhead"), ("slowdown", "comp_slowdown"),
                            ("impact", "mpi_impact"))}


def fail(text, status=ExitStatus.BAD_INPUT):
    print("%s: %s" % (PROGRAM, text), file=sys.stderr)
    sys.exit(status)


def verdict_module():
    """nbc-verdict (analysis/nbc_verdict.py), installed beside this tool."""
    module = sibling_module(_HERE, "nbc-verdict", "nbc_verdict")
    if module is None:
        fail("nbc-verdict is missing beside %s (an incomplete copy or installation)" % _HERE,
             ExitStatus.FAILURE)
    return module


V = verdict_module()


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: cannot read (%s)" % (path, e))
    if not isinstance(value, dict):
        fail("%s: not a JSON object" % path)
    return value


def median_interval(values, level=0.95):
    """The distribution-free interval of a median: [x_(k), x_(n+1-k)] with
    the largest k whose two tails P(Bin(n, 1/2) < k) hold at most
    (1 - level) / 2 each; (nan, nan) when none does (n < 6 at 95 %)."""
    xs = sorted(values)
    n, tail, k = len(xs), 0.0, 0
    while k < n:
        tail += math.comb(n, k) / 2.0 ** n  # P(Bin < k + 1)
        if tail > (1 - level) / 2:
            break
        k += 1
    return (xs[k - 1], xs[n - k]) if k >= 1 else (math.nan, math.nan)


def summarized(values):
    """(median, lo, hi) of the finite values; nan when none."""
    xs = [v for v in values if math.isfinite(v)]
    if not xs:
        return math.nan, math.nan, math.nan
    return (statistics.median(xs),) + median_interval(xs)


def way_of(meta):
    """(way, deployment, period) of a run from its meta.json."""
    deployment = meta.get("deployment") or "basic"
    period = (meta.get("deployment_plan") or {}).get("test_period_us")
    if isinstance(period, (int, float)) and period > 0:
        return "%s-%gus" % (deployment, period), deployment, "%g" % period
    return deployment, deployment, ""


def label_of(way, words=False):
    m = POLLING.match(way)
    if m:
        return ("MPI_Test every %s us" if words else "MPI_Test %s us") % m.group(2)
    return WAYS.get(way, (way, way))[1 if words else 0]


def way_order(way):
    m = POLLING.match(way)
    if m:
        return (len(WAYS), float(m.group(2)))
    return (list(WAYS).index(way) if way in WAYS else len(WAYS) + 1, 0.0)


def runs_of(top):
    """(run folders, skipped [(mpi, collective, way, reason)], failed [...])
    of a study folder, or a run folder alone."""
    if os.path.isfile(os.path.join(top, "meta.json")):
        return [top], [], []
    if not os.path.isfile(os.path.join(top, "study.json")):
        fail("%s: neither a run folder (meta.json) nor a study folder (study.json)" % top)
    study = read_json(os.path.join(top, "study.json"))
    mpis = (study.get("study") or {}).get("mpi") or []
    colls = (study.get("study") or {}).get("collectives") or []

    def split(name):  # "<mpi>-<collective>-<way>" (names study.json gives)
        for mpi in mpis:
            for coll in colls:
                prefix = "%s-%s-" % (mpi, coll)
                if name.startswith(prefix):
                    return mpi, coll, name[len(prefix):]
        return None

    folders, skipped, failed = [], [], []
    for text in study.get("skipped") or []:
        name, _, reason = str(text).partition(": ")
        parts = split(name)
        if parts:
            skipped.append(parts + (reason,))
    for run in study.get("runs") or []:
        d = run.get("run_dir")
        if run.get("status") in ("complete", "no_valid_cell") and d and \
                os.path.isfile(os.path.join(d, "cells.csv")):
            folders.append(d)
        else:
            parts = split(str(run.get("name", "")))
            if parts:
                failed.append(parts + ("run %s: status %s (its nbc-run.log)" % (
                    run.get("name"), run.get("status")),))
    return folders, skipped, failed


def progressed(band):
    """Whether a band of r_overhead says the collective progressed during
    the computation (its group overlap, schema/classes.def)."""
    v = verdict_module()
    return band in v.classes() and v.classes()[band]["group"] == "overlap"


def measured_rows(folders):
    """One row per (library, collective, way) measured, launches pooled."""
    groups = {}
    for d in folders:
        meta = read_json(os.path.join(d, "meta.json"))
        lib = meta.get("mpi_library") or {}
        library = ("%s %s" % (lib.get("display_name", ""), lib.get("version", ""))).strip()
        cells = V.read_csv(os.path.join(d, "cells.csv"))
        if not cells:
            fail("%s: no cells.csv (run nbc-analyze on it first)" % d)
        way, deployment, period = way_of(meta)
        key = (lib.get("profile") or meta.get("mpi") or "", cells[0].get(
            V.column("CELLS_COLLECTIVE"), ""), way)
        g = groups.setdefault(key, dict(library=library or key[0], deployment=deployment,
                                        period=period, folders=[], cells=[], impact=[]))
        g["folders"].append(d)
        g["cells"] += cells
        found = V.run_largest_impact(V.read_csv(os.path.join(d, "impact.csv")))
        g["impact"].append(found[1] if found else (math.nan, math.nan, math.nan))
    rows = []
    col = V.column
    for (mpi, coll, way), g in groups.items():
        valid = [c for c in g["cells"] if c.get(col("CELLS_VALID")) == "1"]
        # its whole interval below the band none: the band of its high end
        confirmed = sum(progressed(V.band_of(V.number(c.get(col(
            "CELLS_R_OVERHEAD_CI_HI"))))) for c in valid)
        point = sum(progressed(c.get(col("CELLS_OVERLAP"))) for c in valid)
        overhead = summarized(V.number(c.get(col("CELLS_R_OVERHEAD"))) for c in valid)
        slowdown = summarized(V.number(c.get(col("CELLS_R_COMP_SLOWDOWN"))) for c in valid)
        if len(g["impact"]) == 1:
            impact = g["impact"][0]
        else:
            values = [v for v, _, _ in g["impact"] if math.isfinite(v)]
            impact = (statistics.median(values) if values else math.nan, math.nan, math.nan)
        share = (lambda n: n / len(valid) if valid else math.nan)
        rows.append(dict(
            library=g["library"], mpi_profile=mpi, collective_name=coll, way=way,
            label=label_of(way), deployment=g["deployment"], test_period_us=g["period"],
            status="measured", reason="", runs=len(g["folders"]), cells_total=len(g["cells"]),
            cells_valid=len(valid), cells_progressed=confirmed, cells_progressed_point=point,
            progressed_share=share(confirmed), progressed_point_share=share(point),
            r_overhead_median=overhead[0], r_overhead_lo=overhead[1], r_overhead_hi=overhead[2],
            r_comp_slowdown_median=slowdown[0], r_comp_slowdown_lo=slowdown[1],
            r_comp_slowdown_hi=slowdown[2], r_mpi_impact_median=impact[0],
            r_mpi_impact_lo=impact[1], r_mpi_impact_hi=impact[2],
            run_folders=" ".join(g["folders"])))
    return rows


def other_rows(entries, status, libraries):
    """Rows of the ways skipped or failed: (mpi, collective, way, reason)."""
    rows = []
    for mpi, coll, way, reason in entries:
        m = POLLING.match(way)
        rows.append(dict(
            {name: math.nan for name in COLUMNS}, library=libraries.get(mpi, mpi),
            mpi_profile=mpi, collective_name=coll, way=way, label=label_of(way),
            deployment=m.group(1) if m else way, test_period_us=m.group(2) if m else "",
            status=status, reason=reason, runs=0, cells_total=0, cells_valid=0,
            cells_progressed=0, cells_progressed_point=0, run_folders=""))
    return rows


def fingerprint_rows(dirs):
    folders, skipped, failed = [], [], []
    for top in dirs:
        f, s, x = runs_of(top)
        folders += [d for d in f if d not in folders]
        skipped += s
        failed += x
    rows = measured_rows(folders)
    libraries = {r["mpi_profile"]: r["library"] for r in rows}
    measured = {(r["mpi_profile"], r["collective_name"], r["way"]) for r in rows}
    rows += other_rows(skipped, "skipped", libraries)
    rows += other_rows([e for e in failed if e[:3] not in measured], "failed", libraries)
    order = []
    for r in rows:
        if (r["mpi_profile"], r["collective_name"]) not in order:
            order.append((r["mpi_profile"], r["collective_name"]))
    rows.sort(key=lambda r: (order.index((r["mpi_profile"], r["collective_name"])),
                             way_order(r["way"])))
    return rows


# ---- the verdict lines ----------------------------------------------------

def percent(share):
    return "%.0f %%" % (100 * share)


def cost_words(r):
    """The computation's cost on a way: r_comp_slowdown (eq. 3) and r_MPI_impact (eq. 2)."""
    out = []
    m, lo, hi = r["r_comp_slowdown_median"], r["r_comp_slowdown_lo"], r["r_comp_slowdown_hi"]
    if math.isfinite(m):
        ci = " [%.2f, %.2f]" % (lo, hi) if math.isfinite(lo) else ""
        if ci and lo <= 1 <= hi:
            out.append("computation not measurably slowed while overlapping (r_comp_slowdown "
                       "%.2f%s)" % (m, ci))
        else:
            out.append("computation %.2fx %s while overlapping%s" % (
                m if m >= 1 else 1 / m, "slower" if m >= 1 else "faster", ci))
    m, lo, hi = r["r_mpi_impact_median"], r["r_mpi_impact_lo"], r["r_mpi_impact_hi"]
    if math.isfinite(m):
        ci = " [%.2f, %.2f]" % (lo, hi) if math.isfinite(lo) else ""
        out.append("r_MPI_impact %.2f%s" % (m, ci))
    return ", ".join(out)


def way_counts(r):
    """A way's progressed cells in words: confirmed, by point estimate, invalid."""
    invalid = r["cells_total"] - r["cells_valid"]
    return "%s %d of %d valid cells (%d by point estimate%s)" % (
        label_of(r["way"], True), r["cells_progressed"], r["cells_valid"],
        r["cells_progressed_point"], "; %d invalid" % invalid if invalid else "")


def verdict_lines(rows):
    """One line per library and collective: the ways on which the collective
    progressed in most valid cells (confirmed), the cost on the best of
    them, every way's counts, the ways not run."""
    lines = []
    groups = []
    for r in rows:
        if (r["library"], r["collective_name"]) not in groups:
            groups.append((r["library"], r["collective_name"]))
    for library, coll in groups:
        mine = [r for r in rows if (r["library"], r["collective_name"]) == (library, coll)]
        measured = [r for r in mine if r["status"] == "measured" and r["cells_valid"] > 0]
        good = [r for r in measured if r["progressed_share"] >= MOST]
        parts = []
        if not measured:
            parts.append("no way of driving progress has a valid cell")
        elif not good:
            parts.append("no overlap in any way measured (the collective progressed during "
                         "the computation in less than half of the valid cells of each)")
        else:
            best = max(good, key=lambda r: r["progressed_share"])
            parts.append("overlap %swith %s" % (
                "only " if len(good) < len(measured) else "",
                " and ".join("%s (%s of the valid cells)" % (
                    label_of(r["way"], True), percent(r["progressed_share"])) for r in good)))
            cost = cost_words(best)
            if cost:
                parts.append("with %s: %s" % (label_of(best["way"], True), cost))
        if measured:
            parts.append("progressed (confirmed): " + ", ".join(way_counts(r) for r in measured))
        notrun = [r for r in mine if r["status"] != "measured"]
        if notrun:
            parts.append("not run: %s" % ", ".join(
                "%s (%s)" % (label_of(r["way"], True), r["status"]) for r in notrun))
        lines.append("%s, %s: %s" % (library, coll, "; ".join(parts)))
    return lines


# ---- the figure (SVG, 3.5 in wide: a journal column; units are points) ----

WIDTH_PT, LABEL_PT, PANEL_PT, GAP_PT, ROW_PT, TOP_PT, FONT_PT = 252, 72, 40, 6, 12, 22, 7
DARK, LIGHT, GREY = "#0072B2", "#A6CEE3", "#888888"  # Okabe-Ito blue, a light blue


def panels():
    """(title, subtitle, column, lo, hi, log scale, ticks, reference lines)
    of each panel. Fixed ranges, so that pages compare: r_overhead linear
    (0 perfect overlap, 1 serialized), the slowdown ratios on a log scale
    centred near 1 (x2 and /2 equally far); beyond a range, a median is an
    open dot and an interval ends in an arrow at the edge."""
    return [("progressed", "% of cells", "progressed_share", 0.0, 1.0, False,
             [(0, "0"), (0.5, "50"), (1, "100")], []),
            ("overhead", "r, eq. 1", "overhead", -0.5, 3.0, False,
             [(0, "0"), (1, "1"), (2, "2"), (3, "3")], [0, 1]),
            ("slowdown", "r, eq. 3", "slowdown", 0.5, 4.0, True,
             [(1, "1"), (2, "2"), (4, "4")], [1]),
            ("MPI impact", "r, eq. 2", "impact", 0.5, 4.0, True,
             [(1, "1"), (2, "2"), (4, "4")], [1])]


def scaler(x0, lo, hi, log):
    """x of a value in a panel starting at x0, clamped to [lo, hi]."""
    f = math.log if log else (lambda v: v)
    return lambda v: x0 + (f(min(max(v, lo), hi)) - f(lo)) / (f(hi) - f(lo)) * PANEL_PT


def svg_text(x, y, text, anchor="start", weight="normal", fill="black", size=FONT_PT):
    return ('<text x="%.1f" y="%.1f" text-anchor="%s" font-weight="%s" fill="%s" '
            'font-size="%g">%s</text>' % (x, y, anchor, weight, fill, size, html.escape(text)))


def figure_svg(rows):
    groups = []
    for r in rows:
        if (r["library"], r["collective_name"]) not in groups:
            groups.append((r["library"], r["collective_name"]))
    lines = len(rows) + len(groups)
    height = TOP_PT + lines * ROW_PT + 12
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%gin" height="%gin" '
           'viewBox="0 0 %d %d" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
           % (WIDTH_PT / 72, height / 72, WIDTH_PT, height)]
    specs = panels()
    bottom = TOP_PT + lines * ROW_PT
    for i, (title, sub, _, lo, hi, log, ticks, refs) in enumerate(specs):
        x0 = LABEL_PT + i * (PANEL_PT + GAP_PT)
        scale = scaler(x0, lo, hi, log)
        out.append(svg_text(x0 + PANEL_PT / 2, 8, title, "middle"))
        out.append(svg_text(x0 + PANEL_PT / 2, 16, sub, "middle", fill=GREY))
        out.append('<rect x="%.1f" y="%d" width="%d" height="%d" fill="none" stroke="%s" '
                   'stroke-width="0.4"/>' % (x0, TOP_PT - 2, PANEL_PT, bottom - TOP_PT + 2, GREY))
        for ref in refs:
            out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" '
                       'stroke-width="0.5" stroke-dasharray="1.5,1.5"/>'
                       % (scale(ref), scale(ref), TOP_PT - 2, bottom, GREY))
        for value, text in ticks:
            # (a label at a panel's edge stays inside it, clear of the next panel's)
            anchor = "start" if value <= lo else "end" if value >= hi else "middle"
            out.append(svg_text(scale(value), bottom + 8, text, anchor))
    y = TOP_PT
    for library, coll in groups:
        out.append(svg_text(1, y + 8.5, "%s, %s" % (library, coll), weight="bold"))
        y += ROW_PT
        for r in rows:
            if (r["library"], r["collective_name"]) != (library, coll):
                continue
            measured = r["status"] == "measured"
            out.append(svg_text(4, y + 8.5, r["label"], fill="black" if measured else GREY))
            mid = y + ROW_PT / 2
            if not measured:
                # (over the panels' frames and reference lines of that row)
                out.append('<rect x="%d" y="%.1f" width="%d" height="%d" fill="white"/>'
                           % (LABEL_PT, y, WIDTH_PT - LABEL_PT, ROW_PT))
                out.append(svg_text(LABEL_PT + 2, y + 8.5,
                                    "not run: %s (reason in the table)" % r["status"],
                                    fill=GREY))
                y += ROW_PT
                continue
            for i, (_, _, column, lo, hi, log, _, _) in enumerate(specs):
                x0 = LABEL_PT + i * (PANEL_PT + GAP_PT)
                scale = scaler(x0, lo, hi, log)
                if column == "progressed_share":
                    for share, color, h in ((r["progressed_point_share"], LIGHT, 8),
                                            (r["progressed_share"], DARK, 4)):
                        if math.isfinite(share):
                            out.append('<rect x="%.1f" y="%.1f" width="%.2f" height="%d" '
                                       'fill="%s"/>' % (x0, mid - h / 2, scale(share) - x0,
                                                        h, color))
                    continue
                m, a, b = (r[c] for c in STATS[column])
                if math.isfinite(a) and math.isfinite(b):
                    out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black" '
                               'stroke-width="0.8"/>' % (scale(a), scale(b), mid, mid))
                    for end, edge, sign in ((a, lo, -1), (b, hi, 1)):
                        if (end - edge) * sign > 0:  # the interval goes on beyond the axis
                            x = scale(edge)
                            out.append('<path d="M%.1f,%.1f l%.1f,-2 l0,4 z" fill="black"/>'
                                       % (x, mid, -2.5 * sign))
                if math.isfinite(m):
                    clipped = not lo <= m <= hi
                    out.append('<circle cx="%.1f" cy="%.1f" r="1.8" fill="%s" stroke="black" '
                               'stroke-width="0.5"/>' % (scale(m), mid,
                                                          "white" if clipped else "black"))
            y += ROW_PT
    out.append("</svg>")
    return "\n".join(out) + "\n"


CAPTION = (
    "Progress fingerprint: one row per way of driving progress of each library and "
    "collective. progressed: the share of the valid cells where the collective progressed "
    "during the computation (r_overhead's band hidden or partial), dark with its 95 % "
    "interval below the band none, light by point estimate. overhead "
    "(r_overhead, eq. 1; dashed: 0 perfect overlap, 1 serialized) and slowdown "
    "(r_comp_slowdown, eq. 3): median over the valid cells, bar its distribution-free 95 % "
    "interval (order statistics; none under 6 cells). MPI impact (r_MPI_impact, eq. 2): "
    "at the largest computation size, bar its 95 % interval. Both slowdown "
    "ratios are on a log scale. An open dot is a median outside the axis, drawn at its end; "
    "an arrow, an interval that goes on beyond it.")


# ---- the files ---------------------------------------------------------------

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


def write_pdf(html_path, pdf_path):
    written, error = html_to_pdf(PROGRAM, html_path, pdf_path)
    if error:
        fail(error, ExitStatus.FAILURE)
    return written


def main(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n\n")[0],
                                     epilog=exit_status_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-V", "--version", action="version", version=version_line(PROGRAM))
    parser.add_argument("dirs", metavar="DIR", nargs="+",
                        help="a study folder (nbc-run --fingerprint) or a run folder")
    parser.add_argument("-o", dest="out", metavar="OUT",
                        help="where the page goes (default: DIR when one is given)")
    parser.add_argument("--no-pdf", action="store_true", help="no fingerprint.pdf")
    args = parser.parse_args(argv)
    for top in args.dirs:
        if not os.path.isdir(top):
            fail("'%s' is not a folder (a study folder or a run folder)" % top)
    if not args.out and len(args.dirs) > 1:
        fail("-o OUT: several DIRs (%d) share one page: say where it goes" % len(args.dirs))
    out = args.out or args.dirs[0]
    rows = fingerprint_rows(args.dirs)
    if not rows:
        fail("%s: no run and no way skipped: nothing to fingerprint" % " ".join(args.dirs))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        fail("-o %s: cannot create: %s" % (out, e.strerror))
    verdicts = verdict_lines(rows)
    svg = figure_svg(rows)
    paths = [os.path.join(out, name) for name in
             ("fingerprint.csv", "fingerprint.svg", "fingerprint.html")]
    write_atomic(paths[0], csv_text(rows))
    write_atomic(paths[1], svg)
    write_atomic(paths[2], page_html(rows, verdicts, svg, args.dirs))
    if not args.no_pdf and write_pdf(paths[2], os.path.join(out, "fingerprint.pdf")):
        paths.append(os.path.join(out, "fingerprint.pdf"))
    for line in verdicts:
        print(line)
    for path in paths:
        print("fingerprint: " + path)
    return ExitStatus.COMPLETE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
