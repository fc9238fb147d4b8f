# deploy/: the deployment plan (plan.h), plain C without MPI. bench_nbc links
# plan.o; tests/deploy/ tests it without MPI.
