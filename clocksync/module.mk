# clocksync: global clock and window barrier (library + its measuring tools).
CLOCKSYNC_OBJS := $(addprefix $(BUILD)/mpi/clocksync/,clock_model.o sync.o calibration.o \
                    method_linear.o method_hierarchical.o transport_mpi.o transport_sim.o \
                    barrier_wait.o wait_governor.o)
CLOCKSYNC_LIB  := $(BUILD)/libclocksync.a

$(CLOCKSYNC_LIB): $(CLOCKSYNC_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/clocksync_check: $(BUILD)/mpi/clocksync/clocksync_check.o $(BUILD)/mpi/clocksync/check_run.o \
                          $(BUILD)/mpi/clocksync/check_busy.o \
                          $(CLOCKSYNC_LIB) $(BUILD)/libcli.a
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# The methods at scale on simulated ranks (no MPI run): `make bench` prints it.
$(BUILD)/clocksync_scale: $(BUILD)/mpi/clocksync/clocksync_scale.o $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

PROGRAMS   += $(BUILD)/clocksync_check $(BUILD)/clocksync_scale
BENCHMARKS += $(BUILD)/clocksync_scale
