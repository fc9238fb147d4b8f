"""A study's verdict over its launches (nbc-verdict on a study folder):
verdict.csv and impact.csv (nbc-analyze --study) in words, one line per
configuration, its map of cells, and the table nbc-report prints from the
same rows. It spells no class: schema/classes.def, through schema_doc."""
import json
import math
import os
import statistics

from ..cli import console_lines
from ..files import number, read_csv
from ..schema import class_order, classes, column
from .launch import fail, library_name, read_meta, run_folders


def configurations(rows):
    """verdict.csv's rows grouped by configuration, in the file's order."""
    keys = [column(i) for i in ("VERDICT_MPI", "VERDICT_COLLECTIVE", "VERDICT_DEPLOYMENT",
                                "VERDICT_SETTING")]
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k, "") for k in keys), []).append(row)
    return list(groups.items())


def tally(rows):
    """(confirmed {class: cells}, suggested {group: cells}, invalid cells,
    launches) of one configuration: a confirmed cell counts in its class, an
    unconfirmed one in the group of the band its value reads."""
    table = classes()
    confirmed, suggested, invalid, launches = {}, {}, 0, set()
    for row in rows:
        name, band = row.get(column("VERDICT_CLASS")), row.get(column("VERDICT_OVERLAP"))
        launches.add(row.get(column("VERDICT_LAUNCHES")))
        if name not in table or band not in table:
            fail("verdict.csv: class '%s' or overlap '%s' is not one of %s" % (
                name, band, ", ".join(table)))
        if row.get(column("VERDICT_CONFIDENT")) == "1":
            confirmed[name] = confirmed.get(name, 0) + 1
        elif table[band]["band"]:
            group = table[band]["group"]
            suggested[group] = suggested.get(group, 0) + 1
        else:
            invalid += 1
    return confirmed, suggested, invalid, launches


def study_cells_words(rows):
    """The cells of one configuration in words: the class most cells are
    confirmed in (named once, with its count), the other confirmed classes,
    then the unconfirmed readings by what their band suggests."""
    table, order = classes(), class_order()
    confirmed, suggested, invalid, _ = tally(rows)
    cells = len(rows)
    n_confirmed = sum(confirmed.values())
    lead = max(confirmed.items(), key=lambda kv: kv[1], default=(None, 0))
    if lead[0] and 2 * lead[1] > cells:
        parts = ["%s, confirmed in %d of %d cells" % (table[lead[0]]["words"], lead[1], cells)]
        others = [c for c in order if confirmed.get(c) and c != lead[0]]
        if others:
            parts.append("also confirmed: %s" % ", ".join(
                "%s %d" % (c, confirmed[c]) for c in others))
    else:
        parts = ["%d of %d cells confirmed%s" % (n_confirmed, cells, " (%s)" % ", ".join(
            "%s %d" % (c, confirmed[c]) for c in order if confirmed.get(c))
            if n_confirmed else "")]
    for group, n in sorted(suggested.items(), key=lambda kv: kv[0] != "overlap"):
        parts.append("%d suggest%s %s, not confirmed" % (
            n, "s" if n == 1 else "", "overlap" if group == "overlap" else "no overlap"))
    if invalid:
        parts.append("%d invalid" % invalid)
    apart = sum(r.get(column("VERDICT_SIZES_AGREE")) == "0" for r in rows)
    if apart:
        parts.append("%d measured other sizes in other launches (calibrated apart)" % apart)
    return parts


def launches_words(rows):
    """What the readings rest on: the launches."""
    counts = sorted(int(r.get(column("VERDICT_LAUNCHES")))
                    for r in rows if (r.get(column("VERDICT_LAUNCHES")) or "").isdigit())
    if not counts:
        return "no launch"
    if counts[-1] < 2:
        return "one launch: readings, not verdicts"
    return "over %d launches" % counts[0] if counts[0] == counts[-1] else \
        "over %d-%d launches" % (counts[0], counts[-1])


def impact_rows(study_dir):
    """The study's impact.csv (nbc-analyze --study): one row per
    configuration and computation size; [] without it."""
    return read_csv(os.path.join(study_dir, "impact.csv"))


