/* The MPI library this process runs with. It is identified before MPI_Init
 * from MPI_Get_library_version against the profiles of configs/mpi/
 * (mpiprofile/), because the profile's settings for the run (its
 * deployment's environment, the workarounds of known bugs) only count when
 * set before MPI_Init. Then: the checks of run.mpi and run.deployment that
 * depend on the library, and what meta.json records of it. One per process;
 * every rank identifies its own library (they run the same program). */
#include "bench_nbc/library/library.h"
#include "mpiprofile/mpiprofile.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_PROFILES  64

static struct {
    bool identified;
    mpiprofile_set profiles;
    char profiles_dir[PATH_MAX];
    char load_error[1024]; /* a profile file is malformed: bad input */
    const mpiprofile *profile;
    char version[64];
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    const char *names[MAX_PROFILES + 2]; /* auto, the profiles, generic */
    size_t name_count;
    json_object *settings, *workarounds, *size_limits, *warnings;
    char note[2048]; /* for rank 0 to print once MPI runs */
} library;

static void add_note(const char *text)
{
    size_t used = strlen(library.note);
    snprintf(library.note + used, sizeof library.note - used, "%s%s", used ? "\nbench_nbc: " : "",
             text);
}

static void warn(const char *text)
{
    json_object_array_add(library.warnings, json_object_new_string(text));
    add_note(text);
}

void nbc_library_identify(void)
{
    if (library.identified)
        return;
    library.identified = true;
    library.settings = json_object_new_array();
    library.workarounds = json_object_new_array();
    library.size_limits = json_object_new_array();
    library.warnings = json_object_new_array();
    int len = 0;
    if (MPI_Get_library_version(library.text, &len) != MPI_SUCCESS)
        snprintf(library.text, sizeof library.text, "unknown");
    mpiprofile_default_dir(library.profiles_dir, sizeof library.profiles_dir);
    const char *deployments[NBC_DEPLOYMENT_COUNT];
    for (int d = NBC_DEPLOYMENT_BASIC; d < NBC_DEPLOYMENT_COUNT; d++)
        deployments[d] = nbc_deployment_profile_key((nbc_deployment)d);
    char err[sizeof library.load_error - 64], message[1024];
    struct stat st;
    bool found = stat(library.profiles_dir, &st) == 0 && S_ISDIR(st.st_mode);
    if (mpiprofile_load_dir(&library.profiles, library.profiles_dir, deployments,
                            ARRAY_SIZE(deployments), err, sizeof err) != 0) {
        if (found) {
            snprintf(library.load_error, sizeof library.load_error, "MPI library profile: %s", err);
        } else {
            snprintf(message, sizeof message,
                     "no MPI library profiles in %.400s (BENCH_NBC_PROFILES names their folder): "
                     "generic profile, no library-specific setting",
                     library.profiles_dir);
            warn(message);
        }
    }
    library.profile = mpiprofile_identify(&library.profiles, library.text, library.version,
                                          sizeof library.version);
    library.names[library.name_count++] = "auto";
    for (size_t i = 0; i < library.profiles.count && i < MAX_PROFILES; i++)
        library.names[library.name_count++] = library.profiles.profiles[i].name;
    library.names[library.name_count++] = MPIPROFILE_GENERIC;
    if (found && !library.load_error[0] && library.profile == &library.profiles.generic) {
        char first_line[256];
        snprintf(first_line, sizeof first_line, "%.*s", (int)strcspn(library.text, "\n"),
                 library.text);
        snprintf(message, sizeof message,
                 "no profile of %.400s matches this MPI library (\"%.200s\"): generic profile, no "
                 "library-specific setting (docs/mpi-profiles.md: adding a profile)",
                 library.profiles_dir, first_line);
        warn(message);
    }
}

