#!/usr/bin/env bash
# `make run`'s first screen is the study's, not the install's or the
# build's: its first step (make run-build) prints one line and sends
# apt-get's and the compilers' output to build/make-run.log. On a copy of
# the checkout and of its build with one source newer than its object, so
# that a compiler line is there to be hidden (and is found in the log).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
copy=$SCRATCH/checkout
mkdir -p "$copy"
tar -C "$BENCH_NBC_ROOT" --exclude=./results --exclude=./.git -cf - . | tar -C "$copy" -xf - ||
    fail "cannot copy the checkout"
rm -f "$copy/build/make-run.log"
touch "$copy/analysis/figures/plot_meta.c"
# The build's own wrapper (mpi-build.ini), so that the copy's build is
# this one's with one object to make again, not another wrapper's whole build.
wrapper=$(sed -n 's/^wrapper *= *//p' "$BUILD/mpi-build.ini" | head -n 1)
[ -n "$wrapper" ] || fail "$BUILD/mpi-build.ini names no wrapper"
status=0
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MPI -u MPICC -u MPIEXEC -u MPI_PROFILE -u BUILD -u TOOLS_DIR \
    make --no-print-directory -C "$copy" MPICC="$wrapper" SAN="${SAN:-}" run-build 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "make run-build failed ($status): $out"
[ "$out" = "make run: installing what is missing and building (output in build/make-run.log)" ] ||
    fail "make run-build printed more than its one line: $out"
grep -q 'analysis/figures/plot_meta\.c' "$copy/build/make-run.log" ||
    fail "the compiler's line is not in build/make-run.log: $(head -n 20 "$copy/build/make-run.log")"
echo "make run's install and build step: one line, the build's $(wc -l <"$copy/build/make-run.log") in the log"
