# Repository-wide checks (lint, formatting, every collective documented and
# data-checked, the include graph, no product file over 800 lines, every test
# script listed here or beside it, no deployment spelled outside
# deploy/deployments.def, docs/extending.md naming what exists).
E2E_TESTS += tests/repo/lint.sh tests/repo/collectives_documented.sh tests/repo/cli_conventions.sh \
             tests/repo/include_graph.sh tests/repo/file_size.sh tests/repo/tests_registered.sh \
             tests/repo/deployment_literals.sh tests/repo/extending_doc.sh tests/repo/readme_example.sh
# Pure (tests/README.md): all of them.
PURE_TESTS += $(filter tests/repo/%,$(E2E_TESTS))
# For tests_registered.sh run by hand (make check gives run.sh the list).
print-pure-tests:
	@echo $(PURE_TESTS)
