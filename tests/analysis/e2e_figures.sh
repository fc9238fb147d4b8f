#!/usr/bin/env bash
# nbc-analyze on the committed example run (copied to a scratch folder, the
# repository is never written): every table and figure is produced, the
# figures are valid PNG/SVG/PDF drawn from one data row per cell of the grid,
# the unreachable cells (no rows in raw.csv) stay in the table and are drawn
# as invalid, a re-run gives the same table, and without gnuplot the metrics
# are still written with an install hint.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
[ -x "$analyze" ] || fail "$analyze is not built"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
make_scratch
run=$SCRATCH/run
cp -r tests/data/example_run "$run"

"$analyze" "$run" >"$SCRATCH/out" 2>"$SCRATCH/err" ||
    fail "nbc-analyze failed: $(cat "$SCRATCH/out" "$SCRATCH/err")"
cat "$SCRATCH/out"

expected_header="collective,comm_target_s,comp_target_s,bytes,matrix_n,blocks,valid,t_comm_ref,t_comp_ref,\
t_measured,t_call,t_comp,t_wait,r_overhead,r_comm,r_comp_slowdown,r_overhead_iqr,\
overlap_osu_pct,overlap_imb_pct,late_attempts,invalid_reason,cell,ranks,start_skew_s,attempts,\
late_share,tolerance_ns,t_mpi,t_comm_ref_local,t_comp_ref_local,t_measured_local,\
comm_target_error,comp_target_error,comm_off_target,comp_off_target,r_overhead_ci_lo,\
r_overhead_ci_hi,r_comm_ci_lo,r_comm_ci_hi,r_comp_slowdown_ci_lo,r_comp_slowdown_ci_hi,\
r_overhead_mean,r_overhead_mean_ci_lo,r_overhead_mean_ci_hi,r_overhead_p90,\
r_overhead_outlier_share,r_overhead_bimodality,r_overhead_bimodal,comm_null_blocks,\
comm_null_ratio,comm_null_ci_lo,comm_null_ci_hi,comp_null_blocks,comp_null_ratio,\
comp_null_ci_lo,comp_null_ci_hi,bootstrap_seed,stop,r_mpi_impact,r_mpi_impact_ci_lo,\
r_mpi_impact_ci_hi,compute_delay_share,interference,library_cpu_share,r_comm_local_wait,\
r_comm_local_wait_ci_lo,r_comm_local_wait_ci_hi,overlap,class,ended_block_share,\
ended_block_share_ci_lo,ended_block_share_ci_hi,foreign_wait_s"
header=$(head -n 1 "$run/cells.csv")
[ "$header" = "$expected_header" ] || fail "cells.csv header is '$header'"
cells=$(($(wc -l <"$run/cells.csv") - 1))
[ "$cells" -eq 36 ] || fail "cells.csv has $cells cells, expected 36 (6 x 6)"
awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$run/cells.csv" || fail "cells.csv rows differ in field count"
by_rank=$(($(wc -l <"$run/cells_by_rank.csv") - 1))
[ "$by_rank" -eq 60 ] || fail "cells_by_rank.csv has $by_rank rows, expected 30 measured cells x 2 ranks"
impact=$(($(wc -l <"$run/impact.csv") - 1))
[ "$impact" -eq 12 ] || fail "impact.csv has $impact rows, expected 2 hosts x 6 sizes"
# eq. 2 per step: each row's 95 % interval holds its estimate; the example
# has the phase before only (r_mpi_impact = r_mpi_impact_before)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    !($c["r_mpi_impact_ci_lo"] <= $c["r_mpi_impact"] && $c["r_mpi_impact"] <= $c["r_mpi_impact_ci_hi"]) ||
    $c["phases"] != "before" || $c["r_mpi_impact"] != $c["r_mpi_impact_before"] || $c["passive_steps"] != 5 { bad = 1 }
    END { exit bad }' "$run/impact.csv" || fail "impact.csv intervals: $(cat "$run/impact.csv")"
# the example's passive.csv predates the scheduler's counters: it is read,
# and the shares made of them are nan
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["passive_delay_share"] != "nan" || $c["passive_progress_cpu_share"] != "nan" { bad = 1 }
    END { exit bad || NR != 13 }' "$run/impact.csv" || fail "impact.csv shares of a passive.csv without counters: $(cat "$run/impact.csv")"

# the unconverged 2 ms communication target: 6 cells raw.csv lacks, listed
# as invalid and unreachable
invalid=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["valid"] == 0 && $col["overlap"] == "invalid" && $col["invalid_reason"] == "unreachable"' \
    "$run/cells.csv" | wc -l)
