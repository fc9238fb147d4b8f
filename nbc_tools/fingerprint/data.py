"""A fingerprint's rows: one per library, collective and way of driving
progress, from the run folders of study (or run) folders with the ways
skipped or failed (study.json), launches pooled; the statistics of each
(fingerprint.csv's columns, docs/formats.md)."""
import json
import math
import os
import re
import statistics

from ..cli import ExitStatus
from ..cli import fail as _fail
from ..files import number, read_csv
from ..schema import band_of, classes, column
from ..verdict.launch import library_name, run_largest_impact

PROGRAM = "nbc-fingerprint"
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
    _fail(PROGRAM, text, status)


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
    return band in classes() and classes()[band]["group"] == "overlap"


def measured_rows(folders):
    """One row per (library, collective, way) measured, launches pooled."""
    groups = {}
    for d in folders:
        meta = read_json(os.path.join(d, "meta.json"))
        lib = meta.get("mpi_library") or {}
        library = library_name(meta)
        cells = read_csv(os.path.join(d, "cells.csv"))
        if not cells:
            fail("%s: no cells.csv (run nbc-analyze on it first)" % d)
        way, deployment, period = way_of(meta)
        key = (lib.get("profile") or meta.get("mpi") or "", cells[0].get(
            column("CELLS_COLLECTIVE"), ""), way)
        g = groups.setdefault(key, dict(library=library or key[0], deployment=deployment,
                                        period=period, folders=[], cells=[], impact=[]))
        g["folders"].append(d)
        g["cells"] += cells
        found = run_largest_impact(read_csv(os.path.join(d, "impact.csv")))
        g["impact"].append(found[1] if found else (math.nan, math.nan, math.nan))
    rows = []
    col = column
    for (mpi, coll, way), g in groups.items():
        valid = [c for c in g["cells"] if c.get(col("CELLS_VALID")) == "1"]
        # its whole interval below the band none: the band of its high end
        confirmed = sum(progressed(band_of(number(c.get(col(
            "CELLS_R_OVERHEAD_CI_HI"))))) for c in valid)
        point = sum(progressed(c.get(col("CELLS_OVERLAP"))) for c in valid)
        overhead = summarized(number(c.get(col("CELLS_R_OVERHEAD"))) for c in valid)
        slowdown = summarized(number(c.get(col("CELLS_R_COMP_SLOWDOWN"))) for c in valid)
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
