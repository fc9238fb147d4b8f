#!/usr/bin/env bash
# The grid a shipped configuration's comments state ("5 x 5 cells", "1 ms to
# 16 ms") is the grid bench_nbc reads from it (bench_nbc --plan's cells, the
# grid keys it is given; a study file's through nbc-run --dry-run), for every
# file of configs/ that states one (tests/run/check_config_comments.py).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
make_scratch
out=$(python3 "$BENCH_NBC_ROOT/tests/run/check_config_comments.py" "$BUILD/bench_nbc" \
    ./nbc-run --mpi "$MPI" --no-deps --no-build --build-dir "$BUILD" --tools-dir "$TOOLS_DIR" \
    --set run.results_dir="$SCRATCH" -- "$BENCH_NBC_ROOT"/configs/*.conf 2>&1) ||
    fail "$out"
echo "$out"
figure "configuration comments: $(tail -n 1 <<<"$out") against bench_nbc --plan"
