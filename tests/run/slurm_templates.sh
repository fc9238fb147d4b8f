#!/usr/bin/env bash
# The job template configs/slurm/bench_nbc.sbatch passes shellcheck, asks for
# one rank per node with all its cores, sets the environment bench_nbc needs
# (a fake nbc-run records it), and, under a fake Slurm allocation, makes
# nbc-run --dry-run print the expected launch commands for each deployment
# given as a job argument: srun when there is one (a fake srun that fails if
# really called) with the library profile's PMI plugin, the library's mpiexec
# otherwise. Its array form runs entry i of array_tasks in array task i; a
# first argument that is not an option names the study. The jobs' library is
# make's default one (--mpi auto) unless an option names another.
# (tests/run/slurm_real.sh submits it to a real Slurm.)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
R=$BENCH_NBC_ROOT
template=configs/slurm/bench_nbc.sbatch
[ -f "$R/$template" ] || fail "no $template"
mapfile -t templates < <(cd "$R" && ls configs/slurm/*.sbatch)
[ "${templates[*]}" = "$template" ] || fail "one job template expected, found: ${templates[*]}"

if command -v shellcheck >/dev/null; then
    (cd "$R" && shellcheck -x "$template" configs/slurm/common.sh) || fail "shellcheck found problems"
    linted="shellcheck clean"
else
    echo "note: shellcheck is not installed: the template is not linted"
    linted="not linted (no shellcheck)"
fi
grep -qx '#SBATCH --ntasks-per-node=1' "$R/$template" || fail "$template: no '#SBATCH --ntasks-per-node=1'"
grep -qE '^#SBATCH --cpus-per-task=[0-9]+$' "$R/$template" || fail "$template: no '#SBATCH --cpus-per-task=N'"

# A fake allocation: 4 nodes of 8 cores, one task each; run from elsewhere,
# as sbatch runs a copy of the script in the submission directory's stead.
mkdir -p "$SCRATCH/bin" "$SCRATCH/elsewhere"
# shellcheck disable=SC2016 # expanded by the fake srun
printf '#!/bin/sh\necho "fake srun called: $*" >&2\nexit 99\n' >"$SCRATCH/bin/srun"
chmod +x "$SCRATCH/bin/srun"
# in_job PATH ARGS...: the template's output under the fake allocation.
in_job() {
    local path=$1
    shift
    (cd "$SCRATCH/elsewhere" && env -u BENCH_NBC_ROOT -u MPI -u MPICC -u MPIEXEC -u MAKEFLAGS -u MFLAGS \
        -u MAKELEVEL PATH="$path" SLURM_JOB_ID=77 SLURM_NNODES=4 \
        SLURM_NTASKS=4 SLURM_CPUS_PER_TASK=8 SLURM_SUBMIT_DIR="$R" OMP_PLACES=cores \
        bash "$R/$template" "$@")
}
with_srun=$SCRATCH/bin:$PATH
expect() { grep -Eqx -- "$1" <<<"$out" || fail "$what: no line matching: $1"$'\n'"$out"; }

# What make finds here: the default library (its build, profile, srun plugin)
# and Debian's MPICH and Open MPI.
ask_make() { env -u MPI -u MPICC -u MPIEXEC -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$R" "$@"; }
D=$R/$(ask_make print-build-dir) P=$(ask_make print-mpi-profile)
O=$R/$(ask_make MPI=openmpi print-build-dir) OX=$(ask_make MPI=openmpi print-mpiexec)
M=$R/$(ask_make MPI=mpich print-build-dir)
# field PROFILE NAME: a field of a library profile.
field() { (eval "$("$TOOLS_DIR/nbc-profile" shell "$1")" && echo "${!2}"); }
srun_ranks="srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --cpus-per-task=8"
# expect_run LIB BUILD CONFIG COLLECTIVE DEPLOYMENT [LAUNCH]: the launch of
# bench_nbc (what nbc-run adds after its --set options may vary) and
# compute_ref on every node in its three phases (aa, the A/A partner of
# before; before; after), then nbc-analyze. LAUNCH: the run folder's launch
# number, in a study of several launches.
expect_run() {
    local run_dir="$R/results/YYYYmmdd-HHMMSS-$1-$4-$5${6:+-launch$6}" phase
    expect "\+ $srun_ranks --mpi=$(field "$1" srun_mpi) $2/bench_nbc -c $R/configs/$3 (--set [^ ]+ )*--set run.collective=$4 --set run.deployment=$5 --set run.mpi=$1( .*)?"
    for phase in aa before after; do
        expect "\+ $srun_ranks $2/compute_ref --run $run_dir --phase $phase"
    done
    expect "\+ $TOOLS_ABS/nbc-analyze --table=text $run_dir"
}
checked=0
for dep in basic progress dedicated manual; do
    what="$template --deployments $dep"
    # The default library, or MPICH where it cannot run the deployment.
    lib=$P build=$D lib_args=()
    if [ -n "$(field "$P" "unsupported_$dep")" ]; then
        lib=mpich build=$M lib_args=(--mpi mpich)
    fi
    out=$(in_job "$with_srun" --deployments $dep --dry-run "${lib_args[@]}" 2>"$SCRATCH/stderr") ||
        fail "$what --dry-run: status $?: $(cat "$SCRATCH/stderr")"
    for coll in ibcast ireduce iallgather ialltoall; do
        expect_run "$lib" "$build" paper.conf $coll $dep
    done
    expect "\+ $TOOLS_ABS/nbc-compare( $R/results/YYYYmmdd-HHMMSS-$lib-[a-z]+-$dep){4} -o $R/results/[0-9-]{15}-compare"
    grep -q "fake srun called" "$SCRATCH/stderr" && fail "$what: --dry-run ran srun"
    checked=$((checked + 1))
done

# Another study as the first argument; several deployments in one job.
what="$template configs/study-default.conf"
out=$(in_job "$with_srun" configs/study-default.conf --collectives ibcast,iallreduce \
    --deployments basic,manual --mpi mpich --dry-run 2>&1) || fail "$what: $out"
# Its 5 launches; every run after a collective's first measures with that
# run's calibration (run.calibration_from), the first calibrates.
[ "$(grep -c '/bench_nbc -c ' <<<"$out")" = 20 ] || fail "$what: 5 launches x 2 collectives x 2 deployments expected"$'\n'"$out"
for coll in ibcast iallreduce; do
    first="$R/results/YYYYmmdd-HHMMSS-mpich-$coll-basic-launch1"
    for launch in 1 2 3 4 5; do
        for dep in basic manual; do
            expect_run mpich "$M" default.conf $coll $dep $launch
            [ "$launch,$dep" = 1,basic ] && continue
            expect "\+ $srun_ranks --mpi=pmi2 $M/bench_nbc -c $R/configs/default.conf (--set [^ ]+ )*--set run.collective=$coll --set run.deployment=$dep --set run.mpi=mpich --set run.calibration_from=$first --stop-after calibration .*"
        done
    done
    [ "$(grep -c -- "--set run.collective=$coll .*--set run.calibration_from=" <<<"$out")" = 9 ] ||
        fail "$what: $coll: its first run calibrates, the 9 others take its calibration"$'\n'"$out"
done

# Open MPI (Debian's) under srun: its PMIx plugin; MPICH's: PMI-2.
what="$template --mpi openmpi"
out=$(in_job "$with_srun" --dry-run --collectives iallreduce --mpi openmpi 2>&1) || fail "$what: $out"
expect "\+ $srun_ranks --mpi=pmix $O/bench_nbc -c $R/configs/paper.conf --set run.collective=iallreduce --set run.deployment=basic --set run.mpi=openmpi( .*)?"
what="$template --mpi mpich"
out=$(in_job "$with_srun" --dry-run --collectives iallreduce --mpi mpich 2>&1) || fail "$what: $out"
expect "\+ $srun_ranks --mpi=pmi2 $M/bench_nbc -c $R/configs/paper.conf --set run.collective=iallreduce --set run.deployment=basic --set run.mpi=mpich( .*)?"

# The library's launcher when the allocation has no srun on PATH (Hydra and
# mpirun find the nodes from Slurm themselves): where Slurm is installed, a
# PATH whose folders holding srun are copies without it.
no_srun="" copies=0
IFS=: read -r -a path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
    if [ -x "$d/srun" ]; then
        copies=$((copies + 1)) copy=$SCRATCH/path$copies
        mkdir -p "$copy"
        find "$d" -maxdepth 1 -mindepth 1 ! -name srun -exec ln -s -t "$copy" {} +
        d=$copy
    fi
    no_srun=${no_srun:+$no_srun:}$d
done
what="$template without srun"
out=$(in_job "$no_srun" --dry-run --collectives ibcast --mpi openmpi 2>&1) || fail "$what: $out"
root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag="--allow-run-as-root "
# (found on that PATH: the copy's link when it is in a folder that had srun)
OX="[^ ]*/${OX##*/}"
expect "\+ $OX ${root_flag}--bind-to none --map-by ppr:1:node -n 4 $O/bench_nbc -c $R/configs/paper.conf --set run.collective=ibcast --set run.deployment=basic --set run.mpi=openmpi( .*)?"
expect "\+ $OX ${root_flag}--bind-to none --map-by ppr:1:node -n 4 $O/compute_ref --run .*"

# Open MPI has no progress thread: the job refuses it (exit 2).
in_job "$with_srun" --deployments progress --dry-run --mpi openmpi >"$SCRATCH/out" 2>&1
status=$?
{ [ $status -eq 2 ] && unwrap <"$SCRATCH/out" | grep -q "Open MPI has no asynchronous progress thread"; } ||
    fail "$template --deployments progress --mpi openmpi: status $status: $(cat "$SCRATCH/out")"

# The job array: task i runs entry i of array_tasks (one collective each); a
# task beyond the list is refused.
mapfile -t entries < <(sed -n '/^array_tasks=(/,/^)/s/^ *"--collectives \([a-z_]*\)"$/\1/p' "$R/$template")
[ ${#entries[@]} -ge 2 ] || fail "$template: array_tasks holds no '--collectives NAME' entries"
tasks=0
for task in "${!entries[@]}"; do
    what="$template, array task $task"
    out=$(SLURM_ARRAY_TASK_ID=$task in_job "$with_srun" --deployments manual --dry-run 2>&1) || fail "$what: $out"
    [ "$(grep -c '/bench_nbc -c ' <<<"$out")" = 1 ] || fail "$what: one bench_nbc run expected"$'\n'"$out"
    expect_run "$P" "$D" paper.conf "${entries[$task]}" manual
    tasks=$((tasks + 1))
done
SLURM_ARRAY_TASK_ID=9 in_job "$with_srun" --dry-run >"$SCRATCH/out" 2>&1
status=$?
{ [ $status -eq 2 ] && unwrap <"$SCRATCH/out" | grep -q "array task 9 but ${#entries[@]} array_tasks"; } ||
    fail "$template, array task 9: $(cat "$SCRATCH/out")"

# The environment a job gives nbc-run: a fake checkout whose nbc-run records it.
fake=$SCRATCH/fake-root
mkdir -p "$fake/configs/slurm"
cp "$R/configs/slurm/common.sh" "$fake/configs/slurm/"
# shellcheck disable=SC2016 # expanded by the fake nbc-run
printf '#!/bin/sh\necho "cwd=$PWD"\necho "args=$*"\nenv | grep -E "^(OMP_|SRUN_CPUS)" | sort\n' >"$fake/nbc-run"
chmod +x "$fake/nbc-run"
out=$(cd "$SCRATCH/elsewhere" && env -u BENCH_NBC_ROOT SLURM_JOB_ID=77 SLURM_NNODES=4 SLURM_NTASKS=4 \
    SLURM_CPUS_PER_TASK=8 SLURM_SUBMIT_DIR="$fake" OMP_PLACES=cores OMP_PROC_BIND=close \
    bash "$R/$template" --deployments dedicated --mpi openmpi 2>/dev/null) || fail "$template with a fake nbc-run: $out"
what="$template with a fake nbc-run"
expect "cwd=$fake"
expect "args=configs/study-paper.conf --deployments dedicated --mpi openmpi"
expect "OMP_PROC_BIND=false"
expect "OMP_NUM_THREADS=8"
expect "SRUN_CPUS_PER_TASK=8"
grep -q '^OMP_PLACES' <<<"$out" && fail "the job left OMP_PLACES set: $out"
figure "slurm template: $linted; $checked deployments x 4 collectives, another study, $tasks array tasks print the expected srun/mpiexec commands"
