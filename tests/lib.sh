# Shared helpers for the end-to-end test scripts (sourced, not run).
# shellcheck shell=bash
# Environment from the Makefile: BUILD, TOOLS_DIR, MPI_PROFILE (the build's
# library profile, e.g. mpich), MPIEXEC, BENCH_NBC_ROOT. Run by hand, a test
# asks make (MPI=NAME or MPICC=... choose the library, as for make).
set -u
: "${BENCH_NBC_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$BENCH_NBC_ROOT" || exit 1
: "${TOOLS_DIR:=build}"
# TOOLS_DIR as nbc-run prints it in its commands: absolute (build/san with SAN=1).
# shellcheck disable=SC2034 # used by the scripts that source this file
case $TOOLS_DIR in /*) TOOLS_ABS=$TOOLS_DIR ;; *) TOOLS_ABS=$BENCH_NBC_ROOT/$TOOLS_DIR ;; esac
if [ -z "${BUILD:-}" ]; then
    BUILD=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory print-build-dir)
fi
# build_field NAME: a field of the build's profile (nbc-profile shell --build).
build_field() {
    local fields
    fields=$(BENCH_NBC_PROFILES="" "$TOOLS_DIR/nbc-profile" shell --build "$BUILD" 2>/dev/null) || return 0
    (eval "$fields" && echo "${!1:-}")
}
# MPI: the profile of the build's library, for the tests; not exported, as
# MPI=NAME means Debian's mpicc.NAME to make (a make a test runs must use the
# build's wrapper, which MAKEFLAGS and MPICC carry).
MPI=${MPI_PROFILE:-$(build_field mpi_profile)}
export -n MPI
: "${MPIEXEC:=$(build_field mpi_launcher)}"

skip() { echo "skip: $*"; exit 77; }

# clean_make ARGS...: make in the repository with none of the variables of
# the make running the tests (its command line in MAKEFLAGS, the build it
# exported), but its SAN; ARGS choose the build (e.g. MPI=mpich).
clean_make() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MPI -u MPICC -u MPIEXEC -u MPI_PROFILE -u BUILD -u TOOLS_DIR \
        make -s --no-print-directory -C "$BENCH_NBC_ROOT" SAN="${SAN:-}" "$@"
}

# use_mpi NAME [PROGRAM...]: the rest of the test runs with the library NAME
# (a profile name, e.g. mpich: Debian's mpicc.NAME, as `make MPI=NAME`)
# instead of the build's: nothing to do when the build's library is NAME;
# else the PROGRAMs of its build folder (e.g. bench_nbc compute_ref) are
# built with `make MPI=NAME` (make's own up-to-date check: once per make
# check, the tests running one after another) and BUILD, MPIEXEC, MPI, the
# launch flags and BENCH (when set) become that build's. USE_MPI_MAKE then
# holds the make variables of that build, for a test's own make. Where NAME
# is not installed: as root, scripts/deps.sh installs it (`make deps
# MPI=NAME`); otherwise the test skips, naming the install command.
USE_MPI_MAKE=()
use_mpi() {
    local name=$1 build mpiexec profile missing="" program
    shift
    [ "$MPI" = "$name" ] && return 0
    profile=$(clean_make MPI="$name" print-mpi-profile 2>/dev/null)
    if [ "$profile" != "$name" ]; then
        if [ "$(id -u)" -eq 0 ]; then
            echo "note: this build's library is $MPI and $name is not installed: installing it (make deps MPI=$name)"
            clean_make MPI="$name" deps DEPS_FOR=check >&2
            profile=$(clean_make MPI="$name" print-mpi-profile 2>/dev/null)
            missing="scripts/deps.sh did not install it (its output above)"
        else
            # deps.sh names the missing pieces and this system's install command.
            missing=$(clean_make MPI="$name" deps DEPS_FOR=check 2>&1 | grep -m 1 '<- this system' |
                sed -e 's/^ *[^:]*: *//' -e 's/ *<- this system//')
        fi
        [ "$profile" = "$name" ] ||
            skip "needs the library $name (this build's is $MPI), not installed${missing:+: $missing}"
    fi
    build=$(clean_make MPI="$name" print-build-dir) || fail "make MPI=$name print-build-dir failed"
    mpiexec=$(clean_make MPI="$name" print-mpiexec) || fail "make MPI=$name print-mpiexec failed"
    local -a make_goals=()
    for program in "$@"; do make_goals+=("$build/$program"); done
    if [ ${#make_goals[@]} -gt 0 ]; then
        # every core: this build runs inside the test's time
        clean_make -j"$(nproc 2>/dev/null || echo 1)" MPI="$name" "${make_goals[@]}" >&2 ||
            fail "make MPI=$name ${make_goals[*]} failed"
    fi
    echo "note: this build's library is $MPI: running with $name ($build, $mpiexec)"
    BUILD=$build MPIEXEC=$mpiexec MPI=$name MPI_PROFILE=$name MPI_LAUNCH_FLAGS=()
    export BUILD MPIEXEC MPI_PROFILE
    # shellcheck disable=SC2034 # used by the scripts that source this file
    USE_MPI_MAKE=(MPI="$name")
    [ -z "${BENCH+set}" ] || BENCH=$BUILD/bench_nbc
}
# For runs that test files, identity, plumbing or clock models, not the
# sweep's timing: a 1 ms cell on this 2-core machine leaves the window
# barrier later than 1 % of its reference in 16-40 % of attempts (measured),
# sometimes 20 in a row, so under the default rule a one-cell run may stop
# `late` and exit 5; these runs allow 20 % and more retries.
# shellcheck disable=SC2034 # used by the scripts that source this file
LOOSE_LATENESS=(--set run.late_tolerance=0.2 --set run.max_retries=100)
fail() { echo "FAILED: $*"; exit 1; }
figure() { echo "figure: $*"; }
# unwrap: standard input with each console line that continues on the lines
# indented under it (4 spaces: the console's wrapping, nbc_tools/cli.py
# console_lines) joined back into one line.
unwrap() {
    awk '/^    / && held { sub(/^ +/, " "); line = line $0; next }
         { if (held) print line; line = $0; held = 1 } END { if (held) print line }'
}

# mpi_launch ARGS...: the build's launcher with what its profile says it
# needs here (as root, more ranks than cores, ranks computing with several
# threads: e.g. Open MPI's --allow-run-as-root --oversubscribe --bind-to
# none), under a time limit so a hang fails the test instead of the CI run.
MPI_LAUNCH_FLAGS=()
mpi_launch() {
    if [ ${#MPI_LAUNCH_FLAGS[@]} -eq 0 ]; then
        local fields
        # (The repository's profiles, whatever folder a test gives bench_nbc.)
        fields=$(BENCH_NBC_PROFILES="" "$TOOLS_DIR/nbc-profile" shell --build "$BUILD") ||
            fail "cannot read the MPI profile of $BUILD ($TOOLS_DIR/nbc-profile)"
        mapfile -d '' -t MPI_LAUNCH_FLAGS < <(
            eval "$fields"
            # shellcheck disable=SC2154 # assigned by the eval
            flags=("${launch_flags[@]}" "${oversubscribe_flags[@]}" "${nobind_flags[@]}")
            # shellcheck disable=SC2154
            [ "$(id -u)" -eq 0 ] && flags+=("${root_flags[@]}")
            printf '%s\0' -- "${flags[@]}" # "--": read once, even with no flags
        )
    fi
    local extra=("${MPI_LAUNCH_FLAGS[@]:1}")
    # Under SAN=1, LeakSanitizer's stop-the-world tracer sometimes crashes at
    # the exit of MPI programs (with the transport's threads); their leaks are
    # checked by the valgrind test of the plain build instead.
    if [ -n "${SAN:-}" ]; then
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout -k 5 "${MPI_TIMEOUT_S:-300}" \
            "$MPIEXEC" "${extra[@]}" "$@"
        return
    fi
    timeout -k 5 "${MPI_TIMEOUT_S:-300}" "$MPIEXEC" "${extra[@]}" "$@"
}

# expect_failing_launches: for a test whose launches end with a non-zero
# status on purpose and that signals no rank. Open MPI's launcher, once a
# rank has exited with an error, waits odls_base_sigkill_timeout (1 s)
# before it kills the rest and returns; every rank has already exited (bad
# input exits 2 on every rank), so the wait only costs time. (A test that
# stops ranks with a signal needs that grace: it is not set globally.)
expect_failing_launches() { export OMPI_MCA_odls_base_sigkill_timeout=0; }

# launch_watched DONE LOG CMD...: CMD (an MPI launch; its output into LOG)
# under the guard nbc-run keeps for MPICH 4.0 over TCP, whose ranks may hang
# in MPI_Finalize after their work (docs/running.md, known problem): once the
# command DONE succeeds (checked every second: the work is out, e.g. the
# final meta.json) and the ranks have not exited FINALIZE_GRACE_S (5) later,
# the launch is stopped, said so, FINALIZE_HUNG set to 1, and its status is 0.
# Otherwise CMD's status. (nbc-run waits 20 s; a test checks what the work
# wrote, which a stop cannot spoil, and ranks that do exit here do so within
# a second: a longer wait would only cost time.)
FINALIZE_HUNG=0
launch_watched() {
    local finished=$1 log=$2 pid waited=0 done_at=-1 grace=${FINALIZE_GRACE_S:-5}
    shift 2
    FINALIZE_HUNG=0
    "$@" >"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        waited=$((waited + 1))
        [ "$done_at" -ge 0 ] || ! "$finished" || done_at=$waited
        if [ "$done_at" -ge 0 ] && [ $((waited - done_at)) -ge "$grace" ]; then
            echo "note: the work is out but the ranks have not exited $grace s later (MPI_Finalize hang): stopping the launcher"
            # shellcheck disable=SC2034 # read by the scripts that source this file
            FINALIZE_HUNG=1
            kill -TERM "$pid"
            wait "$pid"
            return 0
        fi
    done
    wait "$pid"
}

# json_get FILE KEY...: the value at that path of a JSON file, read with a
# JSON parser (jq, else python3): strings as they are, anything else as JSON
# ("null" when absent). Keys that are numbers index arrays.
json_get() {
    local file=$1
    shift
    if command -v jq >/dev/null; then
        jq -r 'getpath($ARGS.positional | map(tonumber? // .)) | if type == "string" then . else tojson end' \
            "$file" --args "$@"
    elif command -v python3 >/dev/null; then
        python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = (v[int(k)] if isinstance(v, list) and len(v) > int(k) else None) if k.isdigit() else (v.get(k) if isinstance(v, dict) else None)
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":")))' "$file" "$@"
    else
        skip "reading JSON needs jq or python3 (apt-get install jq)"
    fi
}

# kv KEY TEXT: the value of KEY=value in TEXT (first match).
kv() { grep -o "\b$1=[^ ]*" <<<"$2" | head -n 1 | cut -d= -f2; }

# check_float EXPR: awk-evaluated condition on numbers, e.g. "1.5 < 20".
check_float() { awk "BEGIN { exit !($1) }"; }

# A scratch folder removed at exit.
make_scratch() {
    SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_test.XXXXXX")
    # A failed test keeps its run folders for the post-mortem (raw.csv holds
    # every attempt's lateness); a passing one leaves nothing behind.
    trap 'keep_scratch_on_failure $?' EXIT
}
keep_scratch_on_failure() {
    if [ "$1" -eq 0 ] || [ "$1" -eq 77 ]; then # passed or skipped
        rm -rf "$SCRATCH"
    else
        echo "scratch kept for the post-mortem: $SCRATCH"
    fi
}
