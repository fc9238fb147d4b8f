#!/usr/bin/env bash
# nbc-compare on synthetic runs with different grids: only the common cells
# are drawn (with a message), a run without cells.csv is analyzed first,
# summary.csv is well formed and right (its median over every valid cell,
# the overlap share over the certain ones, as it says), the figures over
# the launches come from the study verdict's code (configuration_summary.csv:
# the impact of the largest size, not a median over sizes), two
# runs get a difference map whose differences within the runs' intervals
# are marked not significant (two measurements of one behaviour differ
# nowhere), three runs get none; too few runs or no common cell is bad
# input (exit 2).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
analyze=$TOOLS_DIR/nbc-analyze
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$analyze" "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
make_scratch
a=$SCRATCH/mpich-basic
b=$SCRATCH/openmpi-progress-in-a-folder-named-at-length
"$synth" --out "$a" --comm-ms 1,2,4,8,16,32 --comp-ms 1,2,4,8,16,32 --scenario mixed \
    --blocks 12 || fail "synth a"
"$synth" --out "$b" --comm-ms 2,4,8,16,32,64 --comp-ms 1,2,4,8,16 --scenario overlap \
    --mpi openmpi --deployment progress --no-compute-ref --blocks 12 || fail "synth b"
"$analyze" -q --no-plots "$a" 2>/dev/null || fail "analyzing $a failed"
# impact.csv says why the passive steps are slower: synth_run made the
# excess of node k at size i (1 + k + i %) waiting for the CPU while a
# progress thread ran, so both shares are 1 - 1 / (1.01 + 0.01 (k + i)),
# and r_mpi_impact x (1 - the delay share) is the computation's own
# speed, 1 (within the steps' 0.5 % noise).
python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = sorted({float(r["comp_target_s"]) for r in rows})
assert len(rows) == 12 and len(sizes) == 6, len(rows)
for r in rows:
    k, i = int(r["host"][4:]), sizes.index(float(r["comp_target_s"]))
    want = 1 - 1 / (1.01 + 0.01 * (k + i))
    delay, progress, impact = (float(r[c]) for c in ("passive_delay_share", "passive_progress_cpu_share", "r_mpi_impact"))
    assert abs(delay - want) < 1e-6 and abs(progress - want) < 1e-6, (r["host"], r["comp_target_s"], delay, progress, want)
    assert abs(impact * (1 - delay) - 1) < 0.01, (r["host"], impact, delay)' "$a/impact.csv" ||
    fail "impact.csv's passive shares: $(cat "$a/impact.csv")"
[ ! -e "$b/cells.csv" ] || fail "b should not be analyzed yet"

out=$("$compare" "$a" "$b" -o "$SCRATCH/cmp" 2>"$SCRATCH/err") ||
    fail "nbc-compare failed: $out $(cat "$SCRATCH/err")"
echo "$out"
grep -q "openmpi-progress-in-a-folder-named-at-length has no cells.csv yet: analyzing it first" <<<"$out" ||
    fail "b not analyzed first"
# the printed table stays in line with a folder name longer than the others
# (the header's mpi column starts where each row's library does)
awk '/^run +mpi +deployment/ { col = index($0, " mpi ") + 1; next }
     col && /^[^ ]+ +(mpich|openmpi) / { n++; if (substr($0, col, 3) != "mpi" && substr($0, col, 7) != "openmpi") bad = 1 }
     END { exit bad || n != 2 }' <<<"$out" || fail "the summary table's columns are out of line: $out"
# the summary figures of the table name the cells they are taken over
grep -q "^run .* overlap\* *median_r *worst_r " <<<"$out" || fail "the table's header does not mark its restricted figure"
grep -q "^\* overlap share over the certain cells (valid, interval inside its band: column certain); median and worst r_overhead over every valid cell$" <<<"$out" ||
    fail "the table does not say which cells its figures are taken over"
[ -s "$b/cells.csv" ] || fail "b has no cells.csv after the comparison"
# common: communication 2..32 ms (5) x computation 1..16 ms (5)
grep -q "grids differ: comparing the 25 cells common to all runs" <<<"$out" || fail "no grid message"

summary=$SCRATCH/cmp/summary.csv
[ "$(head -n 1 "$summary")" = "run,mpi,deployment,collective,cells,valid_cells,overlap_share,\
median_r_overhead,worst_r_overhead,worst_comm_target_s,worst_comp_target_s,certain_cells,\
uncertain_cells,configuration,launch" ] ||
    fail "summary.csv header: $(head -n 1 "$summary")"
[ "$(wc -l <"$summary")" -eq 3 ] || fail "summary.csv should have 2 runs"
awk -F, 'NF != 15 { exit 1 }' "$summary" || fail "summary.csv rows do not all have 15 fields"
row_b=$(grep '^openmpi-progress-in-a-folder-named-at-length,' "$summary") || fail "no row for b"
IFS=, read -r _ mpi deployment _ cells valid share median worst _ _ certain uncertain config launch <<<"$row_b"
[ "$mpi" = openmpi ] || fail "b's mpi: $row_b"
[ "$deployment" = progress ] || fail "b's deployment: $row_b"
[ "$config.$launch" = 2.1 ] || fail "b is configuration 2, launch 1: $row_b"
grep -q "one launch, its intervals do not cover launch-to-launch variation" <<<"$out" ||
    fail "one launch per configuration is not said to leave launch-to-launch variation out"
