"""The MPI library profiles (configs/mpi/*.ini) and builds: nbc-run reads a
profile through nbc-profile (the same code as bench_nbc's) and asks make
where a library's build is. Nothing of a profile is known here: the
launcher's words come from nbc-profile launch (launch.py)."""
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List

from .common import BadInput, check_list
from .deployments import Table


def capture(cmd, timeout=None):
    """A command's standard output, None when it fails."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, universal_newlines=True,
                              timeout=timeout, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def bench_plan(bench, args=()):
    """bench_nbc --plan ARGS (JSON, no MPI; its exit status is 2 for a
    refused plan, which still lists the deployments): the plan, or the
    exception that kept it from being read."""
    try:
        out = subprocess.run([bench, "--plan"] + list(args), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True,
                             timeout=60).stdout
        return json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        return e


@dataclass
class Profile:
    """A library profile (nbc-profile shell's fields) and its build."""
    mpi_profile: str
    mpi_label: str
    mpi_launcher: str  # the build's launcher (make's MPIEXEC), else the profile's
    busy_polls: bool
    unsupported: Dict[str, str]  # deployment -> why the profile refuses it ("" : runs)
    bin_dir: str = ""
    make_args: List[str] = field(default_factory=list)
    tool: str = "nbc-profile"  # the nbc-profile that read it (launch.py asks it)

    @property
    def bench(self):
        return os.path.join(self.bin_dir, "bench_nbc")

    @classmethod
    def from_fields(cls, fields):
        """From nbc-profile shell's assignments ({name: str or list})."""
        return cls(mpi_profile=fields["mpi_profile"], mpi_label=fields.get("mpi_label", ""),
                   mpi_launcher=fields.get("mpi_launcher", ""),
                   busy_polls=fields.get("busy_polls") == "1",
                   unsupported={k[len("unsupported_"):]: v for k, v in fields.items()
                                if k.startswith("unsupported_")})


class Profiles:
    """nbc-profile and the profile and build of each --mpi entry."""

    def __init__(self, root, here, installed, options, mpis_text):
        self.root, self.here, self.installed, self.o = root, here, installed, options
        # make's TOOLS_DIR: build, or build/san for a sanitized build (SAN=1)
        source_tools = "build/san" if os.environ.get("SAN") else "build"
        self.tools_dir = options.tools_dir or (here if installed else
                                               os.path.join(root, source_tools))
        self.tool = os.path.join(self.tools_dir, "nbc-profile")
        if not os.access(self.tool, os.X_OK) and not installed and not options.tools_dir:
            target = source_tools + "/nbc-profile"
            if subprocess.call(["make", "-s", "-C", root, target], stdout=sys.stderr) != 0:
                raise BadInput("cannot build {} (make {})".format(self.tool, target))
        if not os.access(self.tool, os.X_OK):
            raise BadInput("{} is not built (make builds it)".format(self.tool))
        if installed:
            os.environ.setdefault("BENCH_NBC_PROFILES", os.path.join(root, "configs", "mpi"))
        listed = capture([self.tool, "list"])
        self.known = [line.split("\t")[0] for line in (listed or "").splitlines() if line]
        if not self.known:
            raise BadInput("no MPI library profile could be read (nbc-profile list)")
        self.mpi_list = check_list("--mpi", mpis_text, ["auto"] + self.known + ["generic"])
        self.cache = {}  # --mpi entry -> Profile
        self.table = None  # the deployments (nbc-profile deployments)
        self.plans = {}  # nbc-profile plan's arguments -> the plan

    def fields(self, args, what):
        """nbc-profile shell ARGS: {name: str or list} (bash assignments)."""
        text = capture([self.tool, "shell"] + args)
        if text is None:
            raise BadInput("cannot read " + what)
        fields = {}
        for line in text.splitlines():
            name, _, value = line.partition("=")
            if value.startswith("(") and value.endswith(")"):
                fields[name] = shlex.split(value[1:-1])
            else:
                fields[name] = " ".join(shlex.split(value))
        return fields

    def get(self, mpi):
        """The build folder, make arguments and profile of an --mpi entry:
        --build-dir or the installed copy (their mpi-build.ini names the
        library), else make's build folder, profile and launcher (MPI=NAME when
        Debian's mpicc.NAME exists, else the default wrapper MPICC)."""
        if mpi in self.cache:
            return self.cache[mpi]
        o = self.o
        make_args, profile_name, mpiexec = [], "", ""
        if o.build_dir:
            bin_dir = o.build_dir
        elif self.installed:
            bin_dir = self.here
        else:
            if mpi != "auto" and shutil.which("mpicc." + mpi):
                make_args = ["MPI=" + mpi]
            lines = (capture(["make", "-s", "-C", self.root, "--no-print-directory"] +
                             make_args + ["print-build-dir", "print-mpi-profile",
                                          "print-mpiexec"]) or "").splitlines()
            if len(lines) != 3 or lines[1] == "unidentified":
                raise BadInput("--mpi {}: make finds no MPI library it can identify (make "
                               "print-build-dir)".format(mpi))
            bin_dir = os.path.join(self.root, lines[0])
            profile_name, mpiexec = lines[1], lines[2]
        if profile_name:
            fields = self.fields([profile_name], "the profile " + profile_name)
        elif (os.path.isfile(os.path.join(bin_dir, "mpi-build.ini")) or
              os.path.isfile(os.path.join(bin_dir, "..", "share", "bench_nbc", "mpi-build.ini"))):
            fields = self.fields(["--build", bin_dir], "the library of " + bin_dir)
        elif mpi != "auto":
            fields = self.fields([mpi], "the profile " + mpi)
        else:
            raise BadInput("--mpi auto: {} has no mpi-build.ini naming its library (build it "
                           "with make)".format(bin_dir))
        if mpiexec:
            fields["mpi_launcher"] = mpiexec
        if mpi not in ("auto", fields["mpi_profile"]):
            raise BadInput("--mpi {}: {} is built with {} (profile {}); build {} with its "
                           "compiler wrapper (make MPICC=..., or load its module) or give its "
                           "--build-dir".format(mpi, bin_dir, fields["mpi_label"],
                                                fields["mpi_profile"], mpi))
        profile = Profile.from_fields(fields)
        profile.bin_dir, profile.make_args, profile.tool = bin_dir, make_args, self.tool
        self.cache[mpi] = profile
        return profile

    def resolve_auto(self):
        """auto in the --mpi list: the library of the default build."""
        for i, mpi in enumerate(self.mpi_list):
            if mpi == "auto":
                p = self.get("auto")
                self.cache[p.mpi_profile] = p
                self.mpi_list[i] = p.mpi_profile

    def deployments(self):
        """The deployments' table (deploy/deployments.def), read once."""
        if self.table is None:
            text = capture([self.tool, "deployments"])
            try:
                self.table = Table(json.loads(text or ""))
            except (ValueError, TypeError) as e:
                raise BadInput("{} deployments: no table of the deployments ({}); rebuild it "
                               "(make)".format(self.tool, e))
        return self.table

    def plan(self, p, deployment, cores, sets):
        """The deployment plan of profile p's library for a rank of cores
        cores (0: not known here) with the --set assignments sets: what
        bench_nbc --plan answers, from the same code (nbc-profile plan,
        which needs no build of the library). A refused plan has "status"
        "refused" and its "refusal"."""
        built = (os.path.isfile(os.path.join(p.bin_dir, "mpi-build.ini")) or
                 os.path.isfile(os.path.join(p.bin_dir, "..", "share", "bench_nbc",
                                             "mpi-build.ini")))
        library = ["--build", p.bin_dir] if p.bin_dir and built else [p.mpi_profile]
        args = ["plan"] + library + ["--deployment", deployment, "--cores", str(cores)]
        for s in sets:
            args += ["--set", s]
        key = tuple(args)
        if key not in self.plans:
            out = subprocess.run([self.tool] + args, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
            try:
                self.plans[key] = json.loads(out.stdout)
            except ValueError:
                raise BadInput("{} {}: {}".format(self.tool, " ".join(args),
                                                  out.stderr.strip() or "no plan"))
        return self.plans[key]

    def planned_deployments(self, p):
        """The deployments bench_nbc's deployment plan knows (bench_nbc
        --plan of the default deployment lists every deployment, refused or
        not); None while bench_nbc is not built."""
        if not os.access(p.bench, os.X_OK):
            return None
        plan = bench_plan(p.bench)
        try:
            return [d["name"] for d in plan["deployments"]]
        except (KeyError, TypeError) as e:
            error = plan if isinstance(plan, Exception) else e
            raise BadInput("{} --plan lists no deployments ({}: {}); rebuild it (make)"
                           .format(p.bench, type(error).__name__, error))
