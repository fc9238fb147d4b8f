# Tests of the configuration module (bench_nbc/config.c): cmocka unit tests,
# linked without MPI against the plain-gcc object of config.c.
config_test_libs = $(shell pkg-config --libs inih json-c cmocka 2>/dev/null || echo -linih -ljson-c -lcmocka)

$(BUILD)/tests/config/test_config: $(BUILD)/nompi/tests/config/test_config.o \
                                   $(BUILD)/nompi/bench_nbc/config.o $(BUILD)/nompi/bench_nbc/config_keys.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(config_test_libs) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/config/test_config
