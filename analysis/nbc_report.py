#!/usr/bin/env python3
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
import argparse
import base64
import configparser
import csv
import datetime
import html
import json
import os
import sys

PROGRAM = "nbc-report"


def _cli_dir():
    """cli/ of the source tree (from analysis/, build/ or build/san/) or of an
    installed copy (PREFIX/share/bench_nbc)."""
    here = os.path.dirname(os.path.realpath(__file__))
    for folder in (os.path.join(here, "..", "cli"), os.path.join(here, "..", "..", "cli"),
                   os.path.join(here, "..", "share", "bench_nbc", "cli")):
        if os.path.isfile(os.path.join(folder, "nbc_cli.py")):
            return folder
    sys.exit("%s: cli/nbc_cli.py is missing (an incomplete copy or installation)" % PROGRAM)


sys.path.insert(0, _cli_dir())
from nbc_cli import (PRINT_CSS, ExitStatus, exit_status_help, figure_max_height_mm,  # noqa: E402
                     html_to_pdf, sibling_module, table_class, version_line, with_contents)

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
# (nbc_cli.PRINT_CSS: figures whole, headings kept, wide tables fitted).
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


def fail(text, status=ExitStatus.BAD_INPUT):
    print("%s: %s" % (PROGRAM, text), file=sys.stderr)
    sys.exit(status)


def esc(value):
    return html.escape(str(value))


def read_json(path, notes):
    """The parsed file, or None (said in notes) when absent or unreadable."""
    if not os.path.isfile(path):
        notes.append("%s: no such file" % path)
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        notes.append("%s: unreadable (%s)" % (path, e))
        return None


def json_get(obj, *keys, default="not recorded"):
    """obj[k1][k2]... of a JSON file (meta.json, provenance.json, study.json), or default."""
    for key in keys:
        if isinstance(obj, dict) and key in obj:
            obj = obj[key]
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return default
    return default if obj is None else obj


def text_of(value):
    if value is None:
        return "none"
    if isinstance(value, float):
        return "%.6g" % value
    if isinstance(value, (list, tuple)):
        return ", ".join(text_of(v) for v in value)
    if isinstance(value, dict):  # key: value pairs, never raw JSON
        return "; ".join("%s: %s" % (k, text_of(v)) for k, v in sorted(value.items())) or "none"
    return str(value)


