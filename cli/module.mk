# cli/: the command-line conventions every tool shares (cli/cli.h): exit
# statuses (cli/exit_status.def) and the --version line. libcli.a is linked
# by every C tool; the version comes from the file VERSION and the revision
# from git, kept in a stamp rewritten only when it changes, so a new commit
# rebuilds cli.o alone.
CLI_LIB := $(BUILD)/libcli.a
BENCH_NBC_VERSION  := $(strip $(file <VERSION))
BENCH_NBC_REVISION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CLI_STAMP := $(BUILD)/revision.stamp
ifneq ($(filter-out clean help format format-check print-%,$(or $(MAKECMDGOALS),all)),)
$(shell mkdir -p $(BUILD))
ifneq ($(file <$(CLI_STAMP)),$(BENCH_NBC_VERSION) $(BENCH_NBC_REVISION))
$(file >$(CLI_STAMP),$(BENCH_NBC_VERSION) $(BENCH_NBC_REVISION))
endif
endif

$(BUILD)/nompi/cli/cli.o: CFLAGS += -DBENCH_NBC_VERSION='"$(BENCH_NBC_VERSION)"' \
                                    -DBENCH_NBC_REVISION='"$(BENCH_NBC_REVISION)"'
$(BUILD)/nompi/cli/cli.o: $(CLI_STAMP) cli/exit_status.def

$(CLI_LIB): $(BUILD)/nompi/cli/cli.o
	@mkdir -p $(@D)
	rm -f $@
	rm -f $@ && $(AR) rcs $@ $^
