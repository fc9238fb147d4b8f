#!/usr/bin/env bash
# Two "nodes" on this machine (scripts/netns-nodes.sh: network namespaces on a
# bridge, one core and one host name each), ranks of this build's library
# talking over TCP, launched with its profile's --hosts/--rsh flags:
# clocksync_check across them (its figures printed), then a small study
# through nbc-run with --hosts/--rsh from `netns-nodes.sh run`. The run must
# see 2 nodes, write compute_ref rows for both, and its collective's bytes
# must have crossed node 2's network interface.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/run/study_lib.sh
source "$BENCH_NBC_ROOT/tests/run/study_lib.sh"
nodes_sh=$BENCH_NBC_ROOT/scripts/netns-nodes.sh
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "'ip' (iproute2) is not installed"
{ command -v unshare && command -v taskset; } >/dev/null || skip "unshare/taskset (util-linux) are not installed"
[ "$(nproc)" -ge 2 ] || skip "2 nodes need 2 cores (a busy-polling library would crawl)"
for prog in bench_nbc compute_ref clocksync_check; do [ -x "$BUILD/$prog" ] || fail "$BUILD/$prog is not built"; done
export NBC_NETNS_PREFIX=nt$$
ip netns add "$NBC_NETNS_PREFIX-probe" 2>/dev/null || skip "this kernel or sandbox refuses network namespaces"
ip netns del "$NBC_NETNS_PREFIX-probe"
make_scratch
trap '"$nodes_sh" down; rm -rf "$SCRATCH"' EXIT

"$nodes_sh" up 2 || fail "netns-nodes.sh up 2"
hosts=$("$nodes_sh" hosts)
[ "$hosts" = 127.77.0.2,127.77.0.3 ] || fail "hosts: '$hosts'"
# Each node has its own name and its own core.
[ "$("$nodes_sh" exec 2 cat /proc/sys/kernel/hostname)" = "$NBC_NETNS_PREFIX-node2" ] || fail "node 2's host name"
[ "$("$nodes_sh" exec 1 nproc)" = 1 ] || fail "node 1 should have 1 core"

# tx_bytes: what node 2 has sent on its network interface so far.
tx_bytes() { "$nodes_sh" exec 2 cat /sys/class/net/eth0/statistics/tx_bytes; }

# Clock sync across the network stack. Both nodes share one clock, so the
# offset's truth is 0 (clocksync_check reports no true skew: the host names differ).
# The launcher's words for the hosts, one single-threaded rank per node: the
# one builder's (nbc-profile launch) for the build's profile.
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--as-root)
mapfile -t across < <("$TOOLS_DIR/nbc-profile" launch --build "$BUILD" --command "$MPIEXEC" \
    --mode hosts --hosts "$hosts" --rsh "$nodes_sh" --processes 2 --per-node 1 --threads 1 "${as_root[@]}")
[ ${#across[@]} -gt 0 ] || fail "nbc-profile launch gave no launcher for $BUILD"
# MPICH 4.0 over TCP may hang in MPI_Finalize once the figures are out
# (docs/running.md): the launcher is then stopped (launch_watched), as
# nbc-run does; the last line, key=value figures, says they are out.
figures_out() { grep -q '^barrier_skew_p50_us=.* late_barriers=' "$SCRATCH/check.out" 2>/dev/null; }
launch_watched figures_out "$SCRATCH/check.out" timeout -k 5 120 "$nodes_sh" run "${across[@]}" \
    "$BUILD/clocksync_check" --roundtrips 300 --barriers 30 --wait-s 1 ||
    fail "clocksync_check across the nodes: $(cat "$SCRATCH/check.out")"
out=$(grep -v '^note: the work is out' "$SCRATCH/check.out")
echo "$out"
line=$(grep '^rank=1 ' <<<"$out")
grep -q "host=$NBC_NETNS_PREFIX-node2" <<<"$line" || fail "rank 1 did not run on node 2: $line"
last=$(grep "^barrier_skew_p50_us=" <<<"$out" | tail -n 1) # the figures, whatever the launcher adds after
offset=$(kv offset_us "$line")
latency=$(kv latency_us "$line")
check_float "$latency > 0" || fail "latency $latency us"
# The truth is 0 (one clock). A min-RTT estimate errs by at most the
# asymmetry of its fastest round trips, bounded by their one-way latency
# (over TCP here: microseconds with MPICH, milliseconds with Open MPI's
# yielding progress), and never needs more than 50 us on a quiet link.
check_float "($offset) * ($offset) <= ($latency > 50 ? ($latency) * ($latency) : 2500)" ||
    fail "offset $offset us between two namespaces of one clock (latency $latency us)"
figure "2 netns nodes over TCP: clocksync offset $offset us (truth 0), latency $latency us," \
    "window barrier exit skew p50 $(kv barrier_skew_p50_us "$last") us p99 $(kv barrier_skew_p99_us "$last") us," \
    "late barriers $(kv late_barriers "$last") of 30"

# A small study through nbc-run, ibcast of megabytes from rank 0 (node 1) to node 2.
rx_before=$("$nodes_sh" exec 2 cat /sys/class/net/eth0/statistics/rx_bytes)
tiny_study 2ms,4ms,2 1 "$nodes_sh" run
[ $status -eq 0 ] || fail "nbc-run across the nodes: status $status; stderr: $(cat "$SCRATCH/stderr")"
rx=$(($("$nodes_sh" exec 2 cat /sys/class/net/eth0/statistics/rx_bytes) - rx_before))
dir=$(sed -n 's/^run folder: //p' <<<"$out")
[ -d "$dir" ] || fail "no run folder printed"
[ "$(json "$dir/meta.json" .nodes)" = 2 ] || fail "meta.json does not record 2 nodes"
[ "$(json "$dir/meta.json" .status)" = complete ] || fail "the run is not complete"
# 2 x 2 cells x (warm-up + 1 block) x 3 kinds x 2 ranks.
[ "$(kept_rows "$dir/raw.csv")" -eq 48 ] || fail "raw.csv: expected 48 kept rows"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["rank"] == 1 { found = 1 }
    END { exit !found }' "$dir/raw.csv" || fail "raw.csv has no row of rank 1"
for node in 1 2; do
    awk -F, -v host="$NBC_NETNS_PREFIX-node$node" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["host"] == host && $c["procs"] == 1 { found = 1 } END { exit !found }' "$dir/compute_ref.csv" ||
        fail "compute_ref.csv has no row of node $node's one rank: $(cat "$dir/compute_ref.csv")"
done
# Every overlap and comm_ref attempt broadcasts its bytes to node 2, and the
# communication calibration tried megabytes: all of it crossed node 2's eth0.
min_bytes=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["kind"] !~ /^comp_/ && $c["rank"] == 1 { s += $c["bytes"] } END { printf "%d", s }' "$dir/raw.csv")
[ "$rx" -ge "$min_bytes" ] || fail "node 2 received $rx bytes on eth0, the sweep alone broadcast $min_bytes"
[ "$rx" -ge 1000000 ] || fail "node 2 received only $rx bytes on eth0: the ranks did not talk over TCP"
hung=""
unwrap <"$SCRATCH/stderr" | grep -q "MPI_Finalize hang" && hung="; the ranks hung in MPI_Finalize and nbc-run stopped them"
figure "nbc-run on 2 netns nodes (2x2 cells, 1 rep): ${secs} s, node 2 received $((rx / 1000000)) MB over TCP" \
    "($((min_bytes / 1000000)) MB broadcast in the sweep)$hung"
