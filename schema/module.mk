# schema: the columns of the run folder's CSV files (schema/columns.def), no
# MPI. libschema.a for the programs that do not link the analysis (whose
# library carries the same object, analysis/module.mk); schema_doc prints
# the table (markdown, JSON) and keeps docs/formats.md in step with it:
# `make docs` rewrites its generated sections.
SCHEMA_OBJS := $(BUILD)/nompi/schema/schema.o $(BUILD)/nompi/schema/classes.o
SCHEMA_LIB  := $(BUILD)/libschema.a

$(SCHEMA_LIB): $(SCHEMA_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# It exports the deployments' table too (deploy_table_json), hence the plan's objects.
$(TOOLS_DIR)/schema_doc: $(BUILD)/nompi/schema/schema_doc.o $(SCHEMA_LIB) $(BUILD)/nompi/deploy/plan.o $(BUILD)/nompi/deploy/plan_json.o \
                         $(BUILD)/nompi/mpiprofile/profile.o $(BUILD)/nompi/mpiprofile/profile_read.o $(CONFIG_LIB) $(BUILD)/libcli.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(shell pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c) $(LDLIBS)

PROGRAMS += $(TOOLS_DIR)/schema_doc

.PHONY: docs
docs: $(TOOLS_DIR)/schema_doc
	$(TOOLS_DIR)/schema_doc --update docs/formats.md
