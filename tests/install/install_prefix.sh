#!/usr/bin/env bash
# make install: with DESTDIR, every program, nbc-run, the configurations
# (configs/mpi, configs/slurm), README, docs and both module files land under
# the stage, the module files naming the final PREFIX. Then an install into a
# scratch prefix runs a tiny study (ibcast, MPICH: use_mpi, 2 ranks,
# 2 x 2 cells) from another directory, with the source tree hidden (an empty file system over
# it, in a mount namespace of its own; from another directory only when that
# is refused), and the module files of the install put that prefix on PATH.
# The installed nbc-run finds its programs, configurations and library
# profiles by itself.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/install/lib_install.sh
source "$BENCH_NBC_ROOT/tests/install/lib_install.sh"
make_scratch
programs=(bench_nbc compute_ref clocksync_check nbc-analyze nbc-compare nbc-profile nbc-run)
install_into() { # install_into MAKE-VARIABLES...: the test's build (use_mpi's once switched)
    if [ ${#USE_MPI_MAKE[@]} -gt 0 ]; then
        # every core: the programs of that build may be built here, in the test's time
        clean_make -j"$(nproc 2>/dev/null || echo 1)" "${USE_MPI_MAKE[@]}" install "$@"
    else
        make_here install "$@"
    fi >"$SCRATCH/install.log" 2>&1 || fail "make install ${USE_MPI_MAKE[*]} $*: $(cat "$SCRATCH/install.log")"
}

version=$(cat "$BENCH_NBC_ROOT/VERSION")
# ---- the layout, staged ------------------------------------------------------
install_into DESTDIR="$SCRATCH/stage" PREFIX=/opt/bench_nbc
stage=$SCRATCH/stage/opt/bench_nbc
for p in "${programs[@]}"; do [ -x "$stage/bin/$p" ] || fail "bin/$p is not installed"; done
share=$stage/share/bench_nbc
for f in README.md docs/running.md docs/formats.md analysis/README.md configs/default.conf \
    configs/study-default.conf configs/mpi/mpich.ini configs/slurm/bench_nbc.sbatch configs/slurm/common.sh \
    "modulefiles/lmod/bench_nbc/$version.lua" "modulefiles/tcl/bench_nbc/$version"; do
    [ -s "$share/$f" ] || fail "share/bench_nbc/$f is not installed"
done
# One file per version, naming PREFIX, the version and no MPI module (MODULE_MPI empty).
lmod_file=$share/modulefiles/lmod/bench_nbc/$version.lua tcl_file=$share/modulefiles/tcl/bench_nbc/$version
grep -qx 'local prefix = "/opt/bench_nbc"' "$lmod_file" ||
    fail "the Lmod module file does not name PREFIX: $(grep prefix "$lmod_file")"
grep -qx "local version = \"$version\"" "$lmod_file" || fail "the Lmod module file does not name the version"
grep -qx 'local mpi_module = ""' "$lmod_file" || fail "the Lmod module file loads an MPI module not asked for"
grep -qx 'set prefix {/opt/bench_nbc}' "$tcl_file" ||
    fail "the Tcl module file does not name PREFIX"
grep -qx "set version {$version}" "$tcl_file" || fail "the Tcl module file does not name the version"
! grep -rq "$SCRATCH" "$share/modulefiles" || fail "a module file names the staging folder"

# The Python analysis tools, staged, with the source tree hidden: each finds
# its package (share/bench_nbc/nbc_tools) and schema_doc beside it.
# shellcheck disable=SC2016 # $0 and $@ are the inner shell's
hide=(unshare --mount sh -c 'mount -t tmpfs bench_nbc_hidden "$0" && exec "$@"' "$BENCH_NBC_ROOT")
if [ "$(id -u)" -ne 0 ] || ! "${hide[@]}" test ! -e "$BENCH_NBC_ROOT/Makefile" 2>/dev/null; then
    echo "note: cannot hide the source tree (needs root and mount namespaces): it stays visible"
    hide=()
fi
run=$SCRATCH/example_run
cp -R tests/data/example_run "$run"
"$TOOLS_DIR/nbc-analyze" -q --no-plots "$run" >/dev/null 2>&1 || fail "nbc-analyze failed on $run"
for tool in nbc-verdict nbc-report nbc-fingerprint; do
    [ -x "$stage/bin/$tool" ] || fail "bin/$tool is not installed"
    words=("$run")
    [ $tool = nbc-verdict ] || words=(--no-pdf "$run")
    "${hide[@]}" "$stage/bin/$tool" "${words[@]}" >"$SCRATCH/$tool.out" 2>&1 ||
        fail "the installed $tool failed: $(cat "$SCRATCH/$tool.out")"
done
grep -q "^MPI library, ibcast, basic: " "$SCRATCH/nbc-verdict.out" ||
    fail "the installed nbc-verdict printed no verdict line: $(cat "$SCRATCH/nbc-verdict.out")"
for f in report.html fingerprint.html fingerprint.csv; do [ -s "$run/$f" ] || fail "the installed tools wrote no $f"; done

# ---- a study from the installed copy -------------------------------------------
[ "$(nproc)" -ge 2 ] || skip "2 ranks need 2 cores (MPICH busy-polls); layout checked"
# The study runs the MPICH profile (make install of MPI=mpich's build when
# this build's library is another).
use_mpi mpich
prefix=$SCRATCH/prefix
install_into PREFIX="$prefix"
mkdir -p "$SCRATCH/elsewhere" "$SCRATCH/results"
cd "$SCRATCH/elsewhere" || fail "cannot enter $SCRATCH/elsewhere"
[ -z "${SAN:-}" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" # as mpi_launch does
start=$EPOCHREALTIME
status=0
out=$(timeout -k 5 "${MPI_TIMEOUT_S:-240}" "${hide[@]}" "$prefix/bin/nbc-run" \
    "$prefix/share/bench_nbc/configs/default.conf" --collectives ibcast \
    --set run.results_dir="$SCRATCH/results" \
    --set grid.comm_times=1ms,4ms,4 --set grid.comp_times=1ms,4ms,4 --set run.repetitions=2 --set run.half_width=0 \
    --set clocksync.roundtrips=200 --set clocksync.drift_gap_s=0.2s --set calibration.runs_per_point=3 \
    --set calibration.max_iterations=8 "${LOOSE_LATENESS[@]}" 2>"$SCRATCH/stderr") || status=$?
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[ $status -eq 0 ] || fail "installed nbc-run: status $status; stderr: $(cat "$SCRATCH/stderr")"
dirs=("$SCRATCH"/results/*-mpich-ibcast-basic)
[ -d "${dirs[0]}" ] || fail "no run folder in $SCRATCH/results: $out"
dir=${dirs[0]}
grep -q '"status":"complete"' "$dir/meta.json" || fail "meta.json status is not complete"
[ "$(($(wc -l <"$dir/cells.csv") - 1))" -eq 4 ] || fail "cells.csv: expected 4 cells"
for f in compute_ref.csv impact.csv; do [ -s "$dir/$f" ] || fail "no $f in $dir"; done
grep -q "^+ .* $prefix/bin/bench_nbc -c $prefix/share/bench_nbc/configs/default.conf " "$dir/nbc-run.log" ||
    fail "nbc-run.log does not show the installed bench_nbc and configuration: $(head -n 2 "$dir/nbc-run.log")"
! grep -q "$BENCH_NBC_ROOT" "$dir/nbc-run.log" "$dir/meta.json" || fail "the run used the source tree"
pngs=0
if command -v gnuplot >/dev/null; then
    pngs=$(sed -n 's/^figures: \([0-9]*\) in those folders.*/\1/p' <<<"$out")
    [ "${pngs:-0}" -ge 3 ] || fail "expected the run folders' figures counted, got ${pngs:-none}: $out"
fi

# ---- the installed module files put the prefix on PATH -----------------------------
checked=""
for kind in lua tcl; do
    file=$prefix/share/bench_nbc/modulefiles/lmod/bench_nbc/$version.lua
    [ $kind = tcl ] && file=$prefix/share/bench_nbc/modulefiles/tcl/bench_nbc/$version
    status=0
    env_lines=$(module_env $kind "$file") || status=$?
    [ $status -ne 2 ] || {
        echo "note: no $kind interpreter: $file not evaluated"
        continue
    }
    [ $status -eq 0 ] || fail "$file does not evaluate: $env_lines"
    grep -qx "prepend_path PATH $prefix/bin" <<<"$env_lines" || fail "$file: PATH is not $prefix/bin: $env_lines"
    grep -qx "setenv BENCH_NBC_CONFIGS $prefix/share/bench_nbc/configs" <<<"$env_lines" ||
        fail "$file: BENCH_NBC_CONFIGS: $env_lines"
    checked+=" $kind"
done
figure "installed study (2x2 cells)$([ ${#hide[@]} -gt 0 ] && echo ', source tree hidden'): ${secs} s, $pngs PNG figures; module files checked:${checked:- none}"
