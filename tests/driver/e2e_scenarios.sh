#!/usr/bin/env bash
# The shipped scenarios (docs/collectives.md, "Scenarios") each run one cell
# on 2 ranks with the data check on every part, and leave a complete run
# folder whose meta.json and name carry the scenario and its parts, each
# part's size a weight of S or fixed bytes as --list says (loose
# calibration and lateness tolerances, as tests/driver/e2e_collectives.sh:
# this test is about data and files), and once with progress.mode = test:4
# (MPI_Testall between computation chunks). Then bad scenario input exits 2 with
# one message naming the key and the allowed values: an unknown scenario
# (run.collective), a part refusing an option (run.datatype = byte for a
# reducing part).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/../datacheck/lib_datacheck.sh"
make_scratch
# A scenario with a part this library is known to get wrong (tests/datacheck/
# shows it) runs without the data check, as in e2e_collectives.sh.
library=$(build_library)
unchecked=()
command -v jq >/dev/null || skip "needs jq (apt-get install jq)"
list=$("$BENCH" --list)
listed=$(awk 'NR > 1 { print $1 }' <<<"$list")
# name and parts (collective/communicator, in order) as meta.json must say
declare -A parts=([scenario_fsdp]="iallgather/run ireduce_scatter_block/run"
                  [scenario_halo_reduce]="ineighbor_alltoall/run iallreduce/dup"
                  [scenario_two_comms]="iallreduce/dup iallreduce/half")
# and their sizes: a weight of S (wW) or fixed bytes (NB), one key each
declare -A sizes=([scenario_fsdp]="w1 w1" [scenario_halo_reduce]="w1 64B" [scenario_two_comms]="w1 w1")
grep -qF "[parts: ineighbor_alltoall (S, run) + iallreduce (64 bytes, dup)]" <<<"$list" ||
    fail "bench_nbc --list does not give scenario_halo_reduce's parts and sizes: $list"
ran=()
for name in scenario_fsdp scenario_halo_reduce scenario_two_comms; do
    grep -qx "$name" <<<"$listed" || fail "$name is not listed by bench_nbc --list"
    check=true
    for part in ${parts[$name]}; do
        if [ -n "$library" ] && [ -n "$(known_bug "$library" "${part%/*}")" ]; then
            check=false
            unchecked+=("$name (${part%/*})")
        fi
    done
    out=$(one_cell "$name" $check) || fail "$name failed: $out"
    dir=$(run_folder "$out")
    [ -d "$dir" ] || fail "$name: no run folder announced: $out"
    [[ $(basename "$dir") == *"-$name-"* ]] || fail "$name: the run folder's name lacks it: $dir"
    [ "$(meta_value "$dir" status)" = complete ] || fail "$name: status $(meta_value "$dir" status)"
    [ "$(meta_value "$dir" collective)" = "$name" ] || fail "$name: meta.json names another collective"
    [ "$(meta_value "$dir" synthetic)" = false ] || fail "$name: synthetic flag wrong"
    got=$(jq -r '[.scenario[] | "\(.collective)/\(.communicator)"] | join(" ")' "$dir/meta.json")
    [ "$got" = "${parts[$name]}" ] || fail "$name: meta.json's parts are '$got', expected '${parts[$name]}'"
    got=$(jq -r '[.scenario[] | if has("bytes") == has("weight") then "both-or-neither"
                  elif has("bytes") then "\(.bytes)B" else "w\(.weight)" end] | join(" ")' "$dir/meta.json")
    [ "$got" = "${sizes[$name]}" ] || fail "$name: meta.json's part sizes are '$got', expected '${sizes[$name]}'"
    check_raw "$dir" 12 # (warm-up + 1 block) x 3 kinds x 2 ranks
    ran+=("$name")
    echo "$name: $(grep -o 'communication .*' <<<"$out" | head -n 1)"
done
# Manual progression: MPI_Testall over the parts' requests between
# computation chunks, the data checked.
out=$(one_cell scenario_fsdp true --set progress.mode=test:4) ||
    fail "scenario_fsdp with progress.mode=test:4 failed: $out"
dir=$(run_folder "$out")
[ "$(meta_value "$dir" progress)" = test:4 ] || fail "progress.mode=test:4: meta.json says $(meta_value "$dir" progress)"
check_raw "$dir" 12

# Bad input: exit 2, the key and the allowed values named.
expect_failing_launches
MPI_TIMEOUT_S=60
bad() { # EXPECTED-TEXT ARGS...: bench_nbc refuses ARGS with exit 2 naming EXPECTED-TEXT
    local want=$1 out status
    shift
    set +e
    out=$(mpi_launch -n 2 "$BENCH" --set run.results_dir="$SCRATCH/bad" "$@" 2>&1)
    status=$?
    set -e
    [ $status -eq 2 ] || fail "$* exited $status, expected 2: $out"
    grep -qF -- "$want" <<<"$out" || fail "$*: the message lacks '$want': $out"
    grep -qF "allowed" <<<"$out" || fail "$*: the message names no allowed values: $out"
    [ ! -d "$SCRATCH/bad" ] || [ -z "$(ls -A "$SCRATCH/bad")" ] || fail "$*: something was measured"
    echo "refused: $* -> $(grep -m 1 'bench_nbc' <<<"$out" | cut -c 1-160)"
}
bad "run.collective" --set run.collective=scenario_nope
bad "run.datatype" --set run.collective=scenario_fsdp --set run.datatype=byte
figure "${#ran[@]} scenarios ran one cell each on 2 ranks (${ran[*]}), checked but for the known library bugs of ${library:-this library}: ${unchecked[*]:-none}; bad scenario input refused with exit 2"
