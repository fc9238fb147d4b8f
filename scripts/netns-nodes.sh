#!/usr/bin/env bash
# Several "nodes" on one machine: network namespaces joined by a bridge, each
# with its own address, host name and cores, so MPI ranks talk over TCP
# through a real network stack (DESIGN.md, "The machines here"). Needs root
# and iproute2.
#
#   scripts/netns-nodes.sh up [N]         create N nodes (default 2; with
#                                         NBC_NETNS_ALL_CPUS=1 each gets every core)
#   scripts/netns-nodes.sh down           remove them (safe to repeat)
#   scripts/netns-nodes.sh hosts          their addresses, comma-separated
#   scripts/netns-nodes.sh exec NODE CMD...   run CMD on node NODE (1..N)
#   scripts/netns-nodes.sh run CMD...     run CMD on node 1 with what an MPI
#                                         launch across the nodes needs (below)
#   scripts/netns-nodes.sh [-x] HOST CMD...   ssh stand-in: run the command
#                                         line CMD on HOST (Hydra calls it so)
#
# Node i is the namespace PREFIX-node<i>: address 127.77.0.<i+1>/24 on its
# eth0 (a veth on the bridge PREFIX-br; route_localnet lets 127.x leave the
# namespace), host name PREFIX-node<i> (a fresh UTS namespace per command)
# and its share of this machine's cores (taskset), so bench_nbc gives a node's
# rank that node's cores only. PREFIX is $NBC_NETNS_PREFIX (default nbc).
#
# `run` exports NBC_HOSTS (the addresses) and NBC_RSH (this script) for
# nbc-run, and what makes each library use TCP between the nodes instead of
# shared memory (they share one kernel) or skip 127.x addresses: MPICH over
# UCX UCX_TLS=tcp,self and MPIR_CVAR_NOLOCAL=1; Open MPI its TCP transport on
# eth0 (OMPI_MCA_btl=tcp,self, OMPI_MCA_btl_tcp_if_include=eth0,
# OMPI_MCA_oob_tcp_if_include=eth0). A library ignores the others' variables.
# The whole suite on 2 nodes (nbc-run launches with the library profile's
# --hosts/--rsh flags):
#   scripts/netns-nodes.sh up 2
#   scripts/netns-nodes.sh run ./nbc-run configs/default.conf --collectives ibcast
#   scripts/netns-nodes.sh down
# Or by hand with MPICH's Hydra (configs/mpi/mpich.ini, [launcher] rsh, hosts,
# per_node): scripts/netns-nodes.sh run "$(make -s MPI=mpich print-mpiexec)" \
#   -launcher ssh -launcher-exec "$PWD/scripts/netns-nodes.sh" \
#   -hosts "$(scripts/netns-nodes.sh hosts)" -ppn 1 -n 2 \
#   "$(make -s MPI=mpich print-build-dir)/clocksync_check"
# No added latency (this kernel has no netem); `tc ... tbf` on eth0 can cap
# the bandwidth.
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
prefix=${NBC_NETNS_PREFIX:-nbc}
bridge=$prefix-br
subnet=127.77.0

die() {
    echo "netns-nodes.sh: $*" >&2
    exit 2
}
ns_of() { echo "$prefix-node$1"; }
address_of() { echo "$subnet.$(($1 + 1))"; }

# The nodes that exist, in order: 1 2 ...
nodes() {
    ip netns list 2>/dev/null | awk -v p="$prefix-node" 'index($1, p) == 1 { print substr($1, length(p) + 1) }' |
        grep -E '^[0-9]+$' | sort -n
}
node_count() { nodes | wc -l; }

