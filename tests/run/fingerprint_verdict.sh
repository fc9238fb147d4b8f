#!/usr/bin/env bash
# nbc-fingerprint's statistics and verdicts without MPI: the order-statistic
# interval of a median against the binomial coverage computed here (the
# largest k whose two tails hold at most 2.5 % each, none under 6 values),
# and the verdict line of made-up ways: "overlap only with" the way whose
# share reaches one half, its cost from r_comp_slowdown, the others with
# their counts, the ways not run; none reaching it says so.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
out=$(python3 - "$BENCH_NBC_ROOT" <<'PY'
import math, sys
sys.path.insert(0, sys.argv[1])
from nbc_tools.fingerprint import data, lines


def fail(text):
    print("FAILED: " + text)
    sys.exit(1)


for n in range(1, 40):
    xs = [float(i) for i in range(n, 0, -1)]  # unsorted on purpose
    lo, hi = data.median_interval(xs)
    tail = lambda k: sum(math.comb(n, i) for i in range(k)) / 2 ** n  # P(Bin(n, 1/2) < k)
    ks = [k for k in range(1, n + 1) if tail(k) <= 0.025]
    if not ks:
        if not (math.isnan(lo) and math.isnan(hi)):
            fail("n=%d: interval (%g, %g), expected none" % (n, lo, hi))
        continue
    k = max(ks)
    if (lo, hi) != (float(k), float(n + 1 - k)):
        fail("n=%d: interval (%g, %g), expected order statistics %d and %d" % (n, lo, hi, k, n + 1 - k))
    if 1 - 2 * tail(k) < 0.95:
        fail("n=%d: coverage %.4f" % (n, 1 - 2 * tail(k)))
if not math.isnan(data.median_interval([1.0] * 5)[0]) or data.median_interval([1.0] * 6) != (1.0, 1.0):
    fail("5 values have no 95 % interval of their median, 6 have one")


def way(name, valid, confirmed, point, slowdown=(math.nan,) * 3, status="measured"):
    r = {c: math.nan for c in data.COLUMNS}
    r.update(library="Lib 1.0", mpi_profile="lib", collective_name="ibcast", way=name,
             label=data.label_of(name), status=status, reason="", cells_total=valid,
             cells_valid=valid, cells_progressed=confirmed, cells_progressed_point=point,
             progressed_share=confirmed / valid if valid else math.nan,
             progressed_point_share=point / valid if valid else math.nan)
    r["r_comp_slowdown_median"], r["r_comp_slowdown_lo"], r["r_comp_slowdown_hi"] = slowdown
    return r


rows = [way("basic", 9, 0, 1), way("progress", 10, 8, 9, (1.3, 1.2, 1.45)),
        way("dedicated", 0, 0, 0, status="skipped"), way("manual-100us", 9, 4, 5)]
line = lines.verdict_lines(rows)[0]
print(line)
for want in ("Lib 1.0, ibcast: overlap only with its progress thread (80 % of the valid cells)",
             "with its progress thread: computation 1.30x slower while overlapping [1.20, 1.45]",
             "no help (basic) 0 of 9 valid cells (1 by point estimate)",
             "MPI_Test every 100 us 4 of 9 valid cells (5 by point estimate)",
             "not run: its progress thread on a free core (skipped)"):
    if want not in line:
        fail("the verdict lacks '%s'" % want)
rows[1] = way("progress", 10, 5, 9, (0.98, 0.95, 1.02))
line = lines.verdict_lines(rows)[0]
print(line)
if "computation not measurably slowed while overlapping (r_comp_slowdown 0.98 [0.95, 1.02])" not in line:
    fail("a slowdown interval holding 1 is not called unmeasurable")
rows[1] = way("progress", 10, 4, 9)
line = lines.verdict_lines(rows)[0]
print(line)
if not line.startswith("Lib 1.0, ibcast: no overlap in any way measured"):
    fail("no way at half its cells: %s" % line)
PY
) || fail "$out"
echo "$out"
figure "nbc-fingerprint: median intervals for 1..39 values match the binomial order statistics; 3 verdicts as the shares and intervals say"
