#!/usr/bin/env bash
# The data check fails when it must, naming the collective, the rank and the
# first wrong element, and only there: one flipped bit in a receive buffer
# after the wait, a broadcast and an exscan that never ran (the poison is
# caught) on 2 ranks; corrupting data the standard leaves undefined (ireduce
# off the root, iexscan on rank 0) is no failure.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/datacheck/lib_datacheck.sh
source "$(dirname "$0")/lib_datacheck.sh"
prog=$BUILD/tests/datacheck/datacheck_run
[ -x "$prog" ] || fail "$prog is not built (make $prog)"

# run_expecting STATUS ARGS...: runs the program on 2 ranks into $out.
run_expecting() {
    local want=$1
    shift
    out=$(MPI_TIMEOUT_S=120 mpi_launch -n 2 "$prog" "$@" 2>&1)
    local status=$?
    echo "== $* (status $status)"
    echo "$out"
    [ $status -eq "$want" ] || fail "datacheck_run $* exited with $status, expected $want"
}

# expect_message PATTERN: exactly one failure line, matching the extended regex.
expect_message() {
    local lines
    lines=$(grep -c 'data check failed' <<<"$out")
    [ "$lines" -eq 1 ] || fail "$lines failure lines, expected 1"
    grep -Eq "$1" <<<"$out" || fail "no failure line matching: $1"
}

# One bit flipped in byte 4096 of rank 1's receive buffer (last byte of
# block 0 at 4097 bytes): only that byte is wrong, its value is the bit flip.
run_expecting 1 --collectives iallgather --sizes 4097 --reps 1 --corrupt iallgather:1:4096
expect_message '^at 4097 bytes, rep 0: data check failed: iallgather rank 1 byte 4096 of the receive buffer \(block 0 index 4096, sent by rank 0 as its block 0\): expected 0x[0-9a-f]{2} got 0x[0-9a-f]{2}; 1 of 8194 bytes wrong$'
grep -q '^FAILED iallgather on 2 ranks' <<<"$out" || fail "no FAILED line for iallgather"
expected=$(grep -o 'expected 0x[0-9a-f]*' <<<"$out" | cut -d' ' -f2)
got=$(grep -o 'got 0x[0-9a-f]*' <<<"$out" | cut -d' ' -f2)
[ $((expected ^ 1)) -eq $((got)) ] || fail "got $got is not expected $expected with bit 0 flipped"

# A reduction at ~1 MiB: element 3 of rank 0's sum, one more than the sum.
run_expecting 1 --collectives iallreduce --sizes 1048579 --reps 1 --corrupt iallreduce:0:3
expect_message 'data check failed: iallreduce rank 0 element 3 of the receive buffer \(block 0 index 3, sum of block 0 over ranks 0\.\.1\): expected [0-9]+ got [0-9]+; 1 of 131072 elements wrong$'
expected=$(grep -o 'expected [0-9]*' <<<"$out" | cut -d' ' -f2)
got=$(grep -o 'got [0-9]*' <<<"$out" | cut -d' ' -f2)
[ $((expected + 1)) -eq "$got" ] || fail "got $got is not expected $expected plus 1"

# A broadcast that never ran: rank 1 still holds the poison everywhere; the
# root's buffer is its own data. The next collective still passes.
run_expecting 1 --collectives ibcast,iscan --sizes 4097 --reps 1 --omit ibcast
expect_message '^at 4097 bytes, rep 0: data check failed: ibcast rank 1 byte 0 of the broadcast buffer \(block 0 index 0, sent by rank 0 as its block 0\): expected 0x[0-9a-f]{2} got 0x[0-9a-f]{2}; 4097 of 4097 bytes wrong$'
grep -q '^ok iscan on 2 ranks' <<<"$out" || fail "iscan did not pass after the failed ibcast"

# An exscan that never ran: rank 1's element 0 is the poison (-0.5), rank 0
# is not checked.
run_expecting 1 --collectives iexscan --sizes 1 --reps 1 --omit iexscan
expect_message 'data check failed: iexscan rank 1 element 0 of the receive buffer \(block 0 index 0, sum of block 0 over ranks 0\.\.0\): expected [0-9]+ got -0\.5; 1 of 1 elements wrong$'

# Undefined by the standard, so never a failure.
run_expecting 0 --collectives ireduce,iexscan --sizes 4097 --corrupt ireduce:1:0
run_expecting 0 --collectives iexscan --sizes 4097 --corrupt iexscan:0:0

# A bad option value is named, with exit status 2.
run_expecting 2 --corrupt iallgather:one:2
grep -q "option --corrupt: bad rank or element in 'one'" <<<"$out" || fail "bad --corrupt not named"
figure "data check: bit flips (bytes, doubles), a missing ibcast and iexscan caught; undefined data ignored"
