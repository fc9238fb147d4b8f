#!/usr/bin/env bash
# One job of several collectives with the data check (run.collectives, one
# cell each on 2 ranks): every collective whose library profile has a
# workaround for this library runs after one that has none (run.collective
# is that first one), so only the job's list can bring its setting, which
# must be in the environment before MPI_Init. Each study passes the check
# and its meta.json records the workarounds' settings. The job runs with
# this build's library, then with MPICH, whose profile has such workarounds
# (e.g. MPI_Allgather_init's before 4.1: without it the second start leaves
# rank 1's block unwritten).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
command -v jq >/dev/null || skip "needs jq (apt-get install jq)"
make_scratch

# job_of_collectives: the job above with this build's library ($BENCH).
job_of_collectives() {
    local name settings worked=() list out dirs=() i dir s
    local -a names wanted=()
    mapfile -t names < <("$BENCH" --list | awk 'NR > 1 && $1 !~ /^scenario_/ { print $1 }')
    [ ${#names[@]} -ge 18 ] || fail "only ${#names[@]} collectives listed"
    for name in "${names[@]}"; do
        settings=$("$TOOLS_DIR/nbc-profile" env --build "$BUILD" --collective "$name") ||
            fail "nbc-profile env --collective $name failed"
        [ -z "$settings" ] && continue
        worked+=("$name")
        while read -r s; do [[ " ${wanted[*]} " == *" $s "* ]] || wanted+=("$s"); done <<<"$settings"
    done
    # Without workarounds the job still checks data across studies: a
    # collective that gathers and one on the Cartesian grid (its own
    # communicator) after the first.
    [ ${#worked[@]} -gt 0 ] || worked=(iallgather ineighbor_allgather)
    list=$(IFS=,; echo "ibcast,${worked[*]}")
    out=$(one_cell ibcast true --set run.collectives="$list") || fail "the job of $list failed: $out"
    mapfile -t dirs < <(sed -n 's/^bench_nbc: run folder //p' <<<"$out")
    [ ${#dirs[@]} -eq $((${#worked[@]} + 1)) ] || fail "${#dirs[@]} run folders for $list: $out"
    for i in "${!worked[@]}"; do
        dir=${dirs[$((i + 1))]}
        [ "$(meta_value "$dir" status)" = complete ] || fail "${worked[$i]}: status $(meta_value "$dir" status)"
        [ "$(meta_value "$dir" collective)" = "${worked[$i]}" ] || fail "$dir: meta.json names another collective"
        for s in "${wanted[@]}"; do
            jq -e --arg s "$s" '[.mpi_library.workarounds[].env[]] | index($s)' "$dir/meta.json" >/dev/null ||
                fail "${worked[$i]}: meta.json's workarounds lack $s: $(jq -c .mpi_library.workarounds "$dir/meta.json")"
        done
    done
    figure "$MPI: one job of $list with the data check, every study complete${wanted[*]:+, with ${wanted[*]}}"
}

job_of_collectives
if [ "${MPI:-}" != mpich ]; then
    use_mpi mpich bench_nbc
    job_of_collectives
fi
