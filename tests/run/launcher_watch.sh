#!/usr/bin/env bash
# nbc-run and the processes it launches, with a fake bench_nbc (a script under
# the real launcher): a signal to nbc-run stops the running ranks cleanly
# (interrupted run, exit 3, nothing left running), and ranks that hang
# after bench_nbc wrote its final meta.json (the MPICH finalize hang over TCP)
# are stopped after the grace time, the run going on as complete. The fake
# build is this build's library (its mpi-build.ini: profile, launcher).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
[ -f "$BUILD/mpi-build.ini" ] || fail "$BUILD/mpi-build.ini is missing (make writes it)"
make_scratch
fake=$SCRATCH/fake-build
mkdir -p "$fake" "$SCRATCH/results"
cp "$BUILD/mpi-build.ini" "$fake/"
# The fake bench_nbc: rank 0 (as the launcher numbers it: PMI, Open MPI or
# Slurm) creates the run folder like the real one (or takes --resume's) and
# writes its path into --run-dir-file; then
# FAKE_MODE=hang: final meta.json (calibrated with --stop-after, else
# complete), then never exits; FAKE_MODE=term: runs until SIGTERM, then
# writes status interrupted and exits 3.
cat >"$fake/bench_nbc" <<'FAKE'
#!/usr/bin/env bash
[ "$1" = --list ] && echo "  ibcast                 bytes broadcast from rank 0" && exit 0
# (the deployments nbc-run allows: the real build's plan)
[ "$1" = --plan ] && exec "$REAL_BUILD/bench_nbc" --plan
final=complete dir="" dir_file=""
while [ $# -gt 0 ]; do
    case $1 in
    --resume) dir=$2 && shift ;;
    --run-dir-file) dir_file=$2 && shift ;;
    --stop-after) final=calibrated && shift ;;
    run.results_dir=*) results=${1#*=} ;;
    run.mpi=*) mpi=${1#*=} ;;
    esac
    shift
done
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-0}}}
[ -n "$dir" ] || dir=$results/20990101-000000-$mpi-ibcast-basic
# (one printf, no mv: Open MPI 4.1's mpirun follows its SIGTERM with SIGKILL after
# odls_base_sigkill_timeout, 1 s, and a rank stopped between the two writes leaves
# the old status)
meta() { printf '{\n  "status":"%s",\n  "threads_per_rank":1\n}\n' "$1" >"$dir/meta.json"; }
# (The trap before the run folder is announced: the signal may follow at once.
# Each rank says it holds its trap in FAKE_READY: a rank the signal met before
# its trap would die of it, and the launcher would SIGKILL rank 0 mid-write.
# The other ranks leave only once rank 0 has written, as the real ones stop
# together: a rank that exits first, non-zero, has Open MPI's launcher abort
# the job and kill rank 0, maybe before its write.)
stopped() {
    if [ "$rank" = 0 ]; then
        meta interrupted
    else
        for _ in $(seq 1 100); do
            grep -q '"status":"interrupted"' "$dir/meta.json" 2>/dev/null && break
            sleep 0.05
        done
    fi
    exit 3
}
if [ "$FAKE_MODE" = term ]; then
    trap stopped TERM
    touch "$FAKE_READY/rank.$rank"
fi
if [ "$rank" = 0 ]; then
    mkdir -p "$dir" && meta running && echo "bench_nbc: run folder $dir"
    [ -z "$dir_file" ] || { echo "$dir" >"$dir_file.tmp" && mv "$dir_file.tmp" "$dir_file"; }
fi
[ "$FAKE_MODE" = hang ] && [ "$rank" = 0 ] && meta "$final"
# (sleep in the background: bash runs the trap at once, not after the sleep)
while :; do
    sleep 0.2 &
    wait $!
done
FAKE
printf '#!/bin/sh\nexit 0\n' >"$fake/compute_ref"
chmod +x "$fake/bench_nbc" "$fake/compute_ref"
leftovers() { pgrep -f "$fake/bench_nbc" || true; }

export REAL_BUILD=$BUILD
study=(configs/default.conf --collectives ibcast --mpi "$MPI" --no-deps --no-build
    --build-dir "$fake" --tools-dir "$SCRATCH/tools" --set run.results_dir="$SCRATCH/results")
# Only nbc-profile among the tools: no analysis of the fake runs.
mkdir -p "$SCRATCH/tools"
ln -s "$(cd "$TOOLS_DIR" && pwd)/nbc-profile" "$SCRATCH/tools/"
dir=$SCRATCH/results/20990101-000000-$MPI-ibcast-basic

# A hang after the final meta.json (of the calibration, then of the sweep):
# stopped after the grace time, twice.
start=$SECONDS
out=$(FAKE_MODE=hang NBC_FINALIZE_GRACE_S=2 timeout -k 5 60 ./nbc-run "${study[@]}" 2>"$SCRATCH/stderr")
status=$?
hang_s=$((SECONDS - start))
cat "$SCRATCH/stderr"
[ $status -eq 0 ] || fail "nbc-run with ranks hung after a complete run: status $status"
unwrap <"$SCRATCH/stderr" | grep -q "have not exited (MPI_Finalize hang" || fail "no message about the stopped launcher"
grep -qx "run folder: $dir" <<<"$out" || fail "the complete run is not listed: $out"
[ "$(grep -c "ranks hung in MPI_Finalize" "$dir/nbc-run.log")" = 2 ] ||
    fail "nbc-run.log does not record the two hangs: $(cat "$dir/nbc-run.log")"
