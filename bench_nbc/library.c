/* The MPI library this process runs with. It is identified before MPI_Init
 * from MPI_Get_library_version against the profiles of configs/mpi/
 * (mpiprofile/), because the profile's settings for the run (its
 * deployment's environment, the workarounds of known bugs) only count when
 * set before MPI_Init. Then: the checks of run.mpi and run.deployment that
 * depend on the library, and what meta.json records of it. One per process;
 * every rank identifies its own library (they run the same program). */
#include "bench_nbc/driver.h"
#include "mpiprofile/mpiprofile.h"

#include <json-c/json.h>
#include <limits.h>
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
    json_object *settings, *workarounds, *warnings;
    const mpiprofile_deployment *applied; /* the deployment section whose env was set */
    char note[2048];                      /* for rank 0 to print once MPI runs */
} library;

/* Values that leave a library's switch off (MPICH, Intel MPI, MVAPICH). */
static bool value_is_off(const char *value)
{
    static const char *const off[] = {"", "0", "no", "off", "disable", "false"};
    for (size_t i = 0; i < ARRAY_SIZE(off); i++)
        if (strcasecmp(value, off[i]) == 0)
            return true;
    return false;
}

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
    library.warnings = json_object_new_array();
    int len = 0;
    if (MPI_Get_library_version(library.text, &len) != MPI_SUCCESS)
        snprintf(library.text, sizeof library.text, "unknown");
    mpiprofile_default_dir(library.profiles_dir, sizeof library.profiles_dir);
    const char *deployments[NBC_DEPLOYMENT_MANUAL + 1];
    for (int d = NBC_DEPLOYMENT_BASIC; d <= NBC_DEPLOYMENT_MANUAL; d++)
        deployments[d] = nbc_deployment_name((nbc_deployment)d);
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

/* Sets NAME=VALUE unless the environment has it already; recorded either way. */
static void apply_setting(const char *setting, const char *source)
{
    char name[256];
    const char *value = strchr(setting, '=') + 1;
    snprintf(name, sizeof name, "%.*s", (int)(value - 1 - setting), setting);
    const char *before = getenv(name);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "variable", json_object_new_string(name));
    json_object_object_add(o, "value", json_object_new_string(value));
    json_object_object_add(o, "source", json_object_new_string(source));
    if (before)
        json_object_object_add(o, "environment_had", json_object_new_string(before));
    json_object_object_add(o, "applied",
                           json_object_new_boolean(!before && setenv(name, value, 0) == 0));
    json_object_array_add(library.settings, o);
}

static int thread_level_of(const char *name)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"single", MPI_THREAD_SINGLE},
                  {"funneled", MPI_THREAD_FUNNELED},
                  {"serialized", MPI_THREAD_SERIALIZED},
                  {"multiple", MPI_THREAD_MULTIPLE}};
    for (size_t i = 0; name && i < ARRAY_SIZE(levels); i++)
        if (strcmp(name, levels[i].name) == 0)
            return levels[i].level;
    return MPI_THREAD_FUNNELED;
}

int nbc_library_prepare(const nbc_config *cfg)
{
    nbc_library_identify();
    const mpiprofile *p = library.profile;
    const char *deployment = nbc_deployment_name(cfg->run.deployment);
    const mpiprofile_deployment *dep = mpiprofile_deployment_find(p, deployment);
    /* With its own progress mode, dedicated's free core is for the
     * benchmark's thread, not the library's. */
    if (cfg->run.deployment == NBC_DEPLOYMENT_DEDICATED && cfg->progress.mode != NBC_PROGRESS_NONE)
        dep = NULL;
    int level = MPI_THREAD_FUNNELED;
    if (dep && !dep->unsupported) {
        char source[160];
        snprintf(source, sizeof source, "profile %.64s, deployment %.64s", p->name, deployment);
        for (size_t i = 0; i < dep->env.count; i++)
            apply_setting(dep->env.items[i], source);
        level = thread_level_of(dep->thread_level);
        library.applied = dep;
    }
    for (size_t i = 0; i < p->workaround_count; i++) {
        const mpiprofile_workaround *w = &p->workarounds[i];
        if (!mpiprofile_workaround_applies(w, library.version, cfg->run.collective))
            continue;
        char source[160], text[1024];
        snprintf(source, sizeof source, "profile %.64s, workaround %.64s", p->name, w->name);
        json_object *o = json_object_new_object(), *env = json_object_new_array();
        for (size_t j = 0; j < w->env.count; j++) {
            apply_setting(w->env.items[j], source);
            json_object_array_add(env, json_object_new_string(w->env.items[j]));
        }
        json_object_object_add(o, "name", json_object_new_string(w->name));
        json_object_object_add(o, "versions",
                               json_object_new_string(w->versions ? w->versions : ""));
        json_object_object_add(o, "env", env);
        json_object_object_add(o, "reason", json_object_new_string(w->reason));
        json_object_array_add(library.workarounds, o);
        snprintf(text, sizeof text, "%.64s %s, %.64s: %.200s set (%.600s)", p->display_name,
                 library.version, cfg->run.collective, w->env.items[0], w->reason);
        add_note(text);
    }
    return level;
}

