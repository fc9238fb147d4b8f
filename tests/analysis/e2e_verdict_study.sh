#!/usr/bin/env bash
# A study's verdict over its launches (nbc-analyze --study, nbc-verdict):
# three configurations in study.json, written by hand as nbc-run writes it:
# basic x 3 launches of a collective without progress (the truth: r_overhead
# about 1 in every cell, band none), progress x 3 launches of a collective
# that progresses (about 0: hidden), and one launch of a third configuration
# (a reading, never confident). Each launch shifts the overlap step's
# computation (-1, 0, +1 %), a launch-wide effect the interval must carry
# (4 times that on r_overhead in the 4:1 cells).
# Checked: one row per configuration and cell; basic confident none in every
# cell and progress confident hidden, 0 confident overlap in basic; the one
# launch never confident (a pending launch, without a folder, left out); no
# confident row whose interval leaves its band;
# nbc-verdict's counts equal verdict.csv's, its lines at most 100 columns,
# each naming its headline once and the impact of impact.csv's largest
# size (not the median over the sizes);
# nbc-compare over the same launches prints the same figures (counts,
# impact at the largest size, every cell's reading); a run folder given to --study is refused
# with exit 2.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
verdict=$TOOLS_DIR/nbc-verdict
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$verdict" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v python3 >/dev/null || skip "python3 is not installed (it writes study.json here)"
make_scratch
grid=(--comm-ms "1,2,4" --comp-ms "1,2,4" --blocks 12)
shifts=(-0.01 0 0.01)
for i in 0 1 2; do
    "$synth" --out "$SCRATCH/basic$i" "${grid[@]}" --scenario no_progress --seed $((10 + i)) \
        --launch-shift "${shifts[$i]}" >/dev/null || fail "synth basic$i"
    "$synth" --out "$SCRATCH/progress$i" "${grid[@]}" --scenario overlap --deployment progress \
        --seed $((20 + i)) --launch-shift "${shifts[$i]}" >/dev/null || fail "synth progress$i"
done
"$synth" --out "$SCRATCH/thread0" "${grid[@]}" --scenario overlap --deployment thread \
    --seed 30 >/dev/null || fail "synth thread0"
mkdir -p "$SCRATCH/study"
python3 - "$SCRATCH" <<'PY' || fail "study.json not written"
import json, sys
top = sys.argv[1]
runs = []
for launch in (1, 2, 3):
    for dep in ("basic", "progress"):
        runs.append({"mpi": "mpich", "collective": "ibcast", "deployment": dep, "setting": None,
                     "launch": launch, "status": "complete",
                     "run_dir": "%s/%s%d" % (top, dep, launch - 1)})
runs.append({"mpi": "mpich", "collective": "ibcast", "deployment": "thread", "setting": None,
             "launch": 1, "status": "complete", "run_dir": top + "/thread0"})
# a run not started yet (an interrupted study) has no folder: left out
runs.append({"mpi": "mpich", "collective": "ibcast", "deployment": "thread", "setting": None,
             "launch": 2, "status": "pending", "run_dir": None})
json.dump({"format": 1, "runs": runs}, open(top + "/study/study.json", "w"))
PY
"$analyze" --study "$SCRATCH/study" || fail "nbc-analyze --study failed"
csv=$SCRATCH/study/verdict.csv
[ -s "$csv" ] || fail "no verdict.csv"
python3 - "$csv" <<'PY' || fail "verdict.csv does not hold the known answers"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(r["deployment"], []).append(r)
assert sorted(by) == ["basic", "progress", "thread"], sorted(by)
assert all(len(v) == 9 for v in by.values()), {k: len(v) for k, v in by.items()}
for r in by["basic"]:
    assert r["launches"] == "3" and r["confident"] == "1" and r["class"] == "none", r
for r in by["progress"]:
    assert r["launches"] == "3" and r["confident"] == "1" and r["class"] == "hidden_or_partial", r
    assert r["overlap"] == "hidden", r
for r in by["thread"]:
    assert r["launches"] == "1" and r["confident"] == "0" and r["class"] == "one_launch", r
    assert r["r_overhead_lo"] == "nan", r
bands = {"hidden_or_partial": (-math.inf, 0.75), "none": (0.75, math.inf)}
for r in rows:
    if r["confident"] == "1":
        lo, hi = bands[r["class"]]
        assert lo <= float(r["r_overhead_lo"]) and float(r["r_overhead_hi"]) < hi, r
    # the interval carries the launch spread: never a point with 3 launches
    if r["launches"] == "3":
        assert float(r["r_overhead_lo"]) < float(r["r_overhead"]) < float(r["r_overhead_hi"]), r
print("figure: verdict.csv: basic 9 of 9 confident none, progress 9 of 9 confident "
      "hidden_or_partial (their band hidden), "
      "one launch 0 of 9 confident")
