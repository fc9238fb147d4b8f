"""Running one command at a time: in its own process group, no terminal
input, logged into the run folder's nbc-run.log (printed instead with
--dry-run, shown too with --verbose); a signal to nbc-run goes on to it; a
bench_nbc job is watched for its run folder and for MPI_Finalize hangs, and
its output split: its record (standard output) into the log, what needs the
reader (standard error) onto the console too, wrapped (common.show)."""
import os
import signal
import subprocess
import sys
import threading
import time

from .common import file_signature, meta_status, note, show
from .launch import shown

# meta.json statuses after which bench_nbc has nothing left to do but exit.
FINAL_STATUSES = {"calibrated", "complete", "interrupted", "failed"}


class Processes:
    def __init__(self, dry_run, verbose=False):
        self.dry_run = dry_run
        self.verbose = verbose  # commands and the tools' records on the console too
        self.pending = []  # log lines before the run folder is known
        self.lock = threading.Lock()  # the log, written by the output readers
        self.child = None  # the running command (its process group)
        self.child_by_srun = False  # ... started by srun (its ranks are a Slurm step)
        self.interrupted = False
        self.finalize_hung = False
        self.log_file = ""  # the current run folder's nbc-run.log

    def catch_signals(self):
        signal.signal(signal.SIGINT, self.on_signal)
        signal.signal(signal.SIGTERM, self.on_signal)

    def on_signal(self, signo, frame):
        """A signal to nbc-run (Ctrl-C, timeout, scancel) goes on to the
        running command and its ranks, which stop cleanly (bench_nbc keeps
        whole cells and says "interrupted"); the study then stops, resumable."""
        self.interrupted = True
        note("interrupted: stopping the running command")
        self.stop_child()

    def stop_child(self):
        """SIGTERM to the running command's process group; inside a Slurm job
        the ranks of a command srun started get it from Slurm instead
        (scancel --signal=TERM JOBID: the job's steps, not the batch step
        nbc-run runs in), as srun turns a SIGTERM of its own into a SIGKILL
        of its ranks, which then could not stop cleanly."""
        if self.child is None:
            return
        job = os.environ.get("SLURM_JOB_ID", "")
        if job and self.child_by_srun:
            cmd = ["scancel", "--signal=TERM", job]
            # (shown always: what nbc-run does to a job on a signal is the reader's)
            print(shown(cmd), file=sys.stderr, flush=True)
            self.log(shown(cmd))
            try:
                if subprocess.call(cmd, stdin=subprocess.DEVNULL, timeout=60) == 0:
                    return
                note("scancel failed: signalling srun instead")
            except (OSError, subprocess.SubprocessError) as e:
                note("cannot run scancel ({}): signalling srun instead".format(e))
        self.kill_child(signal.SIGTERM)

    def kill_child(self, signo):
        if self.child is not None:
            try:
                os.killpg(self.child.pid, signo)
            except OSError:
                pass

    def log(self, line, keep=False):
        """A line into the run's log; keep: held until the log is known
        (set_log), as bench_nbc's first lines come before its folder."""
        with self.lock:
            if self.log_file:
                with open(self.log_file, "a") as f:
                    f.write(line + "\n")
            elif keep:
                self.pending.append(line)

    def set_log(self, path, first_line):
        """The run's log from now on: first_line, then the lines held."""
        with self.lock:
            self.log_file = path
            held, self.pending = self.pending, []
        for line in [first_line] + held:
            self.log(line)

    def announce(self, cmd, env=None):
        """A command, after the variables env sets for it: printed on standard
        output with --dry-run, where nothing runs; else into the log (and on
        the console with --verbose). True when it is to be run."""
        if self.dry_run:
            print(shown(cmd, env), flush=True)
            return False
        if self.verbose:
            print(shown(cmd, env), file=sys.stderr, flush=True)
        self.log(shown(cmd, env))
        return True

    def _relay(self, stream, to_console):
        """A reader of one output of the running command: every line into
        the log; to the console (wrapped) when to_console or --verbose."""
        for line in iter(stream.readline, ""):
            line = line.rstrip("\n")
            self.log(line, keep=True)
            if to_console or self.verbose:
                show(line)
        stream.close()

    def run(self, cmd, stdout=None, run_dir_file=None, on_run_dir=None, run_dir=None,
            stderr=None, env=None):
        """Runs cmd in its own process group, no terminal input (in a
        background process group a read from the terminal stops the reader;
        Hydra and mpirun can forward it to rank 0). Returns its exit status.

        For bench_nbc (run_dir_file, run_dir) it also watches the run folder:
        on_run_dir(path) is called once bench_nbc has written run_dir_file, and
        once meta.json holds a final status that this command wrote, the ranks
        only have to leave MPI_Finalize. MPICH 4.0 over TCP (UCX) can hang
        there when rank 0 arrives long after the others (docs/running.md);
        after NBC_FINALIZE_GRACE_S the launcher is stopped and the status of
        meta.json says how the run ended."""
        self.finalize_hung = False
        grace_s = float(os.environ.get("NBC_FINALIZE_GRACE_S", "20"))
        watching = run_dir_file is not None
        before = file_signature(os.path.join(run_dir, "meta.json")) if run_dir else None
        ended_at = None
        sys.stdout.flush()
        started = time.monotonic()
        self.child_by_srun = os.path.basename(cmd[0]) == "srun"
        # bench_nbc's output (watching): its record to the log, the rest shown too.
        pipe = subprocess.PIPE if watching else None
        try:
            self.child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                          stdout=pipe or stdout, stderr=pipe or stderr,
                                          preexec_fn=os.setpgrp, universal_newlines=True,
                                          env=dict(os.environ, **env) if env else None)
        except OSError as e:
            note("cannot run {}: {}".format(cmd[0], e.strerror))
            return 127
        readers = [threading.Thread(target=self._relay, args=(f, console), daemon=True)
                   for f, console in ((self.child.stdout, False), (self.child.stderr, True))
                   if watching]
        for reader in readers:
            reader.start()
        if self.interrupted:  # a signal between two commands
            self.stop_child()
        while True:
            try:
                status = self.child.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            if not watching:
                continue
            if run_dir is None and os.path.exists(run_dir_file):
                with open(run_dir_file) as f:
                    run_dir = f.read().strip()
                on_run_dir(run_dir)
            meta = os.path.join(run_dir, "meta.json") if run_dir else ""
            if (ended_at is None and run_dir and file_signature(meta) != before and
                    meta_status(run_dir) in FINAL_STATUSES):
                ended_at = time.monotonic()
            if ended_at is not None and time.monotonic() - ended_at >= grace_s:
                note("bench_nbc wrote its final meta.json {:g} s ago but its ranks have not "
                     "exited (MPI_Finalize hang, see docs/running.md): stopping the launcher"
                     .format(grace_s))
                self.finalize_hung = True
                self.kill_child(signal.SIGTERM)
                time.sleep(3)
                self.kill_child(signal.SIGKILL)
                status = self.child.wait()
                break
        for reader in readers:
            reader.join(timeout=10)  # (a rank's descendant may hold the pipe open)
        if watching and run_dir is None and os.path.exists(run_dir_file):
            with open(run_dir_file) as f:
                on_run_dir(f.read().strip())
        with self.lock:
            self.pending = []  # no folder came: its record goes with it
        self.child = None
        # Where a study's time goes, step by step (docs/running.md, Launches).
        self.log("# took {:.1f} s".format(time.monotonic() - started))
        return status
