#!/usr/bin/env bash
# Bad input of every kind, on 2 ranks: exit status 2 on every rank, one clear
# message (printed once, by rank 0) naming the key or option and what is
# allowed, nothing measured, no process left behind.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
expect_failing_launches
touch "$SCRATCH/a_file"
printf '[run]\ncollective = ibcast\nthis line has no equals sign\n' >"$SCRATCH/broken.conf"
printf '[run]\nrepetitions = 3\n' >"$SCRATCH/fine.conf"
mkdir "$SCRATCH/results"
MPI_TIMEOUT_S=60
# run.mpi: a profile of another library than this build's (MPI: its profile).
other=mpich
[ "$MPI" = mpich ] && other=openmpi

# Each case: expected text in the message | arguments.
cases=(
    "run.nokey|--set run.nokey=1"
    "nosection|--set nosection.key=1"
    "run.collective|--set run.collective=ibcastt"
    "run.deployment|--set run.deployment=fast"
    "run.mpi|--set run.mpi=lam"
    "run.mpi: \"$other\" but this bench_nbc runs with|--set run.mpi=$other"
    "grid.comm_times|--set grid.comm_times=abc"
    "grid.comm_times: \"1,16,2\" is not a duration grid (\"1\" has no unit)|--set grid.comm_times=1,16,2"
    "run.cell_budget_s: \"3\" has no unit|--set run.cell_budget_s=3"
    "grid.comm_times|--set grid.comm_times=-1ms,2ms,2"
    "grid.comp_times|--set grid.comp_times=0,1ms,2"
    "grid.comm_times|--set grid.comm_times=8ms,1ms,2"
    "grid.comm_times|--set grid.comm_times=1ms,8ms,1"
    "grid.comp_times|--set grid.comp_times=1ms,8ms,0.5"
    "max_cells|--set grid.comm_times=1us,1s,1.05 --set grid.comp_times=1us,1s,1.05"
    "grid.comm_times and grid.comm_sizes: both|--set grid.comm_sizes=1MiB,4MiB"
    "grid.comm_times and grid.comm_sizes: neither|--set grid.comm_times="
    "grid.comm_sizes|--set grid.comm_times= --set grid.comm_sizes=1MiB,0"
    "run.repetitions|--set run.repetitions=0"
    "run.repetitions|--set run.repetitions=-3"
    "run.threads|--set run.threads=4096"
    "calibration.max_bytes|--set calibration.max_bytes=100000GiB"
    "calibration.max_bytes|--set calibration.max_bytes=12XB"
    "calibration.tolerance|--set calibration.tolerance=1.5"
    "calibration.tolerance|--set calibration.tolerance=0"
    "progress.mode|--set progress.mode=test:0"
    "progress.mode|--set progress.mode=poll"
    "run.check|--set run.check=maybe"
    "clocksync.roundtrips|--set clocksync.roundtrips=5"
    "clocksync.method|--set clocksync.method=ring"
    "run.deployment|--set run.deployment=dedicated"
    "run.results_dir|--set run.results_dir=$SCRATCH/a_file/sub"
    "no-such.conf|-c $SCRATCH/no-such.conf"
    "broken.conf|-c $SCRATCH/broken.conf"
    "--bogus|--bogus"
    "--set|--set"
    "unexpected argument|stray"
    "--resume|--resume $SCRATCH/results"
    "cannot be combined|--resume $SCRATCH/results --set run.repetitions=2"
    "assignment|--set run.repetitions"
    "--stop-after: 'sweep' (allowed: calibration)|--stop-after sweep"
)
# run_case I ENTRY: the launch and --plan of one case, into $SCRATCH/case.I.*
# (the cases run LANES at a time: each is a launch that starts MPI and
# exits, most of its time the launcher's start-up).
run_case() {
    local i=$1 entry=$2 args base status=0
    read -r -a args <<<"${entry#*|}"
    # --resume takes no --set: those cases run without the results folder.
    base=(--set run.results_dir="$SCRATCH/results")
    [[ ${args[0]} == --resume ]] && base=()
    mpi_launch -n 2 "$BENCH" "${base[@]}" "${args[@]}" >"$SCRATCH/case.$i.out" 2>&1 || status=$?
    echo "$status" >"$SCRATCH/case.$i.status"
    status=0
    "$BENCH" --plan "${base[@]}" "${args[@]}" 2>"$SCRATCH/case.$i.plan" >/dev/null || status=$?
    echo "$status" >"$SCRATCH/case.$i.plan_status"
}
LANES=3
for i in "${!cases[@]}"; do
    [ "$(jobs -rp | wc -l)" -lt $LANES ] || wait -n
    run_case "$i" "${cases[$i]}" &
