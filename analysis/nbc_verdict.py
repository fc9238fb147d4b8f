#!/usr/bin/env python3
"""nbc-verdict: one line in words per configuration of a study.

    nbc-verdict [--map] DIR...

A study folder with its verdict.csv and impact.csv (nbc-analyze --study)
gives the verdict over its launches, one line per configuration, at most
100 columns a line:

    mpich, ibcast, basic: no overlap: communication and computation took their
        sum, confirmed in 24 of 25 cells; 1 suggests no overlap, not confirmed;
        over 3 launches; at the largest computation size (16 ms) computation
        not measurably slowed beside the idle library (r_MPI_impact 1.02
        [0.97, 1.07], A/A band [0.93, 1.08])

the class most cells are confirmed in, named once with its count; the other
confirmed classes; the unconfirmed readings by what their band suggests;
the launches; then r_MPI_impact (eq. 2) at the configuration's largest
computation size (impact.csv's row `largest`, never a median over the
sizes) with its paired interval and A/A band ("not estimable here" where
the band is wider than the effect). --map draws the cells below it, from
the same rows (classes, words and abbreviations from schema/classes.def
through schema_doc --json). nbc-report's study table and nbc-compare's
configuration table print the same figures (study_table here; nbc-compare
by the C code that writes verdict.csv and impact.csv).

Otherwise DIR is a run folder (meta.json, cells.csv, summary.txt, impact.csv) or a
study folder (study.json naming its runs). For each run, in the study's
order with each library and collective's basic deployment first, one
launch's line: cells.csv's readings (the bands of r_overhead) and the run's r_MPI_impact at
its largest computation size with its A/A pair, as figures of one launch.
nbc-run prints these lines at the end of a study, nbc-report at the top of
report.html. Standard library only; see analysis/README.md ("nbc-verdict")."""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import textwrap

PROGRAM = "nbc-verdict"
# cli/ of the source tree (from analysis/ or build/[san/]) or of an installed
# copy: the exit statuses and --version every tool shares.
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [os.path.join(_HERE, *up, "cli") for up in
                (("..",), ("..", ".."), ("..", "share", "bench_nbc"))]
from nbc_cli import ExitStatus, exit_status_help, version_line  # noqa: E402

# How the deployment is named in a verdict: the profile's variables where
# the library runs it (meta.json's settings), else these words.
DEPLOYMENT_WORDS = {
    "basic": "",
    "thread": "the suite's progress thread",
    "manual": "MPI_Test between compute chunks",
}


_SCHEMA = {}


