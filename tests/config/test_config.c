/* Unit tests of the configuration module: defaults, the shipped configs,
 * --set, grids, the INI round trip, JSON, help, and one test per bad input
 * asserting that the message names the key and what is allowed. */
#include "config/config.h"

#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#define ERR_LEN 2048

static const char *const collectives[] = {"ibcast", "ireduce", "iallreduce", "iallgather",
                                          "ialltoall"};
static const char *const mpi_profiles[] = {"auto", "mpich", "openmpi"};

/* A 2-core, 24 GiB rank, like this machine, whatever the test runs on. */
static const nbc_config_limits machine = {
    .collectives = collectives,
    .collective_count = sizeof collectives / sizeof collectives[0],
    .mpi_profiles = mpi_profiles,
    .mpi_profile_count = sizeof mpi_profiles / sizeof mpi_profiles[0],
    .available_cores = 2,
    .available_memory_bytes = 24ull << 30,
};

/* Scratch directory for results_dir (validation may create folders). */
static char scratch[PATH_MAX];
static char results_set[PATH_MAX + 32]; /* "run.results_dir=<scratch>/results" */

static int make_scratch(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/test_config.XXXXXX", tmp);
    if (mkdtemp(scratch) == NULL)
        return -1;
    snprintf(results_set, sizeof results_set, "run.results_dir=%s/results", scratch);
    return 0;
}

static int remove_scratch(void **state)
{
    (void)state;
    char command[PATH_MAX + 16];
    snprintf(command, sizeof command, "rm -rf '%s'", scratch);
    return system(command) == 0 ? 0 : -1;
}

static void init_config(nbc_config *cfg)
{
    char err[ERR_LEN] = "";
    if (nbc_config_init(cfg, err, sizeof err) != 0)
        fail_msg("init: %s", err);
    if (nbc_config_set(cfg, results_set, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static void set_ok(nbc_config *cfg, const char *assignment)
{
    char err[ERR_LEN] = "";
    if (nbc_config_set(cfg, assignment, err, sizeof err) != 0)
        fail_msg("--set %s refused: %s", assignment, err);
}

static void validate_ok(const nbc_config *cfg)
{
    char err[ERR_LEN] = "";
    if (nbc_config_validate(cfg, &machine, err, sizeof err) != 0)
        fail_msg("validation refused: %s", err);
}

static void parse_file_ok(nbc_config *cfg, const char *relative_path)
{
    const char *root = getenv("BENCH_NBC_ROOT") ? getenv("BENCH_NBC_ROOT") : ".";
    char path[PATH_MAX], err[ERR_LEN] = "";
    snprintf(path, sizeof path, "%s/%s", root, relative_path);
    char *text = NULL;
    if (nbc_config_read_file(path, &text, err, sizeof err) != 0)
        fail_msg("%s", err);
    int status = nbc_config_parse_text(cfg, text, path, err, sizeof err);
    free(text);
    if (status != 0)
        fail_msg("%s", err);
}

static void assert_grid(const double *values, size_t count, const double *expected,
                        size_t expected_count)
{
    assert_int_equal(count, expected_count);
    for (size_t i = 0; i < count; i++)
        if (fabs(values[i] - expected[i]) > 1e-12 * expected[i])
            fail_msg("value %zu: %.17g, expected %.17g", i, values[i], expected[i]);
}

static const double ms_1_to_64[] = {1e-3, 2e-3, 4e-3, 8e-3, 16e-3, 32e-3, 64e-3};

/* ------------------------------------------------------------ good input */

static void defaults_are_the_documented_ones(void **state)
{
    (void)state;
    nbc_config cfg;
    init_config(&cfg);
    validate_ok(&cfg);
    assert_string_equal(cfg.run.collective, "ibcast");
    assert_int_equal(cfg.run.deployment, NBC_DEPLOYMENT_BASIC);
    assert_string_equal(cfg.run.mpi, "auto");
    assert_int_equal(cfg.run.threads, 0);
    assert_int_equal(cfg.run.repetitions, 12);
    assert_true(cfg.run.late_tolerance == 0.02);
    assert_int_equal(cfg.run.max_retries, 100);
    assert_int_equal(cfg.run.seed, 0);
    assert_true(cfg.run.null_share == 0.5);
    assert_int_equal(cfg.run.max_cells, 400);
    assert_false(cfg.run.force);
    assert_false(cfg.run.check);
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, ms_1_to_64, 7);
    assert_grid(cfg.grid.comp_times_s, cfg.grid.comp_count, ms_1_to_64, 7);
    assert_true(cfg.calibration.tolerance == 0.10);
    assert_int_equal(cfg.calibration.max_iterations, 12);
    assert_int_equal(cfg.calibration.runs_per_point, 5);
    assert_true(cfg.calibration.max_bytes == 256ull << 20);
    assert_int_equal(cfg.clocksync.roundtrips, 1000);
    assert_true(cfg.clocksync.drift_gap_s == 1);
    assert_true(cfg.clocksync.resync_interval_s == 300);
    assert_true(cfg.clocksync.barrier_margin_us == 200);
    assert_int_equal(cfg.progress.mode, NBC_PROGRESS_NONE);
    assert_int_equal(cfg.progress.test_chunks, 16);
    assert_true(cfg.watchdog.factor == 20);
    assert_true(cfg.watchdog.floor_s == 30);
    nbc_config_free(&cfg);
}

static void default_conf_parses_and_validates(void **state)
{
    (void)state;
    nbc_config cfg;
    init_config(&cfg);
    parse_file_ok(&cfg, "configs/default.conf");
    set_ok(&cfg, results_set); /* the file's results_dir is relative to the repository */
    validate_ok(&cfg);
    assert_string_equal(cfg.run.collective, "ibcast");
    assert_int_equal(cfg.run.deployment, NBC_DEPLOYMENT_BASIC);
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, ms_1_to_64, 7);
    assert_grid(cfg.grid.comp_times_s, cfg.grid.comp_count, ms_1_to_64, 7);
    assert_int_equal(cfg.run.repetitions, 12);
    nbc_config_free(&cfg);
}

static void paper_conf_parses_and_validates(void **state)
{
    (void)state;
    nbc_config cfg;
    init_config(&cfg);
    parse_file_ok(&cfg, "configs/paper.conf");
    set_ok(&cfg, results_set);
    validate_ok(&cfg);
    static const double paper_grid[] = {0.5e-3, 1e-3,  2e-3,  4e-3,  8e-3, 16e-3,
                                        32e-3,  64e-3, 0.128, 0.256, 0.512};
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, paper_grid, 11);
    assert_grid(cfg.grid.comp_times_s, cfg.grid.comp_count, paper_grid, 11);
    assert_string_equal(cfg.run.collective, "ibcast");
    nbc_config_free(&cfg);
}

