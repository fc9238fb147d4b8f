#!/usr/bin/env bash
# bench_nbc --replay CELL RUN_DIR: a 2 x 2 run, then one of its valid cells
# measured again. The replay makes a new run folder (replay_of, replay.sh,
# the recorded sizes), leaves RUN_DIR byte for byte as it was, measures only
# that cell, and its r_overhead agrees with the original's within what two
# independent estimates allow (printed: whether it fell within the original
# cell's 95 % interval); replay.sh alone does the same and an environment that differs
# from the recorded one is a warning. Bad input (cell, folder, rank count, --set) exits 2 before
# anything is measured.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
[ -x "$TOOLS_DIR/nbc-analyze" ] || skip "nbc-analyze is not built ($TOOLS_DIR)"
mkdir -p "$SCRATCH/original" "$SCRATCH/replays"
# The known-answer synthetic_serial (r_overhead ~ 1) with the sleep kernel:
# a real collective's cell on this shared machine moves beyond its interval
# between two runs minutes apart (MPICH ibcast, 3.3 MB x 4 ms: 1.07
# [0.90, 1.23], then 0.17), which would test the machine's load, not the
# replay. The sizes, settings and files are checked the same way.
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH/original" \
    --set run.collective=synthetic_serial --set compute.kernel=sleep \
    --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=2ms,4ms,2 --set run.repetitions=8 \
    --set run.half_width=0 --set run.late_tolerance=0.05 2>&1) || fail "the original run failed: $out"
orig=$(run_folder "$out")
[ -d "$orig" ] || fail "no run folder in: $out"
"$TOOLS_DIR/nbc-analyze" --no-plots -q "$orig" || fail "nbc-analyze failed on the original run"

# A valid cell with a finite interval; of those the widest. (An interval of
# the original's estimate is not one for a second estimate, which has its
# own spread: a narrow one misses a faithful replay often.)
cell=$(python3 - "$orig/cells.csv" <<'EOF'
import csv, math, sys
best = None
for row in csv.DictReader(open(sys.argv[1])):
    try:
        lo, hi = float(row["r_overhead_ci_lo"]), float(row["r_overhead_ci_hi"])
    except ValueError:
        continue
    if row["valid"] not in ("1", "true") or not (math.isfinite(lo) and math.isfinite(hi)):
        continue
    width = hi - lo
    if best is None or width > best[0]:
        best = (width, row["cell"])
print(best[1] if best else "")
EOF
)
[ -n "$cell" ] || skip "no valid cell with an interval in the original run (busy machine?)"

snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(snapshot "$orig")

out=$(mpi_launch -n 2 "$BENCH" --set run.results_dir="$SCRATCH/replays" --replay "$cell" "$orig" 2>&1) ||
    fail "the replay failed: $out"
echo "$out"
replay=$(run_folder "$out")
[ -d "$replay" ] || fail "the replay announced no run folder"
[ "$(snapshot "$orig")" = "$before" ] || fail "the replay changed $orig"
case "$replay" in "$SCRATCH/replays/"*) ;; *) fail "replay folder $replay is not under run.results_dir" ;; esac
[ -x "$replay/replay.sh" ] || fail "no executable replay.sh in $replay"
grep -q -- "--replay $cell $orig\$" "$replay/replay.sh" || fail "replay.sh: $(cat "$replay/replay.sh")"
grep -q -- "--replay $cell $orig\$" <<<"$out" || fail "the command is not on stdout"
"$TOOLS_DIR/nbc-analyze" --no-plots -q "$replay" || fail "nbc-analyze failed on the replay"

# meta.json (JSON parser), calibration files and cells.csv (CSV parser).
python3 - "$orig" "$replay" "$cell" <<'EOF' || fail "the replay's folder is wrong"
import csv, json, sys
orig, replay, cell = sys.argv[1], sys.argv[2], int(sys.argv[3])
meta = json.load(open(f"{replay}/meta.json"))
of = meta["replay_of"]
assert of["run_dir"] == orig and of["cell"] == cell, of
assert meta["status"] == "complete", meta["status"]
assert meta["cells_done"] == 1, meta["cells_done"]
assert meta["cell_order"] == [cell], meta["cell_order"]
for name in ("calib_comp.csv", "calib_comm.csv"):
    assert open(f"{orig}/{name}").read() == open(f"{replay}/{name}").read(), name
