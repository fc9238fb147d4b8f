#!/usr/bin/env bash
# The known answer of a scenario (scenario_synthetic_mix: synthetic_perfect
# and synthetic_serial, each of weight 1, in flight together) on 2 ranks,
# compute.kernel = sleep, a 2 x 2 grid. The perfect part ends during the
# computation when t_comp >= half the scenario's time T; the serial part
# then runs in the wait, so with s = 1/2 the serial part's share of T
# (docs/collectives.md, "Scenarios"):
#   t_overlap       = max(t_comp, (1 - s) T) + s T
#   r_overhead      = (t_overlap - max(T, t_comp)) / min(T, t_comp)   (eq. 1)
#   r_comm          = (max(0, (1 - s) T - t_comp) + s T) / T          (eq. 4)
#   r_comp_slowdown = 1 (nothing runs on the CPU during the computation)
# with T and t_comp the cell's references (t_comm_ref, t_comp_ref). Bounds:
# scripts/validate.sh's 0.15 for r_overhead and r_comm (the estimate, or its
# 95 % interval, within it), tests/driver/e2e_skewed_ranks.sh's 0.03 for
# r_comp_slowdown of the perfect overlap. As in scripts/validate.sh, a cell
# the analysis could not measure (invalid: late, unreachable) is counted
# apart and one it flags (a reference more than 25 % off its target: the
# machine slowed that cell's references) is shown but not judged; at least
# one cell must be judged, and every judged cell must hold the answer.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
command -v jq >/dev/null || skip "needs jq (apt-get install jq)"
out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
    --set compute.kernel=sleep --set run.late_tolerance=0.1 --set run.max_retries=100 \
    --set run.collective=scenario_synthetic_mix --set grid.comm_times=2ms,4ms,2 \
    --set grid.comp_times=4ms,8ms,2 --set run.repetitions=8 2>&1) ||
    fail "scenario_synthetic_mix failed: $out"
dir=$(run_folder "$out")
[ "$(meta_value "$dir" synthetic)" = true ] || fail "meta.json: the synthetic scenario is not synthetic"
"$TOOLS_DIR/nbc-analyze" -q "$dir" >/dev/null 2>&1 || fail "nbc-analyze failed on $dir"
result=$(awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    function off(value, lo, hi, want, bound) {
        if ((value - want) ^ 2 <= bound ^ 2) return 0
        return !(lo - bound <= want && hi + bound >= want)
    }
    {
        n++
        if ($c["valid"] != 1) { print "an invalid cell (counted apart): " $c["invalid_reason"]; next }
        flagged = $c["comm_off_target"] == 1 || $c["comp_off_target"] == 1
        T = $c["t_comm_ref"]; C = $c["t_comp_ref"]; s = 0.5
        ov = (C > (1 - s) * T ? C : (1 - s) * T) + s * T
        want_o = (ov - (T > C ? T : C)) / (T < C ? T : C)
        want_c = ((1 - s) * T - C > 0 ? (1 - s) * T - C : 0) / T + s
        printf "comm %g ms x comp %g ms: r_overhead %.3f (answer %.3f), r_comm %.3f (%.3f), r_comp_slowdown %.3f (1)%s\n",
            $c["comm_target_s"] * 1e3, $c["comp_target_s"] * 1e3, $c["r_overhead"], want_o,
            $c["r_comm"], want_c, $c["r_comp_slowdown"], flagged ? ", flagged: not judged" : ""
        if (flagged) next
        judged++
        if (off($c["r_overhead"], $c["r_overhead_ci_lo"], $c["r_overhead_ci_hi"], want_o, 0.15)) bad = 1
        if (off($c["r_comm"], $c["r_comm_ci_lo"], $c["r_comm_ci_hi"], want_c, 0.15)) bad = 1
        if (off($c["r_comp_slowdown"], $c["r_comp_slowdown_ci_lo"], $c["r_comp_slowdown_ci_hi"], 1, 0.03)) bad = 1
        e = $c["r_overhead"] - want_o; if (e < 0) e = -e
        if (e > worst) worst = e
    }
    END { printf "%d of %d cells judged, worst r_overhead error %.3f\n", judged, n, worst; exit bad || n != 4 || judged < 1 }' "$dir/cells.csv")
status=$?
echo "$result"
# The figures' titles name the scenario (nbc-analyze reads meta.json's collective)
# and every figure's title names each part (a subtitle built from meta.json's
# scenario): in the drawn title (gnuplot script) and the file's title (the
# caption's first line, the SVG's <title>).
grep -qs "scenario_synthetic_mix" "$dir"/plots/*.gp || fail "no figure of $dir/plots names the scenario"
mapfile -t parts < <(jq -r '.scenario[].collective' "$dir/meta.json")
[ ${#parts[@]} -eq 2 ] || fail "meta.json lists ${#parts[@]} parts, expected 2"
figures=0
for gp in "$dir"/plots/*.gp; do
    base=${gp%.gp}
    figures=$((figures + 1))
    for part in "${parts[@]}"; do
        grep -E '^ *set (multiplot .*)?title ' "$gp" | grep -qF "$part (S)" ||
            fail "$(basename "$gp"): no drawn title names the part '$part (S)'"
        head -n 1 "$base.caption.txt" | grep -qF "$part (S)" ||
            fail "$(basename "$base").caption.txt: its title line lacks the part '$part (S)'"
    done
    if [ -f "$base.svg" ]; then
        grep -o '<title>[^<]*</title>' "$base.svg" | head -n 1 | grep -qF "${parts[1]} (S)" ||
            fail "$(basename "$base").svg: its <title> lacks the part '${parts[1]} (S)'"
    fi
done
[ $figures -ge 4 ] || fail "only $figures figures in $dir/plots (overhead, concurrency, diagnosis, frontier at least)"
[ $status -eq 0 ] || fail "scenario_synthetic_mix off its known answer ($dir)"
figure "scenario_synthetic_mix on 2 ranks, sleep kernel, 2 x 2 cells: $(tail -n 1 <<<"$result")"
