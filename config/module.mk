# config/: the configuration (config.h is its whole API): the keys table, the
# value types and parsers, the INI reader, the checks, help/INI/JSON output.
# Plain C without MPI: bench_nbc, nbc-profile, the deployment plan's tests
# and the fuzz target link it. (Libraries are named by path: module.mk files
# are read in alphabetical order, and bench_nbc/module.mk comes first.)
CONFIG_SOURCES := $(addprefix config/,lifecycle.c keys.c values.c parse.c ini.c checks.c output.c \
                    suggest.c)
CONFIG_LIB     := $(BUILD)/libconfig.a

$(CONFIG_LIB): $(patsubst %.c,$(BUILD)/nompi/%.o,$(CONFIG_SOURCES))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
