#!/usr/bin/env bash
# A drifting clock on one of two "nodes" (scripts/netns-nodes.sh: network
# namespaces, the ranks talking over TCP): node 2's rank runs under
# libfaketime at x1.0001 (100 ppm fast, its CLOCK_MONOTONIC_RAW, the clock
# clocksync reads, and MPI_Wtime; checked below by measurement against the
# kernel's clock, which a raw syscall reads unfaked). bench_nbc sweeps for
# about RUN_S / 2 seconds (RUN_S: default 6) with the clock's resync schedule
# (clocksync_resync_due), and when RUN_S is given, again with it off
# (clocksync.resync_interval_s=0).
#
# The truth of a start skew: raw.csv's t1_ns are converted post mortem by
# interpolation between calibration points, the end point included, so the
# drift estimate there spans the whole run; an attempt's start skew is
# max - min of its ranks' t1_ns. Lateness was decided in real time on the
# extrapolated model (clocksync_settle_attempt), whose error the schedule
# keeps under a quarter of the tolerance. A kept attempt (late = 0, last
# pass of its block) therefore starts within tolerance_ns plus the two
# conversions' own error, at most twice the largest bound of rank 1's
# calibration points (meta.json clocksync.ranks[1].points[].bound_us: the
# real-time model errs by its last point's bound beyond the widening, the
# post-mortem one by the larger bound of the points around the attempt).
# With the schedule off, the real-time model extrapolates the drift of the
# first two points (clocksync.drift_gap_s apart) for the whole run: its
# drift error times the time elapsed puts node 2's exits, and so the true
# start skews, past that limit within seconds, while the real-time check
# sees none of it and keeps the attempts. The test asserts the first, and
# measures the second when RUN_S is given. The default length needs no more
# than a few resyncs: after the hasty start below (first two points 1 ms
# apart) a model that never recalibrates has a likely extrapolation bound
# of (s_F + s_L) / 1 ms, microseconds of spread over a millisecond (1000s
# of ppm), past any tolerance of these cells (tens of us to 1 ms) within a
# second, so a 3 s sweep (the 2 cells the sizing below never goes under,
# with one resync between them) already fails code that does not resync.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
nodes_sh=$BENCH_NBC_ROOT/scripts/netns-nodes.sh
run_s=${RUN_S:-6}
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "'ip' (iproute2) is not installed"
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
command -v jq >/dev/null || skip "needs jq (apt-get install jq)"
command -v faketime >/dev/null || skip "faketime is not installed (scripts/deps.table: faketime)"
[ "$(nproc)" -ge 2 ] || skip "2 nodes need 2 cores (a busy-polling library would crawl)"
# Open MPI over TCP costs milliseconds a message: its window barrier's
# precision would be the tolerance, not the drift.
use_mpi mpich bench_nbc
[ -x "$BUILD/bench_nbc" ] || fail "$BUILD/bench_nbc is not built"
[ -n "${SAN:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export NBC_NETNS_PREFIX=nd$$
ip netns add "$NBC_NETNS_PREFIX-probe" 2>/dev/null || skip "this kernel or sandbox refuses network namespaces"
ip netns del "$NBC_NETNS_PREFIX-probe"
make_scratch
# A failure keeps the run folders for the post-mortem (meta.json holds the
# calibration points and bounds); KEEP_SCRATCH keeps them always.
drift_exit() {
    local rc=$?
    "$nodes_sh" down
    if [ -n "${KEEP_SCRATCH:-}" ]; then echo "scratch kept: $SCRATCH"; else keep_scratch_on_failure $rc; fi
}
trap drift_exit EXIT

# libfaketime fakes the clock only when the library's reads go through it:
# glibc's clock_gettime (the vDSO's fast path is bypassed by interposition).
# A probe reads CLOCK_MONOTONIC_RAW both ways over a spin of 0.5 s.
fake=(env FAKETIME_DONT_FAKE_MONOTONIC=0 faketime -f "+0 x1.0001")
cat >"$SCRATCH/probe.c" <<'EOF'
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static double libc_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static double kernel_s(void) { struct timespec t; syscall(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void)
{
    libc_s(); /* libfaketime sets itself up at its first call */
    double k0 = kernel_s(), l0 = libc_s(), k1, l1;
    while (kernel_s() - k0 < 0.5) {}
    l1 = libc_s(); k1 = kernel_s();
    printf("%.1f\n", ((l1 - l0) / (k1 - k0) - 1) * 1e6);
    return 0;
}
EOF
cc -O2 "$SCRATCH/probe.c" -o "$SCRATCH/probe" || fail "cannot build the clock probe"
ppm=$("${fake[@]}" "$SCRATCH/probe")
# The reads bracket each other within microseconds over 0.5 s: +-20 ppm.
check_float "$ppm > 80 && $ppm < 120" || skip "libfaketime does not fake CLOCK_MONOTONIC_RAW here ($ppm ppm)"

"$nodes_sh" up 2 >/dev/null || fail "netns-nodes.sh up 2"
hosts=$("$nodes_sh" hosts)
# shellcheck disable=SC2154 # launch_flags ... rsh_flags: from the eval
mapfile -d '' -t across < <(
    eval "$("$TOOLS_DIR/nbc-profile" shell --build "$BUILD")"
    printf '%s\0' "${launch_flags[@]}" "${root_flags[@]}" "${rsh_flags[@]}" "$nodes_sh" "${hosts_flag[@]}" "$hosts"
)

# Each of the two sweeps lasts about RUN_S / 2: k cells (resyncs come
# between cells) of about 1.5 s (longer past 40 cells: each computation
# target's calibration costs a few hundred ms), 200 blocks per 0.75 s of 2 ms
# communication and 1..2 ms sleep-kernel computation (no CPU). A
# hasty start (clocksync.drift_gap_s = 1 ms, 10 round trips a
# calibration) leaves the first drift estimate as coarse as the method
# allows, tens of ppm off: what the schedule corrects as the run goes on,
# and what a model without it extrapolates to the end.
k=$(awk -v s="$run_s" 'BEGIN { k = int(s / 2 / 1.5 + 0.5); print (k < 2 ? 2 : k > 40 ? 40 : k) }')
reps=$(awk -v s="$run_s" -v k="$k" 'BEGIN { r = int(s / 2 / k / 0.75 * 200); print (r < 200 ? 200 : r) }')
factor=$(awk -v k="$k" 'BEGIN { printf "%.9f", 2 ^ (1 / (k - 1)) }')
args=(--set run.results_dir="$SCRATCH" --set run.collective=ibcast --set compute.kernel=sleep
    --set grid.comm_times="2ms,2ms,2" --set grid.comp_times="1ms,2ms,$factor" --set run.repetitions="$reps"
    --set run.half_width=0 --set run.max_retries=100 --set run.null_share=0
    --set clocksync.roundtrips=10 --set clocksync.drift_gap_s=0.001s
    --set calibration.runs_per_point=3 --set calibration.tolerance=0.5)
# The run is out once meta.json says complete (MPICH over TCP may then hang
# in MPI_Finalize: launch_watched stops it, as netns_nodes.sh does, 2 s
# after: bench_nbc writes the final meta.json last, and a stop keeps it).
export FINALIZE_GRACE_S=2
run_dir() { sed -n 's/^bench_nbc: run folder //p' "$SCRATCH/out" | head -n 1; }
figures_out() { jq -e '.status == "complete"' "$(run_dir)/meta.json" >/dev/null 2>&1; }

# sweep INTERVAL: bench_nbc across the nodes with clocksync.resync_interval_s
# = INTERVAL; prints "worst_excess_us worst_skew_us its_tolerance_us
# kept end_excess_us limit_slack_us calibrations sweep_s last_bound_us
# least_tolerance_us" of its run folder.
# Its time limit catches a hang, not a slow machine: the sweep is a fixed
# number of blocks, and a busy machine stretches them several times over.
sweep() {
    rm -f "$SCRATCH/out"
    launch_watched figures_out "$SCRATCH/out" timeout -k 5 $((run_s * 10 + 240)) "$nodes_sh" run "$MPIEXEC" "${across[@]}" \
        -ppn 1 -n 1 "$BUILD/bench_nbc" "${args[@]}" --set clocksync.resync_interval_s="$1" : \
        -n 1 "${fake[@]}" "$BUILD/bench_nbc" "${args[@]}" --set clocksync.resync_interval_s="$1" ||
        fail "bench_nbc across the nodes (resync interval $1): $(tail -n 20 "$SCRATCH/out")"
    local dir
    dir=$(run_dir)
    [ -f "$dir/raw.csv" ] || fail "no raw.csv: $(tail -n 20 "$SCRATCH/out")"
    local drift slack calibrations bound warnings
    # raw.csv's start_skew_ns and exit_late_ns hold what every late flag was
    # decided on: the analysis agrees with each one.
    warnings=$("$TOOLS_DIR/nbc-analyze" -q "$dir" 2>&1 >/dev/null) || fail "nbc-analyze $dir: $warnings"
    ! grep -q "late flag disagrees" <<<"$warnings" || fail "nbc-analyze $dir: $warnings"
    drift=$(jq '.clocksync.ranks[1].drift_ppm' "$dir/meta.json")
    check_float "$drift > 90 && $drift < 110" || fail "node 2's drift $drift ppm, faked 100"
    slack=$(jq '[.clocksync.ranks[1].points[].bound_us] | max * 2' "$dir/meta.json")
    # The likely bound on the extrapolation error at the last kept attempt,
    # the last instant a lateness was decided on the real-time model
    # (clocksync.h, "Likely bound"): u' tau, u' = (s_F + s_L) / (t_L - t_F)
    # from the baseline point F and the last point L before the attempt,
    # tau since L: what the schedule keeps small and nothing bounds without
    # it. (The end calibration comes after the finish stage, which no
    # schedule governs and the post-mortem interpolation does not need: a
    # slow finish, as under a sanitizer, lengthens its tau alone.) The
    # attempt's t1_ns counts from the study's start, a few tens of ms after
    # the first point (at_s 0): tau errs by that, u' times it, << 1 us.
    local last_s
    last_s=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["late"] == 0 && $c["t1_ns"] + 0 > t { t = $c["t1_ns"] + 0 } END { printf "%.6f", t / 1e9 }' "$dir/raw.csv")
    bound=$(jq --argjson t "$last_s" '.clocksync.ranks[1] | .points as $p |
        ([range(0; $p | length) | select($p[.].at_s <= $t)] | last) as $l |
        ([.baseline, $l - 1] | min) as $f |
        ($p[$f].spread_us + $p[$l].spread_us) / ($p[$l].at_s - $p[$f].at_s) * ($t - $p[$l].at_s)' "$dir/meta.json")
    calibrations=$(jq '.clocksync.ranks[1].calibrations' "$dir/meta.json")
    # Per kept attempt (seq): its start skew over the ranks, minus its
    # tolerance; the worst, and the last attempt's.
    awk -F, -v slack="$slack" -v cal="$calibrations" -v bound="$bound" '
        FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        FNR == NR { b = $c["cell"] SUBSEP $c["block"]; if ($c["attempt"] + 0 > last[b]) last[b] = $c["attempt"] + 0; next }
        $c["late"] == 0 && $c["attempt"] == last[$c["cell"], $c["block"]] {
            s = $c["seq"]; t = $c["t1_ns"] + 0
            if (!(s in lo) || t < lo[s]) lo[s] = t
            if (!(s in hi) || t > hi[s]) hi[s] = t
            tol[s] = $c["tolerance_ns"]; if (!least || tol[s] < least) least = tol[s]
            w = $c["wall_start_s"] + 0; if (!t0 || w < t0) t0 = w; if (w > t9) t9 = w
        }
        END {
            worst = -1e18; endseq = -1
            for (s in lo) {
                n++; e = hi[s] - lo[s] - tol[s]
                if (e > worst) { worst = e; ws = hi[s] - lo[s]; wt = tol[s] }
                if (s + 0 > endseq) { endseq = s + 0; ee = e }
            }
            printf "%.1f %.1f %.1f %d %.1f %.1f %d %.0f %.1f %.1f\n", worst / 1e3, ws / 1e3, wt / 1e3, n, ee / 1e3, slack, cal, t9 - t0, bound, least / 1e3
        }' "$dir/raw.csv" "$dir/raw.csv"
}

# sweep runs in a subshell: its fail() ends only that subshell, so its
# message is passed on here.
result=$(sweep 300s) || fail "${result#FAILED: }"
read -r excess skew tol kept _ slack cal secs last_bound least <<<"$result"
echo "with the schedule: $secs s, $kept kept attempts, $cal calibrations; worst start skew $skew us against a tolerance of $tol us (excess $excess us, allowed $slack us); extrapolation bound at the last kept attempt $last_bound us (least tolerance $least us)"
check_float "$excess <= $slack" ||
    fail "with the resync schedule a kept attempt started $skew us apart, tolerance $tol us + conversion bound $slack us"
check_float "$last_bound <= $least" ||
    fail "with the resync schedule the model's likely extrapolation bound reached $last_bound us at the last kept attempt, past the tolerance $least us"
# The same sweep with the schedule off shows what the model without it
# does; it is a measurement (minutes: late windows stretch it), run when
# RUN_S is given. Code that never recalibrates fails the check above: its
# extrapolation bound passes the tolerance.
if [ -z "${RUN_S:-}" ]; then
    figure "100 ppm drift on node 2 of 2 netns nodes, ${secs} s sweep: worst kept start skew $skew us (tolerance $tol us)" \
        "with the resync schedule ($cal calibrations, extrapolation bound $last_bound us at the last kept attempt);" \
        "the sweep without it is measured with RUN_S=<seconds>"
    exit 0
fi
result=$(sweep 0) || fail "${result#FAILED: }"
read -r off_excess off_skew off_tol off_kept off_end off_slack off_cal off_secs off_bound off_least <<<"$result"
echo "schedule off: $off_secs s, $off_kept kept attempts, $off_cal calibrations; worst start skew $off_skew us against $off_tol us (excess $off_excess us, allowed $off_slack us), at the end $off_end us past the tolerance; extrapolation bound at the last kept attempt $off_bound us"
# Without the schedule nothing bounds the real-time error: the model's own
# likely bound passes the tolerance. (Its true error may pass even that
# bound: the first drift estimate of a hasty start is the coarsest the
# method gives, and the likely bound assumes symmetric delays.)
check_float "$off_bound > $off_least" ||
    fail "with the schedule off the extrapolation bound at the last kept attempt is $off_bound us, within the tolerance $off_least us: the sweep is too short to tell"
check_float "$off_excess <= $off_slack + $off_bound" ||
    echo "note: with the schedule off a kept attempt started $off_skew us apart: past tolerance, conversion bound and extrapolation bound ($off_tol + $off_slack + $off_bound us)"
figure "100 ppm drift on node 2 of 2 netns nodes, ${secs} s sweep: worst kept start skew $skew us (tolerance $tol us)" \
    "with the resync schedule ($cal calibrations, extrapolation bound $last_bound us at the last kept attempt);" \
    "without it ($off_secs s) $off_skew us worst (tolerance $off_tol us), $off_end us past the tolerance at the end, bound $off_bound us"
