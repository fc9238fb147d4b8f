# Tests of the schema (schema/): its table and lookups (unit, cmocka), that
# docs/formats.md is the table's, that no column name of raw.csv or
# cells.csv is spelled outside schema/, and that bench_nbc --resume refuses
# the headers of another version (MPI).
$(BUILD)/tests/test_schema: $(BUILD)/nompi/tests/schema/test_schema.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

# The scripts run schema_doc.
check: $(TOOLS_DIR)/schema_doc

UNIT_TESTS += $(BUILD)/tests/test_schema
E2E_TESTS  += tests/schema/formats_doc.sh tests/schema/column_literals.sh \
              tests/schema/e2e_resume_header.sh
# Pure (tests/README.md)
PURE_TESTS += $(BUILD)/tests/test_schema tests/schema/formats_doc.sh tests/schema/column_literals.sh
