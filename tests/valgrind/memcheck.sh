#!/usr/bin/env bash
# valgrind memcheck of the suite's own code on tiny runs:
#   - bench_nbc on 2 ranks: 1 cell, 1 repetition, data check on, few clock
#     round trips and calibration runs (valgrind makes MPICH ~20x slower);
#   - nbc-analyze on the committed example run and on that run, nbc-compare
#     of the two (tables and gnuplot scripts; gnuplot itself is not run);
#   - the fuzz targets built with gcc replaying their committed inputs
#     (fuzz/corpora.sh), which finds the out-of-bounds reads that only ASan
#     would otherwise see.
# Passes when every process's ERROR SUMMARY is 0 errors: no invalid access,
# no uninitialised value used, no definite leak, beyond the third-party
# allocations tests/valgrind.supp suppresses (documented there).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=fuzz/corpora.sh
source fuzz/corpora.sh
command -v valgrind >/dev/null || skip "valgrind is not installed (apt-get install valgrind)"
[ -z "${SAN:-}" ] || skip "valgrind cannot run the SAN=1 build (ASan and memcheck both replace malloc)"
bench=$BUILD/bench_nbc
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
for program in "$bench" "$analyze" "$compare"; do
    [ -x "$program" ] || fail "$program is not built"
done
make_scratch
mkdir -p "$SCRATCH/logs" "$SCRATCH/runs"
# --trace-children: bench_nbc starts itself again (execv) to give the OpenMP
# runtime its wait policy before it loads; the second image is the one to check.
memcheck=(valgrind --trace-children=yes --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite
          --show-leak-kinds=definite --num-callers=40 --gen-suppressions=all
          --suppressions="$BENCH_NBC_ROOT/tests/valgrind.supp")
suppressed=0

# require_clean NAME PROCESSES: that many logs NAME.PID.log, each with no error.
require_clean() {
    local name=$1 want=$2 log count=0 errors
    for log in "$SCRATCH/logs/$name".*.log; do
        [ -e "$log" ] || continue
        count=$((count + 1))
        errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log")
        if [ "${errors:-missing}" != 0 ]; then
            grep -v -e '^==[0-9]*== *$' "$log" | head -n 150
            fail "valgrind: $name: ${errors:-no} errors (log above; suppressions for libraries go in tests/valgrind.supp)"
        fi
        suppressed=$((suppressed + $(sed -n 's/.*(suppressed: \([0-9]*\) from.*/\1/p' "$log")))
    done
    [ "$count" -eq "$want" ] || fail "valgrind: $name: $count logs, expected $want processes"
}

# 1. The driver, one cell on 2 ranks (one thread each: 2 cores). Under
# valgrind the smallest dgemm step takes milliseconds: a 1 ms computation
# cannot be reached (no cell, exit 5), 32 ms can, with a 4 ms message (targets of the example
# run, so the comparison below has a cell in common).
start=$SECONDS
out=$(mpi_launch -n 2 "${memcheck[@]}" --log-file="$SCRATCH/logs/bench_nbc.%p.log" "$bench" \
    --set run.results_dir="$SCRATCH/runs" --set grid.comm_times=4ms --set grid.comp_times=32ms \
    --set run.repetitions=1 --set run.threads=1 --set run.check=true \
    --set clocksync.roundtrips=50 --set clocksync.drift_gap_s=0.1s \
    --set calibration.runs_per_point=1 --set calibration.max_iterations=4 \
    --set calibration.tolerance=0.9 --set run.late_tolerance=0.5 --set run.max_retries=100 2>&1)
status=$?
bench_s=$((SECONDS - start))
echo "$out"
require_clean bench_nbc 2
# 5: complete, but valgrind's slowness kept the cell from its targets (no
# cell measured): the code ran all the same, and that is what is checked.
[ $status -eq 0 ] || [ $status -eq 5 ] || fail "bench_nbc under valgrind exited with status $status: $out"
run=$(sed -n 's/^bench_nbc: run folder //p' <<<"$out" | head -n 1)
[ -n "$run" ] || fail "bench_nbc under valgrind announced no run folder"
[ -f "$run/raw.csv" ] || fail "bench_nbc under valgrind wrote no raw.csv in $run"
[ "$(jq -r .status "$run/meta.json")" = complete ] || fail "bench_nbc run not complete: $(cat "$run/meta.json")"

# 2. The analysis: the example run, the run just made, and both compared.
cp -r tests/data/example_run "$SCRATCH/example"
for folder in "$SCRATCH/example" "$run"; do
    name=analyze_$(basename "$folder")
    # (4: no valid cell, as after bench_nbc's 5 above)
    "${memcheck[@]}" --log-file="$SCRATCH/logs/$name.%p.log" "$analyze" --no-plots -q "$folder"
    analyzed=$?
    [ $analyzed -eq 0 ] || [ $analyzed -eq 5 ] || fail "nbc-analyze $folder under valgrind failed ($analyzed)"
    require_clean "$name" 1
    [ -s "$folder/cells.csv" ] || fail "nbc-analyze wrote no cells.csv in $folder"
done
"${memcheck[@]}" --log-file="$SCRATCH/logs/compare.%p.log" "$compare" --no-plots \
    "$SCRATCH/example" "$run" -o "$SCRATCH/compare" >"$SCRATCH/compare.out" 2>&1 ||
    fail "nbc-compare under valgrind failed: $(tail -n 5 "$SCRATCH/compare.out"; cat "$SCRATCH"/logs/compare.*.log | grep -v '^==[0-9]*== *$' | tail -n 30)"
require_clean compare 1

# 3. The fuzz targets on their seeds and regressions.
replayed=0
for target in "${fuzz_targets[@]}"; do
    replay=$BUILD/tests/fuzz/replay_$target
    [ -x "$replay" ] || fail "$replay is not built"
    mapfile -t inputs < <(fuzz_inputs "$target")
    "${memcheck[@]}" --log-file="$SCRATCH/logs/replay_$target.%p.log" "$replay" "${inputs[@]}" \
        >"$SCRATCH/replay.out" 2>/dev/null || fail "replay_$target under valgrind failed"
    require_clean "replay_$target" 1
    replayed=$((replayed + $(sed -n 's/^replay: \([0-9]*\) inputs.*/\1/p' "$SCRATCH/replay.out")))
done
figure "valgrind memcheck: 0 errors in bench_nbc (2 ranks, 1 cell, ${bench_s} s), nbc-analyze x2," \
    "nbc-compare, fuzz replays of $replayed inputs; $suppressed third-party errors suppressed"
