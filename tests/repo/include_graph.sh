#!/usr/bin/env bash
# The include graph (tests/repo/include_graph.py): no circle between source
# units and no bench_nbc/ header included from outside bench_nbc/ and its
# tests. Planted faults in a scratch tree show that the check fails on them.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
check=tests/repo/include_graph.py

out=$(python3 "$check" .) || fail "the include graph:"$'\n'"$out"
echo "$out" | sed -n '/^known/,$p'

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
exit 0
