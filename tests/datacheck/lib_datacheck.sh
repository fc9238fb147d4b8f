# Helpers of the data check scripts (sourced after tests/lib.sh).
# shellcheck shell=bash

# The MPI libraries' leaks are suppressed by library name (tests/lsan.supp),
# which needs whole stacks: the fast unwinder stops in MPICH/UCX frames and
# leaves "<unknown module>" leaks that no suppression matches.
if [ -n "${SAN:-}" ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}fast_unwind_on_malloc=0"
fi

# The checks' refusals and detected corruptions end launches with an error.
expect_failing_launches

# library_of PROG: "MPICH Version: 4.0.2", "Open MPI v4.1.4" (run on one rank).
library_of() {
    mpi_launch -n 1 "$1" --collectives ibarrier --sizes 1 --reps 1 2>&1 |
        sed -n 's/^library: //p' | tr -s '\t' ' ' | cut -d, -f1
}

# known_bug LIBRARY COLLECTIVE: why LIBRARY (as library_of prints it)
# delivers wrong data for COLLECTIVE when no setting avoids it (the bugs a
# setting avoids are the profiles' [workaround] entries); nothing otherwise.
# Both are the pairing of a rank's two neighbours in a periodic dimension of
# size 1 or 2 (bench_nbc's grid on 2 and 4 ranks): MPI-4.1 section 8.6 (an
# erratum to MPI-3.1) says block s of the sender lands in block s^1.
known_bug() {
    case "$1|$2" in
    "MPICH Version: 4.0."*"|ineighbor_alltoall"[vw] | "MPICH Version: 4.0."*"|neighbor_alltoall"[vw]"_init")
        echo "MPICH < 4.1 pairs the blocks of duplicate Cartesian neighbours in list order (pmodels/mpich#5777, ineighbor_alltoallv/w)" ;;
    "MPICH Version: 4.0."*"|ibcast_3GiB")
        echo "MPICH 4.0's ibcast of 3 GiB ends in MPI_Wait with 'Invalid communicator' (with MPI_Ibcast_c and with a contiguous datatype; algorithms sched_binomial and sched_scatter_ring_allgather; tsp_tree crashes in UCX)" ;;
    "Open MPI v4."*"|ineighbor_alltoall"* | "Open MPI v5.0."*"|ineighbor_alltoall"*)
        echo "Open MPI's libnbc pairs the blocks of duplicate Cartesian neighbours in list order (open-mpi/ompi#14416)" ;;
    esac
}

# expect_all_ok OUT STATUS RANKS LIBRARY: every collective of the run passed,
# or failed with a known_bug of LIBRARY (each shown as a figure); sets
# $summary for the figure line.
expect_all_ok() {
    local out=$1 status=$2 ranks=$3 library=$4 total ok no_data failed coll reason known=0
    total=$(sed -n 's/^[0-9]* of \([0-9]*\) collectives failed the data check.*$/\1/p' <<<"$out")
    [ -n "$total" ] || fail "no summary line"
    failed=$(sed -n 's/^FAILED \([a-z_]*\) on .*/\1/p' <<<"$out")
    for coll in $failed; do
        reason=$(known_bug "$library" "$coll")
        [ -n "$reason" ] || fail "$coll failed the data check on $ranks ranks ($library)"
        figure "known bug, $library, $coll on $ranks ranks: wrong data ($reason)"
        known=$((known + 1))
    done
    [ "$status" -eq 0 ] || [ "$known" -gt 0 ] || fail "datacheck_run on $ranks ranks exited with status $status"
    ok=$(grep -c "^ok .* on $ranks ranks" <<<"$out")
    [ "$ok" -eq $((total - known)) ] || fail "$ok ok lines for $total collectives ($known known bugs)"
    no_data=$(grep -c '^ok .*moves no data' <<<"$out")
    [ "$no_data" -lt "$total" ] || fail "no collective moved data"
    # shellcheck disable=SC2034 # read by the sourcing script
    summary="$ok of $total collectives ($no_data of them without data) x $(grep -m 1 -o '[0-9]* sizes x [0-9]* reps' <<<"$out") on $ranks ranks$([ "$known" -eq 0 ] || echo ", $known known library bugs")"
}

# profile_workarounds: the settings the library profile of $BUILD applies
# for its collectives (nbc-profile env), as bench_nbc applies them, into
# `workaround` (NAME=VALUE, each once) and the collectives that need one
# into `worked_around`.
profile_workarounds() {
    local coll s
    local -a collectives settings
    workaround=() worked_around=()
    mapfile -t collectives < <(mpi_launch -n 1 "$BUILD/bench_nbc" --list | awk '/^  [a-z]/ { print $1 }')
    [ ${#collectives[@]} -gt 0 ] || fail "bench_nbc --list named no collective"
    for coll in "${collectives[@]}"; do
        mapfile -t settings < <("$TOOLS_DIR/nbc-profile" env --build "$BUILD" --collective "$coll")
        [ ${#settings[@]} -gt 0 ] || continue
        worked_around+=("$coll")
        for s in "${settings[@]}"; do [[ " ${workaround[*]} " == *" $s "* ]] || workaround+=("$s"); done
    done
}
