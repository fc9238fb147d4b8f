#!/usr/bin/env bash
# Makes sure clang can build a libFuzzer target with ASan and UBSan:
# scripts/deps.sh --for fuzz installs (as root) or names (otherwise) clang
# and libclang-rt-14-dev, then a one-line target is linked as a probe.
# `make fuzz` runs it before compiling anything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --for fuzz

dir=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_toolchain.XXXXXX")
trap 'rm -rf "$dir"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$dir/probe.c"
if ! clang -fsanitize=fuzzer,address,undefined "$dir/probe.c" -o "$dir/probe" 2>"$dir/errors"; then
    cat "$dir/errors" >&2
    echo "fuzz: clang cannot link a libFuzzer target (needs clang and libclang-rt-14-dev)" >&2
    exit 1
fi