/* nbc_config_load, the loader every path uses: the defaults, then the text,
 * then each --set in order; a refused text or --set names its origin. */
static void load_applies_text_then_sets(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[ERR_LEN] = "";
    const char *sets[] = {"run.repetitions=7", "run.repetitions=9"};
    assert_int_equal(nbc_config_load(&cfg, "[run]\nrepetitions = 3\ncollective = ireduce\n",
                                     "inline.conf", sets, 2, err, sizeof err),
                     0);
    assert_int_equal(cfg.run.repetitions, 9);           /* the last --set */
    assert_string_equal(cfg.run.collective, "ireduce"); /* the text */
    assert_int_equal(cfg.run.max_retries, 100);         /* a default */
    nbc_config_free(&cfg);

    assert_int_equal(nbc_config_load(&cfg, NULL, NULL, sets, 1, err, sizeof err), 0);
    assert_int_equal(cfg.run.repetitions, 7);
    nbc_config_free(&cfg);

    assert_int_not_equal(
        nbc_config_load(&cfg, "[run]\nrepetitions = x\n", "my.conf", NULL, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, "my.conf:2: run.repetitions"));
    nbc_config_free(&cfg);

    const char *bad_set[] = {"run.repetitions=0x"};
    assert_int_not_equal(
        nbc_config_load(&cfg, "[run]\nrepetitions = 3\n", "my.conf", bad_set, 1, err, sizeof err),
        0);
    assert_non_null(strstr(err, "--set: run.repetitions"));
    nbc_config_free(&cfg);
}

static void set_overrides_the_file(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[ERR_LEN] = "";
    init_config(&cfg);
    assert_int_equal(nbc_config_parse_text(&cfg, "[run]\nrepetitions = 3\ncollective = ireduce\n",
                                           "inline.conf", err, sizeof err),
                     0);
    assert_int_equal(cfg.run.repetitions, 3);
    set_ok(&cfg, "run.repetitions=7");
    set_ok(&cfg, "  run.collective =  iallreduce  ");
    set_ok(&cfg, "progress.mode=test:4");
    set_ok(&cfg, "run.force=yes");
    set_ok(&cfg, "calibration.max_bytes=1G");
    set_ok(&cfg, "clocksync.resync_interval_s=0");
    set_ok(&cfg, "run.deployment=dedicated");
    validate_ok(&cfg);
    assert_int_equal(cfg.run.repetitions, 7);
    assert_string_equal(cfg.run.collective, "iallreduce");
    assert_int_equal(cfg.progress.mode, NBC_PROGRESS_TEST);
    assert_int_equal(cfg.progress.test_count, 4);
    assert_true(cfg.run.force);
    assert_true(cfg.calibration.max_bytes == 1ull << 30);
    assert_true(cfg.clocksync.resync_interval_s == 0);
    assert_int_equal(cfg.run.deployment, NBC_DEPLOYMENT_DEDICATED);
    set_ok(&cfg, "progress.mode=none");
    assert_int_equal(cfg.progress.mode, NBC_PROGRESS_NONE);
    assert_int_equal(cfg.progress.test_count, 0);
    /* A period alone (test_chunks at its default) is no conflict. */
    set_ok(&cfg, "progress.test_period_us=250");
    validate_ok(&cfg);
    assert_true(cfg.progress.test_period_us == 250);
    set_ok(&cfg, "run.deployment=thread");
    set_ok(&cfg, "progress.oversubscribe=true");
    set_ok(&cfg, "progress.unconfirmed_ok=true");
    assert_int_equal(cfg.run.deployment, NBC_DEPLOYMENT_THREAD);
    assert_true(cfg.progress.oversubscribe && cfg.progress.unconfirmed_ok);
    nbc_config_free(&cfg);
}

static char *dump_to_string(const nbc_config *cfg);

static void grids_expand(void **state)
{
    (void)state;
    nbc_config cfg;
    init_config(&cfg);

    set_ok(&cfg, "grid.comm_times=1e-3s,64e-3s,2");
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, ms_1_to_64, 7);
    set_ok(&cfg, "grid.comm_times=1ms, 64ms, 2");
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, ms_1_to_64, 7);
    set_ok(&cfg, "grid.comm_times=1000us,0.064s,2");
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, ms_1_to_64, 7);

    /* The last value snaps to max: 1e-3 * 10^3 is not exactly 1 in doubles. */
    set_ok(&cfg, "grid.comm_times=1ms,1s,10");
    static const double decades[] = {1e-3, 1e-2, 1e-1, 1};
    assert_grid(cfg.grid.comm_times_s, cfg.grid.comm_count, decades, 4);
    assert_true(cfg.grid.comm_times_s[3] == 1.0);

    /* max between two steps: stops below it. */
    set_ok(&cfg, "grid.comm_times=1ms,100ms,2");
    assert_int_equal(cfg.grid.comm_count, 7);

    /* min == max: one value. */
    set_ok(&cfg, "grid.comm_times=5ms,5ms,2");
    assert_int_equal(cfg.grid.comm_count, 1);
    assert_true(cfg.grid.comm_times_s[0] == 5e-3);

    /* Lists: units, any order (sorted), tabs. */
    set_ok(&cfg, "grid.comp_times=4ms 1ms\t2000us 0.5s");
    static const double listed[] = {1e-3, 2e-3, 4e-3, 0.5};
    assert_grid(cfg.grid.comp_times_s, cfg.grid.comp_count, listed, 4);
    set_ok(&cfg, "grid.comp_times=3ms");
    assert_int_equal(cfg.grid.comp_count, 1);
    assert_true(cfg.grid.comp_times_s[0] == 3e-3);
    /* "1.5ms" is the same double as 1.5e-3. */
    set_ok(&cfg, "grid.comp_times=1.5ms");
    assert_true(cfg.grid.comp_times_s[0] == 1.5e-3);

    /* The axis as message sizes: any order (stored ascending), the
     * calibration.max_bytes suffixes, comm_times emptied. */
    set_ok(&cfg, "grid.comm_times=");
    set_ok(&cfg, "grid.comm_sizes=16MiB, 1MiB,4194304");
    assert_int_equal(cfg.grid.comm_count, 0);
    assert_int_equal(cfg.grid.comm_size_count, 3);
    assert_true(cfg.grid.comm_sizes_bytes[0] == 1048576 &&
                cfg.grid.comm_sizes_bytes[1] == 4194304 &&
                cfg.grid.comm_sizes_bytes[2] == 16777216);
    assert_int_equal(nbc_comm_axis_count(&cfg), 3);
    validate_ok(&cfg);
    char *dumped = dump_to_string(&cfg);
    assert_non_null(strstr(dumped, "comm_times = \n"));
    assert_non_null(strstr(dumped, "comm_sizes = 16MiB, 1MiB,4194304\n"));
    free(dumped);
    nbc_config_free(&cfg);
}

