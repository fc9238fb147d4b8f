#!/usr/bin/env bash
# A study over a library setting (nbc-run --settings NAME=V1,V2): MPICH's
# ibcast algorithm, two values, a real 2 x 2-cell study each. Two runs, each
# with the variable in its ranks' environment: study.json records the study's
# setting and each run's, meta.json's environment holds the value, the library
# took it (mpit_cvars.csv and meta.json collective_settings, read from MPI_T),
# each run has its own tables, and nbc-compare sees two configurations.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
# Varies MPICH's MPIR_CVAR_IBCAST_INTRA_ALGORITHM.
use_mpi mpich bench_nbc compute_ref
study_needs
command -v jq >/dev/null || skip "reads study.json and meta.json with jq (apt-get install jq)"
{ [ -x "$TOOLS_DIR/nbc-analyze" ] && [ -x "$TOOLS_DIR/nbc-compare" ]; } || skip "the analysis tools are not built"
make_scratch

name=MPIR_CVAR_IBCAST_INTRA_ALGORITHM
values=(sched_binomial sched_scatter_recursive_doubling_allgather)
tiny_options=(--settings "$name=${values[0]},${values[1]}")
tiny_study 1ms,4ms,4 2
[ $status -eq 0 ] || fail "nbc-run: status $status; its stderr: $(cat "$SCRATCH/stderr")"
study=$(sed -n 's/^study: //p' <<<"$out")
[ -f "$study" ] || fail "no study.json listed at the end: $out"
q() { jq -r "$1" "$study"; }
[ "$(q .study.settings.name)" = $name ] || fail "study.json: study.settings.name $(q .study.settings.name)"
[ "$(q '.study.settings.values | join(",")')" = "${values[0]},${values[1]}" ] || fail "study.json: settings values $(q .study.settings.values)"
[ "$(q '.runs | length')" = 2 ] || fail "study.json: $(q '.runs | length') runs, expected 2"
dirs=()
for i in 0 1; do
    run=".runs[$i]" value=${values[$i]}
    [ "$(q "$run.setting.name")=$(q "$run.setting.value")" = "$name=$value" ] || fail "run $i: setting $(q "$run.setting")"
    [ "$(q "$run.name")" = "mpich-ibcast-basic-$value" ] || fail "run $i: name $(q "$run.name")"
    [ "$(q "$run.status")" = complete ] || fail "run $i: status $(q "$run.status")"
    dir=$(q "$run.run_dir")
    dirs+=("$dir")
    [ "$(json "$dir/meta.json" ".environment.$name")" = "$value" ] ||
        fail "$dir: meta.json environment.$name is '$(json "$dir/meta.json" ".environment.$name")', expected $value"
    # What the library took (MPI_T): the enumeration's item, by name, or
    # (MPICH 4.0 names none) its number, the position of the choice in the
    # variable's description ("...algorithmauto - ...sched_auto - ...").
    took=$(python3 -c 'import csv, re, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["name"] == sys.argv[2]:
        choices = re.findall(r"(auto|sched_[a-z_]+|tsp_[a-z_]+)\s+- ", row["description"])
        item = row["enum_item"] or (row["value"].isdigit() and int(row["value"]) < len(choices) and
                                    choices[int(row["value"])]) or row["value"]
        print(item, row["value"])' "$dir/mpit_cvars.csv" $name)
    [ "${took% *}" = "$value" ] || fail "$dir/mpit_cvars.csv: $name is '$took', expected $value"
    setting=$(json "$dir/meta.json" ".collective_settings.$name")
    [ "$setting" = "$value" ] || [ "$setting" = "${took#* }" ] ||
        fail "$dir: meta.json collective_settings.$name is '$setting', expected $value (${took#* })"
    grep -q "^+ $name=$value .*bench_nbc " "$dir/nbc-run.log" || fail "$dir/nbc-run.log: bench_nbc not started with $name=$value"
    [ "$(data_rows "$dir/cells.csv")" -eq 4 ] || fail "$dir: cells.csv has not 4 cells"
done
[ "${dirs[0]}" != "${dirs[1]}" ] || fail "both runs in one folder"
[ "$(q '.comparisons | length')" = 1 ] || fail "study.json: $(q '.comparisons | length') comparisons, expected 1"
# nbc-compare tells the two values apart (their collective_settings differ).
compare_log="$(q '.comparisons[0]')/nbc-compare.log"
grep -q "^configuration 2: " "$compare_log" || fail "nbc-compare did not see two configurations: $(cat "$compare_log")"
! grep -q "^configuration 2: " <<<"$out" || fail "nbc-compare's tables on the console, not only in $compare_log"
study_table "$study"
grep -q "^study.csv: 8 rows of 2 runs" <<<"$table" || fail "study.csv: expected 8 rows of 2 runs: $table"
figure "a study over $name (${values[*]}): 2 runs, the library took each value, one comparison of 2 configurations (${secs} s)"
