#!/usr/bin/env bash
# Stopping a referee accepts: the shipped configurations (the default, the
# default study's grid, the paper's) measure a fixed 12 blocks per cell, the
# count the verdict's error rates are stated for (analysis/README.md, "The
# verdict"): bench_nbc --plan, which reads the stopping keys as the sweep
# does, says "12 to 12 blocks a cell". The adaptive rule stays a choice
# (run.half_width > 0), shown to change the plan.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
plan() { "$BENCH" --set run.results_dir="$SCRATCH" "$@" --plan 2>&1; }
for config in configs/default.conf configs/paper.conf; do
    out=$(plan -c "$config") || fail "$config: --plan failed: $out"
    grep -q " 12 to 12 blocks a cell" <<<"$out" || fail "$config: not a fixed 12 blocks a cell: $out"
done
out=$(plan -c configs/default.conf --set grid.comm_times=1ms,16ms,2 --set grid.comp_times=1ms,16ms,2) ||
    fail "the default study's grid: --plan failed: $out"
grep -q " 12 to 12 blocks a cell" <<<"$out" || fail "the default study's grid: not fixed: $out"
out=$(plan -c configs/default.conf --set run.half_width=0.1) || fail "adaptive --plan failed: $out"
grep -q " 12 to 40 blocks a cell" <<<"$out" || fail "run.half_width=0.1 does not plan 12 to 40 blocks: $out"
figure "default, paper and the default study's grid: 12 to 12 blocks a cell; adaptive on request"
