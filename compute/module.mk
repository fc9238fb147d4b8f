# compute/: the GEMM workload. Compiled with plain gcc (no MPI) so the same
# objects go into the MPI driver (via libcompute.a) and into compute_ref.
#   $(BUILD)/libcompute.a   link with: $(BLAS_LIBS) $(COMPUTE_LIBS) -fopenmp
#   $(BUILD)/compute_ref    the reference computation time, no MPI at all
#   $(BUILD)/compute_bench  benchmark: GFLOP/s through the harness vs plain dgemm

COMPUTE_LIBS := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
compute_objects := $(addprefix $(BUILD)/nompi/compute/,team.o environment.o calibrate.o)

$(BUILD)/libcompute.a: $(compute_objects)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# --enable-new-dtags (RUNPATH, not RPATH) lets LD_LIBRARY_PATH swap in another
# libopenblas.so.0: the BLAS-thread check's test relies on it.
COMPUTE_LINK = $(CC) $(LDFLAGS) -Wl,--enable-new-dtags -o $@ $^ $(BLAS_LIBS) $(COMPUTE_LIBS) $(LDLIBS)
# compute_ref --run reads the run's meta.json.
COMPUTE_REF_LIBS := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)

$(BUILD)/compute_ref: $(BUILD)/nompi/compute/compute_ref.o $(BUILD)/libcompute.a
	@mkdir -p $(@D)
	$(COMPUTE_LINK) $(COMPUTE_REF_LIBS) -lpthread

$(BUILD)/compute_bench: $(BUILD)/nompi/compute/compute_bench.o $(BUILD)/libcompute.a
	@mkdir -p $(@D)
	$(COMPUTE_LINK)

PROGRAMS   += $(BUILD)/libcompute.a $(BUILD)/compute_ref
BENCHMARKS += $(BUILD)/compute_bench
