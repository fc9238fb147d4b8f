# Tests of compute/: cmocka unit tests (linked without MPI) and scripts.

CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
compute_unit_tests := $(BUILD)/tests/compute/test_team $(BUILD)/tests/compute/test_calibrate \
                      $(BUILD)/tests/compute/test_blas_concurrency

$(compute_unit_tests): $(BUILD)/tests/compute/%: $(BUILD)/nompi/tests/compute/%.o $(BUILD)/libcompute.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(BLAS_LIBS) $(COMPUTE_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

UNIT_TESTS += $(compute_unit_tests)
# blas_openblas_pthread, blas_blis, blas_netlib and topology_sysfs build
# compute_ref alone into build/<mpi>-<name>/ (another BLAS, or HWLOC=0).
E2E_TESTS  += tests/compute/compute_ref.sh tests/compute/blas_check.sh \
              tests/compute/blas_select.sh tests/compute/blas_openblas_pthread.sh \
              tests/compute/blas_blis.sh tests/compute/blas_netlib.sh \
              tests/compute/topology_sysfs.sh tests/compute/blas_meta.sh
# Logs the order of every dgemm call (LD_PRELOAD, tests/driver/e2e_impact.sh):
# the passive step and compute_ref measure their sizes in rounds.
$(BUILD)/tests/compute/libdgemm_order_shim.so: tests/compute/dgemm_order_shim.c $(TOOLCHAIN_STAMP)
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $< -ldl

check: $(BUILD)/tests/compute/libdgemm_order_shim.so
