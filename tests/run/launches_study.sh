#!/usr/bin/env bash
# A real study of 2 launches through nbc-run (ibcast, this build's library, 2
# ranks, 2 x 2 cells, 2 repetitions): study.json, read with jq, records the
# study (launches, order, seed) and both runs (configuration, launch index,
# run folder, status, start and end times, the steps done); both run folders
# are complete, distinct, and hold compute_ref.csv rows of both phases (before
# and after the sweep) and passive.csv rows of both phases; the second
# launch measures with the first's sizes (study.json calibration_from 1).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
command -v jq >/dev/null || skip "reads study.json with jq (apt-get install jq)"
make_scratch

tiny_options=(--launches 2)
tiny_study 1ms,4ms,4 2
[ $status -eq 0 ] || fail "nbc-run: status $status; its stderr: $(cat "$SCRATCH/stderr")"
study=$(sed -n 's/^study: //p' <<<"$out")
[ -f "$study" ] || fail "no study.json listed at the end: $out"
[ "$(dirname "$(dirname "$study")")" = "$SCRATCH" ] || fail "study folder $study is not in the results folder"

q() { jq -r "$1" "$study"; }
[ "$(q .format)" = 1 ] || fail "study.json: format $(q .format)"
[ "$(q .status)" = complete ] || fail "study.json: status $(q .status)"
[ "$(q .study.launches)" = 2 ] || fail "study.json: launches $(q .study.launches)"
[ "$(q .study.launch_order)" = interleaved ] || fail "study.json: launch_order $(q .study.launch_order)"
[[ $(q .study.seed) =~ ^[0-9]+$ ]] || fail "study.json: seed '$(q .study.seed)'"
[ "$(q '.runs | length')" = 2 ] || fail "study.json: $(q '.runs | length') runs, expected 2"
[ "$(q '[.runs[].launch] | join(",")')" = 1,2 ] || fail "study.json: launches $(q '[.runs[].launch]')"
steps=calibration,ref_aa,ref_before,sweep,ref_after
[ -x "$TOOLS_DIR/nbc-analyze" ] && steps=$steps,analysis
dirs=()
for i in 0 1; do
    run=".runs[$i]"
    [ "$(q "$run.name")" = "$MPI-ibcast-basic" ] || fail "run $i: configuration $(q "$run.name")"
    [ "$(q "$run.mpi") $(q "$run.collective") $(q "$run.deployment")" = "$MPI ibcast basic" ] ||
        fail "run $i: mpi, collective, deployment"
    [ "$(q "$run.status")" = complete ] || fail "run $i: status $(q "$run.status")"
    [ "$(q "$run.steps_done | join(\",\")")" = "$steps" ] || fail "run $i: steps $(q "$run.steps_done")"
    [[ $(q "$run.start_time") < $(q "$run.end_time") || $(q "$run.start_time") == $(q "$run.end_time") ]] ||
        fail "run $i: start $(q "$run.start_time") after end $(q "$run.end_time")"
    [[ $(q "$run.end_time") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$ ]] || fail "run $i: end_time $(q "$run.end_time")"
    dir=$(q "$run.run_dir")
    dirs+=("$dir")
    [ -d "$dir" ] || fail "run $i: no run folder $dir"
    grep -qx "run folder: $dir" <<<"$out" || fail "run folder $dir is not listed at the end"
    [ "$(json "$dir/meta.json" .status)" = complete ] || fail "$dir: meta.json status $(json "$dir/meta.json" .status)"
    measurable=$((4 - $(json "$dir/meta.json" .cells_unreachable)))
    [ "$(json "$dir/meta.json" .cells_done)" = $measurable ] ||
        fail "$dir: $(json "$dir/meta.json" .cells_done) of $measurable measurable cells done"
    both_phases "$dir/compute_ref.csv"
    [ "$phase_count" -ge 2 ] || fail "$dir/compute_ref.csv: $phase_count rows a phase, expected one per rank and size"
    both_phases "$dir/passive.csv"
    # Each launch has its calibration files, of both targets: the first
    # launch's sizes (it calibrates, the second measures with them).
    [ "$(data_rows "$dir/calib_comp.csv")" -eq 2 ] || fail "$dir/calib_comp.csv: expected 2 rows"
    [ "$(cut -d, -f1,2 "$dir/calib_comp.csv")" = "$(cut -d, -f1,2 "$(q '.runs[0].run_dir')/calib_comp.csv")" ] ||
        fail "$dir/calib_comp.csv: other matrix sizes than the first launch's"
    [ "$(grep -c -- '--stop-after calibration' "$dir/nbc-run.log")" = 1 ] || fail "$dir/nbc-run.log: no calibration step"
    [ "$(grep -c -- "bench_nbc --resume $dir" "$dir/nbc-run.log")" = 1 ] || fail "$dir/nbc-run.log: no sweep step"
done
[ "${dirs[0]}" != "${dirs[1]}" ] || fail "both launches wrote into ${dirs[0]}"
[ "$(q '[.runs[] | .calibration_from // "self"] | join(",")')" = self,1 ] ||
    fail "study.json: calibration_from $(q '[.runs[] | .calibration_from]')"
if [ -x "$TOOLS_DIR/nbc-compare" ]; then
    [ "$(q '.comparisons | length')" = 1 ] || fail "study.json: expected one comparison"
    [ -d "$(q '.comparisons[0]')" ] || fail "no comparison folder $(q '.comparisons[0]')"
fi
if [ -x "$TOOLS_DIR/nbc-analyze" ]; then
    study_table "$study"
    grep -qx "table: $(dirname "$study")/study.csv" <<<"$out" || fail "study.csv is not listed at the end"
    # The verdict over the launches: verdict.csv's rows rest on both, and
    # the verdict line says so.
    verdict_csv=$(dirname "$study")/verdict.csv
    [ -s "$verdict_csv" ] || fail "no verdict.csv in the study folder"
    [ "$(awk -F, 'NR > 1 { print $12 }' "$verdict_csv" | sort -u | tr '\n' ' ')" = "2 " ] ||
        fail "verdict.csv: launches_run is not 2 in every row: $(cat "$verdict_csv")"
    # (a verdict line continues on the lines indented under it)
    verdicts=$(awk '/^verdict: / { if (v != "") print v; v = $0; next }
        /^    / && v != "" { sub(/^ +/, " "); v = v $0; next }
        { if (v != "") print v; v = "" } END { if (v != "") print v }' <<<"$out")
    grep -Eq "^verdict: .*over (1-)?2 launches" <<<"$verdicts" || fail "no verdict line over 2 launches: $out"
    # The study's impact: one row per computation size over both launches
    # (two impact pairs and one A/A pair each; the launch the interval's
    # unit), the largest size's row marked.
    impact=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for r in rows:
    assert (r["mpi"], r["collective"], r["deployment"]) == (sys.argv[2], "ibcast", "basic"), r
    assert (r["pairs"], r["launches"], r["aa_pairs"]) == ("4", "2", "2"), r
    assert r["estimable"] in ("0", "1"), r
assert [r["largest"] for r in rows] == ["0"] * (len(rows) - 1) + ["1"], rows
sizes = [float(r["comp_target_s"]) for r in rows]
assert sizes == sorted(sizes), sizes
print(" ".join(r["r_mpi_impact"] for r in rows))' "$(dirname "$study")/impact.csv" "$MPI") ||
        fail "the study's impact.csv: $(cat "$(dirname "$study")/impact.csv")"
fi
figure "2 launches of a 2 x 2-cell study: ${secs} s through nbc-run, both complete, compute_ref before and after each; ${table:-no study.csv (no nbc-analyze)}; study impact per size ${impact:-none}"
