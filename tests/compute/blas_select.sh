#!/usr/bin/env bash
# compute/blas.mk's choice of flags, read through `make blas-config` (nothing
# is compiled): each BLAS found where its row says (a ROOT variable, Debian's
# folder, pkg-config), headers with -isystem, a RUNPATH for every library
# folder, explicit flags taken as given, and one clear message for an unknown
# BLAS or an absent MKL. Made-up install prefixes stand in for modules.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
make_scratch

# config ARGS...: `make blas-config` with ARGS (and no MKL, BLIS or OpenBLAS
# module in the environment unless ARGS set one); its output in $SCRATCH/config.
config() {
    "${MAKE_ENV[@]}" -u MKLROOT -u OPENBLAS_ROOT -u BLIS_ROOT -u CPATH \
        PKG_CONFIG_PATH="${PKG_CONFIG_PATH_FOR_TEST:-}" make -s --no-print-directory "$@" blas-config \
        >"$SCRATCH/config" 2>&1
}
value() { sed -n "s/^$1=//p" "$SCRATCH/config"; }
expect_config() { # KEY EXPECTED ARGS...
    local key=$1 expected=$2
    shift 2
    config "$@" || fail "make $* blas-config failed: $(cat "$SCRATCH/config")"
    [ "$(value "$key")" = "$expected" ] || fail "make $*: $key is '$(value "$key")', expected '$expected'"
}
expect_error() { # PATTERN ARGS...
    local pattern=$1
    shift
    if config "$@"; then fail "make $* blas-config succeeded: $(cat "$SCRATCH/config")"; fi
    grep -q -- "$pattern" "$SCRATCH/config" || fail "make $*: message '$(cat "$SCRATCH/config")' lacks '$pattern'"
}

# The default: Debian's pthreads OpenBLAS when installed (held to one thread
# per call; its serial build is not safe for calls from several threads).
pthread=/usr/lib/$MULTIARCH/openblas-pthread
if [ -e "$pthread/libopenblas.so" ]; then
    expect_config BLAS_LIBS "-L$pthread -lopenblas -Wl,-rpath,$pthread"
    expect_config BLAS_CFLAGS "-isystem /usr/include/$MULTIARCH/openblas-pthread"
fi

# A module's prefix (OPENBLAS_ROOT, MKLROOT, BLIS_ROOT) wins over Debian's folder.
root=$SCRATCH/prefix
mkdir -p "$root/include/blis" "$root/lib64" "$root/lib/intel64"
touch "$root/include/cblas.h" "$root/include/mkl_cblas.h" "$root/include/blis/cblas.h"
expect_config BLAS_LIBS "-L$root/lib64 -lopenblas -Wl,-rpath,$root/lib64" OPENBLAS_ROOT="$root"
expect_config BLAS_CFLAGS "-isystem $root/include/blis" BLAS=blis BLIS_ROOT="$root"
expect_config BLAS_LIBS "-L$root/lib/intel64 -Wl,--no-as-needed -lmkl_intel_lp64 -lmkl_sequential -lmkl_core -lpthread -lm -ldl -Wl,-rpath,$root/lib/intel64" \
    BLAS=mkl MKLROOT="$root"
expect_config BLAS_CBLAS_H mkl_cblas.h BLAS=mkl MKLROOT="$root"
expect_error "MKLROOT=$SCRATCH/none has no include/mkl_cblas.h" BLAS=mkl MKLROOT="$SCRATCH/none"

# pkg-config, as oneMKL ships it (mkl-dynamic-lp64-seq.pc): -I becomes
# -isystem, every -L gets its RUNPATH.
mkdir -p "$SCRATCH/pc"
cat >"$SCRATCH/pc/mkl-dynamic-lp64-seq.pc" <<PC
prefix=$root
Name: mkl
Description: made up for this test
Version: 2024.0
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -Wl,--no-as-needed -lmkl_intel_lp64 -lmkl_sequential -lmkl_core -lpthread -lm -ldl
PC
export PKG_CONFIG_PATH_FOR_TEST=$SCRATCH/pc
expect_config BLAS_CFLAGS "-isystem $root/include" BLAS=mkl
expect_config BLAS_LIBS "-L$root/lib -Wl,--no-as-needed -lmkl_intel_lp64 -lmkl_sequential -lmkl_core -lpthread -lm -ldl -Wl,-rpath,$root/lib" BLAS=mkl
unset PKG_CONFIG_PATH_FOR_TEST

# No MKL anywhere: one message saying where it was looked for and what to do.
expect_error "BLAS=mkl: oneMKL not found: MKLROOT is not set, pkg-config has no mkl-dynamic-lp64-seq" BLAS=mkl

# Explicit flags are taken as given, with the BLAS's descriptor.
expect_config BLAS_LIBS "-lsci_gnu" BLAS=generic BLAS_CFLAGS= BLAS_LIBS=-lsci_gnu
expect_config BLAS_CFLAGS "" BLAS=generic BLAS_CFLAGS= BLAS_LIBS=-lsci_gnu
config BLAS=generic BLAS_LIBS=-lsci_gnu
grep -q "descriptor compute/blas_generic.c" "$SCRATCH/config" || fail "descriptor: $(cat "$SCRATCH/config")"

# Debian's other builds by name; unknown names refused with the allowed ones.
expect_error "BLAS=openblas-nosuch names Debian's build in /usr/lib/$MULTIARCH/openblas-nosuch, which is not installed (apt-get install libopenblas-nosuch-dev)" \
    BLAS=openblas-nosuch
expect_error "BLAS=atlas is not a known BLAS (allowed: openblas, blis, mkl, generic" BLAS=atlas
expect_error "BLAS=mkl-x: mkl has no Debian builds to choose from" BLAS=mkl-x
expect_error "HWLOC=2 is not allowed (allowed: 1 use hwloc, 0 read /sys/devices/system/cpu)" HWLOC=2
echo "blas selection: all checks passed"
