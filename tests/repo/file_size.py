#!/usr/bin/env python3
"""No product source file under ROOT (default: the repository) over
LIMIT_LINES lines: C sources and headers, Python tools (*.py and the
executables whose first line names python), shell scripts outside tests/.
Tests (tests/, fuzz/) are not product files. A file over the limit fails
(status 1) unless EXCEPTIONS below lists it with the reason; exceptions
no longer over the limit are printed to be removed."""
import os
import sys

LIMIT_LINES = 600  # the style rule: split a file by concern before it passes this
SKIP_DIRS = {".git", "build", ".ci", "tests", "fuzz"}
EXCEPTIONS = {
}


def is_product(root, path):
    if path.endswith((".c", ".h", ".py", ".sh")):
        return True
    full = os.path.join(root, path)
    if "." in os.path.basename(path) or not os.access(full, os.X_OK):
        return False
    with open(full, "rb") as f:
        first = f.readline()
    return first.startswith(b"#!") and (b"python" in first or b"sh" in first)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    over, excepted = [], {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = os.path.relpath(os.path.join(folder, name), root)
            if not is_product(root, path):
                continue
            with open(os.path.join(root, path), "rb") as f:
                lines = sum(1 for _ in f)
            if lines <= LIMIT_LINES:
                continue
            if path in EXCEPTIONS:
                excepted[path] = lines
            else:
                over.append(f"{path}: {lines} lines (at most {LIMIT_LINES}: split it by concern)")
    for line in over:
        print(line)
    print(f"exceptions (over {LIMIT_LINES} lines):" + ("" if EXCEPTIONS else " none"))
    for path, why in sorted(EXCEPTIONS.items()):
        size = f"{excepted[path]} lines" if path in excepted else "now within the limit: remove it"
        print(f"  {path} ({size}): {why}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
