#!/usr/bin/env bash
# Runs libFuzzer targets (built by `make fuzz` into FUZZ_DIR) for FUZZ_SECONDS
# each, from the committed seeds and regressions (fuzz/corpora.sh) plus the
# corpus earlier runs grew in FUZZ_DIR/corpus/TARGET/. Prints one line per
# target and appends it to FUZZ_DIR/history.log.
#
#   FUZZ_SECONDS=60 FUZZ_DIR=build/fuzz fuzz/run.sh TARGET...
#
# Exit status: 0 when no target crashed, 1 when one did (the input is kept in
# FUZZ_DIR/artifacts/TARGET/), 2 on bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=fuzz/corpora.sh
source fuzz/corpora.sh

seconds=${FUZZ_SECONDS:-60}
dir=${FUZZ_DIR:-build/fuzz}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: FUZZ_SECONDS '$seconds' is not a duration (allowed: whole seconds >= 1)" >&2
    exit 2
fi
[ $# -gt 0 ] || set -- "${fuzz_targets[@]}"

crashed=0
for target in "$@"; do
    bin=$dir/fuzz_$target
    fuzz_inputs "$target" >/dev/null || exit 2
    mapfile -t inputs < <(fuzz_inputs "$target")
    [ -x "$bin" ] || { echo "fuzz: $bin is not built (make $bin)" >&2; exit 2; }
    corpus=$dir/corpus/$target
    artifacts=$dir/artifacts/$target
    log=$dir/logs/$target.log
    mkdir -p "$corpus" "$artifacts" "$dir/logs"

    # libFuzzer takes folders as corpora and single files as -seed_inputs.
    folders=() files=()
    for path in "${inputs[@]}"; do
        if [ -d "$path" ]; then folders+=("$path"); else files+=("$path"); fi
    done
    options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384
             -print_final_stats=1 -close_fd_mask=2 -artifact_prefix="$artifacts/")
    [ ${#files[@]} -gt 0 ] && options+=(-seed_inputs="$(IFS=,; echo "${files[*]}")")
    dictionary=${fuzz_dictionary[$target]:-}
    [ -n "$dictionary" ] && options+=(-dict="$dictionary")

    before=$(find "$artifacts" -type f | wc -l)
    start=$SECONDS
    # A crash report goes to the log (-close_fd_mask=2 keeps the target's own
    # warnings out of it; the sanitizers still report there).
    "$bin" "${options[@]}" "$corpus" "${folders[@]}" >"$log" 2>&1
    status=$?
    elapsed=$((SECONDS - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    size=$(find "$corpus" -type f | wc -l)
    if [ $status -eq 0 ]; then
        line="fuzz: $target: ${elapsed} s, ${runs:-?} inputs run, corpus $size inputs, no crash"
    else
        crashed=1
        found="(no input kept: see the log)"
        [ "$(find "$artifacts" -type f | wc -l)" -gt "$before" ] &&
            found=$(find "$artifacts" -type f -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
        line="fuzz: $target: CRASH after ${elapsed} s (status $status): $found; log $log."
        line+=" Fix it, then copy the input into tests/fuzz/corpus/$target/ (make check replays it)"
    fi
    echo "$line"
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $line" >>"$dir/history.log"
done
exit $crashed