void nbc_library_record_setting(const char *name, const char *value, const char *source,
                                const char *user_value, bool applied)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "variable", json_object_new_string(name));
    json_object_object_add(o, "value", json_object_new_string(value));
    json_object_object_add(o, "source", json_object_new_string(source));
    if (user_value)
        json_object_object_add(o, "environment_had", json_object_new_string(user_value));
    json_object_object_add(o, "applied", json_object_new_boolean(applied));
    json_object_array_add(library.settings, o);
    /* A workaround of a known bug is said once, on rank 0. */
    if (strstr(source, "workaround")) {
        for (size_t i = 0; i < library.profile->workaround_count; i++) {
            const mpiprofile_workaround *w = &library.profile->workarounds[i];
            char text[1024], tag[160];
            snprintf(tag, sizeof tag, "profile %.64s, workaround %.64s", library.profile->name,
                     w->name);
            size_t len = strlen(name);
            /* Once per workaround: at its first setting. */
            if (strcmp(tag, source) != 0 || strncmp(w->env.items[0], name, len) != 0 ||
                w->env.items[0][len] != '=')
                continue;
            json_object *r = json_object_new_object(), *env = json_object_new_array();
            for (size_t j = 0; j < w->env.count; j++)
                json_object_array_add(env, json_object_new_string(w->env.items[j]));
            json_object_object_add(r, "name", json_object_new_string(w->name));
            json_object_object_add(r, "versions",
                                   json_object_new_string(w->versions ? w->versions : ""));
            json_object_object_add(r, "env", env);
            json_object_object_add(r, "reason", json_object_new_string(w->reason));
            json_object_array_add(library.workarounds, r);
            snprintf(text, sizeof text, "%.64s %s: %.200s set (%.600s)",
                     library.profile->display_name, library.version, w->env.items[0], w->reason);
            add_note(text);
        }
    }
}

const mpiprofile *nbc_library_profile(void)
{
    nbc_library_identify();
    return library.profile;
}

const char *nbc_library_version(void)
{
    nbc_library_identify();
    return library.version;
}

void nbc_library_name(char *out, size_t out_size)
{
    nbc_library_identify();
    const mpiprofile *p = library.profile;
    bool known = p && strcmp(p->name, MPIPROFILE_GENERIC) != 0 && library.version[0] &&
                 strcmp(library.version, "unknown") != 0;
    snprintf(out, out_size, "%s%s%s", known ? p->display_name : "", known ? " " : "",
             known ? library.version : "");
}

const char *nbc_library_note(void)
{
    return library.note[0] ? library.note : NULL;
}

const char *const *nbc_library_profile_names(size_t *count)
{
    nbc_library_identify();
    *count = library.name_count;
    return library.names;
}

const char *nbc_compiled_mpi(void)
{
    return library.profile ? library.profile->name : "unknown";
}

/* A scenario: each part's limit applies to that part's bytes (its own
 * blocks on its own communicator), so the scenario's largest S is the
 * smallest S at which some part reaches its limit; *limit gets that part's. */
static size_t scenario_library_max_bytes(const nbc_collective *coll, const coll_options *options,
                                         int ranks, const mpiprofile_size_limit **limit)
{
    size_t most = SIZE_MAX;
    const mpiprofile_size_limit *binding = NULL;
    for (int i = 0; i < coll->scenario->part_count; i++) {
        const scenario_part *part = &coll->scenario->parts[i];
        const mpiprofile_size_limit *l;
        size_t part_most = nbc_library_max_bytes(nbc_scenario_part(coll, i), options,
                                                 nbc_scenario_part_ranks(part, ranks), &l);
        size_t s = l ? scenario_s_of_part_bytes(part, part_most) : SIZE_MAX;
        if (s < most) {
            most = s;
            binding = l;
        }
    }
    if (limit)
        *limit = binding;
    size_t unit = nbc_collective_unit_bytes(coll, options);
    return binding ? most / unit * unit : SIZE_MAX;
}

