# compute/: the GEMM workload. Compiled with plain gcc (no MPI) so the same
# objects go into the MPI driver (via libcompute.a) and into compute_ref.
#   $(BUILD)/libcompute.a   link with: $(BLAS_LIBS) $(COMPUTE_LIBS) -fopenmp
#   $(BUILD)/compute_ref    the reference computation time, no MPI at all
#   $(BUILD)/compute_bench  benchmark: GFLOP/s through the harness vs plain dgemm
#   make blas-config        prints the BLAS this build uses and where it was found
#
# The BLAS comes from compute/blas.mk (BLAS=..., included by the Makefile);
# only its descriptor compute/blas_$(BLAS_BACKEND).c is compiled.
# hwloc finds the cores when pkg-config knows it (HWLOC=1); HWLOC=0, or no
# hwloc.pc, reads /sys/devices/system/cpu/cpu*/topology instead.

ifeq ($(origin HWLOC),undefined)
HWLOC := $(if $(shell pkg-config --exists hwloc 2>/dev/null && echo yes),1,0)
endif
ifeq ($(filter 0 1,$(HWLOC)),)
$(error HWLOC=$(HWLOC) is not allowed (allowed: 1 use hwloc, 0 read /sys/devices/system/cpu))
endif
compute_hwloc_cflags := $(if $(filter 1,$(HWLOC)),-DHAVE_HWLOC $(patsubst -I%,-isystem %,$(shell pkg-config --cflags hwloc 2>/dev/null)))
COMPUTE_LIBS := $(if $(filter 1,$(HWLOC)),$(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)) -ldl

# The CBLAS header's name and the hwloc switch reach compute/ only.
$(BUILD)/nompi/compute/%.o: CFLAGS += -DCOMPUTE_CBLAS_H='<$(BLAS_CBLAS_H)>' $(compute_hwloc_cflags)

compute_objects := $(addprefix $(BUILD)/nompi/compute/,team.o environment.o calibrate.o blas.o blas_concurrency.o \
                                                      blas_$(BLAS_BACKEND).o)

$(BUILD)/libcompute.a: $(compute_objects)
	@mkdir -p $(@D)
	rm -f $@
	rm -f $@ && $(AR) rcs $@ $^

# --enable-new-dtags (RUNPATH, not RPATH) lets LD_LIBRARY_PATH swap in another
# libopenblas.so.0: the BLAS-thread check's test relies on it.
COMPUTE_LINK = $(CC) $(LDFLAGS) -Wl,--enable-new-dtags -o $@ $^ $(BLAS_LIBS) $(COMPUTE_LIBS) $(LDLIBS)
# compute_ref --run reads the run's meta.json; its columns are the schema's (schema/).
COMPUTE_REF_LIBS := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)

$(BUILD)/compute_ref: $(BUILD)/nompi/compute/compute_ref.o $(BUILD)/nompi/compute/compute_ref_options.o \
                      $(BUILD)/libcompute.a \
                      $(BUILD)/libschema.a $(BUILD)/libcli.a
	@mkdir -p $(@D)
	$(COMPUTE_LINK) $(COMPUTE_REF_LIBS) -lpthread

$(BUILD)/compute_bench: $(BUILD)/nompi/compute/compute_bench.o $(BUILD)/libcompute.a
	@mkdir -p $(@D)
	$(COMPUTE_LINK)

.PHONY: blas-config
blas-config:
	@echo "BLAS=$(BLAS) (descriptor compute/blas_$(BLAS_BACKEND).c), found in: $(BLAS_FOUND)"
	@echo "BLAS_CFLAGS=$(BLAS_CFLAGS)"
	@echo "BLAS_LIBS=$(BLAS_LIBS)"
	@echo "BLAS_CBLAS_H=$(BLAS_CBLAS_H)"
	@echo "HWLOC=$(HWLOC)"

PROGRAMS   += $(BUILD)/libcompute.a $(BUILD)/compute_ref
BENCHMARKS += $(BUILD)/compute_bench
