#!/usr/bin/env bash
# What a journal refuses, checked on nbc-analyze's and nbc-compare's figures:
# - r_overhead's colours run through 0 and 1 without a break (saturated
#   beyond, e2e_palette.sh checks the stops); a triangle marks a cell only
#   where its 95 % interval lies wholly above 1 or below 0, never noise
#   about them; the interval-width map marks every width above its top tick;
# - the outline of an interval leaving its band is seen at print size: it
#   adds black pixels along the cells it marks;
# - a frontier with nothing in the grid is not drawn, plots/not_drawn.txt
#   says why (a line "NAME<TAB>why"), and a later analysis that draws it
#   takes the line out;
# - the library is named as its users know it ("MPICH 4.0.2"), from
#   meta.json's mpi_library_name or, in an older folder, from the raw text;
# - the impact axis is ticked at round ratios, its key names hosts only
#   when there are several;
# - a difference map's title names both sides ("progress - basic").
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
command -v python3 >/dev/null || skip "python3 is not installed"
pixels=tests/analysis/png_pixels.py
make_scratch
run=$SCRATCH/run
cp -r tests/data/example_run "$run"
"$analyze" --figure-size=column "$run" 2>"$SCRATCH/err" >"$SCRATCH/out" ||
    fail "nbc-analyze failed: $(cat "$SCRATCH/err")"
plots=$run/plots

# column COLUMN CSV: the number of a cells.csv column
column() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) print i }' "$2"; }
lo=$(column r_overhead_ci_lo "$run/cells.csv")
hi=$(column r_overhead_ci_hi "$run/cells.csv")
# the cells surely beyond 0..1, as "comm comp +1/-1" (the targets' log2 in ms)
awk -F, -v lo="$lo" -v hi="$hi" 'NR > 1 && $7 == 1 && ($lo > 1 || $hi < 0) {
        printf "%.3f %.3f %d\n", log($2 * 1e3) / log(2), log($3 * 1e3) / log(2), ($lo > 1 ? 1 : -1) }' \
    "$run/cells.csv" | sort >"$SCRATCH/want"
awk '!/^#/ && NF && $12 != 0 { printf "%.3f %.3f %d\n", $1, $2, $12 }' "$plots/overhead.dat" | sort >"$SCRATCH/got"
[ -s "$SCRATCH/want" ] || fail "the example has no cell surely beyond 0..1: the test lost its case"
cmp -s "$SCRATCH/want" "$SCRATCH/got" ||
    fail "overhead.dat marks $(tr '\n' ';' <"$SCRATCH/got"), the intervals beyond 0..1 are $(tr '\n' ';' <"$SCRATCH/want")"
# noise about 1: a value above 1 whose interval reaches below it is not marked
noise=$(awk -F, -v lo="$lo" -v c="$(column r_overhead "$run/cells.csv")" \
    'NR > 1 && $7 == 1 && $c > 1 && $lo <= 1' "$run/cells.csv" | wc -l)
[ "$noise" -gt 0 ] || fail "the example has no r_overhead above 1 with an interval reaching below: the test lost its case"
# the widths: every one above the scale's top (1) marked, no other
awk '!/^#/ && NF && $8 == 1 { if (($7 > 1) != ($12 == 1)) bad = 1; n += $12 == 1 }
    END { exit bad || n == 0 }' "$plots/overhead_ci_width.dat" ||
    fail "overhead_ci_width.dat does not mark exactly the widths above 1"
grep -q "pt 9 ps [0-9.]* lc rgb 'black'" "$plots/overhead.gp" || fail "overhead.gp draws no triangle"

# the outline at print size: the black pixels it adds, against the same
# figure drawn without it, per cell it marks. The rule: a line of 0.5 pt
# (1.4 px at the PNGs' 200 dpi), the thinnest a journal prints, along half
# of an outline 0.76 of a cell 60 px wide: 0.5 x 4 x 0.76 x 60 x 1.4 = 128
# px, asked as 100
marked=$(awk '!/^#/ && NF && $11 == 1' "$plots/overhead.dat" | wc -l)
[ "$marked" -ge 1 ] || fail "the example has no outlined cell"
bare=$SCRATCH/bare
mkdir "$bare"
cp "$plots/overhead.gp" "$bare/"
awk '/^#/ || !NF { print; next } { $11 = 0; $12 = 0; print }' "$plots/overhead.dat" >"$bare/overhead.dat"
(cd "$bare" && gnuplot overhead.gp 2>/dev/null) || fail "gnuplot could not redraw overhead.gp"
black() { python3 "$pixels" "$1" '#000000' --tolerance 40 | awk 'NR == 2 { print $2 }'; }
with=$(black "$plots/overhead.png")
without=$(black "$bare/overhead.png")
figure "overhead.png: $with black pixels, $without without the marks, $marked cells outlined"
[ $((with - without)) -ge $((100 * marked)) ] ||
    fail "the outline adds $((with - without)) black pixels for $marked cells, fewer than 100 a cell"

# at a page's width the pair is one figure again: the column's halves go
page=$SCRATCH/page
cp -r "$run" "$page"
"$analyze" -q --figure-size=page "$page" 2>/dev/null || fail "nbc-analyze --figure-size=page failed"
grep -q 'set multiplot layout 1,2' "$page/plots/overhead.gp" || fail "at a page's width overhead is not two panels"
for half in overhead_ci_width concurrency_slowdown; do
    [ ! -e "$page/plots/$half.png" ] || fail "$half.png of the column's drawing is still there"