PY
# The lines name the library as its users do: meta.json's mpi_library_name
# of a launch (synth_run writes none), for every configuration of its profile.
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); m["mpi_library_name"] = "MPICH 4.0.2"
json.dump(m, open(sys.argv[1], "w"))' "$SCRATCH/basic0/meta.json" || fail "cannot name the library in meta.json"
out=$("$verdict" --map "$SCRATCH/study") || fail "nbc-verdict failed: $out"
echo "$out"
awk 'length($0) > 100 { exit 1 }' <<<"$out" || fail "a verdict line is longer than 100 columns"
# the map shows each cell's band, upper case where its claim is confirmed:
# the progress grid is 9 x HID (confirmed hidden_or_partial, band hidden)
grep -q "HID hidden; PAR partial; NO none (upper case" <<<"$out" || fail "the map's key: $out"
[ "$(grep -o ' HID' <<<"$out" | wc -l)" -eq 9 ] || fail "the progress map is not 9 x HID: $out"
flat=$(tr '\n' ' ' <<<"$out" | sed 's/  */ /g; s/MPICH 4.0.2, /\nMPICH 4.0.2, /g')
grep -q "^MPICH 4.0.2, ibcast, basic: no overlap: .*, confirmed in 9 of 9 cells; over 3 launches; " \
    <<<"$flat" || fail "the basic line does not say 9 of 9 confirmed none once"
# the headline names its class and count once, never again in brackets
! grep -q "confirmed (none 9)\|confirmed (hidden_or_partial 9)" <<<"$flat" || fail "a line repeats its headline"
grep -q "0 of 9 cells confirmed; 9 suggest overlap, not confirmed; one launch: readings, not verdicts" \
    <<<"$flat" || fail "the one launch is not said as one"
# The impact a line names is impact.csv's row of the largest computation
# size (synth_run's impact grows with the size: the median over the sizes
# is another number), with its paired interval and A/A band.
python3 - "$SCRATCH/study/impact.csv" "$flat" <<'PY' || fail "a line does not name the impact at the largest size"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lines = sys.argv[2].split("\n")
for dep in ("basic", "progress"):
    mine = [r for r in rows if r["deployment"] == dep]
    top = [r for r in mine if r["largest"] == "1"]
    assert len(top) == 1 and float(top[0]["comp_target_s"]) == max(
        float(r["comp_target_s"]) for r in mine), top
    top = top[0]
    median = statistics.median(float(r["r_mpi_impact"]) for r in mine)
    want = "at the largest computation size (%g ms) computation %.2fx slower beside the idle " \
        "library [%.2f, %.2f], A/A band [%.2f, %.2f]" % (
            1e3 * float(top["comp_target_s"]), float(top["r_mpi_impact"]),
            float(top["r_mpi_impact_lo"]), float(top["r_mpi_impact_hi"]), float(top["aa_lo"]),
            float(top["aa_hi"]))
    line = [x for x in lines if x.startswith("MPICH 4.0.2, ibcast, %s:" % dep)][0]
    assert want in line, (want, line)
    assert "%.2f" % median != "%.2f" % float(top["r_mpi_impact"]), "the sizes do not differ"
# one launch: one A/A pair, no band: not estimable
line = [x for x in lines if x.startswith("MPICH 4.0.2, ibcast, thread:")][0]
assert "the impact is not estimable here" in line and "no A/A band" in line, line
print("figure: the lines name impact.csv's largest-size rows")
PY
# One number per quantity: nbc-compare over the same launches prints the
# study's figures (its counts those of verdict.csv, its impact impact.csv's
# largest-size row), from the same code.
compare=$TOOLS_DIR/nbc-compare
runs=()
for i in 0 1 2; do runs+=("$SCRATCH/basic$i" "$SCRATCH/progress$i"); done
"$compare" "${runs[@]}" -o "$SCRATCH/cmp" --no-plots >"$SCRATCH/cmp.out" 2>&1 ||
    fail "nbc-compare failed: $(cat "$SCRATCH/cmp.out")"
python3 - "$csv" "$SCRATCH/study/impact.csv" "$SCRATCH/cmp/configuration_summary.csv" \
    "$SCRATCH/cmp.out" <<'PY' || fail "nbc-compare's figures are not the study's"
import csv, sys
verdict = list(csv.DictReader(open(sys.argv[1])))
impact = list(csv.DictReader(open(sys.argv[2])))
summary = list(csv.DictReader(open(sys.argv[3])))
printed = open(sys.argv[4]).read()
assert [r["label"].split()[2] for r in summary] == ["basic", "progress"], summary
for row in summary:
    dep = row["label"].split()[2]
    cells = [r for r in verdict if r["deployment"] == dep]
    assert int(row["cells"]) == len(cells), (row, len(cells))
    assert int(row["confident"]) == sum(r["confident"] == "1" for r in cells), row
    top = [r for r in impact if r["deployment"] == dep and r["largest"] == "1"][0]
    for mine, theirs in (("comp_target_s", "comp_target_s"), ("r_mpi_impact", "r_mpi_impact"),
                         ("r_mpi_impact_lo", "r_mpi_impact_lo"),
                         ("r_mpi_impact_hi", "r_mpi_impact_hi"), ("aa_lo", "aa_lo"),
                         ("aa_hi", "aa_hi"), ("estimable", "estimable")):
        assert float(row[mine]) == float(top[theirs]), (dep, mine, row[mine], top[theirs])
    # the printed table: the verdict's rounding of the same number
    want = "%.2f [%.2f, %.2f] at %g ms" % (tuple(float(top[c]) for c in (
        "r_mpi_impact", "r_mpi_impact_lo", "r_mpi_impact_hi")) + (
        1e3 * float(top["comp_target_s"]),))
    assert want in printed, (want, printed)
