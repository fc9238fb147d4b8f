#!/usr/bin/env bash
# The repository's own hygiene: every shell script passes shellcheck, nbc-run,
# its package nbc_run/ and the analysis tools' nbc_tools/ (Python) parse (and
# pass pyflakes when it is installed), and every C file
# is formatted with the repository's .clang-format.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v shellcheck >/dev/null || skip "shellcheck is not installed (apt-get install shellcheck)"
command -v clang-format >/dev/null || skip "clang-format is not installed (apt-get install clang-format)"
mapfile -t scripts < <(git ls-files '*.sh' .ci/run 2>/dev/null)
[ ${#scripts[@]} -gt 0 ] || fail "no shell scripts found (is this a git checkout?)"
# In batches on every core: shellcheck -x is the longest part of lint.
printf '%s\0' "${scripts[@]}" | xargs -0 -P "$(nproc)" -n 20 shellcheck -x ||
    fail "shellcheck found problems"
mapfile -t runner < <(git ls-files nbc-run 'nbc_run/*.py' 'nbc_tools/*.py')
[ ${#runner[@]} -gt 2 ] || fail "nbc-run or its packages nbc_run/, nbc_tools/ are not in git"
python3 -c 'import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' "${runner[@]}" ||
    fail "nbc-run, nbc_run/ or nbc_tools/ does not parse as Python 3"
python_lint="parses"
if python3 -m pyflakes --version >/dev/null 2>&1; then
    python3 -m pyflakes "${runner[@]}" || fail "pyflakes found problems in nbc-run, nbc_run/ or nbc_tools/"
    python_lint="pyflakes clean"
fi
mapfile -t sources < <(git ls-files '*.c' '*.h')
clang-format --dry-run -Werror "${sources[@]}" || fail "C files not formatted: run 'make format'"
figure "lint: ${#scripts[@]} shell scripts, ${#sources[@]} C files clean; nbc-run and ${#runner[@]} Python files $python_lint"
