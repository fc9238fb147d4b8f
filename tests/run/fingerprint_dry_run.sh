#!/usr/bin/env bash
# nbc-run --fingerprint --dry-run plans a library's progress fingerprint:
# for each library, every deployment its profile allows on this placement
# (basic, progress, dedicated, thread) then MPI_Test polling at the study's
# periods (deployment manual with --set progress.test_period_us=P), the
# ways it cannot run skipped with the reason (Open MPI's missing progress
# thread from its profile, dedicated without a free core per rank; thread
# then shares the computing core, told so by progress.oversubscribe), and nbc-fingerprint over the study folder last. Bad input (a
# period that is not a number > 0, --deployments beside --fingerprint)
# exits 2 naming the key.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
cores=$(nproc)
{ command -v mpicc.mpich && command -v mpicc.openmpi; } >/dev/null ||
    skip "plans Debian's MPICH and Open MPI (apt-get install libmpich-dev libopenmpi-dev)"
make_scratch
cd "$BENCH_NBC_ROOT" || fail "no repository at $BENCH_NBC_ROOT"
# As many ranks as cores: one core per rank, so dedicated cannot run on any
# machine, thread shares the core, and a busy-polling library is not
# oversubscribed.
out=$(./nbc-run --fingerprint --mpi mpich,openmpi --ranks "$cores" --dry-run --no-deps --no-build \
    --tools-dir "$TOOLS_DIR" --set run.results_dir="$SCRATCH" 2>"$SCRATCH/stderr") ||
    fail "nbc-run --fingerprint --dry-run: status $?: $(cat "$SCRATCH/stderr")"
err=$(unwrap <"$SCRATCH/stderr")
echo "$out"
# The runs, in the fingerprint's order, each library's ways together.
runs=$(sed -n 's/^nbc-run: run [0-9]* of [0-9]*: \([^ ]*\) (launch.*/\1/p' <<<"$err" | tr '\n' ' ')
want="mpich-ibcast-basic mpich-ibcast-progress mpich-ibcast-thread mpich-ibcast-manual-100us "
want+="mpich-ibcast-manual-1000us openmpi-ibcast-basic openmpi-ibcast-thread "
want+="openmpi-ibcast-manual-100us openmpi-ibcast-manual-1000us "
[ "$runs" = "$want" ] || fail "planned runs: '$runs', expected '$want'"
# Each skipped way with its reason: the profile's, the placement's.
skip_reason() { grep -E "^nbc-run: skipping $1: " <<<"$err" | sed "s/^nbc-run: skipping $1: //"; }
skip_reason mpich-ibcast-dedicated | grep -q "needs >= 2 cores per rank" ||
    fail "mpich-ibcast-dedicated is not skipped for want of a free core: $err"
# thread shares the computing core, and says so to bench_nbc (and only it).
for mpi in mpich openmpi; do
    grep -E "^\+ .*bench_nbc .*--set progress\.oversubscribe=true .*--set run\.deployment=thread --set run\.mpi=$mpi( --set run\.calibration_from=[^ ]*)? --stop-after calibration" <<<"$out" >/dev/null ||
        fail "no bench_nbc launch of $mpi thread with progress.oversubscribe=true: $out"
done
[ "$(grep -c "progress.oversubscribe" <<<"$out")" -eq 2 ] || fail "progress.oversubscribe given to other runs than the 2 thread ones"
# (the profile's reason comes first: Open MPI has no thread to place at all)
for dep in progress dedicated; do
    skip_reason "openmpi-ibcast-$dep" | grep -q "^[a-z]* cannot run with Open MPI .*: Open MPI has no asynchronous progress thread" ||
        fail "Open MPI's $dep is not skipped with its profile's reason: $err"
done
[ "$(grep -c "^nbc-run: skipping " <<<"$err")" -eq 3 ] || fail "expected 3 ways skipped: $err"
# The polling runs get their period, and only they; no other deployment polls.
for period in 100 1000; do
    for mpi in mpich openmpi; do
        grep -E "^\+ .*bench_nbc .*--set progress\.test_period_us=$period .*--set run\.deployment=manual --set run\.mpi=$mpi( --set run\.calibration_from=[^ ]*)? --stop-after calibration" <<<"$out" >/dev/null ||
            fail "no bench_nbc launch of $mpi manual with progress.test_period_us=$period"
    done
done
[ "$(grep -c "test_period_us" <<<"$out")" -eq 4 ] || fail "progress.test_period_us given to other runs than the 4 polling ones"
# The page comes last, over the study folder.
last=$(grep -E "^\+ " <<<"$out" | tail -1)
[[ "$last" == "+ "*"/nbc-fingerprint $SCRATCH/YYYYmmdd-HHMMSS-study" ]] ||
    fail "the last command is not nbc-fingerprint over the study folder: $last"

# The study file's periods: one run per period, in the order given.
cat >"$SCRATCH/fp.conf" <<CONF
[study]
config = $BENCH_NBC_ROOT/configs/default.conf
fingerprint = 250
CONF
./nbc-run "$SCRATCH/fp.conf" --mpi mpich --ranks "$cores" --dry-run --no-deps --no-build \
    --set run.results_dir="$SCRATCH" >/dev/null 2>"$SCRATCH/stderr" || fail "a study file with fingerprint = 250: $(cat "$SCRATCH/stderr")"
unwrap <"$SCRATCH/stderr" | grep -q "run 4 of 4: mpich-ibcast-manual-250us" || fail "fingerprint = 250: $(cat "$SCRATCH/stderr")"

# Bad input: exit 2, the key named.
bad() {
    local what=$1 expected=$2
    shift 2
    ./nbc-run "$@" --dry-run --no-deps --no-build >/dev/null 2>"$SCRATCH/stderr"
    status=$?
    [ "$status" -eq 2 ] || fail "$what: status $status, expected 2"
    unwrap <"$SCRATCH/stderr" | grep -qF -- "$expected" || fail "$what: the message lacks '$expected': $(cat "$SCRATCH/stderr")"
}
bad "--deployments with --fingerprint" "--deployments: a fingerprint runs every deployment" \
    --fingerprint --mpi mpich --deployments basic
bad "polling given to every run of a fingerprint" "a fingerprint polls with MPI_Test in its own runs only" \
    --fingerprint --mpi mpich --set progress.test_period_us=50
sed -i 's/^fingerprint = .*/fingerprint = 100,0/' "$SCRATCH/fp.conf"
bad "a period of 0" "fingerprint: '100,0' is not a list of MPI_Test periods in us" "$SCRATCH/fp.conf" --mpi mpich
sed -i 's/^fingerprint = .*/fingerprint = 100,100/' "$SCRATCH/fp.conf"
bad "a period twice" "names a period twice" "$SCRATCH/fp.conf" --mpi mpich
figure "nbc-run --fingerprint plans 9 runs for MPICH and Open MPI (5 + 4 ways), 3 ways skipped with their reason; 4 bad inputs refused"
