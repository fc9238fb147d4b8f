#!/usr/bin/env bash
# The clock model against the truth across two "nodes" (scripts/netns-nodes.sh:
# network namespaces, MPICH over TCP through a real network stack), the
# linear method on 2 and 4 ranks (one or two per node), the hierarchical on
# 4, next to what the simulation (clocksync_scale) predicts for the latency
# measured. (Hierarchical on 2 ranks is one cross-node hop, rank 1 to its
# parent 0: on 4 ranks rank 2 measures its parent 0 across the nodes the
# same way, under the same bound, beside the composed hop of rank 3.)
#
# Ground truth: the nodes share one kernel and so one physical clock. Node 2's
# ranks run in a time namespace whose CLOCK_MONOTONIC (and _RAW, which the
# clock sync reads) is 5 s ahead, and every rank but 0 reads it through the
# suite's test-only skewed clock (clocksync_check --skew-clock 0,20: 20 ppm
# fast). clocksync_check takes each rank's namespace offset out of its raw
# clock (/proc/self/timens_offsets) and reports the model's worst error
# against rank 0's clock at the MPI_Barrier exits (model_error_us).
# (libfaketime would fake the drift too, but anchors it at each process's
# start, an instant nobody records: its offset at a given time is then only
# known to drift x start spread, and it hides the raw clock the truth needs.)
#
# The bound the method gives, stated per rank: every kept round trip errs by
# at most half its duration (the reference was read between send and
# return), so a calibration point errs by at most the slowest kept one's half
# (error_bound_us, summed down the tree for hierarchical); interpolation
# between two points stays within the larger of their bounds, the true offset
# being linear. Added: the truth's own resolution (0.5 us: raw reads at most
# 1 us apart) and the drift during a calibration (20 ppm x its length, per
# hop). The drift estimate spans at least 2 s, so it errs by at most
# (2 x bound) / 2 s: |drift - 20| <= bound in ppm for a bound in us.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
nodes_sh=$BENCH_NBC_ROOT/scripts/netns-nodes.sh
[ "$(id -u)" -eq 0 ] || skip "network and time namespaces need root"
command -v ip >/dev/null || skip "'ip' (iproute2) is not installed"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
[ "$(nproc)" -ge 2 ] || skip "4 busy-polling ranks on one core would measure the scheduler"
# The nodes talk TCP: with Open MPI that costs milliseconds per message
# (MPICH: microseconds).
use_mpi mpich clocksync_check clocksync_scale
prog=$BUILD/clocksync_check
scale=$BUILD/clocksync_scale
for p in "$prog" "$scale"; do [ -x "$p" ] || fail "$p is not built"; done
unshare --time --fork --monotonic=5 true 2>/dev/null || skip "this kernel or sandbox refuses time namespaces"
export NBC_NETNS_PREFIX=ct$$
ip netns add "$NBC_NETNS_PREFIX-probe" 2>/dev/null || skip "this kernel or sandbox refuses network namespaces"
ip netns del "$NBC_NETNS_PREFIX-probe"
make_scratch
trap '"$nodes_sh" down; rm -rf "$SCRATCH"' EXIT
# Every node gets every core: two busy-polling ranks per node on one core
# would meet only when the scheduler switches (milliseconds).
NBC_NETNS_ALL_CPUS=1 "$nodes_sh" up 2 >/dev/null || fail "netns-nodes.sh up 2"
hosts=$("$nodes_sh" hosts)
# shellcheck disable=SC2154 # launch_flags ... rsh_flags: from the eval
mapfile -d '' -t across < <(
    eval "$("$TOOLS_DIR/nbc-profile" shell --build "$BUILD")"
    printf '%s\0' "${launch_flags[@]}" "${rsh_flags[@]}" "$nodes_sh" "${hosts_flag[@]}" "$hosts"
)
drift_ppm=20
roundtrips=300
args=(--roundtrips "$roundtrips" --barriers 50 --wait-s 1 --skew-clock "0,$drift_ppm")
# run_across RANKS METHOD: clocksync_check across the nodes, its output in
# $out. MPICH 4.0.2 over TCP may hang in MPI_Finalize (docs/running.md, known
# problems) though every rank has printed and met a last barrier: once the
# figures are out (rank 0's last line) and the ranks have not exited, the
# launcher is stopped and the figures kept (launch_watched, as nbc-run
# does); anything else over 150 s fails. Rank 0 prints its last line after
# a barrier every rank has left, so only MPI_Finalize is left then: ranks
# that exit do so within a second, and a hung launch is stopped 2 s later,
# not lib.sh's 5 (a stop keeps the figures, so a slow exit cannot fail).
export FINALIZE_GRACE_S=2
figures_out() { grep -q 'model_error_max_us=' "$SCRATCH/out"; }
run_across() {
    local ranks=$1 method=$2 per_node=$(($1 / 2))
    launch_watched figures_out "$SCRATCH/out" timeout -k 5 150 "$nodes_sh" run "$MPIEXEC" "${across[@]}" \
        -ppn $per_node -n $per_node "$prog" --method "$method" "${args[@]}" : \
        -n $per_node unshare --time --fork --monotonic=5 "$prog" --method "$method" "${args[@]}" ||
        fail "$method on $ranks ranks across the nodes (status $?, 124: no end after 150 s): $(cat "$SCRATCH/out")"
    [ "$FINALIZE_HUNG" = 0 ] || hung+=("$method p=$ranks")
    out=$(cat "$SCRATCH/out")
}