def largest_impact(key, rows):
    """The impact.csv row a verdict names for a configuration: its largest
    computation size (column largest), as (comp_target_s, r_mpi_impact,
    lo, hi, aa_lo, aa_hi, cpu_wait_share, estimable); None without one.
    Every printer of a study's impact (nbc-verdict, nbc-report) reads it
    here."""
    ids = ("STUDY_IMPACT_MPI", "STUDY_IMPACT_COLLECTIVE", "STUDY_IMPACT_DEPLOYMENT",
           "STUDY_IMPACT_SETTING")
    for row in rows:
        if (tuple(row.get(column(i), "") for i in ids) == tuple(key) and
                row.get(column("STUDY_IMPACT_LARGEST")) == "1"):
            return tuple(number(row.get(column("STUDY_IMPACT_" + i))) for i in (
                "COMP_TARGET", "R_MPI_IMPACT", "R_MPI_IMPACT_LO", "R_MPI_IMPACT_HI", "AA_LO",
                "AA_HI", "CPU_WAIT_SHARE")) + (row.get(column("STUDY_IMPACT_ESTIMABLE")) == "1",)
    return None


def largest_impact_words(figure):
    """r_MPI_impact (eq. 2) at the largest computation size in words, with
    its paired interval and the A/A band: "not estimable here" where the
    band is wider than the effect."""
    if figure is None or math.isnan(figure[1]):
        return ""
    comp, value, lo, hi, aa_lo, aa_hi, wait, estimable = figure
    interval = "" if math.isnan(lo) or math.isnan(hi) else " [%.2f, %.2f]" % (lo, hi)
    band = ("no A/A band" if math.isnan(aa_lo) or math.isnan(aa_hi) else
            "A/A band [%.2f, %.2f]" % (aa_lo, aa_hi))
    at = "at the largest computation size (%g ms)" % (1e3 * comp)
    if interval and lo <= 1 <= hi:
        text = "%s computation not measurably slowed beside the idle library (r_MPI_impact " \
               "%.2f%s, %s)" % (at, value, interval, band)
    elif not estimable or not interval:
        text = "%s the impact is not estimable here (r_MPI_impact %.2f%s, %s)" % (
            at, value, interval, band)
    else:
        text = "%s computation %.2fx %s beside the idle library%s, %s" % (
            at, value if value >= 1 else 1 / value, "slower" if value >= 1 else "faster",
            interval, band)
    if not math.isnan(wait):
        text += "; it waited for the CPU %.0f %% of the time" % (100 * wait)
    return text


def library_names(study_dir):
    """{profile: the library as its users name it} of a study's launches
    (their meta.json); {} for a folder without study.json."""
    names = {}
    if os.path.isfile(os.path.join(study_dir, "study.json")):
        for run_dir in run_folders(study_dir, holding="meta.json"):
            meta = read_meta(run_dir)
            if meta.get("mpi") and library_name(meta):
                names.setdefault(meta["mpi"], library_name(meta))
    return names


def study_line(key, rows, impact=(), names=None):
    """One configuration's verdict in words: the confirmed readings, then
    the unconfirmed ones by what they suggest, the launches, then the
    impact at the largest computation size (impact: impact.csv's rows);
    the library by its name (names: library_names), else its profile."""
    names = names or {}
    mpi, collective, deployment, setting = key
    name = ", ".join(x for x in (names.get(mpi, mpi), collective, deployment) if x)
    if setting:
        name += " (%s)" % setting
    parts = study_cells_words(rows) + [launches_words(rows)]
    words = largest_impact_words(largest_impact(key, impact))
    return "%s: %s" % (name, "; ".join(parts + ([words] if words else [])))


def study_table(study_dir):
    """(header, rows) of a study's results, one row per configuration: the
    numbers its verdict line words (the same tally and impact.csv row), for
    nbc-report's table."""
    header = ["configuration", "launches", "cells", "confirmed", "confirmed overlap",
              "suggest overlap, not confirmed", "largest size (ms)",
              "r_MPI_impact at the largest size [95 %]", "A/A band", "estimable here"]
    table, impact, out = classes(), impact_rows(study_dir), []
    for key, rows in study_groups(study_dir):
        confirmed, suggested, _, _ = tally(rows)
        figure = largest_impact(key, impact)
        interval = (lambda lo, hi: "-" if math.isnan(lo) or math.isnan(hi) else
                    "[%.2f, %.2f]" % (lo, hi))
        out.append([", ".join(x for x in key if x), launches_words(rows), len(rows),
                    sum(confirmed.values()),
                    sum(n for c, n in confirmed.items() if table[c]["group"] == "overlap"),
                    suggested.get("overlap", 0)] +
                   (["-"] * 4 if figure is None else
                    ["%g" % (1e3 * figure[0]),
                     "%.2f %s" % (figure[1], interval(figure[2], figure[3])),
                     interval(figure[4], figure[5]), "yes" if figure[7] else "no"]))
    return header, out


