# shellcheck shell=bash
# Helpers for the driver's tests (sourced after tests/lib.sh).
BENCH=$BUILD/bench_nbc
[ -x "$BENCH" ] || fail "$BENCH is not built"

# Settings that keep a test run short: small clock calibration and few runs
# per calibration point. Tests add their grid and collective.
# shellcheck disable=SC2034 # used by the scripts that source this file
# A loose calibration tolerance (30 %): a test's cells must run whatever
# this machine's noise does to the sizes (a target missed makes its cells
# unmeasured, and a run without a measured cell exits 5); tests of the
# calibration set their own.
# No pauses in a burst of lateness either: a run that shares its cores
# with a busy progress thread (thread, dedicated on one core) can be late
# for good, and would pause run.late_patience_s per cell; e2e_late_patience.sh
# tests the pauses.
QUICK=(--set clocksync.roundtrips=200 --set clocksync.drift_gap_s=0.2s
       --set calibration.runs_per_point=3 --set calibration.tolerance=0.3 --set run.late_patience_s=0)

# run_folder OUTPUT: the run folder bench_nbc announced on stdout.
run_folder() { sed -n 's/^bench_nbc: run folder //p' <<<"$1" | head -n 1; }

# meta_value FOLDER KEY: a top-level value of meta.json (read with jq).
meta_value() { jq -r --arg k "$2" 'if has($k) then .[$k] else empty end' "$1/meta.json"; }

RAW_HEADER=cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,block,role,kind,attempt,seq,wall_start_s,rank,t1_ns,t2_ns,t3_ns,t4_ns,deadline_ns,exit_late_ns,tolerance_ns,late,start_skew_ns,foreign_wait_ns

# check_raw FOLDER KEPT: raw.csv has its header, KEPT rows of kept attempts
# (late = 0, in the last pass of their block: a late attempt redoes the
# whole block) of the three main kinds, 22 fields on every row and
# t1 <= t2 <= t3 <= t4.
check_raw() {
    local raw=$1/raw.csv
    [ -f "$raw" ] || fail "no raw.csv in $1"
    [ "$(head -n 1 "$raw")" = "$RAW_HEADER" ] || fail "raw.csv header: $(head -n 1 "$raw")"
    local kept
    kept=$(awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                    FNR == NR { b = $c["cell"] SUBSEP $c["block"]; if ($c["attempt"] + 0 > last[b]) last[b] = $c["attempt"] + 0; next }
                    $c["late"] == 0 && $c["kind"] !~ /_null$/ && $c["attempt"] == last[$c["cell"], $c["block"]] { n++ }
                    END { print n + 0 }' "$raw" "$raw")
    [ "$kept" -eq "$2" ] || fail "raw.csv has $kept kept rows, expected $2"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; columns = NF; next }
             NF != columns || $c["t1_ns"] > $c["t2_ns"] || $c["t2_ns"] > $c["t3_ns"] || $c["t3_ns"] > $c["t4_ns"] { print "bad row " NR ": " $0; bad = 1 }
             END { exit bad }' "$raw" || fail "raw.csv rows out of order in $1"
}

# cells_whole FOLDER BLOCKS RANKS: how many cells raw.csv holds, failing when
# a cell lacks a kept attempt of some (block, main kind) on some rank (in
# the last pass of the block), unless it ran out of redos (an attempt at
# run.max_retries, late). BLOCKS counts
# the warm-up; BLOCKS "sweep": each cell's measured blocks from sweep.csv
# (adaptive repetitions), plus the warm-up, and one row there per cell.
cells_whole() {
    local retries
    # No cell measured because calibration could reach none (meta.json says
    # so): nothing to be whole.
    if [ ! -f "$1/sweep.csv" ] && [ -n "$(meta_value "$1" cells_unreachable)" ] &&
        [ "$(meta_value "$1" cells_unreachable)" = "$(meta_value "$1" cells_total)" ]; then
        echo "$1: every cell unreachable, none measured" >&2
        echo 0
        return 0
    fi
    retries=$(meta_value "$1" max_retries)
    awk -F, -v blocks="$2" -v ranks="$3" -v retries="$retries" '
        FILENAME ~ /sweep.csv$/ { if (FNR > 1) { if ($1 in runs) bad = 1; runs[$1] = $2 + 1 }; next }
        FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; columns = NF; raw++; next }
        raw == 1 { b = $c["cell"] SUBSEP $c["block"]; if ($c["attempt"] + 0 > last[b]) last[b] = $c["attempt"] + 0; next }
        NF != columns { bad = 1 }
        { cell[$c["cell"]] = 1 }
        $c["late"] == 0 && $c["kind"] !~ /_null$/ && $c["attempt"] == last[$c["cell"], $c["block"]] { kept[$c["cell"]]++ }
        $c["late"] == 1 && $c["attempt"] == retries { stopped[$c["cell"]] = 1 }
        END {
            for (x in cell) {
                want = blocks == "sweep" ? runs[x] : blocks
                if (blocks == "sweep" && !(x in runs)) bad = 1
                if (kept[x] != want * 3 * ranks && !stopped[x]) bad = 1
                k++
            }
            if (blocks == "sweep") for (x in runs) if (!(x in cell)) bad = 1
            if (bad) exit 1
            print k + 0
        }' "$1/sweep.csv" "$1/raw.csv" "$1/raw.csv"
}