summary=() hung=()
for ranks in 2 4; do
    per_node=$((ranks / 2))
    for method in linear hierarchical; do
        [ $method = linear ] || [ $ranks -gt 2 ] || continue
        run_across $ranks $method
        grep -v '^ *[=\[]\|^ *$' <<<"$out"
        [ "$(kv model_error_max_us "$(tail -n 1 <<<"$out")")" != na ] || fail "no truth for $method on $ranks ranks"
        hops=1
        [ $method = hierarchical ] && hops=$((ranks == 4 ? 2 : 1))
        worst_error=0 worst_bound=0 latency_min=1e9
        for ((r = 1; r < ranks; r++)); do
            line=$(grep "^rank=$r " <<<"$out") || fail "no line of rank $r"
            node=$((r < per_node ? 1 : 2))
            grep -q "host=$NBC_NETNS_PREFIX-node$node " <<<"$line" || fail "rank $r not on node $node: $line"
            error=$(kv model_error_us "$line") bound=$(kv error_bound_us "$line")
            cal_s=$(kv calibration_s "$line") drift=$(kv drift_ppm "$line") latency=$(kv latency_us "$line")
            limit=$(awk -v b="$bound" -v h=$hops -v c="$cal_s" -v d=$drift_ppm \
                'BEGIN { printf "%.3f", b + 0.5 + h * d * 1e-6 * c * 1e6 }')
            check_float "$error <= $limit" ||
                fail "$method, $ranks ranks: rank $r's model errs by $error us, the method's bound is $limit us: $line"
            check_float "($drift - $drift_ppm) <= $limit && ($drift - $drift_ppm) >= -$limit" ||
                fail "$method, $ranks ranks: rank $r's drift $drift ppm, truth $drift_ppm +- $limit: $line"
            worst_error=$(awk -v a="$worst_error" -v b="$error" 'BEGIN { print (b > a ? b : a) }')
            worst_bound=$(awk -v a="$worst_bound" -v b="$limit" 'BEGIN { print (b > a ? b : a) }')
            latency_min=$(awk -v a="$latency_min" -v b="$latency" 'BEGIN { print (b < a ? b : a) }')
        done
        # The simulation at the latency measured (a tenth of it as the mean
        # of the exponential tail), the same clocks, gap and horizon.
        latency_ns=$(awk -v l="$latency_min" 'BEGIN { printf "%d,%d", l * 1000, l * 100 }')
        sim=$("$scale" --ranks $ranks --methods $method --roundtrips $roundtrips --latency-ns "$latency_ns" \
            --offset-us 5000000 --drift-ppm $drift_ppm --gap-s 1 --horizon-s 1) || fail "clocksync_scale: $sim"
        row=$(awk -v m=$method -v p=$ranks '$1 == m && $2 == p' <<<"$sim")
        [ -n "$row" ] || fail "clocksync_scale printed no row for $method on $ranks ranks: $sim"
        sim_sync_us=$(awk '{ printf "%.3f", $(NF - 2) / 1000 }' <<<"$row")
        sim_max_us=$(awk '{ printf "%.3f", $NF / 1000 }' <<<"$row")
        # The simulated ranks run the same calibration code: their errors
        # must keep within the bound of the latency they were given.
        check_float "$sim_max_us <= $worst_bound" ||
            fail "$method, $ranks ranks: simulated error $sim_max_us us above the bound $worst_bound us"
        summary+=("$method p=$ranks: real $worst_error us, simulated $sim_sync_us us (sync) $sim_max_us us (1 s on), bound $worst_bound us, latency $latency_min us")
        figure "$method, $ranks ranks on 2 netns nodes (+5 s time namespace, $drift_ppm ppm): model error" \
            "real $worst_error us, simulated $sim_sync_us us at sync and $sim_max_us us 1 s later" \
            "(latency $latency_min us), the method's bound $worst_bound us"
    done
done
printf '%s\n' "${summary[@]}"
[ ${#hung[@]} -eq 0 ] || figure "MPICH hung in MPI_Finalize after printing (stopped): ${hung[*]}"
