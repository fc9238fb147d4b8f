#!/usr/bin/env python3
"""Checks that docs/extending.md's recipes for a collective, a deployment,
a library profile and a Python analysis tool name only files and symbols
that exist under ROOT.

Every path the recipes name (a word with a folder, or a file name with an
extension; `*` as a glob) must exist (a bare file name anywhere in the
tree); every C identifier in a code span (a word with an underscore, a word
before "(", a word before "[]") must occur as a word in a source file
(.c, .h, .def, .ini, .py) or name one (a test program). Placeholders are skipped: words in capitals without
an underscore (NAME, ID), <...>, and build/ paths (made by make). Prints
what is missing, exit status 1 when anything is.

Usage: extending_doc.py [ROOT]"""
import glob
import os
import re
import sys

SECTIONS = ("## A collective", "## A deployment", "## An MPI library profile",
            "## A Python analysis tool")
SKIP_DIRS = {".git", "build", ".ci"}
SOURCES = (".c", ".h", ".def", ".ini", ".py")
PATH = re.compile(r"(?<![\w./-])((?:[\w.*-]+/)+[\w.*-]*|[\w-]+\.(?:c|h|def|ini|md|sh|py|mk|sbatch))"
                  r"(?![\w/])")
CODE = re.compile(r"`([^`]+)`")
IDENTIFIER = re.compile(r"(?<![\w.\[])([A-Za-z_][A-Za-z0-9_]*)(?![\w.\]])")


def recipes(text):
    """The three sections' text, each up to the next heading."""
    out = []
    for heading in SECTIONS:
        start = text.index(heading)
        end = text.find("\n## ", start + len(heading))
        out.append(text[start:end if end >= 0 else len(text)])
    return "\n".join(out)


def placeholder(word):
    return "<" in word or re.fullmatch(r"[A-Z][A-Z-]*", word) is not None


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    with open(os.path.join(root, "docs", "extending.md"), encoding="utf-8") as f:
        text = recipes(f.read())
    names, words = set(), set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        names.update(files)
        words.update(os.path.splitext(name)[0] for name in files)  # a program or test by name
        for name in files:
            if name.endswith(SOURCES):
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f.read()))
    missing, paths, symbols = [], set(), set()
    for match in PATH.finditer(text):
        path = match.group(1).rstrip(".")
        if path.startswith("build/") or any(placeholder(p) for p in re.split(r"[/.]", path) if p):
            continue
        paths.add(path)
    for span in CODE.findall(text):
        span = re.sub(r"\w*<[^>]*>\w*", " ", span)  # a placeholder: NBC_DEPLOYMENT_<ID>
        span = re.sub(r"\S*/\S*|\S+\.(?:c|h|def|ini|md|sh|py)\b|\S*\.\S+", " ", span)
        for m in IDENTIFIER.finditer(span):
            word, after = m.group(1), span[m.end():m.end() + 2]
            if placeholder(word) or word.startswith(("--", "-")):
                continue
            if "_" in word or after.startswith(("(", "[]")):
                symbols.add(word)
    for path in sorted(paths):
        if "/" in path:
            if not glob.glob(os.path.join(root, path)):
                missing.append("docs/extending.md names %s: no such file or folder" % path)
        elif path not in names:
            missing.append("docs/extending.md names %s: no such file in the tree" % path)
    for word in sorted(symbols):
        if word not in words:
            missing.append("docs/extending.md names `%s`: in no source file (%s)"
                           % (word, ", ".join(SOURCES)))
    for line in missing:
        print(line)
    print("extending_doc: %d paths and %d symbols named by the recipes, %d missing"
          % (len(paths), len(symbols), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
