#!/usr/bin/env bash
# The overlap frontier end to end on synthetic runs of known frontier
# (synth_run --scenario frontier: overlap up to a computation target,
# no progress beyond): nbc-analyze writes frontier.csv with that target in
# every row and its interval around it, a collective that overlaps
# everything is beyond the grid, one that never does has none, an
# unreachable row is not determined (never interpolated), the figure is
# drawn beside the others; nbc-compare writes two runs' frontiers into
# compare_frontier.csv and draws them as two curves with a legend entry
# each; a bad --frontier-threshold is bad input naming it.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v python3 >/dev/null || skip "python3 is not installed (it reads frontier.csv)"
make_scratch
grid=(--comm-ms "2,4,8" --comp-ms "1,2,4,8,16" --blocks 12)

# rows RUN: "comm_target_s status comp_target_s comp_ci_lo_s comp_ci_hi_s
# next_comp_target_s break_reason" per row of RUN/frontier.csv
rows() {
    python3 - "$1/frontier.csv" <<'EOF' || fail "cannot read $1/frontier.csv"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["comm_target_s"], r["status"], r["comp_target_s"], r["comp_ci_lo_s"],
          r["comp_ci_hi_s"], r["next_comp_target_s"], r["break_reason"])
EOF
}

# hidden up to 4 ms in every row; the next column (8 ms) is not; the
# interval brackets 4 ms (its ends are grid columns)
"$synth" --out "$SCRATCH/known" --scenario frontier --frontier-ms 4 "${grid[@]}" ||
    fail "synth known"
"$analyze" -q --no-plots "$SCRATCH/known" >/dev/null 2>&1 || fail "nbc-analyze on the known run"
known=$(rows "$SCRATCH/known")
echo "$known"
[ "$(wc -l <<<"$known")" -eq 3 ] || fail "frontier.csv has not one row per communication target"
while read -r comm status comp lo hi next reason; do
    [ "$status" = within ] || fail "$comm: status $status, not within"
    check_float "$comp == 0.004 && $next == 0.008" || fail "$comm: frontier $comp (next $next), not 0.004 (0.008)"
    check_float "$lo <= 0.004 && $hi >= 0.004 && $hi < 0.008" ||
        fail "$comm: interval [$lo, $hi] does not bracket 0.004 below 0.008"
    [ "$reason" = none ] || fail "$comm: break_reason $reason"
done <<<"$known"
for f in frontier.gp frontier.dat frontier.caption.txt; do
    [ -s "$SCRATCH/known/plots/$f" ] || fail "plots/$f not written"
done

# a stricter threshold than the cells' noise: the frontier cannot grow
"$analyze" -q --no-plots --frontier-threshold=0 "$SCRATCH/known" >/dev/null 2>&1 ||
    fail "nbc-analyze --frontier-threshold=0"
while read -r comm status comp _; do
    [ "$status" = none ] || check_float "$comp <= 0.004" || fail "$comm: threshold 0 gave $comp"
done < <(rows "$SCRATCH/known")

# everything overlapped: beyond the grid, its upper end unbounded
"$synth" --out "$SCRATCH/all" --scenario overlap "${grid[@]}" || fail "synth overlap"
"$analyze" -q --no-plots "$SCRATCH/all" >/dev/null 2>&1 || fail "nbc-analyze on the overlap run"
while read -r comm status comp _ hi _; do
    [ "$status" = beyond_grid ] || fail "overlap $comm: status $status"
    check_float "$comp == 0.016" || fail "overlap $comm: frontier $comp, not the last column"
    [ "$hi" = inf ] || fail "overlap $comm: upper end $hi, not inf"
done < <(rows "$SCRATCH/all")

# one cell, overlapped, drawn: a figure of one point and no undetermined
# row (gnuplot 5.4 crashed on its empty '?' series)
"$synth" --out "$SCRATCH/one" --scenario overlap --comm-ms 4 --comp-ms 4 --blocks 12 || fail "synth one cell"
"$analyze" -q "$SCRATCH/one" >/dev/null 2>&1 || fail "nbc-analyze on a one-cell run (figures drawn)"
[ -s "$SCRATCH/one/plots/frontier.png" ] || fail "one-cell run: no plots/frontier.png"

