# bench_nbc: build, run and test.  `make help` lists the targets; README.md explains them.
#
#   make [MPICC=mpicc] [MPI=mpich|openmpi] [SAN=1]
#                                      build the suite into build/<mpi>-<version>[-san]/
#   make run                           install and build (output in build/make-run.log), run the
#                                      default study, print its verdicts, write its report
#   make check                         install, build, run every test
#   make install PREFIX=DIR            bench_nbc, nbc-run, configs and docs into DIR
#   make check-matrix                  the default study on every MPI library and BLAS here
#   make bench                         print the suite's own speed and precision figures
#   make print-build-dir               print the build folder (print-mpiexec: the launcher)
#   make docs                          docs/formats.md's column tables from schema/columns.def
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
NO_MPI_GOALS   := clean help format format-check blas-config run
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

# The BLAS: BLAS=openblas (default: Debian's serial build where installed),
# blis, mkl, generic, or your own BLAS_CFLAGS/BLAS_LIBS (compute/blas.mk says
# where each is looked for). Defines BLAS, BLAS_BACKEND, BLAS_CFLAGS, BLAS_LIBS.
include compute/blas.mk

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
# The tests of those two lists that run beside each other (tests/README.md);
# recursive, so a module.mk may name them by filtering its lists.
PURE_TESTS  =

.PHONY: all deps check bench run run-build run-study install format format-check clean help print-build-dir \
        print-mpiexec print-mpi-profile
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

# What the build needs is checked with the build's own compilers and flags
# before any compiler can fail on it: a missing piece is named with its
# install command (installed with apt-get as root on Debian/Ubuntu).
# scripts/deps.table lists the pieces; `make -o deps` skips the check.
DEPS_FOR ?= $(if $(filter check,$(MAKECMDGOALS)),check,build)
deps:
	@scripts/deps.sh --for $(DEPS_FOR) $(if $(MPI),--mpi $(MPI)) $(if $(BLAS),--blas $(BLAS)) \
	    --cc '$(CC)' --mpicc '$(MPICC)' --cflags '$(CFLAGS)' --ldflags '$(LDFLAGS)' \
	    --blas-cflags '$(BLAS_CFLAGS)' --blas-libs '$(BLAS_LIBS)' \
	    $(if $(BLAS_CBLAS_H),--blas-header '$(BLAS_CBLAS_H)') --cache-dir $(BUILD)/deps-cache \
	    --installed-mark $(DEPS_INSTALLED) $(DEPS_FLAGS)

# Values computed while make reads its files ($(shell gcc -print-multiarch),
# pkg-config's flags) go stale when deps.sh installs packages (a fresh
# machine has no gcc yet): it then rewrites this included file, and make,
# which remakes its included files before anything else, reads them all again
# (also once after the file is first created).
DEPS_INSTALLED := build/deps-installed.mk
ifneq ($(filter-out clean help format format-check print-% blas-config fuzz fuzz-toolchain run run-build run-study,$(or $(MAKECMDGOALS),all)),)
include $(DEPS_INSTALLED)
endif
$(DEPS_INSTALLED): deps
	@mkdir -p $(@D) && [ -e $@ ] || echo '# make reads its files again when scripts/deps.sh rewrites this' >$@

# make check TESTS="tests/driver/e2e_sweep.sh build/.../test_x": only these.
TESTS ?= $(UNIT_TESTS) $(E2E_TESTS)
check: programs $(UNIT_TESTS)
	@BUILD=$(BUILD) TOOLS_DIR=$(TOOLS_DIR) MPI_PROFILE=$(MPI_PROFILE) MPIEXEC=$(MPIEXEC) SAN=$(SAN) \
	    PURE_TESTS="$(strip $(PURE_TESTS))" tests/run.sh $(TESTS)

# The default study (configs/study-default.conf: ibcast, basic against the
# library's asynchronous progress, 2 ranks here): packages and build first,
# their output in RUN_LOG (named on one line, its end shown on a failure;
# run configures in that step, so that a library installed by it is the one
# built), then the runs and their comparison, the verdict lines, and
# nbc-report's report.html and report.pdf in the study folder. Extra nbc-run
# options: make run RUN_ARGS="--collectives ibcast,iallreduce".
RUN_ARGS ?=
RUN_LOG  := build/make-run.log
run: run-build
	@$(MAKE) --no-print-directory run-study

