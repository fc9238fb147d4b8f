#!/usr/bin/env bash
# The same work in every deployment of a study: a real study of 2 launches x
# 2 deployments (basic, manual) of a synthetic collective on 2 x 2 cells
# calibrates once, in its first launch of basic (which runs first), and
# every other run measures with those sizes (study.json calibration_from,
# meta.json calibration_from, bench_nbc run.calibration_from): bytes and
# matrix_n are equal in every run's calibration files and cells.csv, and
# the launches alternate (basic manual basic manual). nbc-compare writes
# equal_work.csv (a row per cell and one for the grid, ratios with lo <=
# ratio <= hi from 2 pairs) and the sentences the study prints at its end.
# Refused with exit 2 and the key named: a calibration of another grid, of
# another collective, of another version of the library, a path that is not
# a folder. nbc-compare refuses the
# equal-work ratio, saying why, for runs whose sizes differ.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
command -v jq >/dev/null || skip "reads study.json with jq (apt-get install jq)"
[ -x "$TOOLS_DIR/nbc-compare" ] || fail "$TOOLS_DIR/nbc-compare is not built"
make_scratch

# shellcheck disable=SC2054 # manual,basic is one argument
tiny_options=(--collectives synthetic_perfect --deployments manual,basic --launches 2)
tiny_study 1ms,2ms,2 2
[ $status -eq 0 ] || fail "nbc-run: status $status; its stderr: $(cat "$SCRATCH/stderr")"
study=$(sed -n 's/^study: //p' <<<"$out")
[ -f "$study" ] || fail "no study.json listed at the end: $out"
q() { jq -r "$1" "$study"; }
# basic, named last, calibrates first; the rounds then alternate.
[ "$(q '[.runs[] | .deployment] | join(" ")')" = "basic manual manual basic" ] ||
    fail "study.json: runs in the order $(q '[.runs[] | .deployment]')"
[ "$(q '[.runs[] | .calibration_from // "self"] | join(" ")')" = "self 1 1 1" ] ||
    fail "study.json: calibration_from $(q '[.runs[] | .calibration_from]')"
ref=$(q '.runs[0].run_dir')
[ "$(json "$ref/meta.json" .calibration_from)" = null ] || fail "$ref/meta.json: calibration_from is not null"
sizes() { cut -d, -f2,3 "$1/calib_comm.csv"; cut -d, -f1,2 "$1/calib_comp.csv"; }
# cell_sizes RUN_DIR: each cell's bytes and matrix_n in cells.csv.
cell_sizes() {
    python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])): print(r["cell"], r["bytes"], r["matrix_n"])' "$1/cells.csv"
}
[ "$(sizes "$ref" | wc -l)" -eq 6 ] || fail "$ref: expected 2 + 2 calibration rows: $(sizes "$ref")"
for i in 1 2 3; do
    dir=$(q ".runs[$i].run_dir")
    [ "$(json "$dir/meta.json" .status)" = complete ] || fail "$dir: meta.json status $(json "$dir/meta.json" .status)"
    [ "$(json "$dir/meta.json" .calibration_from)" = "$(realpath "$ref")" ] ||
        fail "$dir/meta.json: calibration_from $(json "$dir/meta.json" .calibration_from), expected $ref"
    [ "$(sizes "$dir")" = "$(sizes "$ref")" ] ||
        fail "$dir measured other sizes than $ref: $(sizes "$dir") against $(sizes "$ref")"
    [ "$(cell_sizes "$dir")" = "$(cell_sizes "$ref")" ] ||
        fail "$dir/cells.csv: bytes or matrix_n differ from $ref/cells.csv"
    grep -q "run.calibration_from=$(realpath "$ref")" "$dir/nbc-run.log" || fail "$dir/nbc-run.log: not launched with the shared sizes"
done

