# Shared helpers for the end-to-end test scripts (sourced, not run).
# shellcheck shell=bash
# Environment from the Makefile: BUILD, TOOLS_DIR, MPI, MPIEXEC, BENCH_NBC_ROOT.
set -u
: "${BENCH_NBC_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${MPI:=mpich}"
: "${BUILD:=build/$MPI}"
: "${TOOLS_DIR:=build}"
: "${MPIEXEC:=mpiexec.$MPI}"
cd "$BENCH_NBC_ROOT" || exit 1

skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
figure() { echo "figure: $*"; }

# mpi_launch ARGS...: the library's launcher with what it needs here (Open MPI
# refuses root and oversubscription unless told), under a time limit so a
# hang fails the test instead of the CI run.
mpi_launch() {
    local extra=()
    [ "$MPI" = openmpi ] && extra=(--allow-run-as-root --oversubscribe --bind-to none)
    # Under SAN=1, LeakSanitizer's stop-the-world tracer sometimes crashes at
    # the exit of MPI programs (with the transport's threads); their leaks are
    # checked by the valgrind test of the plain build instead.
    if [ -n "${SAN:-}" ]; then
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout -k 5 "${MPI_TIMEOUT_S:-300}" \
            "$MPIEXEC" "${extra[@]}" "$@"
        return
    fi
    timeout -k 5 "${MPI_TIMEOUT_S:-300}" "$MPIEXEC" "${extra[@]}" "$@"
}

# kv KEY TEXT: the value of KEY=value in TEXT (first match).
kv() { grep -o "\b$1=[^ ]*" <<<"$2" | head -n 1 | cut -d= -f2; }

# check_float EXPR: awk-evaluated condition on numbers, e.g. "1.5 < 20".
check_float() { awk "BEGIN { exit !($1) }"; }

# A scratch folder removed at exit.
make_scratch() {
    SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_test.XXXXXX")
    trap 'rm -rf "$SCRATCH"' EXIT
}
