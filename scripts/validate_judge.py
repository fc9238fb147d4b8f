#!/usr/bin/env python3
"""The judge of scripts/validate.sh: one synthetic collective's cells.csv
against its known truth, by the numbers (r_overhead and its 95 % interval,
valid), never by class names.

A cell is
  invalid  when the analysis could not measure it (valid 0): counted apart;
  right    when its estimate, or its 95 % interval widened by the bound,
           meets the truth;
  WRONG    otherwise: a valid cell whose value and interval both miss the
           truth is wrong whatever its class says (uncertain, unconfirmed,
           off target): a wrong value is never excused as a flag.
The truth is a range [lo, hi] of the judged quantity (a point where it is
known exactly), per collective (TRUTHS below, derived in
docs/collectives.md, "Synthetic collectives"):
  synthetic_perfect       r_overhead 0
  synthetic_serial        r_overhead 1; loaded, [1, inf): its wait is fixed
                          work on the CPU, and right after a computation the
                          scheduler owes a neighbour its share, so the wait
                          can end later than in its reference: no progress,
                          and slower than serialized
  synthetic_intermittent  eq. 1 on median spans: r_overhead 0 when the share
                          q of background starts is above 1/2, 1 below it,
                          [0, 1] at 1/2; loaded and q < 1/2 as serial
  synthetic_steal         r_comp_slowdown in [1 + d/t_comp_ref] with d the
                          slowest rank's stolen CPU time when its helper runs
                          real-time on a quiet machine, else in
                          [1, 1 + d/t_comp_ref] (the scheduler decides how
                          much of d the computation loses)
A cell is loaded when a CPU-bound neighbour runs beside the validation
(--loaded) or its compute_delay_share is above 5 % (the analysis's
threshold of interference).
r_comm's truth is printed beside, not judged: perfect max(0, 1 -
t_comp_ref/t_comm_ref), serial 1, intermittent the one of its majority
regime.

  validate_judge.py --collective NAME --schema SCHEMA_JSON [--share Q]
                    (--share: synthetic_intermittent's run.background_share)
                    [--loaded 0|1] [--realtime 0|1] CELLS_CSV
SCHEMA_JSON is `schema_doc --json` (cells.csv's column names by the
schema's identifiers). Prints one line per cell and a summary line (with
the right cells that are decisive: their interval also excludes the other
answer, so a wide interval did not make them right); exit 0
when no cell is wrong and one at least is valid, 1 when not, 2 on bad input.
"""
import argparse
import csv
import json
import math
import sys

BOUND = {"overhead": 0.15, "slowdown": 0.1}


def fail_input(message):
    print("validate_judge.py: " + message, file=sys.stderr)
    sys.exit(2)


def truth_perfect(cell, args):
    return "overhead", 0.0, 0.0


def truth_serial(cell, args):
    return "overhead", 1.0, math.inf if cell["loaded"] else 1.0


def truth_intermittent(cell, args):
    q = args.share
    if q > 0.5:
        return "overhead", 0.0, 0.0
    if q < 0.5:
        return truth_serial(cell, args)
    return "overhead", 0.0, math.inf if cell["loaded"] else 1.0


def truth_steal(cell, args):
    # the slowest rank (k = ranks - 1) steals (1 + k/10) x size ns
    stolen_s = cell["size_bytes"] * (1 + (cell["nranks"] - 1) / 10) * 1e-9
    predicted = 1 + stolen_s / cell["comp_ref_s"]
    lowest = predicted if args.realtime and not cell["loaded"] else 1.0
    return "slowdown", lowest, predicted


def r_comm_perfect(cell):
    return max(0.0, 1 - cell["comp_ref_s"] / cell["comm_ref_s"])


def r_comm_intermittent(cell, share):
    return r_comm_perfect(cell) if share > 0.5 else 1.0


# collective: (its truth, r_comm's truth or None)
TRUTHS = {
    "synthetic_perfect": (truth_perfect, lambda cell, args: r_comm_perfect(cell)),
    "synthetic_serial": (truth_serial, lambda cell, args: 1.0),
    "synthetic_intermittent": (truth_intermittent,
                               lambda cell, args: r_comm_intermittent(cell, args.share)),
    "synthetic_steal": (truth_steal, None),
}

# cells.csv's columns the judge reads, by the schema's identifiers
COLUMNS = {
    "target_comm": "CELLS_COMM_TARGET", "target_comp": "CELLS_COMP_TARGET",
    "is_valid": "CELLS_VALID", "why_invalid": "CELLS_INVALID_REASON",
    "size_bytes": "CELLS_BYTES", "nranks": "CELLS_RANKS",
    "comm_ref_s": "CELLS_T_COMM_REF", "comp_ref_s": "CELLS_T_COMP_REF",
    "delay": "CELLS_COMPUTE_DELAY_SHARE", "comm_ratio": "CELLS_R_COMM",
    "overhead": "CELLS_R_OVERHEAD", "overhead_lo": "CELLS_R_OVERHEAD_CI_LO",
    "overhead_hi": "CELLS_R_OVERHEAD_CI_HI",
    "slowdown": "CELLS_R_COMP_SLOWDOWN",
    "slowdown_lo": "CELLS_R_COMP_SLOWDOWN_CI_LO",
    "slowdown_hi": "CELLS_R_COMP_SLOWDOWN_CI_HI",
}
TEXT = {"is_valid", "why_invalid"}


