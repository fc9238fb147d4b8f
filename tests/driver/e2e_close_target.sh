#!/usr/bin/env bash
# A communication target missed by a little is measured at its closest
# size; one missed by more is not. synthetic_perfect's size is a duration
# (ns; rank k works (1 + k/10) S, and the span adds the start and wait): with
# calibration.max_bytes = 44.5 ms the largest span is about 49 ms, so the
# 16 ms target converges, the 64 ms one misses by about 23.5 % (beyond
# calibration.tolerance 10 %, within the analysis's off-target tolerance
# 25 %) and is measured at that size with converged = 0, and the 128 ms
# one, whose size must exceed the 64 ms one's, has none left and is not
# measured. The miss is set by the size: what a machine adds to a span is
# never negative, so the 64 ms target stays missed by more than 10 % unless
# the machine adds 9 ms (a sleep that wakes late, a rank descheduled: tens
# of microseconds typically, a few milliseconds on a loaded virtual
# machine), far above what was ever seen; at 2 ms, 0.15 ms was enough.
# The two missed targets list the sizes their searches measured.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
ranks=2
out=$(mpi_launch -n $ranks "$BENCH" -c configs/default.conf "${QUICK[@]}" "${LOOSE_LATENESS[@]}" \
    --set run.results_dir="$SCRATCH" --set run.collective=synthetic_perfect \
    --set compute.kernel=sleep --set grid.comm_times="16ms 64ms 128ms" --set grid.comp_times=1ms \
    --set calibration.tolerance=0.1 --set calibration.max_bytes=44500000 \
    --set run.repetitions=2 --set run.half_width=0 2>&1) || fail "the run failed: $out"
echo "$out"
dir=$(run_folder "$out")
[ -f "$dir/calib_comm.csv" ] || fail "no calib_comm.csv in $dir"

# calib_comm.csv by target: "target_ms bytes converged error".
calib=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                 { t = $c["comm_target_s"]; e = $c["t_comm_s"] / t - 1
                   printf "%g %s %s %.3f\n", t * 1e3, $c["bytes"], $c["converged"], e < 0 ? -e : e }' \
    "$dir/calib_comm.csv" | sort -n)
echo "$calib"
read -r _ bytes1 conv1 _ <<<"$(sed -n 1p <<<"$calib")"
read -r _ bytes2 conv2 err2 <<<"$(sed -n 2p <<<"$calib")"
read -r _ bytes4 _ _ <<<"$(sed -n 3p <<<"$calib")"
[ "$conv1" = 1 ] || fail "the 16 ms target did not converge: $calib"
[ "$bytes1" -gt 0 ] || fail "the 16 ms target has no size: $calib"
[ "$conv2" = 0 ] || fail "the 64 ms target converged, nothing to test: $calib"
[ "$bytes2" -gt 0 ] || fail "the 64 ms target is not measured at its closest size: $calib"
awk -v e="$err2" 'BEGIN { exit !(e > 0.1 && e <= 0.25) }' ||
    fail "the 64 ms target missed by $err2, not between 10 % and 25 %: the test's premise"
[ "$bytes4" = 0 ] || fail "the 128 ms target is measured: $calib"
grep -q "communication 64 ms .*NOT converged, [0-9]* % off: measured at this size" <<<"$out" ||
    fail "no message that the 64 ms target is measured at its closest size"
grep -q "communication 128 ms .*NOT converged.*its cells are not measured" <<<"$out" ||
    fail "no message that the 128 ms target is not measured"
# A target not reached lists every size its search measured, the closest
# one among them; one reached does not.
tried2=$(sed -n 's/^bench_nbc: communication 64 ms not reached; sizes tried://p' <<<"$out")
[ "$(grep -o ' B [0-9.e+-]* ms' <<<"$tried2" | wc -l)" -ge 2 ] ||
    fail "the 64 ms target's sizes tried are not listed (at least 2): '$tried2'"
grep -q " $bytes2 B " <<<"$tried2" || fail "the 64 ms target's closest size $bytes2 is not among its sizes tried: '$tried2'"
grep -q "^bench_nbc: communication 128 ms not reached; sizes tried" <<<"$out" ||
    fail "no sizes tried for the 128 ms target"
if grep -q "^bench_nbc: communication 16 ms not reached" <<<"$out"; then
    fail "the 16 ms target converged, yet its sizes tried are listed"
fi

# raw.csv: cells of the 1 ms and 2 ms targets, none of the 4 ms one.
targets=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["comm_target_s"] * 1e3 }' \
    "$dir/raw.csv" | sort -un | tr '\n' ' ')
[ "$targets" = "16 64 " ] || fail "raw.csv holds the comm targets '$targets', expected '16 64 '"
[ "$(cells_whole "$dir" 3 $ranks)" = 2 ] || fail "the two measured cells are not whole"
no_leftovers "$SCRATCH"
figure "close target: 64 ms missed by $err2, measured at its closest size (converged 0); 128 ms not measured"
