#!/usr/bin/env bash
# hwloc is optional: built with HWLOC=0, compute_ref loads no libhwloc, says
# its cores come from /sys (core_cpus_list, or thread_siblings_list before
# Linux 5.6) and finds the cores hwloc finds. A made-up /sys
# (COMPUTE_SYSFS_CPU_DIR) where all allowed CPUs share one core gives one
# computing thread; an unreadable or malformed topology is an error.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
make_scratch
hwloc_ref=$BENCH_NBC_ROOT/$BUILD/compute_ref
[ -x "$hwloc_ref" ] || fail "compute_ref not built: $hwloc_ref"

build_compute_ref nohwloc HWLOC=0
if ldd "$REF" | grep -q libhwloc; then fail "HWLOC=0 build loads libhwloc"; fi
"$REF" --blas >"$SCRATCH/blas.out" || fail "--blas refused"
[ "$(blas_value cpu_topology "$SCRATCH/blas.out")" = sysfs ] || fail "--blas: $(cat "$SCRATCH/blas.out")"

# threads_of COMMAND...: the computing threads compute_ref (the command's
# end) chooses: one per allowed core.
threads_of() {
    "$@" --sizes 16 --reps 1 2>"$SCRATCH/err" >"$SCRATCH/out" || fail "$*: $(cat "$SCRATCH/err")"
    tail -n 1 "$SCRATCH/out" | cut -d, -f4
}
allowed=$(taskset -pc $$ | sed 's/.*: //')
mapfile -t cpus < <(tr ',' '\n' <<<"$allowed" | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
from_hwloc=$(threads_of "$hwloc_ref")
from_sysfs=$(threads_of "$REF")
[ "$from_sysfs" = "$from_hwloc" ] || fail "cores: hwloc finds $from_hwloc, sysfs $from_sysfs (CPUs $allowed)"
[ "$(threads_of taskset -c "${cpus[0]}" "$REF")" = 1 ] || fail "one allowed CPU: not one thread"
figure "cores among CPUs $allowed: hwloc $from_hwloc, sysfs $from_sysfs"

[ ${#cpus[@]} -ge 2 ] || skip "one CPU allowed ($allowed): a made-up core of several CPUs cannot be told apart"
# A made-up topology: every allowed CPU a hardware thread of one core; the
# first CPU's file with the current name, the others' with the old one.
fake=$SCRATCH/cpu
one_core=$(IFS=,; echo "${cpus[*]}")
for cpu in "${cpus[@]}"; do
    mkdir -p "$fake/cpu$cpu/topology"
    file=thread_siblings_list
    [ "$cpu" = "${cpus[0]}" ] && file=core_cpus_list
    echo "$one_core" >"$fake/cpu$cpu/topology/$file"
done
[ "$(threads_of env COMPUTE_SYSFS_CPU_DIR="$fake" "$REF")" = 1 ] || fail "one core made up: not one thread"
# hwloc reads the real machine, whatever the variable says.
[ "$(threads_of env COMPUTE_SYSFS_CPU_DIR="$fake" "$hwloc_ref")" = "$from_hwloc" ] || fail "hwloc build read $fake"

# Broken topologies: exit 1, the file named.
echo "0-x" >"$fake/cpu${cpus[0]}/topology/core_cpus_list"
status=0
COMPUTE_SYSFS_CPU_DIR=$fake "$REF" --sizes 16 --reps 1 >/dev/null 2>"$SCRATCH/err" || status=$?
[ "$status" = 1 ] || fail "malformed list: exit status $status"
grep -q "$fake/cpu${cpus[0]}/topology/core_cpus_list is not a CPU list" "$SCRATCH/err" || fail "message: $(cat "$SCRATCH/err")"
rm -r "${fake:?}/cpu${cpus[0]}"
status=0
COMPUTE_SYSFS_CPU_DIR=$fake "$REF" --sizes 16 --reps 1 >/dev/null 2>"$SCRATCH/err" || status=$?
[ "$status" = 1 ] || fail "missing topology: exit status $status"
grep -q "cannot read $fake/cpu${cpus[0]}/topology/core_cpus_list or thread_siblings_list" "$SCRATCH/err" ||
    fail "message: $(cat "$SCRATCH/err")"
echo "topology from sysfs: all checks passed"
