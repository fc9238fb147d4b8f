# bench_nbc: build, run and test.  `make help` lists the targets; README.md explains them.
#
#   make [MPICC=mpicc] [MPI=mpich|openmpi] [SAN=1]
#                                      build the suite into build/<mpi>-<version>[-san]/
#   make run                           install, build, run the default sweep, draw the figures
#   make check                         install, build, run every test
#   make bench                         print the suite's own speed and precision figures
#   make print-build-dir               print the build folder (print-mpiexec: the launcher)
#
# Any MPI library through its compiler wrapper: MPICC (default: mpicc on
# PATH, e.g. from an environment module); MPI=NAME means Debian's
# mpicc.NAME. The build folder is named after the library the wrapper really
# is (mpiprofile/configure.sh asks it), so several libraries build side by
# side; MPIEXEC defaults to the mpiexec next to the wrapper.
#
# Each module adds its own programs and tests in <module>/module.mk and
# tests/<module>/module.mk; this file only holds the toolchain and the targets.

SAN ?=
CC  := gcc

# ---- MPI: the library behind the compiler wrapper ------------------------
MPI ?=
ifneq ($(MPI),)
ifneq ($(origin MPICC),command line)
MPICC := mpicc.$(MPI)
endif
endif
MPICC ?= mpicc
# Goals that need no MPI library skip the configure step; those that only
# print leave the build folder as it is.
NO_MPI_GOALS   := clean help format format-check
PRINTING_GOALS := $(NO_MPI_GOALS) print-build-dir print-mpiexec print-mpi-profile
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(NO_MPI_GOALS),$(MAKECMDGOALS)),)
MPI_SKIP_CONFIGURE := 1
endif
ifeq ($(filter-out $(PRINTING_GOALS),$(MAKECMDGOALS)),)
MPI_ONLY_PRINT := 1
endif
endif
ifeq ($(MPI_SKIP_CONFIGURE),)
# Defines MPI_WRAPPER, MPI_PROFILE, MPI_LIBRARY_VERSION, MPI_IDENTIFIED_BY and
# MPI_DEFAULT_MPIEXEC (mpiprofile/configure.sh; cached per wrapper).
MPI_CONFIG := $(shell mpiprofile/configure.sh '$(MPICC)' '$(CC)')
endif
ifneq ($(MPI_CONFIG),)
include $(MPI_CONFIG)
else
MPI_PROFILE         := unidentified
MPI_LIBRARY_VERSION := unknown
endif
MPIEXEC ?= $(MPI_DEFAULT_MPIEXEC)

MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null)
# The serial OpenBLAS: one BLAS thread per call, whatever the environment says.
BLAS_DIR    := /usr/lib/$(MULTIARCH)/openblas-serial
BLAS_CFLAGS := -I/usr/include/$(MULTIARCH)/openblas-serial
BLAS_LIBS   := -L$(BLAS_DIR) -lopenblas -Wl,-rpath,$(BLAS_DIR)

