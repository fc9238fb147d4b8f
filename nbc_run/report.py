"""What a study leaves besides its run folders: the tidy table study.csv
with its dictionary study_columns.json (docs/formats.md), and the summary
printed at the end (run folders, comparisons, figures, verdicts)."""
import csv
import io
import json
import os
import sys
import textwrap

from .common import CONSOLE_WIDTH, console_lines, note, read_json, write_atomic
from .profiles import capture

# The study's tidy table (STUDY_DIR/study.csv): the columns nbc-run writes
# about each run, then those of the run's cells.csv, copied by name without
# knowing them (their meaning is cells.csv's: analysis/README.md).
# (name, type, meaning), as docs/formats.md and study_columns.json say them.
TABLE_FILE, DICTIONARY_FILE = "study.csv", "study_columns.json"
RUN_COLUMNS = [
    ("run_index", "int", "the run's index in study.json"),
    ("run_name", "string", "the run's name in study.json"),
    ("run_status", "string", "complete or no_valid_cell (study.json)"),
    ("run_mpi", "string", "the library profile (study.json mpi)"),
    ("run_library", "string", "meta.json mpi_library.display_name"),
    ("run_library_version", "string", "meta.json mpi_library.version"),
    ("run_collective", "string", "the collective (study.json)"),
    ("run_deployment", "string", "the deployment (study.json)"),
    ("run_setting_name", "string", "the library setting the study varies (empty when none)"),
    ("run_setting_value", "string", "this run's value of it (empty when none)"),
    ("run_launch", "int", "which launch of its configuration (1 ..)"),
    ("run_nodes", "int", "meta.json nodes"),
    ("run_threads_per_rank", "int", "meta.json threads_per_rank"),
    ("run_folder", "string", "the run folder, relative to the folder holding the study folder"),
]


def count_figures(folder):
    """The PNG figures of a run or comparison folder (plots/, or the folder
    itself for a comparison)."""
    count = 0
    for d in (os.path.join(folder, "plots"), folder):
        try:
            count += sum(1 for name in os.listdir(d)
                         if name.endswith(".png") and os.path.isfile(os.path.join(d, name)))
        except OSError:
            pass
    return count


def write_table(record, study_dir):
    """study.csv (a row per run x cell: the run's columns, then its
    cells.csv's, copied by name) and study_columns.json (the dictionary),
    over the runs with a cells.csv; docs/formats.md."""
    header, tables = [], []
    for run in record.runs:
        cells = os.path.join(run.run_dir or "", "cells.csv")
        if not run.finished or not os.path.isfile(cells):
            continue
        with open(cells, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            names = reader.fieldnames or []
        for name in names:
            if any(name == c[0] for c in RUN_COLUMNS):
                note("{}: column {} has the name of a column of {}: no {}".format(
                    cells, name, TABLE_FILE, TABLE_FILE))
                return
            if name not in header:
                header.append(name)
        tables.append((run, rows))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c[0] for c in RUN_COLUMNS] + header)
    top = os.path.dirname(os.path.abspath(study_dir))
    for run, rows in tables:
        meta = read_json(os.path.join(run.run_dir, "meta.json")) or {}
        library = meta.get("mpi_library") or {}
        setting = run.setting
        described = [run.index, run.name, run.status, run.mpi,
                     library.get("display_name", ""), library.get("version", ""),
                     run.collective, run.deployment, setting.name if setting else "",
                     setting.value if setting else "", run.launch, meta.get("nodes", ""),
                     meta.get("threads_per_rank", ""), os.path.relpath(run.run_dir, top)]
        for row in rows:
            writer.writerow(described + [row.get(name) or "" for name in header])
    write_atomic(os.path.join(study_dir, TABLE_FILE), out.getvalue())
    where = "a column of the runs' cells.csv: analysis/README.md, \"cells.csv\""
    columns = ([{"name": n, "source": "nbc-run", "type": t, "meaning": m}
                for n, t, m in RUN_COLUMNS] +
               [{"name": n, "source": "cells.csv", "type": "see source", "meaning": where}
                for n in header])
    write_atomic(os.path.join(study_dir, DICTIONARY_FILE), json.dumps(
        {"format": 1, "table": TABLE_FILE, "columns": columns}, indent=2) + "\n")
    record.table, record.dictionary = TABLE_FILE, DICTIONARY_FILE


