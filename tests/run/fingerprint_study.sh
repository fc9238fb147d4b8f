#!/usr/bin/env bash
# nbc-run --fingerprint end to end on a tiny grid (1 x 2 cells, 2
# repetitions, one MPI_Test period of 1000 us) with this build's library:
# every deployment its profile allows on 2 ranks and the polling run, the
# others skipped with the reason; then nbc-fingerprint's fingerprint.csv,
# .svg and .html in the study folder and its verdict line on stdout.
# check_fingerprint.py reads the table against the runs' cells.csv and
# sweep.csv (the chunks of each polled cell follow its computation time)
# and study.json's skipped ways. A library without a progress thread
# (Open MPI) is listed with its profile's reason.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
[ -x "$TOOLS_DIR/nbc-fingerprint" ] || fail "$TOOLS_DIR/nbc-fingerprint is not built"
make_scratch
cd "$BENCH_NBC_ROOT" || fail "no repository at $BENCH_NBC_ROOT"
cat >"$SCRATCH/fingerprint.conf" <<CONF
[study]
config = $BENCH_NBC_ROOT/configs/default.conf
collectives = ibcast
fingerprint = 1000
CONF
tiny_args 1ms,4ms,4 2 --fingerprint --ranks 2 --set grid.comp_times=2ms
study_args[0]=$SCRATCH/fingerprint.conf
start=$EPOCHREALTIME
out=$(timeout -k 5 "${MPI_TIMEOUT_S:-240}" ./nbc-run "${study_args[@]}" 2>"$SCRATCH/stderr")
status=$?
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
echo "$out"
[ $status -eq 0 ] || fail "nbc-run --fingerprint: status $status; its stderr: $(tail -20 "$SCRATCH/stderr")"
study_dir=$(dirname "$(sed -n 's/^study: //p' <<<"$out")")
for f in fingerprint.csv fingerprint.svg fingerprint.html; do
    [ -s "$study_dir/$f" ] || fail "$study_dir/$f is missing or empty"
    grep -qx "fingerprint: $study_dir/$f" <<<"$out" || fail "$f is not listed at the end"
done
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$study_dir/fingerprint.svg" ||
    fail "fingerprint.svg is not well-formed XML"
checked=$(python3 tests/run/check_fingerprint.py "$study_dir") || fail "$checked"
echo "$checked"
# The verdict line: the library as meta.json names it, then its ways.
run_dir=$(jq -r '.runs[0].run_dir' "$study_dir/study.json")
library="$(jq -r '.mpi_library.display_name + " " + .mpi_library.version' "$run_dir/meta.json")"
grep -q "^$library, ibcast: .*progressed (confirmed): no help (basic) [0-9]* of [0-9]* valid cells" <<<"$out" ||
    fail "no verdict line for $library with the counts of its ways"
skipped=$(jq -r '.skipped | length' "$study_dir/study.json")
if [ "$(jq -r '.mpi_library.profile' "$run_dir/meta.json")" = openmpi ]; then
    grep -q ",openmpi,ibcast,progress,.*,skipped,.*Open MPI has no asynchronous progress thread" "$study_dir/fingerprint.csv" ||
        fail "Open MPI's missing progress thread is not listed with its reason: $(cat "$study_dir/fingerprint.csv")"
fi
figure "fingerprint of $library: $(jq -r '[.runs[].name] | join(", ")' "$study_dir/study.json") in $secs s; $skipped way(s) skipped with the reason"
