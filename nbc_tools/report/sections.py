"""nbc-report's methods and appendix, per run folder: the environment
(meta.json, provenance.json), the deployment's threads, the clock
synchronization, the statistics, the discards and retries (the columns of
configs/report.ini); each run's raw records; the study (study.json)."""
import csv
import os

from .load import json_get, read_json
from .tables import esc, table, text_of


def scenario_parts(meta):
    """meta.json's scenario as the figures' titles give it (analysis/inputs/meta.c):
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
