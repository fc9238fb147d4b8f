"""nbc-verdict: the verdict lines in words (main.py's docstring says what
they are; analysis/README.md, "nbc-verdict").

Modules:
  launch  one launch's lines from a run folder (cells.csv's readings, its
          r_MPI_impact), the run folders of a study, library_name()
  study   a study's verdict over its launches (verdict.csv, impact.csv):
          its lines, maps and the table nbc-report prints
  main    the command line
"""
