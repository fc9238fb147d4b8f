#!/usr/bin/env bash
# docs/formats.md holds, for every file of the schema, the section
# schema_doc prints from schema/columns.def (`make docs` rewrites them).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
cd "$BENCH_NBC_ROOT" || fail "no repository at $BENCH_NBC_ROOT"
doc_tool=$TOOLS_DIR/schema_doc
[ -x "$doc_tool" ] || fail "$doc_tool is not built (make)"
"$doc_tool" --check docs/formats.md || fail "docs/formats.md differs from schema/columns.def: run 'make docs'"

# The check can fail: a column renamed in the doc's copy is found.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2016 # backquotes of markdown, not a command
sed '/^<!-- schema raw.csv -->/,/^<!-- end schema raw.csv -->/s/| `seq` |/| `sequence` |/' \
    docs/formats.md >"$work/formats.md"
cmp -s docs/formats.md "$work/formats.md" && fail "the doc has no row of raw.csv's seq to alter"
if "$doc_tool" --check "$work/formats.md" 2>"$work/err"; then
    fail "a changed row of raw.csv was not noticed"
fi
grep -q "section of raw.csv differs" "$work/err" || fail "the message does not name raw.csv: $(cat "$work/err")"
files=$("$doc_tool" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["files"]))')
figure "docs/formats.md: the sections of $files files match schema/columns.def"
