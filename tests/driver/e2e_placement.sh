#!/usr/bin/env bash
# Where every thread runs, and what the scheduler did to it: a 2-rank run
# lists each rank's threads with their roles and allowed CPUs in meta.json
# (at the start and at the end; the main thread on its compute CPU) and
# sched.csv holds the counters of every computing thread for every attempt
# of raw.csv; with MPICH, the progress deployment lists the library's
# progress thread. Then the refusals, exit 2 with one message before any
# measurement: a one-rank job, both ranks bound to CPU 0, a library that
# provides a lower thread level than the deployment needs (an LD_PRELOAD
# shim holds MPI_Init_thread to MPI_THREAD_FUNNELED).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
{ command -v taskset && command -v setsid; } >/dev/null || skip "taskset and setsid (util-linux) are not installed"
[ "$(nproc)" -ge 2 ] || skip "2 ranks need 2 cores"
make_scratch
expect_failing_launches
cell=(--set run.results_dir="$SCRATCH" --set "grid.comm_times=1ms,2ms,2" --set grid.comp_times=2ms
      --set run.repetitions=2 --set calibration.tolerance=0.9 --set run.null_share=0 "${LOOSE_LATENESS[@]}")

# ---- a run: threads in meta.json, sched.csv for every attempt ----
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${cell[@]}" 2>&1) || fail "bench_nbc failed: $out"
DIR=$(run_folder "$out")
meta=$DIR/meta.json
for list in threads_start threads_end; do
    [ "$(jq --arg l $list '.[$l] | length' "$meta")" = 2 ] || fail "$list: not one entry per rank"
    for r in 0 1; do
        rank=$(jq -c --arg l $list --argjson r $r '.[$l][$r]' "$meta")
        [ "$(jq .rank <<<"$rank")" = $r ] || fail "${list}[$r] is rank $(jq .rank <<<"$rank")"
        jq -e 'all(.threads[]; .tid > 0 and (.cpus | length) > 0 and (.role | IN("main",
               "compute", "suite_progress", "watchdog", "library", "other")))' <<<"$rank" >/dev/null ||
            fail "$list rank $r: a thread without tid, CPUs or a known role: $rank"
        [ "$(jq '[.threads[] | select(.role == "main")] | length' <<<"$rank")" = 1 ] ||
            fail "$list rank $r: not one main thread"
        [ "$(jq '[.threads[] | select(.role == "watchdog")] | length' <<<"$rank")" = 1 ] ||
            fail "$list rank $r: not one watchdog"
        # the main thread computes (team thread 0), bound to one CPU: the
        # binding meta.json records for the rank
        main_cpus=$(jq -r '.threads[] | select(.role == "main") | .cpus | join(",")' <<<"$rank")
        bound=$(jq -r --argjson r $r '.binding[$r] | split(" ")[0]' "$meta")
        [ "$main_cpus" = "$bound" ] || fail "$list rank $r: main thread on $main_cpus, bound to $bound"
    done
done
# the two ranks compute on different CPUs
[ "$(jq -r '[.threads_start[].threads[] | select(.role == "main") | .cpus[0]] | unique | length' "$meta")" = 2 ] ||
    fail "both ranks' main threads on one CPU: $(jq -c .threads_start "$meta")"
[ "$(meta_value "$DIR" mpi_thread_level_required)" = funneled ] ||
    fail "mpi_thread_level_required $(meta_value "$DIR" mpi_thread_level_required)"
[ -n "$(meta_value "$DIR" mpi_thread_level)" ] || fail "no mpi_thread_level"

sched=$DIR/sched.csv
[ "$(head -n 1 "$sched")" = "cell,block,kind,attempt,seq,rank,role,thread,tid,window_ns,cpu_ns,run_delay_ns,vol_switches,invol_switches,migrations" ] ||
    fail "sched.csv header: $(head -n 1 "$sched")"
# every (seq, rank) of raw.csv has its main thread's row, and nothing else
raw_keys=$(awk -F, 'NR > 1 { print $11 "," $13 }' "$DIR/raw.csv" | sort -u)
sched_keys=$(awk -F, 'NR > 1 && $7 == "main" { print $5 "," $6 }' "$sched" | sort -u)
[ -n "$raw_keys" ] || fail "raw.csv has no attempt"
[ "$raw_keys" = "$sched_keys" ] || fail "sched.csv's main rows do not match raw.csv's attempts"
awk -F, 'NR > 1 && ($10 <= 0 || $11 < 0 || $11 > $10 * 1.05 + 1e6 || $12 < 0 || $13 < 0 || $14 < 0) { print; bad = 1 } END { exit bad }' "$sched" ||
    fail "sched.csv: a row with impossible counters"