done
wait
planned=0
for i in "${!cases[@]}"; do
    entry=${cases[$i]}
    want=${entry%%|*}
    read -r -a args <<<"${entry#*|}"
    out=$(cat "$SCRATCH/case.$i.out")
    status=$(cat "$SCRATCH/case.$i.status")
    [ "$status" -eq 2 ] || fail "${args[*]}: exit status $status, expected 2; output: $out"
    messages=$(grep -c '^bench_nbc: ' <<<"$out")
    [ "$messages" -eq 1 ] || fail "${args[*]}: $messages messages, expected one: $out"
    grep -qF -- "$want" <<<"$out" || fail "${args[*]}: message does not name '$want': $out"
    grep -q '^bench_nbc: run folder' <<<"$out" && fail "${args[*]}: a run folder was created: $out"
    # --plan, without MPI, refuses it as the run does; but for dedicated,
    # refused here for 2 ranks sharing 2 cores: the ranks a node holds are
    # the launcher's, unknown to --plan (it plans a rank with every core)
    if [ "${args[*]}" = "--set run.deployment=dedicated" ]; then
        echo "ok: ${args[*]} -> $out"
        continue
    fi
    plan=$(cat "$SCRATCH/case.$i.plan")
    status=$(cat "$SCRATCH/case.$i.plan_status")
    [ "$status" -eq 2 ] || fail "--plan ${args[*]}: exit status $status, expected 2; stderr: $plan"
    grep -qF -- "$want" <<<"$plan" || fail "--plan ${args[*]}: message does not name '$want': $plan"
    echo "ok: ${args[*]} -> $out"
    planned=$((planned + 1))
done
# The mismatch names both libraries: the running one as its profile says.
out=$(mpi_launch -n 2 "$BENCH" --set run.results_dir="$SCRATCH/results" --set run.mpi="$other" 2>&1)
grep -q "run.mpi: \"$other\" but this bench_nbc runs with .* (profile $MPI, identified from MPI_Get_library_version) (allowed here: auto, $MPI;" <<<"$out" ||
    fail "run.mpi=$other on $MPI: the message does not name both: $out"
# The library's progress switch (its profile's, e.g. MPICH_ASYNC_PROGRESS=1)
# contradicting the deployment.
progress_env=$("$TOOLS_DIR/nbc-profile" env --build "$BUILD" --deployment progress | head -n 1)
if [ -n "$progress_env" ]; then
    out=$(export "${progress_env?}" && mpi_launch -n 2 "$BENCH" --set run.results_dir="$SCRATCH/results" 2>&1)
    status=$?
    if [ $status -ne 2 ] || ! grep -qF "${progress_env%%=*}" <<<"$out"; then
        fail "async progress ($progress_env) with basic: status $status: $out"
    fi
else
    echo "note: $MPI has no progress setting: no environment can contradict deployment basic"
fi
# Nothing was measured: the results folder is still empty.
[ -z "$(ls -A "$SCRATCH/results")" ] || fail "bad input left files: $(ls "$SCRATCH/results")"
no_leftovers "$SCRATCH"
figure "$((${#cases[@]} + 1)) bad inputs refused with status 2 and one message on 2 ranks; $planned of them by --plan too, without MPI"
