"""nbc-fingerprint: a library's progress fingerprint, one page.

    nbc-fingerprint [-o OUT] [--no-pdf] DIR...

DIR is a study folder (study.json: its runs and the ways it skipped, as
`nbc-run --fingerprint` writes it) or a run folder. Each run is one way of
driving progress - its deployment (basic, progress, dedicated, thread,
manual), and the MPI_Test period when it polled by period (meta.json
deployment_plan.test_period_us) - of one library and collective. For each,
over the valid cells of its runs' cells.csv (launches pooled):

- the share of cells where the collective progressed during the
  computation: r_overhead's 95 % interval inside a band of group overlap
  (hidden, partial: schema/classes.def), beside the same share by point
  estimate (cells.csv overlap);
- the median r_overhead (eq. 1) and r_comp_slowdown (eq. 3) over those
  cells, each with the distribution-free 95 % interval of a median from
  order statistics (the binomial rank interval; none under 6 cells);
- r_MPI_impact (eq. 2): nbc-verdict's figure, at the largest computation
  size (impact.csv) with its interval (the median of the launches'
  figures, no interval, with several launches).

It writes OUT/fingerprint.csv (docs/formats.md, "fingerprint.csv"),
OUT/fingerprint.svg (the figure: one row per way, a journal column wide),
OUT/fingerprint.html (the figure, the verdicts, the table, the ways not run
with their reason; fingerprint.pdf too with weasyprint), and prints one
verdict line per library and collective. OUT is DIR when one is given;
several DIRs (two libraries side by side) need -o. Standard library only;
the verdict's modules (nbc_tools/verdict/) read the columns. See docs/running.md
("A library's progress fingerprint")."""
import os

from ..cli import ExitStatus, parser
from ..pdf import write_pdf
from .data import PROGRAM, fail, fingerprint_rows
from .lines import verdict_lines
from .page import csv_text, page_html, write_atomic
from .svg import figure_svg


def main(argv):
    options = parser(PROGRAM, __doc__)
    options.add_argument("dirs", metavar="DIR", nargs="+",
                        help="a study folder (nbc-run --fingerprint) or a run folder")
    options.add_argument("-o", dest="out", metavar="OUT",
                        help="where the page goes (default: DIR when one is given)")
    options.add_argument("--no-pdf", action="store_true", help="no fingerprint.pdf")
    args = options.parse_args(argv)
    for top in args.dirs:
        if not os.path.isdir(top):
            fail("'%s' is not a folder (a study folder or a run folder)" % top)
    if not args.out and len(args.dirs) > 1:
        fail("-o OUT: several DIRs (%d) share one page: say where it goes" % len(args.dirs))
    out = args.out or args.dirs[0]
    rows = fingerprint_rows(args.dirs)
    if not rows:
        fail("%s: no run and no way skipped: nothing to fingerprint" % " ".join(args.dirs))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        fail("-o %s: cannot create: %s" % (out, e.strerror))
    verdicts = verdict_lines(rows)
    svg = figure_svg(rows)
    paths = [os.path.join(out, name) for name in
             ("fingerprint.csv", "fingerprint.svg", "fingerprint.html")]
    write_atomic(paths[0], csv_text(rows))
    write_atomic(paths[1], svg)
    write_atomic(paths[2], page_html(rows, verdicts, svg, args.dirs))
    if not args.no_pdf and write_pdf(PROGRAM, paths[2], os.path.join(out, "fingerprint.pdf")):
        paths.append(os.path.join(out, "fingerprint.pdf"))
    for line in verdicts:
        print(line)
    for path in paths:
        print("fingerprint: " + path)
    return ExitStatus.COMPLETE
