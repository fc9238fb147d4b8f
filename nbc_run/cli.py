"""The command line of nbc-run: its options (argparse), the --help text and
the arguments study.json records (those `nbc-run --resume STUDY_DIR` alone
runs again)."""
import argparse
import os
from dataclasses import dataclass, field
from typing import List

from .common import BadInput

# Options: name -> (attribute of Options, takes a value).
OPTIONS = {
    "--collectives": ("collectives", True), "--deployments": ("deployments", True),
    "--mpi": ("mpi", True), "--set": ("sets", True), "--ranks": ("ranks", True),
    "--hosts": ("hosts", True), "--rsh": ("rsh", True), "--launcher": ("launcher", True),
    "--build-dir": ("build_dir", True), "--tools-dir": ("tools_dir", True),
    "--launches": ("launches", True), "--launch-order": ("launch_order", True),
    "--seed": ("seed", True), "--resume": ("resume", True), "--settings": ("settings", True),
    "--no-deps": ("no_deps", False), "--no-build": ("no_build", False),
    "--archive": ("archive", True), "--format": ("format", True),
    "--dry-run": ("dry_run", False), "--fingerprint": ("fingerprint", False),
    "--verbose": ("verbose", False), "-v": ("verbose", False),
    "--help": ("help", False), "-h": ("help", False),
    "--version": ("version", False), "-V": ("version", False),
}
# Options that only say how this invocation runs (not recorded in study.json).
INVOCATION_OPTIONS = {"--resume", "--dry-run", "--no-deps", "--no-build", "--archive", "--format",
                      "--verbose", "-v", "--help", "-h", "--version", "-V"}
# Option values that are paths, made absolute from where nbc-run was called.
PATH_OPTIONS = {"build_dir", "tools_dir", "resume", "archive"}
# The options the message of an unknown one lists.
LISTED_OPTIONS = ("--collectives, --deployments, --mpi, --settings, --set, --ranks, --launches, "
                  "--launch-order, --seed, --resume, --hosts, --rsh, --launcher, --build-dir, "
                  "--tools-dir, --no-deps, --no-build, --dry-run, --verbose, --fingerprint, "
                  "--archive, --help")
# --format: whether and how each run's cells table reaches stdout (nbc-analyze
# --table; none: the run's nbc-run.log alone).
TABLE_FORMATS = ["none", "text", "json"]

