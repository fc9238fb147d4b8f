#!/usr/bin/env bash
# `make deps` as a user who cannot install (nobody, when the test runs as
# root), with a library missing: it exits non-zero, names the library with
# the reason, prints the install command for Debian/Ubuntu, RHEL/Rocky, SUSE
# and Spack, and tries to install nothing (apt-get, dnf, zypper, spack and
# sudo on PATH only record that they were called). Two cases: a BLAS library
# that does not exist (BLAS_LIBS=-lno_such_blas) and json-c's header hidden
# (pkg-config finds nothing; a json-c/json.h earlier on the include path
# that stops the compiler).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/install/lib_install.sh
source "$BENCH_NBC_ROOT/tests/install/lib_install.sh"
make_scratch
[ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to run as nobody"
mkdir -p "$SCRATCH/fake" "$SCRATCH/calls" && chmod 777 "$SCRATCH/calls"
for tool in apt-get apt dpkg dnf zypper spack sudo; do
    printf '#!/bin/sh\necho "%s $*" >>%s/calls/log\nexit 0\n' "$tool" "$SCRATCH" >"$SCRATCH/fake/$tool"
    chmod 755 "$SCRATCH/fake/$tool"
done
PATH=$SCRATCH/fake:$PATH
deps_as=(as_user)
user_copy

# expect_missing WHAT PACKAGES...: make deps failed, naming WHAT, and each
# distribution's line holds its package for it (debian rhel suse spack).
expect_missing() {
    local what=$1 i
    local -a labels=("Debian/Ubuntu: *sudo apt-get install" "RHEL/Rocky: *sudo dnf install"
        "SUSE: *sudo zypper install" "Spack: *spack install")
    shift
    local -a packages=("$@")
    [ "$status" -ne 0 ] || fail "make deps succeeded although $what is missing: $(cat "$SCRATCH/err")"
    grep -q "^bench_nbc: missing $what: " "$SCRATCH/err" || fail "$what is not named as missing: $(cat "$SCRATCH/err")"
    for i in "${!labels[@]}"; do
        grep -Eq "^ +${labels[$i]} .*\b${packages[$i]}\b" "$SCRATCH/err" ||
            fail "no '${labels[$i]} ... ${packages[$i]}' line: $(cat "$SCRATCH/err")"
    done
    [ ! -e "$SCRATCH/calls/log" ] || fail "tried to install: $(cat "$SCRATCH/calls/log")"
}

status=0
deps_make BLAS_LIBS=-lno_such_blas || status=$?
expect_missing blas libopenblas-pthread-dev openblas-devel openblas-devel openblas
grep -q '^bench_nbc: missing blas: .*no_such_blas' "$SCRATCH/err" || fail "the reason (no_such_blas) is not given"

mkdir -p "$SCRATCH/hidden/json-c" "$SCRATCH/no-pc"
echo '#error json-c is hidden by this test' >"$SCRATCH/hidden/json-c/json.h"
status=0
# The flags of the C probes are the build's CFLAGS: its own, without json-c's.
PKG_CONFIG_PATH="" PKG_CONFIG_LIBDIR=$SCRATCH/no-pc \
    deps_make DEPS_FLAGS="--cflags '-std=c11 -O2 -fopenmp -I$SCRATCH/hidden'" || status=$?
expect_missing json-c libjson-c-dev json-c-devel libjson-c-devel json-c
grep -q '^bench_nbc: missing json-c: .*hidden by this test' "$SCRATCH/err" || fail "the reason is not given"
figure "missing BLAS and json-c named with 4 install commands, nothing installed (as $(as_user id -un))"
