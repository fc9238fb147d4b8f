#!/usr/bin/env bash
# Every collective of the table runs one cell on 2 ranks, with the data
# check on, and leaves a complete run folder (loose calibration and lateness
# tolerances:
# the cell is about data and files, and must run whatever size is reached).
# The collectives run a few to a job (run.collectives: a run folder each,
# with its own communication calibration; as many as its value holds), the
# data check on or off per job: an MPI start and clock sync for several
# collectives instead of one each (a collective alone in its job:
# e2e_sweep.sh and the other driver tests).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/../datacheck/lib_datacheck.sh"
make_scratch
# A collective this library is known to get wrong (tests/datacheck/ shows
# it) runs without the data check.
library=$(build_library)
# Scenarios (scenario_*) have tests of their own (e2e_scenarios.sh).
mapfile -t names < <("$BENCH" --list | awk 'NR > 1 && $1 !~ /^scenario_/ { print $1 }')
[ ${#names[@]} -ge 18 ] || fail "only ${#names[@]} collectives listed"
checked=() unchecked=()
for name in "${names[@]}"; do
    if [ -n "$library" ] && [ -n "$(known_bug "$library" "$name")" ]; then
        unchecked+=("$name")
    else
        checked+=("$name")
    fi
done
# run_jobs CHECK NAME...: jobs measuring one cell of each NAME, as many NAMEs a
# job as run.collectives holds (183 characters, an INI line's value); their
# run folders, in the order of NAME, into dirs (appended).
dirs=()
run_jobs() {
    local check=$1 names=() name
    shift
    for name in "$@"; do
        if [ ${#names[@]} -gt 0 ] && [ $(($(IFS=,; echo "${names[*]},$name" | wc -c) - 1)) -gt 183 ]; then
            job "$check" "${names[@]}"
            names=()
        fi
        names+=("$name")
    done
    [ ${#names[@]} -eq 0 ] || job "$check" "${names[@]}"
}
job() {
    local check=$1 list out folders
    shift
    list=$(IFS=,; echo "$*")
    out=$(one_cell "${1}" "$check" --set run.collectives="$list") || fail "the job of $list failed: $out"
    mapfile -t folders < <(sed -n 's/^bench_nbc: run folder //p' <<<"$out")
    [ ${#folders[@]} -eq $# ] || fail "${#folders[@]} run folders announced for the $# collectives $list: $out"
    dirs+=("${folders[@]}")
}
run_jobs true "${checked[@]}"
run_jobs false "${unchecked[@]}"
order=("${checked[@]}" "${unchecked[@]}")
for i in "${!order[@]}"; do
    name=${order[$i]} dir=${dirs[$i]}
    [ -d "$dir" ] || fail "$name: no run folder $dir"
    [ "$(meta_value "$dir" status)" = complete ] || fail "$name: status $(meta_value "$dir" status)"
    [ "$(meta_value "$dir" collective)" = "$name" ] || fail "$name: meta.json names another collective"
    synthetic=false
    [[ $name == synthetic_* ]] && synthetic=true
    [ "$(meta_value "$dir" synthetic)" = $synthetic ] || fail "$name: synthetic flag wrong"
    check_raw "$dir" 12 # (warm-up + 1 block) x 3 kinds x 2 ranks
    for f in calib_comm.csv calib_comp.csv passive.csv config.ini; do
        [ -s "$dir/$f" ] || fail "$name: $f missing"
    done
    # Every collective's calibration measured it, a barrier (no size) too:
    # the sweep judges lateness on that time.
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(not rows or any(int(r["iterations"]) < 1 or float(r["t_comm_s"]) <= 0 for r in rows))' \
        "$dir/calib_comm.csv" || fail "$name: calibration measured no communication time"
    echo "$name: $(tail -n 1 "$dir/calib_comm.csv")"
done
figure "${#names[@]} collectives ran one cell each on 2 ranks, checked but for the known library bugs of ${library:-this library}: ${unchecked[*]:-none}"