static char *dump_to_string(const nbc_config *cfg)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(nbc_config_dump_ini(cfg, out), 0);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void dump_ini_parses_back_to_the_same_configuration(void **state)
{
    (void)state;
    nbc_config original, reloaded;
    char err[ERR_LEN] = "";
    init_config(&original);
    static const char *const changes[] = {
        "run.collective=ialltoall",
        "run.deployment=manual",
        "run.mpi=openmpi",
        "run.threads=1",
        "run.repetitions=9",
        "run.max_cells=50",
        "run.force=on",
        "run.check=true",
        "grid.comm_times=500us,1s,2",
        "grid.comp_times=7ms 1ms 3.5ms",
        "calibration.tolerance=0.05",
        "calibration.max_iterations=20",
        "calibration.runs_per_point=3",
        "calibration.max_bytes=3KiB",
        "clocksync.roundtrips=200",
        "clocksync.drift_gap_s=250ms",
        "clocksync.resync_interval_s=0",
        "clocksync.barrier_margin_us=75.5",
        "progress.mode=test:8",
        "progress.test_chunks=4",
        "watchdog.factor=2.5",
        "watchdog.floor_s=1500us",
    };
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++)
        set_ok(&original, changes[i]);
    validate_ok(&original);

    char *dumped = dump_to_string(&original);
    assert_int_equal(nbc_config_init(&reloaded, err, sizeof err), 0);
    if (nbc_config_parse_text(&reloaded, dumped, "config.ini", err, sizeof err) != 0)
        fail_msg("the dump does not parse back: %s\n%s", err, dumped);
    validate_ok(&reloaded);

    assert_string_equal(reloaded.run.collective, original.run.collective);
    assert_int_equal(reloaded.run.deployment, original.run.deployment);
    assert_string_equal(reloaded.run.mpi, original.run.mpi);
    assert_string_equal(reloaded.run.results_dir, original.run.results_dir);
    assert_int_equal(reloaded.run.threads, original.run.threads);
    assert_int_equal(reloaded.run.repetitions, original.run.repetitions);
    assert_int_equal(reloaded.run.max_cells, original.run.max_cells);
    assert_int_equal(reloaded.run.force, original.run.force);
    assert_int_equal(reloaded.run.check, original.run.check);
    assert_int_equal(reloaded.grid.comm_count, original.grid.comm_count);
    assert_memory_equal(reloaded.grid.comm_times_s, original.grid.comm_times_s,
                        original.grid.comm_count * sizeof(double));
    assert_int_equal(reloaded.grid.comp_count, original.grid.comp_count);
    assert_memory_equal(reloaded.grid.comp_times_s, original.grid.comp_times_s,
                        original.grid.comp_count * sizeof(double));
    assert_true(reloaded.calibration.tolerance == original.calibration.tolerance);
    assert_int_equal(reloaded.calibration.max_iterations, original.calibration.max_iterations);
    assert_int_equal(reloaded.calibration.runs_per_point, original.calibration.runs_per_point);
    assert_true(reloaded.calibration.max_bytes == 3072);
    assert_int_equal(reloaded.clocksync.roundtrips, original.clocksync.roundtrips);
    assert_true(reloaded.clocksync.drift_gap_s == 0.25);
    assert_true(reloaded.clocksync.resync_interval_s == 0);
    assert_true(reloaded.clocksync.barrier_margin_us == 75.5);
    assert_int_equal(reloaded.progress.mode, NBC_PROGRESS_TEST);
    assert_int_equal(reloaded.progress.test_count, 8);
    assert_int_equal(reloaded.progress.test_chunks, 4);
    assert_true(reloaded.watchdog.factor == 2.5);
    assert_true(reloaded.watchdog.floor_s == 1.5e-3);

    /* Dumping the reloaded configuration gives the same text again. */
    char *dumped_again = dump_to_string(&reloaded);
    assert_string_equal(dumped_again, dumped);
    free(dumped_again);
    free(dumped);
    nbc_config_free(&reloaded);
    nbc_config_free(&original);
}

static void json_has_typed_values(void **state)
{
    (void)state;
    nbc_config cfg;
    init_config(&cfg);
    set_ok(&cfg, "progress.mode=test:3");
    json_object *root = nbc_config_to_json(&cfg);
    assert_non_null(root);
    json_object *run = NULL, *grid = NULL, *calibration = NULL, *progress = NULL, *value = NULL;
    assert_true(json_object_object_get_ex(root, "run", &run));
    assert_true(json_object_object_get_ex(run, "collective", &value));
    assert_string_equal(json_object_get_string(value), "ibcast");
    assert_true(json_object_object_get_ex(run, "deployment", &value));
    assert_string_equal(json_object_get_string(value), "basic");
    assert_true(json_object_object_get_ex(run, "force", &value));
    assert_true(json_object_is_type(value, json_type_boolean));
    assert_true(json_object_object_get_ex(root, "grid", &grid));
    assert_true(json_object_object_get_ex(grid, "comm_times", &value));
    assert_int_equal(json_object_array_length(value), 7);
    assert_true(json_object_get_double(json_object_array_get_idx(value, 6)) == 0.064);
    assert_true(json_object_object_get_ex(root, "calibration", &calibration));
    assert_true(json_object_object_get_ex(calibration, "max_bytes", &value));
    assert_true(json_object_get_uint64(value) == 256ull << 20);
    assert_true(json_object_object_get_ex(root, "progress", &progress));
    assert_true(json_object_object_get_ex(progress, "mode", &value));
    assert_string_equal(json_object_get_string(value), "test:3");
    /* Durations in seconds, written in their shortest exact form. */
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
    assert_non_null(strstr(text, "\"comm_times\":[0.001,0.002,0.004,0.008,0.016,0.032,0.064]"));
    json_object_put(root);
    nbc_config_free(&cfg);
}

