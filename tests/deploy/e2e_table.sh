#!/usr/bin/env bash
# The deployments' table (deploy/deployments.def) is one: schema_doc --json,
# nbc-profile deployments and bench_nbc --plan list the same rows, one per
# row of the file, in its order; and nbc-profile plan (what nbc-run asks
# before it starts anything) answers as bench_nbc --plan does: a rank of
# one core refuses each deployment that leaves a core free (field cores)
# and no other, a rank of two cores takes the free core for the progress
# thread where the row says so.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip "jq is not installed"
make_scratch
profile_tool=$TOOLS_DIR/nbc-profile
if [ ! -x "$profile_tool" ] || [ ! -x "$TOOLS_DIR/schema_doc" ]; then
    fail "$TOOLS_DIR/nbc-profile or schema_doc is not built (make)"
fi

rows=$(sed -n 's/^DEPLOYMENT([A-Z_]*, "\([a-z0-9_]*\)".*/\1/p' "$BENCH_NBC_ROOT/deploy/deployments.def" | tr '\n' ' ')
[ -n "$rows" ] || fail "no row read from deploy/deployments.def"
"$TOOLS_DIR/schema_doc" --json | jq -c .deployments >"$SCRATCH/schema.json" || fail "schema_doc --json"
"$profile_tool" deployments | jq -c . >"$SCRATCH/profile.json" || fail "nbc-profile deployments"
cmp -s "$SCRATCH/schema.json" "$SCRATCH/profile.json" ||
    fail "schema_doc and nbc-profile list other tables: $(cat "$SCRATCH/schema.json") / $(cat "$SCRATCH/profile.json")"
names=$(jq -r '.[].name' "$SCRATCH/schema.json" | tr '\n' ' ')
[ "$names" = "$rows" ] || fail "the exported names '$names' are not the file's rows '$rows'"
if [ -x "$BUILD/bench_nbc" ]; then
    "$BUILD/bench_nbc" --plan 2>/dev/null | jq -c .deployments >"$SCRATCH/bench.json" || true
    cmp -s "$SCRATCH/schema.json" "$SCRATCH/bench.json" ||
        fail "bench_nbc --plan lists another table: $(cat "$SCRATCH/bench.json")"
fi
jq -e 'map(select(.thread == "library")) | length > 0' "$SCRATCH/schema.json" >/dev/null ||
    fail "no deployment runs the library's thread"

# The plan nbc-run asks, for each row, on a library that has every thread
# (mpich's profile) and an environment that sets none of its switches.
checked=0
for name in $rows; do
    cores=$(jq -r --arg n "$name" '.[] | select(.name == $n) | .cores' "$SCRATCH/schema.json")
    status=0
    out=$(env -u MPICH_ASYNC_PROGRESS -u OMP_WAIT_POLICY "$profile_tool" plan mpich --deployment "$name" --cores 1) || status=$?
    if [ "$cores" = all ]; then
        [ "$status" -eq 0 ] || fail "$name on one core: status $status: $out"
    else
        [ "$status" -eq 2 ] || fail "$name ($cores) on one core: status $status, not refused: $out"
        jq -r .refusal <<<"$out" | grep -q "needs >= 2 cores per rank" || fail "$name: refusal $(jq -r .refusal <<<"$out")"
    fi
    out=$(env -u MPICH_ASYNC_PROGRESS -u OMP_WAIT_POLICY "$profile_tool" plan mpich --deployment "$name" --cores 2) ||
        fail "$name on two cores refused: $out"
    threads=$(jq -r .compute.threads <<<"$out")
    want=2
    [ "$cores" = all ] || want=1
    [ "$threads" = "$want" ] || fail "$name ($cores) on two cores: $threads computing threads, not $want"
    checked=$((checked + 1))
done
status=0
"$profile_tool" plan mpich --cores two >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--cores two: status $status, not 2 (bad input)"
figure "deployments: $checked rows, one table in schema_doc, nbc-profile and bench_nbc --plan; nbc-profile plan refuses a free core on a one-core rank where the row leaves one"
