/* Fuzz target: the configuration parser (config/).
 *
 * The input is used twice, as the driver uses text from users: as a
 * configuration file (nbc_config_parse_text on the defaults, then
 * nbc_config_validate against fixed limits) and as one `--set` string
 * (nbc_config_set, then validation). Promises checked (config.h): every
 * failure leaves one "config: " message; a valid configuration dumps to INI
 * text that parses back, validates and dumps to the same text; its JSON form
 * and thread count exist. run.results_dir is pinned to "." before validation,
 * since validation creates that directory: fuzzed paths must not make
 * folders all over the file system. */
#include "fuzz/fuzz.h"

#include "config/config.h"

#include <json-c/json.h>
#include <string.h>

#define TARGET "config"

/* What a 2-core rank of the driver would pass (names from its table). */
static const char *const collectives[] = {"ibcast", "iallreduce", "ialltoallv", "synthetic_serial"};
static const char *const mpi_profiles[] = {"auto", "mpich", "openmpi"};
static const nbc_config_limits limits = {
    .collectives = collectives,
    .collective_count = sizeof collectives / sizeof *collectives,
    .mpi_profiles = mpi_profiles,
    .mpi_profile_count = sizeof mpi_profiles / sizeof *mpi_profiles,
    .available_cores = 2,
    .available_memory_bytes = 1ull << 30,
};

static void require_message(int status, const char *err)
{
    fuzz_require(status == 0 || status == -1, TARGET, "status is 0 or -1");
    if (status != 0)
        fuzz_require(strncmp(err, "config: ", 8) == 0 && strlen(err) > 8, TARGET,
                     "a failure leaves a \"config: \" message");
}

/* The configuration as config.ini text (malloc'd). */
static char *dump(const nbc_config *cfg)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    fuzz_require(out != NULL, TARGET, "open_memstream works");
    fuzz_require(nbc_config_dump_ini(cfg, out) == 0, TARGET, "nbc_config_dump_ini succeeds");
    fuzz_require(fclose(out) == 0 && text != NULL, TARGET, "the dump is complete");
    return text;
}

static int validate_here(nbc_config *cfg, char *err, size_t errlen)
{
    int status = nbc_config_set(cfg, "run.results_dir=.", err, errlen);
    require_message(status, err);
    fuzz_require(status == 0, TARGET, "run.results_dir=. is accepted");
    status = nbc_config_validate(cfg, &limits, err, errlen);
    require_message(status, err);
    return status;
}

/* A valid configuration survives config.ini: dump, parse, validate, dump. */
static void require_round_trip(const nbc_config *cfg)
{
    char err[1024] = "";
    char *first = dump(cfg);
    nbc_config again;
    fuzz_require(nbc_config_init(&again, err, sizeof err) == 0, TARGET, "init succeeds");
    int status = nbc_config_parse_text(&again, first, "config.ini", err, sizeof err);
    if (status != 0)
        fprintf(stderr, "fuzz: " TARGET ": %s\n--- config.ini:\n%s", err, first);
    fuzz_require(status == 0, TARGET, "the dumped config.ini parses back");
    fuzz_require(validate_here(&again, err, sizeof err) == 0, TARGET,
                 "the dumped config.ini validates");
    char *second = dump(&again);
    fuzz_require(strcmp(first, second) == 0, TARGET, "config.ini dumps to the same text");
    json_object *json = nbc_config_to_json(&again);
    fuzz_require(json != NULL, TARGET, "nbc_config_to_json gives an object");
    json_object_put(json);
    free(first);
    free(second);
    nbc_config_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    char err[1024] = "";
    nbc_config cfg;

    fuzz_require(nbc_config_init(&cfg, err, sizeof err) == 0, TARGET, "init succeeds");
    int status = nbc_config_parse_text(&cfg, text, "fuzz.conf", err, sizeof err);
    require_message(status, err);
    if (status == 0 && validate_here(&cfg, err, sizeof err) == 0)
        require_round_trip(&cfg);
    nbc_config_free(&cfg);

    fuzz_require(nbc_config_init(&cfg, err, sizeof err) == 0, TARGET, "init succeeds");
    status = nbc_config_set(&cfg, text, err, sizeof err);
    require_message(status, err);
    if (status == 0 && validate_here(&cfg, err, sizeof err) == 0)
        require_round_trip(&cfg);
    nbc_config_free(&cfg);

    free(text);
    return 0;
}
