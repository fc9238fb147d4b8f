#!/usr/bin/env bash
# nbc-run --dry-run prints the commands of a study (launcher and its flags per
# library profile, one run per library x collective x deployment and launch:
# bench_nbc up to its calibration, compute_ref before, the sweep (--resume),
# compute_ref after, nbc-analyze; nbc-compare), skips what cannot run here
# with its reason, and refuses bad input with exit status 2. The build folders
# and launchers are make's (print-build-dir, print-mpiexec): --mpi auto is the
# library of the default wrapper, --mpi mpich|openmpi Debian's named ones.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
nbc_run=$BENCH_NBC_ROOT/nbc-run
cores=$(nproc)
[ "$cores" -ge 2 ] || skip "the expected commands assume >= 2 cores (here $cores)"
{ command -v mpicc.mpich && command -v mpicc.openmpi; } >/dev/null ||
    skip "compares Debian's MPICH and Open MPI (apt-get install libmpich-dev libopenmpi-dev)"

# Outside the make that runs the tests: the defaults, as a user has them.
clean_env() { env -u MPI -u MPICC -u MPIEXEC -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@"; }
# flatten FILE: its wrapped console lines joined back, one message a line.
flatten() { unwrap <"$1" >"$1.flat" && mv "$1.flat" "$1"; }
# dry STUDY ARGS...: the printed commands, or the test fails (its standard
# error flattened into $SCRATCH/stderr).
studies=0 bad_inputs=0
dry() {
    studies=$((studies + 1))
    out=$(clean_env "$nbc_run" "$@" --dry-run 2>"$SCRATCH/stderr") || fail "nbc-run $* --dry-run: status $?: $(cat "$SCRATCH/stderr")"
    flatten "$SCRATCH/stderr"
    echo "== nbc-run $*"
    echo "$out"
}
# expect REGEX: some printed line matches (grep -E, whole line).
expect() { grep -Eqx -- "$1" <<<"$out" || fail "no command line matching: $1"; }
count() { grep -Ec -- "$1" <<<"$out" || true; }
make_scratch
R=$BENCH_NBC_ROOT
# make ARGS... print-build-dir|print-mpiexec|print-mpi-profile, as nbc-run asks it.
ask_make() { clean_env make -s --no-print-directory -C "$R" "$@"; }
M=$R/$(ask_make MPI=mpich print-build-dir) MX=$(ask_make MPI=mpich print-mpiexec)
O=$R/$(ask_make MPI=openmpi print-build-dir) OX=$(ask_make MPI=openmpi print-mpiexec)
D=$R/$(ask_make print-build-dir) DX=$(ask_make print-mpiexec) P=$(ask_make print-mpi-profile)
# launcher PROFILE OPTIONS...: the launcher's words for a placement, from the
# one builder (nbc-profile launch; its words are tested in
# tests/mpiprofile/e2e_tool.sh), as a regex. nbc-run must ask it for the
# placement the options give (processes, threads, cores, hosts).
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--as-root)
launcher() {
    # shellcheck disable=SC2016 # the $ is sed's, escaped for grep -E
    "$TOOLS_DIR/nbc-profile" launch "$@" "${as_root[@]}" --quoted | sed 's/[][\.*^$()+?{}|]/\\&/g'
}
# Two ranks here: each computes with the threads of its share of the cores.
two=(--processes 2 --per-node 2 --threads $((cores / 2)) --cores-here "$cores")
echo "default build: $D ($P, $DX); MPICH: $M ($MX); Open MPI: $O ($OX)"

