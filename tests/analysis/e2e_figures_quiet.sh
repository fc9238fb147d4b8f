#!/usr/bin/env bash
# Drawing the figures says nothing on the console: every gnuplot script
# nbc-analyze and nbc-compare write for the example runs (tests/data's
# example_run with an ECDF, a run with a frontier, and the comparison of a
# study's shape: two deployments of three launches each on the default
# 5 x 5 grid, their frontiers in one figure) renders with nothing on
# gnuplot's stderr (a key whose entries do not fit, a bad range or an
# empty plot would be a warning there), and the legend of compare_frontier
# names what tells its curves apart, the caption each curve's run.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
make_scratch
grid=(--comm-ms "1,2,4,8,16" --comp-ms "1,2,4,8,16" --blocks 12 --scenario frontier)

cp -r tests/data/example_run "$SCRATCH/example"
"$analyze" -q --no-plots --ecdf=14 "$SCRATCH/example" 2>/dev/null || fail "nbc-analyze of the example run failed"
runs=()
for launch in 1 2 3; do
    "$synth" --out "$SCRATCH/basic-$launch" "${grid[@]}" --frontier-ms 4 --seed "$launch" >/dev/null ||
        fail "synth basic-$launch"
    "$synth" --out "$SCRATCH/progress-$launch" "${grid[@]}" --frontier-ms 8 --deployment progress \
        --seed "$((launch + 10))" >/dev/null || fail "synth progress-$launch"
    runs+=("$SCRATCH/basic-$launch" "$SCRATCH/progress-$launch")
done
"$analyze" -q --no-plots "$SCRATCH/basic-1" 2>/dev/null || fail "nbc-analyze of basic-1 failed"
"$compare" --no-plots "${runs[@]}" -o "$SCRATCH/cmp" >/dev/null 2>&1 || fail "nbc-compare failed"
[ -s "$SCRATCH/cmp/compare_frontier.gp" ] || fail "the comparison draws no frontier"

scripts=("$SCRATCH"/example/plots/*.gp "$SCRATCH"/basic-1/plots/*.gp "$SCRATCH"/cmp/*.gp)
[ "${#scripts[@]}" -ge 20 ] || fail "only ${#scripts[@]} gnuplot scripts written: ${scripts[*]}"
for gp in "${scripts[@]}"; do
    (cd "$(dirname "$gp")" && gnuplot "$(basename "$gp")") 2>"$SCRATCH/err" || fail "gnuplot failed on $gp: $(cat "$SCRATCH/err")"
    [ ! -s "$SCRATCH/err" ] || fail "gnuplot wrote on the console for $gp: $(cat "$SCRATCH/err")"
done

# the legend: the deployment, numbered among the launches; the library
# they share in the title; each curve's run in the caption
keys=$(sed -n 's/.* with yerrorlines .* title "\([^"]*\)".*/\1/p' "$SCRATCH/cmp/compare_frontier.gp" | tr '\n' ',')
[ "$keys" = "basic #1,progress #1,basic #2,progress #2,basic #3,progress #3," ] ||
    fail "compare_frontier's legend reads: $keys"
grep -q 'title "ibcast overlap frontiers, mpich synthetic 1.0"' "$SCRATCH/cmp/compare_frontier.gp" ||
    fail "compare_frontier's title does not name the library the runs share"
grep -q 'Curves: basic #1: mpich synthetic 1.0, basic (basic-1); progress #1: ' "$SCRATCH/cmp/compare_frontier.caption.txt" ||
    fail "compare_frontier's caption does not name each curve's run: $(tail -n 1 "$SCRATCH/cmp/compare_frontier.caption.txt")"
figure "$SCRATCH/cmp/compare_frontier.png"
echo "${#scripts[@]} figures drawn without a word on stderr"
