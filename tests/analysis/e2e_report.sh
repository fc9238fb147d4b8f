#!/usr/bin/env bash
# nbc-report on a small real run (2 ranks, 2 x 2 cells, analyzed with
# --palette=cividis; a study folder's report is e2e_report_render.sh's):
# report.html embeds every figure (PNG) of the run with its caption, after
# the verdicts and results; its sections hold the run's library,
# clock synchronization, stopping rule, the invalid cells counted as
# cells.csv has them and the deviations from the paper; the columns come
# from the column list (one that cells.csv lacks is said, not guessed); bad
# input exits 2. Then report.pdf, rendered to pictures with pdftoppm: the
# first page is not blank (grey variance) and a page shows the figures'
# cividis colours (they are in the PDF, not only linked).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
report=$TOOLS_DIR/nbc-report
analyze=$TOOLS_DIR/nbc-analyze
pixels=tests/analysis/png_pixels.py
for tool in "$report" "$analyze"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v python3 >/dev/null || skip "python3 is not installed"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox): no figures to report"
make_scratch

# check_html DIR RUNS FOLDER...: report.html in DIR embeds every PNG below the
# folders as a captioned figure, after RUNS verdict lines and results columns
check_html() {
    python3 tests/analysis/report_check.py structure "$1/report.html" "${@:2}"
}

# ---- a small real run -------------------------------------------------------------------
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=1ms,2ms,2 --set run.repetitions=10 \
    --set run.half_width=0 2>&1)
status=$?
run=$(run_folder "$out")
# 5: no cell measured whole on a loaded machine; its files are still reported
[ "$status" -eq 0 ] || [ "$status" -eq 5 ] || fail "bench_nbc failed ($status): $out"
if [ -z "$run" ] || [ ! -f "$run/meta.json" ]; then fail "no run folder: $out"; fi
"$analyze" -q --palette=cividis "$run" 2>/dev/null
[ -f "$run/plots/overhead.png" ] || fail "nbc-analyze drew no figure in $run"
msg=$("$report" "$run" 2>&1) || fail "nbc-report failed: $msg"
echo "$msg"
check_html "$run" 1 "$run" || fail "report.html of the run"
page=$run/report.html
library=$(jq -r '.mpi_library.display_name + " " + .mpi_library.version' "$run/meta.json")
grep -q "<td>MPI library</td><td>$library</td>" "$page" || fail "report.html lacks the library '$library'"
method=$(jq -r .clocksync.method "$run/meta.json")
grep -q "<td>clocksync method</td><td>$method</td>" "$page" || fail "report.html lacks the clock sync method"
grep -q "<td>stopping rule</td><td>fixed: a warm-up and 10 blocks a cell" "$page" ||
    fail "report.html lacks the stopping rule"
invalid=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["valid"] == 0 { n++ } END { print n + 0 }' "$run/cells.csv")
grep -q "<td>invalid cells (valid = 0)</td><td>$invalid</td>" "$page" ||
    fail "report.html does not count $invalid invalid cells"
rows=$(python3 -c 'import sys; t = open(sys.argv[1]).read(); s = t.split("Deviations from the paper</h2>")[1].split("</table>")[0]; print(s.count("<tr>") - 1)' "$page")
[ "$rows" -ge 5 ] || fail "the deviations table has $rows rows"
# a figure the analysis left out is said, with why (plots/not_drawn.txt)
printf 'frontier\tno row of this grid has a frontier (a planted reason)\n' >>"$run/plots/not_drawn.txt"
"$report" --no-pdf "$run" >/dev/null 2>&1 || fail "nbc-report failed with not_drawn.txt"
grep -q "<li>frontier (plots): no row of this grid has a frontier (a planted reason)</li>" "$page" ||
    fail "report.html does not say which figure was not drawn and why"
figure "report of $run: $invalid invalid cells, $rows deviations"

# the columns are the list's: a column cells.csv lacks is said
sed 's/^validity_column = .*/validity_column = no_such_column/' configs/report.ini >"$SCRATCH/columns.ini"
"$report" --no-pdf --columns "$SCRATCH/columns.ini" "$run" >/dev/null 2>&1 || fail "nbc-report --columns failed"
grep -q "cells.csv lacks no_such_column" "$page" || fail "a missing column is not reported"
grep -q "invalid cells (" "$page" && fail "invalid cells counted without the validity column"

# bad input
msg=$("$report" "$SCRATCH/none" 2>&1)
[ $? -eq 2 ] || fail "a missing folder did not exit 2: $msg"
mkdir "$SCRATCH/empty"
msg=$("$report" "$SCRATCH/empty" 2>&1)
[ $? -eq 2 ] || fail "an empty folder did not exit 2: $msg"
grep -q "no run folder" <<<"$msg" || fail "an empty folder: $msg"

# ---- the PDF, as pictures ---------------------------------------------------------------
command -v weasyprint >/dev/null || skip "weasyprint is not installed (apt-get install weasyprint): report.pdf not checked"
command -v pdftoppm >/dev/null || skip "pdftoppm is not installed (apt-get install poppler-utils): report.pdf not rendered"
[ -s "$run/report.pdf" ] || fail "nbc-report wrote no report.pdf with weasyprint installed"
pdftoppm -r 40 -png "$run/report.pdf" "$SCRATCH/page" || fail "pdftoppm cannot render report.pdf"
pages=("$SCRATCH"/page-*.png)
read -r width height variance < <(python3 "$pixels" "${pages[0]}" | head -n 1)
figure "report.pdf: ${#pages[@]} pages, the first ${width}x${height} with grey variance $variance"
awk -v v="$variance" 'BEGIN { exit !(v > 100) }' || fail "the first page looks blank (variance $variance)"
shown=0
for p in "${pages[@]}"; do
    n=$(python3 "$pixels" "$p" '#00204d' '#ffea46' --tolerance 12 | awk 'NR > 1 && $2 > 0 { n++ } END { print n + 0 }')
    [ "$n" -eq 2 ] && shown=1
done
[ "$shown" -eq 1 ] || fail "no page of report.pdf shows cividis' dark and light ends (the figures)"
echo "report: ok"
