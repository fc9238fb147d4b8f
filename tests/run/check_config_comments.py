#!/usr/bin/env python3
"""check_config_comments.py BENCH_NBC NBC_RUN_ARGS... -- CONFIG...: the
grid each configuration's comments claim ("5 x 5 cells", "1 ms to 16 ms")
is the one bench_nbc reads from it. A study file's grid is the one nbc-run
gives bench_nbc (its first command of --dry-run, NBC_RUN_ARGS added); the
cells are bench_nbc --plan's, the axes' ends those of the grid keys it is
given. A comment line naming another file or a --set speaks of another
grid and is skipped. Prints the claims checked; exits 1 at the first that
does not hold."""
import configparser
import json
import re
import shlex
import subprocess
import sys

PER_SECOND = {"us": 1e6, "ms": 1e3, "s": 1.0}
CELLS = re.compile(r"\b(\d+) x (\d+)\b")
SPAN = re.compile(r"\b(\d+(?:\.\d+)?) ?(us|ms|s) to (\d+(?:\.\d+)?) ?(us|ms|s)\b")
TIME = re.compile(r"^(\d+(?:\.\d+)?(?:e-?\d+)?)(us|ms|s)$")


def fail(message):
    print("check_config_comments: " + message, file=sys.stderr)
    sys.exit(1)


def claims(path):
    """(line number, text) of the comment lines that state this file's grid."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if text.startswith(";") and ".conf" not in text and "--set" not in text:
                if CELLS.search(text) or SPAN.search(text):
                    yield number, text


def bench_args(path, bench, nbc_run_args):
    """The arguments bench_nbc is given for the configuration path."""
    parser = configparser.ConfigParser(inline_comment_prefixes=(";",))
    parser.read(path)
    if not parser.has_section("study"):
        return ["-c", path]
    out = subprocess.run(nbc_run_args[:1] + [path] + nbc_run_args[1:] + ["--dry-run"],
                         stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    for line in out.splitlines():
        words = shlex.split(line[2:]) if line.startswith("+ ") else []
        if words and any(w.endswith("/bench_nbc") for w in words) and "-c" in words:
            first = next(i for i, w in enumerate(words) if w.endswith("/bench_nbc"))
            args = words[first + 1:]
            return args[:args.index("--stop-after")] if "--stop-after" in args else args
    fail("{}: nbc-run --dry-run printed no bench_nbc command: {}".format(path, out))


def seconds(text):
    m = TIME.match(text.strip())
    if not m:
        fail("a grid time without its unit: " + text)
    return float(m.group(1)) / PER_SECOND[m.group(2)]


def axis_ends(args, key):
    """(first, last) time in seconds of grid.KEY as bench_nbc reads args:
    the last --set of it, else the -c file's."""
    text = None
    for a, b in zip(args, args[1:]):
        if a == "--set" and b.startswith("grid." + key + "="):
            text = b.split("=", 1)[1]
    if text is None:
        parser = configparser.ConfigParser(inline_comment_prefixes=(";",))
        parser.read(args[args.index("-c") + 1])
        text = parser.get("grid", key)
    times = ([seconds(t) for t in text.split(",")[:2]] if "," in text
             else sorted(seconds(t) for t in text.split()))
    return times[0], times[-1]


def cells(bench, args):
    out = subprocess.run([bench, "--plan"] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True).stdout
    return json.loads(out)["estimate"]["cells_per_run"]


def main(argv):
    split = argv.index("--")
    bench, nbc_run_args, configs = argv[0], argv[1:split], argv[split + 1:]
    checked = 0
    for path in configs:
        stated = list(claims(path))
        if not stated:
            continue
        args = bench_args(path, bench, nbc_run_args)
        n_cells = cells(bench, args)
        ends = [axis_ends(args, "comm_times"), axis_ends(args, "comp_times")]
        for number, text in stated:
            where = "{}:{}: '{}'".format(path, number, text.lstrip("; "))
            for m in CELLS.finditer(text):
                claimed = int(m.group(1)) * int(m.group(2))
                if claimed != n_cells:
                    fail("{} claims {} x {} cells; bench_nbc --plan reads {} cells".format(
                        where, m.group(1), m.group(2), n_cells))
                checked += 1
            for m in SPAN.finditer(text):
                lo = float(m.group(1)) / PER_SECOND[m.group(2)]
                hi = float(m.group(3)) / PER_SECOND[m.group(4)]
                if not any(abs(lo - a) <= 1e-12 and abs(hi - b) <= 1e-12 for a, b in ends):
                    fail("{} claims {} {} to {} {}; the grid runs {}".format(
                        where, m.group(1), m.group(2), m.group(3), m.group(4),
                        ", ".join("{:g} s to {:g} s".format(a, b) for a, b in ends)))
                checked += 1
        print("{}: {} claim(s) hold ({} cells)".format(path, len(stated), n_cells))
    print("checked {} claims".format(checked))


if __name__ == "__main__":
    main(sys.argv[1:])
