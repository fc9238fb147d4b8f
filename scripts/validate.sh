#!/usr/bin/env bash
# Validation against known answers: runs the four synthetic collectives
# (perfect overlap, no progress, computation slowdown, and the collective
# that completes in the background in a share of its blocks; rank k works
# (1 + k/10) times the size, so spans and slowest ranks are exercised) on 2
# ranks through the whole pipeline (clocks, barrier, calibration, sweep,
# metrics) and judges every cell by its numbers against the known truth
# (scripts/validate_judge.py, which derives each; docs/collectives.md,
# "Synthetic collectives"):
#   synthetic_perfect       r_overhead 0
#   synthetic_serial        r_overhead 1 (loaded: 1 or more)
#   synthetic_intermittent  at run.background_share = 0.75 (above 1/2:
#                           the median block is a background one) r_overhead 0
#   synthetic_steal         r_comp_slowdown up to 1 + d/t_comp_ref, d the
#                           slowest rank's stolen CPU time (exactly that with
#                           real-time priority on a quiet machine)
# A valid cell is right when its estimate, or its 95 % interval widened by
# the bound (0.15 for r_overhead, 0.1 for r_comp_slowdown), meets the truth,
# and WRONG otherwise, whatever its class: a wrong value is never excused
# as uncertain or off target. A cell the analysis could not measure (valid
# 0, with its invalid_reason) is counted apart. The script fails on one
# wrong cell, or a collective without a valid cell: one run, no second
# chance. Prints the per-cell tables, one summary per collective and the
# total, with how many right cells are decisive (their interval excludes
# the other answer too: right by the value, not by a wide interval).
#
#   scripts/validate.sh [--quick] [--mpi auto|PROFILE] [--results DIR] [--hog [cpu:N]]
# --quick: a 2 x 2 grid (the version `make check` runs); default 3 x 3, 2 to 8 ms.
# --hog (or VALIDATE_HOG=1; --hog cpu:N or VALIDATE_HOG=cpu:N pins it to
# core N): one CPU-bound process runs beside the whole validation, started
# here and killed when the script ends however it ends. The truths still
# hold: a loaded machine may make cells invalid (counted apart), never
# wrong.
# 12 blocks a cell at least, and more as the driver's stopping rule asks for
# them, as configs/default.conf runs it (up to 40 blocks or 3 s a cell:
# analysis/README.md, "Stopping").
# No null controls (run.null_share = 0): they test the intervals' coverage,
# which the validation does not read, and a block holding them runs 6 kinds
# in a pass where a plain one runs 3. Beside a CPU-bound process a third
# to a half of the attempts are late; a pass of 6 is then whole and on time
# in 2 to 9 % of the tries against 12 to 30 % for 3.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

mpi=auto grid=2ms,8ms,2 reps=12 max_reps=40 half_width=0.1 cell_budget=3s results="" hog=${VALIDATE_HOG:-}
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) grid=2ms,4ms,2 reps=12; shift ;;
    --mpi) mpi=${2:?--mpi needs auto or a profile name}; shift 2 ;;
    --results) results=${2:?--results needs a folder}; shift 2 ;;
    --hog)
        if [[ ${2:-} == cpu:* ]]; then hog=$2; shift 2; else hog=1; shift; fi ;;
    *) echo "validate.sh: unknown argument '$1' (allowed: --quick, --mpi auto|PROFILE, --results DIR, --hog [cpu:N])" >&2; exit 2 ;;
    esac
done
if ! [[ $hog =~ ^(|0|1|cpu:[0-9]+)$ ]]; then
    echo "validate.sh: VALIDATE_HOG / --hog '$hog' (allowed: 0 or empty = none, 1 = one CPU-bound process, cpu:N = pinned to core N)" >&2
    exit 2
