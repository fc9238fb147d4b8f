# End-to-end tests of the driver (bench_nbc) on 2 ranks.
E2E_TESTS += tests/driver/e2e_collectives.sh tests/driver/e2e_sweep.sh \
             tests/driver/e2e_bad_input.sh tests/driver/e2e_interrupt_resume.sh \
             tests/driver/e2e_progress_modes.sh tests/driver/e2e_watchdog.sh \
             tests/driver/e2e_impact.sh