def schema():
    """schema_doc --json (built beside this tool; from the source tree,
    build/'s): the columns of schema/columns.def and the classes of
    schema/classes.def, so that the tool spells neither itself."""
    if not _SCHEMA:
        for tool in (os.path.join(_HERE, "schema_doc"),
                     os.path.join(_HERE, "..", "build", "schema_doc")):
            if os.access(tool, os.X_OK):
                try:
                    out = subprocess.run([tool, "--json"], stdout=subprocess.PIPE, check=True,
                                         universal_newlines=True).stdout
                    doc = json.loads(out)
                    _SCHEMA["columns"] = {c["id"]: c["name"] for f in doc["files"]
                                          for c in f["columns"]}
                    _SCHEMA["classes"] = {c["name"]: c for c in doc["classes"]}
                    _SCHEMA["class_order"] = [c["name"] for c in doc["classes"]]
                except (OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
                    fail("%s --json: %s" % (tool, e), ExitStatus.FAILURE)
                break
        else:
            fail("schema_doc is missing beside %s (build it: make)" % _HERE, ExitStatus.FAILURE)
    return _SCHEMA


def column(schema_id):
    """A column's name from its id in schema/columns.def."""
    columns = schema()["columns"]
    if schema_id not in columns:
        fail("schema_doc names no column %s (schema/columns.def)" % schema_id, ExitStatus.FAILURE)
    return columns[schema_id]


def classes():
    """The verdict's classes by name (schema/classes.def): group, band_lo,
    band_hi, band, words, colour, abbrev."""
    return schema()["classes"]


def band_classes():
    """The readings cells.csv's overlap takes, in schema/classes.def's
    order: the bands of r_overhead, then the class of group invalid."""
    table = classes()
    return [table[n] | {"name": n} for n in schema()["class_order"]
            if table[n]["band"] or table[n]["group"] == "invalid"]


def band_of(value):
    """The band of r_overhead holding value (schema/classes.def); None for
    a NAN."""
    for c in band_classes():
        lo = -math.inf if c["band_lo"] is None else c["band_lo"]
        hi = math.inf if c["band_hi"] is None else c["band_hi"]
        if c["band"] and lo <= value < hi:
            return c["name"]
    return None


def fail(text, status=None):
    print("%s: %s" % (PROGRAM, text), file=sys.stderr)
    sys.exit(ExitStatus.BAD_INPUT if status is None else status)


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value


def median_of(rows, column):
    values = [number(r.get(column)) for r in rows]
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else math.nan


def run_largest_impact(rows):
    """(comp_target_s, (value, lo, hi), (r_aa, lo, hi)) of a run folder's
    impact.csv at its largest computation size (of several hosts, the most
    slowed), never a median over the sizes; None without a row."""
    sized = [r for r in rows if not math.isnan(number(r.get(column("IMPACT_R_MPI_IMPACT"))))]
    if not sized:
        return None
    largest = max(number(r.get(column("IMPACT_COMP_TARGET"))) for r in sized)
    row = max((r for r in sized if number(r.get(column("IMPACT_COMP_TARGET"))) == largest),
              key=lambda r: number(r.get(column("IMPACT_R_MPI_IMPACT"))))
    return (largest,) + tuple(tuple(number(row.get(column(i))) for i in ids) for ids in (
        ("IMPACT_R_MPI_IMPACT", "IMPACT_R_MPI_IMPACT_CI_LO", "IMPACT_R_MPI_IMPACT_CI_HI"),
        ("IMPACT_R_AA", "IMPACT_R_AA_CI_LO", "IMPACT_R_AA_CI_HI")))


def deployment_words(meta):
    deployment = meta.get("deployment") or "basic"
    library = meta.get("mpi_library") or {}
    env = ["%s=%s" % (s.get("variable"), s.get("value")) for s in library.get("settings") or []
           if s.get("applied") and "deployment " + deployment in str(s.get("source", ""))]
    words = ", ".join(env) or DEPLOYMENT_WORDS.get(deployment, "")
    return deployment + (" (%s)" % words if words else "")


def class_counts(cells):
    """cells.csv's readings counted by overlap (a band, or invalid)."""
    invalid = band_classes()[-1]["name"]
    counts = {}
    for row in cells:
        name = row.get(column("CELLS_OVERLAP")) or invalid
        counts[name] = counts.get(name, 0) + 1
    return counts


def cells_words(counts):
    """One launch's cells in words: the band most cells read when it is
    more than half of the valid ones, and the counts behind it. One launch
    gives readings, never a verdict (the study's verdict.csv decides)."""
    table = band_classes()
    invalid = table[-1]["name"]
    valid = sum(n for name, n in counts.items() if name != invalid)
    if not valid:
        return "no valid cell (%d %s)" % (counts.get(invalid, 0), invalid)
    n, lead = max((counts.get(c["name"], 0), c["name"]) for c in table[:-1])
    words = {c["name"]: c["words"] for c in table}
    head = "%s in %d of %d cells" % (words[lead], n, valid) if 2 * n > valid else "mixed"
    parts = ["%s %d" % (c["name"], counts[c["name"]]) for c in table if counts.get(c["name"])]
    return "%s (%s; one launch: readings, not verdicts)" % (head, ", ".join(parts))


def run_impact_words(rows):
    """One launch's r_MPI_impact (eq. 2) at its largest computation size,
    with its interval and its A/A pair's: figures, not a verdict (the
    study's impact.csv pools the launches and says whether it is estimable)."""
    found = run_largest_impact(rows)
    if found is None:
        return ""
    comp, (value, lo, hi), (aa, aa_lo, aa_hi) = found
    text = "r_MPI_impact at the largest computation size (%g ms) %.2f" % (1e3 * comp, value)
    if not math.isnan(lo) and not math.isnan(hi):
        text += " [%.2f, %.2f]" % (lo, hi)
    if not any(math.isnan(v) for v in (aa, aa_lo, aa_hi)):
        text += ", A/A %.2f [%.2f, %.2f]" % (aa, aa_lo, aa_hi)
    return text + " in one launch"


def verdict(run_dir):
    """(library, collective, deployment, line) of one run folder."""
    try:
        with open(os.path.join(run_dir, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: cannot read meta.json (%s)" % (run_dir, e))
    if not isinstance(meta, dict):
        fail("%s: meta.json is not an object" % run_dir)
    library = meta.get("mpi_library") or {}
    name = ("%s %s" % (library.get("display_name", ""), library.get("version", ""))).strip()
    cells = read_csv(os.path.join(run_dir, "cells.csv"))
    if not cells:
        fail("%s: no cells.csv (run nbc-analyze on it first)" % run_dir)
    collective = cells[0].get(column("CELLS_COLLECTIVE"), "?")
    deployment = meta.get("deployment") or "basic"
    words = [cells_words(class_counts(cells)),
             run_impact_words(read_csv(os.path.join(run_dir, "impact.csv")))]
    line = "%s, %s, %s: %s" % (name or "MPI library", collective, deployment_words(meta),
                               "; ".join(w for w in words if w))
    return name, collective, deployment, line


def run_folders(top):
    """The run folders of DIR: itself, or its study's runs in order."""
    if os.path.isfile(os.path.join(top, "meta.json")):
        return [top]
    try:
        with open(os.path.join(top, "study.json"), encoding="utf-8") as f:
            study = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: neither a run folder (meta.json) nor a study folder (study.json: %s)" % (top, e))
    folders = []
    for run in study.get("runs") or []:
        d = run.get("run_dir") if isinstance(run, dict) else None
        if d and os.path.isfile(os.path.join(d, "cells.csv")) and d not in folders:
            folders.append(d)
    return folders


def verdicts(dirs):
    """The verdict lines of run and study folders, basic first within each
    library and collective."""
    found = [verdict(d) for top in dirs for d in run_folders(top)]
    groups = []
    for lib, coll, _, _ in found:
        if (lib, coll) not in groups:
            groups.append((lib, coll))
    return [line for g in groups
            for _, line in sorted(((dep != "basic", line) for lib, coll, dep, line in found
                                   if (lib, coll) == g), key=lambda t: t[0])]


# ---- A study's verdict (verdict.csv, nbc-analyze --study) -------------------

WIDTH = 100  # columns of a printed line


def wrap(text, indent="    "):
    """text in lines of at most WIDTH columns, the later ones indented."""
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


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
    table, order = classes(), schema()["class_order"]
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


def study_line(key, rows, impact=()):
    """One configuration's verdict in words: the confirmed readings, then
    the unconfirmed ones by what they suggest, the launches, then the
    impact at the largest computation size (impact: impact.csv's rows)."""
    mpi, collective, deployment, setting = key
    name = ", ".join(x for x in (mpi, collective, deployment) if x)
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
    computation down): a confirmed class's abbreviation, an unconfirmed
    reading's band in lower case; the counts of study_line read the same
    rows."""
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
            if r.get(column("VERDICT_CONFIDENT")) == "1":
                marks.append("%6s" % table[r[column("VERDICT_CLASS")]]["abbrev"])
            else:
                marks.append("%6s" % table[r[column("VERDICT_OVERLAP")]]["abbrev"].lower())
        lines.append("%11s " % ("%gms" % (1e3 * p)) + " ".join(marks))
    legend = "; ".join("%s %s" % (c["abbrev"], name) for name, c in table.items()
                       if c["band"]) + " (lower case: not confirmed)"
    return lines + wrap(legend, "")


def study_groups(study_dir):
    """verdict.csv's configurations: (key, rows) in the file's order."""
    path = os.path.join(study_dir, "verdict.csv")
    rows = read_csv(path)
    if not rows:
        fail("%s: no rows (nbc-analyze --study %s writes it)" % (path, study_dir))
    return configurations(rows)


def study_lines(study_dir):
    """One line per configuration of a study's verdict, unwrapped (nbc-report)."""
    impact = impact_rows(study_dir)
    return [study_line(key, rows, impact) for key, rows in study_groups(study_dir)]


def study_verdicts(study_dir, with_map=False):
    """The printed lines: each configuration's wrapped, then its map."""
    out, impact = [], impact_rows(study_dir)
    for key, group in study_groups(study_dir):
        out += wrap(study_line(key, group, impact))
        if with_map:
            out += study_map(key, group)
    return out


def main(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n\n")[0],
                                     epilog=exit_status_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-V", "--version", action="version", version=version_line(PROGRAM))
    parser.add_argument("--map", action="store_true",
                        help="with a study folder: its verdict's cells as a grid under each line")
    parser.add_argument("dirs", metavar="DIR", nargs="+", help="a run folder or a study folder")
    args = parser.parse_args(argv)
    for top in args.dirs:
        if not os.path.isdir(top):
            fail("'%s' is not a folder (a run folder or a study folder)" % top)
    # A study folder with its verdict: the verdict over the launches; a run
    # folder (or a study without verdict.csv): one launch's lines.
    studies = [d for d in args.dirs if os.path.isfile(os.path.join(d, "verdict.csv"))]
    runs = [d for d in args.dirs if d not in studies]
    for top in studies:
        for line in study_verdicts(top, args.map):
            print(line)
    for line in verdicts(runs) if runs else []:
        print(line)
    return ExitStatus.COMPLETE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
