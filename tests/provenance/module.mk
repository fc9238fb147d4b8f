# Tests of provenance/ (no MPI: the parsers and a fixture tree, cmocka) and
# of what bench_nbc makes of it and of MPI_T (provenance.json,
# mpit_cvars.csv, a study over an algorithm setting).
provenance_test_libs := $(shell pkg-config --libs cmocka json-c 2>/dev/null || echo -lcmocka -ljson-c)

$(BUILD)/tests/provenance/test_provenance: $(BUILD)/nompi/tests/provenance/test_provenance.o \
                                           $(BUILD)/libprovenance.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(COMPUTE_LIBS) $(provenance_test_libs) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/provenance/test_provenance
E2E_TESTS  += tests/provenance/e2e_provenance.sh tests/provenance/e2e_mpit_algorithm.sh
# Pure (tests/README.md)
PURE_TESTS += $(BUILD)/tests/provenance/test_provenance
