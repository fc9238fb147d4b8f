#!/usr/bin/env bash
# A study cut short and resumed: nbc-run with 2 launches of a 2 x 3-cell
# ibcast study gets SIGTERM once the first run's sweep has kept a cell; it
# stops the ranks (bench_nbc keeps its whole cells), exits 3 and leaves
# study.json resumable. `nbc-run --resume STUDY_DIR` then continues that run
# in its folder (bench_nbc --resume: no new calibration) and starts the
# second: every cell kept before the signal is still there, byte for byte,
# and the study completes.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
command -v jq >/dev/null || skip "reads study.json with jq (apt-get install jq)"
make_scratch

# 2 x 3 cells (1, 2 ms of communication by 1, 2, 4 ms of computation), enough
# repetitions that the sweep lasts seconds: cells visited in turn end close
# together, and 6 leave some to cut when the signal follows the first kept.
tiny_args 1ms,2ms,2 30 --launches 2 --set grid.comp_times=1ms,4ms,2
./nbc-run "${study_args[@]}" >"$SCRATCH/out" 2>"$SCRATCH/stderr" &
runner=$!
# kept_cells RUN_DIR: the cells of raw.csv (whole cells are written at once).
kept_cells() { awk -F, 'NR > 1 { print $1 }' "$1/raw.csv" 2>/dev/null | sort -u | wc -l; }
dir="" start=$SECONDS
while [ $((SECONDS - start)) -lt 180 ] && kill -0 "$runner" 2>/dev/null; do
    studies=("$SCRATCH"/*-study/study.json)
    study=${studies[0]}
    [ -f "$study" ] && dir=$(jq -r '.runs[0].run_dir // empty' "$study" 2>/dev/null)
    [ -n "$dir" ] && [ "$(kept_cells "$dir")" -ge 1 ] && break
    sleep 0.2
done
if [ -z "$dir" ] || [ "$(kept_cells "$dir")" -lt 1 ]; then
    kill -TERM "$runner"
    wait "$runner"
    fail "the first run kept no cell: $(cat "$SCRATCH/stderr")"
fi
kill -TERM "$runner"
wait "$runner"
status=$?
cat "$SCRATCH/stderr"
[ $status -eq 3 ] || fail "nbc-run after SIGTERM: status $status, expected 3 (interrupted)"
q() { jq -r "$1" "$study"; }
[ "$(q .status)" = interrupted ] || fail "study.json: status $(q .status) after SIGTERM"
[ "$(q '.runs[0].status')" = interrupted ] || fail "study.json: run 1 is $(q '.runs[0].status')"
[ "$(q '.runs[1].status')" = pending ] || fail "study.json: run 2 is $(q '.runs[1].status'), expected pending"
meta=$(json "$dir/meta.json" .status)
cells=$(json "$dir/meta.json" .cells_done)
# The signal may come as the sweep ends: then the run is whole already.
[ "$meta" = interrupted ] || [ "$meta" = complete ] || fail "meta.json: status $meta after SIGTERM"
cp "$dir/raw.csv" "$SCRATCH/raw-before.csv"
kept=$(kept_cells "$dir")
[ "$kept" -eq "$cells" ] || fail "raw.csv holds $kept cells, meta.json says $cells done"
calibrations=$(md5sum <"$dir/calib_comp.csv")

# Resumed: the first run goes on in its folder, the second starts.
out=$(timeout -k 5 "${MPI_TIMEOUT_S:-240}" ./nbc-run --resume "$(dirname "$study")" 2>"$SCRATCH/stderr")
status=$?
echo "$out"
[ $status -eq 0 ] || fail "nbc-run --resume: status $status; its stderr: $(cat "$SCRATCH/stderr")"
[ "$(q .status)" = complete ] || fail "study.json: status $(q .status) after --resume"
[ "$(q '[.runs[].status] | join(",")')" = complete,complete ] || fail "study.json: runs $(q '[.runs[].status]')"
[ "$(q '.runs[0].run_dir')" = "$dir" ] || fail "run 1 moved to $(q '.runs[0].run_dir')"
[ "$(q '.resumed | length')" = 1 ] || fail "study.json does not record the resumption"
grep -q "$MPI-ibcast-basic (launch 2 of 2)" "$SCRATCH/stderr" || fail "the second launch did not run"
# bench_nbc ran again on the first run folder only if its sweep was cut.
sweeps=$(grep -c -- "bench_nbc --resume $dir\$" "$dir/nbc-run.log")
[ "$(grep -c -- "--stop-after calibration" "$dir/nbc-run.log")" = 1 ] || fail "the first run calibrated twice"
if [ "$meta" = complete ]; then
    [ "$sweeps" = 1 ] || fail "a sweep complete before --resume ran again ($sweeps sweeps)"
else
    [ "$sweeps" = 2 ] || fail "the cut sweep was not resumed ($sweeps sweeps in nbc-run.log)"
fi
for i in 0 1; do
    d=$(q ".runs[$i].run_dir")
    [ "$(json "$d/meta.json" .status)" = complete ] || fail "$d: meta.json status $(json "$d/meta.json" .status)"
    # (A target calibration did not reach leaves its cells out, in every run.)
    measurable=$((6 - $(json "$d/meta.json" .cells_unreachable)))
    [ "$(json "$d/meta.json" .cells_done)" = $measurable ] ||
        fail "$d: $(json "$d/meta.json" .cells_done) of $measurable measurable cells"
    # compute_ref aa, before and after, never twice: each phase once per
    # process and size (aa, the A/A partner of before, as many rows).
    both_phases "$d/compute_ref.csv"
    [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["phase"] == "aa" { n++ } END { print n + 0 }' "$d/compute_ref.csv")" -eq "$phase_count" ] ||
        fail "$d/compute_ref.csv: phase aa has other rows than phase before: $(cat "$d/compute_ref.csv")"
    [ $((3 * phase_count)) -eq "$(data_rows "$d/compute_ref.csv")" ] ||
        fail "$d/compute_ref.csv: other rows than the three phases aa, before, after"
done
# No cell kept before the signal is lost, nor measured again; no new calibration.
size=$(stat -c %s "$SCRATCH/raw-before.csv")
cmp -s -n "$size" "$SCRATCH/raw-before.csv" "$dir/raw.csv" ||
    fail "raw.csv of the resumed run does not begin with the $kept cells kept before the signal"
[ "$(md5sum <"$dir/calib_comp.csv")" = "$calibrations" ] || fail "the resumed run calibrated again"
measurable=$(json "$dir/meta.json" .cells_done)
[ "$(kept_cells "$dir")" -eq "$measurable" ] || fail "raw.csv of the resumed run holds $(kept_cells "$dir") cells"
figure "study cut by SIGTERM after $kept of $measurable cells of launch 1 (meta.json $meta), resumed: both launches complete, the $kept cells kept byte for byte"
