"""A fingerprint's verdict lines: per library and collective, the ways on
which the collective progressed in most valid cells, the cost on the best
of them, every way's counts, the ways not run."""
import math

from .data import MOST, label_of


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
