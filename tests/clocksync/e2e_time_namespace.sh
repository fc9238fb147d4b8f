#!/usr/bin/env bash
# Ground truth across "nodes": rank 1 runs in a time namespace whose
# CLOCK_MONOTONIC is 5 s ahead; the estimated offset must be -5 s within 50 us,
# and the model within 50 us of rank 0's clock at every MPI_Barrier exit.
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
# The truth moves out of the namespace (its offset is in /proc/self/timens_offsets):
# true skews and the model's error against it are reported.
true_skew=$(kv barrier_true_skew_p50_us "$last")
model_error=$(kv model_error_max_us "$last")
if [ -z "$true_skew" ] || [ "$true_skew" = na ]; then
    fail "no true skew across time namespaces: $last"
fi
check_float "$model_error < 50" || fail "model error $model_error us against the namespace-corrected truth"
figure "time namespace +5 s: offset error $(awk -v o="$offset" 'BEGIN { printf "%.3f", o + 5000000 }') us," \
    "model error max $model_error us, barrier skew p50 estimated $(kv barrier_skew_p50_us "$last") us, true $true_skew us"

# The same truth through the tree: 4 ranks, ranks 2 and 3 in time namespaces
# 5 s ahead. Hierarchically rank 1 and rank 2 measure rank 0, rank 3
# measures rank 2 (its offset is composed from 0 -> 2 -> 3): -5 s for ranks
# 2 and 3, 0 for rank 1, each within 50 us. Busy-polling libraries need a
# core per rank.
if [ "$(nproc)" -lt 4 ] && [ "$(build_field busy_polls)" != 0 ]; then
    echo "skip (tree part): $MPI busy-polls, 4 ranks on $(nproc) cores would measure its polling"
    exit 0
fi
out=$(mpi_launch -n 2 "$prog" --method hierarchical --roundtrips 500 --barriers 10 --wait-s 1 : \
    -n 2 unshare --time --fork --monotonic=5 "$prog" --method hierarchical --roundtrips 500 \
    --barriers 10 --wait-s 1) || fail "clocksync_check --method hierarchical across time namespaces failed: $out"
echo "$out"
errors=()
for r in 1 2 3; do
    offset=$(grep "^rank=$r " <<<"$out" | grep -o 'offset_us=[^ ]*' | cut -d= -f2)
    truth=$([ "$r" -ge 2 ] && echo -5000000 || echo 0)
    check_float "$offset - ($truth) < 50 && $offset - ($truth) > -50" ||
        fail "hierarchical: rank $r offset $offset us, truth $truth us"
    errors+=("$(awk -v o="$offset" -v t="$truth" 'BEGIN { printf "%.3f", o - t }')")
done
figure "hierarchical, 4 ranks, ranks 2-3 in time namespaces +5 s: offset errors of ranks 1-3" \
    "${errors[*]} us (rank 3 through rank 2)"
