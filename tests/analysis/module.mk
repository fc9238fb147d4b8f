# Tests of analysis: metrics on hand-made raw records (unit, cmocka), and the
# tools on synthetic run folders (figures, comparisons, bad input).
$(BUILD)/tests/analysis/synth_run: $(BUILD)/nompi/tests/analysis/synth_run.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/test_analysis_metrics: $(BUILD)/nompi/tests/analysis/test_metrics.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

$(BUILD)/tests/test_analysis_parse: $(BUILD)/nompi/tests/analysis/test_parse.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

$(BUILD)/tests/test_analysis_impact_median: $(BUILD)/nompi/tests/analysis/test_impact_median.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

$(BUILD)/tests/test_analysis_impact_paired: $(BUILD)/nompi/tests/analysis/test_impact_paired.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

$(BUILD)/tests/test_analysis_sched: $(BUILD)/nompi/tests/analysis/test_sched.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

$(BUILD)/tests/test_analysis_frontier: $(BUILD)/nompi/tests/analysis/test_frontier.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

$(BUILD)/tests/test_analysis_verdict_sim: $(BUILD)/nompi/tests/analysis/test_verdict_sim.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs cmocka) $(ANALYSIS_LIBS) $(LDLIBS)

# The end-to-end scripts run the generator and the tools.
check: $(BUILD)/tests/analysis/synth_run

UNIT_TESTS += $(BUILD)/tests/test_analysis_metrics $(BUILD)/tests/test_analysis_parse \
              $(BUILD)/tests/test_analysis_sched $(BUILD)/tests/test_analysis_impact_median \
              $(BUILD)/tests/test_analysis_impact_paired \
              $(BUILD)/tests/test_analysis_frontier $(BUILD)/tests/test_analysis_verdict_sim
E2E_TESTS  += tests/analysis/e2e_figures.sh tests/analysis/e2e_journal.sh tests/analysis/e2e_compare.sh \
              tests/analysis/e2e_bad_input.sh tests/analysis/e2e_late_tolerance.sh \
              tests/analysis/e2e_uncertainty.sh tests/analysis/e2e_trace.sh tests/analysis/e2e_launches.sh \
              tests/analysis/e2e_palette.sh tests/analysis/e2e_normalize.sh \
              tests/analysis/e2e_report.sh tests/analysis/e2e_report_render.sh \
              tests/analysis/e2e_report_pdf.sh \
              tests/analysis/e2e_print.sh tests/analysis/e2e_frontier.sh tests/analysis/e2e_figures_quiet.sh \
              tests/analysis/e2e_verdict_study.sh tests/analysis/e2e_classes.sh \
              tests/analysis/e2e_band_reading.sh tests/analysis/e2e_outputs_unchanged.sh \
              tests/analysis/e2e_pytools_unchanged.sh
# Pure (tests/README.md): all but e2e_report.sh, which launches ranks.
PURE_TESTS += $(filter-out tests/analysis/e2e_report.sh,$(filter tests/analysis/%,$(E2E_TESTS))) \
              $(filter $(BUILD)/tests/test_analysis_%,$(UNIT_TESTS))
