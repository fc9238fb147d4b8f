#!/usr/bin/env bash
# Every collective of the table with the data check on 4 ranks, with Open MPI
# (MPICH busy-polls: 4 oversubscribed ranks on 2 cores would crawl). Builds
# the Open MPI variant of the test program (Debian's, make MPI=openmpi) when
# this build is another library's; launches it through its profile.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
if ! command -v mpiexec.openmpi >/dev/null || ! command -v mpicc.openmpi >/dev/null; then
    skip "Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)"
fi
if [ "$MPI" != openmpi ]; then
    # A make of its own: not the variables or job server of the make that runs the tests.
    openmpi_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MPICC -u MPIEXEC make -s --no-print-directory MPI=openmpi SAN="${SAN:-}" "$@"; }
    BUILD=$(openmpi_make print-build-dir) MPIEXEC=$(openmpi_make print-mpiexec) MPI=openmpi
    openmpi_make "$BUILD/tests/datacheck/datacheck_run" "$TOOLS_DIR/nbc-profile" || fail "cannot build the Open MPI variant in $BUILD"
fi
prog=$BUILD/tests/datacheck/datacheck_run
[ -x "$prog" ] || fail "$prog is not built"
library=$(library_of "$prog")
out=$(MPI_TIMEOUT_S=300 mpi_launch -n 4 "$prog" 2>&1)
status=$?
echo "$out"
expect_all_ok "$out" $status 4 "$library"
figure "data check, $library: $summary"