[ "$cells" -eq 25 ] || fail "b: $cells cells compared, expected 25"
[ "$valid" -eq 25 ] || fail "b: $valid valid cells, expected 25"
[ $((certain + uncertain)) -eq "$valid" ] || fail "b: $certain certain + $uncertain uncertain != $valid"
# uncertain: the interval of r_overhead leaves the band of the estimate
bands() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { print $col["overlap"], $col["r_overhead_ci_lo"], $col["r_overhead_ci_hi"] }' "$1"; }
uncertain_in_csv=$(bands "$b/cells.csv" | awk '!($1 == "hidden" && $3 < 0.25)' | wc -l)
[ "$uncertain_in_csv" -eq "$uncertain" ] || fail "b: summary counts $uncertain uncertain cells, cells.csv $uncertain_in_csv"
# b overlaps everywhere; in the corners (32 and 64 ms against 1 and 2 ms)
# the 1 % jitter of the long reference is a large share of the short one:
# r_overhead may be below 0 (imprecision, section 3.1), still in the band
# hidden; never another band
check_float "$share >= 0.8" || fail "b overlaps everywhere, its certain cells' share is $share"
others=$(bands "$b/cells.csv" | awk '$1 != "hidden"' | wc -l)
[ "$others" -eq 0 ] || fail "b has $others cells outside the band hidden"
check_float "$median < 0.1 && $worst < 0.3" || fail "b's r_overhead median $median worst $worst"
# the median over every valid common cell (communication up to 32 ms)
python3 -c 'import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["valid"] == "1" and float(r["comm_target_s"]) <= 0.032]
want = statistics.median(float(r["r_overhead"]) for r in rows)
assert abs(float(sys.argv[2]) - want) <= 1e-5 * max(abs(want), 1e-3), (sys.argv[2], want)' \
    "$b/cells.csv" "$median" || fail "b's median r_overhead $median is not that of every valid cell"
configs=$SCRATCH/cmp/configuration_summary.csv
[ "$(head -n 1 "$configs")" = "configuration,label,launches,cells,confident,confident_overlap,\
suggest_overlap,suggest_none,invalid,comp_target_s,r_mpi_impact,r_mpi_impact_lo,r_mpi_impact_hi,\
aa_lo,aa_hi,cpu_wait_share,estimable" ] || fail "configuration_summary.csv header: $(head -n 1 "$configs")"
IFS=, read -r _ _ _ _ _ _ _ _ _ _ impact _ <<<"$(sed -n 3p "$configs")"
[ "$impact" = nan ] || fail "b has no compute_ref.csv, yet its r_mpi_impact is $impact"
row_a=$(grep '^mpich-basic,' "$summary") || fail "no row for a"
IFS=, read -r _ _ _ _ cells _ share median worst _ <<<"$row_a"
IFS=, read -r _ _ _ _ _ _ _ _ _ largest impact impact_lo impact_hi _ <<<"$(sed -n 2p "$configs")"
[ "$cells" -eq 25 ] || fail "a: $cells cells compared, expected 25"
check_float "$share < 0.5 && $median > 0.5" || fail "a is mostly not overlapping: share $share median $median"
check_float "$worst > 1" || fail "a's worst r_overhead $worst should exceed 1 (contention cells)"
check_float "$impact > 1 && $impact < 1.2" || fail "a's r_mpi_impact $impact"
# the impact at the largest size (32 ms), pooled over the launch's pairs
# by the study's code: above the median over the sizes (synth_run's grows)
python3 -c '
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
largest, impact, lo, hi = (float(v) for v in sys.argv[2:])
assert largest == max(float(r["comp_target_s"]) for r in rows), largest
assert lo <= impact <= hi, (lo, impact, hi)
assert impact > statistics.median(float(r["r_mpi_impact"]) for r in rows) + 0.01, impact' \
    "$a/impact.csv" "$largest" "$impact" "$impact_lo" "$impact_hi" ||
    fail "a's r_mpi_impact $impact [$impact_lo, $impact_hi] at $largest s is not the largest size's"
# summary.txt names the run's impact at its largest size (32 ms; of the two
# hosts the most slowed, impact.csv's row), never a median over the sizes
want=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
top = max(float(r["comp_target_s"]) for r in rows)
r = max((r for r in rows if float(r["comp_target_s"]) == top), key=lambda r: float(r["r_mpi_impact"]))
print("r_MPI_impact (eq. 2) at the largest computation size (%g ms, host %s): %.3g, 95 %% [%.3g, %.3g]; A/A pair"
      % (1e3 * top, r["host"], float(r["r_mpi_impact"]), float(r["r_mpi_impact_ci_lo"]),
         float(r["r_mpi_impact_ci_hi"])))' "$a/impact.csv")
