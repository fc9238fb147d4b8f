#!/usr/bin/env bash
# --palette on nbc-analyze and nbc-compare: cividis (the default) and
# viridis colour r_overhead's 0..1 (one scale through both ends, saturated
# beyond them: no colour break at 0 or 1) and the interval widths, ratio and difference maps are Paul Tol's sunset and the
# bands schema/classes.def's colours; labels turn white on the dark end of
# the sequential part only; the PNGs show the palette's colours (the colour
# box's ends) and not the paper's; --palette=paper keeps section 5.2's
# colours; an unknown name is bad input.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
pixels=tests/analysis/png_pixels.py
for tool in "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
command -v python3 >/dev/null || skip "python3 is not installed (it reads the PNGs)"
make_scratch
a=$SCRATCH/mpich-basic
b=$SCRATCH/openmpi-progress
"$synth" --out "$a" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --scenario mixed --blocks 12 || fail "synth a"
"$synth" --out "$b" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --scenario overlap --mpi openmpi \
    --deployment progress --no-compute-ref --blocks 12 || fail "synth b"

# an unknown name: exit 2, the allowed names said, nothing written
msg=$("$analyze" -q --palette=rainbow "$a" 2>&1)
status=$?
[ "$status" -eq 2 ] || fail "--palette=rainbow exited $status, expected 2"
grep -q "palette: 'rainbow' is not allowed (one of cividis, viridis, paper)" <<<"$msg" ||
    fail "--palette=rainbow said: $msg"
[ ! -e "$a/cells.csv" ] || fail "a bad --palette still analyzed the run"

viridis="(0 '#440154', 1 '#482878', 2 '#3e4a89', 3 '#31688e', 4 '#26828e', 5 '#1f9e89', \
6 '#35b779', 7 '#6dcd59', 8 '#b4de2c', 9 '#fde725')"
cividis="(0 '#00204d', 1 '#00336f', 2 '#39486b', 3 '#575c6d', 4 '#707173', 5 '#8a8779', \
6 '#a69d75', 7 '#c4b56c', 8 '#e4cf5b', 9 '#ffea46')"
# palettes_of FILE...: the distinct palettes the scripts define
palettes_of() { sed -n 's/^ *set palette defined //p' "$@" | sort -u; }

# the default is cividis, colour-blind safe; --palette=paper keeps section 5.2's colours
cp -r "$a" "$SCRATCH/default"
"$analyze" -q "$SCRATCH/default" 2>/dev/null || fail "nbc-analyze (default palette) failed"
palettes_of "$SCRATCH/default/plots/overhead.gp" | grep -qxF "$cividis" || fail "the default interval widths are not cividis"
grep -q "#1a9850" "$SCRATCH/default/plots/overhead.gp" && fail "the default r_overhead map uses the paper's green"
cp -r "$a" "$SCRATCH/paper"
"$analyze" -q --palette=paper "$SCRATCH/paper" 2>/dev/null || fail "nbc-analyze --palette=paper failed"
grep -q "(-1 '#3b6fd4', 0 '#1a9850', 1 '#ffe030', 2 '#d73027')" "$SCRATCH/paper/plots/overhead.gp" ||
    fail "--palette=paper lost section 5.2's r_overhead colours"

"$analyze" -q --palette=viridis "$a" 2>/dev/null || fail "nbc-analyze --palette=viridis failed"
plots=$a/plots
# r_overhead: viridis' ten stops on 0..1 and nothing else (no band of
# another colour beyond 0 or 1); the interval widths (their own figure at a
# column's width): viridis itself; the ratios: sunset on a log scale
found=$(palettes_of "$plots/overhead.gp")
[ "$found" = "$viridis" ] || fail "r_overhead is not viridis alone: $found"
[ "$(sed -n 's/^ *set cbrange //p' "$plots/overhead.gp" | head -n 1)" = "[0:1]" ] ||
    fail "r_overhead's scale is not 0..1: $(grep cbrange "$plots/overhead.gp")"
found=$(palettes_of "$plots"/overhead*.gp)
grep -qxF "$viridis" <<<"$found" || fail "the interval widths are not viridis: $found"
found=$(palettes_of "$plots/concurrency.gp")
grep -q "^(-1.5 '#364b9a'.*1.5 '#a50026')$\|^(-1 '#364b9a'.*1 '#a50026')$" <<<"$found" || fail "the ratio maps are not sunset: $found"
# the bands: schema/classes.def's colours (Paul Tol's bright), the grey of invalid
classes=$(grep -o "lc rgb '#[0-9A-Fa-f]\{6\}' title" "$plots/bands.gp" | grep -o "#[0-9A-Fa-f]*" | sort -u)
[ -n "$classes" ] || fail "bands.gp draws no band"
for colour in $classes; do
    case $colour in
    "#4477AA" | "#66CCEE" | "#EE6677" | "#7f7f7f") ;;
    *) fail "band colour $colour is not one of schema/classes.def's" ;;
    esac
done
grep -qE "#4477AA|#66CCEE|#EE6677" <<<"$classes" || fail "no band drawn in its colour: $classes"
# labels: white on the dark (low) 43 % of viridis' 0..1 and below 0, black above
awk '!/^#/ && $8 == 1 {
        white = $10 == 16777215; dark = $7 <= 0.43
        if (white != dark) { print "cell " $1 "," $2 " value " $7 " label colour " $10; bad = 1 }
        n++; w += white }
    END { if (n == 0 || w == 0 || w == n) { print n " cells, " w " white"; bad = 1 } exit bad }' \
    "$plots/overhead.dat" || fail "r_overhead label colours do not follow viridis' dark end"
# the PNG: viridis' two ends (the colour box), none of the default's green and yellow
read -r width height variance < <(python3 "$pixels" "$plots/overhead.png" | head -n 1)
figure "overhead.png ${width}x${height}, grey variance $variance"
counts=$(python3 "$pixels" "$plots/overhead.png" '#440154' '#fde725' '#1a9850' '#ffe030' | tail -n +2)
echo "$counts"
awk '($1 == "#440154" || $1 == "#fde725") && $2 < 50 { exit 1 }
     ($1 == "#1a9850" || $1 == "#ffe030") && $2 > 0 { exit 1 }' <<<"$counts" ||
    fail "overhead.png does not show viridis (and only it): $counts"

# nbc-compare: cividis side by side, differences in Tol's sunset
out=$("$compare" --palette=cividis "$a" "$b" -o "$SCRATCH/cmp" 2>&1) || fail "nbc-compare failed: $out"
found=$(palettes_of "$SCRATCH/cmp/compare_overhead.gp")
[ "$found" = "$cividis" ] || fail "compare_overhead defines: $found"
for metric in overhead comm comp_slowdown; do
    found=$(palettes_of "$SCRATCH/cmp/diff_$metric.gp")
    grep -q "^(-1 '#364b9a'.*0 '#eaeccc'.*1 '#a50026')$" <<<"$found" ||
        fail "diff_$metric is not Paul Tol's sunset: $found"
done
counts=$(python3 "$pixels" "$SCRATCH/cmp/diff_overhead.png" '#364b9a' '#a50026' | tail -n +2)
echo "diff_overhead.png: $counts"
# each end of the colour box is at least one of its rows: the box is about
# 0.1 in wide, 20 pixels at the PNGs' 200 dpi
awk '$2 < 20 { exit 1 }' <<<"$counts" || fail "diff_overhead.png lacks sunset's ends: $counts"
figure "$plots/overhead.png $SCRATCH/cmp/diff_overhead.png"
echo "palettes: ok"
