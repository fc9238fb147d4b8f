# Tests of threads/ (threads.h): the /proc parsers on kernel texts, the
# listing and the probe on this process's own threads, the placement
# refusals on made-up placement tables (cmocka, no MPI).
$(BUILD)/tests/threads/test_threads: $(BUILD)/nompi/tests/threads/test_threads.o \
                                     $(BUILD)/nompi/threads/threads.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread $(LDLIBS)

UNIT_TESTS += $(BUILD)/tests/threads/test_threads