cmp=$(q '.comparisons[0]')
[ -s "$cmp/equal_work.csv" ] || fail "no $cmp/equal_work.csv"
check=$(python3 - "$cmp/equal_work.csv" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ("scope,mpi,collective,deployment,reference_deployment,configuration,"
        "reference_configuration,comm_target_s,comp_target_s,bytes,matrix_n,cells,pairs,"
        "ratio,ratio_lo,ratio_hi").split(",")
assert list(rows[0].keys()) == want, "columns {}".format(list(rows[0].keys()))
cells = [r for r in rows if r["scope"] == "cell"]
grids = [r for r in rows if r["scope"] == "grid"]
assert len(cells) == 4 and len(grids) == 1, "{} cell rows, {} grid rows".format(len(cells), len(grids))
for r in rows:
    assert (r["deployment"], r["reference_deployment"]) == ("manual", "basic"), r
    assert 0 <= int(r["pairs"]) <= 2, r
    ratio, lo, hi = (float(r[k]) for k in ("ratio", "ratio_lo", "ratio_hi"))
    if int(r["pairs"]) == 2 and math.isfinite(ratio):
        assert 0 < lo <= ratio <= hi < math.inf, r
    if int(r["pairs"]) < 2:
        assert math.isnan(lo) and math.isnan(hi), "an interval from one pair: {}".format(r)
g = grids[0]
assert int(g["pairs"]) == 2 and 1 <= int(g["cells"]) <= 4, g
print("{} cells, grid {} [{}, {}] over {} cells".format(len(cells), g["ratio"], g["ratio_lo"],
                                                         g["ratio_hi"], g["cells"]))
EOF
) || fail "$cmp/equal_work.csv: $check: $(cat "$cmp/equal_work.csv")"
joined=$(unwrap <<<"$out") # the sentences wrapped at 100 columns, joined back
grep -q "^equal work, $MPI synthetic_perfect, configuration 2 .* against 1 .*, 2 pairs of launches:" <<<"$joined" ||
    fail "the study does not print the equal-work comparison at its end"
grep -Eq "^  with MPI_Test polling in the computation \(manual\), computation \(n = [0-9]+, 2 ms\) \+ synthetic_perfect of S = [0-9]+ ns \(2 ms\) takes [0-9.]+x as long as with the library's defaults \(basic\)" <<<"$joined" ||
    fail "no sentence on the largest cell"
grep -q "^  over the grid (the geometric mean over the [1-4] cells\{0,1\} valid in every pair): " <<<"$joined" ||
    fail "no sentence on the grid"

# Sizes that differ are not the same work: no ratio, and the reason.
other=$SCRATCH/other-sizes
cp -r "$(q '.runs[1].run_dir')" "$other"
python3 - "$other/cells.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    r["matrix_n"] = str(int(r["matrix_n"]) + 1)
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
EOF
refused=$("$TOOLS_DIR/nbc-compare" --no-plots "$ref" "$other" -o "$SCRATCH/cmp-other" 2>&1) ||
    fail "nbc-compare of runs of other sizes failed: $refused"
grep -q "^equal work: configuration 2 (.*) against 1 (.*) refused, not the same work: cell comm .* has S = [0-9]* B, n = [0-9]* in .* and S = [0-9]* B, n = [0-9]* in other-sizes" <<<"$refused" ||
    fail "nbc-compare does not refuse the equal-work ratio of other sizes: $refused"
[ ! -e "$SCRATCH/cmp-other/equal_work.csv" ] || fail "equal_work.csv written for runs of other sizes"

# bench_nbc refuses what is not the same work (exit 2, the key named).
expect_failing_launches
refuse() {
    local why=$1
    shift
    err=$(mpi_launch -n 2 "$BUILD/bench_nbc" -c "$BENCH_NBC_ROOT/configs/default.conf" \
        --set run.results_dir="$SCRATCH" --set run.repetitions=1 --set run.half_width=0 \
        --set clocksync.roundtrips=200 "$@" 2>&1 >/dev/null)
    st=$?
    [ $st -eq 2 ] || fail "$why: exit status $st, expected 2: $err"
    grep -q "run.calibration_from" <<<"$err" || fail "$why: the message does not name run.calibration_from: $err"
    echo "refused ($why): $(grep -m1 calibration_from <<<"$err")"
}
refuse "another grid" --set grid.comm_times=1ms,4ms,4 --set grid.comp_times=1ms,2ms,2 \
    --set run.collective=synthetic_perfect --set run.calibration_from="$ref"
refuse "another collective" --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=1ms,2ms,2 \
    --set run.collective=synthetic_serial --set run.calibration_from="$ref"
other_library=$SCRATCH/other-library
cp -r "$ref" "$other_library"
jq '.mpi_library.version = "0.0"' "$ref/meta.json" >"$other_library/meta.json" || fail "jq"
refuse "another version of the library" --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=1ms,2ms,2 \
    --set run.collective=synthetic_perfect --set run.calibration_from="$other_library"
refuse "not a folder" --set run.collective=synthetic_perfect --set run.calibration_from="$ref/meta.json"
figure "2 launches x 2 deployments, one calibration: equal sizes in 4 runs, equal_work.csv $check; other sizes, grid, collective refused"
