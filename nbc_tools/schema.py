"""The run folder's schema as the analysis tools read it: the columns of
schema/columns.def and the verdict's classes of schema/classes.def, from
`schema_doc --json` (a built tool), so that no Python tool spells either."""
import json
import math
import os
import subprocess

from .cli import ExitStatus, fail, tool_dirs

# Its failures name the verdict, which every analysis tool reads it for.
PROGRAM = "nbc-verdict"
_SCHEMA = {}


def schema():
    """schema_doc --json (built beside the running tool, else in the source
    tree's build/): columns, classes and their order."""
    if not _SCHEMA:
        folders = tool_dirs()
        for tool in (os.path.join(folder, "schema_doc") for folder in folders):
            if os.access(tool, os.X_OK):
                try:
                    out = subprocess.run([tool, "--json"], stdout=subprocess.PIPE, check=True,
                                         universal_newlines=True).stdout
                    doc = json.loads(out)
                    _SCHEMA["columns"] = {c["id"]: c["name"] for f in doc["files"]
                                          for c in f["columns"]}
                    _SCHEMA["classes"] = {c["name"]: c for c in doc["classes"]}
                    _SCHEMA["class_order"] = [c["name"] for c in doc["classes"]]
                except (OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
                    fail(PROGRAM, "%s --json: %s" % (tool, e), ExitStatus.FAILURE)
                break
        else:
            fail(PROGRAM, "schema_doc is missing beside %s (build it: make)" % folders[0],
                 ExitStatus.FAILURE)
    return _SCHEMA


def column(schema_id):
    """A column's name from its id in schema/columns.def."""
    columns = schema()["columns"]
    if schema_id not in columns:
        fail(PROGRAM, "schema_doc names no column %s (schema/columns.def)" % schema_id,
             ExitStatus.FAILURE)
    return columns[schema_id]


def classes():
    """The verdict's classes by name (schema/classes.def): group, band_lo,
    band_hi, band, words, colour, abbrev."""
    return schema()["classes"]


def class_order():
    """The classes' names in schema/classes.def's order."""
    return schema()["class_order"]


def band_classes():
    """The readings cells.csv's overlap takes, in schema/classes.def's
    order: the bands of r_overhead, then the class of group invalid."""
    table = classes()
    return [table[n] | {"name": n} for n in class_order()
            if table[n]["band"] or table[n]["group"] == "invalid"]


def band_of(value):
    """The band of r_overhead holding value (schema/classes.def); None for
    a NAN."""
    for c in band_classes():
        lo = -math.inf if c["band_lo"] is None else c["band_lo"]
        hi = math.inf if c["band_hi"] is None else c["band_hi"]
        if c["band"] and lo <= value < hi:
            return c["name"]
    return None
