#!/usr/bin/env bash
# nbc-profile, the profiles' interface for scripts: every profile of
# configs/mpi/ loads and is listed; the build's library is named; `shell`
# prints assignments bash reads back exactly (quotes, spaces, dollars);
# `env` gives a deployment's settings and the workarounds of a version and a
# collective only; `launch` gives the launcher's words for a placement (each
# [launcher] flag where the placement needs it, srun's options, words with
# spaces and quotes shown as a shell reads them back); BENCH_NBC_PROFILES
# chooses the folder; bad input and a malformed profile exit 2 with one
# message naming what is allowed.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
tool=$TOOLS_DIR/nbc-profile
[ -x "$tool" ] || fail "$tool is not built"
make_scratch
checks=0
check() { # check WHAT COMMAND...: the command succeeds
    checks=$((checks + 1))
    "${@:2}" || fail "$1"
}

mapfile -t names < <("$tool" list | cut -f1)
check "list: ${names[*]}" test "${names[*]}" = "craympich intelmpi mpich mvapich mvapich2 openmpi"
check "list: no display names" grep -qx $'openmpi\tOpen MPI' <("$tool" list)
check "build $BUILD is not $MPI" test "$("$tool" build "$BUILD")" = "$MPI"
check "identify" test "$("$tool" identify 'Intel(R) MPI Library 2021.6 for Linux* OS')" = "intelmpi 2021.6"
check "identify from stdin" test "$(printf 'MVAPICH2 Version      :\t2.3.7\n' | "$tool" identify)" = "mvapich2 2.3.7"

