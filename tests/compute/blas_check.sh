#!/usr/bin/env bash
# The BLAS-thread check of the build as it is: compute_ref --blas names its
# BLAS and measures one thread per call. With the OpenBLAS descriptor, the
# threaded libopenblas.so.0 of libopenblas0-pthread swapped in at run time
# (LD_LIBRARY_PATH: compute_ref has a RUNPATH, not an RPATH) and asked for 2
# threads is brought to one thread per call and runs.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
prog=$BENCH_NBC_ROOT/$BUILD/compute_ref
[ -x "$prog" ] || fail "compute_ref not built: $prog"
make_scratch

# As linked: accepted, named, measured.
expect_one_thread "$prog"
name=$(blas_value name "$SCRATCH/blas.out")
if [ -z "$name" ] || [ -z "$(blas_value version "$SCRATCH/blas.out")" ]; then
    fail "--blas names no BLAS: $(cat "$SCRATCH/blas.out")"
fi
figure "blas check: $name ($(blas_value threading "$SCRATCH/blas.out")): $(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") threads measured"
"$prog" --sizes 16 --reps 1 >"$SCRATCH/as_linked.csv" 2>"$SCRATCH/as_linked.err" || fail "refused: $(cat "$SCRATCH/as_linked.err")"
grep -q "^compute_ref: BLAS $name (.*): one thread per call: " "$SCRATCH/as_linked.err" ||
    fail "no BLAS report on stderr: $(cat "$SCRATCH/as_linked.err")"

[ "$name" = openblas ] || skip "the build uses BLAS $name; the run-time swap below needs the OpenBLAS descriptor"
threaded_dir=/usr/lib/$MULTIARCH/openblas-pthread
need_package "$threaded_dir/libopenblas.so.0" libopenblas0-pthread
LD_LIBRARY_PATH=$threaded_dir ldd "$prog" | grep -q "$threaded_dir/libopenblas.so.0" ||
    fail "LD_LIBRARY_PATH does not swap in $threaded_dir/libopenblas.so.0"

# Threaded, two threads asked for: openblas_set_num_threads(1), confirmed.
expect_one_thread "$prog" LD_LIBRARY_PATH="$threaded_dir" OPENBLAS_NUM_THREADS=2
threading=$(blas_value threading "$SCRATCH/blas.out")
[[ "$threading" == "pthreads build, openblas_set_num_threads(1) (openblas_get_num_threads() 2 -> 1)" ]] ||
    fail "threaded OpenBLAS: threading '$threading'"
expect_library "$prog" "$threaded_dir" LD_LIBRARY_PATH="$threaded_dir"
figure "blas check: pthreads OpenBLAS, OPENBLAS_NUM_THREADS=2 held to one: $(blas_value cpu_per_caller_cpu "$SCRATCH/blas.out") threads measured"
LD_LIBRARY_PATH=$threaded_dir OPENBLAS_NUM_THREADS=2 "$prog" --sizes 16 --reps 1 >"$SCRATCH/threaded.csv" \
    2>"$SCRATCH/threaded.err" || fail "threaded OpenBLAS held to one thread was refused: $(cat "$SCRATCH/threaded.err")"
[ "$(wc -l <"$SCRATCH/threaded.csv")" = 2 ] || fail "threaded run wrote: $(cat "$SCRATCH/threaded.csv")"
echo "blas check: all checks passed"