# make run's study: ibcast, deployments auto (basic, then the library's own
# progress thread where its profile has one, else the suite's: thread; no
# dedicated with one core per rank), the default wrapper's library (auto),
# 2 ranks, one per core; one comparison, of the deployments of ibcast.
dry configs/study-default.conf
expect "\+ make -C $R deps"
expect "\+ make -C $R programs"
S=$R/results/YYYYmmdd-HHMMSS-study
second=$(sed -n "s/^nbc-run: deployments auto for $P: basic,\([a-z]*\)\( (not dedicated: .*)\)\{0,1\}$/\1/p" "$SCRATCH/stderr")
case $P in
mpich) [ "$second" = progress ] || fail "deployments auto on MPICH: '$second', not progress: $(cat "$SCRATCH/stderr")" ;;
openmpi) [ "$second" = thread ] || fail "deployments auto on Open MPI: '$second', not thread: $(cat "$SCRATCH/stderr")" ;;
esac
[ -n "$second" ] || fail "no 'deployments auto' line naming basic first: $(cat "$SCRATCH/stderr")"
L=$(launcher "$P" --command "$DX" "${two[@]}")
# With one core per rank (ranks auto: min(2, cores)) the suite's thread
# shares the computing core, and nbc-run says so to bench_nbc.
cores=$(nproc)
ranks=$((cores < 2 ? cores : 2))
shares_thread=""
[ $((cores / ranks)) -eq 1 ] && shares_thread="--set progress.oversubscribe=true "
# 5 launches of 6 blocks, interleaved; every run measures with the sizes of
# the first launch of basic.
reference=$R/results/YYYYmmdd-HHMMSS-$P-ibcast-basic-launch1
for run in "basic 1 1" "$second 1 2" "basic 2 3" "$second 2 4" "basic 3 5" "$second 3 6" \
    "basic 4 7" "$second 4 8" "basic 5 9" "$second 5 10"; do
    read -r dep launch index <<<"$run"
    run_dir=$R/results/YYYYmmdd-HHMMSS-$P-ibcast-$dep-launch$launch
    shares="" from=""
    [ "$dep" = thread ] && shares=$shares_thread
    [ "$index" = 1 ] || from=" --set run.calibration_from=$reference"
    expect "\+ $L $D/bench_nbc -c $R/configs/default.conf ${shares}--set run.repetitions=6 --set run.visits=2 --set grid.comm_times=1ms,16ms,2 --set grid.comp_times=1ms,16ms,2 --set run.collective=ibcast --set run.deployment=$dep --set run.mpi=$P$from --stop-after calibration --run-dir-file $S/run-$(printf %03d "$index").path"
    expect "\+ $D/compute_ref --run $run_dir --phase before"
    expect "\+ $L $D/bench_nbc --resume $run_dir"
    expect "\+ $D/compute_ref --run $run_dir --phase after"
    expect "\+ $TOOLS_ABS/nbc-analyze --table=text $run_dir"
done
r=$R/results/YYYYmmdd-HHMMSS-$P-ibcast
expect "\+ $TOOLS_ABS/nbc-compare $r-basic-launch1 $r-$second-launch1 $r-basic-launch2 $r-$second-launch2 $r-basic-launch3 $r-$second-launch3 $r-basic-launch4 $r-$second-launch4 $r-basic-launch5 $r-$second-launch5 -o $R/results/[0-9]{8}-[0-9]{6}-compare-ibcast"
[ "$(count "/bench_nbc -c ")" = 10 ] || fail "10 bench_nbc runs expected"
# The same study on Open MPI, whose profile refuses progress: the suite's thread.
dry configs/study-default.conf --mpi openmpi --no-deps --no-build
grep -q "^nbc-run: deployments auto for openmpi: basic,thread" "$SCRATCH/stderr" ||
    fail "deployments auto on Open MPI: $(cat "$SCRATCH/stderr")"
expect "\+ .*/bench_nbc -c $R/configs/default.conf ${shares_thread}.* --set run.deployment=thread --set run.mpi=openmpi .*"

