#!/usr/bin/env bash
# A run stopped by SIGTERM (what Slurm sends at the time limit) keeps every
# finished cell, says "interrupted" and exits 3; one killed by SIGKILL keeps
# its finished cells too. --resume finishes both, and the result holds every
# cell once, the cells measured before the stop unchanged. The cells run
# adaptive repetitions whose count varies from cell to cell (a budget that
# the larger cells spend sooner), as sweep.csv records.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
reps=3
sweep=("${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" --set "grid.comm_times=1ms,4ms,2"
       --set "grid.comp_times=1ms,4ms,2" --set "run.repetitions=$reps"
       --set run.half_width=1e-9 --set run.max_repetitions=12 --set run.cell_budget_s=0.15s)

# whole_cells FOLDER: prints how many cells raw.csv holds, failing when one
# of them is not whole or a line is cut.
whole_cells() { cells_whole "$1" sweep 2; }
# first_cell_rows FOLDER: the rows of the cell that ran first.
first_cell_rows() { awk -F, 'NR == 2 { first = $1 } NR > 1 && $1 == first' "$1/raw.csv"; }

# cells_done RUN_DIR_FILE N: whether the run whose folder bench_nbc wrote
# into RUN_DIR_FILE has N cells done (a row each in its sweep.csv, written
# as the cell ends; its console shows progress only every few seconds).
cells_done() {
    local dir
    [ -s "$1" ] && dir=$(cat "$1") && [ -f "$dir/sweep.csv" ] && [ "$(($(wc -l <"$dir/sweep.csv") - 1))" -ge "$2" ]
}

# stop_after_cells SIGNAL N: starts a run, sends SIGNAL to its ranks once N
# cells are done, and sets RUN_DIR and RUN_STATUS.
stop_after_cells() {
    local log=$SCRATCH/log.$1 where=$SCRATCH/dir.$1
    mpi_launch -n 2 "$BENCH" "${sweep[@]}" --run-dir-file "$where" >"$log" 2>&1 &
    local launcher=$! deadline=$((SECONDS + 240))
    until cells_done "$where" "$2" || [ $SECONDS -ge $deadline ]; do
        sleep 0.1
    done
    if ! cells_done "$where" "$2"; then
        pkill -KILL -f "^$BENCH .*run.results_dir=$SCRATCH"
        cat "$log"
        fail "the run never reached cell $2"
    fi
    pkill "-$1" -f "^$BENCH .*run.results_dir=$SCRATCH"
    wait $launcher
    RUN_STATUS=$?
    RUN_DIR=$(run_folder "$(cat "$log")")
    cat "$log"
}

# SIGTERM: stops after the current repetition, whole cells only.
stop_after_cells TERM 2
[ "$RUN_STATUS" -eq 3 ] || fail "SIGTERM: exit status $RUN_STATUS, expected 3"
[ "$(meta_value "$RUN_DIR" status)" = interrupted ] || fail "SIGTERM: status $(meta_value "$RUN_DIR" status)"
kept=$(whole_cells "$RUN_DIR") || fail "SIGTERM: raw.csv holds a cell cut short"
cells=$((9 - $(meta_value "$RUN_DIR" cells_unreachable)))
if [ "$kept" -lt 2 ] || [ "$kept" -ge $cells ]; then fail "SIGTERM: $kept cells kept"; fi
[ "$(meta_value "$RUN_DIR" cells_done)" = "$kept" ] || fail "meta.json cells_done disagrees with raw.csv"
first_cell_rows "$RUN_DIR" >"$SCRATCH/cell0.before"
out=$(mpi_launch -n 2 "$BENCH" --resume "$RUN_DIR" 2>&1) || fail "resume after SIGTERM failed: $out"
[ "$(meta_value "$RUN_DIR" status)" = complete ] || fail "resumed run not complete"
[ "$(whole_cells "$RUN_DIR")" = $cells ] || fail "resumed run lacks cells"
first_cell_rows "$RUN_DIR" | cmp -s - "$SCRATCH/cell0.before" || fail "the first cell changed on resume"
grep -q 'kept' <<<"$out" || fail "resume recalibrated instead of keeping the calibrations"
term_kept=$kept

# SIGKILL: nothing runs after the signal; finished cells are on disk.
stop_after_cells KILL 3
[ "$(meta_value "$RUN_DIR" status)" = running ] || fail "SIGKILL: status $(meta_value "$RUN_DIR" status)"
first_cell_rows "$RUN_DIR" >"$SCRATCH/cell0.before"
out=$(mpi_launch -n 2 "$BENCH" --resume "$RUN_DIR" 2>&1) || fail "resume after SIGKILL failed: $out"
[ "$(meta_value "$RUN_DIR" status)" = complete ] || fail "resumed run not complete"
cells=$((9 - $(meta_value "$RUN_DIR" cells_unreachable)))
[ "$(whole_cells "$RUN_DIR")" = $cells ] || fail "resumed run lacks cells"
first_cell_rows "$RUN_DIR" | cmp -s - "$SCRATCH/cell0.before" || fail "the first cell changed on resume"

# The analysis sees the same table as for an uninterrupted run.
if [ -x "$TOOLS_DIR/nbc-analyze" ]; then
    "$TOOLS_DIR/nbc-analyze" --no-plots -q "$RUN_DIR" || fail "nbc-analyze failed on the resumed run"
    # every cell of the grid, the unreachable ones listed as such
    [ "$(($(wc -l <"$RUN_DIR/cells.csv") - 1))" -eq 9 ] || fail "cells.csv rows"
fi
no_leftovers "$SCRATCH"
counts=$(awk -F, 'FNR > 1 { print $2 }' "$RUN_DIR/sweep.csv" | sort -n | uniq | paste -sd,)
figure "SIGTERM kept $term_kept whole cells (0 lost), SIGKILL then --resume: $cells of $cells cells, finished cells unchanged; blocks per cell $counts"
