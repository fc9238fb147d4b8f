"""One run's steps, in the ABBA order of equation 2 (compute_ref, passive |
sweep | passive, compute_ref): bench_nbc up to its calibration, compute_ref
--phase aa and --phase before (the A/A pair), bench_nbc --resume (passive
step, sweep, passive step), compute_ref --phase after, nbc-analyze: two
impact pairs and one A/A pair, each two processes adjacent in time. A run resumed does only the steps
its study.json and meta.json do not show done. RunSteps is a part of the
Runner (main.py), whose state it uses."""
import csv
import io
import os
import sys
import tempfile
import time

from nbc_tools.cli import ExitStatus

from .common import duration, iso_now, meta_status, note, read_json, show, write_atomic
from .launch import launch_cmd, ref_cmd, shown
from .profiles import bench_plan
from .records import STEPS


def drop_phase_rows(path, phase):
    """Removes the rows of one phase from compute_ref.csv (those a compute_ref
    cut short left), atomically; nothing when there are none."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        return
    if not rows or "phase" not in rows[0]:
        return
    column = rows[0].index("phase")
    kept = [rows[0]] + [r for r in rows[1:] if len(r) > column and r[column] != phase]
    if len(kept) == len(rows):
        return
    note("{}: dropping {} row(s) of phase {} left by a compute_ref cut short".format(
        path, len(rows) - len(kept), phase))
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(kept)
    write_atomic(path, text.getvalue())


class RunSteps:
    def perform(self, run):
        """The steps of one run still to do. False when the study must stop."""
        p = self.profiles.get(run.mpi)
        done = run.steps_done
        run_dir_file = os.path.join(self.study_dir, "run-{:03d}.path".format(run.index))
        if not run.run_dir and os.path.exists(run_dir_file):
            with open(run_dir_file) as f:  # nbc-run was stopped before it recorded it
                run.run_dir = f.read().strip()
        if self.o.dry_run and not run.run_dir:
            suffix = "-launch{}".format(run.launch) if self.spec.launches > 1 else ""
            run.run_dir = os.path.join(self.spec.results_dir, "YYYYmmdd-HHMMSS-{}{}".format(
                run.name, suffix))
        begun = bool(run.run_dir) and os.path.isdir(run.run_dir)
        if begun and not self.o.dry_run:
            self.proc.log_file = os.path.join(run.run_dir, "nbc-run.log")
        # What bench_nbc finished, as its meta.json says.
        status = meta_status(run.run_dir) if begun else ""
        if status in ("calibrated", "complete") and "calibration" not in done:
            done.append("calibration")
        if status == "complete" and "sweep" not in done:
            done.append("sweep")
        steps = [s for s in STEPS if s not in done]
        if "ref_before" in done and "ref_aa" in steps:
            steps.remove("ref_aa")  # its partner ran long ago: no pair any more
        analyze = os.path.join(self.tools_dir, "nbc-analyze")
        if not os.access(analyze, os.X_OK) and not self.o.dry_run and "analysis" in steps:
            steps.remove("analysis")
            if steps:
                note("{} is not built: no figures for {}".format(analyze, run.name))
        if not steps:
            if run.status != "no_valid_cell":  # (its reason is recorded)
                self.finish(run)
            return True
        self.ran_any = True
        self.analysis_message = ""  # nbc-analyze's, when it finds no valid cell
        run.status = "running"
        run.start_time = run.start_time or iso_now()
        self.save()
        note("run {} of {}: {} (launch {} of {}){}".format(
            run.index, len(self.record.runs), run.name, run.launch, self.spec.launches,
            self.time_left(run)))
        self.run_started = time.monotonic()
        threads = self.placement.threads_of(run.deployment)
        for step in steps:
            if step in ("calibration", "sweep"):
                ok = self.bench_step(run, p, threads, step, run_dir_file, begun)
                begun = True
            elif step in ("ref_aa", "ref_before", "ref_after"):
                ok = self.ref_step(run, p, step.split("_")[1])
            else:
                ok = self.analyze_step(run, analyze)
            if ok:
                done.append(step)
            if run.status == "running" and (not ok or self.proc.interrupted):
                run.status = "interrupted" if self.proc.interrupted else "failed"
            if not ok or self.proc.interrupted:
                break
        else:
            self.finish(run)
        run.end_time = iso_now()
        self.run_times_s.append(time.monotonic() - self.run_started)
        self.save()
        return not self.proc.interrupted

    def time_left(self, run):
        """The study's time left from this run on: the mean of the runs
        measured so far, else bench_nbc --plan's range for one run (its
        job_s), times the runs left."""
        left = sum(1 for r in self.record.runs if r.index >= run.index and not r.finished)
        if self.run_times_s:
            mean_s = sum(self.run_times_s) / len(self.run_times_s)
            return "; {} done, about {} left".format(run.index - 1, duration(left * mean_s))
        # (its estimate's sentence on standard error is the same figure)
        plan = bench_plan(self.profiles.get(run.mpi).bench, run.bench_nbc_args)
        try:
            lo_s, hi_s = plan["estimate"]["job_s"]
        except (KeyError, TypeError, ValueError):
            return ""
        return "; the study: about {} to {} left".format(
            duration(left * lo_s), duration(left * hi_s))

    def finish(self, run):
        """Every step done: complete, or no_valid_cell when bench_nbc kept no
        cell whole (meta.json cells_kept 0, its exit status 5) or nbc-analyze
        found no valid cell (its exit status 4)."""
        reasons = []
        meta = read_json(os.path.join(run.run_dir, "meta.json")) if run.run_dir else None
        if meta and meta.get("cells_kept") == 0:
            total, unreachable = meta.get("cells_total", 0), meta.get("cells_unreachable", 0)
            reasons.append("bench_nbc kept no cell whole (exit status 5): {} of {} cells "
                           "unreachable (calibration did not reach their targets), "
                           "{} stopped late".format(unreachable, total, total - unreachable))
        if self.analysis_message:
            reasons.append("nbc-analyze: " + self.analysis_message)
        run.status = "no_valid_cell" if reasons else "complete"
        run.no_valid_cell_reason = "; ".join(reasons) if reasons else None

    def bench_step(self, run, p, threads, step, run_dir_file, begun):
        """bench_nbc: up to its calibration (a new run folder, or the one it
        began), or the sweep (--resume)."""
        if step == "calibration":
            args = ["--resume", run.run_dir] if begun else run.bench_nbc_args
            if not begun and run.calibration_from:
                shared = self.shared_calibration(run)
                if shared is None:
                    return False
                args = args + ["--set", "run.calibration_from=" + shared]
            args = args + ["--stop-after", "calibration", "--run-dir-file", run_dir_file]
        else:
            args = ["--resume", run.run_dir]
        cmd = launch_cmd(self.placement, p, self.placement.ranks, self.placement.per_node,
                         threads, [p.bench] + args)
        # The study's library setting: in the launcher's environment, which
        # it passes on to the ranks (srun, Hydra, a local mpiexec).
        env = {run.setting.name: run.setting.value} if run.setting else None
        if not self.proc.announce(cmd, env):
            return True
        if not begun:
            run.run_dir = None
            try:
                os.unlink(run_dir_file)  # a file left by a start that failed
            except FileNotFoundError:
                pass

        def found(run_dir):
            run.run_dir = run_dir
            self.proc.set_log(os.path.join(run_dir, "nbc-run.log"), shown(cmd, env))
            self.save()

        status = self.proc.run(cmd, run_dir_file=run_dir_file, on_run_dir=found,
                               run_dir=run.run_dir, env=env)
        self.proc.log("# exit status {}".format(status))
        meta = meta_status(run.run_dir)
        if self.proc.finalize_hung:
            # The run folder is whole: its status says how the run ended.
            status = {"complete": 0, "calibrated": 0, "interrupted": 3}.get(meta, 1)
            self.proc.log("# the launcher was stopped: the ranks hung in MPI_Finalize")
        run.bench_nbc_status = meta
        want = "calibrated" if step == "calibration" else "complete"
        if meta == want:
            # Whole on disk, whatever the launcher says (a signal after the
            # ranks wrote their last file).
            return True
        where = "; its folder: " + run.run_dir if run.run_dir else ""
        if status == 3 or meta == "interrupted":
            # 3: bench_nbc was stopped and kept its whole cells: resumable.
            note("{}: bench_nbc was interrupted{} (nbc-run --resume {} continues it)".format(
                run.name, where, self.study_dir))
            run.status = "interrupted"
            self.failed.append(run.name + " (interrupted)")
            self.status = self.status or 1
        else:
            if status == 0:
                note("{}: bench_nbc ended with status '{}' in meta.json, expected '{}'{}".format(
                    run.name, meta, want, where))
                status = 1
            else:
                note("{}: bench_nbc failed (exit status {}){}".format(run.name, status, where))
            self.failed.append(run.name)
            self.status = self.status or status
        return False

    def shared_calibration(self, run):
        """The run folder whose calibration run measures with (its reference,
        study.json's calibration_from), or None, said, when it has none."""
        ref = self.record.runs[run.calibration_from - 1]
        if self.o.dry_run:
            return ref.run_dir or "RUN_DIR_OF_RUN_{}".format(ref.index)
        if ref.run_dir and meta_status(ref.run_dir) in ("calibrated", "complete"):
            return os.path.abspath(ref.run_dir)
        note("{}: no calibration to measure with: run {} ({}), whose sizes every run of {} "
             "{} shares, did not calibrate".format(run.name, ref.index, ref.name, run.mpi,
                                                   run.collective))
        self.failed.append(run.name + " (no shared calibration)")
        self.status = self.status or 1
        return None

    def ref_step(self, run, p, phase):
        # Rows of this phase a cut-off compute_ref left are measured again.
        if not self.o.dry_run:
            drop_phase_rows(os.path.join(run.run_dir, "compute_ref.csv"), phase)
        return self.tool_step(run, ref_cmd(self.placement, p, run.run_dir, phase),
                              "compute_ref --phase " + phase, sys.stderr) == 0

    def analyze_step(self, run, analyze):
        """nbc-analyze: True when done, also when it found no valid cell (exit
        status 4: its tables and figures are written, every cell invalid); its
        reason, from nbc-analyze's message, is kept for study.json."""
        self.analysis_message = ""
        with tempfile.TemporaryFile("w+") as table, tempfile.TemporaryFile("w+") as err:
            table_format = "text" if self.o.format == "none" else self.o.format
            status = self.tool_step(run, [analyze, "--table=" + table_format, run.run_dir],
                                    "nbc-analyze", table,
                                    stderr=err, expected=(0, ExitStatus.NO_VALID_CELL))
            table.seek(0)
            err.seek(0)
            cells, text = table.read(), err.read()
        # Its cells table is the run folder's cells.csv (and cells.txt): the
        # log has it, stdout with --format text or json (a harness reads it
        # there) or --verbose.
        for line in cells.splitlines():
            self.proc.log(line)
            if self.o.verbose or self.o.format != "none":
                print(line)
        sys.stdout.flush()
        # Its summary is the run folder's summary.txt: the log has it, the
        # console its warnings (the verdict follows at the study's end).
        for line in text.splitlines():
            self.proc.log("# " + line)
            if line.startswith("warning: ") or status not in (0, ExitStatus.NO_VALID_CELL):
                show(line.replace(run.run_dir + ": ", run.name + ": ", 1))
            if (status == ExitStatus.NO_VALID_CELL and "no valid cell: " in line and
                    not self.analysis_message):
                # "warning: RUN_DIR: no valid cell: ..." -> "no valid cell: ..."
                self.analysis_message = line[line.index("no valid cell: "):]
        if status == ExitStatus.NO_VALID_CELL and not self.analysis_message:
            self.analysis_message = "no valid cell (exit status 4)"
        return status in (0, ExitStatus.NO_VALID_CELL)

    def tool_step(self, run, cmd, what, stdout, stderr=None, expected=(0,)):
        """compute_ref or nbc-analyze on a run folder: its exit status (0 with
        --dry-run); one not expected counts as a failure."""
        if not self.proc.announce(cmd):
            return 0
        status = self.proc.run(cmd, stdout=stdout, stderr=stderr)
        self.proc.log("# exit status {}".format(status))
        if status not in expected and not self.proc.interrupted:
            note("{}: {} failed (exit status {})".format(run.name, what, status))
            self.failed.append("{} ({})".format(run.name, what))
            self.status = self.status or 1
        return status
