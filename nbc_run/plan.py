"""The runs of a study: every library x collective x deployment (x the
values of the setting it varies) that can run here, the others skipped with
their reason, each `launches` times, in the launch order."""
import random

from . import fingerprint
from .common import BadInput, note
from .records import Run, Setting


def calibration_references(runs, default=None):
    """Each run's reference, whose calibration (message bytes and GEMM order
    per cell) it measures with: the same work in every deployment, setting
    and launch of a library and collective, so their end-to-end times
    compare. The reference is the group's first run of the default
    deployment (the first of deploy/deployments.def), else its first run;
    default None: the group's first run (runs in Planner.runs' order, which
    puts each reference first)."""
    refs = {}
    for run in runs:
        key = (run.mpi, run.collective)
        if key not in refs or (default is not None and refs[key].deployment != default and
                               run.deployment == default):
            refs[key] = run
    return [refs[(r.mpi, r.collective)] for r in runs]


class Planner:
    def __init__(self, spec, profiles, placement):
        self.spec, self.profiles, self.pl = spec, profiles, placement
        self.skipped = []  # "NAME: reason"
        self.auto_noted = set()
        self.table = profiles.deployments()
        placement.table = self.table

    def why_not(self, mpi, deployment):
        return self.pl.why_not(self.profiles, self.profiles.get(mpi), deployment)

    def auto(self, mpi):
        """The default deployment; the library's own progress thread sharing
        the computing cores where it runs here, else the suite's; the
        library's thread on a free core where it runs here."""
        t = self.table
        shared, suite = t.first(thread="library", cores="all"), t.first(thread="suite")
        chosen = [t.default.name]
        chosen.append(shared.name if shared and not self.why_not(mpi, shared.name) else
                      suite.name)
        free = t.first(thread="library", cores="free")
        reason = self.why_not(mpi, free.name) if free else "no such deployment"
        if not reason:
            chosen.append(free.name)
        return chosen, free, reason

    def deployments_of(self, mpi):
        """The study's deployments for one library. auto: basic against the
        library's own progress thread where its profile has one (profile key
        [deployment.progress], refused by nbc-profile as unsupported_progress
        otherwise), else the suite's progress thread; then dedicated where
        this placement leaves a core free. The question the default study
        asks: does asynchronous progress buy overlap, at what cost. A
        fingerprint: every deployment, polling (manual) included."""
        if self.spec.fingerprint_periods:
            return fingerprint.deployments(self.table)
        if self.spec.deployment_list != ["auto"]:
            return self.spec.deployment_list
        chosen, free, reason = self.auto(mpi)
        if mpi not in self.auto_noted:
            self.auto_noted.add(mpi)
            note("deployments auto for {}: {}{}".format(
                mpi, ",".join(chosen), "" if not reason else
                " (not {}: {})".format(free.name if free else "", reason.split(" (")[0])))
        return chosen

    def ways(self, mpi):
        """(deployment, the run's own --set, name suffix) of each run of a
        library: the study's deployments, or a fingerprint's ways."""
        if self.spec.fingerprint_periods:
            return fingerprint.ways(self.table, self.spec.fingerprint_periods)
        return [(dep, [], dep) for dep in self.deployments_of(mpi)]

    def runs(self):
        """The study's runs, in the launch order (not yet numbered)."""
        spec = self.spec
        configurations = []
        warned = False
        for mpi in self.profiles.mpi_list:
            for coll in spec.collective_list:
                for dep, run_sets, suffix in self.ways(mpi):
                    name = "{}-{}-{}".format(mpi, coll, suffix)
                    reason = self.why_not(mpi, dep)
                    if reason:
                        note("skipping {}: {}".format(name, reason))
                        self.skipped.append("{}: {}".format(name, reason))
                        continue
                    for value in spec.setting_values or [None]:
                        configurations.append(dict(
                            mpi=mpi, collective=coll, deployment=dep, sets=run_sets or None,
                            setting=None if value is None else Setting(spec.setting_name, value),
                            name=name + ("" if value is None else "-" + value)))
                    # The progress thread of a busy-polling library shares a core
                    # with the computation on every core here (that is the
                    # deployment, paper section 7), but with one core per rank
                    # it takes half of it.
                    row = self.table.get(dep)
                    if row and row.thread == "suite" and self.pl.deployment_sets(dep) and \
                            not warned:
                        warned = True
                        note("note: with 1 core per rank, the suite's progress thread shares "
                             "the core that computes (progress.oversubscribe=true): expect "
                             "r_MPI_impact above 1 where it polls")
                    p = self.profiles.get(mpi)
                    if (row and row.thread == "library" and not row.leaves_core_free and
                            p.busy_polls and self.pl.cores_per_rank == 1 and not warned):
                        warned = True
                        note("note: with 1 core per rank, {}'s progress thread busy-polls on "
                             "the core that computes: expect r_MPI_impact near 2 (the thread "
                             "takes half the core), and window barriers that sleep at least "
                             "the plan's barrier_sleep_min_ms to take the core back in "
                             "time".format(p.mpi_label))
        if not configurations:
            raise BadInput("nothing to run: every combination was skipped (above)")
        # Each round runs every configuration once: drift over the study
        # touches every configuration alike; shuffled, the order within each
        # round is random (from the recorded seed).
        # In the first round the run that calibrates comes before every other
        # run of its library and collective, which measure with its sizes.
        order = random.Random(spec.seed)
        runs = []
        for launch in range(1, spec.launches + 1):
            round_ = [Run(launch=launch, **c) for c in configurations]
            if spec.launch_order == "shuffled":
                order.shuffle(round_)
            if launch == 1:
                # Each reference moves to the place of the first run of its
                # library and collective; the others keep their order.
                refs = calibration_references(round_, self.table.default.name)
                ordered, placed = [], set()
                for run, ref in zip(round_, refs):
                    if id(ref) not in placed:
                        placed.add(id(ref))
                        ordered.append(ref)
                    if run is not ref:
                        ordered.append(run)
                round_ = ordered
            runs += round_
        return runs