# raw.csv's foreign_wait_ns: read on every rank of every attempt, never
# longer than the step it was taken around (t1..t4 and two preads, 1 ms)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { w = $c["foreign_wait_ns"]; if (w == "" || w < 0 || w > $c["t4_ns"] - $c["t1_ns"] + 1e6) { print; bad = 1 } }
    END { exit bad }' "$DIR/raw.csv" || fail "raw.csv: a foreign_wait_ns not read or longer than its step"
# the thread recorded as main is the computing one: through the computation
# of a comp_ref attempt (t1..t4 in raw.csv) it ran or waited for the CPU.
# The window also holds the barrier, which sleeps on a loaded machine, so
# the window is not the yardstick.
awk -F, 'FNR == 1 { file++; next }
    file == 1 && $9 == "comp_ref" { span[$11 "," $13] = $17 - $14 }
    file == 2 && $3 == "comp_ref" && $7 == "main" && ($5 "," $6) in span {
        if ($11 + $12 >= 0.5 * span[$5 "," $6]) ok++; n++ }
    END { exit !(n > 0 && ok > n / 2) }' "$DIR/raw.csv" "$sched" ||
    fail "sched.csv: the main thread did not run through the computation of its comp_ref attempts"
cost=$(jq -c '[.sched_snapshot[] | {threads_probed, mean_us: (.mean_ns / 1000 | floor), max_us: (.max_ns / 1000 | floor)}]' "$meta")
[ "$(jq 'all(.[]; .threads_probed >= 1)' <<<"$cost")" = true ] || fail "sched_snapshot: $cost"
figure "sched.csv snapshot cost per rank (one read of every probed thread, twice per attempt): $cost"
# the analysis reads sched.csv: the interference columns of cells.csv
"$TOOLS_DIR/nbc-analyze" -q --no-plots "$DIR" >/dev/null 2>"$SCRATCH/analyze.err" ||
    fail "nbc-analyze: $(cat "$SCRATCH/analyze.err")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!c["interference"] || !c["compute_delay_share"] || !c["library_cpu_share"]) exit 1; next }
         $c["valid"] == 1 && ($c["compute_delay_share"] == "nan" || $c["compute_delay_share"] < 0 || $c["library_cpu_share"] == "nan") { exit 1 }' \
    "$DIR/cells.csv" || fail "cells.csv lacks the sched.csv columns: $(head -n 2 "$DIR/cells.csv")"
figure "compute_delay_share per cell ($MPI, basic): $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s ", $c["compute_delay_share"] }' "$DIR/cells.csv")"
# beside a CPU-bound process on each of the job's CPUs, a rank waits for its
# CPU inside some of its steps, and the analysis reads it. The computation
# lasts 16 ms: a thread woken from the window barrier's sleep may run a step
# of 2 ms whole before the scheduler turns to the hog, but the fair share
# gives the hog its turn within one 16 ms step.
start_hogs 1
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${cell[@]}" --set grid.comp_times=16ms 2>&1)
status=$?
stop_hogs
[ $status -eq 0 ] || [ $status -eq 5 ] || fail "beside a CPU hog: status $status: $out"
HOGGED=$(run_folder "$out")
longest=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["foreign_wait_ns"] > m { m = $c["foreign_wait_ns"] } END { print m + 0 }' "$HOGGED/raw.csv")
[ "$longest" -ge 1000000 ] || fail "beside a CPU hog on every CPU, no step waited 1 ms for its CPU (longest foreign_wait_ns $longest)"
"$TOOLS_DIR/nbc-analyze" -q --no-plots "$HOGGED" >/dev/null 2>&1
[ -s "$HOGGED/cells.csv" ] || fail "beside a CPU hog: no cells.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["valid"] == 1 && $c["foreign_wait_s"] == "nan" { exit 1 }' \
    "$HOGGED/cells.csv" || fail "beside a CPU hog: a valid cell without foreign_wait_s"
