#!/usr/bin/env bash
# One job, several collectives and rank counts (run.collectives, run.ranks):
# 3 collectives at 2 and 4 ranks (4 ranks share the 2 cores with the
# known-answer sleep computation, the 2-rank studies on a sub-communicator
# while the other 2 ranks wait) give 6 run folders, each complete and
# analysed by nbc-analyze, all from ONE clock sync (the first clock point of
# every folder is the job's: the same offset and latency on every rank; and
# one end point after the last study, the same last offset in every folder,
# every raw.csv converted by interpolation between the two) and
# ONE computation calibration (its log lines once; every calib_comp.csv the
# same sizes), as meta.json's "job" and the log say.
# Four ranks on two cores leave the window barrier late by a time slice or
# more (a 2 ms ialltoall cell: 101 attempts in a row later than 300 us), so
# the cells are 4 and 8 ms with lateness up to half the shorter reference
# accepted: this test is about files.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
colls=ibcast,iallreduce,ialltoall
comp_targets=2
start=$EPOCHREALTIME
set +e
out=$(mpi_launch -n 4 "$BENCH" -c configs/default.conf --set run.results_dir="$SCRATCH" "${QUICK[@]}" \
    --set run.collectives=$colls --set run.ranks=2,4 --set compute.kernel=sleep \
    --set grid.comm_times="4ms 8ms" --set grid.comp_times="4ms 8ms" --set run.repetitions=2 \
    --set run.half_width=0 --set run.late_tolerance=0.5 --set run.max_retries=100 \
    --set calibration.max_bytes=64MiB 2>&1)
status=$?
set -e
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
if [ $status -eq 2 ] && grep -q 'core' <<<"$out"; then
    skip "4 ranks cannot share this machine's cores here: $(grep 'bench_nbc:' <<<"$out" | head -n 1)"
