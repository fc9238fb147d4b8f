"""The one builder of launcher command lines in nbc-run: bench_nbc's ranks
and compute_ref's processes, with mpiexec (every flag from the library
profile, configs/mpi/*.ini [launcher], read through nbc-profile) or srun
(Slurm's own options; the PMI plugin from the profile), and how a command
is shown (the log, --dry-run)."""
import os
import re
import shutil

# mpiexec's process count: the MPI standard's (MPI-4.0 section 11.5.1), the
# same for every library.
MPIEXEC_COUNT = "-n"
# srun's options for a step: Slurm's, the same for every library.
SRUN_OPTIONS = [("--nodes=", "nodes"), ("--ntasks=", "ntasks"),
                ("--ntasks-per-node=", "per_node")]


def shown(cmd, env=None):
    """A command line as a shell reads it (env: NAME=VALUE assignments before
    it); plain words stay unquoted."""
    words = []
    for word in ["{}={}".format(k, v) for k, v in sorted((env or {}).items())] + cmd:
        plain = re.fullmatch(r"[A-Za-z0-9_./=:,@%+-]+", word)
        words.append(word if plain else "'" + word.replace("'", "'\\''") + "'")
    return "+ " + " ".join(words)


def srun_cmd(nodes, ntasks, per_node, srun_mpi=None):
    """srun for one step: nodes, ntasks, per_node tasks on each node (with
    the allocation's CPUs per task), through the PMI plugin srun_mpi."""
    values = {"nodes": nodes, "ntasks": ntasks, "per_node": per_node}
    cmd = ["srun"] + ["{}{}".format(flag, values[key]) for flag, key in SRUN_OPTIONS]
    cpus = os.environ.get("SLURM_CPUS_PER_TASK", "")
    cmd += ["--cpus-per-task=" + cpus] if cpus else []
    return cmd + (["--mpi=" + srun_mpi] if srun_mpi is not None else [])


def launch_cmd(pl, p, nprocs, per_node, threads, args, launcher=None):
    """The command line that starts args as nprocs processes, per_node on
    each node, each computing with threads threads (None: unknown), for the
    placement pl and the profile p."""
    launcher = launcher or pl.launcher
    if launcher == "srun":
        return srun_cmd(pl.nodes, nprocs, per_node, p.srun_mpi) + args
    cmd = [p.mpi_launcher] + p.launch_flags
    if os.getuid() == 0:
        cmd += p.root_flags
    if pl.mode == "local" and nprocs > pl.cores_here:
        cmd += p.oversubscribe_flags
    if threads is None or threads > 1:
        cmd += p.nobind_flags
    if pl.mode == "hosts":
        if pl.rsh:
            cmd += p.rsh_flags + [pl.rsh]
        cmd += p.hosts_flag + [pl.hosts]
    if pl.mode != "local":
        cmd += [f.replace("{n}", str(per_node)) for f in p.per_node_flags]
    return cmd + [MPIEXEC_COUNT, str(nprocs)] + args


def ref_cmd(pl, p, run_dir, phase):
    """t_comp_ref (equation 2): compute_ref once per node, under the run's
    conditions (compute_ref --run reads the ranks of its node, their CPUs,
    the sizes, warm-up and repetitions)."""
    args = [os.path.join(p.bin_dir, "compute_ref"), "--run", run_dir, "--phase", phase]
    if pl.mode == "local":
        return args
    if pl.mode == "slurm":
        if shutil.which("srun"):
            return srun_cmd(pl.nodes, pl.nodes, 1) + args
        # compute_ref binds its processes itself: no launcher binding
        return launch_cmd(pl, p, pl.nodes, 1, None, args, launcher="mpiexec")
    return launch_cmd(pl, p, pl.nodes, 1, None, args)
