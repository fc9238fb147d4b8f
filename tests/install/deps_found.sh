#!/usr/bin/env bash
# `make deps` on a system without dpkg, apt-get or sudo (a PATH of links to
# every other tool), with everything the build and the tests need present:
# exit 0 and no line that reads like an error. Its compile probes are then
# remembered: the second run takes them from the cache, and a probe whose
# library or header changed is probed again.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/install/lib_install.sh
source "$BENCH_NBC_ROOT/tests/install/lib_install.sh"
make_scratch
PATH=$(path_without_debian_tools)
if command -v dpkg || command -v apt-get; then fail "dpkg or apt-get still on PATH"; fi

start=$EPOCHREALTIME
status=0
out=$(deps_make DEPS_FOR=check DEPS_FLAGS="--cache-dir $SCRATCH/cache") || status=$?
first_s=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
[ $status -eq 0 ] || fail "make deps: status $status without dpkg; it said: $out $(cat "$SCRATCH/err")"
if grep -iE 'error|missing|not a debian|cannot|fail|warning' "$SCRATCH/err" <<<"$out"; then
    fail "make deps printed the lines above although everything is there"
fi

# Second run: the compile probes come from the cache.
start=$EPOCHREALTIME
out=$(deps_make DEPS_FOR=check DEPS_FLAGS="--cache-dir $SCRATCH/cache --verbose") ||
    fail "second make deps failed: $(cat "$SCRATCH/err")"
second_s=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
for capability in c-compiler mpi blas inih json-c cmocka; do
    grep -qx "deps.sh: ok $capability (cached)" <<<"$out" || fail "$capability was probed again: $out"
done

# The cache holds while the files a probe used are unchanged: a BLAS of this
# test's own (cblas.h, libfakeblas.so) under the BLAS probe.
fake_blas "$SCRATCH/blas" 1
blas=(BLAS_CFLAGS="-I$SCRATCH/blas" BLAS_LIBS="-L$SCRATCH/blas -lfakeblas -Wl,-rpath,$SCRATCH/blas")
cached="--cache-dir $SCRATCH/cache --verbose"
deps_make "${blas[@]}" DEPS_FLAGS="$cached" >/dev/null || fail "make deps with the fake BLAS: $(cat "$SCRATCH/err")"
out=$(deps_make "${blas[@]}" DEPS_FLAGS="$cached") || fail "make deps with the fake BLAS, again: $(cat "$SCRATCH/err")"
grep -qx "deps.sh: ok blas (cached)" <<<"$out" || fail "the fake BLAS probe was not remembered: $out"
sleep 1 # a new modification time, whatever the file system's resolution
fake_blas "$SCRATCH/blas" 2
out=$(deps_make "${blas[@]}" DEPS_FLAGS="$cached") || fail "make deps with a rebuilt fake BLAS: $(cat "$SCRATCH/err")"
grep -qx "deps.sh: ok blas" <<<"$out" || fail "a rebuilt BLAS library did not invalidate the cache: $out"
echo '#error this cblas.h is broken' >>"$SCRATCH/blas/cblas.h"
status=0
deps_make "${blas[@]}" DEPS_FLAGS="$cached" >/dev/null || status=$?
[ $status -ne 0 ] || fail "a changed cblas.h did not invalidate the cache"
grep -q '^bench_nbc: missing blas: .*this cblas.h is broken' "$SCRATCH/err" ||
    fail "the broken header is not named: $(cat "$SCRATCH/err")"
figure "make deps --for check without dpkg: ${first_s} s probing, ${second_s} s from the cache"
