#!/usr/bin/env python3
"""Lists every place where a Python tool or a script (Python, shell, awk;
outside deploy/, docs/, configs/ and tests/) spells a deployment's name
as a string literal: "name", 'name', a quoted list of names, or
run.deployment=name. The deployments are the rows of
deploy/deployments.def; a tool reads them from `schema_doc --json`,
`nbc-profile deployments` or `bench_nbc --plan` and picks one by its
fields. Prints file:line for each; exit status 1 when any, or when an
entry of deployment_literals.allow no longer occurs (remove it).

Usage: deployment_literals.py [ROOT] [--also PATH...]
Exempt are the lines of another vocabulary (column_literals.py's: JSON
keys, option names, ...) and the (file, word) pairs of
deployment_literals.allow, each with its reason."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "schema"))
import column_literals  # noqa: E402  (its source test, comment and quoting rules)

EXCLUDED = ("deploy/", "docs/", "configs/", "tests/")
ROW = re.compile(r'^DEPLOYMENT\(\s*\w+,\s*"([a-z0-9_]+)"', re.M)
ASSIGNED = re.compile(r"\brun\.deployment=([a-z0-9_]+)")


def main(argv):
    also = []
    if "--also" in argv:
        i = argv.index("--also")
        also, argv = argv[i + 1:], argv[:i]
    root = argv[1] if len(argv) > 1 else "."
    os.chdir(root)
    with open("deploy/deployments.def") as f:
        names = set(ROW.findall(f.read()))
    if not names:
        print("deployment_literals: no row read from deploy/deployments.def")
        return 1
    allowed = set()
    with open(os.path.join(HERE, "deployment_literals.allow")) as f:
        for line in f:
            fields = line.split(None, 2)
            if len(fields) == 3 and not fields[0].startswith("#"):
                allowed.add((fields[0], fields[1]))
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True)
    paths = [p for p in tracked.stdout.splitlines()
             if not p.startswith(EXCLUDED) and not p.endswith((".c", ".h")) and
             os.path.isfile(p) and column_literals.is_source(p)] + also
    found, used = 0, set()
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if column_literals.is_comment(path, line):
                    continue
                if any(p.search(line) for p, _ in column_literals.OTHER_VOCABULARIES):
                    continue
                words = [w for m in column_literals.QUOTED.finditer(line)
                         for w in m.group(2).split(",")] + ASSIGNED.findall(line)
                for word in words:
                    if word not in names:
                        continue
                    if (path, word) in allowed:
                        used.add((path, word))
                        continue
                    print("%s:%d: '%s' (a deployment) spelled outside deploy/deployments.def: "
                          "pick it by its fields (schema_doc --json, nbc-profile deployments)"
                          % (path, number, word))
                    found += 1
    stale = sorted(allowed - used)
    for path, word in stale:
        print("deployment_literals.allow: %s %s no longer occurs (remove it)" % (path, word))
    print("deployment_literals: %d scripts and tools, %d deployments, %d found, %d allowed"
          % (len(paths), len(names), found, len(used)))
    return 1 if found or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
