#!/usr/bin/env bash
# run.visits = 2: each cell's 4 blocks are measured in two visits of 2, the
# cells visited in rounds. In raw.csv every cell holds blocks 1 to 4 once
# each (their last pass on time) and a warm-up pass before each visit (block
# 0, the second visit's passes numbered on from the first's); every first
# visit comes before every second one (rounds), so that each cell's two
# halves are apart in time; nbc-analyze reads 4 blocks a cell. A run stopped
# by SIGTERM in the second round keeps only the cells that ended, and
# --resume finishes the others with every cell whole once. A sweep that
# measured each cell's blocks back to back fails the rounds check; a
# resume that counted one warm-up a cell fails the whole-cell check.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
sweep=("${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH"
       --set "grid.comm_times=1ms,2ms,2" --set "grid.comp_times=1ms,2ms,2"
       --set run.repetitions=4 --set run.visits=2 --set run.half_width=0)

# check_visits FOLDER: the visits' layout in raw.csv (above); prints the
# cells checked.
check_visits() {
    python3 - "$1/raw.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["rank"] == "0"]
bad, cells = [], sorted({int(r["cell"]) for r in rows})
first_max = second_min = None
for cell in cells:
    mine = sorted((int(r["seq"]), int(r["block"]), int(r["attempt"]), r["late"]) for r in rows
                  if int(r["cell"]) == cell)
    blocks = sorted({b for _, b, _, _ in mine if b > 0})
    if blocks != [1, 2, 3, 4]:
        bad.append(f"cell {cell}: blocks {blocks}")
        continue
    seq_of = lambda b, f: f(s for s, blk, _, _ in mine if blk == b)
    # a warm-up pass between the two visits: after block 2, before block 3
    between = [a for s, b, a, _ in mine if b == 0 and seq_of(2, max) < s < seq_of(3, min)]
    before = [a for s, b, a, _ in mine if b == 0 and s < seq_of(1, min)]
    if not between or not before:
        bad.append(f"cell {cell}: warm-ups before {before}, between the visits {between}")
    elif min(between) <= max(before):
        bad.append(f"cell {cell}: second warm-up's passes {between} not numbered after {before}")
    # the cell's first visit ends with block 2, its second begins with a warm-up
    first_max = max(first_max or 0, seq_of(2, max))
    second = min(s for s, b, _, _ in mine if b == 0 and s > seq_of(2, max))
    second_min = second if second_min is None else min(second_min, second)
if not bad and not first_max < second_min:
    bad.append(f"a second visit (seq {second_min}) began before a first one ended (seq {first_max})")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(len(cells))
PY
}

out=$(mpi_launch -n 2 "$BENCH" "${sweep[@]}" 2>&1) || fail "the run failed: $out"
dir=$(run_folder "$out")
cells=$((4 - $(meta_value "$dir" cells_unreachable)))
[ "$cells" -ge 2 ] || fail "only $cells cells reachable: nothing to interleave"
checked=$(check_visits "$dir") || fail "raw.csv: $checked"
[ "$checked" = "$cells" ] || fail "raw.csv holds $checked cells, $cells reachable"
[ "$(cells_whole "$dir" sweep 2)" = "$cells" ] || fail "a cell is not whole"
if [ -x "$TOOLS_DIR/nbc-analyze" ]; then
    "$TOOLS_DIR/nbc-analyze" "$dir" >"$SCRATCH/analyze.log" 2>&1 || fail "nbc-analyze: $(cat "$SCRATCH/analyze.log")"
    blocks=$(python3 -c 'import csv, sys; print(sorted({r["blocks"] for r in csv.DictReader(open(sys.argv[1]))}))' "$dir/cells.csv")
    [ "$blocks" = "['4']" ] || fail "cells.csv blocks: $blocks"
fi
# sched.csv (where the scheduler's counters are read): each row under the
# cell whose attempt it is, though the cells' visits interleave
if [ -s "$dir/sched.csv" ]; then
    python3 - "$dir/raw.csv" "$dir/sched.csv" <<'PY' || fail "sched.csv files a row under another cell"
import csv, sys
cell_of = {r["seq"]: r["cell"] for r in csv.DictReader(open(sys.argv[1]))}
rows = list(csv.DictReader(open(sys.argv[2])))
wrong = [r for r in rows if cell_of.get(r["seq"]) != r["cell"]]
print(f"sched.csv: {len(rows)} rows, {len(wrong)} under another cell")
sys.exit(bool(wrong) or not rows)
PY
fi
echo "figure: $cells cells, each in two visits of 2 blocks, every first visit before every second"

# SIGTERM once a cell ended (the second round), then --resume.
where=$SCRATCH/dir.term log=$SCRATCH/log.term
mpi_launch -n 2 "$BENCH" "${sweep[@]}" --run-dir-file "$where" >"$log" 2>&1 &
launcher=$! deadline=$((SECONDS + 240))
ended() { [ -s "$where" ] && [ -f "$(cat "$where")/sweep.csv" ] && [ "$(wc -l <"$(cat "$where")/sweep.csv")" -ge 2 ]; }
until ended || [ $SECONDS -ge $deadline ]; do sleep 0.05; done
ended || { pkill -KILL -f "^$BENCH .*run.results_dir=$SCRATCH"; fail "no cell ended: $(cat "$log")"; }
pkill -TERM -f "^$BENCH .*run.results_dir=$SCRATCH"
status=0
wait $launcher || status=$?
dir=$(cat "$where")
[ "$status" -eq 3 ] || [ "$status" -eq 0 ] || fail "SIGTERM: exit status $status: $(cat "$log")"
kept=$(cells_whole "$dir" sweep 2) || fail "SIGTERM: raw.csv holds a cell cut short"
[ "$(meta_value "$dir" cells_done)" = "$kept" ] || fail "meta.json cells_done $(meta_value "$dir" cells_done), raw.csv $kept"
out=$(mpi_launch -n 2 "$BENCH" --resume "$dir" 2>&1) || fail "resume failed: $out"
cells=$((4 - $(meta_value "$dir" cells_unreachable)))
[ "$(cells_whole "$dir" sweep 2)" = "$cells" ] || fail "the resumed run lacks cells"
python3 - "$dir/raw.csv" <<'PY' || fail "the resumed raw.csv repeats a row"
import csv, sys
keys = [(r["cell"], r["block"], r["kind"], r["attempt"], r["rank"]) for r in csv.DictReader(open(sys.argv[1]))]
sys.exit(len(keys) != len(set(keys)))
PY
echo "figure: SIGTERM kept $kept whole cells (exit $status); --resume finished all $cells"
