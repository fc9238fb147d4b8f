#!/usr/bin/env bash
# The communication axis as message sizes (grid.comm_sizes, 2 sizes x 2
# computation times): the collective runs at exactly the given sizes (no
# search), meta.json and calib_comm.csv record the sizes as the targets, no
# cell is flagged off its target, and the cells table, labelled by bytes,
# prints the OSU and IMB overlap percentages of every measured cell.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
sizes=(262144 1048576)
axis=(--set grid.comm_times= --set "grid.comm_sizes=1MiB,256KiB" --set "grid.comp_times=1ms,2ms,2")

# --plan takes the axis as the run does: 2 x 2 cells.
plan=$("$BENCH" --plan -c configs/default.conf "${axis[@]}" 2>&1 >/dev/null) ||
    fail "--plan refused the sizes: $plan"
grep -q "of 4 cells" <<<"$plan" || fail "--plan does not count 2 x 2 cells: $plan"

out=$(mpi_launch -n 2 "$BENCH" -c configs/default.conf "${QUICK[@]}" "${LOOSE_LATENESS[@]}" \
    --set run.results_dir="$SCRATCH" "${axis[@]}" --set run.repetitions=6 \
    --set run.half_width=0 2>&1) || fail "sweep failed: $out"
echo "$out"
dir=$(run_folder "$out")
[ "$(meta_value "$dir" status)" = complete ] || fail "status $(meta_value "$dir" status)"
[ "$(meta_value "$dir" cells_done)" -eq 4 ] || fail "cells_done $(meta_value "$dir" cells_done)"

# The configuration recorded: the sizes, ascending, and no target times.
[ "$(jq -c '.config.grid.comm_sizes' "$dir/meta.json")" = "[${sizes[0]},${sizes[1]}]" ] ||
    fail "meta.json grid.comm_sizes: $(jq -c '.config.grid.comm_sizes' "$dir/meta.json")"
[ "$(jq -c '.config.grid.comm_times' "$dir/meta.json")" = "[]" ] || fail "meta.json grid.comm_times"

# calib_comm.csv: one row per given size, that size, measured once (no search).
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c[name] }' "$1"; }
[ "$(col "$dir/calib_comm.csv" bytes | tr '\n' ' ')" = "${sizes[*]} " ] ||
    fail "calib_comm.csv bytes: $(col "$dir/calib_comm.csv" bytes | tr '\n' ' ')"
[ "$(col "$dir/calib_comm.csv" size_given | sort -u)" = 1 ] || fail "calib_comm.csv size_given"
[ "$(col "$dir/calib_comm.csv" iterations | sort -u)" = 1 ] || fail "calib_comm.csv iterations"
# Every attempt ran at a given size, and each size is measured.
[ "$(col "$dir/raw.csv" bytes | sort -un | tr '\n' ' ')" = "${sizes[*]} " ] ||
    fail "raw.csv bytes: $(col "$dir/raw.csv" bytes | sort -un | tr '\n' ' ')"

table=$("$TOOLS_DIR/nbc-analyze" --table "$dir" 2>/dev/null) || fail "nbc-analyze --table failed"
echo "$table"
# A size cell is never off its target: there is no target time to miss.
[ "$(col "$dir/cells.csv" comm_off_target | sort -u)" = 0 ] || fail "a size cell flagged comm_off_target"
[ "$(col "$dir/cells.csv" comm_target_error | sort -u)" = nan ] || fail "comm_target_error of a size"
grep -q '^# bench_nbc .* communication axis: bytes$' <<<"$table" || fail "the table's title does not say bytes"
# One row per cell; bytes exactly the given sizes; every valid cell has both
# peers' overlap percentages, numbers from 0 to 100.
rows=$(awk '
    /^#  *cell / { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
    /^#/ { next }
    { print $c["bytes"], $c["class"], $c["Overlap(%)"], $c["overlap[%]"] }' <<<"$table")
[ "$(wc -l <<<"$rows")" -eq 4 ] || fail "the table has not 4 rows: $rows"
[ "$(cut -d' ' -f1 <<<"$rows" | sort -un | tr '\n' ' ')" = "${sizes[*]} " ] || fail "table bytes: $rows"
awk '$2 != "invalid" && !($3 >= 0 && $3 <= 100 && $4 >= 0 && $4 <= 100) { exit 1 }' <<<"$rows" ||
    fail "a valid cell lacks an overlap percentage in [0, 100]: $rows"
figure "ibcast at given sizes (bytes class OSU% IMB%): $(tr '\n' ';' <<<"$rows")"
