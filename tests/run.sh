#!/usr/bin/env bash
# Runs every test given on the command line and ends with one summary line:
#   N passed, N failed, N skipped
# A test is an executable (cmocka unit test or end-to-end script). Exit status
# 0 = pass, 77 = skipped (it prints its reason), anything else = fail.
# Environment from the Makefile: BUILD, TOOLS_DIR, MPI_PROFILE, MPIEXEC, SAN,
# PURE_TESTS. A test's full output is shown when it fails or skips; on
# success only its lines starting with "figure:" (measured numbers worth
# reading) are shown.
# The tests named in PURE_TESTS (tests/README.md: no MPI launch, no build, no
# timing) run first, TEST_JOBS (default: the cores) at a time, their lines in
# the order given; then every other test, one at a time with the machine to
# itself.
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
# (tests/repo/tests_registered.sh reads it)
export PURE_TESTS="${PURE_TESTS:-}"

logdir=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_tests.XXXXXX")
# python3 resolved once, the interpreter PATH names now: a version
# manager's shim (pyenv's runs a dozen shell scripts) costs about a tenth of a
# second a call, and the tests call the Python tools hundreds of times.
# A directory of its own, so that nothing else of the interpreter's
# directory (/usr/bin's mpicc, say) comes before the user's PATH.
if python=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$python" ]; then
    mkdir -p "$logdir/python" && ln -s "$python" "$logdir/python/python3" && PATH="$logdir/python:$PATH"
fi
passed=0 failed=0 skipped=0
failed_names=()

name_of() { echo "${1#"$BENCH_NBC_ROOT"/}"; }
log_of() { echo "$logdir/$(name_of "$1" | tr '/' '_').log"; }

# run_one TEST: runs it, its output into its log, then "STATUS SECONDS" into
# the log's .done file (written last: its presence means the test ended).
run_one() {
    local log start status
    log=$(log_of "$1")
    start=$EPOCHREALTIME
    "$1" >"$log" 2>&1 </dev/null
    status=$?
    awk -v s="$status" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d %.1f\n", s, b - a }' \
        >"$log.tmp" && mv "$log.tmp" "$log.done"
}

# report TEST: its line (and on a failure or skip, its reason and output).
report() {
    local name log status secs reason
    name=$(name_of "$1")
    log=$(log_of "$1")
    read -r status secs <"$log.done" || { status=1 secs=0; }
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
}

pure=() alone=()
for test in "$@"; do
    case " $PURE_TESTS " in
    *" $(name_of "$test") "*) pure+=("$test") ;;
    *) alone+=("$test") ;;
    esac
done

# The pure tests, up to TEST_JOBS at once; each line as soon as it and every
# test before it have ended.
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
shown=0
show_ended() {
    while [ "$shown" -lt "${#pure[@]}" ] && [ -e "$(log_of "${pure[$shown]}").done" ]; do
        report "${pure[$shown]}"
        shown=$((shown + 1))
    done
}
for test in "${pure[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
        show_ended
    done
    run_one "$test" &
done
wait
show_ended

for test in "${alone[@]}"; do
    run_one "$test"
    report "$test"
done
rm -rf "$logdir"
[ $failed -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
