"""The Runner: one invocation of nbc-run, from the command line to the
summary. It computes nothing itself: every measurement and figure comes
from bench_nbc, compute_ref, nbc-analyze and nbc-compare."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from nbc_tools.cli import ExitStatus, exit_status_help, version_line

from .archive import archive_study
from .cli import TABLE_FORMATS, USAGE, parse_arguments
from .common import (BadInput, allowed, check_list, iso_now, note, read_json, show,
                     stamp_now, write_atomic)
from .coverage import pooled_null_coverage, schema_columns
from .placement import place
from .plan import Planner, calibration_references
from .process import Processes
from .profiles import Profiles, capture
from .records import StudyRecord
from .report import summary, write_table
from .steps import RunSteps
from .study import find_config, read_study

LAUNCHERS = ["auto", "mpiexec", "srun"]


class Runner(RunSteps):
    """Everything one invocation of nbc-run knows and does."""

    def __init__(self, here):
        self.here = here
        # An installed copy (make install: PREFIX/bin holds nbc-run next to
        # bench_nbc, PREFIX/share/bench_nbc the configurations) runs where it
        # is called; the source tree runs from its root and builds with make.
        self.installed = (os.access(os.path.join(here, "bench_nbc"), os.X_OK)
                          and not os.path.isfile(os.path.join(here, "Makefile")))
        if self.installed:
            share = os.path.join(here, "..", "share", "bench_nbc")
            if not os.path.isdir(share):
                raise BadInput("{}/../share/bench_nbc is missing (an incomplete installation)"
                               .format(here))
            self.root = os.path.realpath(share)
            self.workdir = os.getcwd()
        else:
            self.root = here
            self.workdir = here
        self.status = 0
        self.ran_any = False  # some step of some run ran in this invocation
        self.failed = []
        self.analysis_message = ""  # nbc-analyze's, when it finds no valid cell
        self.run_times_s, self.run_started = [], time.monotonic()
        self.record = None

    # ---- the command line and the study ----

    def setup(self, argv):
        o = parse_arguments(argv, os.getcwd())
        if o.help:
            print(USAGE + exit_status_help(), end="")
            sys.exit(ExitStatus.COMPLETE)
        if o.version:
            print(version_line("nbc-run"))
            sys.exit(ExitStatus.COMPLETE)
        if o.format not in TABLE_FORMATS:
            raise BadInput("--format: '{}' is not allowed (allowed: {})".format(
                o.format, allowed(TABLE_FORMATS)))
        if o.archive:
            if o.config or o.recorded or o.resume or o.dry_run or o.no_deps or o.no_build:
                raise BadInput("--archive STUDY_DIR takes no CONFIG nor other option")
            print("archive: " + archive_study(o.archive))
            sys.exit(ExitStatus.COMPLETE)
        if o.resume:
            recorded = read_json(os.path.join(o.resume, "study.json"))
            try:
                self.record = StudyRecord.from_json(recorded)
            except (AttributeError, KeyError, TypeError):
                raise BadInput("--resume: {} has no study.json that nbc-run wrote".format(
                    o.resume))
            if not o.config:
                # The recorded command, with this invocation's own options.
                resumed = parse_arguments(self.record.arguments, self.record.cwd)
                resumed.resume, resumed.dry_run, resumed.verbose = o.resume, o.dry_run, o.verbose
                resumed.no_deps, resumed.no_build = o.no_deps, o.no_build
                o = resumed
        self.o = o
        if o.fingerprint and not o.config:
            o.config = "study-fingerprint.conf"  # (looked up in configs/)
        if not o.config:
            raise BadInput("no CONFIG given (e.g. nbc-run configs/default.conf); see --help")
        config = find_config(o.config, o.base_dir, self.root)
        check_list("--launcher", o.launcher, LAUNCHERS)
        if o.ranks and not re.fullmatch(r"[1-9][0-9]*", o.ranks):
            raise BadInput("--ranks: '{}' is not an integer >= 1".format(o.ranks))
        if o.rsh and not o.hosts:
            raise BadInput("--rsh '{}' needs --hosts (the hosts it reaches)".format(o.rsh))
        for s in o.sets:
            if not re.match(r"[a-z_]+\.[a-z_]+=", s):
                raise BadInput("--set: '{}' is not section.key=value (e.g. --set "
                               "grid.comm_times=1ms,8ms,2)".format(s))
        self.spec = read_study(config, o, self.workdir,
                               self.record.seed if self.record is not None else None)
        os.chdir(self.workdir)

    # ---- the whole study ----

    def save(self):
        if not self.o.dry_run:
            self.record.save(self.study_file)

    def check_deployments(self, p):
        """The study's deployments against those bench_nbc's deployment plan
        knows (bench_nbc --plan): bad input when one is not there. Nothing
        while bench_nbc is not built (build() asks again)."""
        if self.deployments_checked:
            return
        names = self.profiles.planned_deployments(p)
        if names is None:
            return
        check_list("--deployments", ",".join(self.planner.deployments_of(p.mpi_profile)), names)
        self.deployments_checked = True

    def plan(self):
        self.profiles.resolve_auto()
        first = self.profiles.get(self.profiles.mpi_list[0])
        self.check_deployments(first)
        if not self.deployments_checked:
            note("{} is not built yet: the deployments are checked once it is".format(
                first.bench))
        return self.planner.runs()

    def build(self, mpis):
        for mpi in mpis:
            p = self.profiles.get(mpi)
            make = ["make", "-C", self.root] + p.make_args
            if not self.o.no_deps and not self.installed:
                if self.proc.announce(make + ["deps"]) and self.proc.run(
                        make + ["deps"], stdout=sys.stderr) != 0:
                    note("missing packages for {} (above); --no-deps skips this check"
                         .format(mpi))
                    sys.exit(ExitStatus.FAILURE)
            if not self.o.no_build and not self.installed and not self.o.build_dir:
                if self.proc.announce(make + ["programs"]) and self.proc.run(
                        make + ["programs"], stdout=sys.stderr) != 0:
                    note("the build of {} failed (make {} programs)".format(
                        mpi, " ".join(p.make_args)))
                    sys.exit(ExitStatus.FAILURE)
            if self.proc.interrupted:
                sys.exit(ExitStatus.INTERRUPTED)
            if self.o.dry_run:
                continue
            if not os.access(p.bench, os.X_OK):
                note("{} is not built (make MPI={})".format(p.bench, mpi))
                sys.exit(ExitStatus.FAILURE)
            self.check_deployments(p)
            listed = capture([p.bench, "--list"], timeout=60) or ""
            known = [line.split()[0] for line in listed.splitlines()
                     if line.startswith("  ") and line[2:3].islower()]
            if known:
                check_list("--collectives", self.spec.collectives_text, known)

    def check_resumed(self, runs):
        """The runs of the study resumed must be the ones this command would run."""
        recorded = [(r.name, r.launch, r.bench_nbc_args, r.setting) for r in self.record.runs]
        now = [(r.name, r.launch, self.bench_args(r), r.setting) for r in runs]
        if recorded != now:
            raise BadInput("--resume: {} holds other runs than this command would run "
                           "(recorded: {}; now: {}): give the same CONFIG and options, or "
                           "--resume alone".format(
                               self.o.resume, " ".join("{}#{}".format(*r[:2]) for r in recorded),
                               " ".join("{}#{}".format(*r[:2]) for r in now)))

    def validate(self, runs):
        """Every run's configuration as bench_nbc reads it (bench_nbc --plan,
        no MPI), before the first launch and before the study folder: bad
        input at the first it refuses, with its message. (A plan it prints
        with status refused, exit status 2 too, is the machine's answer to a
        valid configuration: the run itself says it.)"""
        for run in runs:
            bench = self.profiles.get(run.mpi).bench
            if not os.access(bench, os.X_OK):
                note("{} is not built: the configurations are not checked".format(bench))
                return
            try:
                done = subprocess.run([bench, "--plan"] + self.bench_args(run),
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, universal_newlines=True,
                                      timeout=60)
            except (OSError, subprocess.SubprocessError) as e:
                raise BadInput("{}: cannot run {} --plan: {}".format(run.name, bench, e))
            try:
                planned = isinstance(json.loads(done.stdout), dict)
            except ValueError:
                planned = False
            if done.returncode != 0 and not planned:
                message = done.stderr.strip().splitlines() or ["exit status {}".format(
                    done.returncode)]
                raise BadInput("{}: bench_nbc refuses its configuration: {}".format(
                    run.name, message[-1].replace("bench_nbc: ", "", 1)))

    def bench_args(self, run):
        return self.spec.bench_args(run.collective, run.deployment, run.mpi,
                                    self.placement.deployment_sets(run.deployment),
                                    run.sets or ())

    def open_study(self, runs):
        """study.json: a new one under the results folder, or the one resumed."""
        spec = self.spec
        if self.o.resume:
            self.study_dir = self.o.resume
            self.study_file = os.path.join(self.study_dir, "study.json")
            self.record.resumed = (self.record.resumed or []) + [iso_now()]
            self.record.status = "running"
            self.record.skipped = self.planner.skipped
            return
        if self.o.dry_run:
            self.study_dir = os.path.join(spec.results_dir, "YYYYmmdd-HHMMSS-study")
        else:
            os.makedirs(spec.results_dir, exist_ok=True)
            stamp = stamp_now()
            for suffix in range(1, 100):
                self.study_dir = os.path.join(spec.results_dir, "{}-study{}".format(
                    stamp, "" if suffix == 1 else "-{}".format(suffix)))
                try:
                    os.mkdir(self.study_dir)
                    break
                except FileExistsError:
                    continue
        self.study_file = os.path.join(self.study_dir, "study.json")
        for i, run in enumerate(runs, 1):
            run.index, run.bench_nbc_args = i, self.bench_args(run)
        for run, ref in zip(runs, calibration_references(runs)):
            run.calibration_from = None if ref is run else ref.index
        deployments = [r.deployment for r in runs]
        self.record = StudyRecord(
            config=spec.config, base_config=spec.base_config, arguments=self.o.recorded,
            cwd=self.o.base_dir, results_dir=spec.results_dir,
            study={"mpi": self.profiles.mpi_list, "collectives": spec.collective_list,
                   "deployments": sorted(set(deployments), key=deployments.index),
                   "ranks": self.placement.ranks,
                   "settings": ({"name": spec.setting_name, "values": spec.setting_values}
                                if spec.setting_values else None),
                   "launches": spec.launches, "launch_order": spec.launch_order,
                   "seed": spec.seed},
            created=iso_now(), status="running", skipped=self.planner.skipped, runs=runs)

    def compare(self, run_dirs_by_collective, all_run_dirs):
        """The runs of each collective (libraries, deployments, launches) side
        by side; when every collective has a single run, all runs side by side."""
        tool = os.path.join(self.tools_dir, "nbc-compare")
        groups = [("-" + coll, dirs) for coll, dirs in run_dirs_by_collective if len(dirs) >= 2]
        if not groups and len(all_run_dirs) >= 2:
            groups = [("", all_run_dirs)]
        results_dir = self.spec.results_dir
        for suffix, dirs in groups:
            if not os.access(tool, os.X_OK) and not self.o.dry_run:
                note("{} is not built: no comparison".format(tool))
                return
            out = os.path.join(results_dir, stamp_now() + "-compare" + suffix)
            for i in range(2, 10):
                if not os.path.exists(out):
                    break
                out = os.path.join(results_dir, "{}-compare{}-{}".format(stamp_now(), suffix, i))
            cmd = [tool] + dirs + ["-o", out]
            if not self.proc.announce(cmd):
                continue
            # Its tables to OUT/nbc-compare.log (the study's end prints the
            # verdict and the equal-work answer from its files); its warnings
            # and any failure on the console, everything with --verbose.
            with tempfile.TemporaryFile("w+") as text:
                status = self.proc.run(cmd, stdout=text)
                text.seek(0)
                lines = text.read().splitlines()
            if os.path.isdir(out):
                write_atomic(os.path.join(out, "nbc-compare.log"),
                             "".join(line + "\n" for line in lines))
            for line in lines:
                if line.startswith("warning"):
                    show(line, sys.stdout)  # (wrapped, as every sentence for the reader)
                elif self.o.verbose or status != 0:
                    print(line, flush=True)
            if status == 0:
                self.record.comparisons.append(out)
            else:
                note("nbc-compare failed")
                self.status = self.status or 1

    def main(self, argv):
        self.setup(argv)
        self.proc = Processes(self.o.dry_run, self.o.verbose)
        self.profiles = Profiles(self.root, self.here, self.installed, self.o,
                                 self.spec.mpis_text)
        self.tools_dir = self.profiles.tools_dir
        self.placement = place(self.o, self.spec.ranks_choice, self.spec.threads_setting)
        self.planner = Planner(self.spec, self.profiles, self.placement)
        self.deployments_checked = False
        runs = self.plan()
        if self.o.resume:
            self.check_resumed(runs)
        self.proc.catch_signals()
        self.build([m for m in self.profiles.mpi_list if any(r.mpi == m for r in runs)])
        self.validate(runs)
        self.open_study(runs)
        runs = self.record.runs
        self.save()
        if not self.o.dry_run:
            note("study {} ({} runs)".format(self.study_file, len(runs)))
        for run in runs:
            self.proc.log_file = ""
            if not self.perform(run):
                break
            if self.proc.interrupted:
                break
        self.proc.log_file = ""
        # Runs without a valid cell have their tables and figures (every cell
        # invalid): they are compared with the others all the same.
        finished = [r for r in runs if r.finished or (self.o.dry_run and r.run_dir)]
        # (A study resumed with nothing left to run keeps its comparisons.)
        if not self.proc.interrupted and (self.ran_any or not self.record.comparisons):
            by_coll = [(c, [r.run_dir for r in finished if r.collective == c])
                       for c in self.spec.collective_list]
            self.compare(by_coll, [r.run_dir for r in finished])
        if self.o.dry_run:
            if self.spec.fingerprint_periods:
                self.fingerprint_page()
            return 0
        if self.proc.interrupted:
            self.record.status = "interrupted"
            self.status = ExitStatus.INTERRUPTED
        else:
            self.record.status = "complete" if all(r.finished for r in runs) else "failed"
            if self.status == 0 and any(r.status == "no_valid_cell" for r in runs):
                self.status = ExitStatus.NO_VALID_CELL
        write_table(self.record, self.study_dir)
        self.record.null_coverage = pooled_null_coverage(
            [r.run_dir for r in finished if r.status == "complete"],
            schema_columns(self.tools_dir))
        self.record.end_time = iso_now()
        self.save()
        self.study_verdict()
        summary(self, finished)
        if self.spec.fingerprint_periods and not self.proc.interrupted:
            self.fingerprint_page()
        return self.status

    def study_verdict(self):
        """nbc-analyze --study: the study's tables over its launches,
        STUDY_DIR/verdict.csv (which the verdict lines print) and
        STUDY_DIR/impact.csv (the MPI impact per configuration and size)."""
        tool = os.path.join(self.tools_dir, "nbc-analyze")
        if not os.access(tool, os.X_OK):
            return  # (said with the runs' analysis step)
        if not self.o.dry_run and not any(r.status == "complete" for r in self.record.runs):
            return  # nothing to pool yet (a study cut before its first run ended): --resume does it
        cmd = [tool, "-q", "--study", self.study_dir]
        if self.proc.announce(cmd) and self.proc.run(cmd) != 0:
            note("nbc-analyze --study failed: no verdict.csv or impact.csv in the study folder")
            self.status = self.status or 1

    def fingerprint_page(self):
        """nbc-fingerprint over the study folder: fingerprint.html and .csv
        in it, the verdict lines on stdout (the ways skipped come from
        study.json's skipped)."""
        tool = os.path.join(self.tools_dir, "nbc-fingerprint")
        if not os.access(tool, os.X_OK) and not self.o.dry_run:
            note("{} is not built: no fingerprint page".format(tool))
            self.status = self.status or 1
            return
        cmd = [tool, self.study_dir]
        if self.proc.announce(cmd) and self.proc.run(cmd) != 0:
            note("nbc-fingerprint failed: no fingerprint page")
            self.status = self.status or 1


def main(argv, here):
    """nbc-run's exit status for argv; here: the folder of the nbc-run script."""
    try:
        return Runner(here).main(argv)
    except BadInput as e:
        note(str(e))
        return ExitStatus.BAD_INPUT
