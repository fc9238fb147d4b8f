#!/usr/bin/env bash
# compute_ref: no MPI in it; its CSV is compute_ref.csv of docs/formats.md for
# --sizes, --targets and --sizes-from; appending from several processes keeps
# one header and whole lines; bad options exit 2 with a message.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
set -eo pipefail
prog=$BENCH_NBC_ROOT/$BUILD/compute_ref
[ -x "$prog" ] || fail "compute_ref not built: $prog"
make_scratch
work=$SCRATCH

# No MPI library among the shared objects it loads; the BLAS it names
# (compute_ref --blas) is one of them, unless linked statically.
libs=$(ldd "$prog")
"$prog" --blas >"$work/blas.out" || fail "compute_ref --blas refused the build's BLAS"
blas=$(sed -n 's/^name: //p' "$work/blas.out")
library=$(sed -n 's/^library: //p' "$work/blas.out")
if [ "$library" != "$(readlink -f "$prog")" ]; then
    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' <<<"$libs" | xargs readlink -f | grep -qxF "$library" ||
        fail "the BLAS $blas in $library is not among the objects ldd lists: $libs"
fi
figure "compute_ref: BLAS $blas ($library)"
if echo "$libs" | grep -qi 'libmpi'; then
    fail "compute_ref depends on MPI: $(echo "$libs" | grep -i libmpi)"
fi

header='host,proc,procs,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,t_comp_s,gflops_per_thread'
host=$(hostname)
cores=$(nproc)

