#!/usr/bin/env bash
# The command line every tool shares (cli/cli.h, nbc_tools/cli.py): --version
# prints "TOOL VERSION (revision REV)" and exits 0; --help lists every exit
# status of cli/exit_status.def; an unknown option is bad input (2); the
# Python tools read the same table as the C ones; README lists it. Statuses
# 1 and 5 are provoked here too; 3 (tests/run/resume_study.sh,
# launcher_watch.sh) and 4 (tests/driver/e2e_watchdog.sh) where their causes are.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch

version=$(cat VERSION)
mapfile -t statuses < <(sed -nE 's/^EXIT_STATUS\(([0-9]+), ([A-Z_]+), "([^"]*)", "([^"]*)"\)$/\1 \3/p' \
    cli/exit_status.def)
[ ${#statuses[@]} -ge 6 ] || fail "cli/exit_status.def: ${#statuses[@]} statuses read"

# TOOL COMMAND...: the tool's --version, --help and a bad option.
check_tool() {
    local tool=$1 out status line code word
    shift
    out=$("$@" --version 2>&1) || fail "$tool --version: status $?: $out"
    line=$(head -n 1 <<<"$out")
    grep -qE "^$tool $version \(revision [^ ]+\)$" <<<"$line" ||
        fail "$tool --version: '$line' is not '$tool $version (revision REV)'"
    out=$("$@" --help 2>&1) || fail "$tool --help: status $?"
    for line in "${statuses[@]}"; do
        code=${line%% *} word=${line#* }
        grep -qE "^  $code  $word " <<<"$out" || fail "$tool --help does not list exit status $code $word"
    done
    "$@" --no-such-option >"$SCRATCH/bad.out" 2>&1
    status=$?
    [ $status -eq 2 ] || fail "$tool --no-such-option: status $status, expected 2: $(cat "$SCRATCH/bad.out")"
}

check_tool bench_nbc "$BUILD/bench_nbc"
check_tool compute_ref "$BUILD/compute_ref"
check_tool clocksync_check "$BUILD/clocksync_check"
for tool in nbc-analyze nbc-compare nbc-trace nbc-report nbc-verdict nbc-fingerprint nbc-profile schema_doc; do
    check_tool $tool "$TOOLS_DIR/$tool"
done
check_tool nbc-run ./nbc-run
"$BUILD/bench_nbc" --version | grep -qE '^MPI library: .+' || fail "bench_nbc --version names no MPI library"
"$BUILD/bench_nbc" --version | grep -qE '^BLAS: .+' || fail "bench_nbc --version names no BLAS"

# The Python tools' table is the file's.
python3 - "$BENCH_NBC_ROOT" <<'PY' || fail "nbc_tools/cli.py disagrees with cli/exit_status.def"
import sys
sys.path.insert(0, sys.argv[1])
from nbc_tools import cli
table = cli.exit_statuses()
assert [code for code, *_ in table] == list(range(len(table))), table
for code, name, word, _ in table:
    assert getattr(cli.ExitStatus, name) == code, name
assert cli.ExitStatus.BAD_INPUT == 2 and cli.ExitStatus.NO_VALID_CELL == 5
PY
for line in "${statuses[@]}"; do
    grep -qE "^  \| ${line%% *} \| " README.md || fail "README.md does not list exit status ${line%% *}"
done

# 1: a failure at run time (a file that cannot be written, even by root).
run=tests/data/example_run
"$TOOLS_DIR/nbc-trace" "$run" 0 -o /proc/bench_nbc_no_such_file >"$SCRATCH/trace.out" 2>&1
status=$?
[ $status -eq 1 ] || fail "nbc-trace into /proc: status $status, expected 1: $(cat "$SCRATCH/trace.out")"
# 5: nbc-analyze on a run whose every cell is invalid (message sizes that
# stuck to 0 bytes: the paper's failed calibration).
cp -R "$run" "$SCRATCH/run"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 { $c["bytes"] = 0 } { print }' \
    "$run/calib_comm.csv" >"$SCRATCH/run/calib_comm.csv"
"$TOOLS_DIR/nbc-analyze" --no-plots -q "$SCRATCH/run" >"$SCRATCH/analyze.out" 2>&1
status=$?
[ $status -eq 5 ] || fail "nbc-analyze, no valid cell: status $status, expected 5: $(cat "$SCRATCH/analyze.out")"
figure "cli: 10 tools answer --version, list the ${#statuses[@]} exit statuses in --help, refuse an unknown option with 2; statuses 1 and 5 provoked"