# Basic vs progress on MPICH, one collective: one comparison of the two.
dry configs/default.conf --mpi mpich --deployments basic,progress --no-deps --no-build --set run.results_dir=out
[ "$(count '^\+ (scripts|make)')" = 0 ] || fail "--no-deps --no-build still printed deps or make"
expect "\+ $(launcher mpich --command "$MX" "${two[@]}") $M/bench_nbc -c $R/configs/default.conf --set run.results_dir=$PWD/out --set run.collective=ibcast --set run.deployment=progress --set run.mpi=mpich --set run.calibration_from=$PWD/out/YYYYmmdd-HHMMSS-mpich-ibcast-basic --stop-after calibration --run-dir-file $PWD/out/YYYYmmdd-HHMMSS-study/run-002.path"
expect "\+ $TOOLS_ABS/nbc-compare $PWD/out/YYYYmmdd-HHMMSS-mpich-ibcast-basic $PWD/out/YYYYmmdd-HHMMSS-mpich-ibcast-progress -o $PWD/out/[0-9-]{15}-compare-ibcast"
# Its build: Debian's named wrapper.
dry configs/default.conf --mpi mpich
expect "\+ make -C $R MPI=mpich deps"
expect "\+ make -C $R MPI=mpich programs"

# Open MPI as root: --allow-run-as-root; one rank with all cores: --bind-to none.
dry configs/default.conf --mpi openmpi --ranks 1 --no-deps --no-build --set grid.comm_times=1ms,2ms,2
expect "\+ $(launcher openmpi --command "$OX" --processes 1 --per-node 1 --threads "$cores" --cores-here "$cores") $O/bench_nbc -c $R/configs/default.conf --set grid.comm_times=1ms,2ms,2 --set run.collective=ibcast --set run.deployment=basic --set run.mpi=openmpi --stop-after .*"
expect "\+ $O/compute_ref --run .* --phase before"
# Open MPI above the core count: --oversubscribe (it yields, MPICH would not).
dry configs/default.conf --mpi openmpi --ranks $((cores + 1)) --no-deps --no-build
expect "\+ $(launcher openmpi --command "$OX" --processes $((cores + 1)) --per-node $((cores + 1)) --threads 1 --cores-here "$cores") .*"
# (bench_nbc itself refuses more ranks than cores: the run would stop there.)

# Two libraries x progress: Open MPI has no progress thread, skipped with the reason.
dry configs/default.conf --mpi mpich,openmpi --deployments basic,progress --no-deps --no-build
[ "$(count "/bench_nbc -c ")" = 3 ] || fail "3 runs expected (openmpi-progress skipped)"
grep -q "skipping openmpi-ibcast-progress: .*Open MPI has no asynchronous progress thread" "$SCRATCH/stderr" ||
    fail "no reason given for skipping openmpi progress: $(cat "$SCRATCH/stderr")"
expect "\+ $TOOLS_ABS/nbc-compare .*mpich-ibcast-basic .*mpich-ibcast-progress .*openmpi-ibcast-basic -o .*-compare-ibcast"

# dedicated needs >= 2 cores per rank: skipped with 2 ranks on 2 cores, run with 1 rank.
if [ "$cores" -lt 4 ]; then
    dry configs/default.conf --mpi mpich --deployments basic,dedicated --no-deps --no-build
    grep -q "skipping mpich-ibcast-dedicated: dedicated .* needs >= 2 cores per rank" "$SCRATCH/stderr" ||
        fail "dedicated not skipped with its reason: $(cat "$SCRATCH/stderr")"
fi
dry configs/default.conf --mpi mpich --deployments dedicated --ranks 1 --no-deps --no-build
expect "\+ $M/compute_ref --run .*mpich-ibcast-dedicated --phase (before|after)"

# Several hosts with an ssh stand-in: one rank per host, compute_ref once per host.
dry configs/default.conf --mpi mpich --hosts h1,h2,h3 --rsh /bin/rsh-like --no-deps --no-build
# (cores per rank unknown here: threads 0)
L=$(launcher mpich --command "$MX" --mode hosts --hosts h1,h2,h3 --rsh /bin/rsh-like --processes 3 --per-node 1 --threads 0 --cores-here "$cores")
expect "\+ $L $M/bench_nbc .*"
expect "\+ $L $M/compute_ref --run .* --phase before"
expect "\+ $L $M/compute_ref --run .* --phase after"
expect "\+ $L $M/bench_nbc --resume .*"
dry configs/default.conf --hosts h1,h2 --mpi openmpi --no-deps --no-build
expect "\+ $(launcher openmpi --command "$OX" --mode hosts --hosts h1,h2 --processes 2 --per-node 1 --threads 0 --cores-here "$cores") .*"
# A word that needs quotes: shown as the shell reads it, the same as nbc-profile launch --quoted.
dry configs/default.conf --hosts 'h1,h 2' --rsh "/bin/rsh it's" --mpi openmpi --no-deps --no-build
expect "\+ $(launcher openmpi --command "$OX" --mode hosts --hosts 'h1,h 2' --rsh "/bin/rsh it's" --processes 2 --per-node 1 --threads 0 --cores-here "$cores") .*/bench_nbc .*"
grep -qF -- "--mca plm_rsh_agent '/bin/rsh it'\\''s' --host 'h1,h 2' " <<<"$out" ||
    fail "words with a space and a quote not shown single-quoted: $out"

