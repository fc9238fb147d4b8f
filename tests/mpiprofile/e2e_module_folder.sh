#!/usr/bin/env bash
# Any MPI through its compiler wrapper, in a copy of the source tree: Debian's
# Open MPI reached only through a module-like folder (mpicc and mpiexec
# symlinks first on PATH, no MPI= given) builds into build/openmpi-<its
# version> (the version as its mpiexec says, not from the probe), launches
# with that folder's mpiexec, and a tiny run on 2 ranks names Open MPI in
# meta.json. A second make compiles nothing; another MPICC for the same
# folder recompiles every object (no stale object of another toolchain is
# linked); a wrapper whose programs cannot run here is named from mpi.h's
# macros, and make says so; MPICH, when installed, gets a folder of its own.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
{ command -v mpicc.openmpi && command -v mpiexec.openmpi; } >/dev/null ||
    skip "Debian's Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)"
make_scratch
src=$SCRATCH/src
mkdir -p "$src"
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$src"
else
    tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi
modules=$SCRATCH/modules/openmpi/bin
mkdir -p "$modules"
ln -s "$(command -v mpicc.openmpi)" "$modules/mpicc"
ln -s "$(command -v mpiexec.openmpi)" "$modules/mpiexec"
# m ARGS...: make in the copy, as a user with the module loaded (nothing of
# the make that runs the tests).
m() { (cd "$src" && env -u MPI -u MPICC -u MPIEXEC -u SAN -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    PATH="$modules:$PATH" nice make --no-print-directory "$@"); }
compiles() { grep -c -- ' -c ' <<<"$1" || true; }

version=$(mpiexec.openmpi --version | grep -o '[0-9][0-9.]*[0-9]' | head -n 1)
dir=$(m -s print-build-dir)
[ "$dir" = "build/openmpi-$version" ] || fail "build folder '$dir', expected build/openmpi-$version"
start=$SECONDS
out=$(m -j2 "$dir/bench_nbc" build/nbc-profile 2>&1) || fail "make with the module's mpicc: $out"
build_s=$((SECONDS - start))
objects=$(find "$src/$dir" -name '*.o' | wc -l)
[ "$(compiles "$out")" -ge "$objects" ] || fail "expected $objects objects compiled: $out"
# shellcheck disable=SC2154 # mpi_launcher: from the eval
launcher=$(eval "$("$src/build/nbc-profile" shell --build "$src/$dir")" && echo "$mpi_launcher")
[ "$launcher" = "$modules/mpiexec" ] || fail "launcher '$launcher', expected the module's $modules/mpiexec"

# A tiny run through the module's launcher, with its profile's flags.
BUILD=$src/$dir TOOLS_DIR=$src/build MPIEXEC=$launcher MPI_LAUNCH_FLAGS=()
out=$(mpi_launch -n 2 "$BUILD/bench_nbc" --set run.results_dir="$SCRATCH/results" \
    --set grid.comm_times=1ms --set grid.comp_times=1ms --set run.repetitions=1 \
    --set clocksync.roundtrips=200 --set clocksync.drift_gap_s=0.2s --set calibration.tolerance=0.3 \
    "${LOOSE_LATENESS[@]}" 2>&1) || fail "tiny run: $out"
meta=$(sed -n 's/^bench_nbc: run folder //p' <<<"$out")/meta.json
[ -f "$meta" ] || fail "no meta.json: $out"
[ "$(json_get "$meta" mpi)" = openmpi ] || fail "meta.json: mpi is $(json_get "$meta" mpi)"
[ "$(json_get "$meta" mpi_library display_name)" = "Open MPI" ] || fail "meta.json: display name"
[ "$(json_get "$meta" mpi_library version)" = "$version" ] || fail "meta.json: version"
[ "$(json_get "$meta" mpi_library profile_file)" = "$src/configs/mpi/openmpi.ini" ] ||
    fail "meta.json: profile file $(json_get "$meta" mpi_library profile_file)"

# Nothing to do a second time; everything again with another wrapper.
out=$(m "$dir/bench_nbc" 2>&1) || fail "second make: $out"
[ "$(compiles "$out")" = 0 ] || fail "the second make compiled again: $out"
start=$SECONDS
out=$(m -j2 MPICC=mpicc.openmpi "$dir/bench_nbc" build/nbc-profile 2>&1) || fail "make MPICC=mpicc.openmpi: $out"
rebuild_s=$((SECONDS - start))
[ "$(m -s MPICC=mpicc.openmpi print-build-dir)" = "$dir" ] || fail "another wrapper of the same library, another folder"
stale=$(find "$src/$dir" -name '*.o' ! -newer "$src/$dir/toolchain.stamp")
[ -z "$stale" ] || fail "objects of the previous wrapper kept after MPICC changed: $stale"
[ "$(compiles "$out")" -ge "$objects" ] || fail "MPICC changed but not every object was compiled: $out"
grep -q "wrapper=$(command -v mpicc.openmpi) " "$src/$dir/toolchain.stamp" || fail "the stamp does not name the new wrapper"

# A wrapper whose programs cannot run here (a cross compiler, a login node):
# the library named from mpi.h's macros, and a note saying so.
mkdir "$SCRATCH/cross"
printf '#!/bin/sh\nexec mpicc.openmpi "$@" -Wl,--dynamic-linker=/nonexistent/ld.so\n' >"$SCRATCH/cross/mpicc"
chmod +x "$SCRATCH/cross/mpicc"
out=$(m -s MPICC="$SCRATCH/cross/mpicc" print-build-dir 2>&1)
grep -qx "build/openmpi-$version" <<<"$out" || fail "from mpi.h's macros: $out"
grep -q "cannot run here .* named from mpi.h's macros: openmpi $version" <<<"$out" || fail "no note about the macros: $out"

# Side by side: MPICH's own folder.
if command -v mpicc.mpich >/dev/null; then
    other=$(m -s MPI=mpich print-build-dir)
    [[ $other == build/mpich-* ]] || fail "MPI=mpich: folder $other"
    side="; MPICH: $other"
fi
figure "module-like Open MPI: $dir, built in $build_s s, rebuilt in $rebuild_s s after MPICC changed ($objects objects)${side:-}"
