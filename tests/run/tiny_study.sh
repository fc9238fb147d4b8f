#!/usr/bin/env bash
# A real study through nbc-run, as small as it gets: ibcast, this build's
# library (its profile: launcher and flags), 2 ranks,
# 2 x 2 cells of 1 to 4 ms, 2 repetitions, into a scratch results folder. The
# run folder must hold the driver's files, compute_ref.csv from compute_ref
# with the run's threads, nbc-run.log, and, when the analysis tools are
# built, cells.csv and the PNG figures, all listed at the end of the output.
# compute_ref runs before the sweep (bench_nbc --stop-after calibration, then
# --resume) and after it. The study's archive (nbc-run --archive) unpacks
# with its SHA256SUMS holding, and nbc-analyze on the unpacked run alone
# writes the same cells.csv.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
study_needs
make_scratch

tiny_study 1ms,4ms,4 2
[ $status -eq 0 ] || fail "nbc-run: status $status; its stderr: $(cat "$SCRATCH/stderr")"

dirs=("$SCRATCH"/*-"$MPI"-ibcast-basic)
{ [ ${#dirs[@]} -eq 1 ] && [ -d "${dirs[0]}" ]; } || fail "expected one run folder in $SCRATCH: ${dirs[*]}"
dir=${dirs[0]}
grep -qx "run folder: $dir" <<<"$out" || fail "the run folder is not printed at the end"
for f in meta.json config.ini raw.csv calib_comp.csv calib_comm.csv passive.csv compute_ref.csv nbc-run.log; do
    [ -s "$dir/$f" ] || fail "$dir/$f is missing or empty"
done
[ "$(json "$dir/meta.json" .status)" = complete ] || fail "meta.json status is not complete"
[ "$(json "$dir/meta.json" .deployment)" = basic ] || fail "meta.json: deployment is not basic"
# 2 x 2 cells (sweep.csv), each with (warm-up + 2 blocks) x 3 kinds x 2
# ranks kept (in the last pass of each block: a late attempt redoes the
# whole block), unless it stopped because its redos ran out (stop late: the
# one lateness rule on a loaded machine).
awk -F, 'FILENAME ~ /sweep.csv$/ { if (FNR > 1) stop[$1] = $3; next }
         FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         !pass2 { b = $c["cell"] SUBSEP $c["block"]; if ($c["attempt"] + 0 > last[b]) last[b] = $c["attempt"] + 0; next }
         $c["late"] == 0 && $c["kind"] !~ /_null$/ && $c["attempt"] == last[$c["cell"], $c["block"]] { kept[$c["cell"]]++ }
         END { for (x in stop) { n++; if (kept[x] != 18 && stop[x] != "late") bad = 1 }
               exit bad || n != 4 }' "$dir/sweep.csv" "$dir/raw.csv" pass2=1 "$dir/raw.csv" ||
    fail "raw.csv/sweep.csv: a cell without its 18 kept rows that did not stop late: $(cat "$dir/sweep.csv")"
# compute_ref --run: one row per matrix size and rank of this host, each on
# the rank's threads.
threads=$(json "$dir/meta.json" .threads_per_rank)
# compute_ref ran twice before the sweep (phase aa, the A/A partner of
# phase before) and once after it: 2 sizes x 2 ranks each time.
for phase in aa before after; do
    [ "$(phase_rows "$dir/compute_ref.csv" $phase)" -eq 4 ] ||
        fail "compute_ref.csv: expected 4 rows of phase $phase: $(cat "$dir/compute_ref.csv")"
done
# (one row per step: no other process, size or phase)
[ "$(awk -F, 'NR > 1 && !seen[$2 "," $5 "," $7]++ { n++ } END { print n + 0 }' "$dir/compute_ref.csv")" -eq 12 ] ||
    fail "compute_ref.csv: expected 12 processes x sizes x phases: $(cat "$dir/compute_ref.csv")"
awk -F, -v t="$threads" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["threads"] != t || $c["procs"] != 2 { exit 1 }' "$dir/compute_ref.csv" ||
    fail "compute_ref ran otherwise than the run's 2 ranks of $threads threads: $(cat "$dir/compute_ref.csv")"
grep -q "bench_nbc -c $BENCH_NBC_ROOT/configs/default.conf" "$dir/nbc-run.log" || fail "nbc-run.log lacks the launch command"
# A quiet console (stdout and stderr): no command echoed (the log has them,
# and the calibration's record and the cells table), the run folder said
# once, every line at most 100 columns (the verdict's too) but a label with
# one path (no space to wrap at).
console=$(printf '%s\n' "$out"; cat "$SCRATCH/stderr")
! grep -n '^+ ' <<<"$console" || fail "a command was echoed on the console"
grep -q '^+ .*compute_ref --run' "$dir/nbc-run.log" || fail "nbc-run.log lacks the compute_ref commands"
grep -q '^bench_nbc: computation .* -> n=' "$dir/nbc-run.log" || fail "nbc-run.log lacks the calibration's record"
! grep -q 'bench_nbc: computation .* -> n=' <<<"$console" || fail "the calibration's record is on the console"
[ "$(grep -c " $dir\$" <<<"$console")" -eq 1 ] || fail "the run folder is not printed once: $(grep -n "$dir\$" <<<"$console")"
! grep -q '^# bench_nbc .* cells: ' <<<"$console" || fail "the cells table is on the console"
[ ! -x "$TOOLS_DIR/nbc-analyze" ] || grep -q '^# bench_nbc .* cells: ' "$dir/nbc-run.log" ||
    fail "nbc-run.log lacks the cells table"
wide=$(awk 'NF == 2 && $1 ~ /:$/ { next }
            length($0) > 100 { print }' <<<"$console")
[ -z "$wide" ] || fail "console lines over 100 columns: $wide"
steps=$(grep -c '^bench_nbc: .*calibrat.* [0-9.]* s\b' <<<"$console")
[ "$steps" -eq 1 ] || fail "the calibration's duration is printed $steps times: $console"

if [ -x "$TOOLS_DIR/nbc-analyze" ]; then
    [ -s "$dir/cells.csv" ] || fail "nbc-analyze wrote no cells.csv"
    [ "$(data_rows "$dir/cells.csv")" -eq 4 ] || fail "cells.csv: expected 4 cells"
    [ -s "$dir/impact.csv" ] || fail "no impact.csv although compute_ref.csv is there"
    # The figures counted, not listed (one run: its plots/).
    pngs=$(sed -n 's/^figures: \([0-9]*\) in those folders.*/\1/p' <<<"$out")
    [ "${pngs:-0}" -ge 3 ] || fail "expected the overhead, concurrency and bands figures counted: $out"
    [ "$(find "$dir/plots" -name '*.png' | wc -l)" -eq "$pngs" ] ||
        fail "figures: $pngs counted, $(find "$dir/plots" -name '*.png' | wc -l) PNG files in $dir/plots"
    # The study's archive: verified by its SHA256SUMS once unpacked, and
    # enough to analyse the run again (nbc-analyze on the unpacked folder
    # alone writes the same cells.csv).
    study_dir=$(dirname "$(sed -n 's/^study: //p' <<<"$out")")
    tarball=$(./nbc-run --archive "$study_dir" | sed -n 's/^archive: //p')
    [ "$tarball" = "$study_dir.tar.gz" ] || fail "nbc-run --archive printed '$tarball', expected $study_dir.tar.gz"
    mkdir "$SCRATCH/unpacked"
    tar -xzf "$tarball" -C "$SCRATCH/unpacked" || fail "cannot unpack $tarball"
    top=$SCRATCH/unpacked/$(basename "$study_dir")
    (cd "$top" && sha256sum --quiet -c SHA256SUMS) || fail "the archive's SHA256SUMS do not hold"
    files=$(wc -l <"$top/SHA256SUMS")
    copy=$top/$(basename "$dir")
    [ -f "$top/$(basename "$study_dir")/study.json" ] || fail "the archive lacks study.json"
    { [ -f "$copy/raw.csv" ] && [ -f "$copy/cells.csv" ]; } || fail "the archive lacks the run folder $(basename "$dir")"
    rm -r "$copy/cells.csv" "$copy/plots"
    mv "$SCRATCH/unpacked" "$SCRATCH/moved" # (nothing refers to where it was unpacked)
    copy=$SCRATCH/moved/$(basename "$study_dir")/$(basename "$dir")
    "$TOOLS_DIR/nbc-analyze" --no-plots -q "$copy" || fail "nbc-analyze on the unpacked run: status $?"
    cmp "$dir/cells.csv" "$copy/cells.csv" || fail "cells.csv of the unpacked run differs from the original"
    figure "tiny study (2x2 cells, 2 reps): ${secs} s through nbc-run, $pngs PNG figures; archive of $files files, verified, analysed again alike"
else
    echo "note: $TOOLS_DIR/nbc-analyze is not built: tables and figures not checked"
    figure "tiny study (2x2 cells, 2 reps, no analysis): ${secs} s through nbc-run"
fi
