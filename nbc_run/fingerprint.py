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
    """Why the way cannot run here (empty: it can): the placement's reason.
    With one core per rank, thread shares the computing core as the
    library's own thread does (Placement.deployment_sets)."""
    return placement.why_not(profile, deployment)
