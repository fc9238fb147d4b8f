"""What every bench_nbc tool's command line shares, for the Python tools
(nbc-run, nbc-report): the exit statuses, read from cli/exit_status.def (the
C tools #include the same file), and the --version line. Standard library
only; found next to the tools in the source tree and in an installed copy
(PREFIX/share/bench_nbc/cli)."""
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import re
import subprocess

HERE = os.path.dirname(os.path.realpath(__file__))
TOP = os.path.dirname(HERE)  # the source tree, or PREFIX/share/bench_nbc
# One EXIT_STATUS(code, NAME, "word", "meaning") line per status (the file's
# header comment says so).
_STATUS_LINE = re.compile(r'^EXIT_STATUS\((\d+), ([A-Z_]+), "([^"]*)", "([^"]*)"\)$')


def exit_statuses():
    """[(code, NAME, word, meaning)] in the file's order."""
    path = os.path.join(HERE, "exit_status.def")
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


def sibling_module(here, program, module_name):
    """The Python tool `program` (e.g. nbc-verdict) installed in the folder
    `here`, or its source module_name.py there, loaded as a module; None
    when neither is there (an incomplete copy or installation)."""
    for path in (os.path.join(here, program), os.path.join(here, module_name + ".py")):
        if os.path.isfile(path):
            loader = importlib.machinery.SourceFileLoader(module_name, path)
            module = importlib.util.module_from_spec(
                importlib.util.spec_from_loader(module_name, loader))
            loader.exec_module(module)
            return module
    return None


def html_to_pdf(program, html_path, pdf_path):
    """The page html_path printed to pdf_path by weasyprint (written
    atomically). Returns (written, error): (False, None) when weasyprint is
    not installed (said on stderr for program), (False, message) when it
    failed."""
    tool = shutil.which("weasyprint")
    if not tool:
        print("%s: weasyprint is not installed: %s not written (apt-get install weasyprint)"
              % (program, pdf_path), file=sys.stderr)
        return False, None
    done = subprocess.run([tool, "--quiet", html_path, pdf_path + ".tmp"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return False, "weasyprint failed on %s (exit status %d): %s" % (
            html_path, done.returncode, done.stderr.strip()[-500:])
    os.replace(pdf_path + ".tmp", pdf_path)
    return True, None