print("figure: nbc-compare's configuration figures equal verdict.csv's and impact.csv's")
PY
# ... and every cell's reading over the launches: configuration_cells.csv's
# r_overhead, r_comm, r_comp_slowdown with their intervals, band and class
# are verdict.csv's (the same launch estimates, the same interval).
python3 - "$csv" "$SCRATCH/cmp/configuration_cells.csv" <<'PY' || fail "nbc-compare's cells are not the verdict's"
import csv, math, sys
verdict = {(r["deployment"], float(r["comm_target_s"]), float(r["comp_target_s"])): r
           for r in csv.DictReader(open(sys.argv[1]))}
deployment = {"1": "basic", "2": "progress"}
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 18, len(rows)
def same(a, b):
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-5 * max(1, abs(a))
for r in rows:
    v = verdict[(deployment[r["configuration"]], float(r["comm_target_s"]), float(r["comp_target_s"]))]
    assert r["launches"] == v["launches"], (r, v)
    for metric in ("r_overhead", "r_comm", "r_comp_slowdown"):
        for mine, theirs in ((metric, metric), (metric + "_ci_lo", metric + "_lo"),
                             (metric + "_ci_hi", metric + "_hi")):
            assert same(r[mine], v[theirs]), (mine, r[mine], v[theirs], r, v)
    assert (r["class"], r["overlap"]) == (v["class"], v["overlap"]), (r, v)
print("figure: nbc-compare's 18 configuration cells equal verdict.csv's (values, intervals, classes)")
PY
# nbc-report's study table: the same figures again (nbc_tools/verdict/study.py's study_table)
report=$TOOLS_DIR/nbc-report
"$report" --no-pdf "$SCRATCH/study" >"$SCRATCH/report.out" 2>&1 ||
    fail "nbc-report failed: $(cat "$SCRATCH/report.out")"
python3 - "$SCRATCH/study/impact.csv" "$SCRATCH/study/report.html" <<'PY' ||
import csv, re, sys
impact = list(csv.DictReader(open(sys.argv[1])))
page = open(sys.argv[2]).read()
# (the section's heading, not its line in the contents)
start = re.search(r"<h3[^>]*>Over the launches", page).start()
text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page[start:]))
for dep in ("basic", "progress"):
    top = [r for r in impact if r["deployment"] == dep and r["largest"] == "1"][0]
    want = "%.2f [%.2f, %.2f]" % tuple(float(top[c]) for c in (
        "r_mpi_impact", "r_mpi_impact_lo", "r_mpi_impact_hi"))
    assert want in text.split("Each launch")[0], (dep, want)
print("figure: nbc-report's study table prints impact.csv's largest-size figures")
PY
    fail "nbc-report's study table does not print the study's figures"
set +e
"$analyze" --study "$SCRATCH/basic0" 2>"$SCRATCH/err"
status=$?
set -e
[ "$status" = 2 ] || fail "--study on a run folder: exit $status, not 2 ($(cat "$SCRATCH/err"))"
grep -q "study.json" "$SCRATCH/err" || fail "the refusal does not name study.json"
# A launch that calibrated the study's sizes (no calibration_from) whose own
# sweep found the computation off target in most cells: the machine ran at
# another speed than when it calibrated, and the verdict says what the
# labels then mean. On target: no such sentence.
"$analyze" -q --no-plots "$SCRATCH/basic0" >/dev/null 2>&1 || fail "nbc-analyze basic0 failed"
out=$("$verdict" "$SCRATCH/study") || fail "nbc-verdict failed: $out"
! grep -q "^calibration:" <<<"$out" || fail "a calibration sentence for cells on target: $out"
python3 - "$SCRATCH/basic0/cells.csv" <<'PY' || fail "cannot rewrite cells.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["valid"] == "1":
        r["comp_target_error"], r["comp_off_target"] = "-0.44", "1"
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader()
w.writerows(rows)
PY
out=$("$verdict" "$SCRATCH/study") || fail "nbc-verdict failed: $out"
flat=$(tr '\n' ' ' <<<"$out" | sed 's/  */ /g')
grep -q "calibration: in basic0, which calibrated the study's sizes, the computation took 44 % less than its targets in 9 of 9 cells" \
    <<<"$flat" || fail "no calibration sentence for a launch 44 % off its targets: $out"
awk 'length($0) > 100 { exit 1 }' <<<"$out" || fail "a calibration line is longer than 100 columns"
echo "figure: a calibrating launch 44 % under its computation targets in 9 of 9 cells is said so"
