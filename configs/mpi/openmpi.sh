# shellcheck shell=bash disable=SC2034
# MPI library profile "openmpi" (Debian's Open MPI 4.1), read by nbc-run for
# `--mpi openmpi`. The variables are described in mpich.sh.

mpi_label="Open MPI"
mpi_cc=mpicc.openmpi
mpi_launcher=mpiexec.openmpi
build_dir=build/openmpi

launch_flags=()
# mpirun refuses to start as root unless told.
root_flags=(--allow-run-as-root)
# mpirun refuses more ranks than cores unless told (Open MPI yields when
# oversubscribed, so this is allowed, unlike MPICH).
oversubscribe_flags=(--oversubscribe)
# By default mpirun binds each rank to one core: a rank computing with several
# threads must get the whole node (bench_nbc binds its threads itself).
nobind_flags=(--bind-to none)
hosts_flag=(--host)
per_node_flags=(--map-by 'ppr:{n}:node')
rsh_flags=(--mca plm_rsh_agent)

srun_mpi=pmix

busy_polls=0
# Open MPI 4.1 has no asynchronous progress thread for collectives; bench_nbc
# refuses deployment `progress` with it, nbc-run skips that combination.
async_progress=0
mpi_env=()
