# bench_nbc: the driver (bench_nbc/README.md: its rooms and what each holds).
# (Libraries are named by path: module.mk files are read in alphabetical order.)
bench_nbc_objects := $(addprefix $(BUILD)/mpi/bench_nbc/,main.o collectives/collectives.o collectives/buffers.o measure/measure.o \
                       measure/progress.o measure/calibrate.o measure/sweep.o measure/sweep_raw.o measure/sweep_record.o runfolder/output.o \
                       collectives/synthetic.o collectives/scenario.o runfolder/resume.o collectives/datacheck.o measure/watchdog.o \
                       errors.o runfolder/meta.o runfolder/replay.o library/placement.o library/library.o \
                       library/deployment.o runfolder/node_record.o runfolder/mpit.o measure/threadlog.o) \
                       $(BUILD)/nompi/deploy/plan.o $(BUILD)/nompi/deploy/plan_json.o $(BUILD)/nompi/threads/threads.o \
                       $(BUILD)/nompi/bench_nbc/measure/size_search.o $(BUILD)/nompi/bench_nbc/measure/stopping.o \
                       $(BUILD)/nompi/bench_nbc/plan_estimate.o $(BUILD)/nompi/bench_nbc/measure/block_order.o \
                       $(BUILD)/nompi/bench_nbc/measure/visit_plan.o \
                       $(BUILD)/nompi/bench_nbc/measure/analysis_rules.o \
                       $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/mpiprofile/profile_read.o $(BUILD)/nompi/mpiprofile/identify.o $(BUILD)/nompi/mpiprofile/launch.o
# The pipeline's stages (main.c) and what sets them up.
bench_nbc_objects += $(addprefix $(BUILD)/mpi/bench_nbc/,cli.o stages/job_config.o stages/plan_stage.o \
                       stages/run_folder.o stages/run_guards.o stages/clock_sync_stage.o \
                       stages/calibration_stage.o measure/passive_step.o stages/prior_run.o \
                       stages/sweep_stage.o stages/finish_stage.o library/coll_config.o stages/study.o)
BENCH_NBC_LIBS := $(shell pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c) -lpthread

# The adaptive repetitions' interval is the analysis's own (bench_nbc/measure/stopping.c):
# the MPI-free analysis library is linked in.
$(BUILD)/bench_nbc: $(bench_nbc_objects) $(BUILD)/libconfig.a $(BUILD)/libclocksync.a $(BUILD)/libcompute.a \
                    $(BUILD)/libprovenance.a $(ANALYSIS_LIB) $(BUILD)/libcli.a
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(BLAS_LIBS) $(COMPUTE_LIBS) $(BENCH_NBC_LIBS) $(LDLIBS)

PROGRAMS += $(BUILD)/bench_nbc
