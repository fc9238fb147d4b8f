#!/usr/bin/env bash
# The hierarchical method's targets on 4096 simulated ranks (no MPI run):
# at most 1/50 of linear's messages on the critical path, and a median
# clock error 60 s after a synchronization within 2x of linear's.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
prog=$BUILD/clocksync_scale
[ -x "$prog" ] || fail "$prog is not built"
out=$("$prog" --ranks 4096 --check) || fail "targets missed: $out"
echo "$out"
last=$(tail -n 1 <<<"$out")
figure "4096 simulated ranks: linear needs $(kv critical_path_ratio "$last") x hierarchical's" \
    "critical-path messages; hierarchical's median error 60 s after sync is" \
    "$(kv median_error_ratio "$last") x linear's"
