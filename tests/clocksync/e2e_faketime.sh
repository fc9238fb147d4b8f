#!/usr/bin/env bash
# Ground truth across "nodes": rank 1's clocks run 100 ppm fast under
# libfaketime; the estimated drift must be 100 ppm within 5 ppm.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
prog=$BUILD/clocksync_check
command -v faketime >/dev/null || skip "faketime is not installed (apt-get install faketime)"
# faketime preloads its library ahead of ASan's runtime, which ASan refuses
# by default; it intercepts only clock calls, so the order does no harm.
[ -n "${SAN:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

out=$(mpi_launch -n 1 "$prog" --barriers 100 --wait-s 2 : \
    -n 1 faketime -f "+0 x1.0001" "$prog" --barriers 100 --wait-s 2) ||
    fail "clocksync_check under faketime failed: $out"
echo "$out"
drift=$(grep '^rank=1 ' <<<"$out" | grep -o 'drift_ppm=[^ ]*' | cut -d= -f2)
check_float "$drift - 100 < 5 && $drift - 100 > -5" || fail "drift $drift ppm, truth 100 ppm"
last=$(tail -n 1 <<<"$out")
figure "faketime x1.0001: drift $drift ppm (truth 100), residual after 2 s" \
    "$(kv offset_error_us "$last") us, estimated barrier skew p50 $(kv barrier_skew_p50_us "$last") us"