[ "$invalid" -eq 6 ] || fail "$invalid unreachable cells, expected 6"
awk -F, 'NR > 1 && $2 == 0.002 && $7 != 0 { exit 1 }' "$run/cells.csv" || fail "a 2 ms cell is valid"
# every valid cell reads the band of its r_overhead as one launch; of the
# 30, 29 have their interval (3 blocks) inside the band
column() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) print i }' "$run/cells.csv"; }
band=$(column overlap)
class=$(column class)
[ "$(awk -F, -v c="$class" 'NR > 1 && $7 == 1 && $c == "one_launch"' "$run/cells.csv" | wc -l)" -eq 30 ] ||
    fail "not every valid cell of the 30 reads one_launch"
for name in hidden none invalid; do
    awk -F, -v p="$band" -v c="$name" 'NR > 1 && $p == c { found = 1 } END { exit !found }' \
        "$run/cells.csv" || fail "no cell whose band is $name in the mixed example"
done
grep -q '29 of 30 valid cells. intervals inside their band; off target (flagged): 0$' "$run/summary.txt" ||
    fail "summary.txt does not count the readings: $(cat "$run/summary.txt")"
[ "$(grep -c '^null-control coverage: none' "$run/summary.txt")" -eq 2 ] ||
    fail "the example has no null controls: summary.txt should say so twice"

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_pdf() { [ "$(head -c 5 "$1")" = "%PDF-" ]; }
is_svg() {
    grep -q '<svg' "$1" && grep -q '</svg>' "$1" || return 1
    if command -v xmllint >/dev/null; then xmllint --noout "$1"; fi
}
for figure in overhead concurrency bands impact; do
    [ -s "$run/plots/$figure.gp" ] || fail "plots/$figure.gp missing"
    is_png "$run/plots/$figure.png" || fail "plots/$figure.png is not a PNG"
    is_pdf "$run/plots/$figure.pdf" || fail "plots/$figure.pdf is not a PDF"
    is_svg "$run/plots/$figure.svg" || fail "plots/$figure.svg is not SVG"
done
data_rows() { grep -cv -e '^#' -e '^$' "$1"; }
for data in overhead overhead_ci_width r_comm r_comp_slowdown bands; do
    rows=$(data_rows "$run/plots/$data.dat")
    [ "$rows" -eq "$cells" ] || fail "plots/$data.dat has $rows cells, expected $cells"
done
# a cell whose interval leaves its band is marked on every value map by a
# dashed outline (column 11), its value printed as it is, no '?'
for data in overhead overhead_ci_width r_comm r_comp_slowdown; do
    marked=$(grep -v '^#' "$run/plots/$data.dat" | awk 'NF && $11 == 1 && $9 !~ /\?"$/' | wc -l)
    [ "$marked" -eq 1 ] || fail "plots/$data.dat marks $marked cells outside their band, expected 1"
done
# shellcheck disable=SC2016 # gnuplot's column references, not shell
grep -q 'using ($11==1?$1:NaN).*fs empty.*dt (3,2)' "$run/plots/overhead.gp" || fail "uncertain cells are not outlined"
! grep -q 'fs transparent pattern 7' "$run/plots/overhead.gp" || fail "uncertain cells are still hatched over their value"
# the band map shows the band of r_overhead (cells.csv overlap) in every
# measured cell: each valid cell's label is its band's, and a dashed
# outline (column 9 = 0) marks the one whose interval leaves the band; the
# key counts it
dat=$run/plots/bands.dat
declare -A short=([hidden]=HID [partial]=PAR [none]=NO)
for name in "${!short[@]}"; do
    want=$(awk -F, -v p="$band" -v c="$name" 'NR > 1 && $7 == 1 && $p == c' "$run/cells.csv" | wc -l)
    got=$(grep -v '^#' "$dat" | awk -v l="\"${short[$name]}\"" 'NF && $7 == l' | wc -l)
    [ "$got" -eq "$want" ] || fail "bands.dat labels $got cells ${short[$name]}, cells.csv has $want $name"
done
spanning=$(grep -v '^#' "$dat" | awk 'NF && $9 == 0' | wc -l)
[ "$spanning" -eq 1 ] || fail "bands.dat marks $spanning cells outside their band, expected 1"
grep -q 'title "interval leaves the band (1 of 30)"' "$run/plots/bands.gp" || fail "the key does not count the cells outside their band"
# one mark, one rule, on every map: the same outline (a dashed black line
# on a wider white one, seen on the darkest and the lightest colour) where
# the interval leaves the band
outline() { grep -o "fs empty lc rgb '[a-z]*' [^,]*" "$1" | sed 's/ \(no\)\{0,1\}title.*//' | sort -u; }
[ -n "$(outline "$run/plots/bands.gp")" ] || fail "bands.gp draws no outline"
[ "$(outline "$run/plots/overhead.gp")" = "$(outline "$run/plots/bands.gp")" ] ||
    fail "the outline differs between the maps: $(outline "$run/plots/overhead.gp") / $(outline "$run/plots/bands.gp")"
