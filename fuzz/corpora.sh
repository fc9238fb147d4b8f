# shellcheck shell=bash
# The committed inputs of each fuzz target: the seeds `make fuzz` starts from
# (fuzz/run.sh) and what `make check` replays (tests/fuzz/replay.sh). Paths
# are relative to the repository root. Sourced, not run.
#
#   seeds           files of the suite itself (configurations, the example
#                   run) and fuzz/seeds/TARGET/ (small hand-made inputs)
#   regressions     tests/fuzz/corpus/TARGET/: every input that once crashed

# shellcheck disable=SC2034 # the tables are read by the scripts that source this
fuzz_targets=(config raw run_files)

declare -A fuzz_seed_files=(
    [config]="configs/*.conf"
    [raw]="tests/data/example_run/raw.csv"
    [run_files]="tests/data/example_run/calib_comm.csv tests/data/example_run/calib_comp.csv
                 tests/data/example_run/passive.csv tests/data/example_run/compute_ref.csv
                 tests/data/example_run/meta.json"
)

# libFuzzer dictionaries: tokens worth inserting whole (the analysis' is
# fuzz/analysis.dict and the schema's column names, made by `make fuzz`).
# shellcheck disable=SC2034
declare -A fuzz_dictionary=(
    [config]=fuzz/config.dict
    [raw]=${FUZZ_DIR:-build/fuzz}/analysis.dict
    [run_files]=${FUZZ_DIR:-build/fuzz}/analysis.dict
)

# fuzz_inputs TARGET: the existing files and folders of its inputs, one a line.
fuzz_inputs() {
    local target=$1 path
    if [ -z "${fuzz_seed_files[$target]+set}" ]; then
        echo "fuzz: unknown target '$target' (allowed: ${fuzz_targets[*]})" >&2
        return 2
    fi
    # shellcheck disable=SC2206 # the table values are globs and path lists
    local paths=(${fuzz_seed_files[$target]} "fuzz/seeds/$target" "tests/fuzz/corpus/$target")
    for path in "${paths[@]}"; do
        [ -e "$path" ] && echo "$path"
    done
    return 0
}
