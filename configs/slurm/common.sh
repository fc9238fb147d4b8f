# shellcheck shell=bash
# Sourced by the job template configs/slurm/bench_nbc.sbatch (not run by
# itself): the environment a bench_nbc job needs, then nbc-run from the
# repository root.
#
# Only the checkout (with build/ and results/) must be visible at the same
# path on every node: nbc-run, bench_nbc and compute_ref share nothing through
# $HOME or /tmp (rank 0 reads the configuration and broadcasts it, every rank
# reads the library profiles of configs/mpi/ and writes into the results
# folder only). The MPI library is the one the job's environment gives make
# (its module's mpicc: nbc-run --mpi auto) unless --mpi names a profile.

# sbatch runs a copy of the template: the repository is where it was submitted.
BENCH_NBC_ROOT=${BENCH_NBC_ROOT:-${SLURM_SUBMIT_DIR:-$PWD}}
cd "$BENCH_NBC_ROOT" || exit 1
# The checkout's nbc-run, else an installed one (make install) on PATH.
nbc_run=./nbc-run
[ -x "$nbc_run" ] || nbc_run=$(command -v nbc-run) ||
    { echo "bench_nbc job: no nbc-run in $BENCH_NBC_ROOT nor on PATH (submit from the repository root)" >&2; exit 2; }

# OpenMP binding: bench_nbc runs one computing thread per core of the rank's
# CPU set and binds each itself (its compute module, one thread per physical
# core). libgomp's own binding (OMP_PLACES, OMP_PROC_BIND=true/close/spread)
# would pin the main thread to one core at start-up, before bench_nbc reads
# its CPU set, and the team would shrink to one thread: keep it off.
export OMP_PROC_BIND=false
unset OMP_PLACES
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
# srun >= 22.05 no longer inherits --cpus-per-task from sbatch; the steps
# nbc-run starts (bench_nbc, compute_ref) must get every core of the node.
[ -z "${SLURM_CPUS_PER_TASK:-}" ] || export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK

# nbc_job_run ARGS...: nbc-run with the template's arguments, then the job's
# own (sbatch TEMPLATE --mpi openmpi ... passes them on).
nbc_job_run() {
    echo "bench_nbc job ${SLURM_JOB_ID:-?}: ${SLURM_NNODES:-?} node(s), ${SLURM_CPUS_PER_TASK:-?} core(s) each: $nbc_run $*" >&2
    exec "$nbc_run" "$@"
}
