"""nbc-report: the report of a run folder or a study folder.

    nbc-report [--columns FILE] [--no-pdf] DIR

writes DIR/report.html (and DIR/report.pdf with weasyprint), a file that
stands alone (its figures embedded as data: URIs). A table of contents
(links; page numbers in the PDF), then what a reader comes for:
nbc-verdict's line in words per configuration and a results table (the
cells of each class, the median ratios, r_MPI_impact); then every PNG
figure in DIR and its runs and comparisons, a run's maps (overhead,
concurrency, bands) before its impact and the comparisons last, each
with its caption (plots/NAME.caption.txt beside it, else the first line of
its gnuplot script), printed whole on one page; then the methods: the
study, and for every run folder (DIR itself when it holds meta.json, else
each folder below it that does) the environment (meta.json,
provenance.json), the deployment's threads, the clock synchronization, the
statistics used (the stopping rule and nbc-analyze's summary.txt), the
discards and retries (cells.csv, through the columns configs/report.ini
names); then the deviations from the paper; last, an appendix of each
run's records (every thread with its CPUs, each rank's clock points,
wake-up and barrier records, the whole configuration). Standard library
only. See analysis/README.md ("nbc-report"). A missing weasyprint is said,
not a failure."""
import datetime
import os

from ..cli import ExitStatus, parser
from ..pdf import PRINT_CSS, with_contents, write_pdf
from .figures import figures
from .load import PROGRAM, columns_config, fail, json_get, run_folders, study_of
from .sections import run_records, run_section, study_section
from .tables import esc, results, table

# Where the paper's method is changed or extended, and where each is
# documented (paths relative to the project's root).
DEVIATIONS = [
    ("Ratios of medians of like statistics: a span across ranks over a span, the slowest "
     "rank's local time over the slowest local time (eqs. 1, 3, 4), never one rank's "
     "time over a span.",
     "analysis/README.md, \"The statistics (like with like, ratios of medians)\""),
    ("A window barrier releases the ranks together; an attempt that a rank left late "
     "(beyond the tolerance) is discarded and redone, up to run.max_retries.",
     "analysis/README.md, \"Blocks and attempts\" and \"Lateness\"; docs/formats.md, raw.csv"),
    ("95 % block-bootstrap intervals of every metric, and each cell read as the band of "
     "its r_overhead (hidden, partial, none), confident only over several launches, where "
     "the paper gives point estimates.",
     "analysis/README.md, \"Uncertainty\""),
    ("Null controls (comm_null, comp_null: a reference measured twice) test the "
     "intervals' coverage.",
     "analysis/README.md, \"Null controls\""),
    ("Adaptive repetitions: looked at every 6 blocks, a cell stops once its r_overhead "
     "interval is narrow enough (run.half_width); run.half_width = 0 keeps the paper's "
     "fixed count (configs/paper.conf).",
     "docs/running.md, \"Adaptive repetitions\""),
    ("r_MPI_impact (eq. 2) per phase, before and after the sweep, like with like, with "
     "intervals; measured in an ABBA order (compute_ref, passive | sweep | passive, "
     "compute_ref) in pairs close in time, beside an A/A pair (compute_ref before over "
     "its A/A partner just before it).",
     "analysis/README.md, \"MPI impact (eq. 2), impact.csv\""),
    ("The default grid (1 ms to 64 ms) suits a small machine; the paper's (500 us to 1 s) "
     "is configs/paper.conf.",
     "README.md; configs/paper.conf"),
]

