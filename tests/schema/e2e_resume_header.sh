#!/usr/bin/env bash
# bench_nbc --resume reads a run folder's files by the schema's column
# names and refuses, with one message naming the file and the column, a
# file whose header is not this version's (another bench_nbc wrote it), on
# every rank with exit status 2, leaving the folder as it was; the same
# folder with its own headers resumes.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/../driver/lib_driver.sh"
make_scratch
expect_failing_launches
run=("${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" --set grid.comm_times=1ms
     --set grid.comp_times=1ms --set run.repetitions=2)
out=$(mpi_launch -n 2 "$BENCH" "${run[@]}" --stop-after calibration 2>&1) ||
    fail "the calibration run failed: $out"
dir=$(run_folder "$out")
[ -f "$dir/calib_comm.csv" ] || fail "no calib_comm.csv in $dir: $out"

# measured DIR: the files of DIR that --resume reads and trims.
measured() { (cd "$1" && md5sum calib_comp.csv calib_comm.csv passive.csv raw.csv sweep.csv 2>/dev/null); }

# refused DIR FILE COLUMN: --resume DIR exits 2 naming FILE and COLUMN, and
# trims none of the measurements of DIR.
refused() {
    local before after status
    before=$(measured "$1")
    out=$(mpi_launch -n 2 "$BENCH" --resume "$1" 2>&1)
    status=$?
    [ $status -eq 2 ] || fail "--resume of a folder with another $2 header: exit status $status, expected 2: $out"
    grep -q "$2.*'$3'" <<<"$out" || fail "the message does not name $2 and '$3': $out"
    after=$(measured "$1")
    [ "$before" = "$after" ] || fail "a refused --resume changed the folder's measurements"
}

# A column renamed in calib_comm.csv (another version's name).
renamed=$SCRATCH/renamed
cp -R "$dir" "$renamed"
header=$(head -n 1 "$dir/calib_comm.csv")
sed -i '1s/,t_comm_s,/,t_comm,/' "$renamed/calib_comm.csv"
[ "$(head -n 1 "$renamed/calib_comm.csv")" != "$header" ] || fail "calib_comm.csv's header has no t_comm_s: $header"
refused "$renamed" calib_comm.csv t_comm_s

# raw.csv of an older bench_nbc (one row per repetition: rep, retries).
older=$SCRATCH/older
cp -R "$dir" "$older"
echo "cell,collective,comm_target_s,comp_target_s,bytes,matrix_n,rep,kind,rank,t1_ns,t2_ns,t3_ns,t4_ns,retries" \
    >"$older/raw.csv"
refused "$older" raw.csv block

# The folder as written resumes and ends complete.
out=$(mpi_launch -n 2 "$BENCH" --resume "$dir" 2>&1) || fail "--resume of an untouched folder failed: $out"
[ "$(meta_value "$dir" status)" = complete ] || fail "the resumed run is not complete: $out"
figure "resume: headers of another version refused (calib_comm.csv, raw.csv), exit 2; own headers resume"
