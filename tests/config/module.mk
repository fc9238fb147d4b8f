# Tests of the configuration module (config/): cmocka unit tests, linked
# without MPI against the plain-gcc objects of config/.
config_test_libs = $(shell pkg-config --libs inih json-c cmocka 2>/dev/null || echo -linih -ljson-c -lcmocka)

$(BUILD)/tests/config/test_config: $(BUILD)/nompi/tests/config/test_config.o \
                                   $(CONFIG_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(config_test_libs) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/config/test_config
# Pure (tests/README.md)
PURE_TESTS += $(BUILD)/tests/config/test_config
