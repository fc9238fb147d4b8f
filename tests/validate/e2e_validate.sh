#!/usr/bin/env bash
# The quick known-answer validation (scripts/validate.sh --quick): perfect
# overlap, no progress, computation slowdown and the intermittent collective
# found where they are known.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
[ -x "$TOOLS_DIR/nbc-analyze" ] || fail "$TOOLS_DIR/nbc-analyze is not built"
out=$(scripts/validate.sh --quick --mpi "$MPI" --results "$SCRATCH" 2>&1)
status=$?
echo "$out"
[ $status -eq 0 ] || fail "validation failed"
# a script that stopped early (a shell error) is no pass: one summary per
# synthetic collective and the closing verdict
[ "$(grep -c '^synthetic_[a-z]*: [0-9]* cells: ' <<<"$out")" -eq 4 ] ||
    fail "validate.sh did not judge the four synthetic collectives"
grep -q '^validate.sh: every known answer found$' <<<"$out" || fail "validate.sh gave no verdict"
grep '^synthetic_[a-z]*: ' <<<"$out" | while read -r line; do figure "$line"; done
