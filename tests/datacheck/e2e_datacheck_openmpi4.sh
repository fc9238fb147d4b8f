#!/usr/bin/env bash
# Every collective of the table with the data check on 4 ranks, with Open MPI
# (MPICH busy-polls: 4 oversubscribed ranks on 2 cores would crawl). Builds
# the Open MPI variant of the test program when this build is MPICH's.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
if ! command -v mpiexec.openmpi >/dev/null || ! command -v mpicc.openmpi >/dev/null; then
    skip "Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)"
fi
prog=build/openmpi${SAN:+-san}/tests/datacheck/datacheck_run
if [ "$MPI" != openmpi ]; then
    # A make of its own: not the variables or job server of the make that runs the tests.
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s MPI=openmpi SAN="${SAN:-}" "$prog" ||
        fail "cannot build $prog"
fi
[ -x "$prog" ] || fail "$prog is not built"
MPI=openmpi
MPIEXEC=mpiexec.openmpi
library=$(library_of "$prog")
out=$(MPI_TIMEOUT_S=300 mpi_launch -n 4 "$prog" 2>&1)
status=$?
echo "$out"
expect_all_ok "$out" $status 4
figure "data check, $library: $summary"
