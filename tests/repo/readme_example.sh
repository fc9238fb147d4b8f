#!/usr/bin/env bash
# README.md's example of a study's end is what nbc-run prints for the
# recorded default study tests/data/example_study (scripts/readme_example.py
# --check): it fails when the verdict's or the comparison's words change and
# README.md was not generated again.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
[ -x "$TOOLS_DIR/nbc-verdict" ] || fail "$TOOLS_DIR/nbc-verdict is not built"
out=$("$BENCH_NBC_ROOT/scripts/readme_example.py" --check --tools-dir "$TOOLS_DIR" 2>&1) ||
    fail "README.md's example is not what the recorded study prints (scripts/readme_example.py rewrites it): $out"