# no_leftovers: no bench_nbc process of this test's results folder remains.
no_leftovers() {
    sleep 0.5
    if pgrep -f "bench_nbc.*$1" >/dev/null; then
        pgrep -af "bench_nbc.*$1"
        fail "bench_nbc processes left behind"
    fi
}

# preload_list SHIM: sets PRELOAD, the LD_PRELOAD value that puts a test's
# shim into the build's programs; a sanitized build needs the ASan runtime
# first in it (skips when it cannot be found).
# shellcheck disable=SC2034 # PRELOAD is for the scripts that source this file
preload_list() {
    [ -f "$1" ] || fail "$1 is not built (make check builds it)"
    PRELOAD=$1
    if [ -n "${SAN:-}" ]; then
        local asan
        asan=$(${CC:-cc} -print-file-name=libasan.so)
        [ -f "$asan" ] || skip "SAN=1: the ASan runtime for the shim's preload was not found ($asan)"
        PRELOAD=$asan:$1
    fi
}

# build_library: this build's library as tests/datacheck/lib_datacheck.sh's
# known_bug takes it (source that file first), or empty when datacheck_run
# is not built (then no collective counts as a known bug).
build_library() {
    [ -x "$BUILD/tests/datacheck/datacheck_run" ] || return 0
    library_of "$BUILD/tests/datacheck/datacheck_run"
}

# one_cell NAME CHECK [ARGS...]: one 1 ms x 1 ms cell of NAME on 2 ranks,
# one block, run.check=CHECK, loose calibration and lateness tolerances (the
# cell is about data and files, and must run whatever size is reached);
# prints bench_nbc's output, exits with its status.
one_cell() {
    local name=$1 check=$2
    shift 2
    mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
        --set run.collective="$name" --set grid.comm_times=1ms --set grid.comp_times=1ms \
        --set run.repetitions=1 --set run.check="$check" --set calibration.tolerance=0.9 \
        --set run.late_tolerance=0.2 --set run.max_retries=100 "$@" 2>&1
}

# start_hogs [N [FILE PATTERN]]: N CPU-bound processes (1 by default) on
# each CPU this shell may use (taskset), their pids in HOGS; stopped by
# stop_hogs, and at the test's exit. With FILE and PATTERN each hog also
# stops by itself once FILE holds a line matching PATTERN (grep -E, looked
# for every 200 turns of its loop, a fraction of a millisecond): sooner
# than a watcher that shares the CPUs with the hogs. Each in a session of
# its own: where the kernel shares a CPU between sessions first
# (sched_autogroup), a launcher that starts its ranks in a session of their
# own (MPICH's hydra) would otherwise get half of each CPU against all the
# hogs together.
start_hogs() {
    local cpus cpu i
    cpus=$(taskset -pc $$ | sed 's/.*: //')
    HOGS=()
    while read -r cpu; do
        for ((i = 0; i < ${1:-1}; i++)); do
            # shellcheck disable=SC2016 # $1, $2 and $i are the hog's
            taskset -c "$cpu" setsid sh -c 'while :; do i=0; while [ $i -lt 200 ]; do i=$((i + 1)); done
                [ -z "$1" ] || ! grep -qE -- "$2" "$1" 2>/dev/null || exit 0; done' hog "${2:-}" "${3:-}" &
            HOGS+=($!)
        done
    done < <(awk -v list="$cpus" 'BEGIN { n = split(list, r, ","); for (i = 1; i <= n; i++) { m = split(r[i], e, "-"); for (c = e[1]; c <= (m > 1 ? e[2] : e[1]); c++) print c } }')
    trap hogs_exit EXIT
}
stop_hogs() { [ ${#HOGS[@]} -eq 0 ] || kill "${HOGS[@]}" 2>/dev/null || true; }
hogs_exit() {
    local status=$?
    stop_hogs
    keep_scratch_on_failure $status
}
