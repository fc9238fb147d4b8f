"""The Python analysis tools of bench_nbc, one package (standard library
only). Each tool is nbc_tools/launcher.py copied under the tool's name
(nbc_tools/module.mk), which runs the tool's main(argv).

Modules:
  cli          the command-line conventions every tool shares (nbc-run's
               too): exit statuses (cli/exit_status.def), the --version line,
               the argument parser, failures, the console's width
  pdf          pages for print: print rules, table of contents, HTML to PDF
  schema       the columns and classes of schema/ (schema_doc --json)
  files        a run folder's CSV files: rows, numbers, medians
  verdict/     nbc-verdict: one launch's lines, a study's verdict
  report/      nbc-report: report.html and report.pdf of a run or study folder
  fingerprint/ nbc-fingerprint: a library's progress fingerprint page
  launcher.py  the entry point make copies as each tool
"""
