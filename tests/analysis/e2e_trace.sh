#!/usr/bin/env bash
# nbc-trace on a cell of the committed example run: the JSON loads, holds one
# step slice per raw.csv row of the cell (each rank's track, each block,
# kind and attempt once), each phase slice lies inside a step of its rank,
# and a cell not in raw.csv is refused with status 2.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "needs python3"
trace=$TOOLS_DIR/nbc-trace
[ -x "$trace" ] || fail "$trace is not built"
run=tests/data/example_run
make_scratch
cell=$(awk -F, 'NR == 2 { print $1 }' "$run/raw.csv")
"$trace" "$run" "$cell" -o "$SCRATCH/trace.json" || fail "nbc-trace $run $cell failed"
# The rows of the cell as rank,block,kind,attempt (what each step must be).
awk -F, -v cell="$cell" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["cell"] == cell { print $c["rank"] "," $c["block"] "," $c["kind"] "," $c["attempt"] }' \
    "$run/raw.csv" | sort >"$SCRATCH/rows.txt"
[ -s "$SCRATCH/rows.txt" ] || fail "no rows of cell $cell"
python3 - "$SCRATCH/trace.json" "$SCRATCH/rows.txt" <<'PY' || fail "trace of cell $cell"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
want = sorted(open(sys.argv[2]).read().split())
steps = [e for e in events if e.get("cat") == "step"]
got = sorted("%d,%d,%s,%d" % (e["tid"], e["args"]["block"], e["name"], e["args"]["attempt"]) for e in steps)
if got != want:
    sys.exit("steps %d, raw.csv rows %d; first differences: %s" % (len(got), len(want), [g for g in got if g not in want][:3]))
if len(set(got)) != len(got):
    sys.exit("a step appears twice")
names = {e["tid"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
if names != {e["tid"] for e in steps}:
    sys.exit("track names %s for ranks %s" % (names, {e["tid"] for e in steps}))
phases = [e for e in events if e.get("cat") == "phase"]
if not phases or {p["name"] for p in phases} - {"start", "compute", "wait"}:
    sys.exit("phase names %s" % {p["name"] for p in phases})
for p in phases:
    if not any(s["tid"] == p["tid"] and s["ts"] <= p["ts"] + 1e-6 and p["ts"] + p["dur"] <= s["ts"] + s["dur"] + 1e-6 for s in steps):
        sys.exit("phase %s not inside a step of rank %d" % (p, p["tid"]))
overlap = [s for s in steps if s["name"] == "overlap"]
if not overlap:
    sys.exit("no overlap step")
print("figure: nbc-trace: %d steps, %d phases, %d ranks" % (len(steps), len(phases), len(names)))
PY
"$trace" "$run" 999999 >/dev/null 2>"$SCRATCH/err"
status=$?
[ $status -eq 2 ] || fail "a cell not in raw.csv: status $status"
grep -q "cell 999999 is not in raw.csv" "$SCRATCH/err" || fail "message: $(cat "$SCRATCH/err")"
"$trace" "$run" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no CELL: not refused with status 2"
