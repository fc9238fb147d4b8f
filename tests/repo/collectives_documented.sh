#!/usr/bin/env bash
# Every collective of the driver's table (as `bench_nbc --list` prints it for
# this build's library) has its line in docs/collectives.md, and, unless it is
# a synthetic stand-in (which moves no data), a rule in the data check
# (bench_nbc/collectives/datacheck.c: --list marks a row without one "[no data check]").
# Adding a row to bench_nbc/collectives/collectives.c without
# either fails here (docs/extending.md, "A collective").
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
[ -x "$BUILD/bench_nbc" ] || fail "$BUILD/bench_nbc is not built"
doc=docs/collectives.md datacheck=bench_nbc/collectives/datacheck.c # the data check, for the messages
# --list needs no launcher: MPI_Init as a singleton, or none at all.
list=$(timeout 60 "$BUILD/bench_nbc" --list 2>&1) || fail "bench_nbc --list: status $?: $list"
# Its rows: two-space indent, the name, then what S means.
mapfile -t rows < <(sed -n 's/^  \([a-z][a-z0-9_]*\)  *\(.*\)$/\1 \2/p' <<<"$list")
[ ${#rows[@]} -ge 10 ] || fail "bench_nbc --list printed ${#rows[@]} collectives: $list"
missing=()
synthetic=0
for row in "${rows[@]}"; do
    name=${row%% *} meaning=${row#* }
    grep -q "^| \`$name\` |" "$doc" || missing+=("$name: no line '| \`$name\` | ...' in $doc")
    if [[ $meaning == SYNTHETIC* ]]; then
        synthetic=$((synthetic + 1))
    elif [[ $meaning == *"[no data check]" ]]; then
        missing+=("$name: no data check rule in $datacheck")
    fi
done
[ ${#missing[@]} -eq 0 ] || fail "collectives without their documentation or data check:"$'\n'"$(printf '  %s\n' "${missing[@]}")"
# And no line documents a collective the table lacks: a row of --list, or
# the MPI-4 persistent form X_init of a listed iX (a library without MPI-4,
# such as Open MPI 4.1, lists none).
# shellcheck disable=SC2016 # the backquotes are Markdown's
documented=$(sed -n 's/^| `\([a-z][a-z0-9_]*\)` |.*/\1/p' "$doc")
for name in $documented; do
    listed=$(printf '%s\n' "${rows[@]%% *}")
    grep -qx "$name" <<<"$listed" || { [[ $name == *_init ]] && grep -qx "i${name%_init}" <<<"$listed"; } ||
        fail "$doc documents '$name', which bench_nbc --list does not know"
done
figure "collectives: ${#rows[@]} in bench_nbc --list ($MPI), each in $doc, $((${#rows[@]} - synthetic)) with a data check ($synthetic synthetic)"
