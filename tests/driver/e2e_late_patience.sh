#!/usr/bin/env bash
# Patience with a burst of lateness, end to end. A 2 x 2 grid in a fixed
# order (run.seed=1: cells 2, 0, 3, 1); rank 1 reports itself late:
# - in cell 2, the first, at every window barrier of its first second
#   (BENCH_NBC_FAULT late_burst), a burst shorter than the patience (2 s):
#   late in its first 50 passes, its block pauses before every tenth pass
#   until the burst is over, then keeps a pass; the cell is measured whole;
# - in cell 0, at every barrier (late): its block runs out of redos after
#   pausing the whole patience, and the cell is invalid (late);
# - in cell 3, right after it, late at every barrier again: a cell after
#   one that ran out of redos does not pause (0 s of pauses, whatever the
#   machine's speed: a burst of a given length would outlast the redos on
#   a fast machine and not on a slow one), and the cell is invalid too;
# - cell 1, after it, has no fault and is measured whole.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
command -v python3 >/dev/null || skip "python3 is not installed (it reads meta.json)"
make_scratch
patience_s=2 burst_s=1
out=$(BENCH_NBC_FAULT=late_burst:1:2,late:1:0,late:1:3 mpi_launch -n 2 "$BENCH" \
    -c configs/default.conf "${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=1ms,2ms,2 --set calibration.tolerance=0.3 \
    --set run.repetitions=2 --set run.half_width=0 --set run.seed=1 \
    --set run.late_patience_s=${patience_s}s 2>&1) ||
    fail "the run failed: $out"
echo "$out"
dir=$(run_folder "$out")
order=$(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["cell_order"])' \
    "$dir/meta.json") || fail "meta.json has no cell_order"
[ "$order" = "2 0 3 1" ] ||
    fail "run.seed=1 ran the cells in the order $order, not 2 0 3 1: choose the seed again"

# sweep.csv, by column name: "stop elapsed_s" of a cell.
stop_of() {
    awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["cell"] == c { print $col["stop"], $col["elapsed_s"] }' "$dir/sweep.csv"
}
# raw.csv: late attempts of a cell (rank 0's rows; lateness is the same on every rank).
late_in() {
    awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["cell"] == c && $col["rank"] == 0 && $col["late"] == 1 { n++ } END { print n + 0 }' \
        "$dir/raw.csv"
}
read -r stop2 elapsed2 < <(stop_of 2)
read -r stop0 elapsed0 < <(stop_of 0)
read -r stop3 elapsed3 < <(stop_of 3)
read -r stop1 _ < <(stop_of 1)
late2=$(late_in 2) late3=$(late_in 3)

[ "$stop2" = fixed ] || fail "cell 2 (a burst of $burst_s s, patient) stopped '$stop2', not measured whole"
[ "$late2" -ge 10 ] || fail "cell 2 has $late2 late attempts: the burst was not seen"
awk -v e="$elapsed2" -v b=$burst_s 'BEGIN { exit !(e >= b) }' ||
    fail "cell 2 took $elapsed2 s, less than its burst ($burst_s s): it cannot have waited it out"
[ "$stop0" = late ] || fail "cell 0 (late at every barrier) stopped '$stop0', not late"
grep -q "cell 0: block 0 was late in all its 101 passes .*with $patience_s s of pauses between them: cell stopped, invalid (late); the next cell does not pause" <<<"$out" ||
    fail "stderr does not say that cell 0 paused $patience_s s and that the next cell does not"
[ "$stop3" = late ] || fail "cell 3 (late right after a cell that ran out of redos) stopped '$stop3', not late"
grep -q "cell 3: block 0 was late in all its 101 passes .*with 0 s of pauses between them: cell stopped, invalid (late)$" <<<"$out" ||
    fail "stderr does not say that cell 3 ran out of redos without pausing"
[ "$stop1" = fixed ] || fail "cell 1 (no fault) stopped '$stop1', not measured whole"
no_leftovers "$SCRATCH"
figure "patience: a $burst_s s burst waited out in $elapsed2 s ($late2 late attempts, cell kept);" \
    "always late: $patience_s s of pauses, invalid in $elapsed0 s; always late right after it:" \
    "no pause, invalid in $elapsed3 s ($late3 late attempts)"
