"""nbc-report: the report of a run folder or a study folder (main.py's
docstring says what it holds; analysis/README.md, "nbc-report").

Modules, in the order the report uses them:
  load      configs/report.ini's columns, the JSON files, the run folders
  tables    values as text, the HTML table, the results table (the verdict
            lines and a column per run)
  figures   the PNG figures, ordered, embedded, captioned
  sections  a run's methods (environment, threads, clock synchronization,
            statistics, discards), its records for the appendix, the study
  main      the command line and the page (HTML, then PDF: nbc_tools/pdf.py)
"""
