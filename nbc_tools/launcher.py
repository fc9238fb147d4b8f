#!/usr/bin/env python3
"""The entry point of the Python analysis tools: make copies this file as
nbc-report, nbc-verdict and nbc-fingerprint (build/, build/san/, then
PREFIX/bin with make install), and each copy runs the tool of its name
from the package nbc_tools/, found beside it as nbc-run finds nbc_run/: in
the source tree above build/ or build/san/, or in PREFIX/share/bench_nbc
when installed. Python 3.9 or later, standard library only."""
import importlib
import os
import sys

# A launcher's name -> the package's module with its main(argv).
TOOLS = {"nbc-report": "report", "nbc-verdict": "verdict", "nbc-fingerprint": "fingerprint"}


def _top(here, name):
    """The folder holding nbc_tools/: an installed copy's, else the source tree's."""
    for top in (os.path.join(here, "..", "share", "bench_nbc"), os.path.join(here, ".."),
                os.path.join(here, "..", "..")):
        if os.path.isfile(os.path.join(top, "nbc_tools", "__init__.py")):
            return os.path.normpath(top)
    sys.exit("%s: nbc_tools/ is missing in ../share/bench_nbc, .. and ../.. of %s "
             "(an incomplete copy or installation)" % (name, here))


if __name__ == "__main__":
    path = os.path.realpath(__file__)
    name = os.path.basename(path)
    if name not in TOOLS:
        sys.exit("%s: run as one of %s (make builds them)" % (name, ", ".join(TOOLS)))
    sys.path.insert(0, _top(os.path.dirname(path), name))
    sys.exit(importlib.import_module("nbc_tools.%s.main" % TOOLS[name]).main(sys.argv[1:]))
