#!/usr/bin/env bash
# nbc-run's pooled null-control coverage (study.json null_coverage, printed at
# the end of a study): its Clopper-Pearson interval against published exact
# values, and the pooling over the runs' cells.csv (valid cells with a null
# interval; an interval covers when lo <= 1 <= hi) on made-up folders whose
# counts are known. No MPI.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
header="valid,comm_null_ci_lo,comm_null_ci_hi,comp_null_ci_lo,comp_null_ci_hi"
mkdir -p "$SCRATCH/a" "$SCRATCH/b" "$SCRATCH/c"
# Run a: 3 valid cells, comm_null covers in 2, comp_null in 3; an invalid
# cell (not counted) and a valid one without null intervals (nan: not counted).
printf '%s\n' "$header" 1,0.9,1.1,0.95,1.05 1,1.01,1.2,0.9,1.0 1,0.8,1.0,1.0,1.3 \
    0,0.5,0.6,0.5,0.6 1,nan,nan,nan,nan >"$SCRATCH/a/cells.csv"
# Run b: 1 valid cell covering in neither pair. Run c: no cells.csv.
printf '%s\n' "$header" 1,1.2,1.3,0.7,0.99 >"$SCRATCH/b/cells.csv"
python3 - "$BENCH_NBC_ROOT" "$SCRATCH" "$TOOLS_ABS" <<'EOF' || fail "pooled null-control coverage"
import os, sys
sys.path.insert(0, sys.argv[1])
from nbc_run import coverage as nbc_run
# Exact 95 % intervals: at k = 0 and k = n in closed form (the upper end
# of 0/n is 1 - 0.025^(1/n), the lower end of n/n 0.025^(1/n)), and
# 95/100: [0.8872, 0.9836] (Clopper and Pearson 1934, as R's binom.test
# prints it).
known = {(95, 100): (0.8872, 0.9836)}
for n in (1, 10, 30):
    known[(0, n)] = (0.0, 1 - 0.025 ** (1 / n))
    known[(n, n)] = (0.025 ** (1 / n), 1.0)
bad = False
for (k, n), want in known.items():
    got = nbc_run.clopper_pearson(k, n)
    print("{}/{}: [{:.4f}, {:.4f}], exact [{:.4f}, {:.4f}]".format(k, n, got[0], got[1], *want))
    bad |= any(abs(g - w) > 5e-5 for g, w in zip(got, want))
# Large n stays finite (the binomial in logs) and brackets the share.
lo, hi = nbc_run.clopper_pearson(1900, 2000)
bad |= not (lo < 0.95 < hi and hi - lo < 0.03)
runs = [os.path.join(sys.argv[2], d) for d in "abc"]
columns = nbc_run.schema_columns(sys.argv[3])
bad |= nbc_run.pooled_null_coverage(runs, {}) is not None  # no schema_doc: no figure
pooled = nbc_run.pooled_null_coverage(runs, columns)
print(pooled)
want = {"comm_null": (2, 4), "comp_null": (3, 4)}
for pair, (covered, cells) in want.items():
    c = pooled[pair]
    bad |= (c["covered"], c["cells"], c["runs"]) != (covered, cells, 3)
    bad |= abs(c["share"] - covered / cells) > 1e-12
    bad |= (c["ci_lo"], c["ci_hi"]) != nbc_run.clopper_pearson(covered, cells)
empty = nbc_run.pooled_null_coverage([runs[2]], columns)["comm_null"]
bad |= (empty["cells"], empty["share"], empty["ci_lo"]) != (0, None, None)
sys.exit(1 if bad else 0)
EOF
