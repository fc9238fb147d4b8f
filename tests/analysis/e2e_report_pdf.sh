#!/usr/bin/env bash
# report.pdf as a reader prints it. nbc-report on a run folder: the
# example run (tests/data/example_run, 6 x 6 cells, its two-panel figures
# taller than their width), analyzed, with the records a real run's files
# hold beside it (report_pdf_records.json: a 2-rank Open MPI run's clock
# points, wake-up and barrier records, threads, configuration, library and
# provenance; the run's own numbers stay). Read back with poppler-utils
# (pdf_layout.py): every image inside its page with its caption, no page of
# headings only, no text past the right margin; every table cell's text
# inside its cell (pdf_cells.py, on the very layout weasyprint printed
# report.pdf from: nbc-report runs the weasyprint command, which here is
# weasyprint's own command line with that check added). The same for a
# study's report (six launches, a results table in fixed columns, and
# their comparison on the default grid). report.html has a table of
# contents whose links all land, and the raw records (clock points, every
# thread, the configuration's sections) only in the appendix, its last
# section. Without weasyprint or poppler-utils the test skips, unless run
# as root: it installs them (apt-get).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
report=$TOOLS_DIR/nbc-report
analyze=$TOOLS_DIR/nbc-analyze
for tool in "$report" "$analyze"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox): no figures to report"
make_scratch

# need_command COMMAND PACKAGE: COMMAND is on PATH, or PACKAGE is installed
# for it when running as root; otherwise the test skips.
need_command() {
    command -v "$1" >/dev/null && return 0
    [ "$(id -u)" = 0 ] || skip "$1 is not installed (apt-get install $2) and only root can install it"
    echo "note: $1 is missing: installing $2 (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$2" >"$SCRATCH/apt.log" 2>&1 ||
        skip "apt-get install $2 failed: $(tail -n 3 "$SCRATCH/apt.log")"
    command -v "$1" >/dev/null || fail "$2 is installed but $1 is still missing"
}
need_command weasyprint weasyprint
for tool in pdftohtml pdfimages pdfinfo; do need_command "$tool" poppler-utils; done

# every table cell's text inside its cell, as weasyprint lays it out: its
# command line as nbc-report runs it (the Python of the weasyprint command,
# which imports it), the document it renders kept and checked by
# pdf_cells.py, its line (or the cells past their edge, exit status 1) in
# $WEASYPRINT_CELLS. Laying the page out once saves seconds per report.
weasy_python=$(sed -n '1s/^#! *//p' "$(command -v weasyprint)")
mkdir -p "$SCRATCH/bin"
cat >"$SCRATCH/bin/weasyprint" <<EOF
#!$weasy_python
import os, sys
sys.path.insert(0, "$BENCH_NBC_ROOT/tests/analysis")
import weasyprint, weasyprint.__main__, pdf_cells
rendered, render = [], weasyprint.HTML.render
def keep(self, *args, **kwargs):
    rendered.append(render(self, *args, **kwargs))
    return rendered[-1]
weasyprint.HTML.render = keep
status = weasyprint.__main__.main()
if status or len(rendered) != 1:
    sys.exit(status or "weasyprint rendered %d documents, not 1" % len(rendered))
problems, cells = pdf_cells.overflowing(rendered[0])
with open(os.environ["WEASYPRINT_CELLS"], "w") as out:
    for page, text, past in problems:
        out.write("page %d: '%s' runs %.1f pt past its table cell\n" % (page, text[:40], past))
    if not problems:
        out.write("tables: %d cells, every text inside its cell\n" % cells)
sys.exit(1 if problems else 0)
EOF
chmod +x "$SCRATCH/bin/weasyprint"
# report_checked DIR: nbc-report DIR through that command; sets msg and cells.
report_checked() {
    msg=$(PATH=$SCRATCH/bin:$PATH WEASYPRINT_CELLS=$SCRATCH/cells "$report" "$1" 2>&1) || return 1
    cells=$(cat "$SCRATCH/cells")
}

