# Tests of clocksync: the clock model and the methods on simulated ranks
# (unit), the global clock on real ranks and the scale targets (end to end).
$(BUILD)/tests/test_clock_model: $(BUILD)/mpi/tests/clocksync/test_clock_model.o $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(LDLIBS)

# With the configuration module (plain gcc object), to check its key's choices.
$(BUILD)/tests/test_clocksync_methods: $(BUILD)/mpi/tests/clocksync/test_methods.o \
                                       $(CONFIG_LIB) $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $(config_test_libs) $(LDLIBS)

# The barrier's wait against a simulated clock whose sleep wakes late.
$(BUILD)/tests/test_barrier_wait: $(BUILD)/mpi/tests/clocksync/test_barrier_wait.o $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(LDLIBS)

# The barrier's choice between spin and sleep against simulated preemptions.
$(BUILD)/tests/test_wait_governor: $(BUILD)/mpi/tests/clocksync/test_wait_governor.o $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/test_clock_model $(BUILD)/tests/test_clocksync_methods \
              $(BUILD)/tests/test_barrier_wait $(BUILD)/tests/test_wait_governor
E2E_TESTS  += tests/clocksync/e2e_clocksync.sh tests/clocksync/e2e_time_namespace.sh \
              tests/clocksync/e2e_faketime.sh tests/clocksync/e2e_hierarchical.sh \
              tests/clocksync/scale_targets.sh tests/clocksync/e2e_netns_truth.sh \
              tests/clocksync/e2e_long_run.sh
# Pure (tests/README.md): the models and the simulated transport (test_barrier_wait
# starts MPI, the scripts launch ranks but scale_targets.sh).
PURE_TESTS += $(BUILD)/tests/test_clock_model $(BUILD)/tests/test_clocksync_methods \
              $(BUILD)/tests/test_wait_governor tests/clocksync/scale_targets.sh
