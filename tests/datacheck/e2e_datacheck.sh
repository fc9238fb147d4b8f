#!/usr/bin/env bash
# Every collective of the table, with the data check (fill, start, wait,
# verify) at 1 element, an odd size and ~1 MiB, twice each (persistent
# requests restarted), on 2 ranks of this build's MPI library.
# MPICH 4.0's MPI_Allgather_init (recursive doubling, power-of-two ranks)
# sends stale counts from its second start: wrong data, and reads past the
# receive buffer (pmodels/mpich#6423, fixed in 4.1). There the run uses the
# ring algorithm, as bench_nbc does: the workaround of the library profile
# (configs/mpi/mpich.ini, nbc-profile env), and the bug itself is shown as a
# figure, not asserted.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
prog=$BUILD/tests/datacheck/datacheck_run
[ -x "$prog" ] || fail "$prog is not built (make $prog)"

library=$(library_of "$prog")
[ -n "$library" ] || fail "$prog did not name its MPI library"
# The profile's settings for the collectives that need one in this version.
profile_workarounds
# (The launcher passes its environment on to the ranks.)
out=$(for s in "${workaround[@]}"; do export "${s?}"; done && MPI_TIMEOUT_S=300 mpi_launch -n 2 "$prog" 2>&1)
status=$?
echo "$out"
expect_all_ok "$out" $status 2 "$library"
figure "data check, $library: $summary${workaround:+ (with ${workaround[*]}, the profile workaround for ${worked_around[*]})}"

if [ ${#workaround[@]} -gt 0 ]; then
    bug=$(mpi_launch -n 2 "$prog" --collectives "$(IFS=,; echo "${worked_around[*]}")" 2>&1)
    echo "$bug"
    shown=$(grep -m 1 -Eo 'data check failed: .*|AddressSanitizer: [a-z-]+' <<<"$bug")
    figure "$library ${worked_around[*]} without the workaround: ${shown:-passes}"
fi
