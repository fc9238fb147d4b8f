#!/usr/bin/env bash
# The console of a study as `make run` shows it: configs/study-default.conf
# (ibcast, deployments auto: basic and the second one the build's library
# has) through nbc-run, its standard output and error into one file as in
# a batch job (a terminal shows the same), 2 ranks, 2 x 2 cells, 2
# launches. Asserted on the whole console: no command echoed (a line
# starting with "+ "), no line over 100 columns (but a label and a path),
# no cells table (it is in each run's nbc-run.log and cells.csv), each run
# folder named on one line ("run folder: DIR"; the figures listed are files
# in it), bench_nbc's progress at most a line every 10 s of a sweep plus its
# last cell's, one calibration line a launch with one duration (the shared
# sizes' path in the log only). The verdict lines' numbers are the study's
# tables': each configuration's counts those of verdict.csv, its impact and
# interval impact.csv's largest size, the same as the comparison's
# configuration_summary.csv and its printed table.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
command -v jq >/dev/null || skip "reads study.json with jq (apt-get install jq)"
for tool in nbc-analyze nbc-compare nbc-verdict; do
    [ -x "$TOOLS_DIR/$tool" ] || fail "$TOOLS_DIR/$tool is not built"
done
make_scratch

tiny_args 1ms,2ms,2 2 --launches 2
study_args[0]=configs/study-default.conf
# nbc-run as in a batch job, standard output and error into one log (a
# terminal shows the same lines).
start=$EPOCHREALTIME
timeout -k 5 "${MPI_TIMEOUT_S:-240}" ./nbc-run "${study_args[@]}" >"$SCRATCH/console" 2>&1
status=$?
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
console=$(cat "$SCRATCH/console")
echo "$console"
[ $status -eq 0 ] || fail "nbc-run: status $status"
study=$(sed -n 's/^study: //p' <<<"$console")
[ -f "$study" ] || fail "no study.json listed at the end"
q() { jq -r "$1" "$study"; }
[ "$(q '.runs | length')" = 4 ] || fail "study.json: $(q '.runs | length') runs, expected 2 deployments x 2 launches"

! grep -n '^+ ' <<<"$console" || fail "a command was echoed on the console"
# (but a label and one path, which has no space to wrap at: the scratch
# folder's paths are longer than a study's results/...)
wide=$(awk 'NF == 2 && $1 ~ /:$/ { next } length($0) > 100 { print NR ": " $0 }' <<<"$console")
[ -z "$wide" ] || fail "console lines over 100 columns: $wide"
! grep -nE '^# bench_nbc .* cells: |^# end of cells: |^# +cell +comm_target_ms ' <<<"$console" ||
    fail "a cells table on the console"
for i in 0 1 2 3; do
    dir=$(q ".runs[$i].run_dir")
    [ -d "$dir" ] || fail "run $i: no run folder $dir"
    # (DIR not followed by "/": the folder itself, not a file in it)
    named=$(grep -nE "$dir([^/]|\$)" <<<"$console")
    if [ "$named" != "$(grep -nx "run folder: $dir" <<<"$console")" ] || [ "$(wc -l <<<"$named")" != 1 ]; then
        fail "run folder $dir is not named on one 'run folder:' line: $named"
    fi
    grep -q '^# bench_nbc .* cells: ' "$dir/nbc-run.log" || fail "$dir/nbc-run.log lacks the cells table"
    [ "$i" = 0 ] || grep -q "not calibrated here" "$dir/nbc-run.log" || fail "$dir/nbc-run.log lacks the shared sizes' record"
done
! grep -q "not calibrated here" <<<"$console" || fail "the shared sizes' record is on the console"

# (a line continues on the lines indented under it)
flat=$(unwrap <<<"$console")
[ "$(grep -cE '^bench_nbc: calibrated in [0-9.]+ s( \(sizes of run\.calibration_from\))?; next: ' \
    <<<"$flat")" = 4 ] || fail "not one calibration line a launch: $(grep '^bench_nbc: ' <<<"$flat")"
[ "$(grep -E '^bench_nbc: .*calibrat' <<<"$flat" | grep -cE '[0-9] s\b.*[0-9] s\b')" = 0 ] ||
    fail "a calibration line with two durations: $(grep -E '^bench_nbc: .*calibrat' <<<"$flat")"