# An installed copy (PREFIX/bin: nbc-run next to the programs and tools;
# PREFIX/share/bench_nbc: the configurations, cli/, nbc_run/, nbc_tools/ and the build's mpi-build.ini):
# no make, the configuration found in share/, everything relative to where it runs.
prefix=$SCRATCH/prefix
mkdir -p "$prefix/bin" "$prefix/share/bench_nbc" "$SCRATCH/elsewhere"
# (the real bench_nbc: nbc-run asks its deployment plan for the deployments)
cp "$nbc_run" "$TOOLS_DIR/nbc-profile" "$D/bench_nbc" "$prefix/bin/"
for prog in compute_ref nbc-analyze nbc-compare; do
    printf '#!/bin/sh\nexit 0\n' >"$prefix/bin/$prog"
    chmod +x "$prefix/bin/$prog"
done
cp -r "$R/configs" "$R/cli" "$R/nbc_run" "$R/nbc_tools" "$prefix/share/bench_nbc/"
printf '[build]\nprofile = %s\nversion = 1.0\nmpiexec = %s\n' "$P" "$DX" >"$prefix/share/bench_nbc/mpi-build.ini"
studies=$((studies + 1))
out=$(cd "$SCRATCH/elsewhere" && clean_env "$prefix/bin/nbc-run" configs/default.conf --dry-run 2>"$SCRATCH/stderr") ||
    fail "installed nbc-run --dry-run: $(cat "$SCRATCH/stderr")"
flatten "$SCRATCH/stderr"
echo "$out"
expect "\+ $(launcher "$P" --command "$DX" "${two[@]}") $prefix/bin/bench_nbc -c $prefix/share/bench_nbc/configs/default.conf --set run.collective=ibcast --set run.deployment=basic --set run.mpi=$P --stop-after calibration --run-dir-file $SCRATCH/elsewhere/results/YYYYmmdd-HHMMSS-study/run-001.path"
expect "\+ $prefix/bin/nbc-analyze --table=text $SCRATCH/elsewhere/results/YYYYmmdd-HHMMSS-$P-ibcast-basic"
[ "$(count '^\+ make')" = 0 ] || fail "an installed nbc-run ran make"

