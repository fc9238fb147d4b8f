#!/usr/bin/env bash
# Two ranks on this machine: the window barrier releases both ranks together
# (true skew from the shared CLOCK_MONOTONIC), the offset between two
# processes of one machine is estimated near zero, and a simulated clock of
# known offset and drift is recovered.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
prog=$BUILD/clocksync_check
[ -x "$prog" ] || fail "$prog is not built"

out=$(mpi_launch -n 2 "$prog" --barriers 300 --wait-s 1) || fail "clocksync_check failed: $out"
echo "$out"
last=$(tail -n 1 <<<"$out")
skew=$(kv barrier_true_skew_p50_us "$last")
offset=$(grep '^rank=1 ' <<<"$out" | grep -o 'offset_us=[^ ]*' | cut -d= -f2)
if [ -z "$skew" ] || [ "$skew" = na ]; then fail "no true skew reported: $last"; fi
check_float "$skew < 20" || fail "window barrier true skew p50 $skew us >= 20 us"
check_float "$offset < 20 && $offset > -20" || fail "offset of two local processes $offset us"
figure "window barrier true skew p50 $skew us, p99 $(kv barrier_true_skew_p99_us "$last") us;" \
    "MPI_Barrier p50 $(kv mpi_barrier_true_skew_p50_us "$last") us; offset $offset us"

# Ground truth without root: rank 1 runs a clock 1500 us ahead and 50 ppm fast.
out=$(mpi_launch -n 2 "$prog" --barriers 100 --wait-s 1 --skew-clock 1500,50) ||
    fail "clocksync_check --skew-clock failed: $out"
echo "$out"
line=$(grep '^rank=1 ' <<<"$out")
offset=$(grep -o 'offset_us=[^ ]*' <<<"$line" | cut -d= -f2)
drift=$(grep -o 'drift_ppm=[^ ]*' <<<"$line" | cut -d= -f2)
check_float "$offset + 1500 < 50 && $offset + 1500 > -50" || fail "offset $offset us, truth -1500"
check_float "$drift - 50 < 5 && $drift - 50 > -5" || fail "drift $drift ppm, truth 50"
last=$(tail -n 1 <<<"$out")
skew=$(kv barrier_true_skew_p50_us "$last")
check_float "$skew < 20" || fail "window barrier true skew p50 $skew us with a skewed clock"
figure "simulated clock: offset $offset us (truth -1500), drift $drift ppm (truth 50)," \
    "true barrier skew p50 $skew us"
