/* The configuration's checks: each key's bounds and names against what the
 * caller knows of the machine (nbc_config_limits), then the rules that
 * involve several keys, then run.results_dir (created when missing). */
#include "config/config.h"
#include "config/internal.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_bounds(const nbc_config *cfg, size_t index, char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    if (config_value_type(key->type)->number == NULL)
        return 0;
    double value = config_value_type(key->type)->number(key, cfg);
    const char *problem = NULL;
    if (key->lo.on && (value < key->lo.value || (key->lo.strict && value == key->lo.value)))
        problem = value == 0 ? "is zero" : value < 0 ? "is negative" : "is too small";
    else if (key->hi.on && (value > key->hi.value || (key->hi.strict && value == key->hi.value)))
        problem = "is too large";
    if (problem == NULL)
        return 0;
    char allowed[MESSAGE_MAX];
    config_describe_allowed(key, NULL, allowed, sizeof allowed);
    return config_key_fail(err, errlen, config_key_where(cfg, index), key, cfg->values->text[index],
                           problem, allowed);
}

static int check_name(const nbc_config *cfg, size_t index, const nbc_config_limits *limits,
                      char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    size_t count;
    const char *const *names = config_names_of(key, limits, &count);
    const char *value = *FIELD_CPTR(cfg, key->offset, char *);
    if (count == 0)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return 0;
    char allowed[MESSAGE_MAX], problem[512];
    config_describe_allowed(key, limits, allowed, sizeof allowed);
    const char *best = config_closest_name(value, names, count);
    snprintf(problem, sizeof problem, "is not a known %s%s%s%s",
             key->names == NAMES_COLLECTIVES ? "collective"
             : key->names == NAMES_DATATYPES ? "datatype"
                                             : "MPI library profile",
             best ? " (did you mean " : "", best ? best : "", best ? "?)" : "");
    /* Known to the driver but not offered here: say what is missing. */
    char why[400];
    if (key->names == NAMES_COLLECTIVES && limits->collective_unavailable &&
        limits->collective_unavailable(value, why, sizeof why) == 0)
        snprintf(problem, sizeof problem, "%s", why);
    return config_key_fail(err, errlen, config_key_where(cfg, index), key, value, problem, allowed);
}

/* Every name of a TYPE_NAME_LIST key in its list of the limits. */
static int check_name_list(const nbc_config *cfg, size_t index, const nbc_config_limits *limits,
                           char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    size_t count, listed = *FIELD_CPTR(cfg, key->offset2, size_t);
    const char *const *names = config_names_of(key, limits, &count);
    char *const *values = *(char **const *)((const char *)cfg + key->offset);
    for (size_t v = 0; count > 0 && v < listed; v++) {
        bool known = false;
        for (size_t i = 0; i < count && !known; i++)
            known = strcmp(values[v], names[i]) == 0;
        if (known)
            continue;
        char allowed[MESSAGE_MAX], problem[512], why[400];
        config_describe_allowed(key, limits, allowed, sizeof allowed);
        const char *best = config_closest_name(values[v], names, count);
        snprintf(problem, sizeof problem, "names '%s', which is not a known collective%s%s%s",
                 values[v], best ? " (did you mean " : "", best ? best : "", best ? "?)" : "");
        if (limits->collective_unavailable &&
            limits->collective_unavailable(values[v], why, sizeof why) == 0)
            snprintf(problem, sizeof problem, "names '%s', which %s", values[v], why);
        return config_key_fail(err, errlen, config_key_where(cfg, index), key,
                               cfg->values->text[index], problem, allowed);
    }
    return 0;
}

/* Every integer of a TYPE_INT_LIST key within its lower bound and, for rank
 * counts, at most the job's ranks (when known). */
