#!/usr/bin/env bash
# No C, Python or shell file outside schema/, docs/ and tests/ spells a
# column name of raw.csv or cells.csv as a string literal: writers and
# readers take them from schema/schema.h, scripts from `schema_doc --json`
# (column_literals.py says what is exempt and why).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
cd "$BENCH_NBC_ROOT" || fail "no repository at $BENCH_NBC_ROOT"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "not a git checkout (the files scanned are git's)"
doc_tool=$TOOLS_DIR/schema_doc
[ -x "$doc_tool" ] || fail "$doc_tool is not built (make)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$doc_tool" --json >"$work/schema.json" || fail "schema_doc --json failed"
scan=(python3 tests/schema/column_literals.py "$work/schema.json" raw.csv cells.csv)
"${scan[@]}" >"$work/out" || fail "column names spelled outside schema/:
$(cat "$work/out")"
summary=$(tail -n 1 "$work/out")

# The scan can fail: a C file and a shell script that spell a column each
# are named with their line.
printf '#include <stdio.h>\nint main(void)\n{\n    return puts("t4_ns");\n}\n' >"$work/spelled.c"
printf '#!/bin/sh\ngrep -c "r_overhead" cells.csv\n' >"$work/spelled.sh"
if "${scan[@]}" --also "$work/spelled.c" "$work/spelled.sh" >"$work/out2"; then
    fail "the scan did not notice a spelled column: $(cat "$work/out2")"
fi
grep -q "^$work/spelled.c:4: 't4_ns'" "$work/out2" || fail "the C file's line is not named: $(cat "$work/out2")"
grep -q "^$work/spelled.sh:2: 'r_overhead'" "$work/out2" || fail "the script's line is not named: $(cat "$work/out2")"
figure "$summary"