def study_map(key, rows):
    """The configuration's cells as a grid (communication target across,
    computation down): each cell's band (the estimate's reading), in upper
    case where its group's claim is confirmed (overlap or none), in lower
    case where not; the counts of study_line read the same rows."""
    table = classes()
    comm = sorted({number(r[column("VERDICT_COMM_TARGET")]) for r in rows})
    comp = sorted({number(r[column("VERDICT_COMP_TARGET")]) for r in rows})
    at = {(number(r[column("VERDICT_COMM_TARGET")]), number(r[column("VERDICT_COMP_TARGET")])): r
          for r in rows}
    lines = ["comp \\ comm " + " ".join("%6s" % ("%gms" % (1e3 * c)) for c in comm)]
    for p in reversed(comp):
        marks = []
        for c in comm:
            r = at.get((c, p))
            if r is None:
                marks.append("%6s" % "")
                continue
            mark = table[r[column("VERDICT_OVERLAP")]]["abbrev"]
            confirmed = r.get(column("VERDICT_CONFIDENT")) == "1"
            marks.append("%6s" % (mark if confirmed else mark.lower()))
        lines.append("%11s " % ("%gms" % (1e3 * p)) + " ".join(marks))
    legend = "; ".join("%s %s" % (c["abbrev"], name) for name, c in table.items()
                       if c["band"]) + " (upper case: overlap or none confirmed; lower: not)"
    return lines + console_lines(legend, "")


def study_groups(study_dir):
    """verdict.csv's configurations: (key, rows) in the file's order."""
    path = os.path.join(study_dir, "verdict.csv")
    rows = read_csv(path)
    if not rows:
        fail("%s: no rows (nbc-analyze --study %s writes it)" % (path, study_dir))
    return configurations(rows)


def study_lines(study_dir):
    """One line per configuration of a study's verdict, unwrapped (nbc-report)."""
    impact, names = impact_rows(study_dir), library_names(study_dir)
    return [study_line(key, rows, impact, names) for key, rows in study_groups(study_dir)]


def calibration_words(study_dir):
    """A sentence per launch that calibrated the study's sizes (study.json
    runs without calibration_from) whose own sweep found the computation
    off target (cells.csv comp_off_target) in more than half its valid
    cells: the machine ran at another speed than when it calibrated, so the
    cells measure the work calibrated, not the times their labels name, and
    another study may give those labels other sizes. [] when none."""
    try:
        with open(os.path.join(study_dir, "study.json"), encoding="utf-8") as f:
            runs = json.load(f).get("runs") or []
    except (OSError, ValueError):
        return []
    out = []
    for run in runs:
        d = run.get("run_dir") if isinstance(run, dict) else None
        if not d or run.get("calibration_from") is not None:
            continue
        valid = [r for r in read_csv(os.path.join(d, "cells.csv"))
                 if r.get(column("CELLS_VALID")) == "1"]
        off = [number(r.get(column("CELLS_COMP_TARGET_ERROR"))) for r in valid
               if r.get(column("CELLS_COMP_OFF_TARGET")) == "1"]
        if not valid or 2 * len(off) <= len(valid):
            continue
        error = statistics.median(off)
        out.append("calibration: in %s, which calibrated the study's sizes, the computation took "
                   "%.0f %% %s than its targets in %d of %d cells (comp_off_target): the machine "
                   "ran at another speed than when it calibrated; the cells are the sizes in "
                   "verdict.csv (bytes, matrix_n), not the times their labels name, and another "
                   "study may give those labels other sizes" % (
                       os.path.basename(os.path.normpath(d)), 100 * abs(error),
                       "less" if error < 0 else "more", len(off), len(valid)))
    return out


def study_verdicts(study_dir, with_map=False):
    """The printed lines: each configuration's wrapped, then its map; then
    what the calibration says of the labels (calibration_words)."""
    out, impact, names = [], impact_rows(study_dir), library_names(study_dir)
    for key, group in study_groups(study_dir):
        out += console_lines(study_line(key, group, impact, names))
        if with_map:
            out += study_map(key, group)
    for line in calibration_words(study_dir):
        out += console_lines(line)
    return out