# Bad input: exit 2 and one message naming the option, the value and what is allowed.
bad() {
    bad_inputs=$((bad_inputs + 1))
    local want=$1
    shift
    clean_env "$nbc_run" --dry-run "$@" >"$SCRATCH/out" 2>&1
    local status=$?
    flatten "$SCRATCH/out"
    [ $status -eq 2 ] || fail "nbc-run $*: status $status, expected 2: $(cat "$SCRATCH/out")"
    grep -qE -- "$want" "$SCRATCH/out" || fail "nbc-run $*: message lacks '$want': $(cat "$SCRATCH/out")"
    [ "$(grep -c '^+ ' "$SCRATCH/out")" = 0 ] || fail "nbc-run $*: printed commands before refusing"
}
bad "unknown option '--bogus' \(allowed: --collectives" configs/default.conf --bogus
bad "--mpi: unknown value 'lam' \(allowed: auto,craympich,intelmpi,mpich,mvapich,mvapich2,openmpi,generic\)" configs/default.conf --mpi lam
# A profile whose library make does not find here: its build is another library's.
bad "--mpi intelmpi: .* is built with .* \(profile $P\)" configs/default.conf --mpi intelmpi
bad "--deployments: unknown value 'fast' \(allowed: basic,progress,dedicated,manual,thread\)" configs/default.conf --deployments basic,fast
bad "--deployments: auto chooses the deployments itself and takes no others \(allowed: auto, or names" configs/default.conf --deployments auto,basic
printf '[study]\nconfig = %s\ndeployments = basic,fast\n' "$R/configs/default.conf" >"$SCRATCH/study.conf"
bad "--deployments: unknown value 'fast' \(allowed: basic,progress,dedicated,manual,thread\)" "$SCRATCH/study.conf"
bad "--deployments: 'basic;progress' is not a comma-separated list" configs/default.conf --deployments 'basic;progress'
# The allowed deployments are those of the build's plan (bench_nbc --plan),
# not a list of nbc-run's: a bench_nbc whose plan knows other ones.
planned=$SCRATCH/planned
mkdir -p "$planned"
printf '[build]\nprofile = %s\nversion = 1.0\nmpiexec = %s\n' "$P" "$DX" >"$planned/mpi-build.ini"
printf '#!/bin/sh\necho %s\nexit 2\n' "'{\"status\":\"refused\",\"deployments\":[{\"name\":\"basic\"},{\"name\":\"newer\"}]}'" >"$planned/bench_nbc"
chmod +x "$planned/bench_nbc"
bad "--deployments: unknown value 'progress' \(allowed: basic,newer\)" configs/default.conf --build-dir "$planned" --deployments progress
dry configs/default.conf --build-dir "$planned" --deployments newer --no-deps --no-build
expect "\+ .*$planned/bench_nbc -c .* --set run.deployment=newer .*"
bad "--ranks: 'two' is not an integer" configs/default.conf --ranks two
bad "--set: 'grid' is not section.key=value" configs/default.conf --set grid
bad "--launcher: unknown value 'ssh' \(allowed: auto,mpiexec,srun\)" configs/default.conf --launcher ssh
bad "--launcher srun: not inside a Slurm allocation" configs/default.conf --launcher srun
bad "option --mpi needs a value" configs/default.conf --mpi
bad "no CONFIG given" --mpi mpich
bad "CONFIG: cannot read 'no/such.conf'" no/such.conf
bad "nothing to run" configs/default.conf --mpi openmpi --deployments progress
# MPICH above the core count: refused by the launch builder (the busy-poll rule).
bad "MPICH busy-polls: $((cores + 1)) ranks on $cores cores would slow every call" \
    configs/default.conf --mpi mpich --ranks $((cores + 1)) --no-deps --no-build
bad "launches: '0' is not an integer >= 1" configs/default.conf --launches 0
bad "launch_order: unknown value 'random' \(allowed: interleaved,shuffled\)" configs/default.conf --launch-order random
bad "seed: 'x' is not an integer >= 0" configs/default.conf --seed x
bad "--resume: $SCRATCH has no study.json" --resume "$SCRATCH"
printf '[study]\nconfig = %s\nsizes = 1\n' "$R/configs/default.conf" >"$SCRATCH/study.conf"
bad "unknown key study.sizes \(allowed: config, collectives, deployments, mpi, settings, ranks, launches, launch_order, seed, fingerprint\)" "$SCRATCH/study.conf"
printf '[study]\ncollectives = ibcast\n' >"$SCRATCH/study.conf"
bad "study.conf: \[study\] has no 'config' key" "$SCRATCH/study.conf"
# A configuration bench_nbc refuses: checked by bench_nbc itself (--plan) for
# every run before any is printed or launched; a real study writes nothing.
bad "mpich-ibcast-basic: bench_nbc refuses its configuration: config: --set: grid.comm_tims: unknown key \(did you mean grid.comm_times\?" \
    configs/default.conf --mpi mpich --no-deps --no-build --set grid.comm_tims=1ms
