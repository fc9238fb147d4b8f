"""A library's progress fingerprint (nbc-run --fingerprint, study key
`fingerprint`): the ways of driving progress one study runs for each
library and collective, and those it cannot run here with the reason.

A way is a deployment (paper section 7: nothing, the library's progress
thread, the same thread on a free core, the suite's progress thread) or
MPI_Test polling at a period (deployment manual with
progress.test_period_us = P: an MPI_Test every P us of computation). The
page and the verdicts come from nbc-fingerprint over the study folder;
this module only plans the runs."""
import re

from .common import BadInput

# The deployments a fingerprint tries, in the page's order; polling by
# period follows them. manual is polling: the periods stand for it.
DEPLOYMENTS = ["basic", "progress", "dedicated", "thread"]
POLLING_DEPLOYMENT = "manual"
PERIOD_KEY = "progress.test_period_us"
# The periods (us) when the study file names none.
DEFAULT_PERIODS_US = "100,1000"


def read_periods(text):
    """The study key fingerprint = P1,P2,... (us, numbers > 0), as given."""
    periods = [p.strip() for p in text.split(",")]
    for p in periods:
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", p) or float(p) <= 0:
            raise BadInput("fingerprint: '{}' is not a list of MPI_Test periods in us, each a "
                           "number > 0 (e.g. fingerprint = 100,1000)".format(text))
    if len(set(float(p) for p in periods)) != len(periods):
        raise BadInput("fingerprint: '{}' names a period twice".format(text))
    return periods


def deployments():
    """Every deployment a fingerprint runs (checked against bench_nbc --plan)."""
    return DEPLOYMENTS + [POLLING_DEPLOYMENT]


def ways(periods):
    """(deployment, extra --set assignments, name suffix) of each way, in order."""
    out = [(d, [], d) for d in DEPLOYMENTS]
    out += [(POLLING_DEPLOYMENT, ["{}={}".format(PERIOD_KEY, p)],
             "{}-{}us".format(POLLING_DEPLOYMENT, p)) for p in periods]
    return out


def why_not(placement, profile, deployment):
    """Why the way cannot run here (empty: it can): the placement's reason,
    and for thread a core per rank left free, which bench_nbc's plan
    demands unless progress.oversubscribe is set (a fingerprint does not
    oversubscribe: the thread would take the compute cores' time)."""
    reason = placement.why_not(profile, deployment)
    if reason or deployment != "thread" or not 0 < placement.cores_per_rank < 2:
        return reason
    return ("thread puts the suite's progress thread on a core of each rank left free and "
            "needs >= 2 cores per rank; here {} rank(s) per node get {} core(s) each (use "
            "fewer ranks per node, e.g. --ranks 1)".format(placement.per_node,
                                                            placement.cores_per_rank))
