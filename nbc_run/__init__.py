"""nbc-run's implementation: the `nbc-run` script at the repository root (or
PREFIX/bin) is a thin entry point that calls main.main().

Modules, in the order a study goes through them:
  cli        the command line (argparse): options, --help text
  study      the study file and options -> StudySpec (what to run)
  profiles   the MPI library profiles and builds (nbc-profile, make)
  placement  where the ranks go (local, --hosts, Slurm), what can run there
  launch     the one builder of launcher command lines (from the profiles)
  plan       the runs: library x collective x deployment x setting x launch
  fingerprint  a fingerprint's ways (deployments, MPI_Test periods) and skips
  records    the typed records of study.json (StudyRecord, Run)
  process    running a command: process group, signals, the run-folder watch
  steps      one run's steps (calibration, compute_ref, sweep, nbc-analyze)
  report     study.csv, study_columns.json and the end-of-study summary
  coverage   the null-control coverage pooled over the study's runs
  archive    --archive: STUDY_DIR.tar.gz with SHA256SUMS
  main       the Runner that ties them together
  common     small helpers (messages, INI and JSON files, times)
"""
