# Regression tests of the fuzz targets (fuzz/): each target linked with
# fuzz/replay_main.c instead of libFuzzer, compiled with gcc like the rest of
# the suite (and sanitized with SAN=1), replays the committed seeds and every
# input a fuzzer once crashed on (tests/fuzz/corpus/TARGET/).
fuzz_replay_libs := $(shell pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c)
fuzz_replays     := $(addprefix $(BUILD)/tests/fuzz/replay_,config raw run_files)

$(BUILD)/tests/fuzz/replay_config: $(BUILD)/nompi/fuzz/fuzz_config.o $(CONFIG_LIB)
$(BUILD)/tests/fuzz/replay_raw: $(BUILD)/nompi/fuzz/fuzz_raw.o $(ANALYSIS_LIB)
$(BUILD)/tests/fuzz/replay_run_files: $(BUILD)/nompi/fuzz/fuzz_run_files.o $(ANALYSIS_LIB)
$(fuzz_replays): $(BUILD)/nompi/fuzz/replay_main.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(fuzz_replay_libs) $(LDLIBS)

# Built by `make check` for the script (they are not tests on their own).
check: $(fuzz_replays)
E2E_TESTS += tests/fuzz/replay.sh
# Pure (tests/README.md)
PURE_TESTS += tests/fuzz/replay.sh
