#!/usr/bin/env bash
# Known answers on 4 ranks whose work is skewed: rank k computes and
# communicates (1 + k/10) times as long (compute.kernel = sleep, the synthetic
# collectives), so the slowest rank and every rank's own time differ, and a
# statistic that mixed a span over ranks with one rank's time would show it.
#   synthetic_perfect: nothing disturbs the computation: r_comp_slowdown
#                      1.00 +- 0.03 in every valid cell;
#   synthetic_steal:   the slowest rank loses d = (1 + 3/10) S to the
#                      operation: r_comp_slowdown = 1 + d / t_comp_ref +- 0.05.
# The sleep kernel needs no CPU, so 4 ranks fit on fewer cores when the
# library yields the CPU while it waits (its profile's busy_polls = false).
# Their exits from the window barrier are then scheduled, late by tens of
# us: a looser lateness tolerance (10 %) keeps the cells, and lateness does
# not bias r_comp_slowdown, which each rank times on its own clock (t2..t3).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
command -v jq >/dev/null || skip "needs jq (apt-get install jq)"
ranks=4
cores=$(nproc)
if [ "$cores" -lt $ranks ] && [ "$(build_field busy_polls)" != 0 ]; then
    skip "$MPI busy-polls while it waits: $ranks ranks on $cores cores would measure its polling (a library that yields, e.g. Open MPI, or $ranks cores needed)"
fi

# The host's steal time over all CPUs (/proc/stat, in USER_HZ ticks): a
# virtual CPU the hypervisor takes wakes its sleeping ranks late, which no
# known answer of the sleep kernel allows for.
steal_ticks() { awk '$1 == "cpu" { print $9 + 0 }' /proc/stat 2>/dev/null || echo 0; }
all_ticks() { awk '$1 == "cpu" { s = 0; for (i = 2; i <= 9; i++) s += $i; print s }' /proc/stat 2>/dev/null || echo 0; }

# run_case COLL: a 2 x 2 grid of COLL on 4 ranks; prints the run folder and
# records the share of CPU time the host stole meanwhile in $SCRATCH/steal.
run_case() {
    local out steal0 all0
    steal0=$(steal_ticks) all0=$(all_ticks)
    out=$(mpi_launch -n $ranks "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
        --set compute.kernel=sleep --set run.late_tolerance=0.1 --set run.max_retries=100 \
        --set run.collective="$1" --set grid.comm_times=2ms,4ms,2 \
        --set grid.comp_times=4ms,8ms,2 --set run.repetitions=12 2>&1) || {
        echo "$out"
        fail "$1 on $ranks ranks failed"
    }
    awk -v s="$(($(steal_ticks) - steal0))" -v a="$(($(all_ticks) - all0))" \
        'BEGIN { printf "%.4f\n", (a > 0 ? s / a : 0) }' >"$SCRATCH/steal"
    local dir
    dir=$(run_folder "$out")
    "$TOOLS_DIR/nbc-analyze" -q "$dir" >/dev/null 2>&1 || fail "nbc-analyze failed on $dir"
    echo "$dir"
}

# check COLL FOLDER: every cell valid, on 4 ranks, r_comp_slowdown within its
# bound of the answer; prints the worst error.
check() {
    awk -F, -v coll="$1" -v ranks=$ranks '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        {
            n++
            if ($c["ranks"] != ranks) { print coll ": a cell on " $c["ranks"] " ranks"; bad = 1 }
            if ($c["valid"] != 1) { print coll ": an invalid cell: " $c["invalid_reason"]; bad = 1; next }
            s = $c["r_comp_slowdown"]
            if (coll == "synthetic_steal") {
                want = 1 + $c["bytes"] * (1 + (ranks - 1) / 10) * 1e-9 / $c["t_comp_ref"]; bound = 0.05
            } else {
                want = 1; bound = 0.03
            }
            err = s - want; if (err < 0) err = -err
            if (err > worst) worst = err
            printf "%s comm %g ms x comp %g ms: r_comp_slowdown %.3f, answer %.3f\n", coll,
                $c["comm_target_s"] * 1e3, $c["comp_target_s"] * 1e3, s, want
            if (err > bound) bad = 1
        }
        END {
            printf "worst %.3f\n", worst
            exit bad || n != 4
        }' "$2/cells.csv"
}

for coll in synthetic_perfect synthetic_steal; do
    dir=$(run_case $coll) || exit 1
    out=$(check $coll "$dir")
    status=$?
    echo "$out"
    steal=$(cat "$SCRATCH/steal")
    # Above 1 % of the CPUs' time stolen, the answer is not one the sleep
    # kernel can give (a quiet virtual machine here: 0.1-0.2 %).
    if [ $status -ne 0 ] && check_float "$steal > 0.01"; then
        skip "$coll: the host took $(awk -v s="$steal" 'BEGIN { printf "%.1f", 100 * s }') % of the CPUs' time during the run (steal, /proc/stat): the sleeping ranks woke late; r_comp_slowdown off its answer: $(tail -n 1 <<<"$out")"
    fi
    [ $status -eq 0 ] || fail "$coll on $ranks skewed ranks: r_comp_slowdown off its answer (host steal $steal of the CPU time)"
    figure "$coll on $ranks ranks skewed 1 + k/10, sleep kernel: r_comp_slowdown worst error $(tail -n 1 <<<"$out" | cut -d' ' -f2) (host steal $steal of the CPU time)"
done