def table(rows, header=None):
    rows = list(rows)
    wide = table_class(max([len(header or ())] + [len(r) for r in rows]))
    out = ['<table class="%s">' % wide if wide else "<table>"]
    if header:  # repeated on each page the table runs over
        out.append("<thead><tr>" + "".join("<th>%s</th>" % esc(h) for h in header) +
                   "</tr></thead>")
    for row in rows:
        out.append("<tr>" + "".join("<td>%s</td>" % esc(text_of(c)) for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def columns_config(path):
    """The [cells.csv] section of configs/report.ini."""
    here = os.path.dirname(os.path.realpath(__file__))
    candidates = [path] if path else [
        os.path.join(here, "..", "configs", "report.ini"),           # source tree, build/
        os.path.join(here, "..", "share", "bench_nbc", "configs", "report.ini"),  # installed
        os.path.join(here, "..", "..", "configs", "report.ini"),     # build/san/
    ]
    for candidate in candidates:
        if os.path.isfile(candidate):
            parser = configparser.ConfigParser()
            try:
                parser.read(candidate, encoding="utf-8")
            except configparser.Error as e:
                fail("%s: %s" % (candidate, e))
            if not parser.has_section("cells.csv"):
                fail("%s: no [cells.csv] section (the columns nbc-report counts)" % candidate)
            section = parser["cells.csv"]
            words = lambda key: [w.strip() for w in section.get(key, "").split(",") if w.strip()]
            ratio = [w.strip() for w in section.get("discard_ratio", "").split("/")]
            return {
                "file": os.path.normpath(candidate),
                "validity": section.get("validity_column", "").strip(),
                "reason": section.get("reason_column", "").strip(),
                "summed": words("summed_columns"),
                "ratio": ratio if len(ratio) == 2 and all(ratio) else None,
                "tallied": words("tallied_columns"),
            }
    fail("no column list found (looked for %s); give one with --columns FILE"
         % ", ".join(os.path.normpath(c) for c in candidates))
    return None


def study_of(top, notes):
    """study.json of a study folder (nbc-run, docs/formats.md), or None."""
    path = os.path.join(top, "study.json")
    if not os.path.isfile(path):
        return None
    study = read_json(path, notes)
    return study if isinstance(study, dict) else None


def run_folders(top, study):
    """A study's run folders (study.json runs[].run_dir), DIR itself when it is a
    run folder, else every folder below DIR that holds meta.json."""
    if study is not None:
        runs = [r.get("run_dir") for r in study.get("runs", []) if isinstance(r, dict)]
        return [d for d in runs if d and os.path.isfile(os.path.join(d, "meta.json"))]
    if os.path.isfile(os.path.join(top, "meta.json")):
        return [top]
    found = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        if "meta.json" in files:
            found.append(root)
            dirs[:] = []  # a run folder's subfolders are its own
    return found


# ---- Sections of a run --------------------------------------------------------------

def scenario_parts(meta):
    """meta.json's scenario as the figures' titles give it (analysis/inputs.c):
    "iallgather (S) + ireduce_scatter_block (S), run comm"; "" for one operation."""
    parts = json_get(meta, "scenario", default=None)
    if not isinstance(parts, list) or not parts:
        return ""
    parts = [p if isinstance(p, dict) else {} for p in parts]
    comms = {p.get("communicator", "?") for p in parts}

    def size(p):
        if isinstance(p.get("bytes"), int):
            return "%d B" % p["bytes"]
        weight = p.get("weight", 1)
        return "S" if weight == 1 else "%g S" % weight
    text = " + ".join("%s (%s%s)" % (p.get("collective", "?"), size(p),
                                     "" if len(comms) == 1 else ", " + p.get("communicator", "?"))
                      for p in parts)
    return text + (", %s comm" % comms.pop() if len(comms) == 1 else "")


def environment(meta, prov):
    node = prov[0] if isinstance(prov, list) and prov else {}
    library = json_get(meta, "mpi_library", "display_name", default=json_get(meta, "mpi"))
    version = json_get(meta, "mpi_library", "version", default="")
    kernel = json_get(node, "kernel")
    if isinstance(kernel, dict):
        kernel = "%s %s %s (%s)" % (kernel.get("sysname", ""), kernel.get("release", ""),
                                    kernel.get("machine", ""), kernel.get("version", ""))
    cpu = json_get(node, "cpu")
    if isinstance(cpu, dict):
        cpu = "%s %s: %s sockets, %s cores, %s threads per core, %s logical CPUs" % (
            cpu.get("vendor", ""), cpu.get("model", ""), cpu.get("sockets", "?"),
            cpu.get("cores", "?"), cpu.get("threads_per_core", "?"), cpu.get("logical_cpus", "?"))
    blas = json_get(meta, "blas")
    if isinstance(blas, dict):
        blas = "%s (%s), %s" % (blas.get("version", blas.get("name", "?")),
                                blas.get("library", "?"), blas.get("threading", ""))
    frequency = json_get(node, "frequency")
    if isinstance(frequency, dict):
        frequency = "governors %s, driver %s, turbo %s" % (
            text_of(frequency.get("governors", "?"))[:120], frequency.get("driver", "?"),
            frequency.get("turbo", "?"))
    rows = [
        ("MPI library", "%s %s" % (library, version)),
        ("library version text", json_get(meta, "mpi_library_version")),
        ("library profile", json_get(meta, "mpi_library", "profile", default=json_get(meta, "mpi"))),
        ("MPI standard, thread level", "%s, %s" % (json_get(meta, "mpi_standard"),
                                                   json_get(meta, "mpi_thread_level"))),
        ("collective", json_get(meta, "collective")),
        ("scenario parts (in flight together)", scenario_parts(meta) or "none (one operation)"),
        ("deployment", "%s (progress %s, binding %s)" % (
            json_get(meta, "deployment"), json_get(meta, "progress"), json_get(meta, "progress_binding"))),
        ("deployment meaning", json_get(meta, "deployment_plan", "meaning")),
        ("ranks x threads per rank", "%s x %s" % (json_get(meta, "ranks"),
                                                  json_get(meta, "threads_per_rank"))),
        ("nodes, hosts", "%s: %s" % (json_get(meta, "nodes"), text_of(json_get(meta, "hosts")))),
        ("CPU", cpu),
        ("frequency", frequency),
        ("kernel", kernel),
        ("BLAS", blas),
        ("computing CPUs (provenance)", json_get(node, "computing_cpus")),
        ("synthetic data", json_get(meta, "synthetic", default=False)),
        ("revision", json_get(meta, "revision")),
        ("start, end", "%s, %s" % (json_get(meta, "start_time"), json_get(meta, "end_time"))),
        ("warnings", text_of(json_get(meta, "warnings", default=[])) or "none"),
    ]
    return table(rows)


def thread_rows(meta):
    """A row per thread of meta.json's threads_start: rank, host, role, name, TID, CPUs."""
    rows = []
    for rank in json_get(meta, "threads_start", default=[]):
        for t in rank.get("threads", []):
            rows.append((json_get(rank, "rank", default="?"), json_get(rank, "host", default="?"),
                         json_get(t, "role", default="?"), t.get("name", "?"), t.get("tid", "?"),
                         t.get("cpu_list", text_of(t.get("cpus", "?")))))
    return rows


def threads(meta, appendix):
    """The deployment's plan; its threads, one by one, are in the appendix
    (the link appendix)."""
    rows = thread_rows(meta)
    plan = json_get(meta, "deployment_plan", default={})
    out = []
    if isinstance(plan, dict) and plan:
        out.append(table([
            ("compute threads", json_get(plan, "compute", "threads")),
            ("compute CPUs (rank 0)", json_get(plan, "compute", "cpus")),
            ("progress thread", text_of(json_get(plan, "progress_thread"))),
            ("library threads' CPUs", json_get(plan, "library_thread_cpus")),
            ("placement", "%s (%s)" % (text_of(json_get(plan, "placement", "cpus")),
                                      json_get(plan, "placement", "source"))),
        ]))
    if rows:
        out.append('<p>The %d threads of the ranks, each with its CPUs: <a href="#%s">'
                   "appendix</a>.</p>" % (len(rows), appendix))
    return "\n".join(out) or "<p class=missing>no thread record in meta.json</p>"


def clock_sync(meta, appendix):
    sync = json_get(meta, "clocksync", default={})
    rows = [("clock", "%s (a read costs %s ns)" % (json_get(meta, "clock_source"),
                                                   json_get(meta, "clock_read_ns"))),
            ("window barrier precision", "%s ns (the floor of the lateness tolerance)"
             % json_get(meta, "barrier_precision_ns"))]
    ranks = []
    if isinstance(sync, dict):
        rows += [("clocksync " + k, v) for k, v in sync.items() if not isinstance(v, list)]
        ranks = [r for r in json_get(sync, "ranks", default=[]) if isinstance(r, dict)]
    out = [table(rows)]
    # A rank's figures here; its records (clock points, wake-up, barrier) in
    # the appendix (clock_records).
    keys = sorted({k for r in ranks for k, v in r.items() if not isinstance(v, (list, dict))})
    if ranks:
        out.append(table([[i] + [r.get(k, "") for k in keys] for i, r in enumerate(ranks)],
                         ["Rank"] + keys))
    records = sorted({k for r in ranks for k, v in r.items() if isinstance(v, (list, dict))})
    if records:
        out.append('<p>Each rank\'s %s: <a href="#%s">appendix</a>.</p>'
                   % (esc(", ".join(records)), appendix))
    return "\n".join(out)


def clock_records(meta):
    """Each rank's records of meta.json's clocksync.ranks: a table per record
    (its clock points, a row each; its wake-up and barrier figures), by rank."""
    ranks = [r for r in json_get(meta, "clocksync", "ranks", default=[]) if isinstance(r, dict)]
    out = []
    for key in sorted({k for r in ranks for k, v in r.items() if isinstance(v, (list, dict))}):
        series = any(isinstance(r.get(key), list) for r in ranks)
        found = []  # (rank, index, record)
        for i, r in enumerate(ranks):
            value = r.get(key)
            for n, record in enumerate(value if isinstance(value, list) else [value]):
                if record is not None:
                    found.append((i, n, record if isinstance(record, dict)
                                  else {"value": record}))
        fields = sorted({f for _, _, record in found for f in record})
        out.append("<h5>%s</h5>" % esc(key))
        out.append(table([[i] + ([n] if series else []) + [record.get(f, "") for f in fields]
                          for i, n, record in found],
                         ["Rank"] + (["#"] if series else []) + fields))
    return "\n".join(out) or "<p class=missing>no clock records in meta.json</p>"


def stopping_rule(run):
    """The repetitions rule of docs/running.md from the run's [run] keys."""
    if not isinstance(run, dict) or "repetitions" not in run:
        return "not recorded"
    if not run.get("half_width"):
        return "fixed: a warm-up and %s blocks a cell (run.half_width = 0)" % run["repetitions"]
    budget = run.get("cell_budget_s") or 0
    return ("adaptive: a warm-up and %s blocks, then looks every 6 blocks until the class "
            "is decided, r_overhead's 95 %% interval is at most %s either side or the "
            "class cannot be decided; at most %s blocks%s"
            % (run["repetitions"], run["half_width"], run.get("max_repetitions", "?"),
               ", or %s s since the warm-up began" % budget if budget else ""))


def configuration(meta):
    """The run's configuration (meta.json config), a table per [section]."""
    config = json_get(meta, "config", default={})
    out = []
    if isinstance(config, dict):
        for section in sorted(config):
            values = config[section]
            if isinstance(values, dict):
                out.append("<h5>[%s]</h5>" % esc(section))
                out.append(table(sorted(values.items())))
    return "\n".join(out) or "<p class=missing>no configuration in meta.json</p>"


def statistics(meta, run_dir, appendix):
    config = json_get(meta, "config", default={})
    out = [table([("stopping rule", stopping_rule(json_get(config, "run", default={}))),
                  ("lateness", "an attempt is late when a rank leaves the window barrier more "
                   "than max(late_tolerance x min(t_comm, t_comp), barrier precision) after "
                   "its deadline; it is redone up to max_retries times")])]
    if isinstance(config, dict) and config:
        out.append('<p>The run\'s whole configuration (meta.json config): <a href="#%s">'
                   "appendix</a>.</p>" % appendix)
    rows = [(k, json_get(meta, k)) for k in ("late_tolerance", "max_retries", "warmup_blocks",
                                        "sweep_seed")]
    out.append("<h5>Recorded by the run (meta.json)</h5>")
    out.append(table(rows))
    summary = os.path.join(run_dir, "summary.txt")
    if os.path.isfile(summary):
        with open(summary, encoding="utf-8", errors="replace") as f:
            out.append("<p>nbc-analyze's summary (summary.txt): intervals, resamples, seed, "
                       "the claims' false-discovery rate, the null controls, lateness:</p><pre>%s</pre>"
                       % esc(f.read()))
    else:
        out.append("<p class=missing>no summary.txt: run nbc-analyze on this folder</p>")
    return "\n".join(out)


def discards(meta, run_dir, columns):
    out = [table([(k, json_get(meta, k)) for k in ("cells_total", "cells_done", "cells_kept",
                                              "cells_unreachable")])]
    path = os.path.join(run_dir, "cells.csv")
    if not os.path.isfile(path):
        return "\n".join(out + ["<p class=missing>no cells.csv: run nbc-analyze on this "
                                "folder</p>"])
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    header = set(rows[0].keys()) if rows else set()
    wanted = [columns["validity"], columns["reason"]] + columns["summed"] + columns["tallied"]
    missing = [c for c in wanted if c and c not in header]
    if missing:
        out.append("<p class=missing>cells.csv lacks %s (named in %s)</p>"
                   % (esc(", ".join(missing)), esc(columns["file"])))
    validity = columns["validity"] if columns["validity"] in header else None
    invalid = [r for r in rows if validity and r[validity].strip() == "0"]
    counts = [("cells", len(rows))]
    if validity:
        counts.append(("invalid cells (%s = 0)" % validity, len(invalid)))
    sums = {}
    for name in columns["summed"]:
        if name in header:
            sums[name] = sum(float(r[name]) for r in rows if r[name] not in ("", "nan"))
            counts.append(("%s, summed over cells" % name, "%.0f" % sums[name]))
    ratio = columns["ratio"]
    if ratio and all(c in sums for c in ratio) and sums[ratio[1]] > 0:
        counts.append(("%s / %s (discarded share)" % tuple(ratio),
                       "%.1f %%" % (100 * sums[ratio[0]] / sums[ratio[1]])))
    out.append(table(counts))
    reason = columns["reason"] if columns["reason"] in header else None
    if reason and invalid:
        tally = {}
        for r in invalid:
            tally[r[reason]] = tally.get(r[reason], 0) + 1
        out.append("<p>invalid cells by %s:</p>" % esc(reason))
        out.append(table(sorted(tally.items()), (reason, "cells")))
    for name in columns["tallied"]:
        if name in header:
            tally = {}
            for r in rows:
                tally[r[name]] = tally.get(r[name], 0) + 1
            out.append(table(sorted(tally.items()), (name, "cells")))
    return "\n".join(out)


def run_section(run_dir, columns, notes, appendix):
    """A run's methods; its records are in the appendix (run_records), whose
    heading's id is appendix."""
    meta = read_json(os.path.join(run_dir, "meta.json"), notes) or {}
    prov_name = json_get(meta, "provenance", default="provenance.json")
    prov = None
    if os.path.isfile(os.path.join(run_dir, str(prov_name))):
        prov = read_json(os.path.join(run_dir, str(prov_name)), notes)
    out = ["<h3>Run %s</h3>" % esc(os.path.basename(os.path.abspath(run_dir))),
           "<h4>Environment</h4>", environment(meta, prov),
           "<h4>Threads and their CPUs</h4>", threads(meta, appendix),
           "<h4>Clock synchronization</h4>", clock_sync(meta, appendix),
           "<h4>Statistics</h4>", statistics(meta, run_dir, appendix),
           "<h4>Discards and retries</h4>", discards(meta, run_dir, columns)]
    if prov is None:
        out.insert(3, "<p class=missing>no provenance.json: CPU, kernel and frequency not "
                      "recorded</p>")
    return "\n".join(out)


def run_records(run_dir, appendix):
    """A run's raw records, for the appendix: its threads, clock records and
    configuration."""
    meta = read_json(os.path.join(run_dir, "meta.json"), []) or {}
    rows = thread_rows(meta)
    return "\n".join([
        '<h3 id="%s">Records of run %s</h3>'
        % (appendix, esc(os.path.basename(os.path.abspath(run_dir)))),
        "<h4>Threads and their CPUs (threads_start)</h4>",
        table(rows, ("Rank", "Host", "Role", "Name", "TID", "CPUs")) if rows else
        "<p class=missing>no thread record in meta.json</p>",
        "<h4>Clock synchronization records (clocksync.ranks)</h4>", clock_records(meta),
        "<h4>Configuration (config)</h4>", configuration(meta)])


def study_section(study):
    if study is None:
        return ""
    rows = [(k, v) for k, v in sorted(study.items()) if k not in ("runs", "study")]
    rows += [("study " + k, v) for k, v in sorted(json_get(study, "study", default={}).items())]
    runs = [(r.get("index", "?"), r.get("name", "?"), r.get("launch", "?"), r.get("status", "?"),
             r.get("run_dir") or "none") for r in study.get("runs", []) if isinstance(r, dict)]
    return ("<h3>Study (study.json)</h3>\n" + table(rows) + "<h4>Its runs</h4>\n" +
            table(runs, ("run", "configuration", "launch", "status", "run folder")))


# The order a reader meets the figures in (by file name; others follow, by
# name): a run's maps, then its impact, then the comparisons.
FIGURE_ORDER = ["overhead", "concurrency", "bands", "impact", "compare_overhead",
                "diff_overhead", "diff_comm", "diff_comp_slowdown"]


def caption(png):
    """plots/NAME.caption.txt beside the figure (nbc-analyze's caption: what
    it shows, its statistics and provenance), else the first line of its
    gnuplot script, else its name."""
    stem = os.path.splitext(png)[0]
    for path, whole in ((stem + ".caption.txt", True), (stem + ".gp", False)):
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read().strip() if whole else f.readline().strip()
            if whole and text:
                return text
            if text.startswith("#"):
                return text.lstrip("# ")
    return os.path.basename(png)


def figure_key(png):
    name = os.path.splitext(os.path.basename(png))[0]
    rank = FIGURE_ORDER.index(name) if name in FIGURE_ORDER else len(FIGURE_ORDER)
    return rank, name


def embedded(png):
    """The PNG as a data: URI, so that report.html stands alone wherever it
    is copied; None when unreadable."""
    try:
        with open(png, "rb") as f:
            return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")
    except OSError:
        return None


def figures(top, folders, notes):
    """Every PNG in and below top and the given folders (a study's runs and
    comparisons), once each, folder by folder, each folder's in FIGURE_ORDER;
    embedded, with the folder and the caption."""
    groups, seen = [], set()
    for folder in [top] + folders:
        pngs = []
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for f in files:
                path = os.path.join(root, f)
                if f.lower().endswith(".png") and os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    pngs.append(path)
        if pngs:
            groups.append((folder, sorted(pngs, key=figure_key)))
    out, count = [], 0
    for folder, pngs in groups:
        out.append("<h3>%s</h3>" % esc(os.path.basename(os.path.abspath(folder))))
        for png in pngs:
            uri = embedded(png)
            if uri is None:
                notes.append("%s: unreadable, not shown" % png)
                continue
            count += 1
            name = os.path.splitext(os.path.basename(png))[0]
            text = caption(png)
            # The image as tall as its page leaves beside its caption.
            out.append('<figure id="fig-%d" data-name="%s" data-toc="Figure %d (%s)">'
                       '<img src="%s" alt="%s" style="max-height: %dmm">'
                       "<figcaption><b>Figure %d (%s).</b> %s</figcaption></figure>"
                       % (count, esc(name), count, esc(name), uri, esc(text.split("\n")[0]),
                          figure_max_height_mm(text), count, esc(name),
                          esc(text).replace("\n", "<br>")))
    return count, "\n".join(out) or "<p class=missing>no figure (PNG) in this folder</p>"


def verdict_module():
    """nbc-verdict (analysis/nbc_verdict.py), installed beside nbc-report."""
    here = os.path.dirname(os.path.realpath(__file__))
    module = sibling_module(here, "nbc-verdict", "nbc_verdict")
    if module is None:
        fail("nbc-verdict is missing beside %s (an incomplete copy or installation)" % here,
             ExitStatus.FAILURE)
    return module


# The results table: the cells of each reading (cells.csv's overlap, in the
# order of schema/classes.def: the bands, then invalid), then the medians a
# reader compares across configurations.


def results(verdict, runs, top):
    """The verdict lines, then a column per run: its configuration, the
    cells of each class, median r_overhead (eq. 1), r_comm (eq. 3),
    r_comp_slowdown (eq. 4) over the valid cells and r_MPI_impact (eq. 2)
    with its interval."""
    analyzed = [r for r in runs if os.path.isfile(os.path.join(r, "cells.csv")) and
                os.path.isfile(os.path.join(r, "meta.json"))]
    if not analyzed:
        return "<p class=missing>no analyzed run (cells.csv): run nbc-analyze first</p>"
    out = ["<ul class=verdicts>%s</ul>" % "".join(
        "<li>%s</li>" % esc(line) for line in verdict.verdicts(analyzed))]
    # A study's verdict over its launches (verdict.csv, impact.csv) comes
    # first, its numbers from the same rows as its lines; the lines below
    # are then each launch's own.
    if os.path.isfile(os.path.join(top, "verdict.csv")):
        header, rows = verdict.study_table(top)
        out = ["<h3>Over the launches (verdict.csv, impact.csv)</h3>",
               "<ul class=verdicts>%s</ul>" % "".join(
                   "<li>%s</li>" % esc(line) for line in verdict.study_lines(top)),
               '<div class="results">%s</div>' % table(
                   [[h] + [row[i] for row in rows] for i, h in enumerate(header[1:], 1)],
                   [header[0]] + [row[0] for row in rows]),
               "<h3>Each launch</h3>"] + out
    rows, counts_of = [], {run: verdict.class_counts(verdict.read_csv(
        os.path.join(run, "cells.csv"))) for run in analyzed}
    # The classes some run has: a column of zeros says nothing.
    classes = [k["name"] for k in verdict.band_classes()
               if any(c.get(k["name"]) for c in counts_of.values())]
    for run in analyzed:
        cells = verdict.read_csv(os.path.join(run, "cells.csv"))
        counts = counts_of[run]
        valid = [c for c in cells if c.get(verdict.column("CELLS_VALID")) == "1"]
        impact = verdict.read_csv(os.path.join(run, "impact.csv"))
        name, coll, dep, _ = verdict.verdict(run)
        medians = ["%.3g" % verdict.median_of(valid, k) if valid else "-"
                   for k in map(verdict.column, ("CELLS_R_OVERHEAD", "CELLS_R_COMM",
                                                 "CELLS_R_COMP_SLOWDOWN"))]
        found = verdict.run_largest_impact(impact)
        rows.append([name, coll, dep, len(valid)] +
                    [counts.get(k, 0) for k in classes] + medians +
                    ["-" if found is None else "%.3g [%.3g, %.3g] at %g ms" % (
                        found[1] + (1e3 * found[0],))])
    header = ["MPI library", "Collective", "Deployment", "valid cells"] + classes + [
        "median r_overhead (valid cells)", "median r_comm (valid cells)",
        "median r_comp_slowdown (valid cells)", "r_MPI_impact at the largest size [95 %]"]
    # A column per run, a row per quantity: a printed page holds a few runs
    # where it would not hold a column per quantity.
    out.append('<div class="results">%s</div>' % table(
        [[h] + [row[i] for row in rows] for i, h in enumerate(header[1:], 1)],
        ["MPI library"] + [row[0] for row in rows]))
    out.append("<p>Readings: cells.csv's overlap, the band of r_overhead (eq. 1) in one "
               "launch, never a verdict (analysis/README.md \"The verdict\"). Ratios: medians over the valid cells of eqs. 1, 3 and 4; "
               "r_MPI_impact (eq. 2): at the largest computation size, with its interval "
               "(impact.csv).</p>")
    return "\n".join(out)


def write_pdf(html_path, pdf_path):
    written, error = html_to_pdf(PROGRAM, html_path, pdf_path)
    if error:
        fail(error, ExitStatus.FAILURE)
    return written


def main(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n\n")[0],
                                     epilog=exit_status_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-V", "--version", action="version", version=version_line(PROGRAM))
    parser.add_argument("dir", metavar="DIR", help="a run folder or a study folder")
    parser.add_argument("--columns", metavar="FILE",
                        help="the cells.csv columns to count (default configs/report.ini)")
    parser.add_argument("--no-pdf", action="store_true", help="write report.html only")
    args = parser.parse_args(argv)
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
    body = ["<h2>Verdicts and results</h2>", results(verdict_module(), runs, top),
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
    if not args.no_pdf and write_pdf(html_path, os.path.join(top, "report.pdf")):
        written.append(os.path.join(top, "report.pdf"))
    print("%s: %s (%d run folder%s, %d figure%s)" % (PROGRAM, ", ".join(written), len(runs),
                                                     "" if len(runs) == 1 else "s", count,
                                                     "" if count == 1 else "s"))
    return ExitStatus.COMPLETE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
