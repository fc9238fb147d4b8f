#!/usr/bin/env bash
# Deployment dedicated across two "nodes" (scripts/netns-nodes.sh: network
# namespaces, MPICH over TCP), one rank per node with 2 cores each: meta.json
# must show every thread MPI_Init created on each rank (MPICH's progress
# thread among them) allowed only the rank's free core, confirmed; then the
# same for the suite's own thread (deployment thread). A 2-core machine
# gives both nodes the same 2 cores: slow (4 busy threads on 2 cores), so
# the grid is one short cell of the sleep kernel and a fixed message size
# (nothing to calibrate), whose timing is not the point: its window
# barrier, over TCP with 4 busy threads on 2 cores, was late beyond the
# default rule 21 times in a row (exit 5) in one of 3 runs; it allows 20 %.
# MPICH 4.0 over TCP may hang in MPI_Finalize once the run is written (4 of
# 13 runs here): the launcher is then stopped (launch_watched), as nbc-run
# does.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
nodes_sh=$BENCH_NBC_ROOT/scripts/netns-nodes.sh
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "'ip' (iproute2) is not installed"
command -v jq >/dev/null || skip "jq is not installed"
[ "$(nproc)" -ge 2 ] || skip "dedicated needs 2 cores per rank"
# dedicated binds a library progress thread: MPICH's (Open MPI has none).
use_mpi mpich bench_nbc
export NBC_NETNS_PREFIX=nd$$
ip netns add "$NBC_NETNS_PREFIX-probe" 2>/dev/null || skip "this kernel or sandbox refuses network namespaces"
ip netns del "$NBC_NETNS_PREFIX-probe"
make_scratch
trap '"$nodes_sh" down; rm -rf "$SCRATCH"' EXIT
"$nodes_sh" up 2 || fail "netns-nodes.sh up 2"
# Both nodes get the first two cores (the script records a node's cores as
# its eth0 alias).
both=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | head -n 2 | paste -sd,)
[[ $both =~ ^[0-9]+,[0-9]+$ ]] || both=0,1
for i in 1 2; do ip netns exec "$NBC_NETNS_PREFIX-node$i" ip link set eth0 alias "cpus=$both"; done
hosts=$("$nodes_sh" hosts)
# shellcheck disable=SC2154 # launch_flags ... rsh_flags: from the eval
mapfile -d '' -t across < <(
    eval "$("$TOOLS_DIR/nbc-profile" shell --build "$BUILD")"
    printf '%s\0' "${launch_flags[@]}" "${rsh_flags[@]}" "$nodes_sh" "${hosts_flag[@]}" "$hosts" \
        "${per_node_flags[@]//\{n\}/1}"
)
cell=(--set run.results_dir="$SCRATCH" --set grid.comm_times= --set grid.comm_sizes=64KiB
      --set grid.comp_times=4ms --set compute.kernel=sleep --set run.repetitions=1
      --set calibration.tolerance=0.9 --set run.null_share=0)
# run_done: the run's final meta.json is written (only MPI_Finalize is left:
# ranks that exit do so within a second, so a hung launch is stopped 2 s
# later, not lib.sh's 5; a stop keeps the run folder).
export FINALIZE_GRACE_S=2
run_done() { DIR=$(cat "$SCRATCH/run_dir" 2>/dev/null) && [ "$(meta_value "$DIR" status 2>/dev/null)" = complete ]; }
hung=()
for dep in dedicated thread; do
    rm -f "$SCRATCH/run_dir"
    # Exit 5 (the cell stopped late) is allowed: the threads' placement is
    # the point, and 4 busy threads on 2 cores skew the ranks' starts by a
    # scheduler tick (milliseconds), beyond any tolerance of a 4 ms cell.
    status=0
    launch_watched run_done "$SCRATCH/out" timeout -k 5 240 "$nodes_sh" run "$MPIEXEC" "${across[@]}" -n 2 \
        env -u MPICH_ASYNC_PROGRESS "$BENCH" "${QUICK[@]}" "${LOOSE_LATENESS[@]}" "${cell[@]}" \
        --set run.deployment=$dep --run-dir-file "$SCRATCH/run_dir" || status=$?
    [ $status -eq 0 ] || [ $status -eq 5 ] || fail "$dep across the nodes (status $status): $(cat "$SCRATCH/out")"
    [ "$FINALIZE_HUNG" = 0 ] || hung+=("$dep")
    DIR=$(cat "$SCRATCH/run_dir")
    [ "$(meta_value "$DIR" nodes)" = 2 ] || fail "$dep: $(meta_value "$DIR" nodes) nodes"
    for r in 0 1; do
        free=$(jq -r '.deployment_plan.progress_thread.cpus | join(",")' "$DIR/meta.json")
        if [ $dep = dedicated ]; then
            [ "$(meta_value "$DIR" progress_binding)" = confirmed ] || fail "dedicated: binding $(meta_value "$DIR" progress_binding)"
            jq -e --argjson r $r '.deployment_threads[$r].binding == "confirmed"' "$DIR/meta.json" >/dev/null ||
                fail "dedicated: rank $r not confirmed"
            role="created by MPI_Init"
        else
            role="suite progress thread"
        fi
        threads=$(jq -c --argjson r $r --arg role "$role" '[.deployment_threads[$r].threads[] | select(.role == $role)]' "$DIR/meta.json")
        [ "$(jq length <<<"$threads")" -ge 1 ] || fail "$dep: rank $r has no thread '$role'"
        # Rank 0's plan names the free core; every rank's is the same here.
        jq -e --arg f "$free" 'all(.cpus == $f)' <<<"$threads" >/dev/null ||
            fail "$dep: rank $r's threads not only on $free: $threads"
        if [ $dep = thread ]; then
            jq -e 'all(.tid > 0 and .cpu_s_sweep != null)' <<<"$threads" >/dev/null ||
                fail "thread: rank $r's suite thread without tid or CPU time: $threads"
        else
            jq -e '[.[] | select(.bound_by == "MPIR_CVAR_PROGRESS_THREAD_AFFINITY")] | length == 1' \
                <<<"$threads" >/dev/null || fail "dedicated: rank $r: MPICH's affinity setting did not place its thread: $threads"
        fi
    done
    figure "$dep across 2 namespace nodes: progress threads on CPU $free, $(jq -c '[.deployment_threads[].threads[] | {name, cpus, cpu_s_sweep}]' "$DIR/meta.json")"
done
[ ${#hung[@]} -eq 0 ] || figure "MPICH hung in MPI_Finalize after the run (stopped): ${hung[*]}"
