# Tests of the deployment plan (deploy/plan.h): unit tests without MPI over
# the real profiles of configs/mpi (cmocka), and bench_nbc --plan end to end.
deploy_test_libs := $(shell pkg-config --libs cmocka inih json-c 2>/dev/null || echo -lcmocka -linih -ljson-c)

$(BUILD)/nompi/tests/deploy/test_plan.o: CFLAGS += -DDEPLOY_TEST_PROFILES='"$(CURDIR)/configs/mpi"' \
                                                   $(shell pkg-config --cflags json-c 2>/dev/null)
$(BUILD)/tests/deploy/test_plan: $(BUILD)/nompi/tests/deploy/test_plan.o $(BUILD)/nompi/deploy/plan.o \
                                 $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/bench_nbc/config.o $(BUILD)/nompi/bench_nbc/config_keys.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(deploy_test_libs) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/deploy/test_plan
E2E_TESTS  += tests/deploy/e2e_plan.sh tests/deploy/e2e_dedicated_netns.sh
