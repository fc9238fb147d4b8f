#!/usr/bin/env bash
# A study over two values of a library setting: two tiny MPICH runs, the
# second with MPIR_CVAR_IBCAST_INTRA_ALGORITHM=sched_binomial in the
# environment. meta.json records the user's setting (environment) and the
# value in effect (collective_settings), mpit_cvars.csv the same value, and
# the two runs differ in it. With MPICH (use_mpi: the build of make MPI=mpich
# when this build's library is another).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
use_mpi mpich bench_nbc
command -v jq >/dev/null || skip "needs jq"
make_scratch
var=MPIR_CVAR_IBCAST_INTRA_ALGORITHM
# run_with VALUE: a tiny ibcast run (VALUE empty: the variable unset); its
# folder in RUN_DIR.
run_with() {
    local out
    out=$(if [ -n "$1" ]; then export "$var=$1"; fi
        mpi_launch -n 2 "$BENCH" -c configs/default.conf "${QUICK[@]}" "${LOOSE_LATENESS[@]}" \
            --set run.results_dir="$SCRATCH" --set run.collective=ibcast --set grid.comm_times=1ms \
            --set grid.comp_times=1ms --set run.repetitions=1 2>&1) || fail "run with $var=$1 failed: $out"
    RUN_DIR=$(run_folder "$out")
    [ -d "$RUN_DIR" ] || fail "no run folder: $out"
}
# cvar_value FOLDER: the variable's value in mpit_cvars.csv.
cvar_value() { awk -F, -v v="$var" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["name"] == v { print $c["value"] }' "$1/mpit_cvars.csv"; }

run_with ""
default_dir=$RUN_DIR
run_with sched_binomial
binomial_dir=$RUN_DIR
for d in "$default_dir" "$binomial_dir"; do
    [ -f "$d/mpit_cvars.csv" ] || fail "no mpit_cvars.csv in $d"
    [ -n "$(cvar_value "$d")" ] || fail "$var not in $d/mpit_cvars.csv"
    [ "$(jq -r --arg v "$var" '.collective_settings[$v]' "$d/meta.json")" = "$(cvar_value "$d")" ] ||
        fail "collective_settings and mpit_cvars.csv disagree in $d"
done
# The user's setting is on record in the second run only.
[ "$(jq -r --arg v "$var" '.environment[$v] // "unset"' "$default_dir/meta.json")" = unset ] ||
    fail "$var recorded in the run without it"
[ "$(jq -r --arg v "$var" '.environment[$v]' "$binomial_dir/meta.json")" = sched_binomial ] ||
    fail "the user's $var is not in meta.json environment"
[ "$(jq -r --arg v "$var" '.[0].environment[$v]' "$binomial_dir/provenance.json")" = sched_binomial ] ||
    fail "the user's $var is not in provenance.json"
# MPICH lists auto first: its value in effect is 0 unless set.
[ "$(cvar_value "$default_dir")" = 0 ] || fail "default $var = $(cvar_value "$default_dir"), expected 0 (auto)"
[ "$(cvar_value "$binomial_dir")" != 0 ] || fail "$var=sched_binomial not in effect (value 0)"
jq -e '.mpi_t.status | type == "string"' "$binomial_dir/meta.json" >/dev/null || fail "mpi_t.status"
figure "$var: unset -> $(cvar_value "$default_dir"), sched_binomial -> $(cvar_value "$binomial_dir");" \
    "performance variables: $(jq -r '.mpi_t.status' "$binomial_dir/meta.json")"
