# The BLAS behind compute/, chosen at build time. Included by the top-level
# Makefile before the build folder is named (the folder carries $(BLAS)).
#
#   make [BLAS=openblas]   OpenBLAS (default)
#   make BLAS=blis         BLIS
#   make BLAS=mkl          oneMKL, sequential layer
#   make BLAS=generic      any other CBLAS (Debian: the netlib reference one);
#                          one thread per call is then checked by measurement only
#   make BLAS=openblas-pthread | blis-openmp | ...
#                          another of Debian's builds: /usr/lib/<multiarch>/$(BLAS)
#   make BLAS=<name> BLAS_CFLAGS=... BLAS_LIBS=... [BLAS_CBLAS_H=header.h]
#                          your own flags, taken as they are
#
# Without explicit flags, each BLAS is looked for in this order (the row
# below says where): <ROOT variable> (a module or a prefix), Debian's folder,
# pkg-config, then the plain library name on LIBRARY_PATH/CPATH. Headers come
# in with -isystem (a BLAS's header warnings are not ours: BLIS's cblas.h has
# an unused static function) and every library folder gets a RUNPATH, so the
# library linked is the one loaded whatever the system's alternatives say.
# compute/blas_$(BLAS_BACKEND).c is the matching descriptor (name, version,
# how to force and query one thread per call).

