#!/usr/bin/env bash
# The suite's own progress thread (run.deployment=thread) calls the
# library's own progress function where the library's profile names one for
# its version (MPICH >= 4.1: MPIX_Stream_progress on the null stream), else
# MPI_Iprobe; meta.json's deployment_plan says which and why. MPICH here is
# 4.0.2, without the function:
#   - as it is: MPI_Iprobe, the plan naming the versions that have it;
#   - with a copy of the profiles that allows 4.0 and a shim (LD_PRELOAD)
#     that gives the library the function: the thread calls it, on every
#     rank, with the null stream's handle 0x3c000000, and the run completes;
#   - the same copy without the shim: exit 2 before any measurement, naming
#     the function the library does not export.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
[ "$(nproc)" -ge 2 ] || skip "2 ranks need 2 cores"
use_mpi mpich bench_nbc tests/deploy/libstream_progress_shim.so
# shellcheck source=tests/driver/lib_driver.sh
source "$BENCH_NBC_ROOT/tests/driver/lib_driver.sh"
make_scratch
preload_list "$BUILD/tests/deploy/libstream_progress_shim.so"
cell=(--set run.results_dir="$SCRATCH" --set "grid.comm_times=1ms,2ms,2" --set grid.comp_times=2ms
      --set run.repetitions=2 --set calibration.tolerance=0.9 --set run.null_share=0
      --set run.deployment=thread --set progress.oversubscribe=true)
poll_of() { jq -c '.deployment_plan.progress_thread.poll' "$1/meta.json"; }

# As it is: 4.0.2 is polled with MPI_Iprobe, the shim present or not.
# The thread polls on the rank's only core (no core to spare here): the
# communication calibration may then miss its targets (exit 5, nothing
# measured, as in e2e_progress_modes.sh); what is checked here is what the
# thread called, through the calibrations and any sweep.
launch_thread_run() { # LOG [ENV...]: the run, exit 0 or 5; sets dir
    local log=$1 status=0
    shift
    out=$(mpi_launch -n 2 env "$@" STREAM_PROGRESS_LOG="$log" "$BENCH" "${QUICK[@]}" "${cell[@]}" 2>&1) ||
        status=$?
    [ $status -eq 0 ] || [ $status -eq 5 ] || fail "thread deployment failed (exit $status): $out"
    dir=$(run_folder "$out")
    [ "$(meta_value "$dir" status)" = complete ] || fail "status $(meta_value "$dir" status): $out"
}
launch_thread_run "$SCRATCH/as_is.log" LD_PRELOAD="$PRELOAD"
poll=$(poll_of "$dir")
jq -e '.function == "MPI_Iprobe" and (.why | test("MPIX_Stream_progress needs versions >=4.1, this library is 4[.]0[.]2"))' \
    <<<"$poll" >/dev/null || fail "MPICH 4.0.2: $poll"
awk '$2 != 0 { bad = 1 } END { exit bad }' "$SCRATCH/as_is.log" ||
    fail "MPIX_Stream_progress called though the plan said MPI_Iprobe: $(cat "$SCRATCH/as_is.log")"

# A profile that allows 4.0, and a library that exports the function.
profiles=$SCRATCH/profiles
cp -r "$BENCH_NBC_ROOT/configs/mpi" "$profiles"
sed -i 's/^poll_versions = .*/poll_versions = >=4.0/' "$profiles/mpich.ini"
grep -q '^poll_versions = >=4.0$' "$profiles/mpich.ini" || fail "mpich.ini has no poll_versions to change"
launch_thread_run "$SCRATCH/stream.log" BENCH_NBC_PROFILES="$profiles" LD_PRELOAD="$PRELOAD"
poll=$(poll_of "$dir")
jq -e '.function == "MPIX_Stream_progress" and .argument == 1006632960' <<<"$poll" >/dev/null ||
    fail "with the function: $poll"
[ "$(wc -l <"$SCRATCH/stream.log")" -eq 2 ] || fail "not 2 ranks in the shim's log: $(cat "$SCRATCH/stream.log")"
awk '$2 < 1 || $3 != "0x3c000000" { bad = 1 } END { exit bad }' "$SCRATCH/stream.log" ||
    fail "a rank's thread did not call MPIX_Stream_progress(MPIX_STREAM_NULL): $(cat "$SCRATCH/stream.log")"
calls=$(awk '{ printf "%s%s", sep, $2; sep = ", " }' "$SCRATCH/stream.log")

# The same profile, a library without the function: refused up front.
status=0
out=$(mpi_launch -n 2 env BENCH_NBC_PROFILES="$profiles" "$BENCH" "${QUICK[@]}" "${cell[@]}" 2>&1) || status=$?
[ $status -eq 2 ] || fail "a library without MPIX_Stream_progress: exit $status, expected 2: $out"
grep -q 'would call MPIX_Stream_progress, but this MPI library does not export it' <<<"$out" ||
    fail "no message naming the missing function: $out"
[ -z "$(run_folder "$out")" ] || [ ! -s "$(run_folder "$out")/raw.csv" ] || fail "measured before refusing: $out"
figure "thread deployment, $MPI: MPI_Iprobe on 4.0.2; MPIX_Stream_progress(0x3c000000) where exported ($calls calls per rank)"
