#!/usr/bin/env bash
# A small sweep (4 x 4 cells of 1 to 8 ms) with the shipped default
# configuration: a complete run folder, every cell in raw.csv, calibration
# within tolerance for most targets; prints wall time and convergence.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
start=$EPOCHREALTIME
out=$(mpi_launch -n 2 "$BENCH" -c configs/default.conf --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=1ms,8ms,2 --set grid.comp_times=1ms,8ms,2 --set run.repetitions=3 \
    --set run.half_width=0 2>&1) ||
    fail "sweep failed: $out"
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
echo "$out"
dir=$(run_folder "$out")
[ "$(meta_value "$dir" status)" = complete ] || fail "status $(meta_value "$dir" status)"
done_cells=$(meta_value "$dir" cells_done) unreachable=$(meta_value "$dir" cells_unreachable)
# A target calibration did not reach leaves its cells unmeasured, never measured for nothing.
[ $((done_cells + unreachable)) -eq 16 ] || fail "cells_done $done_cells + unreachable $unreachable"
# Every measured cell holds the warm-up and 3 blocks of each kind on each rank.
whole=$(cells_whole "$dir" 4 2) || fail "a cell lacks rows"
[ "$whole" -eq "$done_cells" ] || fail "raw.csv holds $whole cells, meta.json says $done_cells"
[ "$(jq -r '.cell_order | length' "$dir/meta.json")" -eq "$done_cells" ] || fail "cell_order length"
[ "$(($(wc -l <"$dir/calib_comm.csv") - 1))" -eq 4 ] || fail "calib_comm.csv rows"
[ "$(($(wc -l <"$dir/calib_comp.csv") - 1))" -eq 4 ] || fail "calib_comp.csv rows"
# Before and after the sweep, 4 sizes x 2 ranks each, one row per step.
passive_steps=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["reps"]; exit }' "$dir/passive.csv")
[ "$(($(wc -l <"$dir/passive.csv") - 1))" -eq $((16 * passive_steps)) ] || fail "passive.csv rows ($passive_steps steps)"
converged=$(awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { n++; ok += $c["converged"] } END { print ok "/" n }' "$dir/calib_comm.csv" "$dir/calib_comp.csv")
ok=${converged%/*}
# Noise on a busy 2-core machine can defeat a target or two, not most.
[ "$ok" -ge 6 ] || fail "only $converged calibration targets converged"
# Each calibrated time says how precise it is: its runs (at least
# calibration.runs_per_point, 5) and standard error. A target calibrated
# again (the check found the machine's speed changed) prints a line more:
# every line says it, and the lines name the 4 targets.
for what in computation communication; do
    lines=$(grep -E "^bench_nbc: $what [0-9.]+ [mu]?s -> " <<<"$out") ||
        fail "no $what calibration line: $out"
    [ "$(awk -F ' -> ' '{ print $1 }' <<<"$lines" | sort -u | wc -l)" -eq 4 ] ||
        fail "the $what calibration lines do not name 4 targets: $lines"
    ! grep -vqE ", ([5-9]|[1-9][0-9]+) runs, standard error [0-9.e+-]+ ms" <<<"$lines" ||
        fail "a $what calibration line does not give runs and standard error: $lines"
done
# The matrix size grows with the computation target.
sort -t, -k1,1g "$dir/calib_comp.csv" | awk -F, 'NR > 1 && $2 + 0 > 0 { if (prev && $2 < prev * 0.9) exit 1; prev = $2 }' ||
    fail "matrix sizes do not grow with the target"
figure "4x4 sweep, 3 repetitions: wall ${wall} s, calibration $(meta_value "$dir" calibration_s) s," \
    "sweep $(meta_value "$dir" sweep_s) s, targets converged $converged"
