"""One launch's verdict lines (nbc-verdict on run folders): cells.csv's
readings (the bands of r_overhead) and the run's r_MPI_impact at its
largest computation size with its A/A pair, as figures of one launch; and
the run folders of a run or study folder, in the order the lines go."""
import json
import math
import os

from ..cli import fail as _fail
from ..files import number, read_csv
from ..schema import band_classes, column

PROGRAM = "nbc-verdict"
# How the deployment is named in a verdict: the profile's variables where
# the library runs it (meta.json's settings), else these words.
DEPLOYMENT_WORDS = {
    "basic": "",
    "thread": "the suite's progress thread",
    "manual": "MPI_Test between compute chunks",
}


def fail(text, status=None):
    _fail(PROGRAM, text, status)


def library_name(meta):
    """The library as its users name it ("MPICH 4.0.2"): meta.json's
    mpi_library_name, else its mpi_library's display name and version; ""
    when not recorded."""
    if meta.get("mpi_library_name"):
        return meta["mpi_library_name"]
    library = meta.get("mpi_library") or {}
    return ("%s %s" % (library.get("display_name", ""), library.get("version", ""))).strip()


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


def read_meta(run_dir):
    """A run folder's meta.json as an object; fails when unreadable."""
    try:
        with open(os.path.join(run_dir, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: cannot read meta.json (%s)" % (run_dir, e))
    if not isinstance(meta, dict):
        fail("%s: meta.json is not an object" % run_dir)
    return meta


def verdict(run_dir):
    """(library, collective, deployment, line) of one run folder."""
    meta = read_meta(run_dir)
    name = library_name(meta)
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


def run_folders(top, holding="cells.csv"):
    """The run folders of DIR: itself, or its study's runs in order (those
    holding the file named, for a study)."""
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
        if d and os.path.isfile(os.path.join(d, holding)) and d not in folders:
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