comma := ,
SAN_FLAGS := $(if $(SAN),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -fopenmp -MMD -MP -I. $(SAN_FLAGS)
LDFLAGS := -fopenmp $(SAN_FLAGS)
LDLIBS  := -lm

# build/<profile>-<version>[-<blas>][-san]/ holds everything linked against
# one MPI library (and one BLAS, when not the default OpenBLAS); the MPI-free
# tools go straight into build/ (build/san/ for sanitized builds).
BUILD     := build/$(MPI_PROFILE)-$(MPI_LIBRARY_VERSION)$(if $(filter-out openblas,$(BLAS)),-$(BLAS))$(if $(SAN),-san)
TOOLS_DIR := build$(if $(SAN),/san)

# The toolchain of $(BUILD): every object depends on this stamp, rewritten
# only when its text changes, so another wrapper, compiler or flags rebuild
# everything instead of linking objects of another library.
TOOLCHAIN_STAMP := $(BUILD)/toolchain.stamp
ifeq ($(MPI_ONLY_PRINT),)
ifneq ($(MPI_CONFIG),)
toolchain_text := wrapper=$(MPI_WRAPPER) -> $(MPI_WRAPPER_REAL)
toolchain_text += wrapper flags=$(shell $(MPICC) -showme 2>/dev/null || $(MPICC) -show 2>/dev/null || $(MPICC) --version 2>/dev/null | head -n 1)
toolchain_text += CC=$(CC) $(shell $(CC) -dumpfullversion 2>/dev/null) CFLAGS=$(CFLAGS)
toolchain_text += BLAS_CFLAGS=$(BLAS_CFLAGS) BLAS_LIBS=$(BLAS_LIBS) LDFLAGS=$(LDFLAGS) LDLIBS=$(LDLIBS)
# What nbc-profile (build BUILD_DIR), nbc-run and the tests read of the build.
define build_description
; Written by make: the MPI library of this build folder.
[build]
profile = $(MPI_PROFILE)
version = $(MPI_LIBRARY_VERSION)
identified_by = $(MPI_IDENTIFIED_BY)
wrapper = $(MPI_WRAPPER)
mpiexec = $(MPIEXEC)
endef
$(shell mkdir -p $(BUILD))
ifneq ($(file <$(TOOLCHAIN_STAMP)),$(strip $(toolchain_text)))
$(file >$(TOOLCHAIN_STAMP),$(strip $(toolchain_text)))
endif
ifneq ($(file <$(BUILD)/mpi-build.ini),$(build_description))
$(file >$(BUILD)/mpi-build.ini,$(build_description))
endif
else
# No library identified (the reason was printed): fail after `deps`, which
# may just have installed what was missing.
$(TOOLCHAIN_STAMP): | deps
	@echo "make: the MPI library of MPICC=$(MPICC) could not be identified (above);" \
	    "if packages were just installed, run make again" >&2; exit 2
endif
endif

PROGRAMS   :=
UNIT_TESTS :=
E2E_TESTS  :=
BENCHMARKS :=

.PHONY: all deps check bench run format format-check clean help print-build-dir print-mpiexec \
        print-mpi-profile
all: programs

include $(sort $(wildcard */module.mk)) $(sort $(wildcard tests/*/module.mk))

.PHONY: programs
programs: $(PROGRAMS)

# Objects: $(BUILD)/mpi/ is compiled with the MPI wrapper, $(BUILD)/nompi/ with
# plain gcc (code that must also link into MPI-free programs such as compute_ref).
$(BUILD)/mpi/%.o: %.c $(TOOLCHAIN_STAMP) | deps
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(BLAS_CFLAGS) -c $< -o $@

$(BUILD)/nompi/%.o: %.c $(TOOLCHAIN_STAMP) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(BLAS_CFLAGS) -c $< -o $@

-include $(shell find build -name '*.d' 2>/dev/null)

# A missing package is named with its install command (or installed, as root)
# before any compiler can fail on it.
deps:
	@scripts/deps.sh $(if $(MPI),--mpi $(MPI)) --for $(if $(filter check,$(MAKECMDGOALS)),check,build)

check: programs $(UNIT_TESTS)
	@BUILD=$(BUILD) TOOLS_DIR=$(TOOLS_DIR) MPI_PROFILE=$(MPI_PROFILE) MPIEXEC=$(MPIEXEC) SAN=$(SAN) \
	    tests/run.sh $(UNIT_TESTS) $(E2E_TESTS)

# The default study (configs/study-default.conf: ibcast and iallreduce, basic,
# 2 ranks here): packages, build, runs, analysis; prints the run folders and
# PNG figures. Extra nbc-run options: make run RUN_ARGS="--deployments basic,progress".
RUN_ARGS ?=
run: deps programs
	./nbc-run configs/study-default.conf --no-deps --no-build \
	    --build-dir $(BUILD) --tools-dir $(TOOLS_DIR) $(RUN_ARGS)

# Benchmarks print figures (speed, precision); they are not pass/fail tests.
bench: programs $(BENCHMARKS)
	@for b in $(BENCHMARKS); do echo "== $$b"; BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) $$b || exit 1; done

SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*')
format:
	clang-format -i $(SOURCES)
format-check:
	clang-format --dry-run -Werror $(SOURCES)

clean:
	rm -rf build

# For scripts (scripts/deps.sh, nbc-run, make install, the tests): make -s print-build-dir.
print-build-dir:
	@echo $(BUILD)
print-mpiexec:
	@echo $(MPIEXEC)
print-mpi-profile:
	@echo $(MPI_PROFILE)

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'