static void help_lists_every_key(void **state)
{
    (void)state;
    static const char *const every_key[] = {
        "run.collective",
        "run.collectives",
        "run.ranks",
        "run.deployment",
        "run.mpi",
        "run.results_dir",
        "run.calibration_from",
        "run.threads",
        "run.repetitions",
        "run.max_repetitions",
        "run.visits",
        "run.half_width",
        "run.cell_budget_s",
        "run.late_tolerance",
        "run.max_retries",
        "run.late_patience_s",
        "run.null_share",
        "run.seed",
        "run.max_cells",
        "run.force",
        "run.check",
        "run.root",
        "run.datatype",
        "run.in_place",
        "run.background_share",
        "compute.kernel",
        "compute.ref_warmup_s",
        "grid.comm_times",
        "grid.comm_sizes",
        "grid.comp_times",
        "calibration.tolerance",
        "calibration.max_iterations",
        "calibration.runs_per_point",
        "calibration.max_bytes",
        "clocksync.roundtrips",
        "clocksync.method",
        "clocksync.drift_gap_s",
        "clocksync.resync_interval_s",
        "clocksync.barrier_margin_us",
        "progress.mode",
        "progress.test_chunks",
        "progress.test_period_us",
        "progress.unconfirmed_ok",
        "progress.oversubscribe",
        "watchdog.factor",
        "watchdog.floor_s",
    };
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    nbc_config_print_help(out);
    assert_int_equal(fclose(out), 0);
    for (size_t i = 0; i < sizeof every_key / sizeof every_key[0]; i++) {
        char entry[128];
        snprintf(entry, sizeof entry, "  %s  (", every_key[i]);
        if (strstr(text, entry) == NULL)
            fail_msg("help does not list %s:\n%s", every_key[i], text);
    }
    /* Type, unit, default and allowed values are shown. */
    assert_non_null(strstr(text, "grid.comm_times  (duration grid, unit s, default 1ms,64ms,2)"));
    assert_non_null(strstr(text, "allowed: basic, progress, dedicated, manual, thread"));
    assert_non_null(strstr(text, "allowed: a number > 0 and < 1"));
    assert_non_null(strstr(text, "allowed: none, test:K with an integer K >= 1"));
    /* Every key, and only them: the dump of the defaults has as many lines. */
    nbc_config cfg;
    init_config(&cfg);
    char *dumped = dump_to_string(&cfg);
    size_t key_lines = 0;
    for (const char *c = dumped; (c = strstr(c, " = ")) != NULL; c += 3)
        key_lines++;
    assert_int_equal(key_lines, sizeof every_key / sizeof every_key[0]);
    free(dumped);
    nbc_config_free(&cfg);
    free(text);
}

static void deployment_names(void **state)
{
    (void)state;
    nbc_config cfg;
    init_config(&cfg);
    set_ok(&cfg, "run.deployment=dedicated");
    assert_string_equal(nbc_deployment_name(cfg.run.deployment), "dedicated");
    assert_string_equal(nbc_deployment_name(NBC_DEPLOYMENT_THREAD), "thread");
    assert_string_equal(nbc_progress_mode_name(NBC_PROGRESS_TEST), "test");
    nbc_config_free(&cfg);
}

static void too_many_cells_accepted_with_force(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[ERR_LEN] = "";
    init_config(&cfg);
    set_ok(&cfg, "grid.comm_times=1us,1s,1.2");
    assert_int_not_equal(nbc_config_validate(&cfg, &machine, err, sizeof err), 0);
    set_ok(&cfg, "run.force=true");
    validate_ok(&cfg);
    assert_true(cfg.grid.comm_count * cfg.grid.comp_count > 400);
    nbc_config_free(&cfg);
}

static void results_dir_is_created_under_an_existing_parent(void **state)
{
    (void)state;
    nbc_config cfg;
    char assignment[PATH_MAX + 32], path[PATH_MAX + 16];
    init_config(&cfg);
    snprintf(path, sizeof path, "%s/fresh", scratch);
    snprintf(assignment, sizeof assignment, "run.results_dir=%s", path);
    set_ok(&cfg, assignment);
    validate_ok(&cfg);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    validate_ok(&cfg); /* and it is fine when it exists */
    nbc_config_free(&cfg);
}

/* run.calibration_from: empty (calibrate here) or a folder to read; a path
 * that is no folder is refused with the key named, and nothing is created. */
static void calibration_from_is_a_readable_folder(void **state)
{
    (void)state;
    nbc_config cfg;
    char assignment[PATH_MAX + 64], path[PATH_MAX + 16], err[ERR_LEN] = "";
    init_config(&cfg);
    validate_ok(&cfg);
    snprintf(assignment, sizeof assignment, "run.calibration_from=%s", scratch);
    set_ok(&cfg, assignment);
    validate_ok(&cfg);
    snprintf(path, sizeof path, "%s/no-such-run", scratch);
    snprintf(assignment, sizeof assignment, "run.calibration_from=%s", path);
    set_ok(&cfg, assignment);
    assert_int_not_equal(nbc_config_validate(&cfg, NULL, err, sizeof err), 0);
    assert_non_null(strstr(err, "run.calibration_from"));
    assert_non_null(strstr(err, "is not a readable folder"));
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    nbc_config_free(&cfg);
}

static void messages_name_the_file_and_line(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[ERR_LEN] = "";
    init_config(&cfg);
    assert_int_not_equal(nbc_config_parse_text(&cfg, "; comment\n[run]\n\nrepetitions = many\n",
                                               "my.conf", err, sizeof err),
                         0);
    assert_non_null(strstr(err, "my.conf:4: run.repetitions: \"many\" is not an integer"));
    nbc_config_free(&cfg);

    /* A value refused at validation still says where it was set. */
    init_config(&cfg);
    assert_int_equal(
        nbc_config_parse_text(&cfg, "[run]\nrepetitions = 0\n", "my.conf", err, sizeof err), 0);
    assert_int_not_equal(nbc_config_validate(&cfg, &machine, err, sizeof err), 0);
    assert_non_null(strstr(err, "config: my.conf:2: run.repetitions: \"0\" is zero"));
    nbc_config_free(&cfg);
}

/* ------------------------------------------------------------- bad input */

typedef struct {
    const char *name;
    const char *file_text;   /* parsed first when not NULL */
    const char *sets[3];     /* then these --set assignments */
    const char *expected[4]; /* substrings of the message */
} bad_input;

