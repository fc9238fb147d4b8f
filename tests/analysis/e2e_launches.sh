#!/usr/bin/env bash
# nbc-compare with repeated launches: two configurations (meta.json: same
# library, deployments basic and progress) x 3 launches each. The truth:
# r_comm 1 (no progress) against 1.5 (the collective slowed in the wait), a
# difference of 0.5 in every cell; r_comp_slowdown the same in both (1), but
# each launch shifts the overlap step's computation by -3, 0 or +3 % (a
# launch-wide effect, as another placement would be), the same shifts in
# both configurations: no true difference. The launches are grouped into 2
# configurations; the true difference is significant in every cell; the null
# one in few: the method's intervals are 95 % ones (the study verdict's:
# Student's t over the launch estimates, 2 degrees of freedom), so at most
# 5 % of 36 cells (2) are expected, 4 allowed (a
# binomial count of 36 at 5 % exceeds 4 with probability 0.08; the data are
# seeded, the outcome is the same every time). One launch per configuration
# (the runs' own intervals) calls the launch shift a difference: the reason
# for launches.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v python3 >/dev/null || skip "python3 is not installed (it reads the CSV files here)"
make_scratch
grid=(--comm-ms "1,2,4,8,16,32" --comp-ms "1,2,4,8,16,32" --blocks 12)
shifts_a=(-0.03 0 0.03)
shifts_b=(0.03 -0.03 0)
runs=()
for i in 0 1 2; do
    "$synth" --out "$SCRATCH/a$i" "${grid[@]}" --scenario no_progress --seed $((10 + i)) \
        --launch-shift "${shifts_a[$i]}" || fail "synth a$i"
    "$synth" --out "$SCRATCH/b$i" "${grid[@]}" --scenario comm_slowed --deployment progress \
        --seed $((20 + i)) --launch-shift "${shifts_b[$i]}" || fail "synth b$i"
    runs+=("$SCRATCH/a$i" "$SCRATCH/b$i")
done
out=$("$compare" --no-plots "${runs[@]}" -o "$SCRATCH/cmp" 2>"$SCRATCH/err") ||
    fail "nbc-compare failed: $out $(cat "$SCRATCH/err")"
echo "$out"
grep -q "configuration 1: mpich 1.0 basic ibcast, 3 launches (a0, a1, a2)" <<<"$out" ||
    fail "launches of configuration 1 not grouped"
grep -q "configuration 2: mpich 1.0 progress ibcast, 3 launches (b0, b1, b2)" <<<"$out" ||
    fail "launches of configuration 2 not grouped"
for metric in overhead comm comp_slowdown; do
    [ -s "$SCRATCH/cmp/diff_$metric.gp" ] || fail "no difference map of $metric"
done

# differences.csv and summary_differences.csv, read by their headers
read -r comm_sig comm_valid comm_median null_sig null_valid null_median <<<"$(python3 - "$SCRATCH/cmp" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/differences.csv")))
summary = {r["metric"]: r for r in csv.DictReader(open(d + "/summary_differences.csv"))}
out = []
for metric in ("r_comm", "r_comp_slowdown"):
    cells = [r for r in rows if r["metric"] == metric and r["valid"] == "1"]
    sig = sum(r["significant"] == "1" for r in cells)
    # the flag is the interval excluding 0, the summary counts the flags
    assert all((r["significant"] == "1") == (float(r["ci_lo"]) > 0 or float(r["ci_hi"]) < 0) for r in cells)
    s = summary[metric]
    assert int(s["significant_cells"]) == sig and int(s["valid_cells"]) == len(cells), s
    assert s["launches_first"] == "3" and s["launches_second"] == "3" and s["method"] == "launches", s
    out += [str(sig), str(len(cells)), s["median_difference"]]
print(" ".join(out))
PY
)" || fail "reading the differences failed"
if [ "$comm_valid" -ne 36 ] || [ "$null_valid" -ne 36 ]; then
    fail "valid cells: $comm_valid, $null_valid (expected 36)"
