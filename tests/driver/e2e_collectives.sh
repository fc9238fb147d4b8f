#!/usr/bin/env bash
# Every collective of the table runs one cell on 2 ranks, with the data
# check on, and leaves a complete run folder (loose calibration and lateness
# tolerances:
# the cell is about data and files, and must run whatever size is reached).
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
unchecked=()
for name in "${names[@]}"; do
    check=true
    if [ -n "$library" ] && [ -n "$(known_bug "$library" "$name")" ]; then
        check=false
        unchecked+=("$name")
    fi
    out=$(one_cell "$name" $check) || fail "$name failed: $out"
    dir=$(run_folder "$out")
    [ -d "$dir" ] || fail "$name: no run folder announced: $out"
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
    echo "$name: $(grep -o 'communication .*' <<<"$out" | head -n 1)"
done
figure "${#names[@]} collectives ran one cell each on 2 ranks, checked but for the known library bugs of ${library:-this library}: ${unchecked[*]:-none}"