/* "%s" in a --set assignment stands for the scratch directory. */
static const bad_input bad_inputs[] = {
    {"unknown key (--set)",
     NULL,
     {"run.repetiton=3"},
     {"run.repetiton", "unknown key", "did you mean run.repetitions?", "keys of [run]:"}},
    {"unknown key (file)",
     "[run]\nfoo = 1\n",
     {NULL},
     {"run.foo", "unknown key", "keys of [run]: collective, collectives, ranks, deployment"}},
    {"key in the wrong section",
     "[run]\ntolerance = 0.2\n",
     {NULL},
     {"run.tolerance", "unknown key", "did you mean calibration.tolerance?"}},
    {"unknown section",
     "[rnu]\ncollective = ibcast\n",
     {NULL},
     {"rnu.collective", "[rnu]", "did you mean [run]?", "sections: run, compute, grid"}},
    {"key outside any section",
     "collective = ibcast\n",
     {NULL},
     {"collective", "key without a section", "sections: run"}},
    {"--set key without section",
     NULL,
     {"repetitions=3"},
     {"repetitions", "did you mean run.repetitions?"}},
    {"--set without =", NULL, {"run.repetitions"}, {"run.repetitions", "section.key=value"}},
    {"unknown collective",
     NULL,
     {"run.collective=ibcst"},
     {"run.collective", "\"ibcst\"", "did you mean ibcast?", "ibcast, ireduce, iallreduce"}},
    {"unknown deployment",
     NULL,
     {"run.deployment=dedicate"},
     {"run.deployment", "\"dedicate\"", "basic, progress, dedicated, manual, thread"}},
    {"unknown mpi profile",
     NULL,
     {"run.mpi=intelmpi"},
     {"run.mpi", "\"intelmpi\"", "auto, mpich, openmpi"}},
    {"non-numeric integer",
     NULL,
     {"run.repetitions=five"},
     {"run.repetitions", "\"five\"", "not an integer", "an integer >= 1"}},
    {"integer overflow",
     NULL,
     {"run.repetitions=99999999999"},
     {"run.repetitions", "not an integer"}},
    {"non-numeric grid",
     NULL,
     {"grid.comm_times=abc"},
     {"grid.comm_times", "\"abc\" is not a duration grid", "min,max,factor", "unit s, ms or us"}},
    /* A bare number once read as seconds: 1,16,2 meant in ms was hours. */
    {"grid range without units",
     NULL,
     {"grid.comm_times=1,16,2"},
     {"grid.comm_times", "\"1\" has no unit", "unit s, ms or us"}},
    {"grid range with one unit missing",
     NULL,
     {"grid.comp_times=1ms,16,2"},
     {"grid.comp_times", "\"16\" has no unit", "unit s, ms or us"}},
    {"grid list item without unit",
     NULL,
     {"grid.comp_times=1ms 4"},
     {"grid.comp_times", "\"4\" has no unit"}},
    {"grid without units (file)",
     "[grid]\ncomm_times = 1,16,2\n",
     {NULL},
     {"grid.comm_times", "\"1\" has no unit", "unit s, ms or us"}},
    {"non-numeric grid item",
     NULL,
     {"grid.comp_times=1ms 2xs"},
     {"grid.comp_times", "\"2xs\" is not a duration"}},
    {"negative grid time",
     NULL,
     {"grid.comp_times=-1ms,64ms,2"},
     {"grid.comp_times", "<= 0", "0 < min <= max"}},
    {"zero grid time",
     NULL,
     {"grid.comm_times=0 1ms"},
     {"grid.comm_times", "time <= 0", "distinct times > 0"}},
    {"negative duration",
     NULL,
     {"clocksync.drift_gap_s=-1s"},
     {"clocksync.drift_gap_s", "\"-1s\" is negative", "> 0"}},
    {"zero duration", NULL, {"watchdog.floor_s=0"}, {"watchdog.floor_s", "\"0\" is zero", "> 0"}},
    {"non-numeric duration",
     NULL,
     {"watchdog.floor_s=30 seconds"},
     {"watchdog.floor_s", "not a duration", "s, ms or us"}},
    {"duration without unit",
     NULL,
     {"run.cell_budget_s=3"},
     {"run.cell_budget_s", "\"3\" has no unit", "s, ms or us"}},
    {"duration without unit (file)",
     "[clocksync]\nresync_interval_s = 300\n",
     {NULL},
     {"clocksync.resync_interval_s", "\"300\" has no unit", "s, ms or us"}},
    {"grid min > max",
     NULL,
     {"grid.comm_times=64ms,1ms,2"},
     {"grid.comm_times", "min > max", "min <= max"}},
    {"grid factor < 1",
     NULL,
     {"grid.comm_times=1ms,64ms,0.5"},
     {"grid.comm_times", "factor 0.5 <= 1", "factor > 1"}},
    {"grid factor = 1",
     NULL,
     {"grid.comm_times=1ms,64ms,1"},
     {"grid.comm_times", "factor 1 <= 1", "factor > 1"}},
    {"grid with two fields",
     NULL,
     {"grid.comm_times=1ms,64ms"},
     {"grid.comm_times", "needs exactly 3"}},
    {"grid with a trailing comma",
     NULL,
     {"grid.comm_times=1ms,64ms,2,"},
     {"grid.comm_times", "has 4 comma-separated fields"}},
    {"empty grid list",
     NULL,
     {"grid.comp_times="},
     {"grid.comp_times", "\"\" is empty", "min,max,factor"}},
    {"both communication axes",
     NULL,
     {"grid.comm_sizes=1MiB,4MiB"},
     {"grid.comm_times and grid.comm_sizes", "both give the communication axis",
      "\"1ms,64ms,2\" by default", "\"1MiB,4MiB\" from --set"}},
    {"neither communication axis",
     NULL,
     {"grid.comm_times="},
     {"grid.comm_times and grid.comm_sizes", "neither gives the communication axis",
      "exactly one of the two"}},
    {"message size 0",
     NULL,
     {"grid.comm_times=", "grid.comm_sizes=1MiB,0"},
     {"grid.comm_sizes", "\"0\" which is not above 0 bytes", "distinct byte sizes"}},
    {"message size not a size",
     NULL,
     {"grid.comm_times=", "grid.comm_sizes=1MiB,4Mb"},
     {"grid.comm_sizes", "\"4Mb\" which is not a byte size", "KiB, MiB, GiB"}},
    {"message size twice",
     NULL,
     {"grid.comm_times=", "grid.comm_sizes=1MiB,1048576"},
     {"grid.comm_sizes", "\"1048576\" twice"}},
    {"message size above max_bytes",
     NULL,
     {"grid.comm_times=", "grid.comm_sizes=1MiB,64MiB", "calibration.max_bytes=16MiB"},
     {"grid.comm_sizes", "67108864 bytes, above calibration.max_bytes = 16MiB",
      "at most calibration.max_bytes"}},
    {"duplicated list values",
     NULL,
     {"grid.comp_times=1ms 2ms 1e-3s"},
     {"grid.comp_times", "lists 0.001 s twice", "distinct"}},
    {"huge grid axis",
     NULL,
     {"grid.comm_times=1us,1s,1.0001"},
     {"grid.comm_times", "more than 10000 values"}},
    {"too many cells without force",
     NULL,
     {"grid.comm_times=1us,1s,1.2"},
     {"grid.comm_times x grid.comp_times", "run.max_cells = 400", "run.force = true"}},
    {"repetitions 0",
     NULL,
     {"run.repetitions=0"},
     {"run.repetitions", "\"0\" is zero", "an integer >= 1"}},
    {"repetitions negative",
     NULL,
     {"run.repetitions=-2"},
     {"run.repetitions", "is negative", ">= 1"}},
    {"late tolerance 0", NULL, {"run.late_tolerance=0"}, {"run.late_tolerance", "\"0\""}},
    {"late tolerance 1", NULL, {"run.late_tolerance=1"}, {"run.late_tolerance", "\"1\""}},
    {"null share above 1", NULL, {"run.null_share=1.5"}, {"run.null_share", "\"1.5\""}},
    {"max retries negative", NULL, {"run.max_retries=-1"}, {"run.max_retries", "is negative"}},
    {"seed not a number", NULL, {"run.seed=abc"}, {"run.seed", "\"abc\""}},
    {"threads > cores", NULL, {"run.threads=3"}, {"run.threads", "\"3\"", "2 cores", "1 to 2"}},
    {"threads negative", NULL, {"run.threads=-1"}, {"run.threads", "is negative", ">= 0"}},
    {"progress thread as a mode",
     NULL,
     {"progress.mode=thread"},
     {"progress.mode", "run.deployment=thread"}},
    {"max_bytes too big for memory",
     NULL,
     {"calibration.max_bytes=8GiB"},
     {"calibration.max_bytes", "\"8GiB\"", "24 GiB", "at most 6 GiB"}},
    {"max_bytes zero",
     NULL,
     {"calibration.max_bytes=0"},
     {"calibration.max_bytes", "is zero", "> 0"}},
    {"bad byte suffix",
     NULL,
     {"calibration.max_bytes=256MB"},
     {"calibration.max_bytes", "\"256MB\" is not a byte size", "K, M, G, KiB, MiB, GiB"}},
    {"negative byte size",
     NULL,
     {"calibration.max_bytes=-1"},
     {"calibration.max_bytes", "not a byte size"}},
    {"tolerance 0",
     NULL,
     {"calibration.tolerance=0"},
     {"calibration.tolerance", "\"0\" is zero", "> 0 and < 1"}},
    {"tolerance 1.5",
     NULL,
     {"calibration.tolerance=1.5"},
     {"calibration.tolerance", "too large", "> 0 and < 1"}},
    {"tolerance nan",
     NULL,
     {"calibration.tolerance=nan"},
     {"calibration.tolerance", "not a number"}},
    {"max_iterations 0",
     NULL,
     {"calibration.max_iterations=0"},
     {"calibration.max_iterations", ">= 1"}},
    {"roundtrips below 10",
     NULL,
     {"clocksync.roundtrips=5"},
     {"clocksync.roundtrips", "too small", ">= 10"}},
    {"watchdog factor below 2",
     NULL,
     {"watchdog.factor=1.5"},
     {"watchdog.factor", "too small", ">= 2"}},
    {"barrier margin zero",
     NULL,
     {"clocksync.barrier_margin_us=0"},
     {"clocksync.barrier_margin_us", "is zero", "> 0"}},
    {"progress test:0",
     NULL,
     {"progress.mode=test:0"},
     {"progress.mode", "\"test:0\" is not a progress mode", "none, test:K with an integer K >= 1"}},
    {"progress test:x", NULL, {"progress.mode=test:x"}, {"progress.mode", "\"test:x\"", "test:K"}},
    {"progress poll", NULL, {"progress.mode=poll"}, {"progress.mode", "\"poll\"", "none, test:K"}},
    {"test_chunks 0", NULL, {"progress.test_chunks=0"}, {"progress.test_chunks", ">= 1"}},
    {"negative MPI_Test period",
     NULL,
     {"progress.test_period_us=-1"},
     {"progress.test_period_us", ">= 0"}},
    {"MPI_Test period and test:K",
     NULL,
     {"progress.test_period_us=100", "progress.mode=test:4"},
     {"progress.test_period_us and progress.mode", "\"test:4\" from --set", "one of the two"}},
    {"MPI_Test period and test_chunks",
     "[progress]\ntest_chunks = 8\n",
     {"progress.test_period_us=100"},
     {"progress.test_period_us and progress.test_chunks", "\"8\" from inline.conf:2",
      "\"100\" from --set"}},
    {"bad bool",
     NULL,
     {"run.force=maybe"},
     {"run.force", "\"maybe\" is not a boolean", "true, false"}},
    {"results_dir under a regular file",
     NULL,
     {"run.results_dir=%s/file/results"},
     {"run.results_dir", "Not a directory", "writable directory"}},
    {"results_dir without parent",
     NULL,
     {"run.results_dir=%s/no/such/folder"},
     {"run.results_dir", "does not exist", "parent"}},
    {"results_dir empty", NULL, {"run.results_dir="}, {"run.results_dir", "is empty"}},
    {"comment marker in a --set value",
     NULL,
     {"run.collective=ibcast ;x"},
     {"run.collective", "starts a comment"}},
    {"key twice in one file",
     "[run]\nrepetitions = 3\nrepetitions = 4\n",
     {NULL},
     {"run.repetitions", "second time", "line 2"}},
    {"indented continuation line",
     "[run]\nrepetitions = 3\n  threads = 1\n",
     {NULL},
     {"inline.conf:3", "run.repetitions", "continuation"}},
    {"line without =",
     "[run]\nrepetitions\n",
     {NULL},
     {"inline.conf:2", "\"repetitions\" cannot be parsed", "key = value"}},
    {"unterminated section",
     "[run\nrepetitions = 3\n",
     {NULL},
     {"inline.conf:1", "\"[run\"", "[section]"}},
    {"unknown collective in a list",
     NULL,
     {"run.collectives=ibcast,iallreduse"},
     {"run.collectives", "'iallreduse'", "did you mean iallreduce?", "ibcast, ireduce"}},
    {"empty item in a list of collectives",
     NULL,
     {"run.collectives=ibcast,,ialltoall"},
     {"run.collectives", "empty item", "comma-separated"}},
    {"collective twice in a list",
     NULL,
     {"run.collectives=ibcast,ialltoall,ibcast"},
     {"run.collectives", "\"ibcast\" twice"}},
    {"rank count not an integer",
     NULL,
     {"run.ranks=2,four"},
     {"run.ranks", "\"four\" which is not an integer", "integers separated by commas"}},
    {"rank count of one", NULL, {"run.ranks=1,2"}, {"run.ranks", "has 1, too few ranks", ">= 2"}},
};

