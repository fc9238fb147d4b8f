"""What every bench_nbc tool's command line shares, for the Python tools
(nbc-run, nbc-report, nbc-verdict, nbc-fingerprint): the exit statuses,
read from cli/exit_status.def (the C tools #include the same file), the
--version line, the argument parser that offers both, the one-line
failure, and the console's width. Found in the source tree and in an
installed copy (PREFIX/share/bench_nbc), beside cli/."""
import argparse
import os
import re
import subprocess
import sys
import textwrap

# The source tree, or PREFIX/share/bench_nbc: the folder above this package.
TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# One EXIT_STATUS(code, NAME, "word", "meaning") line per status (the file's
# header comment says so).
_STATUS_LINE = re.compile(r'^EXIT_STATUS\((\d+), ([A-Z_]+), "([^"]*)", "([^"]*)"\)$')


def exit_statuses():
    """[(code, NAME, word, meaning)] in the file's order."""
    path = os.path.join(TOP, "cli", "exit_status.def")
    with open(path, encoding="utf-8") as f:
        rows = [m.groups() for m in map(_STATUS_LINE.match, f.read().splitlines()) if m]
    if not rows:
        raise RuntimeError("{}: no EXIT_STATUS line".format(path))
    return [(int(code), name, word, meaning) for code, name, word, meaning in rows]


class ExitStatus:
    """The statuses as attributes: ExitStatus.BAD_INPUT == 2."""


for _code, _name, _word, _meaning in exit_statuses():
    setattr(ExitStatus, _name, _code)


def exit_status_help():
    """The table for --help, as the C tools print it."""
    return "exit status:\n" + "".join("  {}  {:<13} {}\n".format(code, word, meaning)
                                      for code, _, word, meaning in exit_statuses())


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def version_line(tool):
    """"TOOL VERSION (revision REV)": VERSION from the file, the revision
    from `make install`'s REVISION file, else git, else unknown."""
    revision = _read(os.path.join(TOP, "REVISION"))
    if not revision and os.path.exists(os.path.join(TOP, ".git")):
        try:
            revision = subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      universal_newlines=True, check=False).stdout.strip()
        except OSError:
            revision = ""
    return "{} {} (revision {})".format(tool, _read(os.path.join(TOP, "VERSION")) or "unknown",
                                        revision or "unknown")


def parser(program, doc):
    """An analysis tool's argument parser: its description the first
    paragraph of doc, the exit statuses after the options, -V/--version."""
    p = argparse.ArgumentParser(prog=program, description=doc.split("\n\n")[0],
                                epilog=exit_status_help(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-V", "--version", action="version", version=version_line(program))
    return p


def fail(program, text, status=None):
    """PROGRAM: TEXT on stderr, then exit with status (default: bad input)."""
    print("%s: %s" % (program, text), file=sys.stderr)
    sys.exit(ExitStatus.BAD_INPUT if status is None else status)


def tool_dirs():
    """The folders the built tools (schema_doc) are looked for in: the
    running tool's own (build/, build/san/, PREFIX/bin), then the source
    tree's build/."""
    return [os.path.dirname(os.path.realpath(sys.argv[0])), os.path.join(TOP, "build")]


# The console's width: a longer line is wrapped, its continuation indented.
CONSOLE_WIDTH = 100


def console_lines(line, indent="    "):
    """line as the console shows it: lines of at most CONSOLE_WIDTH columns,
    the later ones indented."""
    return textwrap.wrap(line, CONSOLE_WIDTH, subsequent_indent=indent,
                         break_on_hyphens=False) or [""]