fi
[ "$comm_sig" -eq 36 ] || fail "the true difference of r_comm (0.5) is significant in $comm_sig of 36 cells only"
check_float "$comm_median > 0.45 && $comm_median < 0.55" || fail "median r_comm difference $comm_median (truth 0.5)"
[ "$null_sig" -le 4 ] || fail "r_comp_slowdown has no true difference, yet $null_sig of 36 cells are significant"
check_float "$null_median > -0.03 && $null_median < 0.03" || fail "median r_comp_slowdown difference $null_median (truth 0)"
# each configuration's interval across launches holds its truth of r_comp_slowdown (1)
covered=$(python3 - "$SCRATCH/cmp/configuration_cells.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 72 and all(r["launches"] == "3" for r in rows)
print(sum(float(r["r_comp_slowdown_ci_lo"]) <= 1 <= float(r["r_comp_slowdown_ci_hi"]) for r in rows))
PY
) || fail "reading configuration_cells.csv failed"
[ "$covered" -ge 68 ] || fail "only $covered of 72 configuration intervals of r_comp_slowdown hold 1"

# one launch each (a0 shifted -3 %, b0 +3 %): the runs' own intervals do not
# hold launch-to-launch variation, and the shift looks like a difference
"$compare" --no-plots "$SCRATCH/a0" "$SCRATCH/b0" -o "$SCRATCH/one" >"$SCRATCH/one.out" 2>&1 ||
    fail "nbc-compare of single launches failed: $(cat "$SCRATCH/one.out")"
grep -q "one launch: launch-to-launch variation is not covered" "$SCRATCH/one.out" ||
    fail "single launches: the limit is not said: $(cat "$SCRATCH/one.out")"
single=$(awk -F, 'NR > 1 && $1 == "r_comp_slowdown" { print $9 "/" $7 }' "$SCRATCH/one/summary_differences.csv")

# readings over the launches (the study verdict's rule, verdict_combine): 3
# launches of one configuration that differ by their noise only (seeds).
# readings PREFIX prints, for 1, 2 and 3 launches PREFIX0..2 compared alone:
# the confident readings, then the uncertain ones. It fails when a reading's
# band is not that of the printed r_overhead (the launches' mean), when
# `uncertain` is not "not confident", when one launch reads anything but
# one_launch or invalid, or when a confident reading is not the class of
# its band's group (hidden_or_partial; none, a group of one band).
readings() {
    local prefix=$1 launches dirs i
    for launches in 1 2 3; do
        dirs=()
        for ((i = 0; i < launches; i++)); do dirs+=("$SCRATCH/$prefix$i"); done
        # one launch: compared with another configuration (b0, progress)
        [ "$launches" -gt 1 ] || dirs+=("$SCRATCH/b0")
        "$compare" --no-plots "${dirs[@]}" -o "$SCRATCH/${prefix}c$launches" >/dev/null 2>&1 ||
            fail "nbc-compare of $launches launches of $prefix failed"
    done
    python3 - "$SCRATCH" "$prefix" "$schema" <<'PY'
import csv, json, math, sys
d, prefix = sys.argv[1], sys.argv[2]
bands = [(c["name"], -math.inf if c["band_lo"] is None else c["band_lo"],
          math.inf if c["band_hi"] is None else c["band_hi"])
         for c in json.load(open(sys.argv[3]))["classes"] if c["band"]]
classes = json.load(open(sys.argv[3]))["classes"]
groups = {c["name"]: c["group"] for c in classes}
bands_of = {c["name"]: c["band"] for c in classes}
def band_of(x):
    return next(name for name, lo, hi in bands if lo <= x < hi)
confident, uncertain = [], []
for launches in (1, 2, 3):
    rows = [r for r in csv.DictReader(open(f"{d}/{prefix}c{launches}/configuration_cells.csv"))
            if r["configuration"] == "1"]
    assert len(rows) == 36, len(rows)
    for r in rows:
        if r["class"] == "invalid":
            continue
        assert r["overlap"] == band_of(float(r["r_overhead"])), r
        assert (r["uncertain"] == "1") == (groups[r["class"]] == "unconfirmed"), r
        # confident: the claim of its band's group (the group's class, or
        # the band where it is its group's only one), never a band inside one
        claim = next((c for c in groups if not bands_of[c] and groups[c] == groups[r["overlap"]]),
                     r["overlap"])
        assert groups[r["class"]] == "unconfirmed" or r["class"] == claim, r
        assert launches > 1 or r["class"] == "one_launch", r
    confident.append(sum(r["uncertain"] == "0" and r["class"] != "invalid" for r in rows))
    uncertain.append(sum(r["class"] == "uncertain" for r in rows))
print(" ".join(map(str, confident + uncertain)))
PY
}
schema=$SCRATCH/schema.json
"$TOOLS_DIR/schema_doc" --json >"$schema" || fail "schema_doc --json"
for i in 0 1 2; do
    "$synth" --out "$SCRATCH/m$i" --comm-ms "1,2,4,8,16,32" --comp-ms "1,2,4,8,16,32" --blocks 10 \
        --scenario mixed --seed $((40 + i)) || fail "synth m$i"