# share_of I N CPUS...: node I's share of CPUS among N nodes, comma-separated:
# a contiguous slice, or one CPU round-robin when nodes outnumber CPUs.
share_of() {
    local i=$1 n=$2
    shift 2
    local all=("$@") per
    if [ "$n" -ge ${#all[@]} ]; then
        echo "${all[$(((i - 1) % ${#all[@]}))]}"
        return
    fi
    per=$((${#all[@]} / n))
    local list=("${all[@]:$(((i - 1) * per)):$per}")
    (
        IFS=,
        echo "${list[*]}"
    )
}

# cpus_of I: node I's cores, recorded by `up` as the alias of its eth0 (read
# the same from the machine and from inside any node).
cpus_of() {
    local cpus
    cpus=$(ip -n "$(ns_of "$1")" -o link show eth0 | sed -n 's/.* alias cpus=\([0-9,]*\).*/\1/p')
    [ -n "$cpus" ] || die "node $1 has no cpus= alias on its eth0: recreate the nodes (down, up)"
    echo "$cpus"
}

# node_exec I ARGV...: ARGV inside node I (namespace, host name, cores).
node_exec() {
    local i=$1
    shift
    ip netns list | grep -qw "$(ns_of "$i")" || die "no node $i (nodes: $(nodes | tr '\n' ' '); 'up' creates them)"
    # shellcheck disable=SC2016 # $0 and $@ belong to the inner shell
    exec ip netns exec "$(ns_of "$i")" unshare --uts -- taskset -c "$(cpus_of "$i")" \
        sh -c 'echo "$0" > /proc/sys/kernel/hostname && exec "$@"' "$(ns_of "$i")" "$@"
}

# node_of HOST: the node number of an address, a node name or a number.
node_of() {
    local host=$1 i
    for i in $(nodes); do
        case $host in "$(address_of "$i")" | "$(ns_of "$i")" | "$i")
            echo "$i"
            return
            ;;
        esac
    done
    die "unknown host '$host' (nodes: $("$self" hosts))"
}

up() {
    local n=${1:-2} i ns
    [[ $n =~ ^[1-9][0-9]?$ ]] || die "up: '$n' is not a node count from 1 to 99"
    [ "$(id -u)" -eq 0 ] || die "up: network namespaces need root"
    command -v ip >/dev/null || die "up: 'ip' (iproute2) is not installed"
    [ -z "$(nodes)" ] || die "up: nodes $prefix-node* exist already ('down' removes them)"
    [ ${#bridge} -le 15 ] || die "NBC_NETNS_PREFIX '$prefix' is too long for interface names"
    ip link add "$bridge" type bridge
    ip link set "$bridge" up
    local cpus
    mapfile -t cpus < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
        awk -F- '{ if (NF == 2) for (c = $1; c <= $2; c++) print c; else print $1 }')
    for i in $(seq 1 "$n"); do
        ns=$(ns_of "$i")
        ip netns add "$ns"
        ip link add "$prefix-v$i" type veth peer name eth0 netns "$ns"
        ip link set "$prefix-v$i" master "$bridge" up
        ip netns exec "$ns" sh -e -c "
            sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.default.route_localnet=1
            ip link set lo up
            ip link set eth0 up
            sysctl -qw net.ipv4.conf.eth0.route_localnet=1
            ip addr add $(address_of "$i")/24 dev eth0
            ip link set eth0 alias cpus=$(share_of "$i" "$n" "${cpus[@]}")"
        # Several busy-polling ranks per node need more than their share.
        if [ "${NBC_NETNS_ALL_CPUS:-0}" = 1 ]; then
            ip -n "$ns" link set eth0 alias "cpus=$(IFS=,; echo "${cpus[*]}")"
        fi
    done
    echo "netns-nodes.sh: $n nodes up: $("$self" hosts)"
}

# down: like powering the nodes off, processes still inside them are killed
# (a hung MPI job would otherwise keep spinning after its test gave up).
down() {
    local i pids=()
    for i in $(nodes); do
        mapfile -t -O ${#pids[@]} pids < <(ip netns pids "$(ns_of "$i")" 2>/dev/null)
    done
    if [ ${#pids[@]} -gt 0 ]; then
        kill -TERM "${pids[@]}" 2>/dev/null || true
        sleep 1
        kill -KILL "${pids[@]}" 2>/dev/null || true
    fi
    for i in $(nodes); do
        ip link del "$prefix-v$i" 2>/dev/null || true
        ip netns del "$(ns_of "$i")" 2>/dev/null || true
    done
    ip link del "$bridge" 2>/dev/null || true
}

hosts() {
    local i list=()
    for i in $(nodes); do list+=("$(address_of "$i")"); done
    [ ${#list[@]} -gt 0 ] || die "hosts: no nodes ('up' creates them)"
    (
        IFS=,
        echo "${list[*]}"
    )
}

[ $# -gt 0 ] || die "usage: netns-nodes.sh up [N] | down | hosts | exec NODE CMD... | run CMD... | [-x] HOST CMD..."
case $1 in
up)
    shift
    up "$@"
    ;;
down) down ;;
hosts) hosts ;;
exec)
    [ $# -ge 3 ] || die "usage: netns-nodes.sh exec NODE CMD..."
    node=$(node_of "$2")
    shift 2
    node_exec "$node" "$@"
    ;;
run)
    [ $# -ge 2 ] || die "usage: netns-nodes.sh run CMD..."
    shift
    NBC_HOSTS=$(hosts)
    export NBC_HOSTS NBC_RSH=$self NBC_NETNS_PREFIX=$prefix UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 \
        OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
    node_exec 1 "$@"
    ;;
*)
    # The ssh stand-in: [options] HOST COMMAND-LINE (the words are joined and
    # given to sh -c on the host, as ssh does).
    while [ $# -gt 0 ]; do
        case $1 in
        -[ilopF]) shift 2 ;;
        -*) shift ;;
        *) break ;;
        esac
    done
    [ $# -ge 2 ] || die "as ssh: expected HOST COMMAND, got '$*'"
    node=$(node_of "$1")
    shift
    node_exec "$node" sh -c "$*"
    ;;
esac
