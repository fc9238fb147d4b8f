#!/usr/bin/env bash
# The Makefile's configure step: which MPI library the compiler wrapper
# really is, asked from the library itself. A probe (mpiprofile/probe.c) is
# built with the wrapper and run as a plain program, without a launcher; it
# prints MPI_Get_library_version (allowed before MPI_Init), which the profiles
# of configs/mpi/ identify. When the probe cannot run here (a cross
# compiler, a login node that refuses MPI programs), the macros of mpi.h
# name the library instead, and a note says so.
#
#   mpiprofile/configure.sh MPICC [CC]
#
# Prints the path of a make fragment, cached per wrapper in
# build/.mpi/<wrapper path>/config.mk, that defines MPI_WRAPPER (its path),
# MPI_PROFILE, MPI_LIBRARY_VERSION, MPI_IDENTIFIED_BY (probe or header) and
# MPI_DEFAULT_MPIEXEC (the mpiexec next to the wrapper, else the profile's
# launcher next to it or on PATH). Prints nothing when the library cannot be
# identified; the reason goes to standard error. The cache is redone when the
# wrapper, the profiles or this code change.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mpicc=${1:?usage: configure.sh MPICC [CC]}
cc=${2:-gcc}

say() { echo "make: $*" >&2; }

case $mpicc in
*/*) wrapper=$(cd "$(dirname "$mpicc")" 2>/dev/null && echo "$PWD/$(basename "$mpicc")") ;;
*) wrapper=$(command -v "$mpicc") ;;
esac
if [ -z "$wrapper" ] || [ ! -x "$wrapper" ]; then
    say "MPICC=$mpicc: no such MPI compiler wrapper on PATH (install an MPI library, load its" \
        "module, or give MPICC=/path/to/mpicc; MPI=mpich|openmpi name Debian's mpicc.mpich|mpicc.openmpi)"
    exit 0
fi
real=$(readlink -f "$wrapper")
cache=build/.mpi/$(printf '%s' "$wrapper" | tr -c 'A-Za-z0-9._-' '_')
mk=$cache/config.mk
sources=(configs/mpi mpiprofile deploy config cli VERSION)

fresh() { # fresh FILE INPUTS...: FILE exists and no input is newer
    local file=$1
    shift
    [ -f "$file" ] && [ -z "$(find "$@" -newer "$file" -print -quit 2>/dev/null)" ]
}
if fresh "$mk" "$real" "${sources[@]}" && grep -qxF "MPI_WRAPPER_REAL := $real" "$mk"; then
    echo "$mk"
    exit 0
fi
mkdir -p "$cache" || exit 0
tmp=$cache/tmp.$$
trap 'rm -f "$tmp".*' EXIT

# The profile reader, built with the plain compiler (no MPI in it).
tool=build/.mpi/nbc-profile
if ! fresh "$tool" "${sources[@]}"; then
    # shellcheck disable=SC2046 # pkg-config prints several words
    if ! "$cc" -std=c11 -O2 -D_GNU_SOURCE -I. -DMPIPROFILE_SOURCE_DIR="\"$PWD/configs/mpi\"" \
        -DBENCH_NBC_VERSION="\"$(cat VERSION)\"" -DBENCH_NBC_REVISION='"configure"' \
        mpiprofile/profile.c mpiprofile/profile_read.c mpiprofile/identify.c mpiprofile/launch.c mpiprofile/nbc_profile.c deploy/plan.c deploy/plan_json.c config/*.c cli/cli.c -o "$tmp.tool" \
        $(pkg-config --libs inih json-c 2>/dev/null || echo -linih -ljson-c) -lm 2>"$tmp.log"; then
        say "cannot build the MPI profile reader with $cc (are libinih and json-c installed?" \
            "make installs them, then run make again): $(head -c 600 "$tmp.log")"
        exit 0
    fi
    mv -f "$tmp.tool" "$tool"
fi

identified_by=probe
if ! "$wrapper" mpiprofile/probe.c -o "$tmp.probe" 2>"$tmp.log"; then
    say "MPICC=$mpicc cannot build a program with mpi.h: $(head -c 600 "$tmp.log")"
    exit 0
fi
if timeout 30 "$tmp.probe" >"$tmp.text" 2>"$tmp.log" </dev/null; then
    read -r profile version < <(BENCH_NBC_PROFILES=$PWD/configs/mpi "$tool" identify <"$tmp.text")
    cp "$tmp.text" "$cache/library-version.txt"
else
    identified_by=header
    why=$(head -c 300 "$tmp.log")
    echo '#include <mpi.h>' | "$wrapper" -dM -E -x c - >"$tmp.text" 2>/dev/null
    read -r profile version < <(BENCH_NBC_PROFILES=$PWD/configs/mpi "$tool" identify-macros <"$tmp.text")
    say "note: a program built with MPICC=$mpicc cannot run here (${why:-exit status not 0});" \
        "the library is named from mpi.h's macros: $profile $version"
fi
if [ -z "${profile:-}" ]; then
    say "cannot identify the MPI library of MPICC=$mpicc (the profile reader failed)"
    exit 0
fi

# The launcher: mpiexec<suffix> next to mpicc<suffix>, else the profile's
# launcher next to the wrapper or on PATH.
launcher=$(BENCH_NBC_PROFILES=$PWD/configs/mpi "$tool" shell "$profile" | sed -n 's/^mpi_launcher=//p')
dir=$(dirname "$wrapper") base=$(basename "$wrapper") mpiexec=""
case $base in mpicc*) [ -x "$dir/mpiexec${base#mpicc}" ] && mpiexec=$dir/mpiexec${base#mpicc} ;; esac
[ -n "$mpiexec" ] || { [ -x "$dir/$launcher" ] && mpiexec=$dir/$launcher; }
[ -n "$mpiexec" ] || mpiexec=$(command -v "$launcher") || mpiexec=$launcher

cat >"$tmp.mk" <<EOF
# Written by mpiprofile/configure.sh for MPICC=$mpicc.
MPI_WRAPPER := $wrapper
MPI_WRAPPER_REAL := $real
MPI_PROFILE := $profile
MPI_LIBRARY_VERSION := $version
MPI_IDENTIFIED_BY := $identified_by
MPI_DEFAULT_MPIEXEC := $mpiexec
EOF
mv -f "$tmp.mk" "$mk"
echo "$mk"
