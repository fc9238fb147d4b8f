#!/usr/bin/env bash
# Figures for print: every figure type (nbc-analyze's overhead, concurrency,
# bands, impact and an ecdf; nbc-compare's compare_overhead and its
# three difference maps, on a 4 x 4 grid and on the default 5 x 5, where
# compare_overhead is a figure per configuration) rendered at
# --figure-size=column. From the SVGs
# (1 unit = 1 pt): each is 3.5 in (252 pt) wide, at most 5 in (360 pt)
# tall (a two-panel map is two figures there), and no text is under 7 pt
# at that width; the colour bars are the ones specified: r_overhead 0..1
# saturated, with "<=0" and ">=1" ticks, its interval width 0..1 with ">=1", r_comm and
# r_comp_slowdown on a log scale 1/1.5..1.5 ticked at 1, one colour bar on
# compare_overhead, the same +-1 on every difference map. Each figure has
# its caption file; page width and --no-titles do what they say; a bad size
# is bad input. Each SVG and PDF carries the figure's title and caption
# (SVG <title>/<desc>, PDF Title/Subject). nbc-compare's maps show the
# runs' bytes and GEMM orders; no cell label is wider than its cell; the
# PDF's text is the size the SVG states.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
command -v python3 >/dev/null || skip "python3 is not installed (it reads the SVGs)"
make_scratch
run=$SCRATCH/run
cp -r tests/data/example_run "$run"
"$analyze" -q --figure-size=column --ecdf=14 "$run" 2>"$SCRATCH/err" || fail "nbc-analyze failed: $(cat "$SCRATCH/err")"
# the example has no frontier to draw: a run that has one
front=$SCRATCH/front
"$synth" --out "$front" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8,16 --scenario frontier --blocks 12 >/dev/null || fail "synth front"
"$analyze" -q --figure-size=column "$front" 2>/dev/null || fail "nbc-analyze of the frontier run failed"
a=$SCRATCH/basic
b=$SCRATCH/progress
"$synth" --out "$a" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --scenario mixed --blocks 12 >/dev/null || fail "synth a"
"$synth" --out "$b" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --scenario overlap --deployment progress \
    --blocks 12 >/dev/null || fail "synth b"
"$compare" --figure-size=column "$a" "$b" -o "$SCRATCH/cmp" >/dev/null 2>&1 || fail "nbc-compare failed"
# the default grid, 5 x 5: two configurations stacked would be 6.5 in and
# shrunk to 5 in their cells lose the values, so each is its own figure
a5=$SCRATCH/basic5
b5=$SCRATCH/progress5
"$synth" --out "$a5" --comm-ms 1,2,4,8,16 --comp-ms 1,2,4,8,16 --scenario mixed --blocks 12 >/dev/null || fail "synth a5"
"$synth" --out "$b5" --comm-ms 1,2,4,8,16 --comp-ms 1,2,4,8,16 --scenario overlap --deployment progress \
    --blocks 12 >/dev/null || fail "synth b5"
"$compare" --figure-size=column "$a5" "$b5" -o "$SCRATCH/cmp5" >/dev/null 2>&1 || fail "nbc-compare of the 5 x 5 runs failed"

figures=("$run"/plots/{overhead,overhead_ci_width,concurrency,concurrency_slowdown,bands,impact,ecdf_cell_14}
    "$front/plots/frontier"
    "$SCRATCH"/cmp/{compare_overhead,diff_overhead,diff_comm,diff_comp_slowdown,compare_frontier}
    "$SCRATCH"/cmp5/{compare_overhead,compare_overhead_2,diff_overhead})
svgs=()
for f in "${figures[@]}"; do
    for ext in svg png pdf gp caption.txt; do [ -s "$f.$ext" ] || fail "$f.$ext missing"; done
    svgs+=("$f.svg")
done

# svg_text_sizes WIDTH_PT SVG...: "file width smallest" per SVG, the
# smallest text size scaled to a print WIDTH_PT wide
svg_text_sizes() {
    python3 - "$@" <<'EOF'
import re, sys
import xml.etree.ElementTree as ET
target = float(sys.argv[1])
def size_of(el, inherited):
    s = el.get("font-size")
    m = re.search(r"font-size:\s*([0-9.]+)", el.get("style", ""))
    if m:
        s = m.group(1)
    return float(s) if s else inherited
for path in sys.argv[2:]:
    root = ET.parse(path).getroot()
    width = float(root.get("width").rstrip("pt"))
    smallest, texts = [float("inf")], [0]
    def walk(el, inherited):
        size = size_of(el, inherited)
        if el.tag.endswith("text") and "".join(el.itertext()).strip():
            texts[0] += 1
            smallest[0] = min(smallest[0], size if size is not None else 0.0)
        for child in el:
            walk(child, size)
    walk(root, None)
    height = float(root.get("height").rstrip("pt"))
    print("%s %g %.3f %d %.1f" % (path, width, smallest[0] * target / width, texts[0],
                                  height * target / width))
EOF
}
sizes=$(svg_text_sizes 252 "${svgs[@]}") || fail "cannot read the SVGs"
echo "$sizes"
# 7 pt is the journals' smallest; the sizes are written with 2 decimals
awk '$2 != 252 || $3 < 7 - 0.005 || $4 == 0 || $5 > 360 { bad = 1; print "not for print: " $0 } END { exit bad }' \
    <<<"$sizes" || fail "a figure at the column preset is not 3.5 in wide, is over 5 in tall or has text under 7 pt"

