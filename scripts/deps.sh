#!/usr/bin/env bash
# Installs (as root) or names (otherwise) the Debian packages bench_nbc needs.
#
#   scripts/deps.sh [--mpi mpich|openmpi] [--for build|check|fuzz]
#
# --for build: what building and running the suite needs.
# --for check: that, plus what the test suite uses (faketime, the threaded
# OpenBLAS used to prove the BLAS-thread check, Open MPI for cross-library tests,
# valgrind for the memcheck test).
# --for fuzz: build, plus clang and its libFuzzer runtime (`make fuzz`).
# Exit status: 0 when everything is present (or was installed), 1 otherwise.
set -euo pipefail

mpi=mpich
purpose=build
while [ $# -gt 0 ]; do
    case "$1" in
    --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
    --for) purpose=${2:?--for needs a value}; shift 2 ;;
    *) echo "deps.sh: unknown argument '$1' (allowed: --mpi mpich|openmpi, --for build|check|fuzz)" >&2; exit 2 ;;
    esac
done

common=(gcc make pkg-config libopenblas-serial-dev libopenblas0-serial gnuplot-nox
        hwloc libhwloc-dev libcmocka-dev libinih-dev libjson-c-dev)
declare -A mpi_packages=(
    [mpich]="mpich libmpich-dev"
    [openmpi]="openmpi-bin libopenmpi-dev"
)
test_packages=(faketime libopenblas0-pthread iproute2 util-linux shellcheck openmpi-bin libopenmpi-dev
               valgrind)
fuzz_packages=(clang libclang-rt-14-dev)

if [ -z "${mpi_packages[$mpi]+set}" ]; then
    echo "deps.sh: unknown MPI library '$mpi' (allowed: mpich, openmpi)" >&2
    exit 2
fi
case "$purpose" in build | check | fuzz) ;; *)
    echo "deps.sh: unknown --for '$purpose' (allowed: build, check, fuzz)" >&2; exit 2 ;;
esac

# shellcheck disable=SC2206 # the table values are space-separated package lists
wanted=("${common[@]}" ${mpi_packages[$mpi]})
[ "$purpose" = check ] && wanted+=("${test_packages[@]}")
[ "$purpose" = fuzz ] && wanted+=("${fuzz_packages[@]}")

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps.sh: this is not a Debian system; install the equivalents of: ${wanted[*]}" >&2
    exit 1
fi

missing=()
for pkg in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "bench_nbc: missing Debian packages: ${missing[*]}" >&2
    echo "Install them with:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

echo "bench_nbc: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
# A fresh machine may have no package lists yet: update once, then retry.
if ! install; then
    apt-get update -q >&2
    install
fi