raw = list(csv.DictReader(open(f"{replay}/raw.csv")))
assert raw and {int(r["cell"]) for r in raw} == {cell}, "raw.csv holds other cells"
o = {int(r["cell"]): r for r in csv.DictReader(open(f"{orig}/cells.csv"))}[cell]
n = {int(r["cell"]): r for r in csv.DictReader(open(f"{replay}/cells.csv"))}[cell]
for k in ("bytes", "matrix_n", "comm_target_s", "comp_target_s"):
    assert o[k] == n[k], (k, o[k], n[k])
lo, hi, value = float(o["r_overhead_ci_lo"]), float(o["r_overhead_ci_hi"]), float(n["r_overhead"])
original = float(o["r_overhead"])
within = lo <= value <= hi
print(f"figure: cell {cell} ({o['bytes']} B, n={o['matrix_n']}): original r_overhead "
      f"{original:.4f} [{lo:.4f}, {hi:.4f}], replayed {value:.4f}"
      f" ({'within' if within else 'outside'} the original's 95 % interval)")
# The replay is a second estimate with its own spread: the difference of two
# independent estimates has sqrt(2) x one's standard error, so at 99.9 %
# (z = 3.29, against the interval's 1.96) it stays within
# sqrt(2) x 3.29 / 1.96 = 2.37 half-widths of the original.
half = (hi - lo) / 2
assert abs(value - original) <= 2.37 * half, \
    f"replayed r_overhead {value} differs from {original} by more than 2.37 x the half-width {half}"
EOF

# replay.sh alone does it again; a variable of a recorded prefix that the
# recorded run did not have is a warning and a recorded difference, not in
# the command (which holds the recorded environment).
out=$(OMP_DISPLAY_ENV=false timeout 300 "$replay/replay.sh" 2>&1) || fail "replay.sh failed: $out"
again=$(run_folder "$out")
if [ ! -d "$again" ] || [ "$again" = "$replay" ]; then
    fail "replay.sh made no new folder: $out"
fi
grep -q "warning: --replay: OMP_DISPLAY_ENV=false is set here, not in the recorded run" <<<"$out" ||
    fail "no warning of the environment's difference: $out"
grep -q OMP_DISPLAY_ENV "$again/replay.sh" && fail "replay.sh took this environment, not the recorded one"
python3 - "$again/meta.json" "$orig" "$cell" <<'EOF' || fail "replay.sh's folder: meta.json replay_of"
import json, sys
of = json.load(open(sys.argv[1]))["replay_of"]
assert of["run_dir"] == sys.argv[2] and of["cell"] == int(sys.argv[3]), of
assert any("OMP_DISPLAY_ENV" in d for d in of["differences"]), of["differences"]
EOF
[ "$(snapshot "$orig")" = "$before" ] || fail "replay.sh changed $orig"

# Bad input: one message, exit 2, nothing measured, no folder made.
expect_failing_launches
bad() {
    local want=$1 status
    shift
    out=$(mpi_launch -n "$@" 2>&1)
    status=$?
    [ $status -eq 2 ] || fail "$* : exit status $status, expected 2: $out"
    grep -q -- "$want" <<<"$out" || fail "$* : no message '$want': $out"
    [ "$(grep -c -- "$want" <<<"$out")" -eq 1 ] || fail "$* : the message is printed more than once: $out"
}
count_before=$(find "$SCRATCH/replays" -mindepth 1 -maxdepth 1 | wc -l)
bad "cells 0 .. 3" 2 "$BENCH" --replay 4 "$orig"
bad "not a cell number" 2 "$BENCH" --replay x1 "$orig"
bad "config.ini" 2 "$BENCH" --replay 0 "$SCRATCH/nowhere"
bad "RUN_DIR is missing" 2 "$BENCH" --replay 0
bad "allowed: --set run.results_dir" 2 "$BENCH" --set run.repetitions=3 --replay 0 "$orig"
bad "cannot be combined" 2 "$BENCH" -c configs/default.conf --replay 0 "$orig"
bad "replay it the same way" 1 "$BENCH" --set run.results_dir="$SCRATCH/replays" --replay 0 "$orig"
[ "$(find "$SCRATCH/replays" -mindepth 1 -maxdepth 1 | wc -l)" -eq "$count_before" ] ||
    fail "a refused replay made a run folder"
[ "$(snapshot "$orig")" = "$before" ] || fail "a refused replay changed $orig"
no_leftovers "$SCRATCH"
