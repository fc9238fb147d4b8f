#!/usr/bin/env bash
# The second workload: compute.kernel = triad (memory-bound) runs the same
# pipeline as dgemm: calibrated to its targets (sizes growing with them),
# swept, recorded in meta.json, and measured again without MPI by
# compute_ref --run (which reads the kernel from the run), so equation 2
# compares like with like.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
[ -x "$TOOLS_DIR/nbc-analyze" ] || fail "$TOOLS_DIR/nbc-analyze is not built"
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
    --set compute.kernel=triad --set grid.comm_times=2ms --set grid.comp_times=2ms,8ms,2 \
    --set run.repetitions=10 2>&1) || fail "bench_nbc failed: $out"
dir=$(run_folder "$out")
[ "$(json_get "$dir/meta.json" config compute kernel)" = triad ] ||
    fail "meta.json does not record compute.kernel = triad"
[ "$(json_get "$dir/meta.json" status)" = complete ] || fail "the run did not complete"
# Sizes grow with their targets, and each reaches its target within the
# calibration's acceptance or is marked not converged: the tolerance (QUICK's
# calibration.tolerance, 0.3), widened for an imprecise point by twice its
# standard error up to the tolerance again (compute/calibrate.c,
# compute_point_slack_s), as a busy machine makes points imprecise.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         { if (NR > 2 && $c["matrix_n"] <= last) bad = 1; last = $c["matrix_n"]
           if ($c["converged"] == 1 && ($c["t_comp_s"] < 0.4 * $c["comp_target_s"] || $c["t_comp_s"] > 1.6 * $c["comp_target_s"])) bad = 1 }
         END { exit bad || NR != 4 }' "$dir/calib_comp.csv" ||
    fail "calib_comp.csv: sizes not increasing or off target: $(cat "$dir/calib_comp.csv")"
"$BUILD/compute_ref" --run "$dir" || fail "compute_ref --run failed on a triad run"
"$TOOLS_DIR/nbc-analyze" -q --no-plots "$dir" || fail "nbc-analyze failed"
[ "$(awk 'END { print NR }' "$dir/impact.csv")" -eq 4 ] || fail "impact.csv: $(cat "$dir/impact.csv")"
# the triad's rate: n^3 / 8 updates of 24 bytes per step
rate=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                { printf "%.1f ", $c["matrix_n"] ^ 3 / 8 * 24 / $c["t_comp_s"] / 1e9 }' "$dir/calib_comp.csv")
figure "triad kernel ($MPI, 2 ranks x 1 thread): $rate GB/s per thread at 2, 4, 8 ms; r_MPI_impact $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s ", $c["r_mpi_impact"] }' "$dir/impact.csv")"