fi
[ "$hog" = 0 ] && hog=""
# The build (BUILD and TOOLS_DIR from make, else make's default build) and
# its launcher with the flags its library profile needs here.
build=${BUILD:-$(make -s --no-print-directory print-build-dir)} tools=${TOOLS_DIR:-build}
fields=$("$tools/nbc-profile" shell --build "$build") || { echo "validate.sh: build $build and $tools first (make)" >&2; exit 2; }
eval "$fields"
# shellcheck disable=SC2154 # assigned by the eval
launch=("${MPIEXEC:-$mpi_launcher}" "${launch_flags[@]}" "${oversubscribe_flags[@]}" "${nobind_flags[@]}")
# shellcheck disable=SC2154
[ "$(id -u)" -eq 0 ] && launch+=("${root_flags[@]}")
bench=$build/bench_nbc analyze=$tools/nbc-analyze
# Sanitized builds (make SAN=1 check): LeakSanitizer's tracer can crash at
# the exit of MPI programs; leaks are checked by valgrind on the plain build.
[ -n "${SAN:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
for tool in "$bench" "$analyze"; do
    [ -x "$tool" ] || { echo "validate.sh: $tool is not built (run make)" >&2; exit 2; }
done
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_validate.XXXXXX")
mkdir -p "$results" || exit 2

# The CPU-bound neighbour: a shell loop, pinned with taskset when asked; its
# process id is killed on every way out of this script.
hog_pid=""
stop_hog() { [ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null && wait "$hog_pid" 2>/dev/null; hog_pid=""; }
if [ -n "$hog" ]; then
    trap stop_hog EXIT
    trap 'stop_hog; exit 130' INT TERM
    if [ "$hog" = 1 ]; then
        sh -c 'while :; do :; done' &
    else
        command -v taskset >/dev/null || { echo "validate.sh: --hog $hog needs taskset (util-linux)" >&2; exit 2; }
        taskset -c "${hog#cpu:}" sh -c 'while :; do :; done' &
    fi
    hog_pid=$!
    echo "validate.sh: a CPU-bound process (pid $hog_pid$([ "$hog" = 1 ] || echo ", ${hog/:/ }")) runs beside the validation"
fi

# The judge reads cells.csv's columns by the schema's names (schema_doc).
schema="$results/schema.json"
"$tools/schema_doc" --json >"$schema" || { echo "validate.sh: build $tools/schema_doc first (make)" >&2; exit 2; }
realtime=0
[ "$(id -u)" -eq 0 ] && realtime=1
# synthetic_intermittent's share of background starts: far enough above 1/2
# that the median block is a background one in a cell of 12 blocks or more
background_share=0.85
failed=0
summary=()
# check_collective COLL: one run of COLL and its per-cell table; 0 when
# every cell has the known answer, 1 when not, 2 when a tool failed.
check_collective() {
    local coll=$1 out dir
    out=$(timeout 600 "${launch[@]}" -n 2 "$bench" --set run.results_dir="$results" \
        --set run.mpi="$mpi" --set run.collective="$coll" --set grid.comm_times="$grid" \
        --set grid.comp_times="$grid" --set run.repetitions="$reps" \
        --set run.max_repetitions="$max_reps" --set run.half_width="$half_width" \
        --set run.cell_budget_s="$cell_budget" --set run.null_share=0 \
        --set run.background_share="$background_share" 2>&1) || {
        echo "$out"
        echo "validate.sh: $coll: bench_nbc failed" >&2
        return 2
    }
    dir=$(sed -n 's/^bench_nbc: run folder //p' <<<"$out")
    "$analyze" -q "$dir" || { echo "validate.sh: nbc-analyze failed on $dir" >&2; return 2; }
    python3 scripts/validate_judge.py --collective "$coll" --schema "$schema" \
        --share "$background_share" --loaded "$([ -n "$hog" ] && echo 1 || echo 0)" \
        --realtime "$realtime" "$dir/cells.csv" >"$results/$coll.table"
    local status=$?
    [ $status -eq 2 ] && { cat "$results/$coll.table"; return 2; }
    head -n -1 "$results/$coll.table"
    LAST_SUMMARY=$(tail -n 1 "$results/$coll.table")
    return $status
}

for coll in synthetic_perfect synthetic_serial synthetic_intermittent synthetic_steal; do
    check_collective "$coll"
    status=$?
    [ $status -eq 2 ] && exit 1
    [ $status -eq 0 ] || failed=1
    summary[${#summary[@]}]=$LAST_SUMMARY
done
printf '%s\n' "${summary[@]}"
# The total over the collectives, from their summaries.
total_cells=0 total_right=0 total_invalid=0 total_wrong=0 total_decisive=0
pattern=':\ ([0-9]+)\ cells:\ right\ ([0-9]+),\ invalid\ ([0-9]+),\ wrong\ ([0-9]+);\ decisive\ ([0-9]+)'
for line in "${summary[@]}"; do
    if [[ $line =~ $pattern ]]; then
        total_cells=$((total_cells + BASH_REMATCH[1])) total_right=$((total_right + BASH_REMATCH[2]))
        total_invalid=$((total_invalid + BASH_REMATCH[3])) total_wrong=$((total_wrong + BASH_REMATCH[4]))
        total_decisive=$((total_decisive + BASH_REMATCH[5]))
    fi
done
echo "total: $total_cells cells: right $total_right, invalid $total_invalid, wrong $total_wrong; decisive $total_decisive of the right"
echo "run folders in $results"
if [ $failed -ne 0 ]; then
    echo "validate.sh: FAILED: the pipeline does not give the known answers here" >&2
    exit 1
fi
echo "validate.sh: every known answer found"
