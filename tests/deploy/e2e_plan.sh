#!/usr/bin/env bash
# bench_nbc --plan for every deployment, read with jq: what each means on
# this build's library and this machine's cores, without MPI (no launcher);
# then a run that holds a plan to what it said: the thread level the
# progress deployment requires. The suite's own thread and dedicated's
# library thread on the free core (2 cores per rank) are run by
# e2e_dedicated_netns.sh (2 nodes, 2 cores each).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
command -v jq >/dev/null || skip "jq is not installed"
make_scratch

# plan ARGS...: the plan's JSON in PLAN, bench_nbc's status in STATUS.
plan() {
    STATUS=0
    PLAN=$(env -u MPICH_ASYNC_PROGRESS -u OMP_WAIT_POLICY "$BENCH" --plan "$@" 2>"$SCRATCH/plan.err") || STATUS=$?
    jq -e . >/dev/null <<<"$PLAN" || fail "--plan $*: not JSON: $PLAN $(cat "$SCRATCH/plan.err")"
}
field() { jq -r "$1" <<<"$PLAN"; }

cores=$(taskset -c 0,1 "$BENCH" --plan | jq '.placement.cpus | length')
[ "$cores" -ge 2 ] || skip "this machine has fewer than 2 cores"
for d in basic progress dedicated manual thread; do
    plan --set run.deployment=$d
    [ "$(field .deployment)" = "$d" ] || fail "$d: deployment $(field .deployment)"
    [ "$(field .mpi_library.profile)" = "$MPI" ] || fail "$d: library $(field .mpi_library.profile)"
    if [ "$(field .status)" = refused ]; then
        [ "$STATUS" -eq 2 ] || fail "$d refused with status $STATUS"
        grep -q "run.deployment" "$SCRATCH/plan.err" || fail "$d: refusal not on stderr"
        echo "$d: refused: $(field .refusal)"
        continue
    fi
    [ "$STATUS" -eq 0 ] || fail "$d planned, status $STATUS"
    echo "$d: progress thread $(field .progress_thread.kind) on $(field '.progress_thread.cpus // [] | join(",")'), compute $(field '.compute.cpus | join(",")'), $(field .thread_level), OMP_WAIT_POLICY=$(field .compute.omp_wait_policy)"
    # One thread per core: the progress thread's own cores never compute.
    if [ "$(field .progress_thread.binding)" != shared ] && [ "$(field .progress_thread.kind)" != none ]; then
        [ "$(field '[.progress_thread.cpus[], .compute.cpus[]] | (length == (unique | length))')" = true ] ||
            fail "$d: progress and compute cores overlap: $PLAN"
    fi
done

# What each deployment must say here, library by library.
plan --set run.deployment=basic
[ "$(field .progress_thread.kind)/$(field .thread_level)/$(field .compute.omp_wait_policy)" = none/funneled/active ] ||
    fail "basic: $PLAN"
plan --set run.deployment=thread
[ "$(field .progress_thread.kind)/$(field .thread_level)" = suite/multiple ] || fail "thread: $PLAN"
[ "$(field '.compute.cpus | length')" -eq $((cores - 1)) ] || fail "thread: compute cores $PLAN"
plan --set run.deployment=dedicated
if [ "$MPI" = mpich ]; then
    [ "$(field .progress_thread.binding)/$(field .progress_thread.bind_setting)" = library_setting/MPIR_CVAR_PROGRESS_THREAD_AFFINITY ] ||
        fail "dedicated with MPICH: $PLAN"
    plan --set run.deployment=progress
    [ "$(field .thread_level)/$(field .compute.omp_wait_policy)" = multiple/passive ] ||
        fail "progress with MPICH: $PLAN"
    [ "$(field '.environment[] | select(.name == "MPICH_ASYNC_PROGRESS") | .value')" = 1 ] ||
        fail "progress with MPICH: no MPICH_ASYNC_PROGRESS=1: $PLAN"
else
    { [ "$(field .status)" = refused ] && grep -q "run.deployment=thread" <<<"$(field .refusal)"; } ||
        fail "dedicated with $MPI: not refused with the suite's deployment suggested: $PLAN"
fi
# Bad input: no free core, a user's switch against the deployment.
STATUS=0
taskset -c 0 "$BENCH" --plan --set run.deployment=thread >"$SCRATCH/one.json" 2>"$SCRATCH/one.err" || STATUS=$?
{ [ "$STATUS" -eq 2 ] && grep -q "progress.oversubscribe=true" "$SCRATCH/one.err"; } ||
    fail "thread on one core: status $STATUS, $(cat "$SCRATCH/one.err")"
if [ "$MPI" = mpich ]; then
    STATUS=0
    MPICH_ASYNC_PROGRESS=1 "$BENCH" --plan --set run.deployment=basic >/dev/null 2>"$SCRATCH/sw.err" || STATUS=$?
    { [ "$STATUS" -eq 2 ] && grep -q "MPICH_ASYNC_PROGRESS=1" "$SCRATCH/sw.err"; } ||
        fail "basic with MPICH_ASYNC_PROGRESS=1 not refused: $(cat "$SCRATCH/sw.err")"
fi

# Runs (one cell each) hold the plan.
cell=(--set run.results_dir="$SCRATCH" --set grid.comm_times=2ms --set grid.comp_times=4ms
      --set run.repetitions=2 --set calibration.tolerance=0.5)
if [ "$MPI" = mpich ]; then
    # progress requires MPI_THREAD_MULTIPLE: asked, provided and recorded.
    out=$(mpi_launch -n 2 env -u MPICH_ASYNC_PROGRESS "$BENCH" "${QUICK[@]}" "${cell[@]}" \
        --set run.deployment=progress 2>&1) || fail "progress failed: $out"
    DIR=$(run_folder "$out")
    [ "$(jq -r .deployment_plan.thread_level "$DIR/meta.json")" = multiple ] || fail "progress: plan's level"
    [ "$(meta_value "$DIR" mpi_thread_level)" = multiple ] ||
        fail "progress: provided $(meta_value "$DIR" mpi_thread_level), the plan requires multiple"
    [ "$(jq -r .environment.OMP_WAIT_POLICY "$DIR/meta.json")" = passive ] || fail "progress: wait policy"
fi

# The suite's own thread and dedicated's library thread on the free core
# need 2 cores per rank and at least 2 ranks (a one-rank job is refused):
# tests/deploy/e2e_dedicated_netns.sh runs them on 2 namespace nodes.
echo "plans read for 5 deployments; runs held them"