# Progress: in each sweep, lines 10 s apart (elapsed rounded to 1 s: 9 or
# more), its last the last cell's.
progress=$(awk '/^bench_nbc: cell [0-9]+\/[0-9]+ / {
        split($3, k, "/"); e = $0; sub(/.*elapsed /, "", e); e += 0
        if (k[1] + 0 <= last_k) { if (last_k != last_n) bad = bad " sweep ended at " last_k "/" last_n; shown = 0 }
        else if (shown && e - last_e < 9) bad = bad " " $3 " " e - last_e " s after the one before"
        if (length($0) > 100) bad = bad " a line of " length($0) " columns"
        last_k = k[1] + 0; last_n = k[2] + 0; last_e = e; shown = 1; sweeps += (k[1] + 0 == k[2] + 0) }
    END { if (last_k != last_n) bad = bad " the last sweep ended at " last_k "/" last_n
          print sweeps + 0 bad }' <<<"$flat")
[ "$progress" = 4 ] || fail "bench_nbc's progress: $progress: $(grep '^bench_nbc: cell ' <<<"$flat")"

# The verdict's numbers are the tables'.
study_dir=$(dirname "$study")
cmp=$(q '.comparisons[0]')
grep '^verdict: ' <<<"$flat" >"$SCRATCH/verdicts"
checked=$(python3 - "$study_dir" "$cmp" "$SCRATCH/verdicts" <<'PY'
import csv, os, re, sys
study, cmp, said_file = sys.argv[1:]
lines = open(said_file).read().splitlines()
rows = lambda path: list(csv.DictReader(open(path)))
verdict, impact = rows(os.path.join(study, "verdict.csv")), rows(os.path.join(study, "impact.csv"))
summary = rows(os.path.join(cmp, "configuration_summary.csv"))
printed = open(os.path.join(cmp, "nbc-compare.log")).read()
deps = sorted({r["deployment"] for r in verdict})
assert len(deps) == 2 and len(lines) == 2, (deps, lines)
said = []
for dep in deps:
    line = [x for x in lines if re.match(r"verdict: .*, ibcast, %s[ :]" % dep, x)]
    assert len(line) == 1, (dep, lines)
    line = line[0]
    cells = [r for r in verdict if r["deployment"] == dep]
    conf = sum(r["confident"] == "1" for r in cells)
    assert re.search(r"\b%d of %d cells confirmed|confirmed in %d of %d cells" % (
        conf, len(cells), conf, len(cells)), line), (conf, len(cells), line)
    assert "over 2 launches" in line, line
    top = [r for r in impact if r["deployment"] == dep and r["largest"] == "1"]
    assert len(top) == 1, top
    top = top[0]
    imp, lo, hi = (float(top[k]) for k in ("r_mpi_impact", "r_mpi_impact_lo", "r_mpi_impact_hi"))
    assert "at the largest computation size (%g ms)" % (1e3 * float(top["comp_target_s"])) in line, line
    want = r"%.2f(x slower beside the idle library)? \[%.2f, %.2f\]" % (imp, lo, hi)
    assert re.search(want, line), (want, line)
    assert "A/A band [%.2f, %.2f]" % (float(top["aa_lo"]), float(top["aa_hi"])) in line, line
    # the comparison's table: the same figures
    row = [r for r in summary if r["label"].split()[2] == dep]
    assert len(row) == 1, summary
    row = row[0]
    assert (int(row["cells"]), int(row["confident"])) == (len(cells), conf), row
    for k in ("comp_target_s", "r_mpi_impact", "r_mpi_impact_lo", "r_mpi_impact_hi", "aa_lo", "aa_hi"):
        assert float(row[k]) == float(top[k]), (dep, k, row[k], top[k])
    shown = "%.2f [%.2f, %.2f] at %g ms" % (imp, lo, hi, 1e3 * float(top["comp_target_s"]))
    assert shown in printed, (shown, printed)
    said.append("%s %d/%d confirmed, impact %.2f [%.2f, %.2f]" % (dep, conf, len(cells), imp, lo, hi))
print("; ".join(said))
PY
) || fail "the verdict's numbers are not the tables': $checked"
figure "the console of a 2-launch default study: $(wc -l <<<"$console") lines, none over 100 columns, no command, no cells table, each run folder once (${secs} s); verdicts as verdict.csv, impact.csv and nbc-compare: $checked"
