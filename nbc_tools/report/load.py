"""What nbc-report reads: its column list (configs/report.ini), the JSON
files of run and study folders, and which run folders a folder holds."""
import configparser
import json
import os

from ..cli import TOP, ExitStatus
from ..cli import fail as _fail

PROGRAM = "nbc-report"


def fail(text, status=ExitStatus.BAD_INPUT):
    _fail(PROGRAM, text, status)


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


def columns_config(path):
    """The [cells.csv] section of configs/report.ini."""
    # (TOP: the source tree, or PREFIX/share/bench_nbc when installed)
    candidates = [path] if path else [os.path.join(TOP, "configs", "report.ini")]
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