figure "beside a CPU hog ($MPI): longest foreign_wait_ns $longest; foreign_wait_s per cell: $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s ", $c["foreign_wait_s"] }' "$HOGGED/cells.csv")"
# a run whose every cell is invalid: nbc-analyze writes its files and exits 5
# (a calibration that found no message: bytes 0, not converged; one that
# missed but found a size is measured and valid, flagged off target)
cp -r "$DIR" "$SCRATCH/none"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 { $c["bytes"] = 0; $c["converged"] = 0 } { print }' \
    "$DIR/calib_comm.csv" >"$SCRATCH/none/calib_comm.csv"
status=0
"$TOOLS_DIR/nbc-analyze" -q --no-plots "$SCRATCH/none" >/dev/null 2>"$SCRATCH/none.err" || status=$?
[ $status -eq 5 ] || fail "nbc-analyze on a run without a valid cell: status $status: $(cat "$SCRATCH/none.err")"
grep -q "no valid cell: all .* cells are invalid (reasons: comm_calibration" "$SCRATCH/none.err" ||
    fail "nbc-analyze: no reason given: $(cat "$SCRATCH/none.err")"
figure "threads of rank 0 ($MPI, basic): $(jq -c '[.threads_start[0].threads[] | {name, role, cpus: .cpu_list}]' "$meta")"

if [ "$MPI" = mpich ]; then
    # MPICH's asynchronous progress thread appears as a library thread
    out=$(mpi_launch -n 2 env -u MPICH_ASYNC_PROGRESS "$BENCH" "${QUICK[@]}" "${cell[@]}" \
        --set run.deployment=progress --set run.max_retries=20 2>&1)
    status=$?
    [ $status -eq 0 ] || [ $status -eq 5 ] || fail "progress: status $status: $out"
    DIR=$(run_folder "$out")
    basic_library=$(jq '[.threads_start[0].threads[] | select(.role == "library")] | length' "$meta")
    progress_library=$(jq '[.threads_start[0].threads[] | select(.role == "library")] | length' "$DIR/meta.json")
    [ "$progress_library" -gt "$basic_library" ] ||
        fail "progress: $progress_library library threads, basic $basic_library: MPICH's progress thread not listed"
    [ "$(meta_value "$DIR" mpi_thread_level_required)" = multiple ] || fail "progress: required level"
    awk -F, 'NR > 1 && $7 == "library" && $11 > 0 { found = 1 } END { exit !found }' "$DIR/sched.csv" ||
        fail "progress: no library thread used CPU in sched.csv"
    figure "progress (mpich): median foreign_wait_ns of the overlap attempts $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["kind"] == "overlap" { print $c["foreign_wait_ns"] }' "$DIR/raw.csv" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') (the library thread's turn on the shared core not counted)"
    figure "threads of rank 0 (mpich, progress): $(jq -c '[.threads_start[0].threads[] | {name, role, cpus: .cpu_list}]' "$DIR/meta.json")"
fi

# ---- refusals: exit 2, one message, no run folder ----
refused() { # WHAT PATTERN COMMAND...
    local what=$1 pattern=$2 status=0
    shift 2
    out=$("$@" 2>&1) || status=$?
    [ $status -eq 2 ] || fail "$what: status $status, expected 2: $out"
    grep -q "$pattern" <<<"$out" || fail "$what: no message '$pattern': $out"
    [ "$(grep -c '^bench_nbc: ' <<<"$out")" -le 2 ] || fail "$what: more than one message: $out"
    ! grep -q "run folder" <<<"$out" || fail "$what: a run folder was made: $out"
    echo "$what refused: $(grep -m1 "$pattern" <<<"$out")"
}
refused "one rank" "one-rank job" mpi_launch -n 1 "$BENCH" "${QUICK[@]}" "${cell[@]}"
first=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | head -n 1 | sed 's/-.*//')
refused "both ranks on CPU $first" "ranks 0 and 1 of host .* both compute on CPU $first" \
    mpi_launch -n 2 taskset -c "$first" "$BENCH" "${QUICK[@]}" "${cell[@]}"
preload_list "$BUILD/tests/driver/libthread_level_shim.so"
refused "thread level" "needs MPI_THREAD_MULTIPLE .* provided MPI_THREAD_FUNNELED" \
    mpi_launch -n 2 env LD_PRELOAD="$PRELOAD" "$BENCH" "${QUICK[@]}" "${cell[@]}" \
    --set run.deployment=thread --set progress.oversubscribe=true
echo "threads listed with roles and CPUs, sched.csv for every attempt, 3 placements refused"