bool nbc_library_drives_progress(void)
{
    return library.applied && library.applied->env.count > 0;
}

bool nbc_library_busy_polls(void)
{
    /* an unknown library may spin: assume it does */
    return !library.profile || library.profile->busy_polls;
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

/* The deployments this library can run, for messages: "basic, dedicated, manual". */
static void runnable_deployments(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int d = NBC_DEPLOYMENT_BASIC; d <= NBC_DEPLOYMENT_MANUAL; d++) {
        const char *name = nbc_deployment_name((nbc_deployment)d);
        const mpiprofile_deployment *dep = mpiprofile_deployment_find(library.profile, name);
        bool runs = !(dep && dep->unsupported) &&
                    (d != NBC_DEPLOYMENT_PROGRESS || (dep && dep->env.count > 0));
        if (runs)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", name);
    }
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
    const char *deployment = nbc_deployment_name(cfg->run.deployment);
    const mpiprofile_deployment *dep = mpiprofile_deployment_find(p, deployment);
    char allowed[256];
    runnable_deployments(allowed, sizeof allowed);
    if (dep && dep->unsupported) {
        snprintf(err, errlen,
                 "config: run.deployment: \"%s\" cannot run with %s %s: %s (allowed with %s: %s)",
                 deployment, p->display_name, library.version, dep->unsupported, p->name, allowed);
        return -1;
    }
    if (cfg->run.deployment == NBC_DEPLOYMENT_PROGRESS && !(dep && dep->env.count > 0)) {
        snprintf(err, errlen,
                 "config: run.deployment: \"progress\" turns on the library's asynchronous "
                 "progress, but profile %s (%s) has no setting for it (allowed with %s: %s)",
                 p->name, p->path ? p->path : "built in", p->name, allowed);
        return -1;
    }
    /* What the deployment set must hold: a value the user exported wins
     * over the profile's (setenv without overwrite), and contradicts it. */
    for (size_t i = 0; library.applied && i < library.applied->env.count; i++) {
        const char *setting = library.applied->env.items[i];
        const char *value = strchr(setting, '=') + 1;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(value - 1 - setting), setting);
        const char *now = getenv(name);
        if (!now || strcmp(now, value) != 0) {
            snprintf(err, errlen,
                     "config: run.deployment: \"%s\" turns on %s, but the environment sets %s=%s",
                     deployment, setting, name, now ? now : "");
            return -1;
        }
    }
    /* basic means the library's defaults: no progress switch turned on. */
    const mpiprofile_deployment *progress = mpiprofile_deployment_find(p, "progress");
    for (size_t i = 0;
         cfg->run.deployment == NBC_DEPLOYMENT_BASIC && progress && i < progress->env.count; i++) {
        const char *setting = progress->env.items[i];
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(setting, "="), setting);
        const char *now = getenv(name);
        if (now && !value_is_off(now)) {
            snprintf(err, errlen,
                     "config: run.deployment: \"basic\" means library defaults, but the "
                     "environment sets %s=%s (use run.deployment=progress, or unset it)",
                     name, now);
            return -1;
        }
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
    json_object_object_add(o, "warnings", json_object_get(library.warnings));
    return o;
}
