#!/usr/bin/env bash
# A hang (rank 1 never returns from the wait of cell 1, injected with
# BENCH_NBC_FAULT) ends the job well before any batch limit: a message names
# a rank stuck there, the cell and the call, meta.json says "failed" and why, and the
# cell finished before the hang is on disk.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
start=$SECONDS
out=$(BENCH_NBC_FAULT=hang:1:1 mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=1ms --set run.repetitions=2 \
    --set calibration.tolerance=0.5 --set run.seed=1 \
    --set watchdog.floor_s=3s --set watchdog.factor=2 2>&1)
status=$?
took=$((SECONDS - start))
echo "$out"
[ $status -ne 0 ] || fail "a hung run exited 0"
[ $status -ne 124 ] || fail "the watchdog did not end the job (the test's timeout did)"
# Rank 0 speaks first (it records the failure): stuck in the same
# collective's wait for rank 1, or, when the message was small enough to be
# sent eagerly, in the next call that needs rank 1.
grep -Eq 'watchdog: rank [01]: the (wait|late-rank check \(MPI_Allreduce\)) has not returned' <<<"$out" ||
    fail "no watchdog message naming the call"
grep -q 'in cell 1 ' <<<"$out" || fail "the message does not name cell 1"
dir=$(run_folder "$out")
[ "$(meta_value "$dir" status)" = failed ] || fail "meta.json status $(meta_value "$dir" status)"
[[ "$(meta_value "$dir" failure)" == watchdog* ]] || fail "meta.json does not say why"
# Seed 1 runs cell 0 before cell 1 (a loose calibration keeps both reachable).
grep -q '^0,' "$dir/raw.csv" || fail "cell 0, finished before the hang, is not on disk"
no_leftovers "$SCRATCH"
figure "watchdog ended a hung run ${took} s after its start (floor 3 s): $(grep -o 'rank [01]: the [a-z -]*' <<<"$out" | head -n 1), cell 1"