static int check_int_list(const nbc_config *cfg, size_t index, const nbc_config_limits *limits,
                          char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    size_t listed = *FIELD_CPTR(cfg, key->offset2, size_t);
    const int *values = *FIELD_CPTR(cfg, key->offset, int *);
    for (size_t v = 0; v < listed; v++) {
        bool low = key->lo.on && values[v] < key->lo.value;
        bool high = limits->ranks > 0 && values[v] > limits->ranks;
        if (!low && !high)
            continue;
        char allowed[MESSAGE_MAX], problem[160];
        snprintf(problem, sizeof problem, "has %d, %s", values[v],
                 low ? "too few ranks for a collective" : "more ranks than the job has");
        snprintf(allowed, sizeof allowed, "rank counts from %g to %s%d, comma-separated",
                 key->lo.value, limits->ranks > 0 ? "the job's " : "", limits->ranks);
        if (limits->ranks <= 0)
            snprintf(allowed, sizeof allowed, "rank counts >= %g, at most the job's size",
                     key->lo.value);
        return config_key_fail(err, errlen, config_key_where(cfg, index), key,
                               cfg->values->text[index], problem, allowed);
    }
    return 0;
}

/* Empty, or an existing directory this process can read. */
static int check_run_dir(const nbc_config *cfg, size_t index, char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    const char *path = *FIELD_CPTR(cfg, key->offset, char *);
    struct stat st;
    if (path[0] == '\0')
        return 0;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || access(path, R_OK | X_OK) != 0)
        return config_key_fail(err, errlen, config_key_where(cfg, index), key, path,
                               "is not a readable folder", config_value_type(key->type)->allowed);
    return 0;
}

/* An existing writable directory, or one created now under an existing parent. */
static int check_directory(const nbc_config *cfg, size_t index, char *err, size_t errlen)
{
    const key_desc *key = &config_keys()[index];
    const char *path = *FIELD_CPTR(cfg, key->offset, char *);
    const char *where = config_key_where(cfg, index);
    const char *allowed = config_value_type(key->type)->allowed;
    char problem[MESSAGE_MAX];
    struct stat st;

    if (path[0] == '\0')
        return config_key_fail(err, errlen, where, key, path, "is empty", allowed);
    if (stat(path, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(problem, sizeof problem, "cannot be used: %s", strerror(errno));
            return config_key_fail(err, errlen, where, key, path, problem, allowed);
        }
        char *copy = strdup(path);
        if (copy == NULL)
            return config_fail(err, errlen, "%s.%s: out of memory", key->section, key->name);
        const char *parent = dirname(copy);
        if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(problem, sizeof problem, "does not exist, nor does its parent \"%.900s\"",
                     parent);
            free(copy);
            return config_key_fail(err, errlen, where, key, path, problem, allowed);
        }
        free(copy);
        /* Every rank validates; on a shared file system another may win. */
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            snprintf(problem, sizeof problem, "cannot be created: %s", strerror(errno));
            return config_key_fail(err, errlen, where, key, path, problem, allowed);
        }
        if (stat(path, &st) != 0) {
            snprintf(problem, sizeof problem, "cannot be used: %s", strerror(errno));
            return config_key_fail(err, errlen, where, key, path, problem, allowed);
        }
    }
    if (!S_ISDIR(st.st_mode))
        return config_key_fail(err, errlen, where, key, path, "is not a directory", allowed);
    if (access(path, W_OK | X_OK) != 0) {
        snprintf(problem, sizeof problem, "is not writable: %s", strerror(errno));
        return config_key_fail(err, errlen, where, key, path, problem, allowed);
    }
    return 0;
}

/* Rules that involve several keys or the machine, after each key's own checks. */
typedef int (*cross_rule)(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                          size_t errlen);

/* The communication axis is given once: as times (a size searched for each)
 * or as sizes (a time measured at each), never both, never neither. */