USAGE = """\
usage: nbc-run CONFIG [options]
       nbc-run --fingerprint [CONFIG] [options]
       nbc-run --resume STUDY_DIR [--no-deps] [--no-build] [--dry-run]
       nbc-run --archive STUDY_DIR
Runs a study: for each MPI library x collective x deployment, `launches` times,
bench_nbc up to its calibration, compute_ref (phase before) on every node, the
passive step, sweep and passive step (bench_nbc --resume), compute_ref (phase
after), nbc-analyze (an ABBA order for r_MPI_impact, eq. 2); then
nbc-compare over the run folders. Prints the run folders and the PNG figures
at the end; STUDY_DIR/study.json records the study and every run. Every run's
configuration is checked by bench_nbc (--plan) before the first launch: a
refused one stops the study before anything is written (exit status 2).

CONFIG is a bench_nbc configuration (configs/default.conf, configs/paper.conf)
or a study file with a [study] section (configs/study-default.conf):
  [study] config = FILE (relative to the study file), collectives = LIST,
  deployments = LIST, mpi = LIST, settings = NAME=V1,V2,..., ranks = N|auto, launches = N,
  launch_order = interleaved|shuffled, seed = N, fingerprint = P1,P2,... (a
  fingerprint's MPI_Test periods in us, as --fingerprint); any other section's keys
  override the configuration like --set.

  --collectives LIST  e.g. ibcast,iallreduce (default: the study's, else run.collective)
  --deployments LIST  e.g. basic,progress: those of bench_nbc's deployment plan
                      (bench_nbc --plan | jq .deployments; default: the study's,
                      else run.deployment); auto: basic, the library's own
                      progress thread (else the suite's, thread), and dedicated
                      where a core per rank is left free
  --settings NAME=V1,V2,...  a library setting the study varies: one run per value,
                      with NAME=VALUE in the environment of its ranks (e.g.
                      MPIR_CVAR_IBCAST_INTRA_ALGORITHM=sched_binomial,sched_smp)
  --mpi LIST          auto (the library make builds with) or profiles of configs/mpi/
                      (nbc-profile list; default: the study's, else run.mpi, else auto)
  --fingerprint       the library's progress fingerprint: every deployment its profile
                      allows here (basic, progress, dedicated, thread) and MPI_Test
                      polling every P us (deployment manual, progress.test_period_us) for
                      the periods of the study key fingerprint (default 100,1000), the
                      ways it cannot run listed with the reason; then nbc-fingerprint
                      writes STUDY_DIR/fingerprint.html, .csv and the verdict lines.
                      CONFIG defaults to configs/study-fingerprint.conf (3 x 3 cells,
                      1-16 ms, ibcast); --mpi mpich,openmpi puts both on one page
  --set KEY=VALUE     override one bench_nbc key (section.key), repeatable
  --ranks N           MPI ranks (default: in Slurm SLURM_NTASKS, with --hosts one
                      per host, else min(2, cores))
  --launches N        runs of each configuration, each a new bench_nbc job (default 1)
  --launch-order O    interleaved (A B C A B C ...) or shuffled (each round of
                      configurations in a random order; default interleaved)
  --seed N            the seed of the shuffled order (default: chosen, recorded)
  --resume STUDY_DIR  continue that study: finished runs are skipped, a cut-off
                      run continues in its folder, the others run; alone, it
                      takes CONFIG and the options from STUDY_DIR/study.json
  --archive STUDY_DIR  writes STUDY_DIR.tar.gz next to it: the study folder, its
                      run folders and comparisons, and SHA256SUMS of every file
                      (sha256sum -c checks them); nothing runs
  --hosts H1,H2,...   run on these hosts, one rank each (env NBC_HOSTS)
  --rsh PROGRAM       start remote processes with PROGRAM instead of ssh (env NBC_RSH)
  --launcher L        auto (srun inside Slurm when available, else the library's
                      mpiexec), mpiexec or srun
  --build-dir DIR     where bench_nbc and compute_ref are (default: next to nbc-run when
                      installed, else make's build folder of the library)
  --tools-dir DIR     where nbc-analyze, nbc-compare, nbc-profile are (default: build, build/san with SAN=1)
  --no-deps           do not check/install Debian packages (scripts/deps.sh)
  --no-build          do not run make
  --dry-run           check every run's configuration with bench_nbc (exit 2 at the
                      first refused), then print every command instead of running it
  -v, --verbose       also show each command and the tools' records (calibration
                      sizes, barrier notes, cells tables), which otherwise go to the
                      run's nbc-run.log
  --format F          each run's cells table on stdout too, for a harness that reads
                      it there (nbc-analyze --table): text (aligned, the file cells.txt)
                      or json (JSON lines); default none (the run's nbc-run.log alone)
  -h, --help          this text
  -V, --version       the version and revision
Relative paths in a configuration (run.results_dir) are relative to the
repository root, where nbc-run runs everything (an installed copy: the current
directory); paths on the command line are relative to the current directory;
a CONFIG that is not there is looked up in the configurations (configs/).
Exit status 2 also when nothing is runnable; 5 when every run was done but
some have no valid cell (the others' figures are made); 3 when interrupted
(resume with --resume STUDY_DIR). docs/running.md explains studies, launches,
resuming, profiles, batch jobs, nodes.
"""


