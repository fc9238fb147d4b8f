#!/usr/bin/env bash
# Every collective of MPICH's table (44 MPI rows with 4.0: every
# nonblocking and persistent collective of MPI-3 and MPI-4) with the data
# check on 2 and 4 ranks, whatever this build's library is: MPICH is built
# here (make MPI=mpich) when this build is another library's. Run with the
# workarounds of MPICH's profile, as bench_nbc runs; a row that still
# delivers wrong data must be a known library bug (lib_datacheck.sh), shown
# as a figure. Four busy-polling MPICH ranks on 2 cores run the whole table
# in about 5 s with the workarounds (without them, scatter_init hangs).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
use_mpi mpich tests/datacheck/datacheck_run bench_nbc
prog=$BUILD/tests/datacheck/datacheck_run
[ -x "$prog" ] || fail "$prog is not built"
library=$(library_of "$prog")
[[ "$library" == MPICH* ]] || fail "$prog names its library '$library', not MPICH"
profile_workarounds
for ranks in 2 4; do
    status=0
    out=$(for s in "${workaround[@]}"; do export "${s?}"; done && MPI_TIMEOUT_S=120 mpi_launch -n $ranks "$prog" 2>&1) || status=$?
    echo "$out"
    expect_all_ok "$out" $status $ranks "$library"
    figure "data check, $library: $summary${workaround:+ (with ${workaround[*]})}"
done
