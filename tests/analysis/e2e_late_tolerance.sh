#!/usr/bin/env bash
# nbc-analyze --late-tolerance re-judges every measured attempt from raw.csv:
# on a synthetic run where about 10 % of the attempts were late (rank 1 left
# the window barrier 3 tolerances after the deadline, then the attempt was
# redone), the run's own tolerance (meta.json late_tolerance, 0.01)
# reproduces the driver's table; 5x looser keeps every attempt; the summary
# and cells.csv report the discard rate, the summary in the driver's words
# (late, then discarded with the passes they ended).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
make_scratch
run=$SCRATCH/late
"$synth" --out "$run" --comm-ms 1,4,16 --comp-ms 1,4,16 --blocks 5 --late-share 0.1 --seed 7 ||
    fail "synth_run failed"
late_rows=$(awk -F, 'NR > 1 && $21 == 1 && $13 == 0' "$run/raw.csv" | wc -l)
[ "$late_rows" -gt 0 ] || fail "the synthetic run has no late attempt"

# column NAME FILE: the values of a cells.csv column, one a line
column() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c[name] }' "$2"; }
sum() { awk '{ s += $1 } END { print s + 0 }'; }

"$analyze" --no-plots "$run" >"$SCRATCH/driver.out" 2>/dev/null || fail "nbc-analyze failed"
cp "$run/cells.csv" "$SCRATCH/driver.csv"
late=$(column late_attempts "$run/cells.csv" | sum)
attempts=$(column attempts "$run/cells.csv" | sum)
[ "$late" -eq "$late_rows" ] || fail "cells.csv counts $late late attempts, raw.csv has $late_rows"
# The driver's lateness line, word for word: the late attempts, then those
# discarded with the passes they ended (every attempt of a measured block
# but the one kept of each kind), counted here from raw.csv alone.
discarded=$(python3 - "$run/raw.csv" <<'PY'
import csv, sys
blocks = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["role"] == "measure":
        key = (r["kind"], int(r["attempt"]))
        block = blocks.setdefault((r["cell"], r["block"]), {})
        block[key] = block.get(key, False) or r["late"] == "1"
total = 0
for attempts in blocks.values():
    kinds = {k for k, _ in attempts}
    on_time = {k: sorted(a for (kk, a), late in attempts.items() if kk == k and not late)
               for k in kinds}
    if any(not v for v in on_time.values()):
        total += len(attempts)
        continue
    kept = sum(1 for v in on_time.values())  # one kept attempt per kind
    total += len(attempts) - kept
print(total)
PY
) || fail "raw.csv: cannot count the discarded attempts"
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'; }
want="lateness: $late of $attempts attempts late ($(pct "$late" "$attempts") %), $discarded discarded with the passes they ended ($(pct "$discarded" "$attempts") %)"
grep -qF "$want" "$SCRATCH/driver.out" ||
    fail "summary lacks '$want': $(grep lateness "$SCRATCH/driver.out")"
grep -qF "$want" "$run/summary.txt" || fail "summary.txt lacks '$want'"

"$analyze" --no-plots -q --late-tolerance 0.01 "$run" 2>/dev/null || fail "--late-tolerance 0.01 failed"
cmp -s "$run/cells.csv" "$SCRATCH/driver.csv" || fail "the run's own tolerance does not reproduce the driver's table"

"$analyze" --no-plots -q --late-tolerance 0.05 "$run" 2>/dev/null || fail "--late-tolerance 0.05 failed"
loose_late=$(column late_attempts "$run/cells.csv" | sum)
[ "$loose_late" -eq 0 ] || fail "a 5x looser tolerance still discards $loose_late attempts"
loose_attempts=$(column attempts "$run/cells.csv" | sum)
[ "$loose_attempts" -eq "$attempts" ] || fail "attempts changed: $loose_attempts, not $attempts"
column tolerance_ns "$run/cells.csv" | awk '$1 < 50000 { exit 1 }' || fail "tolerance_ns is not 0.05 x 1 ms at least"

# 0: the tolerance is the barrier's precision (meta.json), not 0
"$analyze" --no-plots -q --late-tolerance 0 "$run" 2>/dev/null || fail "--late-tolerance 0 failed"
column tolerance_ns "$run/cells.csv" | awk '$1 != 2000 { exit 1 }' || fail "the tolerance fell below barrier_precision_ns"
figure "late tolerance: driver $late of $attempts attempts late ($(awk -v a="$late" -v b="$attempts" 'BEGIN { printf "%.1f", 100 * a / b }') %), 0.01 reproduces it, 0.05 keeps all"
