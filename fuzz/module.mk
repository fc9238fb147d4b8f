# fuzz/: libFuzzer targets of the configuration parser and the analysis'
# readers (README.md). `make fuzz` builds them with clang into build/fuzz/
# (independent of MPI and SAN) and runs each for FUZZ_SECONDS; the inputs
# that crashed go into tests/fuzz/corpus/ and are replayed by `make check`
# (tests/fuzz/module.mk, gcc, no libFuzzer).
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="config raw run_files"]

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= config raw run_files
FUZZ_DIR     := build/fuzz
FUZZ_CC      := clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE -I. -MMD -MP \
                -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_LIBS    := $(shell pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c) -lm

# The code under test, instrumented: the configuration and the analysis library.
fuzz_analysis_objects := $(patsubst $(BUILD)/nompi/%,$(FUZZ_DIR)/obj/%,$(ANALYSIS_OBJS))
fuzz_objects_config    := $(FUZZ_DIR)/obj/fuzz/fuzz_config.o \
                          $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(CONFIG_SOURCES))
fuzz_objects_raw       := $(FUZZ_DIR)/obj/fuzz/fuzz_raw.o $(fuzz_analysis_objects)
fuzz_objects_run_files := $(FUZZ_DIR)/obj/fuzz/fuzz_run_files.o $(fuzz_analysis_objects)

$(FUZZ_DIR)/obj/%.o: %.c | fuzz-toolchain
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

FUZZ_LINK = $(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $^ -o $@ $(FUZZ_LIBS)
$(FUZZ_DIR)/fuzz_config: $(fuzz_objects_config)
	@mkdir -p $(@D)
	$(FUZZ_LINK)
$(FUZZ_DIR)/fuzz_raw: $(fuzz_objects_raw)
	@mkdir -p $(@D)
	$(FUZZ_LINK)
$(FUZZ_DIR)/fuzz_run_files: $(fuzz_objects_run_files)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

# clang and its libFuzzer runtime (installed as root, else named).
.PHONY: fuzz fuzz-toolchain
fuzz-toolchain:
	@fuzz/toolchain.sh

# The analysis' dictionary with every column name of the schema.
$(FUZZ_DIR)/analysis.dict: fuzz/analysis.dict $(TOOLS_DIR)/schema_doc
	@mkdir -p $(@D)
	{ cat fuzz/analysis.dict && $(TOOLS_DIR)/schema_doc --fuzz-dict; } >$@.tmp && mv $@.tmp $@

fuzz: $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS)) $(FUZZ_DIR)/analysis.dict
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_DIR=$(FUZZ_DIR) fuzz/run.sh $(FUZZ_TARGETS)
