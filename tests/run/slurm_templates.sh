#!/usr/bin/env bash
# Every sbatch template of configs/slurm/ passes shellcheck, asks for one rank
# per node with all its cores, sets the environment bench_nbc needs (a fake
# nbc-run records it), and, under a fake Slurm allocation, makes nbc-run
# --dry-run print the expected launch commands: srun when there is one
# (a fake srun that fails if really called) with the library profile's PMI
# plugin, the library's mpiexec otherwise. The jobs' library is make's default
# one (--mpi auto) unless an option names another.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
R=$BENCH_NBC_ROOT
mapfile -t templates < <(cd "$R" && ls configs/slurm/*.sbatch)
[ ${#templates[@]} -ge 5 ] || fail "expected a template per deployment and a job array, found: ${templates[*]}"

if command -v shellcheck >/dev/null; then
    (cd "$R" && shellcheck -x "${templates[@]}" configs/slurm/common.sh) || fail "shellcheck found problems"
    linted="shellcheck clean"
else
    echo "note: shellcheck is not installed: templates not linted"
    linted="not linted (no shellcheck)"
fi
for t in "${templates[@]}"; do
    grep -qx '#SBATCH --ntasks-per-node=1' "$R/$t" || fail "$t: no '#SBATCH --ntasks-per-node=1'"
    grep -qE '^#SBATCH --cpus-per-task=[0-9]+$' "$R/$t" || fail "$t: no '#SBATCH --cpus-per-task=N'"
done

# A fake allocation: 4 nodes of 8 cores, one task each; run from elsewhere,
# as sbatch runs a copy of the script in the submission directory's stead.
mkdir -p "$SCRATCH/bin" "$SCRATCH/elsewhere"
# shellcheck disable=SC2016 # expanded by the fake nbc-run
printf '#!/bin/sh\necho "fake srun called: $*" >&2\nexit 99\n' >"$SCRATCH/bin/srun"
chmod +x "$SCRATCH/bin/srun"
# in_job [PATH_PREFIX] TEMPLATE ARGS...: the template's output under the fake allocation.
in_job() {
    local path_prefix=$1 template=$2
    shift 2
    (cd "$SCRATCH/elsewhere" && env -u BENCH_NBC_ROOT -u MPI -u MPICC -u MPIEXEC -u MAKEFLAGS -u MFLAGS \
        -u MAKELEVEL PATH="$path_prefix$PATH" SLURM_JOB_ID=77 SLURM_NNODES=4 \
        SLURM_NTASKS=4 SLURM_CPUS_PER_TASK=8 SLURM_SUBMIT_DIR="$R" OMP_PLACES=cores \
        bash "$R/$template" "$@")
}
expect() { grep -Eqx -- "$1" <<<"$out" || fail "$template: no line matching: $1"$'\n'"$out"; }

# What make finds here: the default library (its build, profile, srun plugin)
# and Debian's MPICH and Open MPI.
ask_make() { env -u MPI -u MPICC -u MPIEXEC -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$R" "$@"; }
D=$R/$(ask_make print-build-dir) P=$(ask_make print-mpi-profile)
O=$R/$(ask_make MPI=openmpi print-build-dir) OX=$(ask_make MPI=openmpi print-mpiexec)
M=$R/$(ask_make MPI=mpich print-build-dir)
# field PROFILE NAME: a field of a library profile.
field() { (eval "$("$TOOLS_DIR/nbc-profile" shell "$1")" && echo "${!2}"); }
# What nbc-run adds to the first bench_nbc command of a run.
stop_after="--stop-after calibration --run-dir-file $R/results/YYYYmmdd-HHMMSS-study/run-[0-9]{3}\.path"
checked=0
for dep in basic progress dedicated manual; do
    template=configs/slurm/$dep.sbatch
    [ -f "$R/$template" ] || fail "no template for deployment $dep"
    # The default library, or MPICH where it cannot run the deployment.
    lib=$P build=$D lib_args=()
    if [ -n "$(field "$P" "unsupported_$dep")" ]; then
        lib=mpich build=$M lib_args=(--mpi mpich)
    fi
    out=$(in_job "$SCRATCH/bin:" "$template" --dry-run "${lib_args[@]}" 2>"$SCRATCH/stderr") ||
        fail "$template --dry-run: status $?: $(cat "$SCRATCH/stderr")"
    for coll in ibcast ireduce iallgather ialltoall; do
        run_dir="$R/results/YYYYmmdd-HHMMSS-$lib-$coll-$dep"
        ranks="srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --cpus-per-task=8 --mpi=$(field "$lib" srun_mpi)"
        expect "\+ $ranks $build/bench_nbc -c $R/configs/paper.conf --set run.collective=$coll --set run.deployment=$dep --set run.mpi=$lib $stop_after"
        expect "\+ $ranks $build/bench_nbc --resume $run_dir"
        for phase in before after; do
            expect "\+ srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --cpus-per-task=8 $build/compute_ref --run $run_dir --phase $phase"
        done
        expect "\+ $R/build/nbc-analyze $run_dir"
    done
    expect "\+ $R/build/nbc-compare( $R/results/YYYYmmdd-HHMMSS-$lib-[a-z]+-$dep){4} -o $R/results/[0-9-]{15}-compare"
    grep -q "fake srun called" "$SCRATCH/stderr" && fail "$template: --dry-run ran srun"
    checked=$((checked + 1))
done

# Open MPI (Debian's) under srun: its PMIx plugin; MPICH's: PMI-2.
template=configs/slurm/manual.sbatch
out=$(in_job "$SCRATCH/bin:" "$template" --dry-run --collectives iallreduce --mpi openmpi 2>&1) || fail "$template --mpi openmpi: $out"
expect "\+ srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --cpus-per-task=8 --mpi=pmix $O/bench_nbc -c $R/configs/paper.conf --set run.collective=iallreduce --set run.deployment=manual --set run.mpi=openmpi $stop_after"
out=$(in_job "$SCRATCH/bin:" "$template" --dry-run --collectives iallreduce --mpi mpich 2>&1) || fail "$template --mpi mpich: $out"
expect "\+ srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --cpus-per-task=8 --mpi=pmi2 $M/bench_nbc -c $R/configs/paper.conf --set run.collective=iallreduce --set run.deployment=manual --set run.mpi=mpich $stop_after"

# The library's launcher when the allocation has no srun on PATH (Hydra and
# mpirun find the nodes from Slurm themselves).
if ! command -v srun >/dev/null; then
    template=configs/slurm/basic.sbatch
    out=$(in_job "" "$template" --dry-run --collectives ibcast --mpi openmpi 2>&1) || fail "$template without srun: $out"
    root_flag=""
    [ "$(id -u)" -eq 0 ] && root_flag="--allow-run-as-root "
    expect "\+ $OX ${root_flag}--bind-to none --map-by ppr:1:node -n 4 $O/bench_nbc -c $R/configs/paper.conf --set run.collective=ibcast --set run.deployment=basic --set run.mpi=openmpi $stop_after"
    expect "\+ $OX ${root_flag}--bind-to none --map-by ppr:1:node -n 4 $O/compute_ref --run .* --phase before"
fi

# Open MPI has no progress thread: the progress template refuses it (exit 2).
in_job "$SCRATCH/bin:" configs/slurm/progress.sbatch --dry-run --mpi openmpi >"$SCRATCH/out" 2>&1
status=$?
{ [ $status -eq 2 ] && grep -q "Open MPI has no asynchronous progress thread" "$SCRATCH/out"; } ||
    fail "progress.sbatch --mpi openmpi: status $status: $(cat "$SCRATCH/out")"

# The job array: task i runs collective i; a task beyond the list is refused.
template=configs/slurm/sweep-array.sbatch
tasks=0
for task in 0 1 2 3; do
    out=$(SLURM_ARRAY_TASK_ID=$task in_job "$SCRATCH/bin:" "$template" --dry-run 2>&1) || fail "$template task $task: $out"
    coll=$(sed -n "s|.*/bench_nbc -c $R/configs/paper.conf --set run.collective=\([a-z_]*\) .*|\1|p" <<<"$out")
    want=$(sed -n 's/^collectives=(\(.*\))$/\1/p' "$R/$template" | cut -d' ' -f$((task + 1)))
    { [ -n "$coll" ] && [ "$coll" = "$want" ]; } || fail "$template task $task ran '$coll', expected '$want'"
    [ "$(grep -c '/bench_nbc -c ' <<<"$out")" = 1 ] || fail "$template task $task: one bench_nbc run expected"
    tasks=$((tasks + 1))
done
SLURM_ARRAY_TASK_ID=9 in_job "$SCRATCH/bin:" "$template" --dry-run >"$SCRATCH/out" 2>&1
status=$?
{ [ $status -eq 2 ] && grep -q "array task 9 but 4 collectives" "$SCRATCH/out"; } || fail "$template task 9: $(cat "$SCRATCH/out")"

# The environment a job gives nbc-run: a fake checkout whose nbc-run records it.
fake=$SCRATCH/fake-root
mkdir -p "$fake/configs/slurm"
cp "$R/configs/slurm/common.sh" "$fake/configs/slurm/"
# shellcheck disable=SC2016 # expanded by the fake nbc-run
printf '#!/bin/sh\necho "cwd=$PWD"\necho "args=$*"\nenv | grep -E "^(OMP_|SRUN_CPUS)" | sort\n' >"$fake/nbc-run"
chmod +x "$fake/nbc-run"
out=$(cd "$SCRATCH/elsewhere" && env -u BENCH_NBC_ROOT SLURM_JOB_ID=77 SLURM_NNODES=4 SLURM_NTASKS=4 \
    SLURM_CPUS_PER_TASK=8 SLURM_SUBMIT_DIR="$fake" OMP_PLACES=cores OMP_PROC_BIND=close \
    bash "$R/configs/slurm/dedicated.sbatch" --mpi openmpi 2>/dev/null) || fail "dedicated.sbatch with a fake nbc-run: $out"
template=dedicated.sbatch
expect "cwd=$fake"
expect "args=configs/study-paper.conf --deployments dedicated --mpi openmpi"
expect "OMP_PROC_BIND=false"
expect "OMP_NUM_THREADS=8"
expect "SRUN_CPUS_PER_TASK=8"
grep -q '^OMP_PLACES' <<<"$out" && fail "the job left OMP_PLACES set: $out"
figure "slurm templates: ${#templates[@]}, $linted; $checked deployment templates x 4 collectives and $tasks array tasks print the expected srun/mpiexec commands"