printf '[study]\nconfig = %s\ndeployments = basic\n[grid]\ncomp_times = 1,16,2\n' "$R/configs/default.conf" >"$SCRATCH/study.conf"
bad "grid.comp_times: \"1,16,2\" is not a duration grid \(\"1\" has no unit\)" "$SCRATCH/study.conf" --mpi mpich --no-deps --no-build
status=0
out=$(clean_env "$nbc_run" configs/default.conf --mpi mpich --no-deps --no-build --deployments basic,progress \
    --set run.results_dir="$SCRATCH/real" --set grid.comm_times=1,16,2 2>&1) || status=$?
[ $status -eq 2 ] || fail "a study with a refused configuration: status $status, expected 2: $out"
[ "$(unwrap <<<"$out" | grep -c 'has no unit')" = 1 ] || fail "the refusal is not said once: $out"
unwrap <<<"$out" | grep -q 'has no unit) (allowed: .*times with their unit s, ms or us' ||
    fail "the refusal does not name the units allowed: $out"
[ ! -e "$SCRATCH/real" ] || fail "a refused study wrote $(find "$SCRATCH/real")"
bad_inputs=$((bad_inputs + 1))

# A library setting as a study dimension (--settings or the study file's
# settings): one run per value, the variable before the launcher of bench_nbc
# (its environment), one comparison of the runs.
printf '[study]\nconfig = %s\nsettings = MPIR_CVAR_IBCAST_INTRA_ALGORITHM=sched_binomial,sched_smp\n' \
    "$R/configs/default.conf" >"$SCRATCH/study.conf"
dry "$SCRATCH/study.conf" --mpi mpich --no-deps --no-build
L=$(launcher mpich --command "$MX" "${two[@]}")
for value in sched_binomial sched_smp; do
    expect "\+ MPIR_CVAR_IBCAST_INTRA_ALGORITHM=$value $L $M/bench_nbc -c $R/configs/default.conf --set run.collective=ibcast --set run.deployment=basic --set run.mpi=mpich( --set run.calibration_from=$R/results/YYYYmmdd-HHMMSS-mpich-ibcast-basic-sched_binomial)? --stop-after calibration .*"
    expect "\+ MPIR_CVAR_IBCAST_INTRA_ALGORITHM=$value $L $M/bench_nbc --resume $R/results/YYYYmmdd-HHMMSS-mpich-ibcast-basic-$value"
    expect "\+ $M/compute_ref --run $R/results/YYYYmmdd-HHMMSS-mpich-ibcast-basic-$value --phase before"
done
expect "\+ $TOOLS_ABS/nbc-compare .*-mpich-ibcast-basic-sched_binomial .*-mpich-ibcast-basic-sched_smp -o .*-compare-ibcast"
[ "$(count "/bench_nbc -c ")" = 2 ] || fail "2 bench_nbc runs expected (one per value)"
# The study of MPICH's ibcast algorithms: one run per value.
dry configs/study-mpich-ibcast.conf --no-deps --no-build
[ "$(count "^\+ MPIR_CVAR_IBCAST_INTRA_ALGORITHM=[a-z_]+ $MX .*/bench_nbc -c ")" = 3 ] || fail "3 bench_nbc runs expected (one per algorithm)"
bad "settings: 'X=a b' is not NAME=VALUE,VALUE" configs/default.conf --settings "X=a b"
bad "settings: 'X=a,a' names a value twice" configs/default.conf --settings X=a,a

# A study file's other sections override its configuration, like --set.
printf '[study]\nconfig = %s\ncollectives = ialltoall\nranks = 1\n[grid]\ncomm_times = 1ms 3ms ; two\n' \
    "$R/configs/paper.conf" >"$SCRATCH/study.conf"
dry "$SCRATCH/study.conf" --mpi mpich --no-deps --no-build
expect "\+ $(launcher mpich --command "$MX" --processes 1 --per-node 1 --threads "$cores" --cores-here "$cores") $M/bench_nbc -c $R/configs/paper.conf --set 'grid.comm_times=1ms 3ms' --set run.collective=ialltoall .*"
figure "nbc-run --dry-run: $studies studies print the expected commands, $bad_inputs bad inputs exit 2"
