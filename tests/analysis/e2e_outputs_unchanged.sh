#!/usr/bin/env bash
# The analysis tools' outputs, byte for byte, against the reference copies in
# tests/data/outputs_unchanged/: nbc-analyze on tests/data/example_run (with
# an ECDF) and on a synthetic progress run of 12 blocks with null controls and
# late attempts (intervals, certain classes), nbc-compare of the three runs
# (two configurations: difference maps), nbc-analyze --study over them as
# launches (verdict.csv, impact.csv) and nbc-trace of one cell. Every file the
# tools write is compared (tables, summaries, the figures' .dat and .gp;
# --no-plots, so no gnuplot and no image), and so is what they print.
# A change of any of these outputs is either a bug or meant: then regenerate
# the references and review their diff:
#     tests/analysis/e2e_outputs_unchanged.sh --regenerate
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
trace=$TOOLS_DIR/nbc-trace
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$compare" "$trace" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
reference=tests/data/outputs_unchanged
make_scratch
out=$SCRATCH/out
mkdir -p "$out/study"

# The stored run is copied: the tools write into the run folder.
cp -r tests/data/example_run "$out/example"
for i in 1 2; do
    "$synth" --out "$out/progress$i" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --blocks 12 \
        --null-share 0.5 --late-share 0.05 --scenario mixed --deployment progress \
        --seed "$i" >/dev/null || fail "synth progress$i"
done
inputs=$(cd "$out" && find . -type f | sort)

"$analyze" --no-plots --ecdf=1,20 "$out/example" >"$out/analyze_example.stdout" 2>"$out/analyze_example.stderr" ||
    fail "nbc-analyze example_run: $(cat "$out/analyze_example.stderr")"
"$analyze" --no-plots "$out/progress1" >"$out/analyze_progress1.stdout" 2>"$out/analyze_progress1.stderr" ||
    fail "nbc-analyze progress1: $(cat "$out/analyze_progress1.stderr")"
# progress2 is analyzed by nbc-compare (a run without cells.csv).
"$compare" --no-plots "$out/example" "$out/progress1" "$out/progress2" -o "$out/compare" \
    >"$out/compare.stdout" 2>"$out/compare.stderr" || fail "nbc-compare: $(cat "$out/compare.stderr")"
python3 - "$out" <<'PY' || fail "study.json not written"
import json, sys
top = sys.argv[1]
runs = [{"mpi": "mpich", "collective": "ibcast", "deployment": dep, "setting": None,
         "launch": launch, "status": "complete", "run_dir": "%s/%s" % (top, name)}
        for dep, launch, name in (("basic", 1, "example"), ("progress", 1, "progress1"),
                                  ("progress", 2, "progress2"))]
json.dump({"format": 1, "runs": runs}, open(top + "/study/study.json", "w"))
PY
"$analyze" --study "$out/study" >"$out/study.stdout" 2>"$out/study.stderr" ||
    fail "nbc-analyze --study: $(cat "$out/study.stderr")"
"$trace" "$out/example" 13 -o "$out/trace_example_13.json" 2>"$out/trace.stderr" ||
    fail "nbc-trace: $(cat "$out/trace.stderr")"

# Only what the tools wrote is compared: the inputs are removed (their
# paths hold no space: word splitting is safe).
# shellcheck disable=SC2086
(cd "$out" && rm -- $inputs study/study.json) || fail "removing the inputs"
# Normalised, narrowly: the scratch folder's absolute path (the tools name
# the run folders they were given) and the suite's version in the tables'
# first lines ("bench_nbc 0.9.0 cells: ..."), which changes with VERSION,
# not with the analysis.
version=$(cat VERSION)
find "$out" -type f -exec sed -i -e "s|$SCRATCH/out|@SCRATCH@|g" \
    -e "s|^# bench_nbc $version |# bench_nbc @VERSION@ |" {} + || fail "normalising"

if [ "${1:-}" = --regenerate ]; then
    rm -rf "$reference" || fail "removing $reference"
    cp -r "$out" "$reference" || fail "writing $reference"
    echo "wrote $reference ($(find "$reference" -type f | wc -l) files)"
    exit 0
fi
[ -d "$reference" ] || fail "no $reference (tests/analysis/e2e_outputs_unchanged.sh --regenerate writes it)"
diff -r "$reference" "$out" >"$SCRATCH/diff" ||
    fail "the outputs differ from $reference:"$'\n'"$(head -60 "$SCRATCH/diff")"
echo "$(find "$out" -type f | wc -l) files as in $reference"
exit 0
