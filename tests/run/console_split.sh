#!/usr/bin/env bash
# nbc-run's console and a run's log (nbc_run/process.py), on a stand-in for
# bench_nbc that writes its record on standard output (its run folder line,
# before the folder is known) and a long line for the reader on standard
# error: the console shows the reader's line alone, wrapped at 100 columns,
# no command echoed; the run's nbc-run.log holds the command first, then
# both lines; with --verbose the console shows the command and the record
# too. No MPI.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
cat >"$SCRATCH/fake_bench" <<'FAKE'
#!/bin/sh
mkdir -p "$2" && echo "bench_nbc: run folder $2"
echo "$2" >"$1"
sleep 0.5 # (nbc-run learns the folder while the command runs)
printf 'bench_nbc: warning: %s\n' "$(printf 'word%.0s ' $(seq 1 40))" >&2
FAKE
chmod +x "$SCRATCH/fake_bench"
cat >"$SCRATCH/check.py" <<'PY'
import os, sys
root, scratch, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
sys.path[:0] = [root, os.path.join(root, "cli")]
from nbc_run.launch import shown
from nbc_run.process import Processes

p = Processes(False, verbose)
run_dir = os.path.join(scratch, "run" + sys.argv[3])
cmd = [os.path.join(scratch, "fake_bench"), os.path.join(scratch, "path" + sys.argv[3]), run_dir]
p.announce(cmd)
status = p.run(cmd, run_dir_file=cmd[1],
               on_run_dir=lambda d: p.set_log(os.path.join(d, "nbc-run.log"), shown(cmd)))
sys.exit(status)
PY
for verbose in 0 1; do
    python3 "$SCRATCH/check.py" "$BENCH_NBC_ROOT" "$SCRATCH" $verbose 2>"$SCRATCH/console.$verbose" ||
        fail "the stand-in's run failed: $(cat "$SCRATCH/console.$verbose")"
done
log=$SCRATCH/run0/nbc-run.log
head -n 1 "$log" | grep -q "^+ .*fake_bench " || fail "the log does not begin with the command: $(cat "$log")"
grep -q "^bench_nbc: run folder $SCRATCH/run0$" "$log" || fail "the record is not in the log: $(cat "$log")"
[ "$(grep "^bench_nbc: warning: " "$log" | grep -o word | wc -l)" -eq 40 ] || fail "the reader's line is not whole in the log: $(cat "$log")"
console=$(cat "$SCRATCH/console.0")
! grep -q '^+ \|run folder' <<<"$console" || fail "the console shows the command or the record: $console"
grep -q "^bench_nbc: warning: word word" <<<"$console" || fail "the console lacks the reader's line: $console"
[ "$(wc -l <<<"$console")" -ge 2 ] || fail "the long line is not wrapped: $console"
awk 'length($0) > 100 { exit 1 }' <<<"$console" || fail "a console line over 100 columns: $console"
grep -q '^+ .*fake_bench ' "$SCRATCH/console.1" || fail "--verbose: no command on the console: $(cat "$SCRATCH/console.1")"
grep -q "^bench_nbc: run folder $SCRATCH/run1$" "$SCRATCH/console.1" ||
    fail "--verbose: no record on the console: $(cat "$SCRATCH/console.1")"
figure "console and log: the record and the command in the log alone (--verbose: on the console too), a long line wrapped at 100 columns"
