#!/usr/bin/env bash
# nbc-compare --normalize-cores: a basic run computing on 4 cores against a
# dedicated one computing on 3 (meta.json deployment_plan.compute.cpus, as
# bench_nbc writes it): the dedicated run's compute times are scaled by 4/3
# and its r_overhead recomputed (eq. 1 with t_comp_ref x 4/3 and the
# overlap step longer by t_comp / 3), checked cell by cell against its
# cells.csv; r_comm is unchanged; basic's cells are untouched; the titles
# and normalization.csv say so; without the option nothing is scaled; a run
# whose meta.json lacks the cores is bad input naming the key.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
compare=$TOOLS_DIR/nbc-compare
synth=$BUILD/tests/analysis/synth_run
for tool in "$compare" "$synth"; do [ -x "$tool" ] || fail "$tool is not built"; done
command -v python3 >/dev/null || skip "python3 is not installed (it writes the fixtures' meta.json)"
make_scratch
basic=$SCRATCH/basic
dedicated=$SCRATCH/dedicated
"$synth" --out "$basic" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --scenario mixed --blocks 12 ||
    fail "synth basic"
"$synth" --out "$dedicated" --comm-ms 1,2,4,8 --comp-ms 1,2,4,8 --scenario overlap \
    --deployment dedicated --blocks 12 --seed 7 || fail "synth dedicated"
# set_cores RUN CPU...: the compute cores of the run's deployment plan
set_cores() {
    python3 - "$@" <<'EOF' || fail "cannot write $1/meta.json"
import json, sys
path = sys.argv[1] + "/meta.json"
meta = json.load(open(path))
meta["deployment_plan"] = {"compute": {"threads": len(sys.argv) - 2,
                                       "cpus": [int(c) for c in sys.argv[2:]]}}
json.dump(meta, open(path, "w"), indent=1)
EOF
}
set_cores "$basic" 0 1 2 3
set_cores "$dedicated" 0 1 2

# without the option: the dedicated configuration's r_overhead is its cells.csv's
"$compare" --no-plots "$basic" "$dedicated" -o "$SCRATCH/plain" >/dev/null 2>&1 ||
    fail "nbc-compare without --normalize-cores failed"
[ ! -e "$SCRATCH/plain/normalization.csv" ] || fail "normalization.csv written without the option"

out=$("$compare" --normalize-cores "$basic" "$dedicated" -o "$SCRATCH/norm" 2>&1) ||
    fail "nbc-compare --normalize-cores failed: $out"
echo "$out" | grep normalize
grep -q "dedicated computes on 3 cores: compute times x 4/3 = 1.333 (perfect strong scaling assumed)" <<<"$out" ||
    fail "no normalization line for the dedicated run"
grep -q "basic computes on 4 cores: compute times x 4/4 = 1 " <<<"$out" || fail "no line for basic"
[ "$(cat "$SCRATCH/norm/normalization.csv")" = "run,compute_cores,core_scale
basic,4,1
dedicated,3,1.33333333" ] || fail "normalization.csv: $(cat "$SCRATCH/norm/normalization.csv")"
grep -q "normalize-cores: compute times scaled to the most compute cores (perfect strong scaling assumed)" \
    "$SCRATCH/norm/compare_overhead.caption.txt" || fail "compare_overhead's caption does not say it is normalized"
grep -q 'title "r_overhead, compute normalized"' "$SCRATCH/norm/compare_overhead.gp" ||
    fail "compare_overhead's title does not say it is normalized"
grep -q "basic x1, dedicated x1.33" "$SCRATCH/norm/diff_overhead.caption.txt" ||
    fail "diff_overhead's caption lacks the factors"

# expected: eq. 1 from the dedicated run's cells.csv with its compute x 4/3
# (configuration 2, one launch: the configuration's estimate is the run's)
expected=$SCRATCH/expected
awk -F, -v k=4/3 'BEGIN { split(k, f, "/"); k = f[1] / f[2] }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["valid"] == 1 {
        comm = $c["t_comm_ref"]; comp = $c["t_comp_ref"] * k
        measured = $c["t_measured"] + (k - 1) * $c["t_comp"]
        big = comm > comp ? comm : comp; small = comm < comp ? comm : comp
        printf "%.9g %.9g %.6g %.6g\n", $c["comm_target_s"], $c["comp_target_s"], (measured - big) / small, $c["r_comm"] }' \
    "$dedicated/cells.csv" | sort >"$expected"
[ -s "$expected" ] || fail "the dedicated run has no valid cell"
# got CONFIG DIR: comm comp r_overhead r_comm per valid cell of configuration_cells.csv
got() {
    awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["configuration"] == want && $c["launches"] > 0 {
            printf "%.9g %.9g %.6g %.6g\n", $c["comm_target_s"], $c["comp_target_s"], $c["r_overhead"], $c["r_comm"] }' \
        "$2/configuration_cells.csv" | sort
}
# close VALUES_A VALUES_B: same cells, values within 1e-4 (relative to 1)
close() {
    paste -d' ' "$1" "$2" | awk '{ n++; if ($1 != $5 || $2 != $6) { print "cell " $1 "," $2 " vs " $5 "," $6; bad = 1 }
        for (i = 3; i <= 4; i++) { d = $i - $(i + 4); if (d < 0) d = -d; if (d > 1e-4 * (1 + ($i < 0 ? -$i : $i))) { print "cell " $1 "," $2 ": " $i " vs " $(i + 4); bad = 1 } } }
        END { exit bad || n == 0 }'
}
got 2 "$SCRATCH/norm" >"$SCRATCH/got"
close "$expected" "$SCRATCH/got" || fail "normalized r_overhead of the dedicated run differs from eq. 1 with compute x 4/3"
figure "dedicated r_overhead normalized in $(wc -l <"$SCRATCH/got") cells, e.g. $(head -n 1 "$SCRATCH/got")"
# the normalization moved the values (a test that cannot fail otherwise)
got 2 "$SCRATCH/plain" >"$SCRATCH/plain_got"
cmp -s "$SCRATCH/got" "$SCRATCH/plain_got" && fail "--normalize-cores changed nothing"
# basic (scale 1) is untouched
got 1 "$SCRATCH/plain" >"$SCRATCH/basic_plain"
got 1 "$SCRATCH/norm" >"$SCRATCH/basic_norm"
cmp -s "$SCRATCH/basic_plain" "$SCRATCH/basic_norm" || fail "the basic run (4 of 4 cores) changed"

# a run without the key: exit 2, the key named
python3 -c 'import json, sys
p = sys.argv[1] + "/meta.json"; m = json.load(open(p)); del m["deployment_plan"]; json.dump(m, open(p, "w"))' "$dedicated"
msg=$("$compare" --normalize-cores --no-plots "$basic" "$dedicated" -o "$SCRATCH/bad" 2>&1)
status=$?
[ "$status" -eq 2 ] || fail "a run without deployment_plan.compute.cpus exited $status: $msg"
grep -q "dedicated/meta.json: deployment_plan.compute.cpus is missing" <<<"$msg" || fail "message: $msg"
echo "normalize-cores: ok"
