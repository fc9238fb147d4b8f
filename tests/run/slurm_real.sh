#!/usr/bin/env bash
# The job template under a real Slurm: a private slurmctld and two slurmd
# ("nodes" n1, n2 of one core each, every daemon under taskset on its core)
# with auth/none, all in a scratch folder. Submitted as a 2-task job array
# (ibcast, ireduce: 2 x 2 cells, 2 repetitions), both run folders must be
# complete with their figures. Submitted again on a 2 x 2 grid and nbc-run
# sent SIGTERM by `scancel --batch --signal=TERM` (it relays it to
# the ranks with `scancel --signal=TERM`) once a cell is kept, the run must be
# `interrupted` with its whole cells; resumed (the same submission with
# nbc-run --resume STUDY_DIR; with an nbc-run without it, bench_nbc --resume
# RUN_DIR under srun) it must complete with the cells kept before the signal
# unchanged. The jobs ReFrame's check and Ramble's application would submit
# run their nbc-run commands to the end, and JUBE's benchmark submits its job
# with sbatch and reads its result once the job's done_file is there. The ranks start with srun through the PMI plugin of the build's
# profile (srun_mpi) when this Slurm has it, else with the library's mpiexec.
# Skips without slurm-wlm (scripts/deps.table: make check installs it as root
# on Debian) or when the daemons do not start.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "a private slurmd runs as root (SlurmdUser=root)"
# The daemons live in sbin, which a login shell's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
for tool in slurmctld slurmd sbatch squeue scancel scontrol srun sinfo; do
    command -v $tool >/dev/null || skip "no $tool: Slurm is not installed (apt-get install slurm-wlm)"
done
command -v taskset >/dev/null || skip "no taskset (util-linux): the two slurmd need a core each"
study_needs
command -v jq >/dev/null || skip "reads meta.json with jq (apt-get install jq)"
make_scratch
start=$EPOCHREALTIME
S=$SCRATCH/slurm
mkdir -p "$S/state" "$S/spool/n1" "$S/spool/n2" "$S/tmp/n1" "$S/tmp/n2" "$S/log"

# Ports of this test's daemons (another Slurm may run here on the usual ones).
port=$((20000 + $$ % 20000))
host=$(hostname -s)
export SLURM_CONF=$S/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=nbctest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
TmpFS=$S/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=300
NodeName=n[1-2] NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1))-$((port + 2)) CPUs=1
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# The daemons, in the foreground of background jobs: their PIDs are ours.
daemons=()
stop_daemons() {
    local pid
    for pid in "${daemons[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null; done
}
trap 'stop_daemons; rm -rf "$SCRATCH"' EXIT
slurmctld -D -i >"$S/log/slurmctld.out" 2>&1 &
daemons+=($!)
core=0
for node in n1 n2; do
    taskset -c $core slurmd -D -N $node >"$S/log/slurmd-$node.out" 2>&1 &
    daemons+=($!)
    core=$((core + 1))
