# deploy/: the deployment plan (plan.h; plan_json.c prints it), plain C without MPI. bench_nbc links
# plan.o and plan_json.o; tests/deploy/ tests them without MPI.
