#!/usr/bin/env bash
# cells.csv's reading is the study verdict's rule on one launch: `overlap`
# is the band of the row's r_overhead (schema/classes.def, read through
# schema_doc --json), `class` one_launch (never confident) or invalid. A
# collective held in the wait while the overlap step's computation ran
# faster than its reference (synth_run --launch-shift -0.2) has r_overhead's
# interval inside hidden: its reading is hidden, whatever r_comm says.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
synth=$BUILD/tests/analysis/synth_run
doc=$TOOLS_DIR/schema_doc
for tool in "$analyze" "$synth" "$doc"; do [ -x "$tool" ] || fail "$tool is not built"; done
make_scratch
"$doc" --json >"$SCRATCH/schema.json" || fail "schema_doc --json"
runs=()
for scenario in mixed no_progress:-0.2 comm_slowed:-0.2 overlap contention; do
    name=${scenario%%:*} shift=0
    [ "$scenario" = "$name" ] || shift=${scenario#*:}
    run=$SCRATCH/$name$shift
    "$synth" --out "$run" --scenario "$name" --launch-shift "$shift" --blocks 12 \
        --comm-ms 1,2,4,8,16 --comp-ms 1,2,4,8,16 --unconverged-comm-ms 16 >/dev/null ||
        fail "synth_run $scenario"
    "$analyze" "$run" >"$SCRATCH/out" 2>&1 || fail "nbc-analyze $scenario: $(cat "$SCRATCH/out")"
    runs+=("$run")
done
python3 - "$SCRATCH/schema.json" "${runs[@]}" <<'PY' || fail "the band readings"
import csv, json, math, sys

classes = json.load(open(sys.argv[1]))["classes"]
bands = [(c["name"], -math.inf if c["band_lo"] is None else c["band_lo"],
          math.inf if c["band_hi"] is None else c["band_hi"]) for c in classes if c["band"]]

def band_of(x):
    return next(name for name, lo, hi in bands if lo <= x < hi)

rows = invalid = 0
for run in sys.argv[2:]:
    for r in csv.DictReader(open(run + "/cells.csv")):
        rows += 1
        x = float(r["r_overhead"])
        if r["valid"] == "1" and not math.isnan(x):
            assert r["overlap"] == band_of(x), (run, r["cell"], x, r["overlap"])
            assert r["class"] == "one_launch", (run, r["cell"], r["class"])
            share = float(r["ended_block_share"])
            lo, hi = float(r["ended_block_share_ci_lo"]), float(r["ended_block_share_ci_hi"])
            assert 0 <= lo <= share <= hi <= 1, (run, r["cell"], lo, share, hi)
        else:
            invalid += 1
            assert (r["overlap"], r["class"]) == ("invalid", "invalid"), (run, r["cell"], r)
assert invalid >= 5 * 5, invalid  # the unconverged 16 ms column of every run

# the held collective beside a faster computation: 4 ms x 16 ms
held = [r for r in csv.DictReader(open(sys.argv[3] + "/cells.csv"))
        if float(r["comm_target_s"]) == 0.004 and float(r["comp_target_s"]) == 0.016][0]
assert float(held["r_overhead_ci_hi"]) < 0.25 and float(held["r_comm"]) > 0.9, held
assert (held["overlap"], held["class"]) == ("hidden", "one_launch"), held
assert float(held["ended_block_share"]) == 0, held  # it had not ended by the last arrival
print(f"{rows} rows, {invalid} invalid; held 4 x 16 ms: r_overhead {held['r_overhead']} "
      f"[{held['r_overhead_ci_lo']}, {held['r_overhead_ci_hi']}], r_comm {held['r_comm']}: "
      f"{held['overlap']}/{held['class']}")
PY
figure "cells.csv: overlap is the band of r_overhead in every valid row of 5 synthetic runs; a held collective beside a faster computation reads hidden/one_launch"