done
# wait_for SECONDS COMMAND...: polls COMMAND every 0.25 s until it succeeds.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.25
    done
}
nodes_idle() { [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq 2 ]; }
wait_for 20 nodes_idle || {
    tail -n 5 "$S"/log/*
    skip "the private Slurm did not start (2 idle nodes within 20 s)"
}

# The build's library under srun when this Slurm has its PMI plugin.
plugin=$(build_field srun_mpi)
if [ -n "$plugin" ] && srun --mpi=list 2>&1 | grep -qw -- "$plugin"; then
    launcher=srun
else
    launcher=mpiexec
    echo "note: srun has no '$plugin' plugin (srun --mpi=list): the ranks start with $MPIEXEC"
fi

# submit OUTPUT_LOG SBATCH_OPTIONS... -- TEMPLATE_ARGS...: the job template
# with one core per node; prints the job id.
submit() {
    local log=$1 opts=()
    shift
    while [ "$1" != -- ]; do
        opts+=("$1")
        shift
    done
    shift
    sbatch --parsable --cpus-per-task=1 --time=5 --output="$log" "${opts[@]}" \
        configs/slurm/bench_nbc.sbatch "$@" | cut -d';' -f1
}
# job_done JOB: no task of JOB is pending or running.
job_done() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }
# finish JOB SECONDS: waits for JOB, cancelling it when it takes longer.
finish() {
    wait_for "$2" job_done "$1" && return 0
    scancel --full "$1"
    wait_for 15 job_done "$1"
    cat "$S"/job-*.out
    fail "job $1 did not end within $2 s"
}
# exit_code JOB: the exit status of the job's batch script (ExitCode=S:SIGNAL).
exit_code() { scontrol -o show job "$1" | grep -o 'ExitCode=[0-9]*' | cut -d= -f2; }
# kept_cells RUN_DIR: the cells of raw.csv (whole cells are written at once).
kept_cells() { awk -F, 'NR > 1 { print $1 }' "$1/raw.csv" 2>/dev/null | sort -u | wc -l; }

# 1. A job array of 2 tasks, one collective each: both complete, with figures.
results=$SCRATCH/array
tiny_args 1ms,4ms,4 2 --launcher $launcher --set run.results_dir="$results"
# CONFIG, then the options without --collectives (each array task adds its own).
array_args=("${study_args[0]}" "${study_args[@]:3}")
job=$(submit "$S/job-%A_%a.out" --array=0-1 -- "${array_args[@]}") || fail "sbatch refused the job array"
finish "$job" 90
for task in 0 1; do
    code=$(exit_code "${job}_$task")
    [ "$code" = 0 ] || fail "array task $task: exit status $code: $(cat "$S/job-${job}_$task.out")"
done
pngs=0
for coll in ibcast ireduce; do
    dirs=("$results"/*-"$MPI"-"$coll"-basic)
    [ -d "${dirs[0]}" ] || fail "no run folder of $coll in $results: $(cat "$S"/job-*.out)"
    dir=${dirs[0]}
    [ "$(json "$dir/meta.json" .status)" = complete ] || fail "$dir: meta.json status $(json "$dir/meta.json" .status)"
    [ "$(json "$dir/meta.json" .ranks)" = 2 ] ||
        fail "$dir: $(json "$dir/meta.json" .ranks) ranks, expected 2 (a PMI that starts each rank alone?)"
    # (a cell whose calibration missed its target by far is unreachable)
    cells=$((4 - $(json "$dir/meta.json" .cells_unreachable)))
    [ $cells -ge 1 ] || fail "$dir: every cell unreachable: $(cat "$S"/job-*.out)"
    [ "$(json "$dir/meta.json" .cells_done)" = $cells ] ||
        fail "$dir: $(json "$dir/meta.json" .cells_done) of $cells cells: $(cat "$S"/job-*.out)"
    grep -q -- "--mpi=$plugin .*/bench_nbc " "$dir/nbc-run.log" || [ $launcher = mpiexec ] ||
        fail "$dir: bench_nbc was not started by srun --mpi=$plugin: $(cat "$dir/nbc-run.log")"
    [ -s "$dir/cells.csv" ] || fail "$dir: nbc-analyze wrote no cells.csv"
    if command -v gnuplot >/dev/null; then
        n=$(find "$dir/plots" -name '*.png' -size +0 | wc -l)
        [ "$n" -ge 3 ] || fail "$dir/plots: $n PNG figures, expected at least 3"
        pngs=$((pngs + n))
    fi
done
array_s=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

# 2. SIGTERM mid-sweep: 2 x 2 cells (2 and 4 ms), enough repetitions that each
# cell lasts seconds: the signal comes while the first of the 3 cells left runs,
# and those 3 are all the resumed job measures (the time of this test).
results=$SCRATCH/cut
tiny_args 2ms,4ms,2 30 --launcher $launcher --set run.results_dir="$results"
job=$(submit "$S/job-cut-%j.out" -- "${study_args[@]}") || fail "sbatch refused the job"
dir=""
one_cell_kept() {
    local dirs=("$results"/*-"$MPI"-ibcast-basic)
    dir=${dirs[0]}
    { [ -d "$dir" ] && [ "$(kept_cells "$dir")" -ge 1 ]; } || job_done "$job"
}
wait_for 60 one_cell_kept || true
job_done "$job" && fail "the job ended before the signal: $(cat "$S"/job-cut-*.out)"
if [ ! -d "$dir" ] || [ "$(kept_cells "$dir")" -lt 1 ]; then
    scancel --full "$job"
    fail "no cell kept within 60 s: $(cat "$S"/job-cut-*.out)"
fi
# To the batch step only, nbc-run (the template execs it), which relays it to
# the job's steps (the ranks) with `scancel --signal=TERM JOBID`: srun turns a
# SIGTERM of its own into SIGKILL for its tasks (--full, the time limit).
scancel --batch --signal=TERM "$job" || fail "scancel --batch --signal=TERM refused"
finish "$job" 30
code=$(exit_code "$job")
out=$(cat "$S/job-cut-$job.out")
echo "$out"
[ "$code" != 0 ] || fail "the job after SIGTERM: exit status 0 (no run interrupted)"
grep -qx "+ scancel --signal=TERM $job" <<<"$out" || fail "nbc-run did not relay the signal with scancel --signal=TERM $job"
meta=$(json "$dir/meta.json" .status)
cells=$(json "$dir/meta.json" .cells_done)
# The signal may come as the sweep ends: then the run is whole already.
[ "$meta" = interrupted ] || [ "$meta" = complete ] || fail "meta.json: status $meta after SIGTERM"
kept=$(kept_cells "$dir")
[ "$kept" -eq "$cells" ] || fail "raw.csv holds $kept cells, meta.json says $cells done"
cp "$dir/raw.csv" "$SCRATCH/raw-before.csv"

# 3. Resumed: the same submission with --resume STUDY_DIR.
if ./nbc-run --help | grep -q -- '--resume STUDY_DIR'; then
    studies=("$results"/*-study)
    [ -f "${studies[0]}/study.json" ] || fail "no study folder in $results"
    job=$(submit "$S/job-resume-%j.out" -- "${study_args[@]}" --resume "${studies[0]}") || fail "sbatch refused the job"
    how="nbc-run --resume STUDY_DIR"
else
    # An nbc-run without --resume: the run folder's own, under srun.
    job=$(sbatch --parsable --nodes=2 --ntasks-per-node=1 --cpus-per-task=1 --time=5 \
        --output="$S/job-resume-%j.out" --wrap "srun --mpi=${plugin:-none} $BUILD/bench_nbc --resume $dir") ||
        fail "sbatch refused the job"
    how="bench_nbc --resume RUN_DIR"
fi
finish "$job" 60
code=$(exit_code "$job")
[ "$code" = 0 ] || fail "the resumed job: exit status $code: $(cat "$S/job-resume-$job.out")"
[ "$(json "$dir/meta.json" .status)" = complete ] || fail "resumed run: meta.json status $(json "$dir/meta.json" .status)"
cells=$((4 - $(json "$dir/meta.json" .cells_unreachable)))
[ "$(json "$dir/meta.json" .cells_done)" = $cells ] ||
    fail "resumed run: $(json "$dir/meta.json" .cells_done) of $cells cells: $(cat "$S/job-resume-$job.out")"
[ "$(kept_cells "$dir")" -eq $cells ] || fail "raw.csv of the resumed run holds $(kept_cells "$dir") cells, expected $cells"
size=$(stat -c %s "$SCRATCH/raw-before.csv")
cmp -s -n "$size" "$SCRATCH/raw-before.csv" "$dir/raw.csv" ||
    fail "raw.csv of the resumed run does not begin with the $kept cells kept before the signal"
# 4. The harnesses' jobs (packaging/; ReFrame and Ramble are not installed
# here): the job each would submit and the command it would run in it, read
# from its file (tests/run/harness_commands.py), with this build and a tiny
# grid added: ReFrame's 2 tasks one per node running nbc-run by the local
# launcher, Ramble's nbc-run with its n_ranks. Each completes, and its
# regular expressions read the job's cells table whole.
harnesses=()
for harness in reframe ramble; do
    IFS=$'\t' read -r -a fields < <(python3 tests/run/harness_commands.py packaging $harness) ||
        fail "$harness: no command read from its file"
    job_opts=() words=()
    for ((i = 0; i < ${#fields[@]}; i++)); do
        [ "${fields[$i]}" = -- ] && { words=("${fields[@]:i+1}"); break; }
        job_opts+=("${fields[$i]}")
    done
    [ "${words[0]}" = nbc-run ] || fail "$harness runs ${words[0]}, not nbc-run"
    tiny_args 1ms,4ms,4 2 --launcher $launcher --set run.results_dir="$SCRATCH/$harness"
    cmd=$(printf '%q ' ./nbc-run "${words[@]:1}" "${study_args[@]:3}")
    job=$(sbatch --parsable --cpus-per-task=1 --time=5 --output="$S/job-$harness-%j.out" "${job_opts[@]}" \
        --wrap "$cmd" | cut -d';' -f1) || fail "sbatch refused the job of $harness (${job_opts[*]})"
    finish "$job" 120
    code=$(exit_code "$job")
    [ "$code" = 0 ] || fail "$harness's job: exit status $code: $(cat "$S/job-$harness-$job.out")"
    python3 - "packaging/$([ $harness = reframe ] && echo reframe/bench_nbc_check.py || echo ramble/application.py)" \
        "$S/job-$harness-$job.out" <<'PY' || fail "$harness: its expressions do not read the job's table: $(cat "$S/job-$harness-$job.out")"
import ast, re, sys
c = {}
for node in ast.parse(open(sys.argv[1]).read()).body:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        try:
            c[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError:
            pass
text = open(sys.argv[2]).read()
rows = re.findall(c["CELL_ROW"], text, re.M)
end = re.search(c["TABLE_END"], text, re.M)
assert end and int(end.group("cells")) == len(rows) == 4, (len(rows), end)
PY
    dirs=("$SCRATCH/$harness"/*-"$MPI"-ibcast-basic)
    [ "$(json "${dirs[0]}/meta.json" .ranks)" = 2 ] || fail "$harness: not 2 ranks: $(cat "$S/job-$harness-$job.out")"
    harnesses+=("$harness (${job_opts[*]})")
done
# JUBE's benchmark as written (tag small): its job script from the template
# submitted with sbatch, `jube continue` until its done_file, then its result
# table (nbc_run and nbc_run_args point at this tree's build).
if command -v jube >/dev/null; then
    mkdir -p "$SCRATCH/jube"
    cp packaging/jube/bench_nbc_job.sh.in "$SCRATCH/jube/"
    # (absolute folders: the job runs in JUBE's work folder)
    BUILD=$(cd "$BUILD" && pwd) TOOLS_DIR=$(cd "$TOOLS_DIR" && pwd) \
        tiny_args 1ms,2ms,2 2 --launcher $launcher --set run.results_dir="$SCRATCH/jube/results"
    jube_args=$(printf '%q ' "${study_args[@]:3}")
    sed -e "s|<parameter name=\"nbc_run\">nbc-run</parameter>|<parameter name=\"nbc_run\">$BENCH_NBC_ROOT/nbc-run</parameter>|" \
        -e "s|<parameter name=\"nbc_run_args\"></parameter>|<parameter name=\"nbc_run_args\" separator=\";\">$jube_args</parameter>|" \
        -e 's|<parameter name="timelimit">00:30:00</parameter>|<parameter name="timelimit">00:05:00</parameter>|' \
        packaging/jube/bench_nbc.xml >"$SCRATCH/jube/bench_nbc.xml"
    (cd "$SCRATCH/jube" && jube run bench_nbc.xml --tag small) >"$S/jube.out" 2>&1 || fail "jube run: $(tail -n 20 "$S/jube.out")"
    jube_done() { (cd "$SCRATCH/jube" && jube continue bench_nbc_run >/dev/null 2>&1) && [ -n "$(find "$SCRATCH/jube/bench_nbc_run" -path '*run/work/ready')" ]; }
    wait_for 120 jube_done || fail "JUBE's job did not end (no done_file): $(find "$SCRATCH/jube" -name 'job.*' -exec cat {} +)"
    (cd "$SCRATCH/jube" && jube continue bench_nbc_run && jube result -a bench_nbc_run) >"$S/jube.result" 2>&1 ||
        fail "jube result: $(cat "$S/jube.result")"
    rows=$(awk -F'|' '$2 ~ /^ *[0-9]+ *$/ && $7 ~ /^ *-?[0-9.]+(e[-+]?[0-9]+)? *$/ { n++ } END { print n + 0 }' "$S/jube.result")
    [ "$rows" = 4 ] || fail "JUBE's result table has $rows rows with r_overhead, expected 4: $(cat "$S/jube.result")"
    grep -q '^#SBATCH --nodes=2$' "$(find "$SCRATCH/jube/bench_nbc_run" -path '*run/work/bench_nbc_job.sh' | head -n 1)" ||
        fail "JUBE's job script is not the template's"
    harnesses+=("JUBE (sbatch, done_file)")
fi

# 5. Degenerate placements under srun are refused before any measurement,
# exit 2 through srun, one message, no run folder: both ranks bound to one
# CPU (as task/affinity does with two node daemons on one machine) and a
# one-rank job.
refusals="not tried (the ranks start with mpiexec here; tests/driver/e2e_placement.sh covers it)"
if [ $launcher = srun ]; then
    # srun_refused WHAT PATTERN SRUN_OPTIONS... -- COMMAND...
    srun_refused() {
        local what=$1 pattern=$2 status=0 opts=() out
        shift 2
        while [ "$1" != -- ]; do
            opts+=("$1")
            shift
        done
        shift
        out=$(timeout 60 srun --mpi="$plugin" --cpus-per-task=1 --time=1 "${opts[@]}" "$@" \
            -c configs/default.conf --set run.results_dir="$SCRATCH/refused" 2>&1) || status=$?
        [ $status -eq 2 ] || fail "srun, $what: status $status, expected 2: $out"
        grep -q "$pattern" <<<"$out" || fail "srun, $what: no message '$pattern': $out"
        [ -z "$(ls -A "$SCRATCH/refused" 2>/dev/null)" ] || fail "srun, $what: a run folder was made: $out"
        echo "srun, $what refused: $(grep -m1 "$pattern" <<<"$out")"
    }
    srun_refused "both ranks on CPU 0" "ranks 0 and 1 of host .* both compute on CPU 0" \
        --nodes=2 --ntasks=2 -- taskset -c 0 "$BUILD/bench_nbc"
    srun_refused "one rank" "one-rank job" --nodes=1 --ntasks=1 -- "$BUILD/bench_nbc"
    refusals="both ranks on CPU 0 and a one-rank job refused with exit 2"
fi

secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
figure "real Slurm (2 slurmd x 1 core, ranks by $launcher${plugin:+ --mpi=$plugin}): array of 2 complete in ${array_s} s with $pngs PNGs; SIGTERM after $kept of 4 cells ($meta), $how: $cells of $cells reachable, kept cells unchanged; the jobs of ${harnesses[*]} complete, tables read; $refusals; ${secs} s in all"
