"""nbc-fingerprint: a library's progress fingerprint, one page (main.py's
docstring says what it holds; docs/running.md, "A library's progress
fingerprint").

Modules:
  data    the rows: one per library, collective and way, launches pooled;
          the ways skipped or failed; the intervals of medians
  lines   the verdict lines per library and collective
  svg     the figure (fingerprint.svg)
  page    fingerprint.csv and fingerprint.html
  main    the command line
"""
