#!/usr/bin/env bash
# The default study on every MPI library and BLAS this machine offers: each
# row builds into its own build folder, runs `make run` (the default study,
# its figures) and reads the run's meta.json (with jq) for the library the
# run identified and how the BLAS ran one thread per call. One table line per
# row; exit status 1 when a row failed, rows whose packages are missing (and
# cannot be installed: not root) are skipped with the reason.
#
#   scripts/check-matrix.sh [--results DIR] [--rows NAME,NAME...]
#
# Rows (name: what is built, how):
#   mpich             Debian's MPICH through its wrapper mpicc.mpich (MPI=mpich)
#   openmpi-module    Open MPI reached only through a module-like folder that puts
#                     mpicc and mpiexec first on PATH (no MPI= given)
#   blis              BLIS, serial build (BLAS=blis)
#   openblas-pthread  OpenBLAS's pthreads build (the default; BLAS=openblas-pthread),
#                     run with OPENBLAS_NUM_THREADS=2: the suite must bring it to 1
#   openblas-serial   Debian's serial OpenBLAS (BLAS=openblas-serial): one
#                     computing thread per rank here, so never called at once
#   netlib            the netlib reference CBLAS (BLAS=generic)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

results="" only=""
while [ $# -gt 0 ]; do
    case "$1" in
    --results) results=${2:?--results needs a folder}; shift 2 ;;
    --rows) only=${2:?--rows needs names}; shift 2 ;;
    *) echo "check-matrix.sh: unknown argument '$1' (allowed: --results DIR, --rows NAME,...)" >&2; exit 2 ;;
    esac
done
command -v jq >/dev/null || { echo "check-matrix.sh: jq is needed (apt-get install jq)" >&2; exit 2; }
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_matrix.XXXXXX")
mkdir -p "$results" || exit 2
results=$(cd "$results" && pwd)

# One row per line: name | make variables | environment | Debian packages.
rows=(
    "mpich|MPI=mpich||mpich libmpich-dev"
    "openmpi-module|||openmpi-bin libopenmpi-dev"
    "blis|MPI=mpich BLAS=blis||libblis-serial-dev"
    "openblas-pthread|MPI=mpich BLAS=openblas-pthread|OPENBLAS_NUM_THREADS=2|libopenblas-pthread-dev"
    "openblas-serial|MPI=mpich BLAS=openblas-serial||libopenblas-serial-dev"
    "netlib|MPI=mpich BLAS=generic||libblas-dev"
)

# A module-like folder: mpicc and mpiexec of Open MPI first on PATH.
module_dir=$results/openmpi-module-bin
mkdir -p "$module_dir"
ln -sf "$(command -v mpicc.openmpi || echo /usr/bin/mpicc.openmpi)" "$module_dir/mpicc"
ln -sf "$(command -v mpiexec.openmpi || echo /usr/bin/mpiexec.openmpi)" "$module_dir/mpiexec"

packages_present() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
    done
}

printf '%-17s %-8s %-22s %-10s %-60s %s\n' row status library figures blas seconds
failed=0
for row in "${rows[@]}"; do
    IFS='|' read -r name vars envs packages <<<"$row"
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
    # shellcheck disable=SC2086 # package lists are space-separated words
    if command -v dpkg-query >/dev/null && ! packages_present $packages; then
        if [ "$(id -u)" -eq 0 ]; then
            # shellcheck disable=SC2086
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $packages \
                >"$results/$name.install.log" 2>&1 ||
                { printf '%-17s %-8s (apt-get install %s failed)\n' "$name" FAILED "$packages"; failed=1; continue; }
        else
            printf '%-17s %-8s (needs: apt-get install %s)\n' "$name" skipped "$packages"
            continue
        fi
    fi
    path=$PATH
    [ "$name" = openmpi-module ] && path=$module_dir:$PATH
    out=$results/$name
    mkdir -p "$out"
    start=$SECONDS
    # shellcheck disable=SC2086 # vars and envs are lists of NAME=VALUE words
    env PATH="$path" $envs make $vars run RUN_ARGS="--set run.results_dir=$out" \
        >"$results/$name.log" 2>&1
    status=$?
    secs=$((SECONDS - start))
    runs=$(find "$out" -name meta.json -printf '%h\n' | sort)
    pngs=$(find "$out" -name '*.png' | wc -l)
    if [ $status -ne 0 ] || [ -z "$runs" ]; then
        printf '%-17s %-8s (make run failed: %s)\n' "$name" FAILED "$results/$name.log"
        failed=1
        continue
    fi
    first=$(head -n 1 <<<"$runs")
    library=$(jq -r '.mpi_library.profile + " " + .mpi_library.version' "$first/meta.json" 2>/dev/null)
    blas=$(jq -r '.blas.name + " " + .blas.threading + " (" + (.blas.one_thread_per_call | tostring) + ")"' \
        "$first/meta.json" 2>/dev/null)
    verdict=ok
    [ "$(jq -r '.blas.one_thread_per_call' "$first/meta.json")" = true ] || verdict=FAILED
    [ "$pngs" -gt 0 ] || verdict=FAILED
    [ "$verdict" = ok ] || failed=1
    printf '%-17s %-8s %-22s %-10s %-60s %s\n' "$name" "$verdict" "$library" "$pngs PNG" \
        "${blas:0:60}" "$secs"
done
echo "logs and run folders in $results"
exit $failed
