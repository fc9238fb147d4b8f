#!/usr/bin/env bash
# A tiny run on 2 ranks: provenance.json holds one record per node with every
# section, and what a shell can read of the same system matches it (kernel
# release, CPU model, clock source, THP, the MPI library file loaded, an
# environment variable set for the test); meta.json names the file and
# records the warnings; the topology XML exists where the build has hwloc;
# mpit_cvars.csv lists the library's control variables.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
command -v jq >/dev/null || skip "needs jq"
make_scratch
marker="provenance-test-$$"
out=$(UCX_TEST_MARKER=$marker OMPI_MCA_bench_nbc_test_marker=$marker \
    MPICH_BENCH_NBC_TEST_MARKER=$marker mpi_launch -n 2 \
    "$BENCH" -c configs/default.conf "${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=1ms,2ms,2 --set grid.comp_times=1ms --set run.repetitions=1 2>&1) ||
    fail "run failed: $out"
dir=$(run_folder "$out")
[ -f "$dir/meta.json" ] || fail "no run folder: $out"
[ "$(meta_value "$dir" provenance)" = provenance.json ] || fail "meta.json provenance: $(meta_value "$dir" provenance)"
prov=$dir/provenance.json
[ -f "$prov" ] || fail "no provenance.json"
[ "$(jq -r type "$prov")" = array ] || fail "provenance.json is not an array"
nodes=$(meta_value "$dir" nodes)
[ "$(jq length "$prov")" -eq "$nodes" ] || fail "$(jq length "$prov") records for $nodes nodes"

# Every section and field docs/formats.md lists.
for path in host kernel.release kernel.proc_version kernel.cmdline.text cpu.model cpu.flags \
    cpu.microcode cpu.logical_cpus cpu.sockets cpu.cores cpu.threads_per_core cpu.smt_active \
    cpu.smt_siblings frequency.governors frequency.turbo memory.transparent_hugepages \
    memory.transparent_hugepages_defrag memory.hugepages numa topology clocks.clocksource \
    clocks.resolutions libraries.program libraries.loaded libraries.key build.compiler \
    build.cflags build.mpicc_show environment computing_cpus unavailable; do
    jq -e --arg p "$path" '.[0] | getpath($p | split(".")) != null' "$prov" >/dev/null ||
        fail "provenance.json lacks $path"
done

# What a shell reads of the same system.
field() { jq -r --arg p "$1" '.[0] | getpath($p | split(".")) | if type == "string" then . else tojson end' "$prov"; }
[ "$(field kernel.release)" = "$(uname -r)" ] || fail "kernel release $(field kernel.release), uname -r $(uname -r)"
[ "$(field host)" = "$(uname -n)" ] || fail "host $(field host)"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
[ "$(field cpu.model)" = "$model" ] || fail "CPU model '$(field cpu.model)', /proc/cpuinfo '$model'"
[ "$(field cpu.logical_cpus)" -eq "$(grep -c ^processor /proc/cpuinfo)" ] || fail "logical_cpus"
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
[ "$(field clocks.clocksource)" = "$clocksource" ] || fail "clock source $(field clocks.clocksource), sysfs $clocksource"
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
[ "$(field memory.transparent_hugepages)" = "$thp" ] || fail "THP $(field memory.transparent_hugepages), sysfs $thp"
[ "$(field cpu.smt_active)" = "$(cat /sys/devices/system/cpu/smt/active 2>/dev/null || echo unavailable)" ] ||
    fail "smt_active $(field cpu.smt_active)"
if [ -r /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor ]; then
    [ "$(jq -r '.[0].frequency.governors[0].governor' "$prov")" = "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)" ] ||
        fail "governor of CPU 0"
else
    [ "$(field frequency.governors)" = unavailable ] || fail "governors without cpufreq: $(field frequency.governors)"
    jq -e '.[0].unavailable | any(.fact == "frequency.governors" and (.path | test("cpu[0-9]+/cpufreq/scaling_governor")))' "$prov" >/dev/null ||
        fail "the governor's path tried is not recorded"
fi
# The MPI library the program is linked with, loaded, its real file resolved.
mpi_lib=$(ldd "$BENCH" | awk '$1 ~ /^libmpi(ch)?\.so/ { print $3; exit }')
[ -n "$mpi_lib" ] || fail "ldd finds no MPI library in $BENCH"
mpi_real=$(readlink -f "$mpi_lib")
jq -e --arg real "$mpi_real" '.[0].libraries.key | any(.role == "mpi" and .real_path == $real)' "$prov" >/dev/null ||
    fail "the MPI library $mpi_real is not among the key libraries: $(jq -c '.[0].libraries.key' "$prov")"
jq -e --arg base "$(basename "$mpi_lib")" '.[0].libraries.loaded | any(endswith("/" + $base))' "$prov" >/dev/null ||
    fail "$(basename "$mpi_lib") is not among the loaded libraries"
[ "$(field libraries.program)" = "$(readlink -f "$BENCH")" ] || fail "program $(field libraries.program)"
[ "$(field build.compiler)" = "$(gcc -dumpfullversion)" ] || fail "compiler $(field build.compiler), gcc $(gcc -dumpfullversion)"
# The test's variables reached every node's record.
for v in UCX_TEST_MARKER OMPI_MCA_bench_nbc_test_marker MPICH_BENCH_NBC_TEST_MARKER; do
    [ "$(jq -r --arg v "$v" '[.[] | .environment[$v]] | unique | join(" ")' "$prov")" = "$marker" ] ||
        fail "$v not recorded on every node"
done
# The compute team's CPUs: every rank's, those meta.json lists.
want=$(jq -r '[.binding[] | split(" ")[0] | split(",")[] | tonumber] | sort | join(",")' "$dir/meta.json")
got=$(jq -r '[.[].computing_cpus[]] | sort | join(",")' "$prov")
[ "$got" = "$want" ] || fail "computing_cpus $got, meta.json binding $want"
# Warnings: recorded as an array, each printed.
jq -e '.warnings | type == "array"' "$dir/meta.json" >/dev/null || fail "meta.json warnings"
while IFS= read -r w; do
    grep -qF "warning: $w" <<<"$out" || fail "warning not printed: $w"
done < <(jq -r '.warnings[]' "$dir/meta.json")
# The topology XML, where the build has hwloc.
if [ "$(field topology)" = unavailable ]; then
    jq -e '.[0].unavailable | any(.fact == "topology")' "$prov" >/dev/null || fail "topology unavailable without reason"
    echo "topology: $(jq -r '.[0].unavailable[] | select(.fact == "topology") | .reason' "$prov")"
else
    xml=$dir/$(field topology.file)
    [ -s "$xml" ] || fail "no $xml"
    grep -q '<topology' "$xml" || fail "$xml is not an hwloc topology"
fi
# MPI_T: the library's control variables.
cvars=$dir/mpit_cvars.csv
[ "$(head -n 1 "$cvars")" = index,name,datatype,value,enum_item,verbosity,scope,binding,description ] ||
    fail "mpit_cvars.csv header: $(head -n 1 "$cvars")"
rows=$(($(wc -l <"$cvars") - 1))
[ "$rows" -gt 10 ] || fail "mpit_cvars.csv has $rows variables"
[ "$rows" -eq "$(jq .mpi_t.cvars "$dir/meta.json")" ] || fail "mpi_t.cvars $(jq .mpi_t.cvars "$dir/meta.json"), file $rows"
awk -F, 'NF != 9 { exit 1 }' "$cvars" || fail "mpit_cvars.csv: a row without 9 fields"
jq -e '.collective_settings | length > 0' "$dir/meta.json" >/dev/null || fail "no collective_settings for ibcast"
figure "provenance: $(jq -r '.[0].cpu.model' "$prov"), kernel $(field kernel.release)," \
    "$(jq '.[0].libraries.loaded | length' "$prov") libraries loaded, $rows MPI_T control variables," \
    "$(jq '.warnings | length' "$dir/meta.json") warnings"
