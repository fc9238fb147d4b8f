#!/usr/bin/env bash
# Adaptive repetitions (run.half_width) on a known-answer collective
# (synthetic_perfect, 2 x 1 cells of 4 ms): a loose target stops every cell
# at run.repetitions blocks (precision), an unreachable one runs up to
# run.max_repetitions (max), or until run.cell_budget_s (budget, between the
# two); sweep.csv says how many blocks and why, raw.csv holds exactly those
# blocks, nbc-analyze's cells.csv reports them (blocks, stop).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
min=4 max=9
# adaptive HALF_WIDTH BUDGET MAX: one run; sets DIR.
adaptive() {
    local out
    out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
        --set run.collective=synthetic_perfect --set grid.comm_times=4ms,8ms,2 \
        --set grid.comp_times=4ms --set run.repetitions=$min --set run.max_repetitions="$3" \
        --set run.half_width="$1" --set run.cell_budget_s="$2" 2>&1) || fail "bench_nbc failed: $out"
    DIR=$(run_folder "$out")
    [ "$(meta_value "$DIR" status)" = complete ] || fail "status $(meta_value "$DIR" status)"
    [ "$(cells_whole "$DIR" sweep 2)" -eq 2 ] || fail "raw.csv and sweep.csv disagree in $DIR"
    # raw.csv's last measured block of each cell is sweep.csv's count
    awk -F, 'FILENAME ~ /sweep.csv$/ { if (FNR > 1) runs[$1] = $2; next }
             FNR > 1 && $7 > last[$1] { last[$1] = $7 }
             END { for (c in runs) if (last[c] != runs[c]) exit 1 }' \
        "$DIR/sweep.csv" "$DIR/raw.csv" || fail "raw.csv's blocks differ from sweep.csv in $DIR"
    if [ -x "$TOOLS_DIR/nbc-analyze" ]; then
        "$TOOLS_DIR/nbc-analyze" --no-plots -q "$DIR" 2>/dev/null || fail "nbc-analyze failed on $DIR"
        # cells.csv: blocks (usable) and stop as sweep.csv says
        awk -F, 'FILENAME ~ /sweep.csv$/ { if (FNR > 1) { runs[$1] = $2; why[$1] = $3 }; next }
                 FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                 { if ($c["blocks"] != runs[$c["cell"]] || $c["stop"] != why[$c["cell"]]) exit 1 }' \
            "$DIR/sweep.csv" "$DIR/cells.csv" || fail "cells.csv's blocks or stop differ from sweep.csv"
    fi
}
# stops DIR: "blocks:reason" of each cell, in cell order.
stops() { awk -F, 'FNR > 1 { print $1, $2 ":" $3 }' "$1/sweep.csv" | sort -n | cut -d' ' -f2 | paste -sd' '; }

adaptive 10 0 $max # any interval is narrower than +-10
loose=$(stops "$DIR")
[ "$loose" = "$min:precision $min:precision" ] || fail "loose target: $loose, expected $min:precision twice"
# the half-width recorded is the one that stopped the cell
awk -F, 'FNR > 1 && !($4 <= 10) { exit 1 }' "$DIR/sweep.csv" || fail "loose target: half_width above 10"

adaptive 1e-9 0 $max # never reached: the cap
tight=$(stops "$DIR")
[ "$tight" = "$max:max $max:max" ] || fail "unreachable target: $tight, expected $max:max twice"

# a budget shorter than the cap takes (a block is about 30 ms here, the least
# blocks well under 0.5 s): beyond
# min, before the cap
cap=100
adaptive 1e-9 0.5s $cap
budget=$(stops "$DIR")
for s in $budget; do
    blocks=${s%%:*}
    [ "${s#*:}" = budget ] || fail "budget: $budget"
    if [ "$blocks" -le $min ] || [ "$blocks" -ge $cap ]; then
        fail "budget: $blocks blocks, not within ($min, $cap)"
    fi
done
grep -q budget <<<"$budget" || fail "budget: no cell stopped on its budget ($budget)"
awk -F, -v min=$min 'FNR > 1 && $3 == "budget" && $5 + 0 <= 0.5 { exit 1 }' "$DIR/sweep.csv" ||
    fail "a cell stopped on its budget before it was spent"
no_leftovers "$SCRATCH"
figure "adaptive repetitions (min $min, max $max): loose target $loose; unreachable $tight; 0.5 s budget $budget"