static int rule_comm_axis(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                          size_t errlen)
{
    (void)limits;
    bool times = cfg->grid.comm_count > 0, sizes = cfg->grid.comm_size_count > 0;
    if (times != sizes)
        return 0;
    size_t ti = config_key_index("grid", "comm_times"), si = config_key_index("grid", "comm_sizes");
    const char *t_where = config_key_where(cfg, ti), *s_where = config_key_where(cfg, si);
    return config_fail(
        err, errlen,
        "grid.comm_times and grid.comm_sizes: %s (grid.comm_times = \"%s\"%s%s%s, "
        "grid.comm_sizes = \"%s\"%s%s%s) (allowed: exactly one of the two non-empty, "
        "e.g. --set grid.comm_times= --set grid.comm_sizes=1MiB,4MiB)",
        times ? "both give the communication axis" : "neither gives the communication axis",
        cfg->values->text[ti], t_where ? " from " : "", t_where ? t_where : "",
        t_where ? "" : " by default", cfg->values->text[si], s_where ? " from " : "",
        s_where ? s_where : "", s_where ? "" : " by default");
}

/* A given size is a message the collective sends: within the sizes the
 * calibration may try, whose buffers rule_max_bytes_memory checks. */
static int rule_comm_sizes_max(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                               size_t errlen)
{
    (void)limits;
    size_t n = cfg->grid.comm_size_count;
    if (n == 0 || cfg->grid.comm_sizes_bytes[n - 1] <= cfg->calibration.max_bytes)
        return 0;
    size_t index = config_key_index("grid", "comm_sizes");
    char problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    snprintf(problem, sizeof problem, "has %llu bytes, above calibration.max_bytes = %s",
             (unsigned long long)cfg->grid.comm_sizes_bytes[n - 1],
             cfg->values->text[config_key_index("calibration", "max_bytes")]);
    snprintf(allowed, sizeof allowed,
             "sizes of at most calibration.max_bytes (%llu bytes), or a larger "
             "calibration.max_bytes",
             (unsigned long long)cfg->calibration.max_bytes);
    return config_key_fail(err, errlen, config_key_where(cfg, index), &config_keys()[index],
                           cfg->values->text[index], problem, allowed);
}

static int rule_grid_cells(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                           size_t errlen)
{
    (void)limits;
    size_t comm = nbc_comm_axis_count(cfg), cells = comm * cfg->grid.comp_count;
    if (cfg->run.force || cells <= (size_t)cfg->run.max_cells)
        return 0;
    const char *axis = cfg->grid.comm_size_count > 0 ? "comm_sizes" : "comm_times";
    return config_fail(
        err, errlen,
        "grid.%s x grid.comp_times: \"%s\" x \"%s\" is %zu x %zu = %zu cells, "
        "more than run.max_cells = %d (allowed: at most %d cells, or run.force = true)",
        axis, cfg->values->text[config_key_index("grid", axis)],
        cfg->values->text[config_key_index("grid", "comp_times")], comm, cfg->grid.comp_count,
        cells, cfg->run.max_cells, cfg->run.max_cells);
}

/* Whether a core is left free for progress is the deployment plan's
 * decision (deploy/plan.h); here only the cores there are. */
static int rule_threads(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                        size_t errlen)
{
    int cores = limits->available_cores;
    if (cores <= 0 || cfg->run.threads <= cores)
        return 0;
    size_t threads_index = config_key_index("run", "threads");
    char problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    snprintf(problem, sizeof problem, "is more than the %d cores available to this rank", cores);
    snprintf(allowed, sizeof allowed, "0 = all cores, or 1 to %d", cores);
    return config_key_fail(err, errlen, config_key_where(cfg, threads_index),
                           &config_keys()[threads_index], cfg->values->text[threads_index], problem,
                           allowed);
}

/* The calibration's largest message S = max_bytes: the buffers of the
 * collective at S (limits->buffer_bytes: exact for its options and the
 * ranks; unknown: 4 x S), on every rank of the node, must fit in the node's
 * available memory, so no cell is sized past it. */