# nothing overlapped: none, the first column not hidden
"$synth" --out "$SCRATCH/never" --scenario no_progress "${grid[@]}" || fail "synth no_progress"
"$analyze" -q --no-plots "$SCRATCH/never" >/dev/null 2>&1 || fail "nbc-analyze on the serial run"
while read -r comm status comp _ _ next _; do
    [ "$status" = none ] || fail "serial $comm: status $status"
    if [ "$comp" != nan ] || ! check_float "$next == 0.001"; then
        fail "serial $comm: $comp, next $next"
    fi
done < <(rows "$SCRATCH/never")

# an unreachable row breaks honestly: not determined, no frontier
"$synth" --out "$SCRATCH/broken" --scenario frontier --frontier-ms 4 --unconverged-comm-ms 8 \
    "${grid[@]}" || fail "synth unreachable"
"$analyze" -q "$SCRATCH/broken" >/dev/null 2>&1 || fail "nbc-analyze on the unreachable run"
row=$(rows "$SCRATCH/broken" | awk '$1 == 0.008')
read -r _ status comp _ _ _ reason <<<"$row"
if [ "$status" != not_determined ] || [ "$comp" != nan ] || [ "$reason" != unreachable ]; then
    fail "unreachable row: $row"
fi
if command -v gnuplot >/dev/null; then
    for ext in png svg pdf; do
        [ -s "$SCRATCH/broken/plots/frontier.$ext" ] || fail "plots/frontier.$ext not drawn"
    done
    figure "$SCRATCH/broken/plots/frontier.png"
fi

# nbc-compare: both runs in compare_frontier.csv (one row per run and
# communication target, each with its own frontier) and in one figure, a
# curve per run through the same values
"$compare" "$SCRATCH/known" "$SCRATCH/all" -o "$SCRATCH/cmp" >/dev/null 2>&1 ||
    fail "nbc-compare failed"
python3 - "$SCRATCH/cmp" <<'EOF' || fail "compare_frontier.csv or .dat does not hold the runs' frontiers"
import csv, math, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/compare_frontier.csv")))
expect = {"known": ("within", 0.004), "all": ("beyond_grid", 0.016)}
assert [r["run"] for r in rows] == ["known"] * 3 + ["all"] * 3, [r["run"] for r in rows]
assert len({r["label"] for r in rows}) == 2, "the two runs share a label"
for r in rows:
    status, comp = expect[r["run"]]
    assert r["status"] == status and math.isclose(float(r["comp_target_s"]), comp), r
assert sorted(float(r["comm_target_s"]) for r in rows) == [0.002] * 2 + [0.004] * 2 + [0.008] * 2
# the figure's data: a block per run, in the file's order, at the same values (ms)
blocks = open(d + "/compare_frontier.dat").read().split("\n\n\n")
assert len(blocks) == 2, len(blocks)
for block, run in zip(blocks, ("known", "all")):
    ys = [float(line.split()[1]) for line in block.splitlines() if not line.startswith("#")]
    assert ys == [expect[run][1] * 1e3] * 3, (run, ys)
EOF
[ "$(grep -c 'with yerrorlines' "$SCRATCH/cmp/compare_frontier.gp")" -eq 2 ] ||
    fail "compare_frontier.gp has not one curve per run"
if command -v gnuplot >/dev/null; then
    [ -s "$SCRATCH/cmp/compare_frontier.png" ] || fail "compare_frontier.png not drawn"
    figure "$SCRATCH/cmp/compare_frontier.png"
fi

# bad input: exit 2, one message naming the option and what is allowed
for tool in "$analyze" "$compare"; do
    set +e
    message=$("$tool" --frontier-threshold=1.5 "$SCRATCH/known" "$SCRATCH/all" -o "$SCRATCH/x" 2>&1)
    status=$?
    set -e
    [ "$status" -eq 2 ] || fail "$tool --frontier-threshold=1.5: exit $status, not 2"
    grep -q -- "--frontier-threshold: '1.5' is not allowed (a number from 0" <<<"$message" ||
        fail "$tool: message '$message'"
done
echo "ok"