done
m_readings=$(readings m) || fail "reading the combined readings failed"
read -r confident1 confident2 confident3 _ uncertain2 uncertain3 <<<"$m_readings"
[ -n "$uncertain3" ] || fail "no combined readings"
[ "$confident1" -eq 0 ] || fail "one launch reads $confident1 cells confidently"
[ "$confident3" -gt 0 ] || fail "3 launches read no cell confidently"
open3=$((36 - confident3))
grep -q "readings not confident in $open3 of 36 valid cells" < <("$compare" --no-plots "$SCRATCH/m0" \
    "$SCRATCH/m1" "$SCRATCH/m2" -o "$SCRATCH/m3r" 2>&1) || fail "the report does not count the readings not confident"
grep -q "Dashed outline: the reading is not confident (the study verdict's rule" "$SCRATCH/m3r/compare_overhead.caption.txt" ||
    fail "the map's caption does not state its rule: $(cat "$SCRATCH/m3r/compare_overhead.caption.txt")"

# The equal-work comparison (equal_work.csv): the same sizes in both
# configurations (synth_run's depend on the targets alone), so progress is
# compared with basic. The truth of t_measured: comp + comm (no progress)
# against comp + 1.5 comm (the collective 1.5x slower in the wait), the ratio
# (comp + 1.5 comm) / (comp + comm). Launch i of one pairs with launch i of
# the other; the shifts move the computation by at most 3 %, the jitter 1 %:
# every cell's ratio within 2 % of the truth, its 95 % interval (t, 2
# degrees of freedom) holding it in at least 34 of 36 cells; the grid's
# geometric mean within 2 % of the truths'.
equal=$(python3 - "$SCRATCH/cmp/equal_work.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = [r for r in rows if r["scope"] == "cell"]
grid = [r for r in rows if r["scope"] == "grid"]
assert len(cells) == 36 and len(grid) == 1, "{} cell rows, {} grid rows".format(len(cells), len(grid))
held, logs = 0, []
for r in cells:
    assert (r["deployment"], r["reference_deployment"], r["pairs"]) == ("progress", "basic", "3"), r
    comm, comp = float(r["comm_target_s"]), float(r["comp_target_s"])
    truth = (comp + 1.5 * comm) / (comp + comm)
    logs.append(math.log(truth))
    ratio, lo, hi = float(r["ratio"]), float(r["ratio_lo"]), float(r["ratio_hi"])
    assert abs(ratio / truth - 1) < 0.02, "ratio {} against the truth {:.4f}: {}".format(ratio, truth, r)
    assert lo <= ratio <= hi, r
    held += lo <= truth <= hi
assert held >= 34, "the intervals hold the truth in {} of 36 cells".format(held)
g, truth = grid[0], math.exp(sum(logs) / len(logs))
assert (g["cells"], g["pairs"]) == ("36", "3"), g
assert abs(float(g["ratio"]) / truth - 1) < 0.02, "grid {} against {:.4f}".format(g["ratio"], truth)
assert float(g["ratio_lo"]) <= float(g["ratio"]) <= float(g["ratio_hi"]), g
print("equal work: intervals hold the truth in {} of 36 cells, grid {} (truth {:.3f})".format(
    held, g["ratio"], truth))
PY
) || fail "equal_work.csv: $equal"
echo "$equal"
grep -q "^  over the grid (the geometric mean over the 36 cells valid in every pair): [0-9.]*x as long \[" <<<"$out" ||
    fail "nbc-compare does not print the grid's equal-work line"
figure "launches: 2 configurations x 3 launches, 36 cells; r_comm difference (truth 0.5) median $comm_median," \
    "significant in $comm_sig; r_comp_slowdown (truth 0, launch shifts +-3 %) median $null_median," \
    "significant in $null_sig; one launch each: $single significant; confident readings: 1 launch" \
    "$confident1, 2 launches $confident2 ($uncertain2 uncertain), 3 launches $confident3" \
    "($uncertain3 uncertain); $equal"
