#!/usr/bin/env bash
# Adaptive repetitions (run.half_width) on a known-answer collective
# (synthetic_perfect, 2 x 1 cells of 4 ms): a loose target stops every cell
# at run.repetitions blocks (precision), an unreachable one runs up to
# run.max_repetitions (max: 9 blocks, too few for a decision), a budget
# spent early stops at run.repetitions (budget), a longer one before the
# cap (budget, or precision at a look); sweep.csv says how many
# blocks and why, raw.csv holds exactly those blocks, nbc-analyze's
# cells.csv reports them (blocks, stop). No assertion rests on how fast
# the machine is: only on lower bounds of the blocks' durations. The
# computation sleeps (compute.kernel = sleep): its calibration reaches its
# target on a busy machine too, where a dgemm's may miss it and leave no
# cell to stop.
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
        --set run.collective=synthetic_perfect --set compute.kernel=sleep --set grid.comm_times=4ms,8ms,2 \
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

# a budget spent before the least blocks end: every block runs 3 kinds of
# at least 3.6 ms (4 ms targets, calibrated within 10 %), so the warm-up and
# 4 blocks take at least 54 ms > 30 ms whatever the machine's load: each
# cell stops at min, on its budget
adaptive 1e-9 0.03s $max
spent=$(stops "$DIR")
[ "$spent" = "$min:budget $min:budget" ] || fail "30 ms budget: $spent, expected $min:budget twice"

# a budget shorter than the cap takes (100 blocks take at least 1.08 s): the
# cell stops on it, or earlier at a look (10, 16, ... blocks) once its
# interval is narrow enough; never at the cap. A budget stop records an
# elapsed time beyond the budget (%.3f: 0.5 s or more).
cap=100
adaptive 1e-9 0.5s $cap
budget=$(stops "$DIR")
for s in $budget; do
    blocks=${s%%:*} reason=${s#*:}
    case $reason in
    budget) [ "$blocks" -ge $min ] || fail "budget: $blocks blocks, fewer than $min" ;;
    precision)
        if [ "$blocks" -lt 10 ] || [ $(((blocks - min) % 6)) -ne 0 ]; then
            fail "budget: $reason at $blocks blocks, not a look"
        fi
        ;;
    *) fail "budget: $budget" ;;
    esac
    [ "$blocks" -lt $cap ] || fail "budget: $blocks blocks, at the cap"
done
awk -F, 'FNR > 1 && $3 == "budget" && !($5 + 0 >= 0.5) { exit 1 }' "$DIR/sweep.csv" ||
    fail "a cell stopped on its budget before it was spent"
no_leftovers "$SCRATCH"
figure "adaptive repetitions (min $min, max $max): loose target $loose; unreachable $tight; 30 ms budget $spent; 0.5 s budget $budget"
