#!/usr/bin/env bash
# Runs every test given on the command line and ends with one summary line:
#   N passed, N failed, N skipped
# A test is an executable (cmocka unit test or end-to-end script). Exit status
# 0 = pass, 77 = skipped (it prints its reason), anything else = fail.
# Environment from the Makefile: BUILD, TOOLS_DIR, MPI_PROFILE, MPIEXEC, SAN.
# A test's full output is shown when it fails or skips; on success only its
# lines starting with "figure:" (measured numbers worth reading) are shown.
set -u

here=$(cd "$(dirname "$0")" && pwd)
export BENCH_NBC_ROOT
BENCH_NBC_ROOT=$(cd "$here/.." && pwd)
if [ -n "${SAN:-}" ]; then
    # MPI libraries keep allocations until exit; the suite's own leaks still show.
    export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
    # fast_unwind_on_malloc=0: MPICH frames lack frame pointers, and without
    # full stacks the suppressions above cannot match its allocations.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_tests.XXXXXX")
passed=0 failed=0 skipped=0
failed_names=()
for test in "$@"; do
    name=${test#"$BENCH_NBC_ROOT"/}
    log="$logdir/$(echo "$name" | tr '/' '_').log"
    start=$EPOCHREALTIME
    "$test" >"$log" 2>&1 </dev/null
    status=$?
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    case $status in
    0)
        passed=$((passed + 1))
        echo "PASS $name (${secs} s)"
        grep -E '^figure:' "$log" | sed 's/^/     /'
        ;;
    77)
        skipped=$((skipped + 1))
        echo "SKIP $name: $(grep -E '^skip:' "$log" | head -n 1 | sed 's/^skip: *//')"
        ;;
    *)
        failed=$((failed + 1))
        failed_names+=("$name")
        # The reason first: a long output is often read only in part.
        reason=$(grep -m 1 -E '^FAILED:' "$log" | cut -c 1-400)
        echo "FAIL $name (status $status, ${secs} s)${reason:+: ${reason#FAILED: }}"
        echo "    its output:"
        sed 's/^/    | /' "$log"
        ;;
    esac
done
rm -rf "$logdir"
[ $failed -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
