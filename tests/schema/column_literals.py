#!/usr/bin/env python3
"""Lists every place outside schema/, docs/, tests/ and the harness
definitions of packaging/ where a C, Python or
shell file spells a column name of the given files (raw.csv, cells.csv) as
a string literal: "name", 'name', or inside a quoted comma-separated list
of names (a header). Prints file:line for each; exit status 1 when any.

Usage: column_literals.py SCHEMA_JSON FILE.csv... [--also PATH...]
SCHEMA_JSON is `schema_doc --json`. Exempt are lines where the word is
another vocabulary's (JSON keys, configuration keys, option names, names
of enumeration values; see OTHER_VOCABULARIES) and the (file, word) pairs
of column_literals.allow, each with its reason."""
import json
import os
import re
import subprocess
import sys

# packaging/ramble and packaging/reframe are other tools' definitions: they
# name the cells table's fields in those tools' terms (figures of merit,
# regular-expression groups), tested against a real run's stdout
# (tests/install/harnesses.sh), not read by bench_nbc.
EXCLUDED = ("schema/", "docs/", "tests/", "packaging/ramble/", "packaging/reframe/")
SOURCE_EXTENSIONS = (".c", ".h", ".py", ".sh", ".awk")
# A line with one of these holds the words of another vocabulary.
OTHER_VOCABULARIES = [
    (re.compile(r"json_object_"), "a JSON key"),
    (re.compile(r"\bKEY\("), "a configuration key"),
    (re.compile(r"\b(required|no|optional)_argument\b"), "a getopt_long option"),
    (re.compile(r'^\s*\[[A-Z0-9_]+\]\s*=\s*"'), "the name of an enumeration value"),
    (re.compile(r'\{\s*[A-Z][A-Z0-9_]*,\s*"'), "the name of an enumeration value"),
    (re.compile(r'\{"[a-z0-9_]+", offsetof\(run_meta\b'), "a key of meta.json"),
    (re.compile(r"\bjson_get\("), "a key of a JSON file (nbc-report)"),
]
# A quoted name or list of names; a header's piece may start or end with a
# comma (a string continued on the next line) and end with a newline.
QUOTED = re.compile(r"""(["']),?([a-z0-9_]+(?:,[a-z0-9_]+)*),?(?:\\n)?\1""")


def is_source(path):
    if path.endswith(SOURCE_EXTENSIONS):
        return True
    if os.path.splitext(path)[1] or not os.access(path, os.X_OK):
        return False
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and re.search(rb"python|\bsh\b|bash|awk", first) is not None


def is_comment(path, line):
    s = line.lstrip()
    if path.endswith((".c", ".h")):
        return s.startswith(("/*", "*", "//", "#include"))
    return s.startswith("#")


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    also = []
    if "--also" in argv:
        i = argv.index("--also")
        also, argv = argv[i + 1:], argv[:i]
    with open(argv[1]) as f:
        schema = json.load(f)
    names = {}
    for entry in schema["files"]:
        if entry["file"] in argv[2:]:
            for column in entry["columns"]:
                names.setdefault(column["name"], []).append(entry["file"])
    missing = set(argv[2:]) - {e["file"] for e in schema["files"]}
    if missing:
        sys.stderr.write("column_literals: no file %s in the schema\n" % ", ".join(sorted(missing)))
        return 2
    allowed = set()
    allow_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "column_literals.allow")
    with open(allow_path) as f:
        for line in f:
            fields = line.split(None, 2)
            if len(fields) == 3 and not fields[0].startswith("#"):
                allowed.add((fields[0], fields[1]))
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True)
    paths = [p for p in tracked.stdout.splitlines()
             if not p.startswith(EXCLUDED) and os.path.isfile(p) and is_source(p)] + also
    found = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if is_comment(path, line):
                    continue
                if any(p.search(line) for p, _ in OTHER_VOCABULARIES):
                    continue
                for match in QUOTED.finditer(line):
                    for word in match.group(2).split(","):
                        if word in names and (path, word) not in allowed:
                            print("%s:%d: '%s' (a column of %s) spelled outside schema/: use "
                                  "schema/schema.h's COL_... or schema_doc --json"
                                  % (path, number, word, " and ".join(names[word])))
                            found += 1
    print("column_literals: %d source files, %d column names, %d found"
          % (len(paths), len(names), found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