done

# nothing to show: the example's rows are none or not determined
[ ! -e "$plots/frontier.png" ] || fail "the example's empty frontier was drawn"
grep -q "^frontier	no communication target has a frontier in the grid" "$plots/not_drawn.txt" ||
    fail "plots/not_drawn.txt does not say why the frontier is not drawn: $(cat "$plots/not_drawn.txt" 2>&1)"
awk -F'\t' 'NF != 2 || $2 == "" { exit 1 }' "$plots/not_drawn.txt" || fail "not_drawn.txt is not NAME<TAB>why lines"
grep -q "figure not drawn" "$SCRATCH/out" || fail "nbc-analyze's report does not say the frontier is not drawn"
front=$SCRATCH/front
"$synth" --out "$front" --comm-ms 1,2,4 --comp-ms 1,2,4,8 --scenario frontier --blocks 12 >/dev/null || fail "synth front"
mkdir -p "$front/plots"
printf 'frontier\tan earlier analysis\n' >"$front/plots/not_drawn.txt"
"$analyze" -q "$front" 2>/dev/null || fail "nbc-analyze of the frontier run failed"
[ -s "$front/plots/frontier.png" ] || fail "the frontier run's frontier was not drawn"
[ ! -e "$front/plots/not_drawn.txt" ] || fail "not_drawn.txt still lists a drawn figure: $(cat "$front/plots/not_drawn.txt")"

# the library's name: the caption's title line after "; "
title_of() { head -n 1 "$1/plots/bands.caption.txt"; }
for case in "MPICH Version:      4.0.2|MPICH 4.0.2" "Open MPI v4.1.4, package: Debian OpenMPI|Open MPI 4.1.4"; do
    raw=${case%|*} want=${case#*|}
    old=$SCRATCH/old_$RANDOM
    cp -r tests/data/example_run "$old"
    python3 - "$old/meta.json" "$raw" <<'EOF' || fail "cannot rewrite meta.json"
import json, sys
meta = json.load(open(sys.argv[1]))
meta["mpi_library_version"] = sys.argv[2]
meta["synthetic"] = False
json.dump(meta, open(sys.argv[1], "w"))
EOF
    "$analyze" -q --no-plots "$old" 2>/dev/null || fail "nbc-analyze of '$raw' failed"
    title_of "$old" | grep -qF "; $want, basic" || fail "'$raw' is titled: $(title_of "$old")"
done
python3 - "$old/meta.json" <<'EOF' || fail "cannot rewrite meta.json"
import json, sys
meta = json.load(open(sys.argv[1]))
meta["mpi_library_name"] = "Open MPI 5.0.3"
json.dump(meta, open(sys.argv[1], "w"))
EOF
"$analyze" -q --no-plots "$old" 2>/dev/null || fail "nbc-analyze with mpi_library_name failed"
title_of "$old" | grep -qF "; Open MPI 5.0.3, basic" || fail "mpi_library_name is not the title's: $(title_of "$old")"

# impact: round ticks, the label its value: at most two significant
# digits (0.75, 1.5), or 1 plus or minus one digit (1.02, 0.98)
ticks=$(sed -n 's/^ *set ytics (\(.*\))$/\1/p' "$plots/impact.gp")
[ -n "$ticks" ] || fail "impact.gp has no ytics"
python3 - "$ticks" <<'EOF' || fail "impact's ticks are not round ratios: $ticks"
import re, sys
pairs = re.findall(r'"([^"]*)" ([0-9.e+-]+)', sys.argv[1])
assert len(pairs) >= 3, pairs
for label, value in pairs:
    assert float(label) == float(value), (label, value)
    def significant(text):
        return len(text.replace(".", "").replace("-", "").lstrip("0").rstrip("0"))
    step = "%.6f" % abs(float(value) - 1)
    assert significant(label) <= 2 or significant(step) <= 1, label
EOF
grep -q 'title "host node0"' "$plots/impact.gp" || fail "two hosts: the key does not name them"
one=$SCRATCH/one_host
cp -r tests/data/example_run "$one"
sed -i 's/^node1,/node0,/' "$one/passive.csv" "$one/compute_ref.csv"
"$analyze" -q "$one" 2>/dev/null || fail "nbc-analyze of the one-host run failed"
! grep -q 'title "node0"\|title "host node0"' "$one/plots/impact.gp" || fail "one host: the key is its name"

# a difference map names both sides
a=$SCRATCH/basic
b=$SCRATCH/progress
"$synth" --out "$a" --comm-ms 1,2 --comp-ms 1,2 --scenario no_progress --blocks 12 >/dev/null || fail "synth a"
"$synth" --out "$b" --comm-ms 1,2 --comp-ms 1,2 --scenario overlap --deployment progress --blocks 12 >/dev/null ||
    fail "synth b"
"$compare" "$a" "$b" -o "$SCRATCH/cmp" >/dev/null 2>&1 || fail "nbc-compare failed"
grep -q 'multiplot layout 1,1 title "r_overhead: progress - basic"' "$SCRATCH/cmp/diff_overhead.gp" ||
    fail "diff_overhead's title: $(grep multiplot "$SCRATCH/cmp/diff_overhead.gp")"
figure "$plots/overhead.png $plots/overhead_ci_width.png $plots/impact.png $SCRATCH/cmp/diff_overhead.png"
echo "journal figures: ok"
