# threads/: every thread of the process, its role and CPUs, the scheduler's
# counters per thread (/proc/self/task), the refusal of degenerate
# placements; plain C without MPI (threads.h). bench_nbc links
# $(BUILD)/nompi/threads/threads.o; tests/threads/ tests it without MPI.
