# bench_nbc: the driver (see bench_nbc/driver.h for how its files divide the work).
# (Libraries are named by path: module.mk files are read in alphabetical order.)
bench_nbc_objects := $(addprefix $(BUILD)/mpi/bench_nbc/,main.o collectives.o measure.o \
                       progress.o calibrate.o sweep.o output.o synthetic.o resume.o datacheck.o watchdog.o \
                       errors.o meta.o replay.o placement.o library.o deployment.o node_record.o mpit.o threadlog.o) \
                       $(BUILD)/nompi/deploy/plan.o $(BUILD)/nompi/threads/threads.o \
                       $(BUILD)/nompi/bench_nbc/size_search.o $(BUILD)/nompi/bench_nbc/stopping.o $(BUILD)/nompi/bench_nbc/plan_estimate.o \
                       $(BUILD)/nompi/bench_nbc/block_order.o $(BUILD)/nompi/bench_nbc/analysis_rules.o \
                       $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/mpiprofile/identify.o $(BUILD)/nompi/mpiprofile/launch.o
# The pipeline's stages (main.c) and what sets them up.
bench_nbc_objects += $(addprefix $(BUILD)/mpi/bench_nbc/,cli.o job_config.o plan_stage.o \
                       run_folder.o run_guards.o clock_sync_stage.o calibration_stage.o \
                       passive_step.o prior_run.o sweep_stage.o finish_stage.o coll_config.o study.o)
BENCH_NBC_LIBS := $(shell pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c) -lpthread

# The adaptive repetitions' interval is the analysis's own (bench_nbc/stopping.c):
# the MPI-free analysis library is linked in.
$(BUILD)/bench_nbc: $(bench_nbc_objects) $(BUILD)/libconfig.a $(BUILD)/libclocksync.a $(BUILD)/libcompute.a \
                    $(BUILD)/libprovenance.a $(ANALYSIS_LIB) $(BUILD)/libcli.a
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(BLAS_LIBS) $(COMPUTE_LIBS) $(BENCH_NBC_LIBS) $(LDLIBS)

PROGRAMS += $(BUILD)/bench_nbc
