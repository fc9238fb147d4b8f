# Tests of the data check (bench_nbc/collectives/datacheck.c): a cmocka unit test that
# moves the data of all ranks inside one process (no MPI_Init), a program
# that runs the collectives table with fill/verify, launched by the scripts
# on 2 ranks (this build's MPI), 2 and 4 ranks (MPICH), 4 ranks (Open MPI)
# and with corrupted data, and a benchmark of the check's own speed.
# The table's synthetic rows live in synthetic.c and use clocksync's clock.
datacheck_table_objects := $(BUILD)/mpi/bench_nbc/collectives/datacheck.o $(BUILD)/mpi/bench_nbc/collectives/collectives.o \
                           $(BUILD)/mpi/bench_nbc/collectives/buffers.o \
                           $(BUILD)/mpi/bench_nbc/collectives/synthetic.o $(BUILD)/mpi/bench_nbc/collectives/scenario.o $(CLOCKSYNC_LIB)
datacheck_cmocka_libs := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

$(BUILD)/tests/datacheck/test_datacheck: $(BUILD)/mpi/tests/datacheck/test_datacheck.o \
                                         $(datacheck_table_objects)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(datacheck_cmocka_libs) -lpthread $(LDLIBS)

$(BUILD)/tests/datacheck/datacheck_run: $(BUILD)/mpi/tests/datacheck/datacheck_run.o \
                                        $(datacheck_table_objects)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ -lpthread $(LDLIBS)

# Fill and verify speed (ns per buffer byte), one rank.
$(BUILD)/tests/datacheck/bench_datacheck: $(BUILD)/mpi/tests/datacheck/bench_datacheck.o \
                                          $(datacheck_table_objects)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ -lpthread $(LDLIBS)

# The scenarios' sizes and offering rule (scenario.c), on the same objects.
$(BUILD)/tests/datacheck/test_scenario: $(BUILD)/mpi/tests/datacheck/test_scenario.o \
                                        $(datacheck_table_objects)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(datacheck_cmocka_libs) -lpthread $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/datacheck/test_datacheck $(BUILD)/tests/datacheck/test_scenario
BENCHMARKS += $(BUILD)/tests/datacheck/bench_datacheck
# Built by `make check` for the scripts (it is not a test on its own).
check: $(BUILD)/tests/datacheck/datacheck_run
E2E_TESTS += tests/datacheck/e2e_datacheck.sh tests/datacheck/e2e_datacheck_openmpi4.sh \
             tests/datacheck/e2e_datacheck_corrupt.sh tests/datacheck/e2e_datacheck_options.sh \
             tests/datacheck/e2e_datacheck_large.sh tests/datacheck/e2e_datacheck_mpich.sh
# Pure (tests/README.md)
PURE_TESTS += $(BUILD)/tests/datacheck/test_datacheck $(BUILD)/tests/datacheck/test_scenario
