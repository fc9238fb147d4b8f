#!/usr/bin/env bash
# The BLAS-thread check: compute_ref refuses (exit 2, with the reason) to run
# when OpenBLAS would use several threads per dgemm, and runs with the serial
# build. The threaded libopenblas.so.0 of libopenblas0-pthread replaces the
# serial one at run time through LD_LIBRARY_PATH (compute_ref has a RUNPATH).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
set -eo pipefail
prog=$BENCH_NBC_ROOT/$BUILD/compute_ref
[ -x "$prog" ] || fail "compute_ref not built: $prog"
threaded_dir=/usr/lib/$(gcc -print-multiarch)/openblas-pthread
[ -e "$threaded_dir/libopenblas.so.0" ] ||
    skip "no threaded OpenBLAS in $threaded_dir (Debian package libopenblas0-pthread)"
make_scratch
work=$SCRATCH

# The threaded library really is the one loaded with this environment.
LD_LIBRARY_PATH=$threaded_dir ldd "$prog" | grep -q "$threaded_dir/libopenblas.so.0" ||
    fail "LD_LIBRARY_PATH does not swap in $threaded_dir/libopenblas.so.0"

# Serial (as linked): accepted.
"$prog" --sizes 16 --reps 1 >"$work/serial.csv" || fail "refused the serial OpenBLAS (exit $?)"
[ "$(wc -l <"$work/serial.csv")" = 2 ] || fail "serial run wrote: $(cat "$work/serial.csv")"

# Threaded, two threads per call: refused with the reason, exit 2, no CSV.
status=0
LD_LIBRARY_PATH=$threaded_dir OPENBLAS_NUM_THREADS=2 \
    "$prog" --sizes 16 --reps 1 >"$work/threaded.csv" 2>"$work/threaded.err" || status=$?
[ "$status" = 2 ] || fail "threaded OpenBLAS: exit status $status, expected 2"
grep -q 'refusing to run: OpenBLAS runs 2 threads per call (pthreads build' "$work/threaded.err" ||
    fail "threaded OpenBLAS: message '$(cat "$work/threaded.err")'"
[ ! -s "$work/threaded.csv" ] || fail "threaded OpenBLAS: wrote $(cat "$work/threaded.csv")"

# Threaded build held to one thread per call: as good as serial, accepted.
LD_LIBRARY_PATH=$threaded_dir OPENBLAS_NUM_THREADS=1 \
    "$prog" --sizes 16 --reps 1 >"$work/one.csv" || fail "refused OPENBLAS_NUM_THREADS=1 (exit $?)"
[ "$(wc -l <"$work/one.csv")" = 2 ] || fail "OPENBLAS_NUM_THREADS=1 run wrote: $(cat "$work/one.csv")"
echo "blas check: all checks passed"
