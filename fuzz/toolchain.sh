#!/usr/bin/env bash
# Checks that clang can build a libFuzzer target with ASan and UBSan; as root
# installs what is missing (Debian: clang, libclang-rt-14-dev), otherwise
# names the command. `make fuzz` runs it before compiling anything.
set -euo pipefail
packages=(clang libclang-rt-14-dev)

builds_a_fuzzer() {
    local dir status
    dir=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_toolchain.XXXXXX")
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
        >"$dir/probe.c"
    status=0
    clang -fsanitize=fuzzer,address,undefined "$dir/probe.c" -o "$dir/probe" >/dev/null 2>&1 ||
        status=1
    rm -rf "$dir"
    return $status
}

command -v clang >/dev/null 2>&1 && builds_a_fuzzer && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "fuzz: clang cannot build a libFuzzer target here. Install it with:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${packages[*]}" >&2
    exit 1
fi
echo "fuzz: installing ${packages[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -q --no-install-recommends "${packages[@]}" >&2; }
install || { apt-get update -q >&2 && install; }
builds_a_fuzzer || { echo "fuzz: clang still cannot build a libFuzzer target" >&2; exit 1; }
