#!/usr/bin/env bash
# One job of two studies on 2 ranks (run.collectives=ibcast,iallreduce, one
# cell each): both run folders complete, each with its MPI_T records
# (mpit_cvars.csv, meta.json's mpi_t). The second study initialises the
# tool interface again after the first study's end, which MPICH 4.0.2
# survives only while the job holds its own reference (runfolder/mpit.c).
# (e2e_many_collectives covers the shared clock and calibration on 4 ranks,
# where the machine has the cores.)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
command -v jq >/dev/null || skip "needs jq (apt-get install jq)"
make_scratch
out=$(mpi_launch -n 2 "$BENCH" -c configs/default.conf --set run.results_dir="$SCRATCH" "${QUICK[@]}" \
    --set run.collectives=ibcast,iallreduce --set compute.kernel=sleep --set grid.comm_times=2ms \
    --set grid.comp_times=2ms --set run.repetitions=2 --set run.half_width=0 \
    "${LOOSE_LATENESS[@]}" --set calibration.max_bytes=64MiB 2>&1) ||
    fail "the job of two studies exited $?: $out"
mapfile -t dirs < <(sed -n 's/^bench_nbc: run folder //p' <<<"$out")
[ ${#dirs[@]} -eq 2 ] || fail "${#dirs[@]} run folders, expected 2: $out"
for dir in "${dirs[@]}"; do
    [ "$(meta_value "$dir" status)" = complete ] || fail "$dir: status $(meta_value "$dir" status)"
    [ -s "$dir/mpit_cvars.csv" ] || fail "$dir: no mpit_cvars.csv"
    jq -e '.mpi_t.cvars_file == "mpit_cvars.csv"' "$dir/meta.json" >/dev/null ||
        fail "$dir: meta.json mpi_t $(jq -c .mpi_t "$dir/meta.json")"
done
figure "one job, 2 studies on 2 ranks: both complete with their MPI_T records"