static int rule_max_bytes_memory(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                                 size_t errlen)
{
    uint64_t memory = limits->available_memory_bytes;
    uint64_t max_bytes = cfg->calibration.max_bytes;
    int local_ranks = limits->local_ranks > 0 ? limits->local_ranks : 1;
    char what[MESSAGE_MAX] = "4 blocks of S";
    uint64_t per_rank = limits->buffer_bytes
                            ? limits->buffer_bytes(cfg, max_bytes, limits->ranks, what, sizeof what)
                            : 4 * max_bytes;
    if (memory == 0 || per_rank <= memory)
        return 0;
    /* The largest S that fits: the buffers grow linearly with S. */
    uint64_t blocks = per_rank / max_bytes + (per_rank % max_bytes != 0);
    uint64_t most = memory / (blocks ? blocks : 1);
    size_t index = config_key_index("calibration", "max_bytes");
    char need[48], have[48], fits[48], problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    config_format_bytes(max_bytes, need, sizeof need);
    config_format_bytes(memory * (uint64_t)local_ranks, have, sizeof have);
    config_format_bytes(most, fits, sizeof fits);
    snprintf(problem, sizeof problem,
             "cannot fit in memory: %s at S = %s takes %s (%llu bytes) per rank, x %d rank(s) on "
             "this node = %llu bytes, more than the %llu bytes (%s) available",
             cfg->run.collective, need, what, (unsigned long long)per_rank, local_ranks,
             (unsigned long long)per_rank * (unsigned long long)local_ranks,
             (unsigned long long)memory * (unsigned long long)local_ranks, have);
    snprintf(allowed, sizeof allowed, "at most %s (%llu bytes) here", fits,
             (unsigned long long)most);
    return config_key_fail(err, errlen, config_key_where(cfg, index), &config_keys()[index],
                           cfg->values->text[index], problem, allowed);
}

/* A size the library is known to config_fail (its profile's [size_limit]): a
 * calibration.max_bytes the user set above it is refused, since the search
 * could reach it; left at its default, the calibration searches up to the
 * limit instead (calibrate.c). */
static int rule_size_limit(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                           size_t errlen)
{
    if (!limits->size_limit)
        return 0;
    size_t index = config_key_index("calibration", "max_bytes");
    char why[MESSAGE_MAX];
    uint64_t most = limits->size_limit(cfg, limits->ranks, why, sizeof why);
    /* A given message size is run as it is: none may pass the limit. */
    size_t sizes = cfg->grid.comm_size_count;
    if (most > 0 && sizes > 0 && cfg->grid.comm_sizes_bytes[sizes - 1] > most) {
        size_t si = config_key_index("grid", "comm_sizes");
        char problem[2 * MESSAGE_MAX], allowed[MESSAGE_MAX];
        snprintf(problem, sizeof problem,
                 "has %llu bytes, above what this MPI library can run: %s at that S exceeds %s",
                 (unsigned long long)cfg->grid.comm_sizes_bytes[sizes - 1], cfg->run.collective,
                 why);
        snprintf(allowed, sizeof allowed, "sizes of at most %llu bytes for %s with this library",
                 (unsigned long long)most, cfg->run.collective);
        return config_key_fail(err, errlen, config_key_where(cfg, si), &config_keys()[si],
                               cfg->values->text[si], problem, allowed);
    }
    if (most == 0 || cfg->calibration.max_bytes <= most || !config_key_where(cfg, index))
        return 0;
    char problem[2 * MESSAGE_MAX], allowed[MESSAGE_MAX], asked[48];
    config_format_bytes(cfg->calibration.max_bytes, asked, sizeof asked);
    snprintf(problem, sizeof problem,
             "is above what this MPI library can run: %s at S = %s (%llu bytes) exceeds %s",
             cfg->run.collective, asked, (unsigned long long)cfg->calibration.max_bytes, why);
    snprintf(allowed, sizeof allowed,
             "at most %llu bytes for %s with this library, or leave the key at its default: the "
             "calibration then stops at the limit",
             (unsigned long long)most, cfg->run.collective);
    return config_key_fail(err, errlen, config_key_where(cfg, index), &config_keys()[index],
                           cfg->values->text[index], problem, allowed);
}

