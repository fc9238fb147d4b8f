# clocksync: global clock and window barrier (library + its measuring tool).
CLOCKSYNC_OBJS := $(BUILD)/mpi/clocksync/clock_model.o $(BUILD)/mpi/clocksync/sync.o
CLOCKSYNC_LIB  := $(BUILD)/libclocksync.a

$(CLOCKSYNC_LIB): $(CLOCKSYNC_OBJS)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(BUILD)/clocksync_check: $(BUILD)/mpi/clocksync/clocksync_check.o $(CLOCKSYNC_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

PROGRAMS += $(BUILD)/clocksync_check
