#!/usr/bin/env bash
# nbc-analyze's intervals on a synthetic run of 12 blocks a cell with null
# controls in every second block: the null-control coverage of both pairs is
# printed on stdout, in summary.txt and on stderr and is near its nominal
# 95 %; the new columns are consistent (intervals hold their estimates, the
# simultaneous ones the cell's own); the bootstrap is reproducible from its
# seed; --ecdf draws a cell's distribution; a 200,000-row raw.csv is
# analyzed in a few seconds.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
make_scratch
run=$SCRATCH/run
"$synth" --out "$run" --comm-ms 1,2,4,8,16,32,64 --comp-ms 1,2,4,8,16,32,64 --blocks 12 \
    --null-share 0.5 || fail "synth"
"$analyze" --ecdf=3,24 "$run" >"$SCRATCH/out" 2>"$SCRATCH/err" ||
    fail "nbc-analyze failed: $(cat "$SCRATCH/out" "$SCRATCH/err")"
cat "$SCRATCH/out"

# the null-control coverage, twice (comm, comp), in all three places; of 49
# cells at 95 %, 3.5 standard deviations (sqrt(49 0.95 0.05) = 1.5 cells)
# below the mean is 84 %
for place in "$SCRATCH/out" "$run/summary.txt" "$SCRATCH/err"; do
    [ "$(grep -cE 'null-control coverage: [0-9]+ % \((comm|comp)_null / ' "$place")" -eq 2 ] ||
        fail "$place lacks the two null-control coverage lines"
done
coverages=$(grep -oE 'null-control coverage: [0-9]+ %' "$run/summary.txt" | grep -oE '[0-9]+')
for coverage in $coverages; do
    [ "$coverage" -ge 84 ] || fail "null-control coverage $coverage % (nominal 95 %)"
done
[ "$(grep -c "of 49 valid cells' 95 % intervals cover 1, from 6 to 6 null blocks" "$run/summary.txt")" -eq 2 ] ||
    fail "the coverage is not over the 49 cells of 6 null blocks each: $(cat "$run/summary.txt")"

# columns by name
column() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) print i }' "$run/cells.csv"; }
for name in r_overhead_ci_lo r_comm_ci_hi r_comp_slowdown_ci_lo comm_null_ratio comp_null_ci_hi \
    r_overhead_mean r_overhead_p90 r_overhead_outlier_share r_overhead_bimodal overlap \
    ended_block_share bootstrap_seed; do
    [ -n "$(column "$name")" ] || fail "cells.csv has no column $name"
done
awk -F, -v r="$(column r_overhead)" -v lo="$(column r_overhead_ci_lo)" -v hi="$(column r_overhead_ci_hi)" \
    -v nb="$(column comm_null_blocks)" -v seed="$(column bootstrap_seed)" \
    'NR > 1 && !($lo <= $r && $r <= $hi && $nb == 6 && $seed == 1) { bad++ }
     END { exit bad > 0 }' "$run/cells.csv" ||
    fail "an interval does not hold its estimate"
# the reading: the band of r_overhead, one launch, and summary.txt counts
# the intervals inside their band
grep -qE '^reading: the band of r_overhead .*; [0-9]+ of 49 valid cells. intervals inside their band' \
    "$run/summary.txt" || fail "summary.txt does not state the reading: $(cat "$run/summary.txt")"

# the synthetic run's cells read their bands: the collective hidden (overlap)
# and not (no progress), one launch each
for band in hidden none; do
    grep -q ",$band,one_launch," "$run/cells.csv" || fail "no cell reads $band"
done

# --ecdf
for cell in 3 24; do
    [ "$(head -c 4 "$run/plots/ecdf_cell_$cell.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] ||
        fail "no ecdf_cell_$cell.png"
    steps=$(awk '/^# r_overhead per block/ { on = 1; next } on && NF == 0 { exit } on { n++ } END { print n }' \
        "$run/plots/ecdf_cell_$cell.dat")
    [ "$steps" -eq 13 ] || fail "ecdf_cell_$cell.dat: $steps points for 12 blocks, expected 13"
done

# the seed: the same gives the same table, another one other intervals
cp "$run/cells.csv" "$SCRATCH/cells.seed1"
"$analyze" -q --no-plots "$run" 2>/dev/null || fail "second analysis failed"
cmp -s "$run/cells.csv" "$SCRATCH/cells.seed1" || fail "the same seed gave another cells.csv"
"$analyze" -q --no-plots --seed=2 "$run" 2>/dev/null || fail "analysis with --seed=2 failed"
cmp -s "$run/cells.csv" "$SCRATCH/cells.seed1" && fail "--seed=2 gave the same intervals"
grep -q "(seed 2)" "$run/summary.txt" || fail "summary.txt does not record the seed"

# a 200,000-row raw.csv: 16 x 16 cells, 100 blocks, null controls in half
big=$SCRATCH/big
targets=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768
"$synth" --out "$big" --comm-ms $targets --comp-ms $targets --blocks 100 --null-share 0.5 \
    --no-compute-ref || fail "synth big"
rows=$(($(wc -l <"$big/raw.csv") - 1))
[ "$rows" -ge 200000 ] || fail "the big raw.csv has $rows rows"
start=$EPOCHREALTIME
"$analyze" -q --no-plots "$big" 2>/dev/null || fail "analyzing the big run failed"
seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
# a gross regression only: the machine is shared, the figure is the measure
check_float "$seconds < 60" || fail "$rows rows took $seconds s"

figure "uncertainty: null-control coverage $(echo "$coverages" | tr '\n' ' ')% (49 cells, 6 null blocks each); $(grep -c ',uncertain,' "$run/cells.csv") of 49 cells uncertain; $rows rows analyzed in $seconds s"
