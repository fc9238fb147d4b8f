# Tests of the MPI library profiles (mpiprofile/, configs/mpi/): identification
# and file reading (cmocka, no MPI), the nbc-profile tool, the library bench_nbc
# identifies at run time, and the build of a library reached only through a
# module-like folder (folder name, stale objects after a change of MPICC).
mpiprofile_test_libs := $(shell pkg-config --libs cmocka inih 2>/dev/null || echo -lcmocka -linih)

$(BUILD)/nompi/tests/mpiprofile/test_profile.o: CFLAGS += -DMPIPROFILE_TEST_PROFILES='"$(CURDIR)/configs/mpi"'
$(BUILD)/tests/mpiprofile/test_profile: $(BUILD)/nompi/tests/mpiprofile/test_profile.o \
                                        $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/mpiprofile/profile_read.o \
                                        $(BUILD)/nompi/mpiprofile/identify.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(mpiprofile_test_libs) $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/mpiprofile/test_profile
E2E_TESTS  += tests/mpiprofile/e2e_tool.sh tests/mpiprofile/e2e_identify.sh \
              tests/mpiprofile/e2e_module_folder.sh
# Pure (tests/README.md)
PURE_TESTS += $(BUILD)/tests/mpiprofile/test_profile tests/mpiprofile/e2e_tool.sh
