#!/usr/bin/env bash
# A long run against the truth: rank 1's clock runs 100 ppm fast (the
# suite's test-only skewed clock, clocksync_check --skew-clock 0,100; the
# ranks share one kernel, so the raw clock under it is the truth, which
# libfaketime's x1.0001 would hide: e2e_netns_truth.sh says why). For
# run_s seconds clocksync_check makes attempts as a sweep does: resync when
# the schedule says (clocksync_resync_due: the baseline doubles, and a
# quarter of the tolerance bounds the extrapolation error), window barrier,
# start, the lateness rule of clocksync_settle_attempt. What must hold:
#   - every kept attempt's true start skew is within the tolerance plus what
#     the method leaves out by design and the truth's own blur: the real-time
#     rule widens each rank's start by its extrapolation error but not by
#     its clock points' own error bounds (clocksync.h, "Likely bound"), so
#     up to twice the loosest point's bound; and the truth is each rank's two
#     raw reads around its start, as far apart as the rank was preempted
#     between them (run_kept_true_skew_resolved_max_us subtracts that);
#   - the model predicted every point of the run within its bound
#     (|residual| <= predicted error + the point's own bound);
#   - the baseline grew with the run: a point at least every doubling of the
#     time since the start (1, 2, 4, ... drift gaps after the drift point);
#   - the rule still keeps attempts in the run's last tenth: the widening
#     it applies (each model's own extrapolation bound) stays below the
#     tolerance there. This is not what a model that never recalibrates
#     fails: its bound is its estimate of its error, not the error, and it
#     keeps attempts too; it fails the first check, its true skew u tau
#     past the tolerance (below).
# The length: the 100 ppm drift is estimated from the start point and the
# drift point g = 0.5 s later (--drift-gap-s), each within its bound b
# (run_point_bound_max_us, 0.2-0.4 us here), so the estimate's likely error
# is u = 2 b / g: 0.8 to 1.6 ppm of the 100 (the rate injected does not
# enter: only how well it is measured). A model that never recalibrates
# then errs by u tau at tau s; the kept attempts of the last tenth
# (tau >= 0.9 run_s) start further apart than the tolerance once
# 0.9 run_s u > tolerance, which with u = 0.8 ppm needs
# run_s > 10 us / (0.9 x 0.8 ppm) = 14 s. 15 s here;
# RUN_S=600 gives the 10-minute figures.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
prog=$BUILD/clocksync_check
[ -x "$prog" ] || fail "$prog is not built"
run_s=${RUN_S:-15}
tolerance_us=10
gap_s=0.5
out=$(mpi_launch -n 2 "$prog" --barriers 10 --wait-s 0 --skew-clock 0,100 --run-s "$run_s" \
    --drift-gap-s $gap_s --tolerance-us $tolerance_us) || fail "clocksync_check --run-s failed: $out"
echo "$out"
line=$(grep '^run_s=' <<<"$out") || fail "no run figures: $out"
kept_skew=$(kv run_kept_true_skew_resolved_max_us "$line")
bound_us=$(kv run_point_bound_max_us "$line")
[ "$kept_skew" != na ] || fail "no truth (the ranks do not share a kernel's clock): $line"
check_float "$kept_skew <= $tolerance_us + 2 * $bound_us" ||
    fail "a kept attempt started $kept_skew us apart (less its truth's resolution), tolerance $tolerance_us us, points' bound $bound_us us: $line"
[ "$(kv run_residual_beyond_bound "$line")" = 0 ] ||
    fail "a clock point fell outside the error the model predicted for it: $line"
# Points: start, drift (gap_s), then at least every doubling of the baseline.
min_points=$(awk -v t="$run_s" -v g=$gap_s 'BEGIN { n = 2; b = g; while (2 * b <= t) { b *= 2; n++ } print n }')
points=$(kv run_points "$line")
[ "$points" -ge "$min_points" ] || fail "$points clock points over $run_s s, the schedule needs $min_points: $line"
attempts=$(kv run_attempts "$line") kept=$(kv run_kept "$line")
[ "$(kv run_end_kept "$line")" -gt 0 ] || fail "no attempt kept in the run's last tenth: $line"
figure "100 ppm clock, $run_s s of attempts at a $tolerance_us us tolerance: kept $kept of $attempts," \
    "true start skew max $(kv run_kept_true_skew_max_us "$line") us kept ($kept_skew us less the truth's resolution; points' bound $bound_us us), $(kv run_all_true_skew_max_us "$line") us over all," \
    "$(kv run_end_true_skew_max_us "$line") us in the last tenth (median $(kv run_end_true_skew_p50_us "$line") us); $points clock points"