def number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def column_names(schema_path):
    try:
        with open(schema_path) as f:
            files = json.load(f)["files"]
        cells = next(f for f in files if f["file"] == "cells.csv")
        names = {c["id"]: c["name"] for c in cells["columns"]}
        return {key: names[ident] for key, ident in COLUMNS.items()}
    except (OSError, ValueError, KeyError, StopIteration) as e:
        fail_input("%s: not schema_doc --json with cells.csv's columns (%s)" % (schema_path, e))


def distance(value, lo, hi):
    """How far value lies outside [lo, hi] (0 inside; inf when undefined)."""
    if math.isnan(value):
        return math.inf
    return lo - value if value < lo else (value - hi if value > hi else 0.0)


def judge(cell, args):
    quantity, lo, hi = TRUTHS[args.collective][0](cell, args)
    bound = BOUND[quantity]
    value, ci_lo, ci_hi = cell[quantity], cell[quantity + "_lo"], cell[quantity + "_hi"]
    error = distance(value, lo, hi)
    # the interval widened by the bound meets [lo, hi]
    meets = not (math.isnan(ci_lo) or math.isnan(ci_hi)) and ci_lo - bound <= hi and ci_hi + bound >= lo
    return quantity, lo, hi, error, error <= bound or meets


def decisive(cell, quantity, lo, hi):
    """Whether a right cell's widened interval also excludes the other
    answer (1 for a truth of 0, 0 for a truth of 1 or more, no slowdown for
    the steal), so that it could not have been right by a wide interval."""
    bound = BOUND[quantity]
    ci_lo, ci_hi = cell[quantity + "_lo"], cell[quantity + "_hi"]
    if quantity == "overhead":
        other = 1.0 if hi <= 0.5 else (0.0 if lo >= 0.5 else None)
    else:
        other = 1.0 if hi > 1 + 2 * bound else None
    if other is None or math.isnan(ci_lo) or math.isnan(ci_hi):
        return False
    return not (ci_lo - bound <= other <= ci_hi + bound)


def main():
    parser = argparse.ArgumentParser(description="Judge one synthetic collective's cells.csv.")
    parser.add_argument("--collective", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--share", type=float, default=None)
    parser.add_argument("--loaded", type=int, choices=(0, 1), default=0)
    parser.add_argument("--realtime", type=int, choices=(0, 1), default=0)
    parser.add_argument("cells")
    args = parser.parse_args()
    if args.collective not in TRUTHS:
        fail_input("--collective '%s' (allowed: %s)" % (args.collective, ", ".join(TRUTHS)))
    if args.collective == "synthetic_intermittent" and args.share is None:
        fail_input("--share: synthetic_intermittent's run.background_share is needed (0 to 1)")
    if args.share is not None and not 0 <= args.share <= 1:
        fail_input("--share %g (allowed: 0 to 1)" % args.share)
    names = column_names(args.schema)
    counts = {"right": 0, "invalid": 0, "wrong": 0, "decisive": 0}
    worst, worst_cell, cells = -1.0, "", 0
    try:
        with open(args.cells, newline="") as f:
            reader = csv.DictReader(f)
            missing = [n for n in names.values() if n not in (reader.fieldnames or [])]
            if missing:
                fail_input("%s: no column %s" % (args.cells, ", ".join(missing)))
            rows = list(reader)
    except OSError as e:
        fail_input("%s: %s" % (args.cells, e))
    print("%-22s %7s %7s %-15s %10s %-21s %-13s %7s %7s  %s" % (
        "collective", "comm_ms", "comp_ms", "judged", "value", "95 % interval", "truth",
        names["comm_ratio"], "(truth)", "verdict"))
    for row in rows:
        cells += 1
        cell = {key: (row[name] if key in TEXT else number(row[name])) for key, name in names.items()}
        delay = cell["delay"]
        cell["loaded"] = bool(args.loaded) or (not math.isnan(delay) and delay > 0.05)
        where = "%-22s %7.3g %7.3g" % (args.collective, cell["target_comm"] * 1e3,
                                       cell["target_comp"] * 1e3)
        if cell["is_valid"] != "1":
            counts["invalid"] += 1
            print("%s %-15s %10s %-21s %-13s %7s %7s  invalid (%s)" % (
                where, "-", "-", "-", "-", "-", "-", cell["why_invalid"]))
            continue
        quantity, lo, hi, error, ok = judge(cell, args)
        counts["right" if ok else "wrong"] += 1
        sure = ok and decisive(cell, quantity, lo, hi)
        counts["decisive"] += sure
        comm_truth = TRUTHS[args.collective][1]
        truth = ("%.3g" % lo) if lo == hi else "[%.3g, %.3g]" % (lo, hi)
        print("%s %-15s %10.3f %-21s %-13s %7.3f %7s  %s" % (
            where, names[quantity], cell[quantity],
            "[%.3f, %.3f]" % (cell[quantity + "_lo"], cell[quantity + "_hi"]), truth,
            cell["comm_ratio"], "%.3f" % comm_truth(cell, args) if comm_truth else "-",
            ("right" if ok else "WRONG") + (", decisive" if sure else "") +
            (", loaded" if cell["loaded"] else "")))
        if error > worst:
            worst, worst_cell = error, "%g ms x %g ms" % (cell["target_comm"] * 1e3,
                                                          cell["target_comp"] * 1e3)
    summary = "%s: %d cells: right %d, invalid %d, wrong %d" % (
        args.collective, cells, counts["right"], counts["invalid"], counts["wrong"])
    summary += "; decisive %d of the right" % counts["decisive"]
    if worst_cell:
        summary += ", worst cell %s (off its truth by %.3f)" % (worst_cell, worst)
    print(summary)
    return 1 if counts["wrong"] or cells == counts["invalid"] else 0


if __name__ == "__main__":
    sys.exit(main())
