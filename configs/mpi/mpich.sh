# shellcheck shell=bash disable=SC2034
# MPI library profile "mpich" (Debian's MPICH 4, ch4:ucx, Hydra launcher),
# read by nbc-run for `--mpi mpich`. A profile only sets these variables; the
# file name (without .sh) is the library's name everywhere (make MPI=...,
# run.mpi, the run folder's name). To add a library, copy this file.

mpi_label="MPICH"
# The same wrapper the Makefile uses for MPI=mpich; the explicit name, as
# installing Open MPI takes over the plain `mpicc`/`mpiexec`.
mpi_cc=mpicc.mpich
mpi_launcher=mpiexec.mpich
# Where `make MPI=mpich` puts bench_nbc and compute_ref.
build_dir=build/mpich

# Launcher flags. Hydra runs as root, does not bind by default (bench_nbc
# gives each rank of a machine its own slice of cores) and has no notion of
# oversubscription, hence the empty lists.
launch_flags=()
root_flags=()          # added when nbc-run runs as root
oversubscribe_flags=() # added when ranks exceed the cores of one machine
nobind_flags=()        # added when a rank computes with several threads
hosts_flag=(-hosts)    # followed by HOST1,HOST2,... (nbc-run --hosts)
per_node_flags=(-ppn '{n}')                 # {n}: ranks per node
rsh_flags=(-launcher ssh -launcher-exec)    # followed by an ssh stand-in (nbc-run --rsh)

# Inside Slurm, srun starts the ranks itself through this PMI plugin.
srun_mpi=pmi2

# MPICH busy-polls: more ranks than cores on one machine slows every call by
# orders of magnitude, so nbc-run refuses it up front.
busy_polls=1
# Asynchronous progress thread for collectives (deployment `progress`):
# bench_nbc sets MPICH_ASYNC_PROGRESS=1 before MPI_Init.
async_progress=1
# Environment (NAME=VALUE) for every run of this library; none needed here.
mpi_env=()
