#!/usr/bin/env bash
# validate.sh's judge (scripts/validate_judge.py) on crafted cells.csv
# files: a valid cell whose value and interval both miss the truth is
# WRONG whatever its band (here `partial`, and a reference off its
# target, which once excused it as flagged), an invalid cell is counted
# apart, a right one is right; the columns are found by the schema's names,
# not their order (the crafted file puts them in another order than
# nbc-analyze writes); and synthetic_intermittent's truth follows the share.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
[ -x "$TOOLS_DIR/schema_doc" ] || fail "$TOOLS_DIR/schema_doc is not built"
"$TOOLS_DIR/schema_doc" --json >"$SCRATCH/schema.json" || fail "schema_doc --json failed"
# craft FILE <<< ROWS: a cells.csv with the schema's names for the columns
# below, in this order; each row gives r_overhead_ci_hi, overlap,
# r_overhead, valid, r_overhead_ci_lo and comp_off_target.
craft() {
    local rows
    rows=$(cat)
    python3 - "$SCRATCH/schema.json" "$1" "$rows" <<'PY' || fail "cannot write $1"
import csv, json, sys
schema, out, text = sys.argv[1], sys.argv[2], sys.argv[3]
cols = next(f for f in json.load(open(schema))["files"] if f["file"] == "cells.csv")["columns"]
name = {c["id"]: c["name"] for c in cols}
ids = ["CELLS_R_OVERHEAD_CI_HI", "CELLS_OVERLAP", "CELLS_R_OVERHEAD", "CELLS_VALID",
       "CELLS_COMM_TARGET", "CELLS_COMP_TARGET", "CELLS_INVALID_REASON", "CELLS_BYTES",
       "CELLS_RANKS", "CELLS_T_COMM_REF", "CELLS_T_COMP_REF", "CELLS_COMPUTE_DELAY_SHARE",
       "CELLS_R_COMM", "CELLS_R_OVERHEAD_CI_LO", "CELLS_R_COMP_SLOWDOWN",
       "CELLS_R_COMP_SLOWDOWN_CI_LO", "CELLS_R_COMP_SLOWDOWN_CI_HI", "CELLS_COMP_OFF_TARGET"]
rows = [line.split() for line in text.splitlines() if line.strip()]
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow([name[i] for i in ids])
    for r in rows:
        hi, band, r_o, valid, lo, off = r
        w.writerow([hi, band, r_o, valid, "0.008", "0.004", "none" if valid == "1" else "late",
                    "8000000", "2", "0.008", "0.004", "0", "1", lo, "1", "1", "1", off])
PY
}
judge() { python3 scripts/validate_judge.py --schema "$SCRATCH/schema.json" "$@"; }
# synthetic_serial, truth r_overhead 1: the value seen beside a CPU-bound
# process (0.39, its interval [0.2, 0.6]) is wrong though its class is
# partial and its reference off target; 0.98 [0.9, 1.1] is right; an
# invalid cell is neither.
craft "$SCRATCH/serial.csv" <<'ROWS'
0.6 partial 0.39 1 0.2 1
1.1 none 0.98 1 0.9 0
nan invalid nan 0 nan 0
ROWS
out=$(judge --collective synthetic_serial "$SCRATCH/serial.csv")
status=$?
echo "$out"
[ $status -eq 1 ] || fail "a wrong value passed the judge (status $status)"
grep -q '^synthetic_serial: 3 cells: right 1, invalid 1, wrong 1' <<<"$out" ||
    fail "the judge did not count 1 right, 1 invalid, 1 wrong"
grep -E '^synthetic_serial +8 +4 .* 0\.390 .*WRONG$' <<<"$out" >/dev/null ||
    fail "the cell 0.39 [0.2, 0.6] is not WRONG"
# Only right and invalid cells: a pass.
craft "$SCRATCH/serial_ok.csv" <<'ROWS'
1.1 none 0.98 1 0.9 0
nan invalid nan 0 nan 0
ROWS
judge --collective synthetic_serial "$SCRATCH/serial_ok.csv" >/dev/null || fail "right and invalid cells failed the judge"
# Only invalid cells: no answer is no pass.
craft "$SCRATCH/none.csv" <<<"nan invalid nan 0 nan 0"
judge --collective synthetic_serial "$SCRATCH/none.csv" >/dev/null && fail "a collective without a valid cell passed"
# synthetic_intermittent: 0.02 [0, 0.1] is right at share 0.75 (truth 0)
# and wrong at 0.25 (truth 1).
craft "$SCRATCH/intermittent.csv" <<<"0.1 overlap 0.02 1 0 0"
judge --collective synthetic_intermittent --share 0.75 "$SCRATCH/intermittent.csv" >/dev/null ||
    fail "synthetic_intermittent at share 0.75: r_overhead 0.02 judged wrong"
judge --collective synthetic_intermittent --share 0.25 "$SCRATCH/intermittent.csv" >/dev/null &&
    fail "synthetic_intermittent at share 0.25: r_overhead 0.02 judged right"
# Bad input: exit 2 with the key named.
err=$(judge --collective ibcast "$SCRATCH/serial.csv" 2>&1)
status=$?
[ $status -eq 2 ] || fail "an unknown collective: status $status: $err"
grep -q "collective 'ibcast' (allowed: " <<<"$err" || fail "an unknown collective: $err"
figure "validate's judge: a wrong value counted as wrong, whatever its class"
