#!/usr/bin/env bash
# The netlib reference CBLAS (libblas-dev: symbols in
# /usr/lib/<multiarch>/blas/libblas.so, header cblas-netlib.h): make
# BLAS=generic builds compute_ref against it; with no threading API it is
# known to run one thread per call by measurement only, and runs.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
make_scratch
lib_dir=/usr/lib/$MULTIARCH/blas
need_package "$lib_dir/libblas.so" libblas-dev

build_compute_ref generic BLAS=generic
expect_one_thread "$REF"
[ "$(blas_value name "$SCRATCH/blas.out")" = generic ] || fail "--blas: $(cat "$SCRATCH/blas.out")"
[ "$(blas_value threads_reported "$SCRATCH/blas.out")" = 0 ] || fail "--blas: $(cat "$SCRATCH/blas.out")"
expect_library "$REF" "$lib_dir"
# (a row per step: header + 2)
"$REF" --sizes 64 --reps 2 >"$SCRATCH/netlib.csv" 2>"$SCRATCH/netlib.err" || fail "refused: $(cat "$SCRATCH/netlib.err")"
[ "$(wc -l <"$SCRATCH/netlib.csv")" = 3 ] || fail "wrote: $(cat "$SCRATCH/netlib.csv")"
figure "netlib CBLAS: $(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") threads measured," \
    "n=64 at $(tail -n 1 "$SCRATCH/netlib.csv" | cut -d, -f11) GFLOP/s per thread"
echo "netlib: all checks passed"
