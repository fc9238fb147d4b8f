#!/usr/bin/env bash
# A message above 2 GiB: ibcast of 3 GiB on 2 ranks (prepare, fill, start,
# wait, verify, once), with this build's library and with Open MPI (MPI-3:
# a contiguous datatype makes the int count fit). MPICH 4.0's large-count
# MPI_Ibcast_c fails (a known bug, shown as a figure). Needs 2 x 3 GiB of
# buffers plus room: skipped when less memory is available.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
size=$((3 << 30))
need_kib=$((8 << 20)) # 6 GiB of buffers, 2 GiB of room
avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "${avail_kib:-0}" -ge $need_kib ] || skip "ibcast of 3 GiB on 2 ranks needs 8 GiB available, $((avail_kib >> 10)) MiB are"

# run_large BUILD MPIEXEC: the 3 GiB ibcast with that build's program.
run_large() {
    local prog=$1/tests/datacheck/datacheck_run library out status
    [ -x "$prog" ] || fail "$prog is not built"
    BUILD=$1 MPIEXEC=$2 MPI_LAUNCH_FLAGS=()
    library=$(library_of "$prog")
    out=$(MPI_TIMEOUT_S=240 mpi_launch -n 2 "$prog" --collectives ibcast --sizes $size --reps 1 2>&1)
    status=$?
    echo "$out"
    if [ $status -ne 0 ] && [ -n "$(known_bug "$library" ibcast_3GiB)" ]; then
        figure "known bug, $library: ibcast of 3 GiB: $(known_bug "$library" ibcast_3GiB); $(grep -m 1 -o 'MPI error.*' <<<"$out")"
        return
    fi
    expect_all_ok "$out" $status 2 "$library"
    figure "ibcast of $size bytes (3 GiB) on 2 ranks, $library: data checked"
}
run_large "$BUILD" "$MPIEXEC"
if [ "$MPI" != openmpi ] && command -v mpicc.openmpi >/dev/null && command -v mpiexec.openmpi >/dev/null; then
    openmpi_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MPICC -u MPIEXEC make -s --no-print-directory MPI=openmpi SAN="${SAN:-}" "$@"; }
    build=$(openmpi_make print-build-dir) mpiexec=$(openmpi_make print-mpiexec)
    openmpi_make "$build/tests/datacheck/datacheck_run" || fail "cannot build the Open MPI variant in $build"
    MPI=openmpi run_large "$build" "$mpiexec"
fi
