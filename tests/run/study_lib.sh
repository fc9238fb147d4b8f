# shellcheck shell=bash disable=SC2034 # out, status, secs, study_args, phase_count, table are for the caller
# Sourced by the tests of tests/run/ that run a real study (after tests/lib.sh).

# study_needs: a study of 2 ranks here: skips without 2 cores (a
# busy-polling library would crawl); fails when bench_nbc or compute_ref is
# not built.
study_needs() {
    [ "$(nproc)" -ge 2 ] || skip "2 ranks need 2 cores (a busy-polling library would crawl)"
    local prog
    for prog in bench_nbc compute_ref; do [ -x "$BUILD/$prog" ] || fail "$BUILD/$prog is not built"; done
}

# tiny_args GRID REPS [NBC_RUN_OPTIONS...]: sets study_args, the arguments of
# nbc-run on ibcast with this build (its library profile, $MPI), GRID on both
# axes, REPS repetitions, quick and loose calibrations (every target reached,
# so the cells to expect are known), compute_ref's warm-up short (no test of
# these judges the impact's value), into $SCRATCH, then the options given.
tiny_args() {
    local grid=$1 reps=$2
    shift 2
    study_args=(configs/default.conf --collectives ibcast --mpi "$MPI" --no-deps --no-build
        --build-dir "$BUILD" --tools-dir "$TOOLS_DIR" --set run.results_dir="$SCRATCH"
        --set grid.comm_times="$grid" --set grid.comp_times="$grid" --set run.repetitions="$reps" --set run.half_width=0
        --set clocksync.roundtrips=200 --set clocksync.drift_gap_s=0.2s
        --set calibration.runs_per_point=3 --set calibration.max_iterations=8
        --set calibration.tolerance=0.5 --set run.late_tolerance=0.2 --set run.max_retries=100
        --set run.late_patience_s=0 --set compute.ref_warmup_s=0.2s "$@")
}

# tiny_study GRID REPS [PREFIX...]: nbc-run with tiny_args GRID REPS and the
# options of the array tiny_options (if set); PREFIX runs it (e.g. on the
# namespace nodes). Sets out (its standard output, also shown), status and
# secs (wall time); its standard error goes to $SCRATCH/stderr.
tiny_options=()
tiny_study() {
    local grid=$1 reps=$2 start=$EPOCHREALTIME
    shift 2
    tiny_args "$grid" "$reps" "${tiny_options[@]}"
    out=$(timeout -k 5 "${MPI_TIMEOUT_S:-240}" "$@" ./nbc-run "${study_args[@]}" 2>"$SCRATCH/stderr")
    status=$?
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    echo "$out"
}

# both_phases CSV: compute_ref.csv or passive.csv holds rows of phase before
# and rows of phase after for the same processes (or ranks) and sizes; fails
# otherwise. Sets phase_count: how many rows each phase has.
both_phases() {
    local before after
    before=$(awk -F, -v p=before 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["phase"] == p { print $2, $c["matrix_n"] }' "$1" | sort)
    after=$(awk -F, -v p=after 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["phase"] == p { print $2, $c["matrix_n"] }' "$1" | sort)
    [ -n "$before" ] || fail "$1: no row of phase before: $(cat "$1")"
    [ "$before" = "$after" ] || fail "$1: the phases differ in processes or sizes: $(cat "$1")"
    phase_count=$(wc -l <<<"$before")
}

# phase_rows CSV PHASE: the processes (or ranks) x sizes of compute_ref.csv or
# passive.csv measured in a phase (a row per step: counted once).
phase_rows() {
    awk -F, -v p="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["phase"] == p && !seen[$2 "," $c["matrix_n"]]++ { n++ } END { print n + 0 }' "$1"
}

# data_rows FILE: the lines of a CSV file after its header.
data_rows() { echo $(($(wc -l <"$1") - 1)); }

# kept_rows RAW_CSV: rows of kept attempts (late = 0, in the last pass of
# their block: a late attempt redoes the whole block) of the three main kinds.
kept_rows() {
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             FNR == NR { b = $c["cell"] SUBSEP $c["block"]; if ($c["attempt"] + 0 > last[b]) last[b] = $c["attempt"] + 0; next }
             $c["late"] == 0 && $c["kind"] !~ /_null$/ && $c["attempt"] == last[$c["cell"], $c["block"]] { n++ }
             END { print n + 0 }' "$1" "$1"
}

# study_table STUDY_JSON: the study's tidy table (study.csv, study_columns.json)
# checked against study.json, the runs' cells.csv and docs/formats.md
# (tests/run/check_study_table.py); sets table (what it checked) or fails.
study_table() {
    table=$(python3 "$BENCH_NBC_ROOT/tests/run/check_study_table.py" "$(dirname "$1")" \
        "$BENCH_NBC_ROOT/docs/formats.md" 2>&1) || fail "$table"
    echo "$table"
}

# json FILE FILTER: a value of a JSON file, read with jq.
json() { jq -r "$2" "$1"; }
