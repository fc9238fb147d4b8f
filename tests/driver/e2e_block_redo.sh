#!/usr/bin/env bash
# A late attempt redoes its whole block, in the block's order. Rank 1 says
# it left the window barrier late once, at the first attempt of the second
# kind of block 1 (BENCH_NBC_FAULT=late_once:1:0); block 1 is a null block
# (run.null_share = 1, six kinds). In raw.csv, for every block: each pass
# (attempt number) runs a prefix of the block's order, late only at its
# last attempt, and the block's last pass is the whole order on time; and
# block 1 has a pass of two or more attempts ended by a late one, followed
# by a pass that starts again from the block's first kind. The machine's
# own lateness may add passes; it cannot break these. A driver that redid
# the late kind alone fails here (the kinds after it in the order run in
# the late attempt's pass, and the redo is one kind).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/driver/lib_driver.sh
source "$(dirname "$0")/lib_driver.sh"
make_scratch
ranks=2
out=$(BENCH_NBC_FAULT=late_once:1:0 mpi_launch -n $ranks "$BENCH" \
    -c configs/default.conf "${QUICK[@]}" "${LOOSE_LATENESS[@]}" --set run.results_dir="$SCRATCH" \
    --set grid.comm_times=2ms --set grid.comp_times=2ms \
    --set run.repetitions=2 --set run.half_width=0 --set run.null_share=1 2>&1) ||
    fail "the run failed: $out"
echo "$out"
dir=$(run_folder "$out")
[ -f "$dir/raw.csv" ] || fail "no raw.csv in $dir"

# One line per attempt of cell 0 in time order: "block attempt kind late".
attempts=$SCRATCH/attempts
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         $c["cell"] == 0 && $c["rank"] == 0 { print $c["seq"], $c["block"], $c["attempt"], $c["kind"], $c["late"] }' \
    "$dir/raw.csv" | sort -k1,1n | cut -d' ' -f2- >"$attempts"
[ -s "$attempts" ] || fail "cell 0 has no attempt"
cat "$attempts"

# Every block: passes in order, each a prefix of the last pass's order,
# late only at its end; the last pass whole (3 kinds, 6 in a null block)
# and on time. Block 1: a late pass of two or more attempts, and the pass
# after it from the same first kind.
redo=$(awk '{ key = $1 SUBSEP $2; seq[key] = seq[key] " " $3; late[key] = late[key] $4
              if ($2 + 0 < prev_pass[$1] + 0) { print "block " $1 ": pass " $2 " after pass " prev_pass[$1]; bad = 1 }
              prev_pass[$1] = $2
              if (!($1 in last) || $2 + 0 > last[$1]) last[$1] = $2 + 0; blocks[$1] = 1 }
     END {
        for (b in blocks) {
            whole = seq[b, last[b]]
            want = b == 0 ? 3 : 6
            if (split(whole, k, " ") != want || late[b, last[b]] ~ /1/) {
                print "block " b ": last pass" whole " (late " late[b, last[b]] ")"; bad = 1 }
            for (p = 0; p < last[b]; p++) {
                if (index(whole " ", seq[b, p] " ") != 1 || late[b, p] !~ /^0*1$/) {
                    print "block " b ": pass " p seq[b, p] " (late " late[b, p] ") against" whole; bad = 1 }
                if (b == 1 && length(late[b, p]) >= 2 && !found) {
                    split(seq[b, p + 1], next_kinds, " ")
                    found = 1; shown = "pass" seq[b, p] " late, then pass" seq[b, p + 1]
                }
            }
        }
        if (!found) { print "block 1 has no late pass of two attempts or more"; bad = 1 }
        if (bad) exit 1
        print shown
     }' "$attempts") || fail "the block passes are wrong: $redo"
[ "$(cells_whole "$dir" 3 $ranks)" = 1 ] || fail "cell 0 is not whole"
no_leftovers "$SCRATCH"
figure "block redo: block 1 of cell 0, $redo"