# svg_texts SVG: the texts drawn, one a line
svg_texts() { python3 -c 'import sys, xml.etree.ElementTree as E
for t in E.parse(sys.argv[1]).getroot().iter():
    if t.tag.endswith("text"): print("".join(t.itertext()).strip())' "$1"; }
cbranges() { sed -n 's/^ *set cbrange //p' "$@" | tr '\n' ' '; }
plots=$run/plots
[ "$(cbranges "$plots/overhead.gp")" = "[0:1] " ] ||
    fail "overhead's colour bar is $(cbranges "$plots/overhead.gp"), expected r_overhead 0..1"
[ "$(cbranges "$plots/overhead_ci_width.gp")" = "[0:1] " ] ||
    fail "overhead_ci_width's colour bar is $(cbranges "$plots/overhead_ci_width.gp"), expected 0..1"
for tick in '≤0' 0.5 '≥1'; do
    svg_texts "$plots/overhead.svg" | grep -qxF -- "$tick" || fail "overhead.svg has no colour-bar tick '$tick'"
done
svg_texts "$plots/overhead_ci_width.svg" | grep -qxF -- '≥1' || fail "overhead_ci_width.svg's top tick does not read ≥1"
[ "$(cbranges "$plots"/concurrency{,_slowdown}.gp)" = "[0.666667:1.5] [0.666667:1.5] " ] ||
    fail "concurrency's colour bars are $(cbranges "$plots"/concurrency{,_slowdown}.gp), expected 1/1.5..1.5 twice"
[ "$(cat "$plots"/concurrency{,_slowdown}.gp | grep -c '^ *set logscale cb')" -eq 2 ] || fail "the ratio maps are not on a log scale"
for tick in 0.67 1 1.5; do
    svg_texts "$plots/concurrency.svg" | grep -qxF -- "$tick" || fail "concurrency.svg has no colour-bar tick '$tick'"
done
grep -q '^ *unset colorbox' "$plots/bands.gp" || fail "the band map draws a colour bar"
grep -q '^ *set logscale y' "$plots/impact.gp" || fail "impact's ratio axis is not a log axis"
grep -q 'with yerrorbars' "$plots/impact.gp" || fail "impact is not points with interval bars"
! grep -q 'with boxes' "$plots/impact.gp" || fail "impact still draws bars from 0"
# the A/A floor beside the points where compute_ref ran before and after
# (synth_run's runs), absent where it did not (the example: before only)
"$analyze" -q --no-plots "$a" 2>/dev/null || fail "nbc-analyze of the synthetic run failed"
grep -q "title 'A/A floor'" "$a/plots/impact.gp" || fail "impact does not draw the A/A floor of a run that has one"
! grep -q "A/A floor" "$plots/impact.gp" || fail "impact draws an A/A floor the example run does not have"
cmp_gp=$SCRATCH/cmp/compare_overhead.gp
# two panels: one hides its bar, the other's sits in the margin both keep
[ "$(grep -c '^ *unset colorbox' "$cmp_gp")" -eq 1 ] || fail "compare_overhead draws more than one colour bar"
[ "$(grep -c '^ *set colorbox user' "$cmp_gp")" -eq 1 ] || fail "compare_overhead's shared colour bar is not in the common margin"
[ "$(cbranges "$cmp_gp")" = "[0:1] [0:1] " ] || fail "compare_overhead's panels differ in scale: $(cbranges "$cmp_gp")"
# split, each configuration's figure draws the one scale with its own bar
# and its caption names the others
for f in "$SCRATCH"/cmp5/compare_overhead{,_2}; do
    [ "$(grep -c '^ *unset colorbox' "$f.gp")" -eq 0 ] || fail "$f.gp hides its colour bar"
    [ "$(cbranges "$f.gp")" = "[0:1] " ] || fail "$f.gp is not one panel on r_overhead's 0..1: $(cbranges "$f.gp")"
    grep -q 'A figure per configuration, on one colour scale: compare_overhead (1), compare_overhead_2 (2)\.' \
        "$f.caption.txt" || fail "$f.caption.txt does not name the figures that share its scale"
done
head -n 1 "$SCRATCH/cmp5/compare_overhead_2.caption.txt" | grep -q '^r_overhead of configuration 2 of 2 .*; [^;]*progress' ||
    fail "compare_overhead_2's title does not name its configuration: $(head -n 1 "$SCRATCH/cmp5/compare_overhead_2.caption.txt")"
[ ! -e "$SCRATCH/cmp/compare_overhead_2.gp" ] || fail "the 4 x 4 comparison, one figure, also wrote compare_overhead_2"
for metric in overhead comm comp_slowdown; do
    [ "$(cbranges "$SCRATCH/cmp/diff_$metric.gp")" = "[-1:1] " ] ||
        fail "diff_$metric's scale is $(cbranges "$SCRATCH/cmp/diff_$metric.gp"), every difference map has -1..1"
done
# both physical axes: the bytes and the GEMM order under the times
grep -q 'set xtics ("1\\n[0-9.]*[kMG]\?"' "$plots/overhead.gp" || fail "the communication axis does not show the bytes"
grep -q 'set ytics ("1\\n([0-9]*)"' "$plots/overhead.gp" || fail "the computation axis does not show the GEMM order"
grep -q "One launch: a reading, not a verdict" "$plots/bands.caption.txt" || fail "the band caption lacks what it rests on"
! grep -q 'One launch' "$plots/bands.gp" || fail "the caption's words are in the band map's title"
# the caption is the SVG's description too, so the file carries it
python3 -c 'import sys, xml.etree.ElementTree as E
d = [e for e in E.parse(sys.argv[1]).getroot() if e.tag.endswith("desc")]
sys.exit(not d or "One launch: a reading, not a verdict" not in (d[0].text or ""))' "$plots/bands.svg" ||
    fail "bands.svg's <desc> is not its caption"
# nbc-compare's maps under the physical axes: each panel of compare_overhead
# its run's bytes; the difference map the first run's, and the second's on a
# third line where they read differently (here b's bytes made 3x a's)
"$analyze" -q --no-plots "$b" 2>/dev/null || fail "nbc-analyze of $b failed"
python3 - "$b/cells.csv" <<'EOF' || fail "cannot rewrite $b/cells.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    r["bytes"] = str(int(r["bytes"]) * 3)
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
EOF
"$compare" --figure-size=column "$a" "$b" -o "$SCRATCH/cmp3" >/dev/null 2>&1 || fail "nbc-compare of the resized runs failed"
# xtics GP: the first tick's label of each panel
xtics() { sed -n 's/^ *set xtics (\("[^"]*"\).*/\1/p' "$1" | tr '\n' ' '; }
[ "$(xtics "$SCRATCH/cmp3/compare_overhead.gp")" = '"1\n4.1k" "1\n12k" ' ] ||
    fail "compare_overhead's panels do not show their runs' bytes: $(xtics "$SCRATCH/cmp3/compare_overhead.gp")"
[ "$(xtics "$SCRATCH/cmp3/diff_overhead.gp")" = '"1\n4.1k\n12k" ' ] ||
    fail "diff_overhead does not show both runs' bytes: $(xtics "$SCRATCH/cmp3/diff_overhead.gp")"
grep -q '^ *set ytics ("1\\n([0-9]*)"' "$SCRATCH/cmp3/diff_overhead.gp" ||
    fail "diff_overhead's computation axis does not show the GEMM order once (the runs' agree)"
[ "$(xtics "$SCRATCH/cmp/diff_overhead.gp")" = '"1\n4.1k" ' ] ||
    fail "diff_overhead of runs of the same sizes shows them twice: $(xtics "$SCRATCH/cmp/diff_overhead.gp")"

# cell labels fit their cells (cell_labels.py: the font's own widths, the
# cells from the SVG): a run with an unreachable column (its reason
# abbreviated, the caption explaining it), the example's maps, the
# comparisons'; and the PDF's text is the size the SVG states (the cairo
# terminals' 96 dpi text scaled back): the width pdftotext gives a word of
# the x label is that word's at PLOT_FONT_PT (8 pt), within 2 %
font=$(fc-match -f '%{file}' 'DejaVu Sans' 2>/dev/null)
[ -r "$font" ] || font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
if [ -r "$font" ]; then
    u=$SCRATCH/unreachable
    "$synth" --out "$u" --comm-ms 1,2,4,8,16,32 --comp-ms 1,2,4,8,16 --scenario mixed --blocks 12 \
        --unconverged-comm-ms 2 >/dev/null || fail "synth u"
    "$analyze" -q --figure-size=column "$u" 2>/dev/null || fail "nbc-analyze of the unreachable run failed"
    grep -q '^ *[-0-9.]* [-0-9.]* .*"unr\." ' "$u/plots/bands.dat" || fail "the unreachable cells are not labelled unr."
    grep -q "unr.: target unreachable" "$u/plots/bands.caption.txt" || fail "the band caption does not explain unr."
    tests/analysis/cell_labels.py "$font" "$u"/plots/{overhead,concurrency,bands}.svg \
        "$plots"/{overhead,concurrency,bands}.svg "$SCRATCH"/cmp/{compare_overhead,diff_overhead}.svg \
        "$SCRATCH"/cmp3/diff_overhead.svg || fail "a cell label is wider than its cell (above)"
    if command -v pdftotext >/dev/null; then
        word=$(pdftotext -bbox "$u/plots/bands.pdf" - | sed -n 's/.*xMin="\([0-9.]*\)".*xMax="\([0-9.]*\)".*>communication:<.*/\1 \2/p' | head -n 1)
        want=$(tests/analysis/cell_labels.py "$font" --width 8 "communication:")
        awk -v w="$word" -v want="$want" 'BEGIN { split(w, b, " "); got = b[2] - b[1]
            exit !(w != "" && got > 0.98 * want && got < 1.02 * want) }' ||
            fail "the PDF's 8 pt text is not 8 pt: 'communication:' spans $word, expected $want pt wide"
    fi
