# Tests of the one-command run (nbc-run), the library profiles, the Slurm
# job template (dry runs, then a real private Slurm) and the multi-node run on
# network namespaces.
E2E_TESTS += tests/run/dry_run.sh tests/run/launches_dry_run.sh tests/run/slurm_templates.sh \
             tests/run/launcher_watch.sh tests/run/tiny_study.sh tests/run/launches_study.sh \
             tests/run/resume_study.sh tests/run/netns_nodes.sh tests/run/slurm_real.sh \
             tests/run/no_valid_cell.sh tests/run/settings_study.sh tests/run/netns_drift.sh \
             tests/run/null_coverage.sh tests/run/runner_package.sh tests/run/equal_work_study.sh tests/run/fingerprint_dry_run.sh \
             tests/run/fingerprint_verdict.sh tests/run/fingerprint_study.sh tests/run/config_comments.sh tests/run/console_split.sh \
             tests/run/console_study.sh
# Pure (tests/README.md): dry runs and the package, without launching ranks
# (not dry_run.sh: it asks the bench_nbc of MPICH's build, which a test
# before it builds).
PURE_TESTS += tests/run/launches_dry_run.sh tests/run/fingerprint_dry_run.sh \
              tests/run/fingerprint_verdict.sh tests/run/null_coverage.sh tests/run/runner_package.sh \
              tests/run/config_comments.sh