# make run's first step: one line on the terminal, apt-get's and the
# compilers' output in RUN_LOG (tests/install/run_quiet.sh).
run-build:
	@mkdir -p $(dir $(RUN_LOG))
	@echo "make run: installing what is missing and building (output in $(RUN_LOG))"
	@$(MAKE) --no-print-directory deps programs >$(RUN_LOG) 2>&1 || { tail -n 25 $(RUN_LOG) >&2; \
	    echo "make run: the install or the build failed (above; all of it in $(RUN_LOG))" >&2; exit 1; }

# The study alone, on what is built.
run-study:
	@touch $(BUILD)/run.stamp
	./nbc-run configs/study-default.conf --no-deps --no-build \
	    --build-dir $(BUILD) --tools-dir $(TOOLS_DIR) $(RUN_ARGS)
	@# the report of the study folder nbc-run wrote into results/
	@for study in $$(find results -maxdepth 1 -name '*-study' -newer $(BUILD)/run.stamp); do \
	    $(TOOLS_DIR)/nbc-report "$$study" || exit 1; done

# make install PREFIX=DIR [DESTDIR=STAGE]: every program the build lists into
# DIR/bin, with nbc-run (which, next to bench_nbc, knows it is installed and
# finds its package nbc_run/, configurations and library profiles in
# DIR/share/bench_nbc) and the Python analysis tools (which find their
# package nbc_tools/ there, NBC_TOOLS_PY of nbc_tools/module.mk);
# README, docs, VERSION and REVISION, the exit statuses (cli/, read by the
# Python tools), the harness definitions (packaging/jube, reframe, ramble into
# harnesses/), configurations (with configs/mpi and configs/slurm) and
# module files (Lmod and Tcl, for `module use`) into DIR/share/bench_nbc.
PREFIX  ?= /usr/local
DESTDIR ?=
# The site's module of the MPI library the build uses, which the module files
# load first (depends_on / prereq); empty: none.
MODULE_MPI ?=
install_bin   = $(DESTDIR)$(PREFIX)/bin
install_share = $(DESTDIR)$(PREFIX)/share/bench_nbc
install: programs
	install -d $(install_bin) $(install_share)/analysis $(install_share)/cli
	install -m 755 $(filter-out %.a,$(PROGRAMS)) $(install_bin)/
	cp -R configs docs $(install_share)/
	chmod -R a+rX $(install_share)
	install -m 644 README.md $(install_share)/
	install -m 644 analysis/README.md $(install_share)/analysis/
	install -m 644 cli/exit_status.def $(install_share)/cli/
	install -m 644 VERSION $(install_share)/
	for harness in jube reframe ramble; do install -d $(install_share)/harnesses/$$harness && \
	    install -m 644 packaging/$$harness/* $(install_share)/harnesses/$$harness/ || exit 1; done
	echo '$(BENCH_NBC_REVISION)' >$(install_share)/REVISION
	install -m 755 nbc-run $(install_bin)/
	install -d $(install_share)/nbc_run && install -m 644 nbc_run/*.py $(install_share)/nbc_run/
	for file in $(NBC_TOOLS_PY); do install -D -m 644 $$file $(install_share)/$$file || exit 1; done
	if [ -f $(BUILD)/mpi-build.ini ]; then install -m 644 $(BUILD)/mpi-build.ini $(install_share)/; fi
	install -d $(install_share)/modulefiles/lmod/bench_nbc $(install_share)/modulefiles/tcl/bench_nbc
	sed -e 's|^local prefix = .*|local prefix = "$(PREFIX)"|' \
	    -e 's|^local version = .*|local version = "$(BENCH_NBC_VERSION)"|' \
	    -e 's|^local mpi_module = .*|local mpi_module = "$(MODULE_MPI)"|' packaging/modules/bench_nbc.lua \
	    >$(install_share)/modulefiles/lmod/bench_nbc/$(BENCH_NBC_VERSION).lua
	sed -e 's|^set prefix .*|set prefix {$(PREFIX)}|' -e 's|^set version .*|set version {$(BENCH_NBC_VERSION)}|' \
	    -e 's|^set mpi_module .*|set mpi_module {$(MODULE_MPI)}|' packaging/modules/bench_nbc.tcl \
	    >$(install_share)/modulefiles/tcl/bench_nbc/$(BENCH_NBC_VERSION)
	@echo "installed into $(DESTDIR)$(PREFIX): bin/, share/bench_nbc/ (module use $(PREFIX)/share/bench_nbc/modulefiles/lmod)"

# The default study on each MPI library and BLAS this machine offers (MPICH,
# Open MPI through a module-like PATH, BLIS, OpenBLAS pthreads, netlib CBLAS),
# one table line each; minutes, not part of `make check`.
.PHONY: check-matrix
check-matrix:
	@scripts/check-matrix.sh $(MATRIX_ARGS)

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