run=$SCRATCH/example_run
cp -R tests/data/example_run "$run"
python3 tests/analysis/add_records.py "$run" tests/analysis/report_pdf_records.json ||
    fail "cannot add the records to $run"
"$analyze" -q "$run" 2>/dev/null
[ -f "$run/plots/overhead.png" ] || fail "nbc-analyze drew no figure in $run"
report_checked "$run" || fail "nbc-report failed: $msg (cells: $(cat "$SCRATCH/cells" 2>/dev/null))"
echo "$msg"
[ -s "$run/report.pdf" ] || fail "nbc-report wrote no report.pdf with weasyprint installed"

layout=$(python3 tests/analysis/pdf_layout.py "$run/report.pdf" "$SCRATCH") ||
    fail "report.pdf cannot be printed as it is:"$'\n'"$layout"
figure "$layout"
figure "$cells"

# a study's report: six launches (a results table of fixed, narrow columns)
# and their comparison, on the default 5 x 5 grid
synth=$BUILD/tests/analysis/synth_run
compare=$TOOLS_DIR/nbc-compare
study=$SCRATCH/study
mkdir -p "$study"
runs=() entries=()
for launch in 1 2 3; do
    for deployment in basic progress; do
        dir=$SCRATCH/$deployment-$launch
        scenario=mixed
        [ "$deployment" = basic ] || scenario=overlap
        "$synth" --out "$dir" --comm-ms 1,2,4,8,16 --comp-ms 1,2,4,8,16 --scenario "$scenario" \
            --deployment "$deployment" --blocks 12 --seed "$launch" >/dev/null || fail "synth $dir"
        runs+=("$dir")
        entries+=("{\"index\": ${#runs[@]}, \"name\": \"mpich-ibcast-$deployment\", \"launch\": $launch, \"status\": \"complete\", \"run_dir\": \"$dir\"}")
    done
done
"$analyze" -q "${runs[@]}" 2>/dev/null || fail "nbc-analyze of the study's runs"
"$compare" "${runs[@]}" -o "$study/compare" >/dev/null 2>&1 || fail "nbc-compare of the study's runs"
(IFS=,; printf '{"format": 1, "status": "complete", "study": {"collectives": ["ibcast"], "launches": 3}, "runs": [%s], "comparisons": ["%s"]}\n' \
    "${entries[*]}" "$study/compare") >"$study/study.json"
report_checked "$study" || fail "nbc-report of the study failed: $msg (cells: $(cat "$SCRATCH/cells" 2>/dev/null))"
layout=$(python3 tests/analysis/pdf_layout.py "$study/report.pdf" "$SCRATCH") ||
    fail "the study's report.pdf cannot be printed as it is:"$'\n'"$layout"
figure "study: $layout; $cells"

python3 - "$run/report.html" <<'PY' || fail "report.html's contents or appendix"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
toc = re.search(r'<nav class="toc">(.*?)</nav>', page, re.S)
assert toc, "no table of contents"
links = re.findall(r'href="#([^"]+)"', toc.group(1))
ids = set(re.findall(r'\bid="([^"]+)"', page))
assert len(links) >= 8 and set(links) <= ids, ("contents' links without a target",
                                                sorted(set(links) - ids), len(links))
h2 = re.findall(r"<h2[^>]*>(.*?)</h2>", page)
assert h2[-1].startswith("Appendix"), ("the appendix is not the last section", h2)
appendix = page.index(re.search(r"<h2[^>]*>Appendix", page).group(0))
# the raw records' own headers: a clock point's time, a thread's TID, a [section]
for record in ("<th>at_s</th>", "<th>TID</th>", "<h5>[grid]</h5>"):
    where = [m.start() for m in re.finditer(re.escape(record), page)]
    assert where and min(where) > appendix, ("%s before the appendix" % record, where, appendix)
print("figure: report.html: %d contents links, sections %s" % (len(links), " / ".join(h2)))
PY
echo "report pdf: ok"
