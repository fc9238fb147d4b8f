# valgrind memcheck of tiny runs of the suite's programs (memcheck.sh); the
# suppressions it uses are tests/valgrind.supp. Needs the fuzz replays built
# (tests/fuzz/module.mk adds them to `check`).
E2E_TESTS += tests/valgrind/memcheck.sh
