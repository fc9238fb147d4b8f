#!/usr/bin/env bash
# nbc-report's report of a study folder (study.json naming two synthetic
# runs of one collective, basic and progress, and their comparison), as a
# reader gets it: report.html has its sections in the reader's order, one
# verdict line and one results column per run, every PNG of the runs and the
# comparison embedded as a figure with a caption (a NAME.caption.txt beside
# it when there is one), no raw JSON
# (report_check.py structure). Copied alone to another folder, headless
# Chromium loads it with every image decoded and no console message; the
# PDF renders with pdftoppm and holds one image per figure (pdfimages).
# Without Chromium, weasyprint or poppler the test says so and skips.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
report=$TOOLS_DIR/nbc-report
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
check=tests/analysis/report_check.py
for tool in "$report" "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox): no figures to report"
make_scratch

study=$SCRATCH/study
mkdir -p "$study"
"$synth" --out "$SCRATCH/s1" --comm-ms 1,2 --comp-ms 1,2 --scenario mixed --blocks 10 || fail "synth s1"
"$synth" --out "$SCRATCH/s2" --comm-ms 1,2 --comp-ms 1,2 --scenario overlap --deployment progress \
    --blocks 10 || fail "synth s2"
"$analyze" -q "$SCRATCH/s1" "$SCRATCH/s2" 2>/dev/null || fail "nbc-analyze on the synthetic runs"
"$compare" "$SCRATCH/s1" "$SCRATCH/s2" -o "$SCRATCH/cmp" >/dev/null 2>&1 || fail "nbc-compare"
cat >"$study/study.json" <<EOF
{"format": 1, "status": "complete", "study": {"collectives": ["ibcast"], "launches": 1},
 "runs": [{"index": 1, "name": "mpich-ibcast-basic", "launch": 1, "status": "complete", "run_dir": "$SCRATCH/s1"},
          {"index": 2, "name": "mpich-ibcast-progress", "launch": 1, "status": "complete", "run_dir": "$SCRATCH/s2"}],
 "comparisons": ["$SCRATCH/cmp"]}
EOF
# A caption file beside a figure is its caption (nbc-analyze's, when it writes one).
echo "Overhead of the basic run: words from the caption file." >"$SCRATCH/s1/plots/overhead.caption.txt"
pdf=yes no_pdf=()
command -v weasyprint >/dev/null || pdf="" no_pdf=(--no-pdf)
msg=$("$report" "${no_pdf[@]}" "$study" 2>&1) || fail "nbc-report on the study failed: $msg"
echo "$msg"
grep -q "(2 run folders, " <<<"$msg" || fail "study report: $msg"
python3 "$check" structure "$study/report.html" 2 "$SCRATCH/s1" "$SCRATCH/s2" "$SCRATCH/cmp" ||
    fail "report.html of the study"
grep -q "</b> Overhead of the basic run: words from the caption file.</figcaption>" "$study/report.html" ||
    fail "report.html does not caption overhead.png with overhead.caption.txt"
figures=$(grep -o '<figure ' "$study/report.html" | wc -l)
basic_line=$(grep -o '<li>[^<]*, basic: [^<]*</li>' "$study/report.html" | head -n 1)
[ -n "$basic_line" ] || fail "no verdict line for the basic deployment"
figure "verdict: $basic_line"

# ---- the PDF, rendered -------------------------------------------------------------------
[ -n "$pdf" ] || skip "weasyprint is not installed (apt-get install weasyprint): report.pdf not checked"
command -v pdftoppm >/dev/null || skip "pdftoppm is not installed (apt-get install poppler-utils): report.pdf not rendered"
pdftoppm -r 30 -png "$study/report.pdf" "$SCRATCH/page" || fail "pdftoppm cannot render report.pdf"
pages=("$SCRATCH"/page-*.png)
# pdfimages lists one row per image after its two header lines
images=$(pdfimages -list "$study/report.pdf" | tail -n +3 | wc -l)
figure "report.pdf: ${#pages[@]} pages rendered, $images images for $figures figures"
[ "$images" -eq "$figures" ] || fail "report.pdf holds $images images for $figures figures"

# ---- headless Chromium: the file alone, in another folder -------------------------------
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium is not installed (apt-get install chromium): report.html not rendered"
alone=$SCRATCH/alone
mkdir -p "$alone"
cp "$study/report.html" "$alone/"
python3 "$check" page "$alone/report.html" "$alone/check.html" || fail "report_check.py page"
headless=("$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$SCRATCH/profile"
    --virtual-time-budget=10000)
out=$(timeout 120 "${headless[@]}" --allow-file-access-from-files --dump-dom "file://$alone/check.html" 2>/dev/null)
result=$(sed -n 's/.*<pre id="out">\([^<]*\)<.*/\1/p' <<<"$out")
figure "chromium: $result"
[ "$result" = "images $figures broken 0 figures $figures" ] ||
    fail "chromium: '$result' (expected $figures images, none broken)"
console=$(timeout 120 "${headless[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$alone/report.html" 2>&1 >/dev/null |
    grep 'CONSOLE' || true)
[ -z "$console" ] || fail "chromium's console: $console"
echo "report render: ok"
