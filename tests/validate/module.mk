# Validation against known answers (issue 8): `make validate` runs the full
# check; `make check` runs its quick version.
.PHONY: validate
validate: programs
	scripts/validate.sh --mpi $(MPI)

E2E_TESTS += tests/validate/e2e_validate.sh
