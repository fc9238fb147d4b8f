# Tests of clocksync: the clock model (unit) and the global clock on real ranks.
$(BUILD)/tests/test_clock_model: $(BUILD)/mpi/tests/clocksync/test_clock_model.o $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/test_clock_model
E2E_TESTS  += tests/clocksync/e2e_clocksync.sh tests/clocksync/e2e_time_namespace.sh \
              tests/clocksync/e2e_faketime.sh
