# Tests of the deployment plan (deploy/plan.h): unit tests without MPI over
# the real profiles of configs/mpi (cmocka), and bench_nbc --plan end to end.
deploy_test_libs := $(shell pkg-config --libs cmocka inih json-c 2>/dev/null || echo -lcmocka -linih -ljson-c)

$(BUILD)/nompi/tests/deploy/test_plan.o: CFLAGS += -DDEPLOY_TEST_PROFILES='"$(CURDIR)/configs/mpi"' \
                                                   $(shell pkg-config --cflags json-c 2>/dev/null)
$(BUILD)/tests/deploy/test_plan: $(BUILD)/nompi/tests/deploy/test_plan.o $(BUILD)/nompi/deploy/plan.o $(BUILD)/nompi/deploy/plan_json.o \
                                 $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/mpiprofile/profile_read.o $(CONFIG_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(deploy_test_libs) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/deploy/test_plan
E2E_TESTS  += tests/deploy/e2e_plan.sh tests/deploy/e2e_dedicated_netns.sh tests/deploy/e2e_table.sh
# An MPIX_Stream_progress for a library without one (LD_PRELOAD,
# e2e_thread_poll.sh): the suite's thread calls what the profile names.
$(BUILD)/tests/deploy/libstream_progress_shim.so: tests/deploy/stream_progress_shim.c $(TOOLCHAIN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $<

E2E_TESTS  += tests/deploy/e2e_thread_poll.sh
check: $(BUILD)/tests/deploy/libstream_progress_shim.so
# Pure (tests/README.md)
PURE_TESTS += $(BUILD)/tests/deploy/test_plan tests/deploy/e2e_table.sh
