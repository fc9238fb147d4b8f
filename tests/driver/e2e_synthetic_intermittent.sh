#!/usr/bin/env bash
# The known answer of synthetic_intermittent on 2 ranks, compute.kernel =
# sleep, a 2 x 1 grid (comm 2 and 8 ms x comp 4 ms), at two shares: q = 0.85
# of its starts complete in the background and q = 0.15 (far enough from
# 1/2 that the other regime is practically never the majority of 16
# overlap steps). Its truth (bench_nbc/collectives/synthetic.c,
# docs/collectives.md) from eq. 1 on
# median spans: a background block spans max(T_comp, T_comm), a held one
# T_comp + T_comm, so
#   q > 1/2: r_overhead 0, r_comm max(0, 1 - T_comp / T_comm)
#   q < 1/2: r_overhead 1, r_comm 1
# with T_comm and T_comp the cell's references. Bound: scripts/validate.sh's
# 0.15 (the estimate, or its 95 % interval, within it). A cell the analysis
# could not measure (valid 0) is counted apart; at least one cell of each
# share must be judged, and every judged cell must hold its answer. The two
# answers are 1 apart: a collective that ignored run.background_share fails
# one of the two runs.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
bad=0
for share in 0.85 0.15; do
    out=$(mpi_launch -n 2 "$BENCH" "${QUICK[@]}" --set run.results_dir="$SCRATCH" \
        --set compute.kernel=sleep --set run.late_tolerance=0.1 --set run.max_retries=100 \
        --set run.collective=synthetic_intermittent --set run.background_share="$share" \
        --set grid.comm_times=2ms,8ms,4 --set grid.comp_times=4ms,4ms,2 \
        --set run.repetitions=16 2>&1) || fail "synthetic_intermittent at share $share failed: $out"
    dir=$(run_folder "$out")
    "$TOOLS_DIR/nbc-analyze" -q "$dir" >/dev/null 2>&1 || fail "nbc-analyze failed on $dir"
    result=$(python3 - "$dir/cells.csv" "$share" <<'PY'
import csv, sys
path, share = sys.argv[1], float(sys.argv[2])
bound = 0.15
def holds(row, name, want):
    value = float(row[name])
    lo, hi = float(row[name + "_ci_lo"]), float(row[name + "_ci_hi"])
    return abs(value - want) <= bound or lo - bound <= want <= hi + bound
judged = wrong = cells = 0
with open(path, newline="") as f:
    for row in csv.DictReader(f):
        cells += 1
        where = "comm %g ms x comp %g ms" % (float(row["comm_target_s"]) * 1e3,
                                            float(row["comp_target_s"]) * 1e3)
        if row["valid"] != "1":
            print("%s: invalid (counted apart): %s" % (where, row["invalid_reason"]))
            continue
        t_comm, t_comp = float(row["t_comm_ref"]), float(row["t_comp_ref"])
        want_o = 0.0 if share > 0.5 else 1.0
        want_c = max(0.0, 1 - t_comp / t_comm) if share > 0.5 else 1.0
        ok = holds(row, "r_overhead", want_o) and holds(row, "r_comm", want_c)
        judged += 1
        wrong += not ok
        print("%s: r_overhead %.3f [%.3f, %.3f] (answer %g), r_comm %.3f (%.3f): %s" % (
            where, float(row["r_overhead"]), float(row["r_overhead_ci_lo"]),
            float(row["r_overhead_ci_hi"]), want_o, float(row["r_comm"]), want_c,
            "ok" if ok else "WRONG"))
print("share %g: %d of %d cells judged, %d wrong" % (share, judged, cells, wrong))
sys.exit(1 if wrong or judged < 1 or cells != 2 else 0)
PY
)
    status=$?
    echo "$result"
    [ $status -eq 0 ] || bad=1
    figure "synthetic_intermittent on 2 ranks, sleep kernel, 2 cells: $(tail -n 1 <<<"$result")"
done
[ $bad -eq 0 ] || fail "synthetic_intermittent off its known answer"
