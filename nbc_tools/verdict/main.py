"""nbc-verdict: one line in words per configuration of a study.

    nbc-verdict [--map] DIR...

A study folder with its verdict.csv and impact.csv (nbc-analyze --study)
gives the verdict over its launches, one line per configuration, at most
100 columns a line:

    mpich, ibcast, basic: no overlap: communication and computation took their
        sum, confirmed in 24 of 25 cells; 1 suggests no overlap, not confirmed;
        over 3 launches; at the largest computation size (16 ms) computation
        not measurably slowed beside the idle library (r_MPI_impact 1.02
        [0.97, 1.07], A/A band [0.93, 1.08])

the class most cells are confirmed in, named once with its count; the other
confirmed classes; the unconfirmed readings by what their band suggests;
the launches; then r_MPI_impact (eq. 2) at the configuration's largest
computation size (impact.csv's row `largest`, never a median over the
sizes) with its paired interval and A/A band ("not estimable here" where
the band is wider than the effect). --map draws the cells below it, from
the same rows (classes, words and abbreviations from schema/classes.def
through schema_doc --json). nbc-report's study table and nbc-compare's
configuration table print the same figures (study_table here; nbc-compare
by the C code that writes verdict.csv and impact.csv).

Otherwise DIR is a run folder (meta.json, cells.csv, summary.txt, impact.csv) or a
study folder (study.json naming its runs). For each run, in the study's
order with each library and collective's basic deployment first, one
launch's line: cells.csv's readings (the bands of r_overhead) and the run's r_MPI_impact at
its largest computation size with its A/A pair, as figures of one launch.
nbc-run prints these lines at the end of a study, nbc-report at the top of
report.html. Standard library only; see analysis/README.md ("nbc-verdict")."""
import os

from ..cli import ExitStatus, parser
from .launch import PROGRAM, fail, verdicts
from .study import study_verdicts


def main(argv):
    options = parser(PROGRAM, __doc__)
    options.add_argument("--map", action="store_true",
                         help="with a study folder: its verdict's cells as a grid under each line")
    options.add_argument("dirs", metavar="DIR", nargs="+", help="a run folder or a study folder")
    args = options.parse_args(argv)
    for top in args.dirs:
        if not os.path.isdir(top):
            fail("'%s' is not a folder (a run folder or a study folder)" % top)
    # A study folder with its verdict: the verdict over the launches; a run
    # folder (or a study without verdict.csv): one launch's lines.
    studies = [d for d in args.dirs if os.path.isfile(os.path.join(d, "verdict.csv"))]
    runs = [d for d in args.dirs if d not in studies]
    for top in studies:
        for line in study_verdicts(top, args.map):
            print(line)
    for line in verdicts(runs) if runs else []:
        print(line)
    return ExitStatus.COMPLETE

