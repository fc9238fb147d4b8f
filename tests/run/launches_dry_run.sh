#!/usr/bin/env bash
# nbc-run --dry-run of a study with launches = 2 and two deployments prints,
# line by line in this order: each round runs every configuration once
# (interleaved: basic, manual, basic, manual), each run as bench_nbc up to its
# calibration (--stop-after calibration, --run-dir-file in the study folder),
# compute_ref --phase aa and --phase before, the sweep (bench_nbc --resume RUN_DIR),
# compute_ref --phase after, nbc-analyze; then one nbc-compare of the four
# run folders. The first launch of basic calibrates; every other run measures
# with its sizes (--set run.calibration_from=ITS_RUN_DIR), and it runs first
# even when the study names basic last. Shuffled, each round holds both
# configurations, in an order the seed fixes, the first round basic first.
# The library is the default build's (no MPI job runs).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
[ "$(nproc)" -ge 2 ] || skip "the expected commands assume >= 2 cores (2 ranks, one per core)"
make_scratch
R=$BENCH_NBC_ROOT
clean_env() { env -u MPI -u MPICC -u MPIEXEC -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@"; }
ask_make() { clean_env make -s --no-print-directory -C "$R" "$@"; }
D=$R/$(ask_make print-build-dir) DX=$(ask_make print-mpiexec) P=$(ask_make print-mpi-profile)
# The launcher's words for 2 ranks here, each with its share of the cores:
# the one builder's (nbc-profile launch), as a regex.
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--as-root)
cores=$(nproc)
# shellcheck disable=SC2016 # the $ is sed's, escaped for grep -E
launcher=$("$TOOLS_DIR/nbc-profile" launch "$P" --command "$DX" --processes 2 --per-node 2 \
    --threads $((cores / 2)) --cores-here "$cores" "${as_root[@]}" --quoted | sed 's/[][\.*^$()+?{}|]/\\&/g')
printf '[study]\nconfig = %s\ncollectives = ibcast\ndeployments = basic,manual\nlaunches = 2\nranks = 2\n[grid]\ncomm_times = 1ms,2ms,2\n' \
    "$R/configs/default.conf" >"$SCRATCH/study.conf"

# dry ARGS...: the printed commands (stdout), or the test fails.
dry() {
    out=$(clean_env ./nbc-run "$SCRATCH/study.conf" --no-deps --no-build \
        --set run.results_dir="$SCRATCH/results" --dry-run "$@" 2>"$SCRATCH/stderr") ||
        fail "nbc-run --dry-run $*: status $?: $(cat "$SCRATCH/stderr")"
    echo "== nbc-run $SCRATCH/study.conf $*"
    echo "$out"
}
# expected_run INDEX DEPLOYMENT LAUNCH [SIZES_FROM]: the 6 command lines of
# one run (regexes); SIZES_FROM: the run folder whose calibration it shares.
expected=()
expected_run() {
    local dir=$SCRATCH/results/YYYYmmdd-HHMMSS-$P-ibcast-$2-launch$3
    local from=${4:+ --set run.calibration_from=$4}
    expected+=(
        "\+ $launcher $D/bench_nbc -c $R/configs/default.conf --set grid.comm_times=1ms,2ms,2 --set run.results_dir=$SCRATCH/results --set run.collective=ibcast --set run.deployment=$2 --set run.mpi=$P$from --stop-after calibration --run-dir-file $SCRATCH/results/YYYYmmdd-HHMMSS-study/run-00$1.path"
        "\+ $D/compute_ref --run $dir --phase aa"
        "\+ $D/compute_ref --run $dir --phase before"
        "\+ $launcher $D/bench_nbc --resume $dir"
        "\+ $D/compute_ref --run $dir --phase after"
        "\+ $TOOLS_ABS/nbc-analyze --table=text $dir")
}
# check_lines: the output is the expected lines, one for one, in order.
check_lines() {
    mapfile -t lines <<<"$out"
    [ ${#lines[@]} -eq ${#expected[@]} ] || fail "${#lines[@]} command lines, expected ${#expected[@]}"
    for i in "${!expected[@]}"; do
        grep -Eqx -- "${expected[$i]}" <<<"${lines[$i]}" ||
            fail "line $((i + 1)): '${lines[$i]}'"$'\n'"does not match '${expected[$i]}'"
    done
}

dry
r=$SCRATCH/results/YYYYmmdd-HHMMSS-$P-ibcast
expected_run 1 basic 1
expected_run 2 manual 1 "$r-basic-launch1"
expected_run 3 basic 2 "$r-basic-launch1"
expected_run 4 manual 2 "$r-basic-launch1"
expected+=("\+ $TOOLS_ABS/nbc-compare ${r}-basic-launch1 ${r}-manual-launch1 ${r}-basic-launch2 ${r}-manual-launch2 -o $SCRATCH/results/[0-9]{8}-[0-9]{6}-compare-ibcast")
check_lines
interleaved=${#lines[@]}

# --launches on the command line overrides the study's: 3 rounds.
dry --launches 3
[ "$(grep -c -- '--stop-after calibration' <<<"$out")" = 6 ] || fail "--launches 3: expected 6 runs"
order() { grep -- '--stop-after' <<<"$out" | sed 's/.*run.deployment=\([a-z]*\) .*/\1/' | paste -sd' '; }
[ "$(order)" = "basic manual basic manual basic manual" ] || fail "--launches 3: order '$(order)'"
[ "$(grep -c -- "--set run.calibration_from=$SCRATCH/results/YYYYmmdd-HHMMSS-$P-ibcast-basic-launch1 " <<<"$out")" = 5 ] ||
    fail "--launches 3: expected 5 runs with the sizes of the first basic launch"
# basic named last still calibrates first, and the rounds still alternate.
dry --launches 2 --deployments manual,basic
[ "$(order)" = "basic manual manual basic" ] || fail "--deployments manual,basic: order '$(order)'"

# Shuffled: each round holds both deployments; the same seed, the same order;
# among 10 seeds some round does not run basic first.
not_interleaved=0
for seed in 1 2 3 4 5 6 7 8 9 10; do
    dry --launch-order shuffled --seed "$seed" --launches 3
    first=$(order)
    for round in 0 1 2; do
        pair=$(cut -d' ' -f$((2 * round + 1))-$((2 * round + 2)) <<<"$first")
        [ "$pair" = "basic manual" ] || [ "$pair" = "manual basic" ] || fail "seed $seed: round $round ran '$pair'"
        [ "$pair" = "basic manual" ] || not_interleaved=1
    done
    dry --launch-order shuffled --seed "$seed" --launches 3
    [ "$(order)" = "$first" ] || fail "seed $seed gave two orders: '$first', '$(order)'"
done
[ "$not_interleaved" = 1 ] || fail "10 seeds never shuffled a round"
figure "nbc-run --dry-run, launches 2 x 2 deployments: $interleaved command lines in the expected order;" \
    "shuffled rounds hold every configuration, the seed fixes the order"