#define BAD_INPUT_COUNT (sizeof bad_inputs / sizeof bad_inputs[0])

static void bad_input_is_refused(void **state)
{
    const bad_input *bad = *state;
    nbc_config cfg;
    char err[ERR_LEN] = "";
    init_config(&cfg);
    int status = 0;
    if (bad->file_text)
        status = nbc_config_parse_text(&cfg, bad->file_text, "inline.conf", err, sizeof err);
    for (size_t i = 0; status == 0 && i < 3 && bad->sets[i]; i++) {
        char assignment[PATH_MAX + 64];
        snprintf(assignment, sizeof assignment, bad->sets[i], scratch);
        status = nbc_config_set(&cfg, assignment, err, sizeof err);
    }
    if (status == 0)
        status = nbc_config_validate(&cfg, &machine, err, sizeof err);
    nbc_config_free(&cfg);
    if (status == 0)
        fail_msg("%s: accepted", bad->name);
    print_message("%s -> %s\n", bad->name, err);
    if (strncmp(err, "config: ", 8) != 0)
        fail_msg("%s: message does not start with \"config: \": %s", bad->name, err);
    if (strchr(err, '\n') != NULL)
        fail_msg("%s: message spans lines: %s", bad->name, err);
    for (size_t i = 0; i < 4 && bad->expected[i]; i++)
        if (strstr(err, bad->expected[i]) == NULL)
            fail_msg("%s: message lacks \"%s\": %s", bad->name, bad->expected[i], err);
}

