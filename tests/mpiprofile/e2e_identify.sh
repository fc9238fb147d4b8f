#!/usr/bin/env bash
# bench_nbc identifies the library it runs with (MPI_Get_library_version,
# before MPI_Init) against the profiles and says so in meta.json (read with a
# JSON parser): the build's profile with its file; with BENCH_NBC_PROFILES
# naming a folder where no profile matches, the generic profile and a
# warning (in meta.json and on standard error), the run folder named after
# it; a malformed profile file refuses the run (status 2, the file named).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$BENCH_NBC_ROOT/tests/driver/lib_driver.sh"
make_scratch
MPI_TIMEOUT_S=120
# tiny_run [ENV=VALUE...]: one 1 ms cell on 2 ranks into $SCRATCH/results; sets out, status, dir.
tiny_run() {
    out=$(for e in "$@"; do export "${e?}"; done &&
        mpi_launch -n 2 "$BENCH" "${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH/results" \
            --set grid.comm_times=1ms --set grid.comp_times=1ms --set run.repetitions=1 2>&1)
    status=$?
    dir=$(run_folder "$out")
    echo "$out"
}

tiny_run
[ $status -eq 0 ] || fail "tiny run: status $status"
[ "$(json_get "$dir/meta.json" mpi)" = "$MPI" ] || fail "meta.json: mpi is not $MPI"
[ "$(json_get "$dir/meta.json" mpi_library profile)" = "$MPI" ] || fail "meta.json: mpi_library.profile"
[ "$(json_get "$dir/meta.json" mpi_library profile_file)" = "$BENCH_NBC_ROOT/configs/mpi/$MPI.ini" ] ||
    fail "meta.json: profile_file is $(json_get "$dir/meta.json" mpi_library profile_file)"
[ "$(json_get "$dir/meta.json" mpi_library warnings)" = "[]" ] || fail "warnings for a known library"
version=$(json_get "$dir/meta.json" mpi_library version)
grep -q -- "-$MPI-ibcast-basic$" <<<"$dir" || fail "run folder not named after $MPI: $dir"
label=$(json_get "$dir/meta.json" mpi_library display_name)

# A folder of profiles none of which is this library: the generic profile.
mkdir "$SCRATCH/profiles"
printf '[library]\ndisplay_name = Other\nmatch = Other MPI v\n' >"$SCRATCH/profiles/other.ini"
tiny_run BENCH_NBC_PROFILES="$SCRATCH/profiles"
[ $status -eq 0 ] || fail "run with the generic profile: status $status"
[ "$(json_get "$dir/meta.json" mpi)" = generic ] || fail "meta.json: mpi is not generic"
[ "$(json_get "$dir/meta.json" mpi_library profile_file)" = null ] || fail "generic has no file"
warning=$(json_get "$dir/meta.json" mpi_library warnings 0)
grep -q "no profile of $SCRATCH/profiles matches this MPI library" <<<"$warning" ||
    fail "meta.json: no warning for an unknown library: $warning"
[ "$(grep -c "^bench_nbc: no profile of" <<<"$out")" = 1 ] || fail "the warning is not printed once"
grep -q -- "-generic-ibcast-basic$" <<<"$dir" || fail "run folder not named generic: $dir"

# A malformed profile: bad input.
printf '[library]\ndisplay_name = Other\nmatch = Other MPI v\nmatches = x\n' >"$SCRATCH/profiles/other.ini"
tiny_run BENCH_NBC_PROFILES="$SCRATCH/profiles"
[ $status -eq 2 ] || fail "a malformed profile: status $status, expected 2"
grep -q "other.ini: line 4: \[library\]: unknown key 'matches'" <<<"$out" || fail "the file is not named"
figure "bench_nbc identified $label $version (profile $MPI); an unknown library ran as generic with a warning"
