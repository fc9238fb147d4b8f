#!/usr/bin/env bash
# bench_nbc records its BLAS in meta.json ("blas": name, version, library,
# threading, the measured figures; "cpu_topology"), the same as compute_ref
# --blas says for the same build. With MPICH, in the progress deployment:
# the check runs before MPI_Init, so MPICH's busy progress thread does not
# count as a BLAS thread.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
# shellcheck source=tests/compute/lib_blas.sh
source "$(dirname "$0")/lib_blas.sh"
set -eo pipefail
command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
make_scratch
"$BUILD/compute_ref" --blas >"$SCRATCH/blas.out" 2>"$SCRATCH/blas.err" || fail "compute_ref --blas: $(cat "$SCRATCH/blas.err")"

deployment=()
[ "$MPI" = mpich ] && deployment=(--set run.deployment=progress)
# (a loose calibration: the cell only has to run; the test reads meta.json)
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${LOOSE_LATENESS[@]}" "${deployment[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=1ms --set grid.comp_times=2ms --set run.repetitions=2 \
    --set calibration.tolerance=0.9 2>&1) || fail "bench_nbc failed: $out"
meta=$(run_folder "$out")/meta.json
[ -f "$meta" ] || fail "no meta.json: $out"
json() { jq -r "$1" "$meta"; }
[ "$(json .status)" = complete ] || fail "status $(json .status)"
for key in name version library threading; do
    [ "$(json ".blas.$key")" = "$(blas_value "$key" "$SCRATCH/blas.out")" ] ||
        fail "meta.json blas.$key '$(json ".blas.$key")', compute_ref --blas '$(blas_value "$key" "$SCRATCH/blas.out")'"
done
[ "$(json .blas.one_thread_per_call)" = true ] || fail "blas: $(json .blas)"
[ "$(json .cpu_topology)" = "$(blas_value cpu_topology "$SCRATCH/blas.out")" ] || fail "cpu_topology $(json .cpu_topology)"
measured=$(json .blas.cpu_per_caller_cpu)
check_float "$measured > 0.5 && $measured <= 1.1" || fail "blas.cpu_per_caller_cpu $measured"
check_float "$(json .blas.windows) >= 3 && $(json .blas.measured_s) > 0.05" || fail "blas: $(json .blas)"
if [ "$MPI" = mpich ]; then
    [ "$(json '.environment.MPICH_ASYNC_PROGRESS')" = 1 ] || fail "not the progress deployment"
fi
figure "meta.json blas: $(json .blas.name), $(json .blas.threading), $(printf %.3f "$measured") threads" \
    "measured (${deployment[*]:-basic deployment})"
echo "blas in meta.json: all checks passed"
