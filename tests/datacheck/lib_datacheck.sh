# Helpers of the data check scripts (sourced after tests/lib.sh).
# shellcheck shell=bash

# The MPI libraries' leaks are suppressed by library name (tests/lsan.supp),
# which needs whole stacks: the fast unwinder stops in MPICH/UCX frames and
# leaves "<unknown module>" leaks that no suppression matches.
if [ -n "${SAN:-}" ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}fast_unwind_on_malloc=0"
fi

# library_of PROG: "MPICH Version: 4.0.2", "Open MPI v4.1.4" (run on one rank).
library_of() {
    mpi_launch -n 1 "$1" --collectives ibarrier --sizes 1 --reps 1 2>&1 |
        sed -n 's/^library: //p' | tr -s '\t' ' ' | cut -d, -f1
}

# expect_all_ok OUT STATUS RANKS: every collective of the run passed; sets
# $summary for the figure line.
expect_all_ok() {
    local out=$1 status=$2 ranks=$3 total ok no_data
    [ "$status" -eq 0 ] || fail "datacheck_run on $ranks ranks exited with status $status"
    total=$(sed -n 's/^0 of \([0-9]*\) collectives failed the data check$/\1/p' <<<"$out")
    [ -n "$total" ] || fail "no summary line with 0 failures"
    ok=$(grep -c "^ok .* on $ranks ranks" <<<"$out")
    [ "$ok" -eq "$total" ] || fail "$ok ok lines for $total collectives"
    no_data=$(grep -c '^ok .*moves no data' <<<"$out")
    [ "$no_data" -lt "$total" ] || fail "no collective moved data"
    # shellcheck disable=SC2034 # read by the sourcing script
    summary="$total collectives ($no_data of them without data) x $(grep -m 1 -o '[0-9]* sizes x [0-9]* reps' <<<"$out") on $ranks ranks"
}
