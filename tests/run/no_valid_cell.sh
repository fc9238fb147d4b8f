#!/usr/bin/env bash
# A study whose runs measure no valid cell: two collectives on a 20 ms cell
# that calibration cannot reach with messages of at most 64 bytes (bench_nbc exits 5: complete, no cell kept;
# nbc-analyze exits 5). nbc-run records each run as `no_valid_cell` with the
# reason (meta.json's counts, nbc-analyze's message), still analyses it (its
# tables), goes on to the next run, compares them, says which runs had no
# valid cell and why at the end, and exits 4.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
command -v jq >/dev/null || skip "reads study.json with jq (apt-get install jq)"
[ -x "$TOOLS_DIR/nbc-analyze" ] || skip "$TOOLS_DIR/nbc-analyze is not built"
make_scratch

# (no ibcast nor iallreduce of 64 bytes takes 20 ms: a target out of reach
# whatever the machine's noise, unlike a 1 us target, which it may hit)
tiny_options=(--collectives "ibcast,iallreduce" --set calibration.max_bytes=64)
tiny_study 20ms 2
[ $status -eq 5 ] || fail "nbc-run: status $status, expected 5 (runs without a valid cell); its stderr: $(cat "$SCRATCH/stderr")"
study=$(sed -n 's/^study: //p' <<<"$out")
[ -f "$study" ] || fail "no study.json listed at the end: $out"
q() { jq -r "$1" "$study"; }
[ "$(q .status)" = complete ] || fail "study.json: status $(q .status), expected complete"
[ "$(q '.runs | length')" = 2 ] || fail "study.json: $(q '.runs | length') runs, expected 2"
for i in 0 1; do
    run=".runs[$i]"
    name=$(q "$run.name")
    [ "$(q "$run.status")" = no_valid_cell ] || fail "$name: status $(q "$run.status"), expected no_valid_cell"
    [ "$(q "$run.steps_done | join(\",\")")" = calibration,ref_aa,ref_before,sweep,ref_after,analysis ] ||
        fail "$name: steps $(q "$run.steps_done")"
    reason=$(q "$run.no_valid_cell_reason")
    grep -q "bench_nbc kept no cell whole (exit status 5): 1 of 1 cells unreachable" <<<"$reason" ||
        fail "$name: the reason lacks meta.json's counts: $reason"
    grep -q "nbc-analyze: no valid cell: .*unreachable" <<<"$reason" ||
        fail "$name: the reason lacks nbc-analyze's message: $reason"
    dir=$(q "$run.run_dir")
    [ "$(json "$dir/meta.json" .cells_kept)" = 0 ] || fail "$dir: meta.json cells_kept is not 0"
    [ "$(data_rows "$dir/cells.csv")" -eq 1 ] || fail "$dir: nbc-analyze wrote no cells.csv row"
    grep -qF "no valid cell: $name (" <<<"$out" || fail "the summary does not name $name as without a valid cell"
    grep -qF "# exit status 5" "$dir/nbc-run.log" || fail "$dir/nbc-run.log lacks nbc-analyze's exit status 5"
done
grep -q "^nbc-run: 2 run(s) done (2 without a valid cell), 0 failed" <<<"$out" || fail "summary count line: $out"
[ "$(q '.comparisons | length')" = 1 ] || fail "study.json: $(q '.comparisons | length') comparisons, expected 1 over both runs"
study_table "$study"
figure "a study of 2 runs without a valid cell: both analysed and compared, recorded no_valid_cell, exit 5 (${secs} s)"