size_t nbc_library_max_bytes(const nbc_collective *coll, const coll_options *options, int ranks,
                             const mpiprofile_size_limit **limit)
{
    nbc_library_identify();
    if (coll->scenario)
        return scenario_library_max_bytes(coll, options, ranks, limit);
    const mpiprofile_size_limit *l =
        coll->sizable ? mpiprofile_size_limit_find(library.profile, library.version, coll->name)
                      : NULL;
    if (limit)
        *limit = l;
    if (!l)
        return SIZE_MAX;
    int blocks = nbc_collective_largest_buffer_blocks(coll, options, ranks);
    uint64_t most = l->max_bytes / (uint64_t)(blocks > 0 ? blocks : 1);
    size_t unit = nbc_collective_unit_bytes(coll, options);
    if (most > SIZE_MAX)
        most = SIZE_MAX;
    return (size_t)most / unit * unit;
}

void nbc_library_describe_limit(const mpiprofile_size_limit *limit, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s %s (profile %s, [size_limit.%s]): %s", library.profile->display_name,
             library.version, library.profile->name, limit->name, limit->reason);
}

void nbc_library_record_size_limit(const mpiprofile_size_limit *limit, const char *collective,
                                   size_t max_s_bytes, bool capped)
{
    nbc_library_identify();
    size_t n = json_object_array_length(library.size_limits);
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(library.size_limits, i), *v;
        if (json_object_object_get_ex(r, "name", &v) &&
            strcmp(json_object_get_string(v), limit->name) == 0 &&
            json_object_object_get_ex(r, "collective", &v) &&
            strcmp(json_object_get_string(v), collective) == 0) {
            /* Said again (another study, a re-validation): the latest verdict. */
            json_object_object_add(r, "max_s_bytes", json_object_new_int64((int64_t)max_s_bytes));
            json_object_object_add(r, "capped", json_object_new_boolean(capped));
            return;
        }
    }
    json_object *r = json_object_new_object();
    json_object_object_add(r, "name", json_object_new_string(limit->name));
    json_object_object_add(r, "versions",
                           json_object_new_string(limit->versions ? limit->versions : ""));
    json_object_object_add(r, "collective", json_object_new_string(collective));
    json_object_object_add(r, "max_bytes", json_object_new_int64((int64_t)limit->max_bytes));
    json_object_object_add(r, "max_s_bytes", json_object_new_int64((int64_t)max_s_bytes));
    json_object_object_add(r, "capped", json_object_new_boolean(capped));
    json_object_object_add(r, "reason", json_object_new_string(limit->reason));
    json_object_array_add(library.size_limits, r);
}

int nbc_library_check(const nbc_config *cfg, char *err, size_t errlen)
{
    const mpiprofile *p = library.profile;
    if (library.load_error[0]) {
        snprintf(err, errlen, "%s", library.load_error);
        return -1;
    }
    if (strcmp(cfg->run.mpi, "auto") != 0 && strcmp(cfg->run.mpi, p->name) != 0) {
        const mpiprofile *wanted = mpiprofile_find(&library.profiles, cfg->run.mpi);
        snprintf(err, errlen,
                 "config: run.mpi: \"%s\" but this bench_nbc runs with %s %s (profile %s, "
                 "identified from MPI_Get_library_version) (allowed here: auto, %s; a run with "
                 "%s needs a build made with its compiler wrapper)",
                 cfg->run.mpi, p->display_name, library.version, p->name, p->name,
                 wanted ? wanted->display_name : cfg->run.mpi);
        return -1;
    }
    return 0;
}

json_object *nbc_library_json(void)
{
    const mpiprofile *p = library.profile;
    json_object *o = json_object_new_object();
    if (!o || !p)
        return o;
    json_object_object_add(o, "profile", json_object_new_string(p->name));
    json_object_object_add(o, "display_name", json_object_new_string(p->display_name));
    json_object_object_add(o, "version", json_object_new_string(library.version));
    json_object_object_add(o, "profile_file", p->path ? json_object_new_string(p->path) : NULL);
    json_object_object_add(o, "profiles_dir", json_object_new_string(library.profiles_dir));
    json_object_object_add(o, "settings", json_object_get(library.settings));
    json_object_object_add(o, "workarounds", json_object_get(library.workarounds));
    json_object_object_add(o, "size_limits", json_object_get(library.size_limits));
    json_object_object_add(o, "warnings", json_object_get(library.warnings));
    return o;
}
