# nbc_tools/: the Python analysis tools in one package, standard library
# only (nbc_tools/__init__.py lists its modules). nbc-report, nbc-verdict
# and nbc-fingerprint are each a copy of nbc_tools/launcher.py, which runs
# the tool of its name from the package beside it (the source tree above
# build/ or build/san/; PREFIX/share/bench_nbc, where make install copies
# NBC_TOOLS_PY). nbc-run's package nbc_run/ imports its conventions
# (nbc_tools/cli.py) from here too.
NBC_TOOLS_PY := $(filter-out nbc_tools/launcher.py,$(sort $(wildcard nbc_tools/*.py nbc_tools/*/*.py)))
NBC_TOOLS    := $(TOOLS_DIR)/nbc-report $(TOOLS_DIR)/nbc-verdict $(TOOLS_DIR)/nbc-fingerprint

$(NBC_TOOLS): nbc_tools/launcher.py
	@mkdir -p $(@D)
	install -m 755 $< $@

PROGRAMS += $(NBC_TOOLS)
