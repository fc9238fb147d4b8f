# bench_nbc: build, run and test.  `make help` lists the targets; README.md explains them.
#
#   make [MPI=mpich|openmpi] [SAN=1]   build the suite into build/<mpi>[-san]/
#   make run                           install, build, run the default sweep, draw the figures
#   make check                         install, build, run every test
#   make install PREFIX=DIR            bench_nbc, nbc-run, configs and docs into DIR
#   make bench                         print the suite's own speed and precision figures
#
# Each module adds its own programs and tests in <module>/module.mk and
# tests/<module>/module.mk; this file only holds the toolchain and the targets.

MPI ?= mpich
SAN ?=

mpi_cc_mpich     := mpicc.mpich
mpi_cc_openmpi   := mpicc.openmpi
mpi_exec_mpich   := mpiexec.mpich
mpi_exec_openmpi := mpiexec.openmpi
ifeq ($(origin mpi_cc_$(MPI)),undefined)
$(error MPI=$(MPI) is not a known MPI library (allowed: mpich, openmpi))
endif
MPICC   := $(mpi_cc_$(MPI))
MPIEXEC := $(mpi_exec_$(MPI))
CC      := gcc

# The BLAS: BLAS=openblas (default: Debian's serial build where installed),
# blis, mkl, generic, or your own BLAS_CFLAGS/BLAS_LIBS (compute/blas.mk says
# where each is looked for). Defines BLAS, BLAS_BACKEND, BLAS_CFLAGS, BLAS_LIBS.
include compute/blas.mk

# build/<mpi>/ holds everything linked against one MPI library; the MPI-free
# analysis tools go straight into build/ (build/san/ for sanitized builds).
BUILD     := build/$(MPI)$(if $(SAN),-san)
TOOLS_DIR := build$(if $(SAN),/san)

comma := ,
SAN_FLAGS := $(if $(SAN),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -fopenmp -MMD -MP -I. $(SAN_FLAGS)
LDFLAGS := -fopenmp $(SAN_FLAGS)
LDLIBS  := -lm

PROGRAMS   :=
UNIT_TESTS :=
E2E_TESTS  :=
BENCHMARKS :=

.PHONY: all deps check bench run install format format-check clean help
all: programs

include $(sort $(wildcard */module.mk)) $(sort $(wildcard tests/*/module.mk))

.PHONY: programs
programs: $(PROGRAMS)

# Objects: $(BUILD)/mpi/ is compiled with the MPI wrapper, $(BUILD)/nompi/ with
# plain gcc (code that must also link into MPI-free programs such as compute_ref).
$(BUILD)/mpi/%.o: %.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(BLAS_CFLAGS) -c $< -o $@

$(BUILD)/nompi/%.o: %.c | deps
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
ifneq ($(filter-out clean help format format-check print-% fuzz fuzz-toolchain,$(or $(MAKECMDGOALS),all)),)
include $(DEPS_INSTALLED)
endif
$(DEPS_INSTALLED): deps
	@mkdir -p $(@D) && [ -e $@ ] || echo '# make reads its files again when scripts/deps.sh rewrites this' >$@

check: programs $(UNIT_TESTS)
	@BUILD=$(BUILD) TOOLS_DIR=$(TOOLS_DIR) MPI=$(MPI) MPIEXEC=$(MPIEXEC) SAN=$(SAN) \
	    tests/run.sh $(UNIT_TESTS) $(E2E_TESTS)

# The default study (configs/study-default.conf: ibcast and iallreduce, basic,
# 2 ranks here): packages, build, runs, analysis; prints the run folders and
# PNG figures. Extra nbc-run options: make run RUN_ARGS="--deployments basic,progress".
RUN_ARGS ?=
run: deps programs
	./nbc-run configs/study-default.conf --mpi $(MPI) --no-deps --no-build \
	    --build-dir $(BUILD) --tools-dir $(TOOLS_DIR) $(RUN_ARGS)

# make install PREFIX=DIR [DESTDIR=STAGE]: every program the build lists into
# DIR/bin; README, docs, configurations (with configs/mpi and configs/slurm),
# nbc-run and module files (Lmod and Tcl, for `module use`) into
# DIR/share/bench_nbc. bin/nbc-run links to share/bench_nbc/nbc-run, which
# finds its library profiles in share/bench_nbc/configs/mpi.
PREFIX  ?= /usr/local
DESTDIR ?=
install_bin   = $(DESTDIR)$(PREFIX)/bin
install_share = $(DESTDIR)$(PREFIX)/share/bench_nbc
install: programs
	install -d $(install_bin) $(install_share)/analysis $(install_share)/modulefiles/lmod \
	    $(install_share)/modulefiles/tcl
	install -m 755 $(filter-out %.a,$(PROGRAMS)) $(install_bin)/
	cp -R configs docs $(install_share)/
	chmod -R a+rX $(install_share)
	install -m 644 README.md $(install_share)/
	install -m 644 analysis/README.md $(install_share)/analysis/
	install -m 755 nbc-run $(install_share)/
	if [ -f $(BUILD)/mpi-build.ini ]; then install -m 644 $(BUILD)/mpi-build.ini $(install_share)/; fi
	ln -sf ../share/bench_nbc/nbc-run $(install_bin)/nbc-run
	sed 's|^local prefix = .*|local prefix = "$(PREFIX)"|' packaging/modules/bench_nbc.lua \
	    >$(install_share)/modulefiles/lmod/bench_nbc.lua
	sed 's|^set prefix .*|set prefix {$(PREFIX)}|' packaging/modules/bench_nbc.tcl \
	    >$(install_share)/modulefiles/tcl/bench_nbc
	@echo "installed into $(DESTDIR)$(PREFIX): bin/nbc-run, share/bench_nbc/ (module use $(PREFIX)/share/bench_nbc/modulefiles/lmod)"

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

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'
