# analysis: metrics, readings, tables and figures of run folders; no MPI.
# Objects are compiled with plain gcc ($(BUILD)/nompi/); the tools go into
# $(TOOLS_DIR) because they do not depend on the MPI library. The library
# carries the schema of the run folder's files (schema/), which every reader
# and writer shares.
ANALYSIS_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
ANALYSIS_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
ANALYSIS_OBJS   := $(addprefix $(BUILD)/nompi/analysis/,util.o tool_options.o csv.o inputs.o inputs_raw.o \
                     metrics.o metrics_blocks.o metrics_ranks.o metrics_grid.o bootstrap.o intervals.o rules.o impact.o impact/paired.o impact/sides.o impact/median.o impact/study.o impact/study_dir.o tables.o frontier.o \
                     frontier_plot.o plot.o plot_impact.o plot_ecdf.o plot_gnuplot.o plot_heat.o plot_meta.o plot_palette.o \
                     analyze.o compare.o compare_summary.o compare_load.o compare_stats.o compare_draw.o compare_equal_work.o \
                     trace.o sched.o harness_table.o) \
                   $(BUILD)/nompi/schema/schema.o $(BUILD)/nompi/schema/classes.o \
                   $(BUILD)/nompi/analysis/verdict/verdict.o $(BUILD)/nompi/analysis/verdict/study.o \
                   $(BUILD)/nompi/cli/cli.o
ANALYSIS_LIB    := $(BUILD)/libanalysis.a

$(BUILD)/nompi/analysis/%.o: CFLAGS += $(ANALYSIS_CFLAGS)
$(BUILD)/nompi/analysis/verdict/%.o: CFLAGS += $(ANALYSIS_CFLAGS)

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(TOOLS_DIR)/nbc-analyze: $(BUILD)/nompi/analysis/nbc_analyze.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(ANALYSIS_LIBS) $(LDLIBS)

$(TOOLS_DIR)/nbc-compare: $(BUILD)/nompi/analysis/nbc_compare.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(ANALYSIS_LIBS) $(LDLIBS)

$(TOOLS_DIR)/nbc-trace: $(BUILD)/nompi/analysis/nbc_trace.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(ANALYSIS_LIBS) $(LDLIBS)

# nbc-report: Python, standard library only; its column list is
# configs/report.ini (found from the tool's folder, built or installed).
$(TOOLS_DIR)/nbc-report: analysis/nbc_report.py
	@mkdir -p $(@D)
	install -m 755 $< $@

# nbc-verdict: the verdict lines nbc-run prints (a study's verdict.csv, or one
# launch's files) and nbc-report shows first
# (nbc-report loads it from its own folder).
$(TOOLS_DIR)/nbc-verdict: analysis/nbc_verdict.py
	@mkdir -p $(@D)
	install -m 755 $< $@

# nbc-fingerprint: a library's progress fingerprint page (nbc-run
# --fingerprint runs it; it loads nbc-verdict from its own folder).
$(TOOLS_DIR)/nbc-fingerprint: analysis/nbc_fingerprint.py
	@mkdir -p $(@D)
	install -m 755 $< $@

PROGRAMS += $(TOOLS_DIR)/nbc-analyze $(TOOLS_DIR)/nbc-compare $(TOOLS_DIR)/nbc-trace \
            $(TOOLS_DIR)/nbc-report $(TOOLS_DIR)/nbc-verdict $(TOOLS_DIR)/nbc-fingerprint