grep -qF "$want" "$a/summary.txt" || fail "a's summary.txt lacks '$want': $(cat "$a/summary.txt")"
! grep -q "median .* over [0-9]* computation sizes" "$a/summary.txt" ||
    fail "a's summary.txt still states a median over the sizes"

data_rows() { grep -cv -e '^#' -e '^$' "$1"; }
for data in compare_overhead_1 compare_overhead_2 diff_overhead; do
    [ "$(data_rows "$SCRATCH/cmp/$data.dat")" -eq 25 ] || fail "$data.dat does not have the 25 common cells"
done
for figure in compare_overhead diff_overhead diff_comm diff_comp_slowdown; do
    for ext in png svg pdf; do [ -s "$SCRATCH/cmp/$figure.$ext" ] || fail "$figure.$ext missing"; done
    [ "$(head -c 4 "$SCRATCH/cmp/$figure.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] || fail "$figure.png"
    [ "$(head -c 5 "$SCRATCH/cmp/$figure.pdf")" = "%PDF-" ] || fail "$figure.pdf"
done
# the per-metric summary of the two configurations
[ "$(wc -l <"$SCRATCH/cmp/summary_differences.csv")" -eq 4 ] || fail "summary_differences.csv: $(cat "$SCRATCH/cmp/summary_differences.csv")"
grep -q '^r_overhead,.*,1,1,25,25,.*,intervals$' "$SCRATCH/cmp/summary_differences.csv" ||
    fail "summary_differences.csv: $(cat "$SCRATCH/cmp/summary_differences.csv")"
# b (all overlap) is better than a wherever a did not overlap: negative
# differences, far beyond the intervals (significant: column 11 is 0)
better=$(grep -v '^#' "$SCRATCH/cmp/diff_overhead.dat" | awk 'NF && $8 == 1 && $7 < -0.5 && $11 == 0' | wc -l)
[ "$better" -ge 5 ] || fail "only $better cells where b is clearly better than a"

# the same behaviour measured twice (another seed of the jitter) under two
# names, so two configurations of one launch each: two 95 % intervals of one
# truth miss each other in about 0.6 % of the cells (both would have to
# miss, on opposite sides), so of 36 cells at most 2 are called
# significant; the others are outlined (column 11), their value unchanged
again=$SCRATCH/mpich-basic-again
"$synth" --out "$again" --comm-ms 1,2,4,8,16,32 --comp-ms 1,2,4,8,16,32 --scenario mixed \
    --blocks 12 --seed 7 --deployment progress || fail "synth again"
"$compare" "$a" "$again" -o "$SCRATCH/same" --no-plots >/dev/null 2>&1 || fail "comparing a run with its repetition failed"
significant=$(grep -v '^#' "$SCRATCH/same/diff_overhead.dat" | awk 'NF && $8 == 1 && $11 == 0' | wc -l)
not_significant=$(grep -v '^#' "$SCRATCH/same/diff_overhead.dat" | awk 'NF && $8 == 1 && $11 == 1 && $9 !~ /\?"$/' | wc -l)
[ "$significant" -le 2 ] || fail "$significant differences between two measurements of one behaviour called significant"
[ $((significant + not_significant)) -eq 36 ] || fail "$significant + $not_significant valid cells, expected 36"
grep -q "Dashed outline: not significant" "$SCRATCH/same/diff_overhead.caption.txt" || fail "the difference map's caption does not say what the outline means"

# three configurations: side by side, no difference map
c=$SCRATCH/third
"$synth" --out "$c" --scenario no_progress --deployment dedicated || fail "synth c"
"$compare" "$a" "$b" "$c" -o "$SCRATCH/cmp3" --no-plots >/dev/null 2>&1 || fail "three-run comparison failed"
[ -s "$SCRATCH/cmp3/compare_overhead_3.dat" ] || fail "third run not drawn"
[ ! -e "$SCRATCH/cmp3/diff_overhead.gp" ] || fail "a difference map for three runs"
[ "$(wc -l <"$SCRATCH/cmp3/summary.csv")" -eq 4 ] || fail "summary of three runs"
[ "$(wc -l <"$SCRATCH/cmp3/configurations.csv")" -eq 4 ] || fail "three configurations: $(cat "$SCRATCH/cmp3/configurations.csv")"

# bad input
"$compare" "$a" -o "$SCRATCH/one" >/dev/null 2>&1
[ $? -eq 2 ] || fail "one run should be refused with exit status 2"
"$compare" "$a" "$b" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a missing -o should exit 2"
far=$SCRATCH/far
"$synth" --out "$far" --comm-ms 100,200 --comp-ms 100,200 --no-compute-ref || fail "synth far"
err=$("$compare" "$a" "$far" -o "$SCRATCH/none" --no-plots 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "disjoint grids should exit 2: $err"
grep -q "no cell in common" <<<"$err" || fail "disjoint grids: $err"

figure "compare: 25 common cells; overlap share a=$share; $better cells better in b; a run against its repetition: $significant of 36 differences significant"
