#!/usr/bin/env bash
# Replays every committed input of every fuzz target (fuzz/corpora.sh: the
# seeds, and tests/fuzz/corpus/TARGET/ where each input a fuzzer crashed on is
# kept) through the target built without libFuzzer. A target aborts when a
# promise of the code under test is broken; with SAN=1 the sanitizers also
# stop it on a memory error or undefined behaviour.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=fuzz/corpora.sh
source fuzz/corpora.sh
make_scratch

summary=()
for target in "${fuzz_targets[@]}"; do
    replay=$BUILD/tests/fuzz/replay_$target
    [ -x "$replay" ] || fail "$replay is not built"
    mapfile -t inputs < <(fuzz_inputs "$target")
    [ ${#inputs[@]} -gt 0 ] || fail "no committed inputs for fuzz target $target"
    if ! timeout -k 5 120 "$replay" "${inputs[@]}" >"$SCRATCH/$target.out" 2>"$SCRATCH/$target.err"; then
        tail -n 40 "$SCRATCH/$target.err"
        fail "fuzz target $target failed on a committed input (the last one named above)"
    fi
    replayed=$(sed -n 's/^replay: \([0-9]*\) inputs.*/\1/p' "$SCRATCH/$target.out")
    [ "${replayed:-0}" -gt 0 ] || fail "fuzz target $target replayed nothing"
    regressions=$(find "tests/fuzz/corpus/$target" -type f 2>/dev/null | wc -l)
    summary+=("$target $replayed inputs ($regressions regressions)")
done
joined=$(printf '%s, ' "${summary[@]}")
figure "fuzz replay: ${joined%, }"
