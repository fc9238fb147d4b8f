#!/usr/bin/env bash
# BLIS, serial build (libblis-serial-dev): make BLAS=blis builds compute_ref
# against Debian's /usr/lib/<multiarch>/blis-serial (its cblas.h included with
# -isystem, under -Werror), which names BLIS and its version, reports a serial
# build, measures one thread per call and runs.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
make_scratch
lib_dir=/usr/lib/$MULTIARCH/blis-serial
need_package "$lib_dir/libblis.so" libblis-serial-dev

build_compute_ref blis BLAS=blis
expect_one_thread "$REF" BLIS_NUM_THREADS=2
[ "$(blas_value name "$SCRATCH/blas.out")" = blis ] || fail "--blas: $(cat "$SCRATCH/blas.out")"
[[ "$(blas_value version "$SCRATCH/blas.out")" == "BLIS "[0-9]* ]] || fail "version: $(blas_value version "$SCRATCH/blas.out")"
[ "$(blas_value threading "$SCRATCH/blas.out")" = "serial build (bli_info_get_enable_threading() = 0)" ] ||
    fail "threading: $(blas_value threading "$SCRATCH/blas.out")"
expect_library "$REF" "$lib_dir"
"$REF" --sizes 64,96 --reps 2 >"$SCRATCH/blis.csv" 2>"$SCRATCH/blis.err" || fail "refused: $(cat "$SCRATCH/blis.err")"
[ "$(tail -n +2 "$SCRATCH/blis.csv" | cut -d, -f5 | uniq | tr '\n' ' ')" = "64 96 " ] || fail "wrote: $(cat "$SCRATCH/blis.csv")"
figure "blis: $(blas_value version "$SCRATCH/blas.out"), $(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") threads measured," \
    "n=96 at $(tail -n 1 "$SCRATCH/blis.csv" | cut -d, -f11) GFLOP/s per thread"
echo "blis: all checks passed"
