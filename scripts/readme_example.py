#!/usr/bin/env python3
"""README.md's example of what `make run` prints at its end, generated from
a recorded default study (tests/data/example_study: its verdict.csv,
impact.csv and the comparison's equal_work.txt) by the code nbc-run prints
it with (nbc_run/report.py, nbc-verdict), so the example is what a run
prints.

  scripts/readme_example.py [--check] [--tools-dir DIR]
--check: exit 1 and show the difference when README.md's example is not
the generated one (tests/repo/readme_example.sh); otherwise rewrite it.
The example sits between the lines BEGIN and END below in README.md."""
import argparse
import contextlib
import difflib
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDY = os.path.join("tests", "data", "example_study")
BEGIN = "<!-- example: scripts/readme_example.py from %s -->" % STUDY
END = "<!-- end of the example -->"


def generated(tools_dir):
    sys.path.insert(0, ROOT)  # nbc_run/ and the nbc_tools/ it imports
    from nbc_run.report import print_equal_work, print_verdicts
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_verdicts(tools_dir, [os.path.join(ROOT, STUDY)])
        print()
        print_equal_work([os.path.join(ROOT, STUDY, "compare")], wrap=True)  # as on a terminal
    text = out.getvalue().rstrip("\n")
    if not text.startswith("verdict: "):
        sys.exit("readme_example.py: no verdict lines from %s/nbc-verdict on %s" % (tools_dir, STUDY))
    return ["    " + line if line else "" for line in text.split("\n")]


def main():
    parser = argparse.ArgumentParser(description="README.md's example, from a recorded study")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--tools-dir", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        start, end = lines.index(BEGIN), lines.index(END)
    except ValueError:
        sys.exit("readme_example.py: README.md lacks the lines %r and %r" % (BEGIN, END))
    new = [""] + generated(args.tools_dir) + [""]
    if args.check:
        if lines[start + 1:end] != new:
            sys.stdout.writelines(difflib.unified_diff(
                [l + "\n" for l in lines[start + 1:end]], [l + "\n" for l in new],
                "README.md", "generated"))
            sys.exit(1)
        return
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:start + 1] + new + lines[end:]))
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
