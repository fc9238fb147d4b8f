# shellcheck shell=bash
# Helpers for the driver's tests (sourced after tests/lib.sh).
BENCH=$BUILD/bench_nbc
[ -x "$BENCH" ] || fail "$BENCH is not built"

# Settings that keep a test run short: small clock calibration and few runs
# per calibration point. Tests add their grid and collective.
# shellcheck disable=SC2034 # used by the scripts that source this file
QUICK=(--set clocksync.roundtrips=200 --set clocksync.drift_gap_s=0.2s
       --set calibration.runs_per_point=3)

# run_folder OUTPUT: the run folder bench_nbc announced on stdout.
run_folder() { sed -n 's/^bench_nbc: run folder //p' <<<"$1" | head -n 1; }

# meta_value FOLDER KEY: a top-level scalar of meta.json (the driver writes
# one key per line).
meta_value() { sed -n "s/^  \"$2\":\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1/meta.json" | head -n 1; }

# check_raw FOLDER ROWS: raw.csv has its header, ROWS data rows of 14
# fields, and t1 <= t2 <= t3 <= t4 on every row.
check_raw() {
    local raw=$1/raw.csv
    [ -f "$raw" ] || fail "no raw.csv in $1"
    head -n 1 "$raw" | grep -q '^cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,t1_ns,t2_ns,t3_ns,t4_ns,retries$' ||
        fail "raw.csv header: $(head -n 1 "$raw")"
    local rows
    rows=$(($(wc -l <"$raw") - 1))
    [ "$rows" -eq "$2" ] || fail "raw.csv has $rows rows, expected $2"
    awk -F, 'NR > 1 && (NF != 14 || $10 > $11 || $11 > $12 || $12 > $13) { print "bad row " NR ": " $0; bad = 1 }
             END { exit bad }' "$raw" || fail "raw.csv rows out of order in $1"
}

# no_leftovers: no bench_nbc process of this test's results folder remains.
no_leftovers() {
    sleep 0.5
    if pgrep -f "bench_nbc.*$1" >/dev/null; then
        pgrep -af "bench_nbc.*$1"
        fail "bench_nbc processes left behind"
    fi
}