BLAS ?= openblas
BLAS_BACKEND := $(firstword $(subst -, ,$(BLAS)))
blas_variant := $(patsubst $(BLAS_BACKEND)-%,%,$(filter $(BLAS_BACKEND)-%,$(BLAS)))
ifeq ($(wildcard compute/blas_$(BLAS_BACKEND).c),)
$(error BLAS=$(BLAS) is not a known BLAS (allowed: openblas, blis, mkl, generic, or one of Debian's builds such as openblas-pthread, blis-openmp))
endif
MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null)

# One row per BLAS: the variable naming its install prefix, its include and
# library folders under that prefix (the first that exists), the libraries,
# Debian's folders (libraries, headers), the pkg-config name, and the CBLAS
# header.
blas_root_openblas      := OPENBLAS_ROOT
blas_include_openblas   := include
blas_libdirs_openblas   := lib64 lib
blas_libs_openblas      := -lopenblas
blas_deb_lib_openblas   := /usr/lib/$(MULTIARCH)/openblas-$(or $(blas_variant),pthread)
blas_deb_inc_openblas   := /usr/include/$(MULTIARCH)/openblas-$(or $(blas_variant),pthread)
blas_deb_libs_openblas  := -lopenblas
blas_pc_openblas        := openblas
blas_header_openblas    := cblas.h

blas_root_blis          := BLIS_ROOT
blas_include_blis       := include/blis
blas_libdirs_blis       := lib64 lib
blas_libs_blis          := -lblis
blas_deb_lib_blis       := /usr/lib/$(MULTIARCH)/blis-$(or $(blas_variant),serial)
blas_deb_inc_blis       := /usr/include/$(MULTIARCH)/blis-$(or $(blas_variant),serial)
blas_deb_libs_blis      := -lblis
blas_pc_blis            := blis
blas_header_blis        := cblas.h

# oneMKL's link line for GNU compilers, LP64, sequential layer (Intel's
# "Linking Quick Start" and its pkg-config file mkl-dynamic-lp64-seq);
# libraries in $MKLROOT/lib/intel64 before oneAPI 2024, $MKLROOT/lib since.
blas_root_mkl           := MKLROOT
blas_include_mkl        := include
blas_libdirs_mkl        := lib/intel64 lib
blas_libs_mkl           := -Wl,--no-as-needed -lmkl_intel_lp64 -lmkl_sequential -lmkl_core -lpthread -lm -ldl
blas_deb_lib_mkl        :=
blas_deb_inc_mkl        :=
blas_deb_libs_mkl       :=
blas_pc_mkl             := mkl-dynamic-lp64-seq
blas_header_mkl         := mkl_cblas.h

# Debian's reference BLAS (libblas-dev) carries the CBLAS symbols in
# /usr/lib/<multiarch>/blas/libblas.so and names its header cblas-netlib.h.
blas_root_generic       :=
blas_include_generic    :=
blas_libdirs_generic    :=
blas_libs_generic       := -lcblas -lblas
blas_deb_lib_generic    := /usr/lib/$(MULTIARCH)/blas
blas_deb_inc_generic    :=
blas_deb_libs_generic   := -lblas
blas_deb_header_generic := cblas-netlib.h
blas_pc_generic         := cblas
blas_header_generic     := cblas.h

blas_comma := ,
blas_isystem = $(strip $(patsubst -I%,-isystem %,$(1)))
blas_with_runpath = $(strip $(1) $(patsubst -L%,-Wl$(blas_comma)-rpath$(blas_comma)%,$(filter -L%,$(1))))
blas_root_name := $(blas_root_$(BLAS_BACKEND))
blas_root      := $(if $(blas_root_name),$($(blas_root_name)))
blas_deb_lib   := $(blas_deb_lib_$(BLAS_BACKEND))
blas_pc        := $(blas_pc_$(BLAS_BACKEND))
BLAS_CBLAS_H   ?= $(blas_header_$(BLAS_BACKEND))

ifneq ($(origin BLAS_CFLAGS)$(origin BLAS_LIBS),undefinedundefined)
BLAS_FOUND   := explicit BLAS_CFLAGS/BLAS_LIBS
BLAS_CFLAGS  ?=
BLAS_LIBS    ?=
else ifneq ($(blas_variant),)
ifeq ($(blas_deb_inc_$(BLAS_BACKEND)),)
$(error BLAS=$(BLAS): $(BLAS_BACKEND) has no Debian builds to choose from (allowed: $(BLAS_BACKEND)))
endif
ifeq ($(wildcard $(blas_deb_lib)/lib*.so),)
$(error BLAS=$(BLAS) names Debian's build in $(blas_deb_lib), which is not installed (apt-get install lib$(BLAS)-dev); elsewhere use BLAS=$(BLAS_BACKEND) with $(or $(blas_root_name),BLAS_CFLAGS/BLAS_LIBS) or pkg-config)
endif
BLAS_FOUND   := Debian's $(blas_deb_lib)
BLAS_CFLAGS  := $(addprefix -isystem ,$(blas_deb_inc_$(BLAS_BACKEND)))
BLAS_LIBS    := $(call blas_with_runpath,-L$(blas_deb_lib) $(blas_deb_libs_$(BLAS_BACKEND)))
else ifneq ($(blas_root),)
ifeq ($(wildcard $(blas_root)/$(blas_include_$(BLAS_BACKEND))/$(BLAS_CBLAS_H)),)
$(error BLAS=$(BLAS): $(blas_root_name)=$(blas_root) has no $(blas_include_$(BLAS_BACKEND))/$(BLAS_CBLAS_H) (unset it, or fix the prefix))
endif
blas_root_lib := $(firstword $(wildcard $(addprefix $(blas_root)/,$(blas_libdirs_$(BLAS_BACKEND)))) $(blas_root)/lib)
BLAS_FOUND   := $(blas_root_name)=$(blas_root)
BLAS_CFLAGS  := -isystem $(blas_root)/$(blas_include_$(BLAS_BACKEND))
BLAS_LIBS    := $(call blas_with_runpath,-L$(blas_root_lib) $(blas_libs_$(BLAS_BACKEND)))
else ifneq ($(and $(blas_deb_lib),$(wildcard $(blas_deb_lib)/lib*.so)),)
BLAS_FOUND   := Debian's $(blas_deb_lib)
BLAS_CFLAGS  := $(addprefix -isystem ,$(blas_deb_inc_$(BLAS_BACKEND)))
BLAS_LIBS    := $(call blas_with_runpath,-L$(blas_deb_lib) $(blas_deb_libs_$(BLAS_BACKEND)))
BLAS_CBLAS_H := $(or $(blas_deb_header_$(BLAS_BACKEND)),$(BLAS_CBLAS_H))
else ifeq ($(shell pkg-config --exists $(blas_pc) 2>/dev/null && echo yes),yes)
BLAS_FOUND   := pkg-config $(blas_pc)
BLAS_CFLAGS  := $(call blas_isystem,$(shell pkg-config --cflags $(blas_pc)))
BLAS_LIBS    := $(call blas_with_runpath,$(shell pkg-config --libs $(blas_pc)))
else ifeq ($(BLAS_BACKEND),mkl)
ifneq ($(shell $(CC) -E -include mkl.h -x c /dev/null >/dev/null 2>&1 && echo yes),yes)
$(error BLAS=mkl: oneMKL not found: MKLROOT is not set, pkg-config has no $(blas_pc) (it is in $$MKLROOT/lib/pkgconfig) and the compiler finds no mkl.h. Load MKL's module or source <oneAPI>/setvars.sh, or give BLAS_CFLAGS and BLAS_LIBS)
endif
BLAS_FOUND   := the compiler's search paths (CPATH, LIBRARY_PATH)
BLAS_CFLAGS  :=
BLAS_LIBS    := $(blas_libs_mkl)
else
BLAS_FOUND   := the compiler's search paths (CPATH, LIBRARY_PATH)
BLAS_CFLAGS  :=
BLAS_LIBS    := $(blas_libs_$(BLAS_BACKEND))
endif
