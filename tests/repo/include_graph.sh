#!/usr/bin/env bash
# The include graph (tests/repo/include_graph.py): no circle between source
# units, no bench_nbc/ header included from outside bench_nbc/ and its
# tests, and the analysis's rooms in their order (a room includes only the
# public headers of the rooms before it). Planted faults in a scratch tree
# show that the check fails on them.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
check=tests/repo/include_graph.py

out=$(python3 "$check" .) || fail "the include graph:"$'\n'"$out"
echo "$out" | sed -n '/^analysis rooms/,$p'
grep -q '^  analysis/inputs/inputs.h ' <<<"$out" || fail "the rooms are not printed: $out"

# A circle through a header and a source file: a.c includes b.h, b.c includes a.h.
tree=$SCRATCH/circle
mkdir -p "$tree/m"
printf '#include "m/b.h"\n' >"$tree/m/a.c"
printf '#include "m/a.h"\n' >"$tree/m/b.c"
: >"$tree/m/a.h"
: >"$tree/m/b.h"
out=$(python3 "$check" "$tree") && fail "a planted circle passed: $out"
grep -q '^include circle: m/a -> m/b -> m/a$' <<<"$out" || fail "the planted circle is not named: $out"

# A bench_nbc/ header from another module.
tree=$SCRATCH/outside
mkdir -p "$tree/bench_nbc" "$tree/other"
: >"$tree/bench_nbc/x.h"
printf '#include "bench_nbc/x.h"\n' >"$tree/other/y.c"
out=$(python3 "$check" "$tree") && fail "bench_nbc/ included from other/ passed: $out"
grep -q '^other/y.c:1: includes bench_nbc/x.h' <<<"$out" || fail "the planted include is not named: $out"

# The analysis's rooms: a scratch tree with the rooms' public headers and
# one private header; each fault is planted alone in a copy of it.
rooms=$SCRATCH/rooms
mkdir -p "$rooms/analysis/inputs" "$rooms/analysis/metrics" "$rooms/analysis/compare"
: >"$rooms/analysis/inputs/inputs.h"
printf '#include "analysis/inputs/inputs.h"\n' >"$rooms/analysis/metrics/metrics.h"
printf '#include "analysis/metrics/metrics.h"\n' >"$rooms/analysis/metrics/metrics_internal.h"
printf '#include "analysis/metrics/metrics_internal.h"\n' >"$rooms/analysis/metrics/cells.c"
printf '#include "analysis/metrics/metrics.h"\n' >"$rooms/analysis/compare/compare.h"
printf '#include "analysis/metrics/metrics.h"\n' >"$rooms/analysis/analysis.h"
out=$(python3 "$check" "$rooms") || fail "the rooms' tree without a fault failed: $out"
# plant FILE LINE PATTERN: FILE (under the tree) gets LINE; the check must
# fail and name it with PATTERN.
plant() {
    local tree=$SCRATCH/plant
    if ! { rm -rf "$tree" && cp -r "$rooms" "$tree" && mkdir -p "$(dirname "$tree/$1")"; }; then
        fail "copying the tree"
    fi
    printf '%s\n' "$2" >>"$tree/$1"
    out=$(python3 "$check" "$tree") && fail "a planted fault passed ($1: $2): $out"
    grep -q "$3" <<<"$out" || fail "the planted fault ($1: $2) is not named: $out"
}
plant analysis/inputs/csv.c '#include "analysis/metrics/metrics.h"' \
    '^analysis/inputs/csv.c:1: includes analysis/metrics/metrics.h: the room inputs goes up to metrics'
plant analysis/compare/comparison.c '#include "analysis/metrics/metrics_internal.h"' \
    '^analysis/compare/comparison.c:1: includes analysis/metrics/metrics_internal.h, a private header of the room metrics'
plant tests/analysis/test_x.c '#include "analysis/metrics/metrics_internal.h"' \
    '^tests/analysis/test_x.c:1: includes analysis/metrics/metrics_internal.h, a private header'
plant analysis/metrics/rules.c '#include "analysis/analysis.h"' \
    '^analysis/metrics/rules.c:1: includes analysis/analysis.h, the facade'
plant analysis/newroom/new.c '#include "analysis/inputs/inputs.h"' \
    '^analysis/newroom/new.c: not in a room of ANALYSIS_ROOMS'
plant analysis/loose.c '' '^analysis/loose.c: not in a room of ANALYSIS_ROOMS'
exit 0
