#!/usr/bin/env bash
# The deployments and progress modes run and say so in meta.json: manual
# (MPI_Test between compute chunks), the benchmark's own progress thread,
# and MPICH's asynchronous progress thread, whose cost to a computation
# sharing its core shows in the passive computation time (MPI impact,
# printed as a figure).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
# What is tested is which mode ran, not the lateness rule: a loose one, so a
# busy machine (a 1 ms reference judges lateness at 10 us) cannot exhaust
# the retries of the one cell (it did once, beside another test run).
cell=(--set run.results_dir="$SCRATCH" --set grid.comm_times=2ms --set grid.comp_times=4ms
      --set run.repetitions=3 --set calibration.tolerance=0.5 "${LOOSE_LATENESS[@]}")

# run_mode NAME ARGS...: one cell, complete; sets DIR.
run_mode() {
    local name=$1
    shift
    out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${cell[@]}" "$@" 2>&1) || fail "$name failed: $out"
    DIR=$(run_folder "$out")
    [ "$(meta_value "$DIR" status)" = complete ] || fail "$name: status $(meta_value "$DIR" status)"
}

# Median passive computation speed over ranks of a run, in GFLOP/s per
# thread: each run calibrates its own matrix size, so times alone do not
# compare.
passive_gflops() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { n = $c["matrix_n"]; printf "%.3f\n", 2 * n * n * n / $c["t_comp_s"] / 1e9 }' "$1/passive.csv" | sort -g |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

run_mode manual --set run.deployment=manual --set progress.test_chunks=8
check_raw "$DIR" 24 # (warm-up + 3 blocks) x 3 kinds x 2 ranks
[ "$(meta_value "$DIR" progress)" = test:8 ] || fail "manual: progress is $(meta_value "$DIR" progress)"

# (exit 5, no cell measured, is allowed here and said: with the suite's
# thread polling on the rank's only core, Open MPI's ibcast times stop
# growing with the size and the communication calibration may miss its
# target; the deployment's placement and thread level are still checked)
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${cell[@]}" --set run.deployment=thread \
    --set progress.oversubscribe=true 2>&1)
status=$?
DIR=$(run_folder "$out")
[ $status -eq 0 ] || [ $status -eq 5 ] || fail "thread failed: $out"
[ $status -eq 0 ] || figure "thread, oversubscribed: no cell measured: $(grep -o 'communication .*' <<<"$out" | head -n 1)"
[ "$(meta_value "$DIR" status)" = complete ] || fail "thread: status $(meta_value "$DIR" status)"
# The suite's thread shares the rank's only core here (2 ranks on 2 cores:
# no core to spare, hence progress.oversubscribe): like MPICH's below,
# the cell holds every block or stopped when an attempt ran out of retries.
cells_whole "$DIR" 4 2 >/dev/null || fail "thread: the cell is neither whole nor stopped late"
[ "$(meta_value "$DIR" progress)" = thread ] || fail "thread: progress is $(meta_value "$DIR" progress)"
[ "$(meta_value "$DIR" mpi_thread_level)" = multiple ] || fail "thread: not MPI_THREAD_MULTIPLE"

run_mode basic
check_raw "$DIR" 24
basic_gflops=$(passive_gflops "$DIR")
if [ "$MPI" = mpich ]; then
    run_mode progress --set run.deployment=progress
    [ "$(jq -r '.environment.MPICH_ASYNC_PROGRESS' "$DIR/meta.json")" = 1 ] ||
        fail "progress: MPICH_ASYNC_PROGRESS not recorded"
    # With the progress thread on the rank's only core, ranks often leave the
    # window barrier late: the cell holds every block, or stopped when an
    # attempt ran out of retries (every attempt recorded, none kept late).
    cells_whole "$DIR" 4 2 >/dev/null || fail "progress: the cell is neither whole nor stopped late"
    late_share=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["rank"] == 0 { n++; l += $c["late"] }
        END { printf "%.0f", 100 * l / n }' "$DIR/raw.csv")
    progress_gflops=$(passive_gflops "$DIR")
    ratio=$(awk -v a="$basic_gflops" -v b="$progress_gflops" 'BEGIN { printf "%.2f", a / b }')
    # One core per rank: MPICH's progress thread takes turns with the GEMM.
    # A figure, not an assertion: the two runs are minutes apart on a
    # machine that may be busy with something else.
    figure "passive GEMM inside MPI: basic $basic_gflops GFLOP/s per thread," \
        "MPICH_ASYNC_PROGRESS=1 $progress_gflops (slowed x$ratio; 1 thread per rank, 1 core each);" \
        "$late_share % of its attempts late"
else
    out=$(mpi_launch -n 2 "$BENCH" "${cell[@]}" --set run.deployment=progress --set run.mpi="$MPI" 2>&1)
    [ $? -eq 2 ] || fail "Open MPI accepted deployment progress: $out"
fi
figure "deployments manual (test:8), progress thread, basic$([ "$MPI" = mpich ] && echo ", progress") each ran a cell"