for style in "fs empty lc rgb 'white' lw 3" "fs empty lc rgb 'black' dt (3,2) lw 1.5"; do
    grep -qF "$style" "$run/plots/bands.gp" ||
        fail "the outline is not a dashed black line on a white one ($style): $(outline "$run/plots/bands.gp")"
done
grep -q 'One launch: a reading, not a verdict' "$run/plots/bands.caption.txt" ||
    fail "the band map does not say it is one launch"
# at the default column width the reason is abbreviated, the caption says how
[ "$(grep -v '^#' "$dat" | awk 'NF && $7 == "\"unr.\""' | wc -l)" -eq 6 ] ||
    fail "the band map does not give the unreachable cells their reason"
grep -q "unr.: target unreachable" "$run/plots/bands.caption.txt" ||
    fail "the band caption does not explain its abbreviation"
drawn_invalid=$(grep -v '^#' "$run/plots/overhead.dat" | awk 'NF && $8 == 0 && $9 == "\"unr.\""' | wc -l)
[ "$drawn_invalid" -eq 6 ] || fail "overhead.dat marks $drawn_invalid cells unreachable, expected 6"
grep -q "fs transparent pattern 4" "$run/plots/overhead.gp" || fail "invalid cells are not hatched"
[ "$(data_rows "$run/plots/impact.dat")" -eq 12 ] || fail "impact.dat does not have 12 bars"
[ ! -e tests/data/example_run/cells.csv ] || fail "the repository's example folder was written to"

# a reference 60 % over its target (cell 14's comm_ref stretched 1.6x): a
# flag, the cell keeps its band on the map, annotated with the time
# reached
off=$SCRATCH/off_target
cp -r tests/data/example_run "$off"
awk -F, -v OFS=, 'NR > 1 && $1 == 14 && $9 == "comm_ref" { $17 = $14 + int(($17 - $14) * 1.6) } { print }' \
    tests/data/example_run/raw.csv >"$off/raw.csv"
"$analyze" -q --no-plots "$off" 2>/dev/null || fail "nbc-analyze of the off-target copy failed"
flag=$(column comm_off_target)
cell=$(column cell)
[ "$(awk -F, -v f="$flag" -v c="$cell" 'NR > 1 && $c == 14 { print $f }' "$off/cells.csv")" = 1 ] ||
    fail "cell 14 is not flagged comm_off_target: $(awk -F, -v c="$cell" 'NR > 1 && $c == 14' "$off/cells.csv")"
# (abbreviated to fit the cell at the default column width)
grep -v '^#' "$off/plots/bands.dat" | awk 'NF && $10 == "\"c6.4\"" { n++ } END { exit n != 1 }' ||
    fail "the off-target cell is not a band annotated 'c6.4': $(grep -v '^#' "$off/plots/bands.dat" | awk '$10 != "\"\""')"
grep -q "(c: communication, p: computation, in ms)" "$off/plots/bands.caption.txt" ||
    fail "the band caption does not explain the abbreviated note"

# re-running on an analyzed folder gives the same table
cp "$run/cells.csv" "$SCRATCH/cells.first"
"$analyze" -q --no-plots "$run" 2>/dev/null || fail "second analysis failed"
cmp -s "$run/cells.csv" "$SCRATCH/cells.first" || fail "a re-run changed cells.csv"

# without gnuplot: tables and scripts written, figures not, install hint shown
nog=$SCRATCH/nognuplot
cp -r tests/data/example_run "$nog"
PATH=/nonexistent "$analyze" "$nog" >/dev/null 2>"$SCRATCH/err_nog" ||
    fail "nbc-analyze without gnuplot failed: $(cat "$SCRATCH/err_nog")"
grep -q 'apt-get install gnuplot-nox' "$SCRATCH/err_nog" || fail "no install hint: $(cat "$SCRATCH/err_nog")"
[ -s "$nog/cells.csv" ] || fail "no cells.csv without gnuplot"
[ -s "$nog/plots/overhead.gp" ] || fail "no gnuplot script written without gnuplot"
[ ! -e "$nog/plots/overhead.png" ] || fail "a figure appeared without gnuplot"

classes=$(awk -F, -v b="$band" 'NR > 1 { n[$b]++ } END { for (c in n) printf "%s=%d ", c, n[c] }' "$run/cells.csv")
figure "example run: $cells cells ($classes), figures $(stat -c %s "$run/plots/overhead.png") B overhead.png"
