# mpiprofile/: the MPI library profiles (configs/mpi/*.ini) and their reader,
# plain C without MPI (profile_read.c reads them, profile.c looks them up, identify.c tells which one a
# library is, launch.c builds launch commands). bench_nbc links the four
# objects; nbc-profile answers scripts (nbc-run, the tests); configure.sh is
# the Makefile's configure step (it builds its own copy of the reader and the
# probe, in build/.mpi/).
#   $(TOOLS_DIR)/nbc-profile   list, identify, build, shell, env, launch (nbc-profile --help)
MPIPROFILE_LIBS := $(shell pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c)

# Profiles are found at run time; the source tree's copy is the last resort.
$(BUILD)/nompi/mpiprofile/profile.o: CFLAGS += -DMPIPROFILE_SOURCE_DIR='"$(CURDIR)/configs/mpi"'

$(TOOLS_DIR)/nbc-profile: $(BUILD)/nompi/mpiprofile/nbc_profile.o \
                          $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/mpiprofile/profile_read.o $(BUILD)/nompi/mpiprofile/identify.o \
                          $(BUILD)/nompi/mpiprofile/launch.o $(BUILD)/nompi/deploy/plan.o $(BUILD)/nompi/deploy/plan_json.o \
                          $(CONFIG_LIB) \
                          $(BUILD)/libcli.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(MPIPROFILE_LIBS) $(LDLIBS)

PROGRAMS += $(TOOLS_DIR)/nbc-profile