# Checks a compute_ref CSV: the exact header once, then one line per expected
# size and step (steps 0 .. reps-1), in order, each with this host, one
# process, the thread count, the reps, a positive time and GFLOP/s =
# 2 n^3 / t / 1e9 (to the printed precision).
check_csv() { # file threads reps n...
    local file=$1 threads=$2 reps=$3
    shift 3
    [ "$(head -n 1 "$file")" = "$header" ] || fail "$file: header is '$(head -n 1 "$file")'"
    [ "$(grep -c '^host,' "$file")" = 1 ] || fail "$file: header more than once"
    [ "$(tail -c 1 "$file" | od -An -c | tr -d ' ')" = '\n' ] || fail "$file: last line has no newline"
    local lines expected_sizes
    lines=$(tail -n +2 "$file")
    [ "$(echo "$lines" | wc -l)" = $(($# * reps)) ] || fail "$file: expected $(($# * reps)) data lines, got: $lines"
    expected_sizes=$(for n in "$@"; do for ((k = 0; k < reps; k++)); do echo "$n"; done; done)
    [ "$(echo "$lines" | cut -d, -f5)" = "$expected_sizes" ] || fail "$file: sizes $(echo "$lines" | cut -d, -f5 | tr '\n' ' ') instead of $*"
    echo "$lines" | awk -F, -v host="$host" -v threads="$threads" -v reps="$reps" '
        NF != 12 { print "wrong field count: " $0; bad = 1; next }
        $1 != host || $2 != 0 || $3 != 1 || $4 != threads || $9 != reps || $7 != "after" || $8 != 1 { print "wrong host/proc/threads/reps/phase: " $0; bad = 1; next }
        $10 != (NR - 1) % reps { print "step out of order: " $0; bad = 1; next }
        $5 !~ /^[1-9][0-9]*$/ || !($11 > 0) || !($12 > 0) { print "bad values: " $0; bad = 1; next }
        { expected = 2 * $5 * $5 * $5 / $11 / 1e9
          if ((expected - $12) ^ 2 > (1e-3 * expected + 1e-4) ^ 2) { print "gflops mismatch: " $0; bad = 1 } }
        END { exit bad }' || fail "$file: malformed lines"
}

# --sizes to a file, then appended to: one header, lines in order.
"$prog" --sizes 32,64,96 --reps 3 -o "$work/sizes.csv"
check_csv "$work/sizes.csv" "$cores" 3 32 64 96
"$prog" --sizes 48 --threads 1 --reps 2 -o "$work/sizes.csv"
[ "$(grep -c '^host,' "$work/sizes.csv")" = 1 ] || fail "appending repeated the header"
[ "$(tail -n 1 "$work/sizes.csv" | cut -d, -f4,5,9)" = "1,48,2" ] || fail "appended line: $(tail -n 1 "$work/sizes.csv")"

# Standard output, one thread on an explicit CPU.
last_cpu=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -n 1 | sed 's/.*-//')
"$prog" --sizes 40 --cpus "$last_cpu" --reps 1 >"$work/stdout.csv"
check_csv "$work/stdout.csv" 1 1 40

# --targets: one line per target and step, calibrated sizes growing with the target.
# Other programs on this shared machine can disturb a calibration: retry.
for attempt in 1 2 3; do
    "$prog" --targets 1e-3,16e-3 --reps 3 -o "$work/targets.csv" 2>"$work/targets.err"
    grep -q 'target 0.001 s: n = ' "$work/targets.err" || fail "no calibration report: $(cat "$work/targets.err")"
    read -r n1 n2 <<<"$(tail -n +2 "$work/targets.csv" | cut -d, -f5 | uniq | tr '\n' ' ')"
    check_csv "$work/targets.csv" "$cores" 3 "$n1" "$n2"
    [ "$n1" -lt "$n2" ] && break
    [ "$attempt" = 3 ] && fail "--targets 1e-3,16e-3 gave sizes $n1 $n2 three times"
    rm "$work/targets.csv"
    sleep 1
done
figure "compute_ref --targets 1e-3,16e-3 -> n = $n1, $n2 ($cores threads, attempt $attempt)"

# --sizes-from a run's calib_comp.csv: its distinct matrix_n, in order.
cat >"$work/calib_comp.csv" <<EOF
comp_target_s,matrix_n,t_comp_s,gflops_per_thread,iterations,converged
0.001,56,0.00098,40.1,3,1
0.002,72,0.00205,41.0,2,1
0.004,56,0.0041,39.9,5,0
EOF
"$prog" --sizes-from "$work/calib_comp.csv" --reps 2 -o "$work/from.csv"
check_csv "$work/from.csv" "$cores" 2 56 72

# Several processes appending to one file at once: one header, whole lines.
pids=()
for _ in 1 2 3 4; do
    "$prog" --sizes 24,32,24,32,24 --threads 1 --reps 1 -o "$work/shared.csv" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a concurrent compute_ref failed"; done
[ "$(grep -c '^host,' "$work/shared.csv")" = 1 ] || fail "concurrent appends wrote the header $(grep -c '^host,' "$work/shared.csv") times"
[ "$(tail -n +2 "$work/shared.csv" | grep -cE "^$host,0,1,1,(24|32),0,after,1,1,0,[0-9.e+-]+,[0-9.]+\$")" = 20 ] ||
    fail "concurrent appends: $(cat "$work/shared.csv")"

# --run RUN_DIR: the passive step's conditions of a run on this host: one
# process per rank there, on its CPUs, the run's sizes, warm-up and reps.
run=$work/run
mkdir -p "$run"
cpu_a=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | head -n 1 | sed 's/-.*//')
printf '{"hosts": ["%s", "other-node", "%s"], "binding": ["%s", "0", "%s free:%s"]}\n' \
    "$host" "$host" "$cpu_a" "$last_cpu" "$cpu_a" >"$run/meta.json"
printf 'comp_target_s,matrix_n,t_comp_s,gflops_per_thread,iterations,converged\n0.001,48,0.001,1,1,1\n0.002,64,0.002,1,1,1\n' >"$run/calib_comp.csv"
printf 'host,rank,threads,matrix_n,comp_target_s,phase,warmup_steps,reps,step,t_comp_s\n%s,0,1,48,0.001,before,1,4,0,0.001\n' "$host" >"$run/passive.csv"
"$prog" --run "$run" 2>"$work/run.err" || fail "compute_ref --run failed: $(cat "$work/run.err")"
# 2 sizes x the 2 ranks of this host, each on one CPU, 4 reps after 1 warm-up
# step, one line per step.
[ "$(tail -n +2 "$run/compute_ref.csv" | wc -l)" = 16 ] || fail "compute_ref --run: not 16 lines: $(cat "$run/compute_ref.csv")"
[ "$(tail -n +2 "$run/compute_ref.csv" | cut -d, -f2-9 | sort -u | tr '\n' ' ')" = \
  "0,2,1,48,0.001,after,1,4 0,2,1,64,0.002,after,1,4 1,2,1,48,0.001,after,1,4 1,2,1,64,0.002,after,1,4 " ] ||
    fail "compute_ref --run wrote: $(cat "$run/compute_ref.csv")"
"$prog" --run "$run" --phase before || fail "compute_ref --run --phase before failed"
[ "$(grep -c ',before,' "$run/compute_ref.csv")" = 16 ] || fail "--phase before: $(cat "$run/compute_ref.csv")"
# The A/A partner of the phase before: its own phase value.
"$prog" --run "$run" --phase aa || fail "compute_ref --run --phase aa failed"
[ "$(grep -c ',aa,' "$run/compute_ref.csv")" = 16 ] || fail "--phase aa: $(cat "$run/compute_ref.csv")"
# The run's compute.ref_warmup_s is how long each process computes before it
# measures: 3 s of it make the phase last at least 3 s on any machine.
meta=$(cat "$run/meta.json")
echo "${meta%\}}, \"config\": {\"compute\": {\"kernel\": \"gemm\", \"ref_warmup_s\": 3}}}" >"$run/meta.json"
start=$EPOCHREALTIME
"$prog" --run "$run" --phase after || fail "compute_ref --run with ref_warmup_s 3 failed"
check_float "$EPOCHREALTIME - $start >= 3" || fail "compute.ref_warmup_s = 3: the phase took less than 3 s"
echo "${meta%\}}, \"config\": {\"compute\": {\"ref_warmup_s\": -1}}}" >"$run/meta.json"
status=0
"$prog" --run "$run" 2>"$work/err" || status=$?
if [ "$status" != 2 ] || ! grep -q "compute.ref_warmup_s -1 out of range" "$work/err"; then
    fail "compute.ref_warmup_s -1: status $status, $(cat "$work/err")"
fi
echo "$meta" >"$run/meta.json"

# Bad input: one message naming the option, exit status 2, no CSV.
expect_usage_error() { # pattern args...
    local pattern=$1 status=0
    shift
    "$prog" "$@" >"$work/out" 2>"$work/err" || status=$?
    [ "$status" = 2 ] || fail "compute_ref $* exited $status, expected 2"
    grep -q -- "$pattern" "$work/err" || fail "compute_ref $*: message '$(cat "$work/err")' lacks '$pattern'"
    [ ! -s "$work/out" ] || fail "compute_ref $* wrote output: $(cat "$work/out")"
}
expect_usage_error "give one of" --reps 3
expect_usage_error "--sizes: 'abc'" --sizes abc
expect_usage_error "--sizes: '0'" --sizes 64,0
expect_usage_error "--sizes: empty item" --sizes 64,,128
expect_usage_error "--targets: '-1'" --targets -1
expect_usage_error "--targets: 'inf'" --targets inf
expect_usage_error "--reps: '0'" --sizes 64 --reps 0
expect_usage_error "--threads: 'x'" --sizes 64 --threads x
expect_usage_error "--threads $((cores + 1))" --sizes 64 --threads $((cores + 1))
expect_usage_error "--tolerance: '1.5'" --targets 1e-3 --tolerance 1.5
expect_usage_error "--cpus: 2 CPUs listed for --threads 1" --sizes 64 --threads 1 --cpus 0,0
expect_usage_error "one thread per core" --sizes 64 --cpus 0,0
expect_usage_error "only one of" --sizes 64 --targets 1e-3
expect_usage_error "--phase: 'during' (allowed: before, after, aa)" --run "$run" --phase during
printf '{"hosts": ["other-node"], "binding": ["0"]}\n' >"$run/meta.json"
expect_usage_error "no rank on this host" --run "$run"
expect_usage_error "no --threads or --cpus" --run "$run" --threads 1
expect_usage_error "cannot open '$work/missing.csv'" --sizes-from "$work/missing.csv"
echo "a,b" >"$work/no_column.csv"
expect_usage_error "no matrix_n column" --sizes-from "$work/no_column.csv"
printf 'comp_target_s,matrix_n\n0.001,12x\n' >"$work/bad_value.csv"
expect_usage_error "line 2: matrix_n '12x'" --sizes-from "$work/bad_value.csv"
expect_usage_error "unknown option '--bogus'" --bogus
expect_usage_error "option '--sizes' needs a value" --sizes
expect_usage_error "unexpected argument 'extra'" --sizes 64 extra

"$prog" --help >"$work/help" || fail "--help exited $?"
grep -q -- '--sizes-from FILE' "$work/help" || fail "--help does not describe --sizes-from"
echo "compute_ref: all checks passed"
