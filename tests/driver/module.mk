# End-to-end tests of the driver (bench_nbc) on 2 ranks (e2e_skewed_ranks: 4).
E2E_TESTS += tests/driver/e2e_collectives.sh tests/driver/e2e_sweep.sh tests/driver/e2e_comm_sizes.sh \
             tests/driver/e2e_bad_input.sh tests/driver/e2e_interrupt_resume.sh \
             tests/driver/e2e_progress_modes.sh tests/driver/e2e_watchdog.sh \
             tests/driver/e2e_impact.sh tests/driver/e2e_retry_exhaustion.sh tests/driver/e2e_late_patience.sh \
             tests/driver/e2e_skewed_ranks.sh tests/driver/e2e_triad.sh \
             tests/driver/e2e_adaptive.sh tests/driver/e2e_large_message.sh \
             tests/driver/e2e_size_limit.sh tests/driver/e2e_block_redo.sh \
             tests/driver/e2e_close_target.sh tests/driver/e2e_calibration_check.sh
E2E_TESTS += tests/driver/e2e_many_collectives.sh tests/driver/e2e_two_studies.sh tests/driver/e2e_replay.sh \
             tests/driver/e2e_job_workarounds.sh
# Scenarios (docs/collectives.md): the known answer, the shipped ones and their bad input.
E2E_TESTS += tests/driver/e2e_scenario_known.sh tests/driver/e2e_scenarios.sh tests/driver/e2e_fixed_blocks.sh tests/driver/e2e_visits.sh
# synthetic_intermittent: its known answer at two shares of background blocks.
E2E_TESTS += tests/driver/e2e_synthetic_intermittent.sh

# The message size search (bench_nbc/measure/size_search.c): a cmocka unit test,
# linked without MPI against the plain-gcc object.
$(BUILD)/tests/driver/test_size_search: $(BUILD)/nompi/tests/driver/test_size_search.o \
                                        $(BUILD)/nompi/bench_nbc/measure/size_search.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/driver/test_size_search

# The stopping rule of adaptive repetitions (bench_nbc/measure/stopping.c), with the
# analysis library whose estimator it reads: a cmocka unit test without MPI.
$(BUILD)/tests/driver/test_stopping: $(BUILD)/nompi/tests/driver/test_stopping.o \
                                     $(BUILD)/nompi/bench_nbc/measure/stopping.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(ANALYSIS_LIBS) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/driver/test_stopping

# bench_nbc --plan's estimate of cells and durations (bench_nbc/plan_estimate.c).
$(BUILD)/tests/driver/test_plan_estimate: $(BUILD)/nompi/tests/driver/test_plan_estimate.o \
                                          $(BUILD)/nompi/bench_nbc/plan_estimate.o \
                                          $(CONFIG_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(BENCH_NBC_LIBS) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/driver/test_plan_estimate
# A library that provides less than the deployment needs (LD_PRELOAD,
# e2e_placement.sh): MPI_Init_thread held to MPI_THREAD_FUNNELED.
$(BUILD)/tests/driver/libthread_level_shim.so: tests/driver/thread_level_shim.c $(TOOLCHAIN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $<

check: $(BUILD)/tests/driver/libthread_level_shim.so
E2E_TESTS += tests/driver/e2e_placement.sh

# The kinds of a block and their order (bench_nbc/measure/block_order.c): a cmocka
# unit test without MPI.
$(BUILD)/tests/driver/test_block_order: $(BUILD)/nompi/tests/driver/test_block_order.o \
                                        $(BUILD)/nompi/bench_nbc/measure/block_order.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/driver/test_block_order

# How a cell's blocks spread over its visits (bench_nbc/measure/visit_plan.c).
$(BUILD)/tests/driver/test_visit_plan: $(BUILD)/nompi/tests/driver/test_visit_plan.o \
                                       $(BUILD)/nompi/bench_nbc/measure/visit_plan.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/driver/test_visit_plan

# Pure (tests/README.md): the unit tests.
PURE_TESTS += $(filter $(BUILD)/tests/driver/%,$(UNIT_TESTS))
