#!/usr/bin/env bash
# nbc-analyze on bad input: each case exits with status 2 and one message
# naming the file and the line (or key or option); nothing crashes. A missing
# compute_ref.csv is not an error: said on stderr, impact outputs skipped.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
[ -x "$analyze" ] || fail "$analyze is not built"
make_scratch

# expect_bad NAME PATTERN ARGS...: exit status 2 and PATTERN in the message
expect_bad() {
    local name=$1 pattern=$2 status
    shift 2
    "$analyze" --no-plots -q "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$name: exit status $status, expected 2 ($(cat "$SCRATCH/err"))"
    grep -q -- "$pattern" "$SCRATCH/err" || fail "$name: message lacks '$pattern': $(cat "$SCRATCH/err")"
    echo "$name: $(head -n 1 "$SCRATCH/err")"
}

# fresh_run NAME: a copy of the example run to damage
fresh_run() {
    cp -r tests/data/example_run "$SCRATCH/$1"
    echo "$SCRATCH/$1"
}

run=$(fresh_run short_line)
sed -i '5s/,[^,]*,[^,]*$//' "$run/raw.csv"
expect_bad "a line with two fields missing" "raw.csv:5: 19 fields where the header has 21" "$run"

run=$(fresh_run not_a_number)
sed -i '10s/^\(\([^,]*,\)\{14\}\)[0-9]*/\1 12x/' "$run/raw.csv"
expect_bad "a non-numeric time" "raw.csv:10: column 15 (t2_ns): ' 12x' is not an integer" "$run"

run=$(fresh_run bad_kind)
sed -i '7s/comm_ref/overlapped/;7s/comp_ref/overlapped/;7s/,overlap,/,overlapped,/' "$run/raw.csv"
expect_bad "an unknown kind" "raw.csv:7: column 9 (kind)" "$run"

run=$(fresh_run older_raw)
sed -i '1s/.*/cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,t1_ns,t2_ns,t3_ns,t4_ns,retries/' "$run/raw.csv"
expect_bad "the raw.csv of an older bench_nbc" "raw.csv:1: the header has no column 'block': the file was written by an older bench_nbc" "$run"

run=$(fresh_run older_passive)
sed -i '1s/,phase,warmup_steps//' "$run/passive.csv"
expect_bad "the passive.csv of an older bench_nbc" "passive.csv:1: the header has no column 'phase'" "$run"

run=$(fresh_run empty)
: >"$run/raw.csv"
expect_bad "an empty raw.csv" "raw.csv:1: no header line" "$run"

run=$(fresh_run garbage)
head -c 3000 /dev/urandom >>"$run/raw.csv"
"$analyze" --no-plots -q "$run" >/dev/null 2>&1
status=$?
[ "$status" -eq 2 ] || fail "random bytes appended: exit status $status, expected 2"

run=$(fresh_run no_raw)
rm "$run/raw.csv"
expect_bad "no raw.csv" "raw.csv: no such file" "$run"
expect_bad "no such folder" "not a run folder" "$SCRATCH/does-not-exist"

run=$(fresh_run bad_meta)
echo '{"ranks": 2,' >"$run/meta.json"
expect_bad "truncated meta.json" "meta.json: not valid JSON" "$run"
echo '{"ranks": "two"}' >"$run/meta.json"
expect_bad "meta.json with a string for ranks" "key 'ranks'" "$run"

run=$(fresh_run bad_calib)
sed -i '2s/,1$/,yes/' "$run/calib_comm.csv"
expect_bad "calib_comm.csv with a non-numeric flag" "calib_comm.csv:2: column 6 (converged)" "$run"

run=$(fresh_run option)
expect_bad "a bad --overhead-max" "--overhead-max: '0.5' is not allowed" --overhead-max=0.5 "$run"
expect_bad "a bad --late-tolerance" "--late-tolerance: '-0.1' is not allowed (a number from 0 to 1" --late-tolerance=-0.1 "$run"
expect_bad "an --ecdf cell that is not a number" "--ecdf: 'x' is not allowed" --ecdf=1,x "$run"
expect_bad "an --ecdf cell without blocks" "--ecdf: cell 999 has no usable block" --ecdf=999 "$run"
expect_bad "a negative --seed" "--seed: '-1' is not allowed" --seed=-1 "$run"
expect_bad "too few --resamples" "--resamples: '10' is not allowed (an integer from 200" --resamples=10 "$run"
sed -i '/barrier_precision_ns/d' "$run/meta.json"
expect_bad "--late-tolerance without the barrier's precision" "needs meta.json's key 'barrier_precision_ns'" --late-tolerance=0.02 "$run"

# a missing compute_ref.csv: said, impact skipped, everything else written
run=$(fresh_run no_compute_ref)
rm "$run/compute_ref.csv"
"$analyze" --no-plots -q "$run" 2>"$SCRATCH/err" || fail "no compute_ref.csv should not fail: $(cat "$SCRATCH/err")"
grep -q "compute_ref.csv is missing" "$SCRATCH/err" || fail "missing compute_ref.csv not reported"
[ -s "$run/cells.csv" ] || fail "no cells.csv without compute_ref.csv"
[ ! -e "$run/impact.csv" ] || fail "an impact.csv without compute_ref.csv"
[ ! -e "$run/plots/impact.gp" ] || fail "an impact figure without compute_ref.csv"
figure "bad input: 19 malformed inputs rejected with exit status 2"
