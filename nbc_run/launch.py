"""nbc-run's launcher command lines: bench_nbc's ranks and compute_ref's
processes. The words that start them (mpiexec and every flag of the library
profile, or srun) are the C builder's, asked once per placement through
`nbc-profile launch` (mpiprofile/launch.c, the one builder, also that of
bench_nbc --replay); here only the placement is described and a command is
shown (the log, --dry-run)."""
import os
import re
import shutil
import subprocess

from .common import BadInput

# (nbc-profile, profile, placement options) -> the launcher's words, or the
# reason the launcher cannot start them
_words = {}


class LaunchRefused(BadInput):
    """The builder refuses the placement (nbc-profile launch, exit status 2):
    the reason, e.g. the busy-poll rule (mpiprofile_ranks_may_share_cores)."""


def shown(cmd, env=None):
    """A command line as a shell reads it (env: NAME=VALUE assignments before
    it); plain words stay unquoted: the rule of mpiprofile_shell_word
    (mpiprofile/launch.c)."""
    words = []
    for word in ["{}={}".format(k, v) for k, v in sorted((env or {}).items())] + cmd:
        plain = re.fullmatch(r"[A-Za-z0-9_./=:,@%+-]+", word)
        words.append(word if plain else "'" + word.replace("'", "'\\''") + "'")
    return "+ " + " ".join(words)


def launcher_words(p, options):
    """nbc-profile launch PROFILE OPTIONS: the launcher's words (cached)."""
    key = (p.tool, p.mpi_profile, tuple(options))
    if key not in _words:
        cmd = [p.tool, "launch", p.mpi_profile] + list(options)
        try:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True, timeout=60, check=True).stdout
            _words[key] = out.splitlines()
        except subprocess.CalledProcessError as e:
            message = e.stderr.strip()
            if e.returncode != 2:
                raise BadInput("{}: {}".format(" ".join(cmd), message))
            _words[key] = LaunchRefused(message[len("nbc-profile: "):]
                                        if message.startswith("nbc-profile: ") else message)
        except (OSError, subprocess.SubprocessError) as e:
            raise BadInput("{}: {}".format(" ".join(cmd), e))
    if isinstance(_words[key], LaunchRefused):
        raise _words[key]
    return list(_words[key])


def launch_refusal(pl, p):
    """Empty when the launcher can start the placement's ranks of bench_nbc
    with the profile p's library, else the builder's reason."""
    try:
        launch_cmd(pl, p, pl.ranks, pl.per_node, pl.threads_of(None), [])
    except LaunchRefused as e:
        return str(e)
    return ""


def launch_cmd(pl, p, nprocs, per_node, threads, args, launcher=None, mpi=True):
    """The command line that starts args as nprocs processes, per_node on
    each node, each computing with threads threads (None: unknown), for the
    placement pl and the profile p; mpi: args is an MPI program (srun's PMI
    plugin)."""
    launcher = launcher or pl.launcher
    options = ["--mode", pl.mode, "--processes", str(nprocs), "--per-node", str(per_node),
               "--threads", str(threads or 0), "--cores-here", str(pl.cores_here)]
    if p.mpi_launcher:
        options += ["--command", p.mpi_launcher]
    if os.getuid() == 0:
        options.append("--as-root")
    if pl.mode == "hosts":
        options += ["--hosts", pl.hosts] + (["--rsh", pl.rsh] if pl.rsh else [])
    if launcher == "srun":
        options += ["--srun", "--nodes", str(pl.nodes),
                    "--cpus-per-task", os.environ.get("SLURM_CPUS_PER_TASK", "")]
        options += [] if mpi else ["--not-mpi"]
    return launcher_words(p, options) + args


def ref_cmd(pl, p, run_dir, phase):
    """t_comp_ref (equation 2): compute_ref once per node, under the run's
    conditions (compute_ref --run reads the ranks of its node, their CPUs,
    the sizes, warm-up and repetitions)."""
    args = [os.path.join(p.bin_dir, "compute_ref"), "--run", run_dir, "--phase", phase]
    if pl.mode == "local":
        return args
    if pl.mode == "slurm":
        if shutil.which("srun"):
            return launch_cmd(pl, p, pl.nodes, 1, None, args, launcher="srun", mpi=False)
        # compute_ref binds its processes itself: no launcher binding
        return launch_cmd(pl, p, pl.nodes, 1, None, args, launcher="mpiexec")
    return launch_cmd(pl, p, pl.nodes, 1, None, args)
