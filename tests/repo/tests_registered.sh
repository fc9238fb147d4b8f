#!/usr/bin/env bash
# Every test script under tests/ is in a module.mk's test list, so `make
# check` runs it (a script sourced by others is named lib*.sh or *_lib.sh).
# A planted script in a scratch tree shows the check finds one missing.
# Every pure test (PURE_TESTS, tests/README.md) exists, and no pure script
# launches ranks through the helpers of tests/lib.sh or the build's launcher;
# a planted one that does is found.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
# unlisted ROOT: the test scripts of ROOT/tests no module.mk names.
unlisted() {
    local root=$1 script
    for script in "$root"/tests/*/*.sh; do
        case $(basename "$script") in lib*.sh | *_lib.sh) continue ;; esac
        grep -qF -- "tests/${script#"$root"/tests/}" "$root"/tests/*/module.mk || echo "${script#"$root"/}"
    done
}
missing=$(unlisted .)
[ -z "$missing" ] || fail "test scripts make check never runs (add them to their folder's module.mk):"$'\n'"$missing"
mkdir -p "$SCRATCH/tests/x"
printf 'E2E_TESTS += tests/x/listed.sh\n' >"$SCRATCH/tests/x/module.mk"
touch "$SCRATCH/tests/x/listed.sh" "$SCRATCH/tests/x/planted.sh" "$SCRATCH/tests/x/lib_x.sh"
[ "$(unlisted "$SCRATCH")" = tests/x/planted.sh ] || fail "the planted unlisted script is not found: $(unlisted "$SCRATCH")"

# launching FILE...: the scripts among FILE that launch ranks or build with
# another library (tests/lib.sh's helpers, the launcher's variable).
launching() { grep -lE '\<(mpi_launch|launch_watched|use_mpi)\>|\$\{?MPIEXEC\>' "$@"; }
pure_list=${PURE_TESTS:-$(clean_make print-pure-tests)} || fail "make print-pure-tests failed"
read -r -a pure <<<"$pure_list"
[ ${#pure[@]} -gt 10 ] || fail "PURE_TESTS names ${#pure[@]} tests: ${pure[*]}"
pure_scripts=()
for test in "${pure[@]}"; do
    case $test in
    tests/repo/tests_registered.sh) ;; # (names the helpers it looks for)
    tests/*) [ -f "$test" ] || fail "PURE_TESTS names $test, which does not exist"; pure_scripts+=("$test") ;;
    "$BUILD"/*) ;;
    *) fail "PURE_TESTS names $test, neither a script under tests/ nor a unit test of $BUILD" ;;
    esac
done
bad=$(launching "${pure_scripts[@]}")
[ -z "$bad" ] || fail "tests in PURE_TESTS that launch ranks (they must run alone):"$'\n'"$bad"
printf 'x=1\n' >"$SCRATCH/tests/x/quiet.sh"
# shellcheck disable=SC2016 # the planted script's text
echo 'out=$(mpi_launch -n 2 bench)' >"$SCRATCH/tests/x/launches.sh"
[ "$(launching "$SCRATCH"/tests/x/quiet.sh "$SCRATCH"/tests/x/launches.sh)" = "$SCRATCH/tests/x/launches.sh" ] ||
    fail "the planted pure script that launches ranks is not found"
figure "every test script under tests/ is listed in a module.mk; a planted one is found;" \
    "${#pure[@]} pure tests, none launching ranks"
