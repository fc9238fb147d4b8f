#!/usr/bin/env bash
# The computation's calibration is checked: a machine that changes speed
# while the sizes are calibrated gets them calibrated again. Three CPU-bound
# processes on each of the job's CPUs take three quarters of them while
# bench_nbc calibrates its five computation targets (on a machine busy with
# K other programs, the ranks' share drops from 1/(K+1) to 1/(K+4), still
# beyond the check's 25 %); they are stopped when the
# last size is printed, so the check (every calibrated size measured again,
# the shortest first) finds sizes that take a fraction of their target, says so and
# calibrates them again, and the sizes kept take their targets at full
# speed: within the calibration tolerance of a calibration without the
# hogs (compute_ref --phase aa measures them right after, also without).
# First a calibration without hogs: its 5 targets (calibrated again only
# where the machine itself changed speed, said). The slowdown is made
# here (runnable threads on a CPU take turns), so the test needs no
# slow or fast machine; the stop takes a few milliseconds, and the check of
# the first three targets (1, 2, 4 ms, five runs each) lasts longer.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
[ "$(nproc)" -ge 2 ] || skip "2 ranks need 2 cores"
make_scratch
args=(-c configs/default.conf "${QUICK[@]}" --set run.results_dir="$SCRATCH"
      --set run.collective=ibcast --set grid.comm_times=1ms --set "grid.comp_times=1ms,16ms,2"
      --set calibration.runs_per_point=5 --set calibration.tolerance=0.1 --stop-after calibration)
# gflops FOLDER: the median GFLOP/s per thread of calib_comp.csv's sizes.
gflops() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["gflops_per_thread"] }' \
        "$1/calib_comp.csv" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# ---- without hogs: every target calibrated, and checked ----
out=$(mpi_launch -n 2 "$BENCH" "${args[@]}" 2>&1) || fail "bench_nbc failed: $out"
QUIET=$(run_folder "$out")
[ "$(grep -o '^bench_nbc: computation [0-9.]* ms -> ' <<<"$out" | sort -u | wc -l)" = 5 ] ||
    fail "a calibration without hogs printed other than 5 targets: $out"
if grep -q "calibrated again" <<<"$out"; then
    # a machine that changed speed by itself: said, and the sizes then hold
    echo "note: the quiet calibration was checked and calibrated again: $(grep 'calibrated again' <<<"$out")"
fi
quiet_gflops=$(gflops "$QUIET")

# ---- beside hogs on every CPU, stopped once the sizes are printed ----
start_hogs 3
log=$SCRATCH/hogged.log
mpi_launch -n 2 "$BENCH" "${args[@]}" >"$log" 2>&1 &
bench=$!
# bench_nbc's stdout is line-buffered: the 16 ms size's line is there as
# soon as it is printed
for _ in $(seq 1 6000); do
    grep -q '^bench_nbc: computation 16 ms -> n=' "$log" && break
    kill -0 $bench 2>/dev/null || break
    sleep 0.005
done
stop_hogs
status=0
wait $bench || status=$?
out=$(cat "$log")
[ $status -eq 0 ] || fail "beside the hogs: bench_nbc failed (status $status): $out"
HOGGED=$(run_folder "$out")
first=$(grep -m 1 '^bench_nbc: computation 16 ms -> n=' "$log" | sed 's/.*n=\([0-9]*\),.*/\1/')
quiet_n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["comp_target_s"] == 0.016 { print $c["matrix_n"] }' "$QUIET/calib_comp.csv")
# The premise: beside the hogs the 16 ms size is less than 70 % of the work
# calibrated without them (t ~ n^3), so the check, at the speed without
# hogs, finds it more than 25 % off. Where other programs already share
# the CPUs the hogs may take too little more.
awk -v n="$first" -v q="$quiet_n" 'BEGIN { exit !((n / q) ^ 3 < 0.7) }' ||
    skip "the hogs did not slow the calibration enough here (16 ms: n=$first beside them, n=$quiet_n without): other programs share these CPUs"
grep -q '^bench_nbc: computation: checked, n=[0-9]* took .* ms where its calibration measured .* the targets from .* ms on are calibrated again$' <<<"$out" ||
    fail "the sizes calibrated beside the hogs were not calibrated again: $out"
kept=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["comp_target_s"] == 0.016 { print $c["matrix_n"] }' "$HOGGED/calib_comp.csv")
hogged_gflops=$(gflops "$HOGGED")
echo "quiet: $quiet_gflops GFLOP/s per thread; beside the hogs, then checked: $hogged_gflops; 16 ms: n=$first calibrated beside the hogs, n=$kept kept"
[ "$(awk -F, 'NR > 1' "$HOGGED/calib_comp.csv" | wc -l)" = 5 ] ||
    fail "calib_comp.csv does not hold one row per target: $(cat "$HOGGED/calib_comp.csv")"
awk -v n="$first" -v k="$kept" 'BEGIN { exit !(k > n) }' ||
    fail "the 16 ms size kept (n=$kept) is not larger than the one calibrated beside the hogs (n=$first)"
# Without the hogs the sizes kept take their targets: the reference steps
# right after, without hogs either, measure them within the off-target
# tolerance of 25 % (the calibration's 10 % and the machine's own noise).
"$BUILD/compute_ref" --run "$HOGGED" --phase aa >"$SCRATCH/ref.log" 2>&1 ||
    fail "compute_ref failed: $(cat "$SCRATCH/ref.log")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["comp_target_s"], $c["t_comp_s"] }' \
    "$HOGGED/compute_ref.csv" | sort -k1,1g -k2,2g |
    awk '{ t[$1] = t[$1] " " $2 } END { for (k in t) { n = split(t[k], v, " "); m = v[int((n + 1) / 2)]
          printf "%s %s\n", k, m; if (m < 0.75 * k || m > 1.25 * k) bad = 1 }
          exit bad }' >"$SCRATCH/ref.txt" ||
    fail "a size kept does not take its target without the hogs (target_s median_t_s): $(tr '\n' ';' <"$SCRATCH/ref.txt")"
figure "calibration checked beside hogs: 16 ms n=$first -> n=$kept; GFLOP/s per thread quiet $quiet_gflops, kept $hogged_gflops"
