#!/usr/bin/env bash
# nbc-run and the processes it launches, with a fake bench_nbc (a script under
# the real launcher): a signal to nbc-run stops the running ranks cleanly
# (interrupted run, exit 130, nothing left running), and ranks that hang
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
# (The trap before the run folder is announced: the signal may follow at once.)
[ "$FAKE_MODE" = term ] && trap '[ "$rank" = 0 ] && meta interrupted; exit 3' TERM
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
grep -q "have not exited (MPI_Finalize hang" "$SCRATCH/stderr" || fail "no message about the stopped launcher"
grep -qx "run folder: $dir" <<<"$out" || fail "the complete run is not listed: $out"
[ "$(grep -c "ranks hung in MPI_Finalize" "$dir/nbc-run.log")" = 2 ] ||
    fail "nbc-run.log does not record the two hangs: $(cat "$dir/nbc-run.log")"
[ "$hang_s" -lt 40 ] || fail "took $hang_s s to stop two hung launchers (grace 2 s)"
[ -z "$(leftovers)" ] || fail "fake ranks still running: $(leftovers)"

# SIGTERM to nbc-run (timeout, scancel): the ranks get it and stop cleanly.
rm -rf "$dir"
FAKE_MODE=term ./nbc-run "${study[@]}" >"$SCRATCH/out" 2>"$SCRATCH/stderr" &
runner=$!
for _ in $(seq 1 100); do
    grep -q "^bench_nbc: run folder" "$SCRATCH/out" && break
    sleep 0.1
done
grep -q "^bench_nbc: run folder" "$SCRATCH/out" || fail "the fake run did not start: $(cat "$SCRATCH/stderr")"
start=$SECONDS
kill -TERM "$runner"
wait "$runner"
status=$?
cat "$SCRATCH/stderr"
[ $status -eq 130 ] || fail "nbc-run after SIGTERM: status $status, expected 130"
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
figure "launcher watch: hung ranks stopped twice in $hang_s s (grace 2 s);" \
    "SIGTERM stopped the study in $((SECONDS - start)) s, exit 130"
