#!/usr/bin/env bash
# The collectives' options on 2 ranks of this build's MPI library: the data
# check of every collective that takes them with run.root = 1, run.datatype
# int and double, run.in_place (alone, and with root 1 and int); then
# bench_nbc refuses, exit 2 before any measurement, a root that is not a
# rank, a reduction of bytes, MPI_IN_PLACE where the standard has none, and
# a calibration.max_bytes whose ialltoall buffers do not fit in memory
# (naming the bytes needed and available).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
prog=$BUILD/tests/datacheck/datacheck_run
[ -x "$prog" ] || fail "$prog is not built (make $prog)"
library=$(library_of "$prog")
# The profile's workarounds of the collectives that need one in this version.
for coll in allgather_init gather_init scatter_init; do
    while read -r s; do [ -n "$s" ] && export "${s?}"; done < <("$TOOLS_DIR/nbc-profile" env --build "$BUILD" --collective "$coll")
done

for options in "--root 1" "--datatype int" "--datatype double" "--in-place" "--in-place --root 1 --datatype int"; do
    # shellcheck disable=SC2086 # the options are words
    out=$(MPI_TIMEOUT_S=300 mpi_launch -n 2 "$prog" $options --skip-refused --sizes 1,4099 2>&1)
    status=$?
    echo "== $options (status $status)"
    echo "$out"
    expect_all_ok "$out" $status 2 "$library"
    figure "data check with $options, $library: $summary, $(grep -c '^refused' <<<"$out") refused"
done
# What the in-place runs must have covered.
out=$(MPI_TIMEOUT_S=120 mpi_launch -n 2 "$prog" --in-place --skip-refused --sizes 7 --reps 1 2>&1)
for coll in iallreduce iallgather ialltoall ireduce_scatter igather iscatter iexscan; do
    grep -q "^ok $coll on 2 ranks" <<<"$out" || fail "$coll was not checked in place"
done
grep -q '^refused ibcast on 2 ranks: config: run.in_place: "true" is not allowed for ibcast' <<<"$out" ||
    fail "ibcast in place was not refused"

make_scratch
# refuse MESSAGE_REGEX --set ...: bench_nbc exits 2 with that message on 2 ranks.
refuse() {
    local want=$1
    shift
    local args=(--set run.results_dir="$SCRATCH" --set "grid.comm_times=1ms,2ms,2" --set "grid.comp_times=1ms,2ms,2")
    for s in "$@"; do args+=(--set "$s"); done
    out=$(MPI_TIMEOUT_S=60 mpi_launch -n 2 "$BUILD/bench_nbc" "${args[@]}" 2>&1)
    local status=$?
    echo "== $* (status $status)"
    echo "$out"
    [ $status -eq 2 ] || fail "bench_nbc $* exited with $status, expected 2"
    grep -Eq "$want" <<<"$out" || fail "no message matching: $want"
    [ -z "$(ls -A "$SCRATCH")" ] || fail "bench_nbc $* made a run folder"
}
refuse 'run\.root: "2" is not a rank of this run.s 2 ranks \(allowed: 0 to 1\)' run.root=2
refuse 'run\.datatype: "byte" cannot be reduced: iallreduce sums its data .*\(allowed: auto, int, double for reductions\)' run.collective=iallreduce run.datatype=byte
refuse 'run\.in_place: "true" is not allowed for ineighbor_alltoall: .*\(allowed: ireduce, iallreduce, ' run.collective=ineighbor_alltoall run.in_place=true
refuse 'run\.datatype: "float" is not a known datatype .*\(allowed: auto, byte, int, double\)' run.datatype=float
# ialltoall at S = 8 GiB: send 2 + receive 2 blocks of 8 GiB per rank, 2 ranks here.
refuse 'calibration\.max_bytes: "8GiB" cannot fit in memory: ialltoall at S = 8 GiB takes send 2 \+ receive 2 blocks of S \(34359738368 bytes\) per rank, x 2 rank\(s\) on this node = 68719476736 bytes, more than the [0-9]+ bytes' run.collective=ialltoall calibration.max_bytes=8GiB
figure "refused before measuring: root 2 of 2 ranks, iallreduce of bytes, ineighbor_alltoall in place, float, $(grep -o 'ialltoall at S = 8 GiB takes .* available' <<<"$out")"
