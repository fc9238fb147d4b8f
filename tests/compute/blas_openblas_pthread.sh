#!/usr/bin/env bash
# OpenBLAS's pthreads build (libopenblas-pthread-dev), asked for 2 threads per
# call (OPENBLAS_NUM_THREADS=2), built into folders of its own:
# - linked as `openblas` (make BLAS=openblas-pthread), its descriptor calls
#   openblas_set_num_threads(1) and the measurement confirms one thread: runs;
# - linked as `generic` (explicit BLAS_CFLAGS/BLAS_LIBS), nothing limits it
#   and the measurement catches the second thread: compute_ref refuses, exit 2.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
make_scratch
lib_dir=/usr/lib/$MULTIARCH/openblas-pthread
need_package "$lib_dir/libopenblas.so" libopenblas-pthread-dev

# As `openblas`: held to one thread per call, and the RUNPATH keeps this build
# whatever the system's libopenblas.so.0 alternative points to.
build_compute_ref openblas-pthread BLAS=openblas-pthread
expect_one_thread "$REF" OPENBLAS_NUM_THREADS=2
[ "$(blas_value name "$SCRATCH/blas.out")" = openblas ] || fail "--blas: $(cat "$SCRATCH/blas.out")"
threading=$(blas_value threading "$SCRATCH/blas.out")
[[ "$threading" == "pthreads build, openblas_set_num_threads(1) (openblas_get_num_threads() 2 -> 1)" ]] ||
    fail "threading '$threading'"
expect_library "$REF" "$lib_dir"
figure "openblas-pthread, OPENBLAS_NUM_THREADS=2, held to one: $(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") threads measured in $(blas_value windows "$SCRATCH/blas.out") windows"
OPENBLAS_NUM_THREADS=2 "$REF" --sizes 64 --reps 2 >"$SCRATCH/held.csv" 2>"$SCRATCH/held.err" ||
    fail "refused: $(cat "$SCRATCH/held.err")"
[ "$(wc -l <"$SCRATCH/held.csv")" = 3 ] || fail "wrote: $(cat "$SCRATCH/held.csv")"

# As `generic`: measured only, and caught.
build_compute_ref generic-openblas-pthread BLAS=generic \
    BLAS_CFLAGS="-isystem /usr/include/$MULTIARCH/openblas-pthread" \
    BLAS_LIBS="-L$lib_dir -lopenblas -Wl,-rpath,$lib_dir"
status=0
OPENBLAS_NUM_THREADS=2 "$REF" --blas >"$SCRATCH/generic.out" 2>"$SCRATCH/generic.err" || status=$?
[ "$status" = 2 ] || fail "generic, 2 threads: --blas exit status $status, expected 2: $(cat "$SCRATCH/generic.err")"
[ "$(blas_value one_thread_per_call "$SCRATCH/generic.out")" = no ] || fail "--blas: $(cat "$SCRATCH/generic.out")"
measured=$(blas_value cpu_per_caller_cpu "$SCRATCH/generic.out")
check_float "$measured > 1.1" || fail "refused with $measured threads measured"
grep -q "refusing to run: BLAS generic (.*) runs about .* threads per dgemm: .* Fix: " "$SCRATCH/generic.err" ||
    fail "message: $(cat "$SCRATCH/generic.err")"
figure "generic over openblas-pthread, OPENBLAS_NUM_THREADS=2: refused, $measured threads measured in $(blas_value windows "$SCRATCH/generic.out") windows"
status=0
OPENBLAS_NUM_THREADS=2 "$REF" --sizes 64 --reps 1 >"$SCRATCH/generic.csv" 2>"$SCRATCH/generic.err" || status=$?
[ "$status" = 2 ] || fail "generic, 2 threads: exit status $status, expected 2"
[ ! -s "$SCRATCH/generic.csv" ] || fail "generic, 2 threads: wrote $(cat "$SCRATCH/generic.csv")"
# The same library held to one thread by its environment: accepted.
expect_one_thread "$REF" OPENBLAS_NUM_THREADS=1
echo "openblas-pthread: all checks passed"
