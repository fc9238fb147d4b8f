#!/usr/bin/env bash
# Every test script under tests/ is in a module.mk's test list, so `make
# check` runs it (a script sourced by others is named lib*.sh or *_lib.sh).
# A planted script in a scratch tree shows the check finds one missing.
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
figure "every test script under tests/ is listed in a module.mk; a planted one is found"