/* Adaptive repetitions: the cap cannot be below the blocks always run. */
static int rule_max_repetitions(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                                size_t errlen)
{
    (void)limits;
    if (cfg->run.half_width == 0 || cfg->run.max_repetitions >= cfg->run.repetitions)
        return 0;
    size_t index = config_key_index("run", "max_repetitions");
    char problem[MESSAGE_MAX], allowed[MESSAGE_MAX];
    snprintf(problem, sizeof problem, "is below run.repetitions = %d (the blocks always run)",
             cfg->run.repetitions);
    snprintf(allowed, sizeof allowed, "an integer >= %d, or run.half_width = 0 (fixed count)",
             cfg->run.repetitions);
    return config_key_fail(err, errlen, config_key_where(cfg, index), &config_keys()[index],
                           cfg->values->text[index], problem, allowed);
}

/* Polling is given either as a period or as a chunk count, never both: the
 * period decides each cell's chunk count itself. A chunk count is given by
 * its value, not by where it was set: config.ini and the shipped
 * configurations write progress.test_chunks at its default. */
static int rule_test_period(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                            size_t errlen)
{
    (void)limits;
    if (cfg->progress.test_period_us == 0)
        return 0;
    size_t pi = config_key_index("progress", "test_period_us");
    size_t mi = config_key_index("progress", "mode"),
           ci = config_key_index("progress", "test_chunks");
    size_t other = cfg->progress.mode == NBC_PROGRESS_TEST ? mi : ci;
    if (other == ci && cfg->progress.test_chunks == atoi(config_keys()[ci].default_text))
        return 0;
    const char *p_where = config_key_where(cfg, pi), *o_where = config_key_where(cfg, other);
    return config_fail(err, errlen,
                       "progress.test_period_us and progress.%s: both say how often MPI_Test "
                       "polls (progress.test_period_us = \"%s\"%s%s, progress.%s = \"%s\"%s%s) "
                       "(allowed: one of the two; progress.test_period_us = 0 keeps the chunk "
                       "count)",
                       config_keys()[other].name, cfg->values->text[pi], p_where ? " from " : "",
                       p_where ? p_where : "", config_keys()[other].name, cfg->values->text[other],
                       o_where ? " from " : "", o_where ? o_where : "");
}

static const cross_rule cross_rules[] = {
    rule_comm_axis,  rule_comm_sizes_max,   rule_grid_cells,      rule_threads,
    rule_size_limit, rule_max_bytes_memory, rule_max_repetitions, rule_test_period};

int nbc_config_validate(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                        size_t errlen)
{
    static const nbc_config_limits unknown_machine = {0};
    if (limits == NULL)
        limits = &unknown_machine;
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        if (check_bounds(cfg, i, err, errlen) != 0)
            return -1;
        if (config_keys()[i].type == TYPE_NAME && check_name(cfg, i, limits, err, errlen) != 0)
            return -1;
        if (config_keys()[i].type == TYPE_NAME_LIST &&
            check_name_list(cfg, i, limits, err, errlen) != 0)
            return -1;
        if (config_keys()[i].type == TYPE_INT_LIST &&
            check_int_list(cfg, i, limits, err, errlen) != 0)
            return -1;
        if (config_keys()[i].type == TYPE_RUN_DIR && check_run_dir(cfg, i, err, errlen) != 0)
            return -1;
    }
    for (size_t i = 0; i < ARRAY_SIZE(cross_rules); i++)
        if (cross_rules[i](cfg, limits, err, errlen) != 0)
            return -1;
    /* Last, since it may create a directory: only for an otherwise valid run. */
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
        if (config_keys()[i].type == TYPE_PATH && check_directory(cfg, i, err, errlen) != 0)
            return -1;
    return 0;
}
