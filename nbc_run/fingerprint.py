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

# The ways are the deployments of deploy/deployments.def, in its order;
# polling by period follows them, in place of the deployment that polls
# (its periods stand for it).
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


def polling(table):
    """The deployment that polls with MPI_Test (deployments.def, POLLS)."""
    row = table.first(polls=True)
    if row is None:
        raise BadInput("fingerprint: no deployment polls with MPI_Test (deploy/deployments.def)")
    return row.name


def deployments(table):
    """Every deployment a fingerprint runs (checked against bench_nbc --plan)."""
    return [d.name for d in table.where(polls=False)] + [polling(table)]


def ways(table, periods):
    """(deployment, extra --set assignments, name suffix) of each way, in order."""
    out = [(d.name, [], d.name) for d in table.where(polls=False)]
    out += [(polling(table), ["{}={}".format(PERIOD_KEY, p)],
             "{}-{}us".format(polling(table), p)) for p in periods]
    return out
