"""Small helpers every module of nbc-run uses: messages, bad input, INI and
JSON files, times."""
import configparser
import json
import os
import sys
import time

# The console's width and its one wrapping rule, the analysis tools' too
# (nbc-run's modules import them from here).
from nbc_tools.cli import CONSOLE_WIDTH, console_lines  # noqa: F401


def show(line, out=None):
    """Prints line wrapped at CONSOLE_WIDTH (on standard error by default)."""
    out = out or sys.stderr
    for part in console_lines(line):
        print(part, file=out)
    out.flush()


def note(message):
    """nbc-run's own message on standard error, wrapped like every console
    line, on a terminal and in a batch job's log alike (what a program needs
    is in the study's files, never scraped from the console)."""
    show("nbc-run: " + message)


class BadInput(Exception):
    """Bad input: one message, exit status 2, before anything runs."""


def allowed(values):
    return ",".join(values)


def check_list(what, text, known):
    """The comma-separated items of text, each one of known."""
    if not text:
        raise BadInput("{}: empty list (allowed: {})".format(what, allowed(known)))
    items = text.split(",")
    for item in items:
        if item not in known:
            raise BadInput("{}: unknown value '{}' (allowed: {})".format(what, item, allowed(known)))
    return items


def first_of(*values):
    for value in values:
        if value:
            return value
    return ""


def duration(seconds):
    """A time left in words: seconds under 90 s, else minutes."""
    return "{:.0f} s".format(seconds) if seconds < 90 else "{:.0f} min".format(seconds / 60)


def iso_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def stamp_now():
    return time.strftime("%Y%m%d-%H%M%S")


def write_atomic(path, text):
    tmp = "{}.tmp.{}".format(path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_json(path):
    """A JSON file's object, None when it is missing or caught being written."""
    try:
        with open(path) as f:
            value = json.load(f)
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None


def meta_status(run_dir):
    meta = read_json(os.path.join(run_dir, "meta.json")) if run_dir else None
    return meta.get("status", "") if meta else ""


def file_signature(path):
    try:
        st = os.stat(path)
        return (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        return None


# ---- configurations (INI, libinih's syntax) ------------------------------

def read_ini(path):
    """The sections of an INI file as {section: {key: value}}, in file order
    (; and # comments, inline ; comments after whitespace, the last value of
    a repeated key)."""
    parser = configparser.ConfigParser(delimiters=("=",), comment_prefixes=(";", "#"),
                                       inline_comment_prefixes=(";",), strict=False,
                                       interpolation=None, default_section="\0")
    parser.optionxform = str
    try:
        with open(path) as f:
            parser.read_file(f, source=path)
    except configparser.MissingSectionHeaderError as e:
        key = e.line.split("=", 1)[0].strip()
        raise BadInput("{}: '{}' outside any [section]".format(path, key))
    except configparser.Error as e:
        raise BadInput("{}: {}".format(path, " ".join(str(e).split())))
    except OSError as e:
        raise BadInput("cannot read {}: {}".format(path, e.strerror))
    return {s: dict(parser.items(s)) for s in parser.sections()}


def ini_get(ini, section, key):
    return ini.get(section, {}).get(key, "")
