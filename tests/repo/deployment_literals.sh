#!/usr/bin/env bash
# No Python tool or script spells a deployment's name outside
# deploy/deployments.def (deployment_literals.py says what is exempt): they
# read the table (schema_doc --json, nbc-profile deployments) and ask the
# plan (nbc-profile plan, bench_nbc --plan). A planted script shows the scan
# notices one.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
cd "$BENCH_NBC_ROOT" || fail "no repository at $BENCH_NBC_ROOT"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "not a git checkout (the files scanned are git's)"
make_scratch
scan=(python3 tests/repo/deployment_literals.py .)
out=$("${scan[@]}") || fail "deployment names spelled outside deploy/deployments.def:"$'\n'"$out"
summary=$(tail -n 1 <<<"$out")

printf 'import sys\nif sys.argv[1] == "dedicated":\n    pass\n' >"$SCRATCH/spelled.py"
printf '#!/bin/sh\nbench_nbc --set run.deployment=thread\n' >"$SCRATCH/spelled.sh"
if out=$("${scan[@]}" --also "$SCRATCH/spelled.py" "$SCRATCH/spelled.sh"); then
    fail "the scan did not notice a spelled deployment: $out"
fi
grep -q "^$SCRATCH/spelled.py:2: 'dedicated'" <<<"$out" || fail "the Python line is not named: $out"
grep -q "^$SCRATCH/spelled.sh:2: 'thread'" <<<"$out" || fail "the script's line is not named: $out"
figure "$summary"