/* run.collectives and run.ranks: lists kept in order, in config.ini and
 * meta.json's config; a rank count above the job's size refused naming it. */
static void lists_of_collectives_and_rank_counts(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[ERR_LEN] = "";
    init_config(&cfg);
    assert_int_equal(cfg.run.collectives_count, 0);
    assert_int_equal(cfg.run.ranks_count, 0);
    set_ok(&cfg, "run.collectives= ialltoall, ibcast ,iallreduce");
    set_ok(&cfg, "run.ranks=4,2");
    validate_ok(&cfg);
    assert_int_equal(cfg.run.collectives_count, 3);
    assert_string_equal(cfg.run.collectives[0], "ialltoall");
    assert_string_equal(cfg.run.collectives[1], "ibcast");
    assert_string_equal(cfg.run.collectives[2], "iallreduce");
    assert_int_equal(cfg.run.ranks_count, 2);
    assert_int_equal(cfg.run.ranks[0], 4);
    assert_int_equal(cfg.run.ranks[1], 2);
    json_object *json = nbc_config_to_json(&cfg), *run, *list;
    assert_true(json_object_object_get_ex(json, "run", &run));
    assert_true(json_object_object_get_ex(run, "ranks", &list));
    assert_int_equal(json_object_array_length(list), 2);
    assert_int_equal(json_object_get_int(json_object_array_get_idx(list, 0)), 4);
    json_object_put(json);
    /* The job has 3 ranks: 4 is refused, naming the key and the range. */
    nbc_config_limits three = machine;
    three.ranks = 3;
    assert_int_equal(nbc_config_validate(&cfg, &three, err, sizeof err), -1);
    assert_non_null(strstr(err, "run.ranks"));
    assert_non_null(strstr(err, "has 4, more ranks than the job has"));
    assert_non_null(strstr(err, "from 2 to the job's 3"));
    /* Emptied, they mean run.collective alone on every rank. */
    set_ok(&cfg, "run.collectives=");
    set_ok(&cfg, "run.ranks=");
    assert_int_equal(cfg.run.collectives_count, 0);
    assert_int_equal(cfg.run.ranks_count, 0);
    assert_int_equal(nbc_config_validate(&cfg, &three, err, sizeof err), 0);
    nbc_config_free(&cfg);
}

/* Every duration key, found in --help's key list by its type: a bare number
 * is refused naming the units (a grid's too), and 0 alone is accepted. */
static void every_duration_key_needs_a_unit(void **state)
{
    (void)state;
    char *help = NULL;
    size_t help_len = 0;
    FILE *out = open_memstream(&help, &help_len);
    assert_non_null(out);
    nbc_config_print_help(out);
    assert_int_equal(fclose(out), 0);
    size_t checked = 0, grids = 0;
    for (char *save = NULL, *line = strtok_r(help, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char key[128];
        if (sscanf(line, "  %127s  (duration", key) != 1 || strstr(line, "  (duration") == NULL)
            continue;
        bool grid = strstr(line, "(duration grid") != NULL;
        char assignment[160], err[ERR_LEN] = "";
        snprintf(assignment, sizeof assignment, "%s=%s", key, grid ? "1,16,2" : "16");
        nbc_config cfg;
        init_config(&cfg);
        if (nbc_config_set(&cfg, assignment, err, sizeof err) == 0)
            fail_msg("--set %s accepted: a time without a unit", assignment);
        if (strstr(err, key) == NULL || strstr(err, "has no unit") == NULL ||
            strstr(err, "s, ms or us") == NULL)
            fail_msg("--set %s: the refusal names neither the key nor the units: %s", assignment,
                     err);
        if (!grid) {
            snprintf(assignment, sizeof assignment, "%s=0", key);
            err[0] = '\0';
            nbc_config_set(&cfg, assignment, err, sizeof err); /* may be below its bound */
            assert_null(strstr(err, "has no unit"));
        }
        nbc_config_free(&cfg);
        checked++;
        grids += grid;
    }
    free(help);
    assert_int_equal(grids, 2); /* comm_times and comp_times */
    assert_true(checked >= 7);
}

static void missing_config_file_is_named(void **state)
{
    (void)state;
    char path[PATH_MAX + 32], err[ERR_LEN] = "";
    snprintf(path, sizeof path, "%s/absent.conf", scratch);
    char *text = (char *)"untouched";
    assert_int_not_equal(nbc_config_read_file(path, &text, err, sizeof err), 0);
    assert_null(text);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "No such file or directory"));

    /* A directory is not a configuration file either. */
    assert_int_not_equal(nbc_config_read_file(scratch, &text, err, sizeof err), 0);
    assert_non_null(strstr(err, scratch));
    assert_non_null(strstr(err, "Is a directory"));
}

static void overlong_line_is_refused(void **state)
{
    (void)state;
    nbc_config cfg;
    char err[ERR_LEN] = "", text[1024];
    init_config(&cfg);
    /* libinih would split it in two and read the tail as another line. */
    snprintf(text, sizeof text, "[grid]\ncomm_times = %0400d\n", 1);
    assert_int_not_equal(nbc_config_parse_text(&cfg, text, "long.conf", err, sizeof err), 0);
    assert_non_null(strstr(err, "long.conf:2: line is too long"));
    /* and --set refuses values too long for the dumped config.ini */
    snprintf(text, sizeof text, "grid.comm_times=%0300d", 1);
    assert_int_not_equal(nbc_config_set(&cfg, text, err, sizeof err), 0);
    assert_non_null(strstr(err, "grid.comm_times"));
    assert_non_null(strstr(err, "too long"));
    nbc_config_free(&cfg);
}

/* A library that fails ibcast from 2^31 bytes on (an MPI library profile's
 * [size_limit]); no limit for the other collectives. */
static uint64_t ibcast_limit(const nbc_config *cfg, int ranks, char *why, size_t whylen)
{
    (void)ranks;
    if (strcmp(cfg->run.collective, "ibcast") != 0)
        return 0;
    snprintf(why, whylen, "the limit of 2147483647 bytes per buffer: a known bug");
    return 2147483647;
}

static uint64_t ibcast_limit_128mib(const nbc_config *cfg, int ranks, char *why, size_t whylen)
{
    return ibcast_limit(cfg, ranks, why, whylen) ? 128u << 20 : 0;
}

/* Set above the library's limit, calibration.max_bytes is refused with the
 * limit and its reason; at the limit, below it, for another collective, or
 * left at a default above it (the calibration stops at the limit), not. */
