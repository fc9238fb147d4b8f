#!/usr/bin/env python3
"""Checks a fingerprint study folder against what it was made from, reading
every file with a CSV or JSON parser:

- fingerprint.csv has one row per measured way, per way skipped by nbc-run
  (study.json `skipped`, the same reason) and nothing else; each measured
  row's counts and medians are those of its runs' cells.csv, recomputed
  here (valid cells, progressed cells confirmed and by point estimate,
  median r_overhead and r_comp_slowdown over the valid cells);
- fingerprint.html names every way skipped with its reason;
- every polling run's sweep.csv records max(1, round(t_comp / P)) chunks per
  cell, t_comp calib_comp.csv's; other runs record 0.

Usage: check_fingerprint.py STUDY_DIR. Prints what it checked; exit 1 with
the first difference."""
import csv
import html
import json
import math
import os
import statistics
import sys

# the bands of group overlap (schema/classes.def) and the bound of none
PROGRESSED = ("hidden", "partial")
NONE_FROM = 0.75


def fail(text):
    print("check_fingerprint: " + text)
    sys.exit(1)


def rows_of(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def close(a, b):
    """Equal but for fingerprint.csv's 6 significant digits."""
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-5 * max(1.0, abs(b))


def main(study_dir):
    study = json.load(open(os.path.join(study_dir, "study.json"), encoding="utf-8"))
    table = rows_of(os.path.join(study_dir, "fingerprint.csv"))
    page = open(os.path.join(study_dir, "fingerprint.html"), encoding="utf-8").read()
    measured = [r for r in table if r["status"] == "measured"]
    runs = [r for r in study["runs"] if r["status"] in ("complete", "no_valid_cell")]
    if len(measured) != len(runs):
        fail("%d measured ways in fingerprint.csv, %d finished runs in study.json"
             % (len(measured), len(runs)))
    checked = 0
    for row in measured:
        folders = row["run_folders"].split()
        cells = [c for d in folders for c in rows_of(os.path.join(d, "cells.csv"))]
        valid = [c for c in cells if c["valid"] == "1"]
        want = {"cells_total": len(cells), "cells_valid": len(valid),
                "cells_progressed": sum(float(c["r_overhead_ci_hi"]) < NONE_FROM for c in valid),
                "cells_progressed_point": sum(c["overlap"] in PROGRESSED for c in valid)}
        for key, value in want.items():
            if int(row[key]) != value:
                fail("%s: %s = %s, its cells.csv give %d" % (row["way"], key, row[key], value))
        for key, column in (("r_overhead_median", "r_overhead"),
                            ("r_comp_slowdown_median", "r_comp_slowdown")):
            values = [float(c[column]) for c in valid if math.isfinite(float(c[column]))]
            value = statistics.median(values) if values else math.nan
            if not close(row[key], value):
                fail("%s: %s = %s, the median of its cells.csv is %r" % (row["way"], key,
                                                                        row[key], value))
        for d in folders:
            meta = json.load(open(os.path.join(d, "meta.json"), encoding="utf-8"))
            period = (meta.get("deployment_plan") or {}).get("test_period_us") or 0
            comp = [float(c["t_comp_s"]) for c in rows_of(os.path.join(d, "calib_comp.csv"))]
            for s in rows_of(os.path.join(d, "sweep.csv")):
                chunks = int(s["test_chunks"])
                if not period:
                    if chunks != 0 and meta.get("deployment") != "manual":
                        fail("%s: sweep.csv test_chunks %d without MPI_Test polling" % (d, chunks))
                    continue
                x = comp[int(s["cell"]) % len(comp)] * 1e6 / period
                # (a ratio within 0.001 of a half rounds either way: the CSV's digits)
                allowed = {max(1, math.floor(x + 0.5 + e)) for e in (-1e-3, 1e-3)}
                if chunks not in allowed:
                    fail("%s: cell %s polls in %d chunks, t_comp / P = %.4f" % (
                        d, s["cell"], chunks, x))
                checked += 1
    skipped = [r for r in table if r["status"] == "skipped"]
    listed = sorted(str(s) for s in study.get("skipped") or [])
    got = sorted("%s-%s-%s: %s" % (r["mpi_profile"], r["collective_name"], r["way"], r["reason"])
                 for r in skipped)
    if got != listed:
        fail("skipped ways: fingerprint.csv %s, study.json %s" % (got, listed))
    for r in skipped:
        if html.escape(r["reason"]) not in page:
            fail("fingerprint.html lacks the reason of %s: %s" % (r["way"], r["reason"]))
    print("fingerprint.csv: %d measured ways match their runs' cells.csv, %d skipped ways with "
          "study.json's reasons (in fingerprint.html too); %d polled cells with "
          "max(1, round(t_comp / P)) chunks" % (len(measured), len(skipped), checked))


if __name__ == "__main__":
    main(sys.argv[1])
