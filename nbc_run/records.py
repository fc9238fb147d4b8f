"""The typed records of STUDY_DIR/study.json (docs/formats.md, "study.json"):
the study and each of its runs. to_json() gives the members in the order
the file has them; from_json() reads a file nbc-run wrote (members it does
not know are kept, after the others)."""
import json
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional

from .common import write_atomic

# The steps of one run, in order (a run's steps_done lists those done).
# ref_aa: compute_ref's A/A partner, adjacent to ref_before (analysis/README.md, "MPI impact")
STEPS = ["calibration", "ref_aa", "ref_before", "sweep", "ref_after", "analysis"]
# A run's statuses after which it has its tables and figures.
FINISHED = ("complete", "no_valid_cell")


class _Unset:
    """A member not written (a member whose value may be null)."""

    def __repr__(self):
        return "UNSET"


UNSET = _Unset()


@dataclass
class Setting:
    """The study's library setting and one run's value of it."""
    name: str
    value: str

    def to_json(self):
        return {"name": self.name, "value": self.value}


class _Record:
    """A JSON object as a dataclass: the members in field order (FIRST ones
    first), OPTIONAL ones only when set, unknown ones kept in extra."""
    FIRST = ()
    OPTIONAL = ()

    def member_json(self, name, value):
        return value

    @classmethod
    def convert(cls, args):
        """The JSON members (args) made the fields' types, in place."""

    def to_json(self):
        names = list(self.FIRST) + [f.name for f in fields(self) if f.name not in self.FIRST]
        out = {}
        for name in names:
            value = getattr(self, name)
            if name == "extra" or value is UNSET or (name in self.OPTIONAL and value is None):
                continue
            out[name] = self.member_json(name, value)
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, value):
        known = {f.name for f in fields(cls)} - {"extra"}
        args = {k: v for k, v in value.items() if k in known}
        cls.convert(args)
        return cls(**args, extra={k: v for k, v in value.items() if k not in known})


@dataclass
class Run(_Record):
    """One bench_nbc job of the study and the steps around it."""
    mpi: str
    collective: str
    deployment: str
    setting: Optional[Setting]
    name: str
    launch: int = 1
    index: int = 0
    bench_nbc_args: List[str] = field(default_factory=list)
    run_dir: Optional[str] = None
    status: str = "pending"  # pending, running, complete, no_valid_cell, interrupted, failed
    steps_done: List[str] = field(default_factory=list)
    start_time: Optional[str] = None
    end_time: Optional[str] = None
    bench_nbc_status: Optional[str] = None  # meta.json's status after bench_nbc's last step
    no_valid_cell_reason: Optional[str] = None
    # bench_nbc --set assignments of this run alone (a fingerprint's period)
    sets: Optional[List[str]] = None
    # The index of the run whose calibration this one measures with
    # (bench_nbc run.calibration_from); None: it calibrates its own sizes.
    calibration_from: Optional[int] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    # Members written only once set.
    OPTIONAL = ("bench_nbc_status", "no_valid_cell_reason", "sets", "calibration_from")

    @property
    def finished(self):
        return self.status in FINISHED

    def member_json(self, name, value):
        return value.to_json() if isinstance(value, Setting) else value

    @classmethod
    def convert(cls, args):
        if args.get("setting"):
            args["setting"] = Setting(**args["setting"])


@dataclass
class StudyRecord(_Record):
    """study.json: what the study runs, how it was asked for, its runs."""
    config: str
    base_config: str
    arguments: List[str]
    cwd: str
    results_dir: str
    study: Dict[str, Any]
    created: str
    status: str  # running, complete, failed, interrupted
    skipped: List[str]
    runs: List[Run]
    comparisons: List[str] = field(default_factory=list)
    table: Optional[str] = None
    dictionary: Optional[str] = None
    # coverage.pooled_null_coverage's (null without schema_doc), once the study ended
    null_coverage: Any = UNSET
    end_time: Optional[str] = None
    resumed: Optional[List[str]] = None
    format: int = 1
    extra: Dict[str, Any] = field(default_factory=dict)

    FIRST = ("format",)
    OPTIONAL = ("table", "dictionary", "end_time", "resumed")

    @property
    def seed(self):
        return self.study["seed"]

    def member_json(self, name, value):
        return [r.to_json() for r in value] if name == "runs" else value

    @classmethod
    def convert(cls, args):
        args["runs"] = [Run.from_json(r) for r in args.get("runs", [])]

    def save(self, path):
        write_atomic(path, json.dumps(self.to_json(), indent=2) + "\n")
