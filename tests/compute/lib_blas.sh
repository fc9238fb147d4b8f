# shellcheck shell=bash
# Helpers for the tests of the BLAS descriptors (sourced after tests/lib.sh):
# they build compute_ref alone against another BLAS, into a folder of its own.
# shellcheck disable=SC2034 # used by the scripts that source this file
MULTIARCH=$(gcc -print-multiarch)

# need_package FILE PACKAGE: FILE exists, or PACKAGE is installed for it when
# running as root; otherwise the test skips.
need_package() {
    [ -e "$1" ] && return 0
    [ "$(id -u)" = 0 ] || skip "$1 is missing (Debian package $2) and only root can install it"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$2" >"$SCRATCH/apt.log" 2>&1 ||
        skip "apt-get install $2 failed: $(tail -n 3 "$SCRATCH/apt.log")"
    [ -e "$1" ] || fail "$2 is installed but $1 is still missing"
}

# The settings of the make that runs the tests (MAKEFLAGS, and the BLAS
# variables it exports) stay out of the builds and queries the tests make.
MAKE_ENV=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BLAS -u BLAS_CFLAGS -u BLAS_LIBS -u BLAS_CBLAS_H
          -u HWLOC)

# build_compute_ref SUFFIX MAKE_ARGS...: compute_ref and the compute objects
# only, built with MAKE_ARGS into $BUILD-SUFFIX (build/mpich-blis for
# BLAS=blis: where `make BLAS=blis` puts them); its path in REF.
build_compute_ref() {
    local suffix=$1
    shift
    local dir=$BUILD-$suffix
    "${MAKE_ENV[@]}" nice make -s -j2 --no-print-directory \
        MPI="$MPI" SAN="${SAN:-}" BUILD="$dir" "$@" "$dir/compute_ref" >"$SCRATCH/make-$suffix.log" 2>&1 ||
        fail "make $* $dir/compute_ref failed: $(tail -n 20 "$SCRATCH/make-$suffix.log")"
    # shellcheck disable=SC2034 # the caller's result
    REF=$BENCH_NBC_ROOT/$dir/compute_ref
}

# blas_value KEY FILE: a value of compute_ref --blas's output.
blas_value() { sed -n "s/^$1: //p" "$2" | head -n 1; }

# expect_one_thread PROGRAM ENV...: PROGRAM --blas accepts its BLAS (under
# ENV) and measures about one thread per call; the output stays in
# $SCRATCH/blas.out for the caller's own checks.
expect_one_thread() {
    local prog=$1
    shift
    env "$@" "$prog" --blas >"$SCRATCH/blas.out" 2>"$SCRATCH/blas.err" ||
        fail "$prog --blas refused its BLAS ($*): $(cat "$SCRATCH/blas.err")"
    [ "$(blas_value one_thread_per_call "$SCRATCH/blas.out")" = yes ] || fail "--blas: $(cat "$SCRATCH/blas.out")"
    check_float "$(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") <= 1.1" ||
        fail "accepted with $(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") threads measured"
}

# expect_library PROGRAM DIR ENV...: the BLAS the program loads (under ENV)
# is the one in DIR (its RUNPATH wins over the system's alternatives), and
# --blas (the last expect_one_thread) named it.
expect_library() {
    local prog=$1 dir=$2 library loaded
    shift 2
    library=$(blas_value library "$SCRATCH/blas.out")
    [ "${library#"$dir"/}" != "$library" ] || fail "$prog runs the BLAS in $library, not in $dir"
    loaded=$(env "$@" ldd "$prog")
    grep -q " => $dir/" <<<"$loaded" || fail "ldd $prog loads nothing from $dir: $loaded"
}
