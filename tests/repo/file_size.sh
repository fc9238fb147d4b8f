#!/usr/bin/env bash
# No product source file over 600 lines (tests/repo/file_size.py lists the
# exceptions with their reasons). A planted file in a scratch tree shows the
# limit is where the check says.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
check=tests/repo/file_size.py

out=$(python3 "$check" .) || fail "files over the limit:"$'\n'"$out"
echo "$out"

tree=$SCRATCH/tree
mkdir -p "$tree/m" "$tree/tests"
seq 600 >"$tree/m/at_limit.c"
seq 2000 >"$tree/tests/long_test.c" # tests are not product files
out=$(python3 "$check" "$tree") || fail "600 lines (the limit) or a test failed: $out"
seq 601 >"$tree/m/over.c"
out=$(python3 "$check" "$tree") && fail "an 601-line file passed: $out"
grep -q '^m/over.c: 601 lines' <<<"$out" || fail "the planted file is not named: $out"
exit 0