fi
[ $status -eq 0 ] || fail "the job exited $status: $out"
mapfile -t dirs < <(sed -n 's/^bench_nbc: run folder //p' <<<"$out")
[ ${#dirs[@]} -eq 6 ] || fail "${#dirs[@]} run folders, expected 6 (3 collectives x 2 rank counts): $out"
# ONE computation calibration: its lines once in the log, the same sizes in every folder.
# (A target calibrated again after its check, a machine that changed speed,
# prints its line again, before the first run folder all the same.)
calibrations=$(grep -o '^bench_nbc: computation [0-9.]* ms -> n=' <<<"$out" | sort -u | wc -l)
[ "$calibrations" -eq $comp_targets ] || fail "$calibrations computation targets calibrated, expected $comp_targets"
late=$(sed -n '/^bench_nbc: run folder /,$p' <<<"$out" | grep -c '^bench_nbc: computation .* -> n=' || true)
[ "$late" -eq 0 ] || fail "$late computation calibration lines after the first run folder: not one calibration for the job"
shared=$(grep -c 'clock sync: shared, computation calibration: shared' <<<"$out")
[ "$shared" -eq 6 ] || fail "$shared studies say their clock sync and computation calibration are shared"
end_points=$(grep -c "^bench_nbc: the job's end clock point: raw.csv of 6 run folders converted" <<<"$out")
[ "$end_points" -eq 1 ] || fail "$end_points lines of the job's end clock point, expected 1: $out"
sizes() { cut -d, -f1-3 "$1/calib_comp.csv"; }
first=${dirs[0]}
expected_ranks=(2 4 2 4 2 4) expected_colls=(ibcast ibcast iallreduce iallreduce ialltoall ialltoall)
for i in "${!dirs[@]}"; do
    dir=${dirs[$i]}
    [ "$(meta_value "$dir" status)" = complete ] || fail "$dir: status $(meta_value "$dir" status)"
    [ "$(meta_value "$dir" collective)" = "${expected_colls[$i]}" ] || fail "$dir: collective $(meta_value "$dir" collective)"
    [ "$(meta_value "$dir" ranks)" = "${expected_ranks[$i]}" ] || fail "$dir: ranks $(meta_value "$dir" ranks)"
    job=$(jq -c '.job' "$dir/meta.json")
    jq -e --arg first "$first" --argjson study $((i + 1)) \
        '.studies == 6 and .study == $study and .job_ranks == 4 and .clock_sync == "shared" and
         .computation_calibration == "shared" and .calibrated_in == $first' <<<"$job" >/dev/null ||
        fail "$dir: meta.json job $job"
    [ "$(sizes "$dir")" = "$(sizes "$first")" ] || fail "$dir: calib_comp.csv differs from $first's"
    [ "$(($(wc -l <"$dir/calib_comm.csv") - 1))" -eq 2 ] || fail "$dir: calib_comm.csv rows"
    # The first clock point of every rank is the job's.
    points=$(jq -c '[.clocksync.ranks[] | [.offset_us, .latency_us]]' "$dir/meta.json")
    first_points=$(jq -c --argjson n "${expected_ranks[$i]}" '[.clocksync.ranks[:$n][] | [.offset_us, .latency_us]]' "$first/meta.json" 2>/dev/null)
    [ "${expected_ranks[$i]}" -gt 2 ] || [ "$points" = "$first_points" ] ||
        fail "$dir: clock points $points, the job's $first_points"
    # The job's clock points, the last its end point: the same in every folder.
    jq -e '.clocksync.raw_times == "interpolated between the job'"'"'s start and end points"' \
        "$dir/meta.json" >/dev/null || fail "$dir: clocksync $(jq -c .clocksync "$dir/meta.json")"
    end_point() { jq -c '[.clocksync.ranks[:2][] | [.calibrations, .last_offset_us]]' "$1/meta.json"; }
    [ "$(end_point "$dir")" = "$(end_point "$first")" ] ||
        fail "$dir: clock points and end offsets $(end_point "$dir"), the first folder's $(end_point "$first")"
    # config.ini: a one-collective run on its ranks (--resume, the analysis).
    [ "$(sed -n 's/^collective = //p' "$dir/config.ini")" = "${expected_colls[$i]}" ] ||
        fail "$dir: config.ini's collective"
    cells_whole "$dir" 3 "${expected_ranks[$i]}" >/dev/null || fail "$dir: a cell lacks rows"
    analysis=$("$TOOLS_DIR/nbc-analyze" "$dir" 2>&1) || fail "nbc-analyze $dir: status $?: $analysis"
    [ -f "$dir/cells.csv" ] || fail "$dir: no cells.csv"
done
# nbc-compare on the six: r_overhead against the rank count, a line per collective.
compare=$("$TOOLS_DIR/nbc-compare" "${dirs[@]}" -o "$SCRATCH/compare" 2>&1) || fail "nbc-compare: status $?: $compare"
scaling=$SCRATCH/compare/overhead_vs_ranks.csv
[ -f "$scaling" ] || fail "nbc-compare wrote no overhead_vs_ranks.csv: $compare"
[ -f "$SCRATCH/compare/overhead_vs_ranks.gp" ] || fail "nbc-compare wrote no overhead_vs_ranks.gp: $compare"
for coll in ${colls//,/ }; do
    [ "$(awk -F, -v c="$coll" '$1 == c { printf "%s ", $2 }' "$scaling")" = "2 4 " ] ||
        fail "overhead_vs_ranks.csv: $coll not at ranks 2 and 4: $(cat "$scaling")"
done
# Bad lists: refused on every rank with the key and the allowed values, exit 2, no run folder.
for bad in "run.ranks=2,8|run.ranks|more ranks than the job has" "run.ranks=1|run.ranks|too few ranks" \
    "run.collectives=ibcast,ibcats|run.collectives|did you mean ibcast"; do
    IFS='|' read -r assignment key words <<<"$bad"
    set +e
    refused=$(mpi_launch -n 4 "$BENCH" -c configs/default.conf --set run.results_dir="$SCRATCH/bad" \
        --set compute.kernel=sleep --set calibration.max_bytes=64MiB --set "$assignment" 2>&1)
    status=$?
    set -e
    [ $status -eq 2 ] || fail "$assignment: exit $status, expected 2: $refused"
    grep -q "$key: .*$words.*(allowed: " <<<"$refused" || fail "$assignment: message: $refused"
    [ ! -d "$SCRATCH/bad" ] || [ -z "$(ls -A "$SCRATCH/bad")" ] || fail "$assignment: a run folder was made"
done
# The 4-rank folders' first clock points agree with each other too.
[ "$(jq -c '.clocksync.ranks | map([.offset_us, .latency_us])' "${dirs[1]}/meta.json")" = \
    "$(jq -c '.clocksync.ranks | map([.offset_us, .latency_us])' "${dirs[5]}/meta.json")" ] ||
    fail "the 4-rank folders have different first clock points"
figure "one job, 3 collectives x ranks 2,4: 6 run folders in ${wall} s from 1 clock sync (one end point for all) and" \
    "1 computation calibration ($comp_targets sizes, shared $(jq -r '.job.shared_calibration_s * 1000 | round / 1000' "$first/meta.json") s)," \
    "each analysed"