else
    echo "DejaVu Sans not found: the cell labels' widths are not checked"
fi

# every figure's files carry its title (the caption's first line: what,
# library, deployment) and its caption: the SVG's <title> and <desc>, the
# PDF's Title and Subject, read back by pdfinfo without a complaint
if command -v pdfinfo >/dev/null; then
    for f in "${figures[@]}"; do
        title=$(head -n 1 "$f.caption.txt")
        title=${title%.}
        pdf_title=$(pdfinfo "$f.pdf" 2>"$SCRATCH/pdfinfo.err" | sed -n 's/^Title: *//p')
        [ "$pdf_title" = "$title" ] || fail "$f.pdf's Title is '$pdf_title', expected '$title'"
        [ ! -s "$SCRATCH/pdfinfo.err" ] || fail "pdfinfo complains about $f.pdf: $(cat "$SCRATCH/pdfinfo.err")"
        pdfinfo "$f.pdf" | grep -q "^Subject: *$(sed -n 2p "$f.caption.txt" | cut -c1-40)" ||
            fail "$f.pdf's Subject is not its caption"
        python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
t = [e.text for e in r if e.tag.endswith("title")]
sys.exit(t != [sys.argv[2]])' "$f.svg" "$title" || fail "$f.svg's <title> is not '$title'"
    done
    grep -q 'mpich synthetic 1.0, basic\.$' "$plots/bands.caption.txt" ||
        fail "the band map's title does not name the library and deployment: $(head -n 1 "$plots/bands.caption.txt")"
    head -n 1 "$SCRATCH/cmp/diff_overhead.caption.txt" | grep -q '; .*basic.* vs .*progress' ||
        fail "diff_overhead's title does not name the configurations compared"
