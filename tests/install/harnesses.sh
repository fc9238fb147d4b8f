#!/usr/bin/env bash
# bench_nbc where centres run benchmarks (docs/harnesses.md), on one real
# run: make install into a scratch prefix; Lmod loads its module file
# (`module load bench_nbc`: nbc-run on PATH, --version, a dry run); JUBE
# runs packaging/jube/bench_nbc.xml (tag small: a 2 x 2-cell study through
# the module's nbc-run; tag local: its job script, made from the template,
# run in place, its done_file written) and its result table has a row per cell with
# r_overhead; the regular expressions of the ReFrame test and the Ramble
# application (packaging/) read every row of that run's stdout, as many as
# its end line counts, with the values of its cells.txt.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
lmod_init=/usr/share/lmod/lmod/init/bash
[ -r "$lmod_init" ] || skip "Lmod is not installed (apt-get install lmod)"
command -v jube >/dev/null || skip "JUBE is not installed (apt-get install jube)"
[ "$(nproc)" -ge 2 ] || skip "2 ranks need 2 cores (MPICH busy-polls)"
use_mpi mpich
prefix=$SCRATCH/prefix
if [ ${#USE_MPI_MAKE[@]} -gt 0 ]; then
    clean_make "${USE_MPI_MAKE[@]}" install PREFIX="$prefix"
else
    clean_make install PREFIX="$prefix"
fi >"$SCRATCH/install.log" 2>&1 || fail "make install: $(cat "$SCRATCH/install.log")"

# ---- Lmod ---------------------------------------------------------------------
# shellcheck disable=SC1090 # Lmod's own initialisation
source "$lmod_init" || fail "cannot source $lmod_init"
module use "$prefix/share/bench_nbc/modulefiles/lmod"
module load bench_nbc 2>"$SCRATCH/module.err" || fail "module load bench_nbc: $(cat "$SCRATCH/module.err")"
[ "$(command -v nbc-run)" = "$prefix/bin/nbc-run" ] ||
    fail "after module load, nbc-run is $(command -v nbc-run), not $prefix/bin/nbc-run"
[ -d "${BENCH_NBC_CONFIGS:-}" ] || fail "module load set no BENCH_NBC_CONFIGS"
nbc-run --version | grep -qE '^nbc-run [^ ]+ \(revision [^ ]+\)$' || fail "nbc-run --version from the module"
mkdir -p "$SCRATCH/work"
cd "$SCRATCH/work" || fail "cannot enter $SCRATCH/work"
nbc-run default.conf --collectives ibcast --dry-run >"$SCRATCH/dry.out" 2>&1 ||
    fail "nbc-run --dry-run from the module: $(cat "$SCRATCH/dry.out")"
grep -qF "$prefix/bin/bench_nbc" "$SCRATCH/dry.out" || fail "the module's nbc-run plans another bench_nbc: $(cat "$SCRATCH/dry.out")"

# ---- JUBE -----------------------------------------------------------------------
cp "$prefix/share/bench_nbc/harnesses/jube/bench_nbc.xml" "$prefix/share/bench_nbc/harnesses/jube/bench_nbc_job.sh.in" . ||
    fail "the JUBE benchmark or its job template is not installed"
[ -z "${SAN:-}" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" # as mpi_launch does
start=$EPOCHREALTIME
timeout -k 5 "${MPI_TIMEOUT_S:-240}" jube run bench_nbc.xml --tag small local >"$SCRATCH/jube.out" 2>&1 ||
    fail "jube run: $(tail -n 30 "$SCRATCH/jube.out")"
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
jube result -a bench_nbc_run >"$SCRATCH/result.out" 2>&1 || fail "jube result: $(cat "$SCRATCH/result.out")"
cat "$SCRATCH/result.out"
stdout=$(find bench_nbc_run -path '*run/work/job.out' | head -n 1)
[ -s "$stdout" ] || fail "no job.out of JUBE's run step: $(cat "$SCRATCH/jube.out")"
[ -e "$(dirname "$stdout")/ready" ] || fail "the job wrote no done_file: $(cat "$(dirname "$stdout")/job.err")"
grep -q '^#SBATCH --ntasks-per-node=1$' "$(dirname "$stdout")/bench_nbc_job.sh" ||
    fail "the job script was not made from its template: $(cat "$(dirname "$stdout")/bench_nbc_job.sh")"
run_dir=$(find bench_nbc_run -path '*results/*-ibcast-basic' -type d | head -n 1)
[ -s "$run_dir/cells.txt" ] || fail "no cells.txt in the run folder ($run_dir)"
# a row per cell, each with the cell's r_overhead as a number
rows=$(awk -F'|' '$2 ~ /^ *[0-9]+ *$/ && $7 ~ /^ *-?[0-9.]+(e[-+]?[0-9]+)? *$/ { n++ } END { print n + 0 }' "$SCRATCH/result.out")
[ "$rows" = 4 ] || fail "JUBE's result table has $rows rows with r_overhead, expected 4"

# ---- ReFrame and Ramble: their regular expressions on the same stdout ------------
python3 - "$BENCH_NBC_ROOT/packaging" "$stdout" "$run_dir/cells.txt" <<'PY' || fail "a harness's regular expression does not read the table"
import ast, re, sys
packaging, stdout, cells_txt = sys.argv[1:]
def constants(path):  # module-level constants, read without importing the harness
    out = {}
    for node in ast.parse(open(path).read(), path).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out
text = open(stdout).read()
expected = [line.split() for line in open(cells_txt) if not line.startswith("#")]
for harness in ("reframe/bench_nbc_check.py", "ramble/application.py"):
    c = constants(packaging + "/" + harness)
    rows = [m.groupdict() for m in re.finditer(c["CELL_ROW"], text, re.M)]
    end = re.search(c["TABLE_END"], text, re.M)
    assert end and int(end.group("cells")) == len(rows) == len(expected) == 4, (harness, len(rows), end)
    for row, fields in zip(rows, expected):
        assert [row["cell"], row["r_overhead"], row["diagnosis"], row["osu_overlap_pct"]] == \
            [fields[0], fields[7], fields[12], fields[14]], (harness, row, fields)
    print("%s: %d rows, r_overhead %s" % (harness, len(rows), " ".join(r["r_overhead"] for r in rows)))
PY
figure "harnesses: module load bench_nbc from an installed prefix; JUBE ran a 2 x 2-cell study in $secs s, result table with r_overhead per cell; ReFrame's and Ramble's expressions read its 4 rows"
