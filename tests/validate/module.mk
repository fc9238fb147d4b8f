# Validation against known answers: `make validate` runs the full
# check; `make check` runs its quick version.
.PHONY: validate
validate: programs
	BUILD=$(BUILD) TOOLS_DIR=$(TOOLS_DIR) MPIEXEC=$(MPIEXEC) scripts/validate.sh

E2E_TESTS += tests/validate/e2e_validate.sh
# Its judge on crafted cells.csv files (no MPI).
E2E_TESTS += tests/validate/test_judge.sh