# The report's own rules, after the print rules every printed page shares
# (nbc_tools/pdf.py PRINT_CSS: figures whole, headings kept, wide tables fitted).
STYLE = PRINT_CSS + """
body { font-family: 'DejaVu Sans', sans-serif; font-size: 10.5pt; color: #222; }
h1 { font-size: 17pt; } h2 { font-size: 14pt; border-bottom: 1px solid #999; }
h3 { font-size: 12pt; } h4 { font-size: 11pt; } h5 { font-size: 10.5pt; }
h2.part { break-before: page; page-break-before: always; }
.verdicts li { margin: 0.3em 0; font-size: 11pt; }
.results td, .results th { font-size: 8.5pt; padding: 1px 4px; }
td, th { border: 1px solid #bbb; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #eee; }
pre { background: #f6f6f6; padding: 0.5em; font-size: 9pt; }
figure img { border: 1px solid #ddd; }
figcaption { font-size: 9.5pt; color: #333; }
.missing { color: #a00; }
"""


def main(argv):
    options = parser(PROGRAM, __doc__)
    options.add_argument("dir", metavar="DIR", help="a run folder or a study folder")
    options.add_argument("--columns", metavar="FILE",
                        help="the cells.csv columns to count (default configs/report.ini)")
    options.add_argument("--no-pdf", action="store_true", help="write report.html only")
    args = options.parse_args(argv)
    top = args.dir
    if not os.path.isdir(top):
        fail("%s: not a folder (a run folder or a study folder)" % top)
    columns = columns_config(args.columns)
    notes = []
    study = study_of(top, notes)
    runs = run_folders(top, study)
    if not runs:
        fail("%s: no run folder (a folder holding meta.json: the folder itself, one below it, "
             "or a run of its study.json)" % top)
    comparisons = [c for c in json_get(study, "comparisons", default=[]) if os.path.isdir(str(c))]
    count, figure_html = figures(top, [r for r in runs if r != top] + comparisons, notes)
    # What a reader starts with: the verdicts and the results, the figures;
    # then the methods behind them.
    # Raw records (threads one by one, clock points, the whole configuration)
    # in an appendix at the end, a run's under the id its methods link to.
    appendix = ["appendix-%d" % i for i in range(1, len(runs) + 1)]
    body = ["<h2>Verdicts and results</h2>", results(runs, top),
            '<h2 class="part">Figures (%d)</h2>' % count, figure_html,
            '<h2 class="part">Methods</h2>', study_section(study)]
    body += [run_section(r, columns, notes, a) for r, a in zip(runs, appendix)]
    body.append("<h2>Deviations from the paper</h2>")
    body.append(table(DEVIATIONS, ("what", "documented in")))
    if notes:
        body.append("<h2>Notes</h2><ul>%s</ul>" % "".join("<li>%s</li>" % esc(n) for n in notes))
    body.append('<h2 class="part">Appendix: the runs\' records</h2>')
    body += [run_records(r, a) for r, a in zip(runs, appendix)]
    body, contents = with_contents("\n".join(b for b in body if b))
    title = "bench_nbc report: %s" % os.path.basename(os.path.abspath(top))
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>"
            "<style>%s</style></head><body>\n<h1>%s</h1>\n<p>%d run folder%s, %d figure%s; "
            "written %s by nbc-report (columns from %s).</p>\n<h2>Contents</h2>\n%s\n%s\n"
            "</body></html>\n"
            % (esc(title), STYLE, esc(title), len(runs), "" if len(runs) == 1 else "s",
               count, "" if count == 1 else "s",
               datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               esc(columns["file"]), contents, body))
    html_path = os.path.join(top, "report.html")
    try:
        with open(html_path + ".tmp", "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(html_path + ".tmp", html_path)
    except OSError as e:
        fail("%s: cannot write: %s" % (html_path, e.strerror), ExitStatus.FAILURE)
    written = [html_path]
    if not args.no_pdf and write_pdf(PROGRAM, html_path, os.path.join(top, "report.pdf")):
        written.append(os.path.join(top, "report.pdf"))
    # The folder once: a study's path is long enough already.
    names = " and ".join(os.path.basename(path) for path in written)
    print("%s: %s (%d run folder%s, %d figure%s)" % (PROGRAM, os.path.join(top, names), len(runs),
                                                     "" if len(runs) == 1 else "s", count,
                                                     "" if count == 1 else "s"))
    return ExitStatus.COMPLETE
