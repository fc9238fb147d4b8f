#!/usr/bin/env bash
# A size limit of the library's profile ([size_limit], docs/mpi-profiles.md)
# below the default calibration.max_bytes, on 2 ranks with this build's
# library: a copy of the profiles where ibcast is limited to 64 KiB in this
# version. The communication calibration must stop its search at 64 KiB
# (never try more), say so once with the limit's reason, report the 100 ms
# target as out of reach because of the limit, exit 5 (nothing measured),
# and record the limit in meta.json (mpi_library.size_limits). The same
# limit with calibration.max_bytes set above it is refused up front (exit 2).
# The limit also names iallgather, a part of scenario_fsdp: a given size of
# the scenario whose iallgather (2 x S received on 2 ranks) passes it is
# refused up front, the scenario's largest S being 32 KiB.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
expect_failing_launches
profile=$(sed -n 's/^profile *= *//p' "$BUILD/mpi-build.ini" | head -n 1)
version=$(sed -n 's/^version *= *//p' "$BUILD/mpi-build.ini" | head -n 1)
if [ -z "$profile" ] || [ "$profile" = generic ] || [ -z "$version" ]; then
    fail "no profile and version in $BUILD/mpi-build.ini"
fi
cp -r "$(dirname "$0")/../../configs/mpi" "$SCRATCH/profiles"
printf '\n[size_limit.test-64kib]\nversions = =%s\ncollectives = ibcast iallgather\nmax_bytes = 64KiB\nreason = %s\n' \
    "$version" "a limit of the test (e2e_size_limit.sh)" >>"$SCRATCH/profiles/$profile.ini"
args=(--set run.collective=ibcast --set grid.comm_times=100ms --set grid.comp_times=1ms
      --set compute.kernel=sleep --set run.repetitions=1 --set run.half_width=0
      --set run.null_share=0)
status=0
out=$(BENCH_NBC_PROFILES="$SCRATCH/profiles" MPI_TIMEOUT_S=120 mpi_launch -n 2 "$BENCH" "${QUICK[@]}" \
    --set run.results_dir="$SCRATCH/runs" "${args[@]}" 2>&1) || status=$?
echo "$out"
[ $status -eq 5 ] || fail "exit $status, expected 5 (the only cell out of reach): $out"
grep -qF "no cell was measured whole: 1 of 1 cells unreachable (calibration did not reach their targets), the other 0 stopped late" <<<"$out" ||
    fail "exit 5 does not count the one cell as unreachable: $out"
DIR=$(run_folder "$out")
[ -d "$DIR" ] || fail "no run folder printed"
grep -qF "ibcast: the search stops at S = 65536 bytes, not calibration.max_bytes = 268435456" <<<"$out" ||
    fail "the capped search is not announced"
[ "$(grep -c 'the search stops at' <<<"$out")" -eq 1 ] || fail "the capped search is not said once"
grep -qF "1 communication target(s) need S above 65536 bytes" <<<"$out" ||
    fail "the target out of reach does not name the limit"
grep -qF "[size_limit.test-64kib]): a limit of the test" <<<"$out" || fail "no reason given"
# Never a size above the limit.
closest=$(sed -n 's/^bench_nbc: communication 100 ms -> \([0-9]*\) B.*/\1/p' <<<"$out")
if [ "${closest:-0}" -le 0 ] || [ "$closest" -gt 65536 ]; then
    fail "the closest size tried is not at most 65536 bytes: $closest"
fi
[ "$(awk -F, 'NR == 2 { print $3 "," $6 }' "$DIR/calib_comm.csv")" = 0,0 ] ||
    fail "calib_comm.csv: $(cat "$DIR/calib_comm.csv")"
limit=$(jq -c '.mpi_library.size_limits[] | select(.name == "test-64kib")' "$DIR/meta.json")
[ "$(jq -r '"\(.collective) \(.max_bytes) \(.max_s_bytes) \(.capped)"' <<<"$limit")" = "ibcast 65536 65536 true" ] ||
    fail "meta.json mpi_library.size_limits: $limit"
figure "ibcast limited to 64 KiB by the profile ($profile $version): search stopped at 64 KiB (closest $closest bytes)," \
    "the 100 ms target out of reach (exit 5), limit in meta.json"

# Set above the limit: refused before anything runs.
status=0
out=$(BENCH_NBC_PROFILES="$SCRATCH/profiles" MPI_TIMEOUT_S=60 mpi_launch -n 2 "$BENCH" "${QUICK[@]}" \
    --set run.results_dir="$SCRATCH/refused" "${args[@]}" --set calibration.max_bytes=1MiB 2>&1) || status=$?
[ $status -eq 2 ] || fail "calibration.max_bytes = 1MiB above the limit: exit $status, expected 2: $out"
grep -qF 'calibration.max_bytes: "1MiB" is above what this MPI library can run' <<<"$out" ||
    fail "the refusal does not name the key and its value: $out"
[ ! -d "$SCRATCH/refused" ] || [ -z "$(ls -A "$SCRATCH/refused")" ] || fail "a refused run left a folder"
figure "calibration.max_bytes = 1MiB above the 64 KiB limit: refused up front (exit 2)"

# A given message size above the limit (grid.comm_sizes runs it as it is):
# refused up front too, naming that key.
status=0
out=$(BENCH_NBC_PROFILES="$SCRATCH/profiles" MPI_TIMEOUT_S=60 mpi_launch -n 2 "$BENCH" "${QUICK[@]}" \
    --set run.results_dir="$SCRATCH/refused" "${args[@]}" --set grid.comm_times= \
    --set grid.comm_sizes=64KiB,128KiB 2>&1) || status=$?
[ $status -eq 2 ] || fail "grid.comm_sizes = 64KiB,128KiB above the limit: exit $status, expected 2: $out"
grep -qF 'grid.comm_sizes: "64KiB,128KiB" has 131072 bytes, above what this MPI library can run' <<<"$out" ||
    fail "the refusal does not name grid.comm_sizes and its value: $out"
figure "grid.comm_sizes = 64KiB,128KiB above the 64 KiB limit: refused up front (exit 2)"

# For a scenario, the limit of its part iallgather on that part's largest
# buffer (2 blocks of S on 2 ranks).
status=0
out=$(BENCH_NBC_PROFILES="$SCRATCH/profiles" MPI_TIMEOUT_S=60 mpi_launch -n 2 "$BENCH" "${QUICK[@]}" \
    --set run.results_dir="$SCRATCH/refused" "${args[@]}" --set run.collective=scenario_fsdp \
    --set grid.comm_times= --set grid.comm_sizes=32KiB,64KiB 2>&1) || status=$?
[ $status -eq 2 ] || fail "grid.comm_sizes = 32KiB,64KiB above scenario_fsdp's limit: exit $status, expected 2: $out"
grep -qF 'grid.comm_sizes: "32KiB,64KiB" has 65536 bytes, above what this MPI library can run: scenario_fsdp' <<<"$out" ||
    fail "the refusal does not name grid.comm_sizes, its value and the scenario: $out"
grep -qF 'the library'"'"'s limit of 65536 bytes per buffer (S = 32768 bytes)' <<<"$out" ||
    fail "the refusal does not give the part's limit as the scenario's largest S (32768): $out"
grep -qF '[size_limit.test-64kib]): a limit of the test' <<<"$out" || fail "the refusal gives no reason: $out"
figure "scenario_fsdp with grid.comm_sizes = 32KiB,64KiB, its part iallgather limited to 64 KiB per buffer: refused up front (exit 2), largest S 32 KiB"