def print_verdicts(tools_dir, run_dirs):
    """nbc-verdict's line per configuration (from the run folders' files),
    the study's answer in words, last."""
    tool = os.path.join(tools_dir, "nbc-verdict")
    if not run_dirs or not os.access(tool, os.X_OK):
        return
    sys.stdout.flush()
    out = capture([tool] + run_dirs)
    if out is None:
        note("nbc-verdict failed: no verdict lines")
        return
    # nbc-verdict wraps each configuration's line at 100 columns, its
    # continuations indented; with the "verdict: " label in front, each is
    # wrapped again so that the labelled line keeps to 100 columns too.
    paragraphs = []
    for line in out.splitlines():
        if line.startswith(" ") and paragraphs:
            paragraphs[-1] += " " + line.strip()
        elif line.strip():
            paragraphs.append(line.strip())
    for text in paragraphs:
        # a note on the study's calibration speaks for itself
        label = "" if text.startswith("calibration: ") else "verdict: "
        print("\n".join(console_lines(label + text)))


def print_equal_work(comparisons, wrap=True):
    """The answer to "should I turn it on?": nbc-compare's sentences on each
    configuration against basic at equal work (COMPARISON/equal_work.txt),
    wrapped at CONSOLE_WIDTH (wrap False: one sentence a line, as in the
    file)."""
    for d in comparisons:
        try:
            with open(os.path.join(d, "equal_work.txt")) as f:
                text = f.read()
        except FileNotFoundError:
            continue
        except OSError as e:
            note("cannot read {}/equal_work.txt: {}".format(d, e))
            continue
        # One sentence a line in the file (for a program); on the console at
        # most 100 columns, a sentence's continuation indented under it.
        if not wrap:
            sys.stdout.write(text)
            continue
        for line in text.splitlines():
            indent = line[:len(line) - len(line.lstrip())]
            print("\n".join(textwrap.wrap(line.strip(), CONSOLE_WIDTH, initial_indent=indent,
                                          subsequent_indent=indent + "    ",
                                          break_on_hyphens=False)) if line.strip() else "")


def summary(r, finished):
    """The end of a study on standard output, paths relative to where
    nbc-run runs: counts, what was skipped or failed, run folders,
    comparisons, PNG figures, study.json, verdicts, study.csv."""
    def relative(path):
        return path[len(r.workdir) + 1:] if path.startswith(r.workdir + "/") else path

    print()
    invalid = [run for run in finished if run.status == "no_valid_cell"]
    print("nbc-run: {} run(s) done ({} without a valid cell), {} failed, {} skipped".format(
        len(finished), len(invalid), len(r.failed), len(r.planner.skipped)))
    for s in r.planner.skipped:
        print("skipped: " + s)
    for s in r.failed:
        print("failed: " + s)
    for run in invalid:
        print("no valid cell: {} ({}): {}".format(run.name, relative(run.run_dir),
                                                  run.no_valid_cell_reason))
    # Each folder once; its figures counted, not listed (the report shows
    # them; each folder holds them as PNG, PDF and SVG).
    for run in finished:
        print("run folder: " + relative(run.run_dir))
    for d in r.record.comparisons:
        print("comparison: " + relative(d))
    figures = sum(count_figures(d) for d in [run.run_dir for run in finished] +
                  r.record.comparisons)
    if figures:
        print("figures: {} in those folders (plots/ of each run)".format(figures))
    print("study: " + relative(r.study_file))
    verdict = os.path.isfile(os.path.join(r.study_dir, "verdict.csv"))
    print_verdicts(r.tools_dir, [r.study_dir] if verdict else
                   [run.run_dir for run in finished if run.status == "complete"])
    coverage = r.record.null_coverage
    for pair, c in sorted((coverage if isinstance(coverage, dict) else {}).items()):
        print("\n".join(console_lines("null-control coverage, pooled: {} {} ({} of {} valid "
                                       "cells over {} run(s); 95 % interval {})".format(
                  pair, "none" if not c["cells"] else "{:.1f} %".format(100 * c["share"]),
                  c["covered"], c["cells"], c["runs"],
                  "none" if not c["cells"] else "[{:.1f}, {:.1f}] %".format(
                      100 * c["ci_lo"], 100 * c["ci_hi"])))))
    if r.record.table:
        print("table: " + relative(os.path.join(r.study_dir, r.record.table)))
    print_equal_work(r.record.comparisons)
    if r.proc.interrupted:
        print("resume: nbc-run --resume " + relative(r.study_dir))
    sys.stdout.flush()