@dataclass
class Options:
    """One invocation's command line (paths absolute from base_dir)."""
    config: str = ""
    base_dir: str = ""  # where relative paths start
    collectives: str = ""
    deployments: str = ""
    mpi: str = ""
    ranks: str = ""
    settings: str = ""
    hosts: str = field(default_factory=lambda: os.environ.get("NBC_HOSTS", ""))
    rsh: str = field(default_factory=lambda: os.environ.get("NBC_RSH", ""))
    launcher: str = "auto"
    build_dir: str = ""
    tools_dir: str = ""
    launches: str = ""
    launch_order: str = ""
    seed: str = ""
    resume: str = ""
    archive: str = ""
    sets: List[str] = field(default_factory=list)
    no_deps: bool = False
    no_build: bool = False
    dry_run: bool = False
    verbose: bool = False
    fingerprint: bool = False
    help: bool = False
    version: bool = False
    format: str = "none"
    recorded: List[str] = field(default_factory=list)  # the arguments study.json keeps


class _Parser(argparse.ArgumentParser):
    """argparse, its errors as nbc-run's bad input (exit status 2, one line)."""

    def error(self, message):
        name, _, what = message.partition(": ")
        if name.startswith("argument ") and what.startswith("expected one argument"):
            raise BadInput("option {} needs a value; see --help".format(name[len("argument "):]))
        raise BadInput(message)


class _Option(argparse.Action):
    """Stores one option into Options, in argument order (study.json's
    arguments keep that order)."""

    def __call__(self, parser, namespace, values, option_string=None):
        o = namespace.options
        attr, takes_value = OPTIONS[option_string]
        value = values if takes_value else ""
        if attr in PATH_OPTIONS:
            value = _absolute(o.base_dir, value)
        elif attr == "sets" and value.startswith("run.results_dir="):
            value = "run.results_dir=" + _absolute(o.base_dir, value.split("=", 1)[1])
        if option_string not in INVOCATION_OPTIONS:
            o.recorded += [option_string, value] if takes_value else [option_string]
        if attr == "sets":
            o.sets.append(value)
        else:
            setattr(o, attr, value if takes_value else True)


class _Config(argparse.Action):
    """CONFIG: one, recorded where it was given."""

    def __call__(self, parser, namespace, values, option_string=None):
        o = namespace.options
        for arg in values:
            if arg.startswith("-"):  # (argparse takes -5 for a word)
                raise BadInput("unknown option '{}' (allowed: {})".format(arg, LISTED_OPTIONS))
            if o.config:
                raise BadInput("unexpected argument '{}': one CONFIG only (options start "
                               "with --)".format(arg))
            o.config = arg
            o.recorded.append(arg)


def _absolute(base_dir, path):
    return path if os.path.isabs(path) else os.path.join(base_dir, path)


def _parser():
    parser = _Parser(prog="nbc-run", add_help=False, allow_abbrev=False)
    for name, (attr, takes_value) in OPTIONS.items():
        parser.add_argument(name, dest="option" + name, action=_Option,
                            nargs=None if takes_value else 0, default=argparse.SUPPRESS)
    parser.add_argument("config", nargs="*", action=_Config, default=argparse.SUPPRESS)
    return parser


def parse_arguments(argv, base_dir):
    """The options of argv; paths relative to base_dir are made absolute."""
    o = Options(base_dir=base_dir)
    # --FLAG=VALUE: the flag, its value ignored.
    words = []
    for arg in argv:
        name = arg.split("=", 1)[0]
        words.append(name if arg.startswith("--") and OPTIONS.get(name, ("", True))[1] is False
                     else arg)
    _, extras = _parser().parse_known_args(words, argparse.Namespace(options=o))
    for arg in extras:
        if arg.startswith("-"):
            raise BadInput("unknown option '{}' (allowed: {})".format(
                arg.split("=", 1)[0], LISTED_OPTIONS))
        raise BadInput("unexpected argument '{}': one CONFIG only (options start with --)"
                       .format(arg))
    return o