[ "$hang_s" -lt 40 ] || fail "took $hang_s s to stop two hung launchers (grace 2 s)"
[ -z "$(leftovers)" ] || fail "fake ranks still running: $(leftovers)"

# stop_study VAR=VALUE...: nbc-run on the fake build in the environment
# given, stopped by SIGTERM once its bench_nbc has started: exit 3, the
# ranks stopped cleanly (meta.json interrupted), nothing left running,
# study.json interrupted and resumable. Sets stop_s.
stop_study() {
    rm -rf "$dir" "$SCRATCH/ready"
    mkdir "$SCRATCH/ready"
    env "$@" FAKE_MODE=term FAKE_READY="$SCRATCH/ready" ./nbc-run "${study[@]}" >"$SCRATCH/out" 2>"$SCRATCH/stderr" &
    runner=$!
    # (bench_nbc's record, its run folder line, goes to the run's log)
    ready() { grep -qs "^bench_nbc: run folder" "$dir/nbc-run.log" && [ -e "$SCRATCH/ready/rank.0" ] && [ -e "$SCRATCH/ready/rank.1" ]; }
    for _ in $(seq 1 100); do
        ready && break
        sleep 0.1
    done
    ready || fail "the fake run did not start with both ranks ready: $(cat "$SCRATCH/stderr")"
    start=$SECONDS
    kill -TERM "$runner"
    wait "$runner"
    status=$?
    cat "$SCRATCH/stderr"
    [ $status -eq 3 ] || fail "nbc-run after SIGTERM: status $status, expected 3 (interrupted)"
    grep -q '"status":"interrupted"' "$dir/meta.json" || fail "the ranks did not get the signal (meta.json not interrupted)"
    grep -q "interrupted" "$SCRATCH/stderr" || fail "nbc-run did not say it was interrupted"
    [ -z "$(leftovers)" ] || fail "fake ranks still running after SIGTERM: $(leftovers)"
    # The study says so, resumable.
    study_json=$(sed -n 's/^study: //p' "$SCRATCH/out")
    [ -f "$study_json" ] || fail "no study.json listed: $(cat "$SCRATCH/out")"
    [ "$(json_get "$study_json" status)" = interrupted ] || fail "study.json: status $(json_get "$study_json" status)"
    [ "$(json_get "$study_json" runs 0 status)" = interrupted ] || fail "study.json: the run is not interrupted"
    [ "$(json_get "$study_json" runs 0 run_dir)" = "$dir" ] || fail "study.json: run_dir $(json_get "$study_json" runs 0 run_dir)"
    grep -q "^resume: nbc-run --resume " "$SCRATCH/out" || fail "nbc-run did not say how to resume"
    stop_s=$((SECONDS - start))
}

# SIGTERM to nbc-run (timeout, scancel): the ranks get it and stop cleanly.
stop_study PATH="$PATH"
term_s=$stop_s

# The same inside a Slurm job (SLURM_JOB_ID), the ranks started by srun: the
# signal goes to them through `scancel --signal=TERM JOBID`, since srun turns a
# SIGTERM of its own into SIGKILL for its ranks (so does the fake srun here,
# which starts the ranks of its --ntasks; the fake scancel sends SIGTERM to the
# ranks of the running step and records its arguments).
slurm=$SCRATCH/slurm
mkdir -p "$slurm/bin"
cat >"$slurm/bin/srun" <<'SRUN'
#!/usr/bin/env bash
n=1
while [[ $1 == --* ]]; do
    [[ $1 == --ntasks=* ]] && n=${1#*=}
    shift
done
pids=()
for ((i = 0; i < n; i++)); do
    SLURM_PROCID=$i "$@" &
    pids+=($!)
done
echo "${pids[*]}" >"$FAKE_SLURM/step.pids"
trap 'kill -KILL "${pids[@]}" 2>/dev/null; exit 143' TERM
for pid in "${pids[@]}"; do
    wait "$pid"
done
SRUN
# shellcheck disable=SC2016 # expanded by the fake scancel
printf '#!/bin/sh
echo "$*" >>"$FAKE_SLURM/scancel.args"
[ "$1" = --signal=TERM ] && kill -TERM $(cat "$FAKE_SLURM/step.pids")
exit 0
' >"$slurm/bin/scancel"
chmod +x "$slurm/bin/srun" "$slurm/bin/scancel"
stop_study PATH="$slurm/bin:$PATH" FAKE_SLURM="$slurm" SLURM_JOB_ID=4242 SLURM_NNODES=1 SLURM_NTASKS=2
[ "$(cat "$slurm/scancel.args" 2>/dev/null)" = "--signal=TERM 4242" ] ||
    fail "scancel not called once as 'scancel --signal=TERM 4242': $(cat "$slurm/scancel.args" 2>&1)"
grep -q "srun --nodes=1 --ntasks=2 .*$fake/bench_nbc" "$dir/nbc-run.log" || fail "the ranks were not started by srun: $(cat "$dir/nbc-run.log")"
grep -qx "+ scancel --signal=TERM 4242" "$SCRATCH/stderr" || fail "nbc-run did not show the scancel command"
figure "launcher watch: hung ranks stopped twice in $hang_s s (grace 2 s);" \
    "SIGTERM stopped the study in $term_s s, exit 3; in a Slurm job through scancel --signal=TERM in $stop_s s"
