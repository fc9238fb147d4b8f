#!/usr/bin/env bash
# Ground truth across "nodes": rank 1 runs in a time namespace whose
# CLOCK_MONOTONIC is 5 s ahead; the estimated offset must be -5 s within 50 us.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
prog=$BUILD/clocksync_check
[ "$(id -u)" -eq 0 ] || skip "time namespaces need root"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
unshare --time --fork --monotonic=5 true 2>/dev/null || skip "this kernel or sandbox refuses time namespaces"

out=$(mpi_launch -n 1 "$prog" --barriers 100 --wait-s 1 : \
    -n 1 unshare --time --fork --monotonic=5 "$prog" --barriers 100 --wait-s 1) ||
    fail "clocksync_check in a time namespace failed: $out"
echo "$out"
offset=$(grep '^rank=1 ' <<<"$out" | grep -o 'offset_us=[^ ]*' | cut -d= -f2)
check_float "$offset + 5000000 < 50 && $offset + 5000000 > -50" ||
    fail "offset $offset us, truth -5000000 us"
last=$(tail -n 1 <<<"$out")
[ "$(kv barrier_true_skew_p50_us "$last")" = na ] || fail "true skew claimed across time namespaces"
figure "time namespace +5 s: offset error $(awk -v o="$offset" 'BEGIN { printf "%.3f", o + 5000000 }') us," \
    "estimated barrier skew p50 $(kv barrier_skew_p50_us "$last") us"
