"""The null-control coverage of a study (analysis/README.md, "Null
controls"), pooled over its runs' cells.csv: how many valid cells' null
intervals hold 1, with the share's exact 95 % interval; study.json's
null_coverage and the summary's lines."""
import csv
import json
import math
import os
import subprocess


def clopper_pearson(k, n, confidence=0.95):
    """Exact (Clopper-Pearson) interval of a binomial share k / n: the p at
    which P(X >= k) and P(X <= k), X ~ Binomial(n, p), are (1 - confidence) / 2,
    found by bisection (both tails are monotonic in p)."""
    def pmf(i, p):  # in logs: comb(n, i) overflows a float past n ~ 1000
        if p in (0.0, 1.0):
            return float(i == (0 if p == 0.0 else n))
        return math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) +
                        i * math.log(p) + (n - i) * math.log1p(-p))

    def at_most(p):  # P(X <= k), falls as p grows
        return min(1.0, sum(pmf(i, p) for i in range(k + 1)))

    def bisect(rising, target):  # the p where rising(p) crosses target
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if rising(mid) < target else (lo, mid)
        return (lo + hi) / 2

    alpha = (1 - confidence) / 2
    low = 0.0 if k == 0 else bisect(lambda p: 1.0 - at_most(p) + pmf(k, p), alpha)
    high = 1.0 if k == n else bisect(lambda p: -at_most(p), -alpha)
    return low, high


def schema_columns(tools_dir):
    """Column names by their id in schema/columns.def (schema_doc --json
    beside the tools); {} when it cannot be run."""
    try:
        out = subprocess.run([os.path.join(tools_dir, "schema_doc"), "--json"],
                             stdout=subprocess.PIPE, check=True, universal_newlines=True).stdout
        return {c["id"]: c["name"] for f in json.loads(out)["files"] for c in f["columns"]}
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return {}


def pooled_null_coverage(run_dirs, columns):
    """The null-control coverage (analysis/README.md, "Null controls") pooled
    over the runs' cells.csv (column names: schema_columns): per pair, the
    valid cells with a null interval and how many of those intervals hold 1,
    with the share's 95 % interval. None without the column names."""
    pairs = {"comm_null": "CELLS_COMM_NULL_CI_", "comp_null": "CELLS_COMP_NULL_CI_"}
    try:
        valid = columns["CELLS_VALID"]
        bounds = {p: (columns[i + "LO"], columns[i + "HI"]) for p, i in pairs.items()}
    except KeyError:
        return None
    counts = {pair: [0, 0] for pair in pairs}
    for d in run_dirs:
        try:
            with open(os.path.join(d, "cells.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError:
            continue
        for row, pair in ((r, p) for r in rows for p in counts):
            try:
                lo, hi = float(row[bounds[pair][0]]), float(row[bounds[pair][1]])
            except (KeyError, TypeError, ValueError):
                continue
            if row.get(valid) == "1" and not (math.isnan(lo) or math.isnan(hi)):
                counts[pair][0] += lo <= 1.0 <= hi
                counts[pair][1] += 1
    pooled = {}
    for pair, (covered, cells) in counts.items():
        ci = clopper_pearson(covered, cells) if cells else (None, None)
        pooled[pair] = {"covered": covered, "cells": cells, "runs": len(run_dirs),
                        "share": covered / cells if cells else None,
                        "ci_lo": ci[0], "ci_hi": ci[1]}
    return pooled