# A profile whose words need quoting, read back by bash.
mkdir "$SCRATCH/mpi"
cat >"$SCRATCH/mpi/odd.ini" <<'INI'
[library]
display_name = It's "odd" $HOME `x`
match = Odd MPI
[launcher]
command = /opt/odd mpi/bin/mpirun
no_bind = --bind 'none' $X
per_node = -N {n}
[deployment.progress]
unsupported = no thread; none at all
INI
fields=$(BENCH_NBC_PROFILES=$SCRATCH/mpi "$tool" shell odd) || fail "shell odd: $fields"
echo "$fields"
(
    # shellcheck disable=SC2154 # from the eval
    eval "$fields" && [ "$mpi_label" = "It's \"odd\" \$HOME \`x\`" ] &&
        [ "$mpi_launcher" = "/opt/odd mpi/bin/mpirun" ] && [ ${#nobind_flags[@]} -eq 3 ] &&
        [ "${nobind_flags[1]}" = "'none'" ] && [ "${nobind_flags[2]}" = "\$X" ] &&
        [ "${per_node_flags[1]}" = "{n}" ] && [ "$unsupported_progress" = "no thread; none at all" ] &&
        [ -z "$unsupported_basic" ] && [ "$busy_polls" = 0 ]
) || fail "the shell assignments do not read back: $fields"
checks=$((checks + 1))

# env: the deployment's settings, the workarounds of the version and collective.
env_of() { "$tool" env "$@" | tr '\n' ' '; }
check "mpich 4.0.2 allgather_init" test "$(env_of mpich 4.0.2 --collective allgather_init)" = "MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM=sched_ring "
check "mpich 4.1 allgather_init" test -z "$(env_of mpich 4.1 --collective allgather_init)"
check "mpich 4.0.2 ibcast" test -z "$(env_of mpich 4.0.2 --collective ibcast)"
check "mpich progress" test "$(env_of mpich 4.0.2 --deployment progress)" = "MPICH_ASYNC_PROGRESS=1 "
check "openmpi progress" test -z "$(env_of openmpi 4.1.4 --deployment progress)"

# launch: the words of the one builder (mpiprofile/launch.c), one a line.
launch_of() { "$tool" launch "$@" | paste -sd' '; }
check "mpich local" test "$(launch_of mpich --processes 2 --threads 1 --cores-here 2)" = "mpiexec -n 2"
check "openmpi local, root, one rank with 2 threads" \
    test "$(launch_of openmpi --processes 1 --threads 2 --cores-here 2 --as-root)" = \
    "mpiexec --allow-run-as-root --bind-to none -n 1"
check "openmpi above the cores: --oversubscribe" \
    test "$(launch_of openmpi --processes 3 --threads 1 --cores-here 2 --command mpiexec.openmpi)" = \
    "mpiexec.openmpi --oversubscribe -n 3"
check "openmpi, cores and threads unknown (a replay)" \
    test "$(launch_of openmpi --processes 2)" = "mpiexec --oversubscribe --bind-to none -n 2"
check "mpich hosts with an ssh stand-in" \
    test "$(launch_of mpich --mode hosts --hosts h1,h2,h3 --rsh /bin/rsh-like --processes 3 --per-node 1)" = \
    "mpiexec -launcher ssh -launcher-exec /bin/rsh-like -hosts h1,h2,h3 -ppn 1 -n 3"
check "openmpi hosts" test "$(launch_of openmpi --mode hosts --hosts h1,h2 --processes 4 --per-node 2)" = \
    "mpiexec --bind-to none --host h1,h2 --map-by ppr:2:node -n 4"
check "srun with the profile's plugin" \
    test "$(launch_of openmpi --mode slurm --srun --nodes 2 --processes 4 --per-node 2 --cpus-per-task 3)" = \
    "srun --nodes=2 --ntasks=4 --ntasks-per-node=2 --cpus-per-task=3 --mpi=pmix"
check "srun of a program without MPI" \
    test "$(launch_of mpich --mode slurm --srun --nodes 2 --processes 2 --per-node 1 --not-mpi)" = \
    "srun --nodes=2 --ntasks=2 --ntasks-per-node=1"
quoted=$(BENCH_NBC_PROFILES=$SCRATCH/mpi "$tool" launch odd --mode hosts --hosts 'a b' --rsh "it's" \
    --processes 2 --per-node 2 --quoted)
check "launch --quoted: $quoted" test "$quoted" = \
    "'/opt/odd mpi/bin/mpirun' --bind ''\''none'\''' '\$X' 'it'\''s' 'a b' -N 2 -n 2"
# The shell reads the quoted line back into the words (one a line).
words=$(eval "printf '%s\n' $quoted")
check "--quoted reads back as the words" test "$words" = \
    "$(BENCH_NBC_PROFILES=$SCRATCH/mpi "$tool" launch odd --mode hosts --hosts 'a b' --rsh "it's" --processes 2 --per-node 2)"

# Bad input: status 2, one message naming what is allowed.
bad() { # bad EXPECTED ARGS...
    checks=$((checks + 1))
    local want=$1 out status
    shift
    out=$("$tool" "$@" 2>&1)
    status=$?
    [ $status -eq 2 ] || fail "nbc-profile $*: status $status, expected 2: $out"
    grep -qF -- "$want" <<<"$out" || fail "nbc-profile $*: message lacks '$want': $out"
}
bad "unknown command 'show' (allowed: list, identify, identify-macros, build, shell, env, launch, plan, deployments)" show mpich
bad "--mode: unknown value 'cloud' (allowed: local, hosts, slurm)" launch mpich --processes 2 --mode cloud
bad "--processes: 'two' is not an integer >= 0" launch mpich --processes two
bad "launch: 0 processes (allowed: 1 or more)" launch mpich
bad "launch: mode hosts needs the hosts" launch mpich --mode hosts --processes 2
bad "MPICH busy-polls: 3 ranks on 2 cores would slow every call by orders of magnitude" \
    launch mpich --processes 3 --cores-here 2
bad "no profile 'lam' in" shell lam
bad "unknown option --colour" --colour list
bad "env needs NAME VERSION or --build BUILD_DIR" env mpich
printf '[library]\ndisplay_name = X\nmatch = X\n[launcher]\nbind = none\n' >"$SCRATCH/mpi/broken.ini"
bad "broken.ini: line 5: [launcher]: unknown key 'bind' (allowed in [launcher]: command, flags" \
    --profiles "$SCRATCH/mpi" list
"$tool" build "$SCRATCH" >"$SCRATCH/out" 2>&1
status=$?
check "build of a folder make did not write: status $status: $(cat "$SCRATCH/out")" test $status -eq 1
figure "nbc-profile: $checks checks of list, identify, build, shell, env, launch and bad input"
