#!/usr/bin/env bash
# MPI impact (equation 2): with no progress thread, the GEMM step inside MPI
# (passive.csv) takes what the same step takes in compute_ref, a program
# without MPI: r_MPI_impact near 1 (no interval beyond a factor of 1.5;
# the value a figure).
# Every passive step carries its threads' scheduler counters, and
# impact.csv the shares made of them.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
[ -x "$TOOLS_DIR/nbc-analyze" ] || fail "$TOOLS_DIR/nbc-analyze is not built"
# One run and its reference, as a study runs them, in an ABBA order
# (analysis/README.md, "MPI impact"): bench_nbc up to its calibration (no
# passive step), compute_ref before the sweep, then --resume: the passive
# step, the sweep, the passive step again, and compute_ref after: ref,
# passive | sweep | passive, ref. compute_ref measures without MPI under the
# passive step's conditions (one process per rank on that rank's CPUs, all
# at once, the same warm-up, repetitions and statistic).
#
# Both measure their sizes in rounds, one step of each size a round, so a
# slow spell of the machine lands on a few steps of every size rather than
# on all the steps of one: a shim (LD_PRELOAD) logs each dgemm's n per
# process into one log, with a line between the phases; the passive steps
# are each resumed process's first steps of the sizes and its last calls,
# compute_ref's its last:
# the warm-up round and the 12 rounds, n1 n2 n1 n2 ...
# The sweep's lateness is not what is checked here: the tests' loose rule
# (kept for --resume in the run's config.ini), so a sanitized or busy run
# cannot stop both cells late (under SAN=1 both once were, at a 10 us
# tolerance).
preload_list "$BENCH_NBC_ROOT/$BUILD/tests/compute/libdgemm_order_shim.so"
log=$SCRATCH/dgemm.log
mark() { echo "phase $1" >>"$log"; }
out=$(mpi_launch -n 2 env LD_PRELOAD="$PRELOAD" DGEMM_ORDER_LOG="$log" \
    "$BENCH" "${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=2ms --set grid.comp_times=4ms,16ms,4 --set run.repetitions=12 \
    --set calibration.tolerance=0.5 --stop-after calibration 2>&1) || fail "bench_nbc up to its calibration failed: $out"
dir=$(run_folder "$out")
# the barrier's precision is the sweep's: not measured, nor warned of, here
! grep -q "window barrier's precision" <<<"$out" ||
    fail "bench_nbc --stop-after calibration warned of the barrier's precision: $out"
[ ! -s "$dir/passive.csv" ] || [ "$(wc -l <"$dir/passive.csv")" -le 1 ] ||
    fail "bench_nbc --stop-after calibration measured the passive step: the order is not ABBA"
# Just before compute_ref before, its A/A partner (compute_ref --phase aa):
# the same program twice, adjacent in time like a pair.
mark ref_aa
LD_PRELOAD="$PRELOAD" DGEMM_ORDER_LOG="$log" "$BUILD/compute_ref" --run "$dir" --phase aa ||
    fail "compute_ref --phase aa failed"
mark ref_before
LD_PRELOAD="$PRELOAD" DGEMM_ORDER_LOG="$log" "$BUILD/compute_ref" --run "$dir" --phase before ||
    fail "compute_ref --phase before failed"
mark resume
out=$(mpi_launch -n 2 env LD_PRELOAD="$PRELOAD" DGEMM_ORDER_LOG="$log" "$BENCH" --resume "$dir" 2>&1) ||
    fail "bench_nbc --resume failed: $out"
mark ref_after
LD_PRELOAD="$PRELOAD" DGEMM_ORDER_LOG="$log" "$BUILD/compute_ref" --run "$dir" --phase after ||
    fail "compute_ref --phase after failed"
python3 -c 'import csv, sys
sizes = [int(r["matrix_n"]) for r in csv.DictReader(open(sys.argv[2]))]
want = sizes * (1 + 12)
segments, name = {}, "calibration"
for line in open(sys.argv[1]):
    a, b = line.split()
    if a == "phase":
        name = b
        continue
    segments.setdefault(name, {}).setdefault(a, []).append(int(b))
assert list(segments) == ["calibration", "ref_aa", "ref_before", "resume", "ref_after"], list(segments)
for phase in ("ref_aa", "ref_before", "ref_after"):
    calls = segments[phase]
    assert len(calls) == 2, (phase, len(calls))
    for pid, ns in calls.items():
        assert ns[-len(want):] == want, (phase, pid, ns[-len(want):], want)
calls = segments["resume"]
assert len(calls) == 2, ("resume", len(calls))
for pid, ns in calls.items():
    # the passive step before: the first rounds of the sizes, after no
    # other step of a size (the team warms up on other sizes first)
    first = next((i for i in range(len(ns)) if ns[i:i + len(want)] == want), None)
    assert first is not None, ("no passive step", pid)
    assert not set(ns[:first]) & set(sizes), ("a step of a size before the passive step", pid)
    assert ns[-len(want):] == want, ("passive after", pid, ns[-len(want):], want)
    assert len(ns) - len(want) > first + len(want), ("no sweep between the passive steps", pid)' "$log" "$dir/calib_comp.csv" ||
    fail "the phases are not ref, passive | sweep | passive, ref, each in rounds of every size"
# Every passive step carries the scheduler's counters of its rank's threads,
# read around the step: CPU time on every step, a delay that is not
# negative, a window that holds the step's own time and the computing
# threads' CPU time (both phases: before, with the probe opened for it,
# and after the sweep, with the sweep's).
steps=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
for r in rows:
    window, cpu, delay, progress = (int(r[k]) for k in ("window_ns", "compute_cpu_ns", "compute_run_delay_ns", "progress_cpu_ns"))
    threads, step_ns = int(r["threads"]), float(r["t_comp_s"]) * 1e9
    if not (cpu > 0 and delay >= 0 and progress >= 0 and window >= step_ns and cpu <= threads * window * 1.01 + 1e6):
        bad.append(r)
assert not bad, bad[:3]
assert {r["phase"] for r in rows} == {"before", "after"}, {r["phase"] for r in rows}
print(len(rows))' "$dir/passive.csv") || fail "passive.csv: a step without sane scheduler counters"
"$TOOLS_DIR/nbc-analyze" -q --no-plots "$dir" || fail "nbc-analyze failed"
[ -s "$dir/impact.csv" ] || fail "no impact.csv"
cat "$dir/impact.csv"
values=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(r["phases"] == "before+after" for r in rows), [r["phases"] for r in rows]
for r in rows:
    delay, progress = float(r["passive_delay_share"]), float(r["passive_progress_cpu_share"])
    assert 0 <= delay < 1 and progress >= 0, (delay, progress)
print(" ".join(r["r_mpi_impact"] for r in rows))' "$dir/impact.csv") || fail "impact.csv: not paired before and after, or no passive shares"
shares=$(python3 -c 'import csv, sys
print(" ".join(r["passive_delay_share"] + "/" + r["passive_progress_cpu_share"] for r in csv.DictReader(open(sys.argv[1]))))' "$dir/impact.csv")
[ "$(wc -w <<<"$values")" -eq 2 ] || fail "impact.csv: expected 2 sizes, got: $values"
# The A/A pair beside r_MPI_impact: in impact.csv (compute_ref before over
# its A/A partner, with its interval around it) and in summary.txt; the
# run's interval of r_MPI_impact is the paired one over its two pairs.
floor=$(python3 -c 'import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    aa, lo, hi = (float(r[k]) for k in ("r_aa", "r_aa_ci_lo", "r_aa_ci_hi"))
    assert all(map(math.isfinite, (aa, lo, hi))) and lo <= aa <= hi, r
    ratio, r_lo, r_hi = (float(r[k]) for k in ("r_mpi_impact", "r_mpi_impact_ci_lo", "r_mpi_impact_ci_hi"))
    b, a = float(r["r_mpi_impact_before"]), float(r["r_mpi_impact_after"])
    assert abs(ratio - math.sqrt(a * b)) <= 1e-4 * ratio, r
    assert r_lo <= min(a, b) and r_hi >= max(a, b), r
print(" ".join(r["r_aa"] for r in rows))' "$dir/impact.csv") || fail "impact.csv: no A/A floor with its interval"
grep -q "; A/A pair (compute_ref before / its A/A partner just before it, no MPI at all) [0-9.]*, 95 % \[" "$dir/summary.txt" ||
    fail "summary.txt has no A/A floor: $(cat "$dir/summary.txt")"
grep -q "nbc-run launches = N" "$dir/summary.txt" || fail "summary.txt does not recommend repeated launches"
# What must hold: no interval wholly beyond a factor of 1.5 either way,
# which a progress thread sharing the core (about 2 in both pairs) or unlike
# statistics (the passive step's ranks polling next to each other read
# 1.8-2.2) give. The point alone is no test: a busy spell in one of the two
# pairs moves it by 2-3x on a virtual CPU, and then its paired interval (t
# with 1 degree of freedom) says the run cannot tell. How close to 1 it
# comes is a precision figure, printed.
intervals=$(python3 -c 'import csv, sys
print(" ".join("%s,%s" % (r["r_mpi_impact_ci_lo"], r["r_mpi_impact_ci_hi"]) for r in csv.DictReader(open(sys.argv[1]))))' "$dir/impact.csv")
for interval in $intervals; do
    check_float "${interval%,*} < 1.5 && ${interval#*,} > 0.67" ||
        fail "r_MPI_impact $values, intervals $intervals: one wholly beyond a factor of 1.5 without progress thread"
done
figure "r_MPI_impact without progress thread ($MPI basic, 1 thread per rank): $values; A/A floor $floor"
figure "passive steps: $steps rows with counters; passive_delay_share/passive_progress_cpu_share per size: $shares"
