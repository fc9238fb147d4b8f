"""The deployments (paper section 7) as bench_nbc defines them: one row each
in deploy/deployments.def, read through `nbc-profile deployments`. No
deployment is named in nbc-run: a study picks one by what it does (its
fields), and whether and how it runs here is the deployment plan's answer
(`nbc-profile plan`, the code of bench_nbc --plan)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Deployment:
    """A row of deploy/deployments.def, its fields named as there."""
    name: str
    thread: str  # whose progress thread runs: none, library, suite
    cores: str  # all, free (a core per rank left to progress), free_or_shared
    library_threads: str  # where MPI_Init's threads go: rank_cores, free (the free cores)
    polls: bool  # MPI_Test between compute chunks when progress.mode is none
    profile_key: str  # the library profile's [deployment.<key>]
    meaning: str

    @property
    def leaves_core_free(self):
        return self.cores != "all"

    @property
    def may_share_one_core(self):
        """On a one-core rank it runs with progress.oversubscribe, sharing
        the computing core."""
        return self.cores == "free_or_shared"


class Table:
    """The rows, in the file's order (the first is the default)."""

    def __init__(self, rows):
        self.rows = [Deployment(**row) for row in rows]

    @property
    def names(self):
        return [d.name for d in self.rows]

    @property
    def default(self):
        return self.rows[0]

    def get(self, name):
        """The row of a name; None for a name the table does not have."""
        return next((d for d in self.rows if d.name == name), None)

    def first(self, **fields):
        """The first row whose fields have these values (None: none)."""
        return next((d for d in self.rows
                     if all(getattr(d, k) == v for k, v in fields.items())), None)

    def where(self, **fields):
        return [d for d in self.rows if all(getattr(d, k) == v for k, v in fields.items())]