else
    echo "pdfinfo is not installed (poppler-utils): the PDF metadata is not checked"
fi

# a page: 7 in; no titles: the multiplot titles are empty
page=$SCRATCH/page
cp -r tests/data/example_run "$page"
"$analyze" -q --figure-size=page --no-titles "$page" 2>/dev/null || fail "nbc-analyze --figure-size=page failed"
sizes=$(svg_text_sizes 504 "$page/plots/overhead.svg" "$page/plots/bands.svg") || fail "cannot read the page SVGs"
awk '$2 != 504 || $3 < 7 - 0.005 { bad = 1 } END { exit bad }' <<<"$sizes" || fail "page figures: $sizes"
grep -q 'set multiplot layout 1,2 title ""' "$page/plots/overhead.gp" ||
    fail "at page width with --no-titles, overhead is not two untitled panels side by side"

# a bad size: exit 2 naming the allowed values, nothing analyzed
bad=$SCRATCH/bad
cp -r tests/data/example_run "$bad"
msg=$("$analyze" -q --figure-size=huge "$bad" 2>&1)
status=$?
[ "$status" -eq 2 ] || fail "--figure-size=huge exited $status, expected 2"
grep -q "figure-size: 'huge' is not allowed (column, page, or WxH" <<<"$msg" || fail "--figure-size=huge said: $msg"
[ ! -e "$bad/cells.csv" ] || fail "a bad --figure-size still analyzed the run"
figure "$(tr '\n' ' ' <<<"${svgs[*]/%.svg/.png}")"
echo "figures for print: ok"
