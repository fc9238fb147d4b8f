#!/usr/bin/env bash
# docs/extending.md's recipes (a collective, a deployment, a library
# profile) name only files and symbols that exist (extending_doc.py). A
# planted recipe that names a gone function and a gone file fails.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
cd "$BENCH_NBC_ROOT" || fail "no repository at $BENCH_NBC_ROOT"
make_scratch
out=$(python3 tests/repo/extending_doc.py .) || fail "docs/extending.md names what does not exist:"$'\n'"$out"
summary=$(tail -n 1 <<<"$out")

tree=$SCRATCH/tree
mkdir -p "$tree/docs" "$tree/bench_nbc"
printf 'int start_ibcast(void);\n' >"$tree/bench_nbc/c.c"
cat >"$tree/docs/extending.md" <<'EOF'
## A collective

`bench_nbc/c.c`: copy `start_ibcast`, then `start_iallgather`.
## A deployment

`deploy/gone.c`.
## An MPI library profile

none.
## A Python analysis tool

none.
EOF
out=$(python3 tests/repo/extending_doc.py "$tree") && fail "a recipe naming what is gone passed: $out"
grep -q "start_iallgather" <<<"$out" || fail "the gone function is not named: $out"
grep -q 'deploy/gone.c' <<<"$out" || fail "the gone file is not named: $out"
grep -q 'start_ibcast' <<<"$out" && fail "an existing function was reported: $out"
figure "$summary"
