# provenance/: this node's facts read from the system (provenance.h), plain C
# without MPI: the record (provenance.c), the parsers of the files' text
# (provenance_parse.c), its warnings (provenance_warnings.c) and the
# environment variables recorded, here and in meta.json (env_prefixes.c). bench_nbc links libprovenance.a and gathers one record per
# node into provenance.json; tests/provenance/ tests the parsers on fixtures.
#
# The build's compiler flags and MPI wrapper reach the record as C strings
# (backslashes and double quotes escaped for C, single quotes for the shell).
provenance_c_string = '"$(subst ','\'',$(subst ",\",$(subst \,\\,$(strip $(1)))))"'
PROVENANCE_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null) $(compute_hwloc_cflags)

provenance_build := -DPROVENANCE_BUILD_CFLAGS=$(call provenance_c_string,$(CFLAGS) $(BLAS_CFLAGS)) \
    -DPROVENANCE_BUILD_MPICC=$(call provenance_c_string,$(MPI_WRAPPER) -> $(MPI_WRAPPER_REAL)) \
    -DPROVENANCE_BUILD_BLAS=$(call provenance_c_string,$(BLAS): $(BLAS_LIBS))
ifeq ($(MPI_ONLY_PRINT),)
provenance_build += -DPROVENANCE_BUILD_MPICC_SHOW=$(call provenance_c_string,$(shell \
    $(MPICC) -showme 2>/dev/null || $(MPICC) -show 2>/dev/null))
endif

$(BUILD)/nompi/provenance/%.o: CFLAGS += $(PROVENANCE_CFLAGS)
$(BUILD)/nompi/provenance/provenance.o: CFLAGS += $(provenance_build)

$(BUILD)/libprovenance.a: $(addprefix $(BUILD)/nompi/provenance/,provenance.o provenance_parse.o \
                            provenance_warnings.o env_prefixes.o)
	@mkdir -p $(@D)
	rm -f $@
	rm -f $@ && $(AR) rcs $@ $^
