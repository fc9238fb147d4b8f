# analysis: metrics, readings, tables and figures of run folders; no MPI.
# Objects are compiled with plain gcc ($(BUILD)/nompi/); the tools go into
# $(TOOLS_DIR) because they do not depend on the MPI library. The library
# carries the schema of the run folder's files (schema/), which every reader
# and writer shares.
ANALYSIS_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
ANALYSIS_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
# The rooms in the order data flows (analysis/analysis.h; each room includes
# only the rooms before it, tests/repo/include_graph.py checks it).
ANALYSIS_OBJS   := $(addprefix $(BUILD)/nompi/analysis/, \
                     inputs/util.o inputs/csv.o inputs/inputs.o inputs/meta.o inputs/inputs_raw.o \
                     stats/order.o stats/bootstrap.o \
                     metrics/rules.o metrics/cells.o metrics/metrics_blocks.o metrics/metrics_ranks.o \
                     metrics/metrics_grid.o metrics/intervals.o metrics/reading.o metrics/sched.o \
                     impact/run.o impact/paired.o impact/sides.o impact/median.o impact/study.o \
                     impact/study_dir.o \
                     verdict/launches.o \
                     verdict/study.o \
                     tables/tables.o tables/harness_table.o \
                     figures/plot.o figures/plot_impact.o figures/plot_ecdf.o figures/plot_gnuplot.o figures/plot_heat.o figures/plot_meta.o \
                     figures/plot_palette.o figures/frontier.o figures/frontier_plot.o \
                     analyze/analyze.o \
                     compare/comparison.o compare/compare_summary.o compare/compare_load.o \
                     compare/compare_stats.o compare/compare_draw.o compare/compare_equal_work.o \
                     trace/trace.o \
                     tools/tool_options.o) \
                   $(BUILD)/nompi/schema/schema.o $(BUILD)/nompi/schema/classes.o \
                   $(BUILD)/nompi/cli/cli.o
ANALYSIS_LIB    := $(BUILD)/libanalysis.a

$(BUILD)/nompi/analysis/%.o: CFLAGS += $(ANALYSIS_CFLAGS)

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(TOOLS_DIR)/nbc-analyze: $(BUILD)/nompi/analysis/tools/nbc_analyze.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(ANALYSIS_LIBS) $(LDLIBS)

$(TOOLS_DIR)/nbc-compare: $(BUILD)/nompi/analysis/tools/nbc_compare.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(ANALYSIS_LIBS) $(LDLIBS)

$(TOOLS_DIR)/nbc-trace: $(BUILD)/nompi/analysis/tools/nbc_trace.o $(ANALYSIS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(ANALYSIS_LIBS) $(LDLIBS)

# (nbc-report, nbc-verdict and nbc-fingerprint: nbc_tools/module.mk)
PROGRAMS += $(TOOLS_DIR)/nbc-analyze $(TOOLS_DIR)/nbc-compare $(TOOLS_DIR)/nbc-trace