static void size_limit_refuses_an_explicit_max_bytes(void **state)
{
    (void)state;
    nbc_config_limits limited = machine;
    limited.size_limit = ibcast_limit;
    static const struct {
        const char *collective, *max_bytes; /* NULL: the default */
        bool refused;
    } cases[] = {
        {"ibcast", "3GiB", true},  {"ibcast", "2GiB", true},     {"ibcast", "2147483647", false},
        {"ibcast", "1GiB", false}, {"ialltoall", "3GiB", false}, {"ibcast", NULL, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        nbc_config cfg;
        init_config(&cfg);
        char assignment[128], err[ERR_LEN] = "";
        snprintf(assignment, sizeof assignment, "run.collective=%s", cases[i].collective);
        set_ok(&cfg, assignment);
        if (cases[i].max_bytes) {
            snprintf(assignment, sizeof assignment, "calibration.max_bytes=%s", cases[i].max_bytes);
            set_ok(&cfg, assignment);
        }
        int rc = nbc_config_validate(&cfg, &limited, err, sizeof err);
        if ((rc != 0) != cases[i].refused)
            fail_msg("%s at %s: status %d (%s)", cases[i].collective,
                     cases[i].max_bytes ? cases[i].max_bytes : "the default", rc, err);
        if (cases[i].refused) {
            char value[64];
            snprintf(value, sizeof value, "calibration.max_bytes: \"%s\"", cases[i].max_bytes);
            const char *parts[] = {"--set", value, "is above what this MPI library can run",
                                   "a known bug", "at most 2147483647 bytes for ibcast"};
            for (size_t j = 0; j < sizeof parts / sizeof *parts; j++)
                if (!strstr(err, parts[j]))
                    fail_msg("no \"%s\" in: %s", parts[j], err);
        }
        nbc_config_free(&cfg);
    }
    /* A default (256 MiB) above a limit: accepted, the calibration caps it. */
    limited.size_limit = ibcast_limit_128mib;
    nbc_config cfg;
    init_config(&cfg);
    set_ok(&cfg, "run.collective=ibcast");
    char err[ERR_LEN] = "";
    if (nbc_config_validate(&cfg, &limited, err, sizeof err) != 0)
        fail_msg("the default max_bytes refused: %s", err);
    set_ok(&cfg, "calibration.max_bytes=256MiB");
    assert_int_not_equal(nbc_config_validate(&cfg, &limited, err, sizeof err), 0);
    nbc_config_free(&cfg);
}

/* The driver's explanation of a known name it does not offer (a scenario
 * with a part this library lacks, bench_nbc/collectives/scenario.c). */
static int lacks_bcast_init(const char *name, char *why, size_t whylen)
{
    if (strcmp(name, "scenario_persistent") != 0)
        return -1;
    snprintf(why, whylen, "is a scenario this MPI library cannot run: its part bcast_init ...");
    return 0;
}

/* run.collective and run.collectives refuse such a name with the key, the
 * scenario, its missing part and the allowed values. */
static void unavailable_scenario_names_its_missing_part(void **state)
{
    (void)state;
    nbc_config_limits limits = machine;
    limits.collective_unavailable = lacks_bcast_init;
    static const char *const assignments[] = {"run.collective=scenario_persistent",
                                              "run.collectives=ibcast,scenario_persistent"};
    for (size_t i = 0; i < 2; i++) {
        nbc_config cfg;
        init_config(&cfg);
        set_ok(&cfg, assignments[i]);
        char err[ERR_LEN] = "";
        assert_int_not_equal(nbc_config_validate(&cfg, &limits, err, sizeof err), 0);
        const char *parts[] = {i ? "run.collectives" : "run.collective", "scenario_persistent",
                               "its part bcast_init", "allowed: "};
        for (size_t j = 0; j < sizeof parts / sizeof *parts; j++)
            if (!strstr(err, parts[j]))
                fail_msg("no \"%s\" in: %s", parts[j], err);
        nbc_config_free(&cfg);
    }
    /* An unknown name is still "not a known collective". */
    nbc_config cfg;
    init_config(&cfg);
    set_ok(&cfg, "run.collective=scenario_nope");
    char err[ERR_LEN] = "";
    assert_int_not_equal(nbc_config_validate(&cfg, &limits, err, sizeof err), 0);
    assert_non_null(strstr(err, "is not a known collective"));
    nbc_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest good[] = {
        cmocka_unit_test(defaults_are_the_documented_ones),
        cmocka_unit_test(default_conf_parses_and_validates),
        cmocka_unit_test(paper_conf_parses_and_validates),
        cmocka_unit_test(set_overrides_the_file),
        cmocka_unit_test(load_applies_text_then_sets),
        cmocka_unit_test(grids_expand),
        cmocka_unit_test(every_duration_key_needs_a_unit),
        cmocka_unit_test(dump_ini_parses_back_to_the_same_configuration),
        cmocka_unit_test(json_has_typed_values),
        cmocka_unit_test(help_lists_every_key),
        cmocka_unit_test(deployment_names),
        cmocka_unit_test(too_many_cells_accepted_with_force),
        cmocka_unit_test(results_dir_is_created_under_an_existing_parent),
        cmocka_unit_test(calibration_from_is_a_readable_folder),
        cmocka_unit_test(messages_name_the_file_and_line),
        cmocka_unit_test(missing_config_file_is_named),
        cmocka_unit_test(lists_of_collectives_and_rank_counts),
        cmocka_unit_test(overlong_line_is_refused),
        cmocka_unit_test(size_limit_refuses_an_explicit_max_bytes),
        cmocka_unit_test(unavailable_scenario_names_its_missing_part),
    };
    struct CMUnitTest bad[BAD_INPUT_COUNT];
    for (size_t i = 0; i < BAD_INPUT_COUNT; i++)
        bad[i] = (struct CMUnitTest){.name = bad_inputs[i].name,
                                     .test_func = bad_input_is_refused,
                                     .initial_state = (void *)&bad_inputs[i]};

    if (make_scratch(NULL) != 0) {
        perror("test_config: scratch directory");
        return 1;
    }
    /* A regular file, for the results_dir-under-a-file case. */
    char file[PATH_MAX + 16];
    snprintf(file, sizeof file, "%s/file", scratch);
    FILE *f = fopen(file, "w");
    if (f == NULL || fclose(f) != 0) {
        perror(file);
        return 1;
    }
    int failures = cmocka_run_group_tests_name("config", good, NULL, NULL);
    failures += _cmocka_run_group_tests("config bad inputs", bad, BAD_INPUT_COUNT, NULL, NULL);
    if (failures == 0)
        printf("figure: config: %zu bad inputs refused (+ 4 file and line-length cases), each "
               "message naming the key and what is allowed\n",
               BAD_INPUT_COUNT);
    remove_scratch(NULL);
    return failures == 0 ? 0 : 1;
}
