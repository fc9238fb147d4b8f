/* The deployment plan (plan.h): one table of what each deployment means,
 * applied to a library profile, a rank's cores and the user's environment. */
#include "deploy/plan.h"

#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Where a deployment's compute team and progress thread go
 * (deployments.def, CORES). */
typedef enum {
    CORES_ALL,            /* every core of the rank computes */
    CORES_FREE,           /* a core per rank left out of the compute team for progress */
    CORES_FREE_OR_SHARED, /* the same, or the compute core shared (progress.oversubscribe) */
} deployment_cores;

/* Where the threads MPI_Init creates are bound (deployments.def, LIBRARY_THREADS). */
typedef enum {
    LIBRARY_THREADS_RANK_CORES, /* the rank's cores */
    LIBRARY_THREADS_FREE,       /* the free cores, confirmed after MPI_Init */
} deployment_library_threads;

/* One row of deployments.def. */
typedef struct deployment_rule {
    const char *name;
    deploy_progress_thread thread;
    deployment_cores cores;
    deployment_library_threads library_threads;
    bool polls;              /* MPI_Test between compute chunks when progress.mode is none */
    const char *profile_key; /* the profile's [deployment.<key>] */
    const char *meaning;     /* for messages */
} deployment_rule;

static const deployment_rule rules[NBC_DEPLOYMENT_COUNT] = {
#define DEPLOYMENT(id, name, thread, cores, library_threads, polls, profile_key, meaning)          \
    [NBC_DEPLOYMENT_##id] = {name,          DEPLOY_PROGRESS_##thread,                              \
                             CORES_##cores, LIBRARY_THREADS_##library_threads,                     \
                             polls,         profile_key,                                           \
                             meaning},
#include "deploy/deployments.def"
#undef DEPLOYMENT
};

static const char *const cores_names[] = {"all", "free", "free_or_shared"};
static const char *const library_threads_names[] = {"rank_cores", "free"};

static bool leaves_core_free(const deployment_rule *rule)
{
    return rule->cores != CORES_ALL;
}

/* The deployment that runs the suite's own thread on a free core: what to
 * offer where the library's thread cannot run there (NULL: none). */
static const deployment_rule *suite_on_free_core(void)
{
    for (size_t d = 0; d < ARRAY_SIZE(rules); d++)
        if (rules[d].thread == DEPLOY_PROGRESS_SUITE && leaves_core_free(&rules[d]))
            return &rules[d];
    return NULL;
}

/* The names of the rows keep() takes, "a, b, c", for messages. */
static void rule_names(bool (*keep)(const deployment_rule *), const char *separator, char *buf,
                       size_t len)
{
    buf[0] = '\0';
    for (size_t d = 0; d < ARRAY_SIZE(rules); d++)
        if (keep(&rules[d]))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? separator : "",
                     rules[d].name);
}

static bool runs_on_one_core(const deployment_rule *rule)
{
    return !leaves_core_free(rule);
}

static bool shares_one_core(const deployment_rule *rule)
{
    return rule->cores == CORES_FREE_OR_SHARED;
}

static bool has_library_thread(const deployment_rule *rule)
{
    return rule->thread == DEPLOY_PROGRESS_LIBRARY;
}

/* The least sleep of the window barrier on cores a busy library thread
 * shares (clocksync_options.barrier_sleep_min_s): longer than that
 * thread's time slice, which the scheduler only ends at a tick (EEVDF here:
 * a 0.75-1.5 ms slice, ended at 4 ms ticks; 6 ms measured enough, 3 ms not). */
static const double busy_core_barrier_sleep_s = 8e-3;

static const char *const thread_level_names[] = {"single", "funneled", "serialized", "multiple"};
static const char *const thread_level_constants[] = {"SINGLE", "FUNNELED", "SERIALIZED",
                                                     "MULTIPLE"};

static const char *upper_level_name(deploy_thread_level level)
{
    return (unsigned)level < ARRAY_SIZE(thread_level_constants) ? thread_level_constants[level]
                                                                : "UNKNOWN";
}
static const char *const progress_thread_names[] = {"none", "library", "suite"};
static const char *const bind_names[] = {"shared", "library_setting", "after_init", "suite"};

/* Values that leave a library's switch off (MPICH, Intel MPI, MVAPICH). */
static bool value_is_off(const char *value)
{
    static const char *const off[] = {"", "0", "no", "off", "disable", "false"};
    for (size_t i = 0; i < ARRAY_SIZE(off); i++)
        if (strcasecmp(value, off[i]) == 0)
            return true;
    return false;
}

static int refuse(deploy_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(deploy_plan *plan, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->refusal, sizeof plan->refusal, fmt, ap);
    va_end(ap);
    plan->refused = true;
    return -1;
}

/* The environment's value of NAME, or NULL. */
static const char *user_value(const deploy_input *in, const char *name, size_t name_len)
{
    for (const char *const *e = in->environment; e && *e; e++)
        if (strncmp(*e, name, name_len) == 0 && (*e)[name_len] == '=')
            return *e + name_len + 1;
    return NULL;
}

void deploy_cpu_list(const int *cpus, int count, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpus[i]);
    }
}

/* Appends NAME=VALUE (value given apart: it may be expanded). A user value
 * that differs is a refusal: the deployment would not be what it says. */
static int add_setting(const deploy_input *in, deploy_plan *plan, const char *name, size_t name_len,
                       const char *value, const char *source)
{
    if (plan->env_count == DEPLOY_MAX_SETTINGS)
        return refuse(plan, "deployment plan: more than %d settings", DEPLOY_MAX_SETTINGS);
    deploy_setting *s = &plan->env[plan->env_count++];
    *s = (deploy_setting){.name = strndup(name, name_len), .value = strdup(value)};
    snprintf(s->source, sizeof s->source, "%s", source);
    const char *had = user_value(in, name, name_len);
    if (had && !(s->user_value = strdup(had)))
        return refuse(plan, "out of memory");
    if (!s->name || !s->value)
        return refuse(plan, "out of memory");
    if (had && strcmp(had, value) != 0)
        return refuse(plan,
                      "config: run.deployment: \"%s\" sets %s=%s (%s), but the environment sets "
                      "%s=%s (unset it, or choose the deployment it means)",
                      nbc_deployment_name(plan->deployment), s->name, s->value, source, s->name,
                      had);
    return 0;
}

static int add_assignment(const deploy_input *in, deploy_plan *plan, const char *assignment,
                          const char *source)
{
    const char *eq = strchr(assignment, '=');
    return add_setting(in, plan, assignment, (size_t)(eq - assignment), eq + 1, source);
}

/* The bind setting's value: {free_cpus} is the free cores, {free_cpus*} the
 * same repeated once per possible local rank (the library indexes its list
 * by local rank, unknown before MPI_Init). NULL when out of memory. */
static char *expand_bind(const char *value, const deploy_plan *plan, int machine_cpus)
{
    char cpus[8 * 64];
    deploy_cpu_list(plan->progress_cpus, plan->progress_cpu_count, cpus, sizeof cpus);
    const char *star = strstr(value, "{free_cpus*}"), *plain = strstr(value, "{free_cpus}");
    const char *at = star ? star : plain;
    if (!at)
        return strdup(value);
    int repeat = star ? (machine_cpus > 0 ? machine_cpus : 1) : 1;
    size_t len = strlen(value) + (size_t)repeat * (strlen(cpus) + 1) + 1;
    char *out = malloc(len);
    if (!out)
        return NULL;
    snprintf(out, len, "%.*s", (int)(at - value), value);
    for (int i = 0; i < repeat; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "", cpus);
    snprintf(out + strlen(out), len - strlen(out), "%s",
             at + strlen(star ? "{free_cpus*}" : "{free_cpus}"));
    return out;
}

static deploy_thread_level level_of(const char *name)
{
    for (size_t i = 0; name && i < ARRAY_SIZE(thread_level_names); i++)
        if (strcmp(name, thread_level_names[i]) == 0)
            return (deploy_thread_level)i;
    return DEPLOY_THREAD_FUNNELED;
}

/* The deployments this library can run, for messages. */
static void runnable(const deploy_input *in, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int d = 0; d < NBC_DEPLOYMENT_COUNT; d++) {
        const mpiprofile_deployment *dep =
            mpiprofile_deployment_find(in->profile, rules[d].profile_key);
        bool runs = !(dep && dep->unsupported) &&
                    (rules[d].thread != DEPLOY_PROGRESS_LIBRARY || (dep && dep->env.count > 0));
        if (runs)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     nbc_deployment_name((nbc_deployment)d));
    }
}

/* The library's support for the deployment, from its profile. */
static int check_library(const deploy_input *in, deploy_plan *plan,
                         const mpiprofile_deployment *dep)
{
    const mpiprofile *p = in->profile;
    const char *name = nbc_deployment_name(plan->deployment);
    char allowed[256];
    runnable(in, allowed, sizeof allowed);
    const deployment_rule *rule = &rules[plan->deployment], *suite = suite_on_free_core();
    char suggest[128] = "";
    if (leaves_core_free(rule) && rule->thread != DEPLOY_PROGRESS_SUITE && suite)
        snprintf(suggest, sizeof suggest,
                 "; the suite's own progress thread on the free core is run.deployment=%s",
                 suite->name);
    if (dep && dep->unsupported)
        return refuse(plan,
                      "config: run.deployment: \"%s\" cannot run with %s %s: %s (allowed with "
                      "%s: %s%s)",
                      name, p->display_name, in->version, dep->unsupported, p->name, allowed,
                      suggest);
    if (rule->thread == DEPLOY_PROGRESS_LIBRARY && !(dep && dep->env.count > 0))
        return refuse(plan,
                      "config: run.deployment: \"%s\" needs the library's asynchronous progress "
                      "thread, but %s %s (profile %s, %s) has no setting that turns one on "
                      "(allowed with %s: %s%s)",
                      name, p->display_name, in->version, p->name, p->path ? p->path : "built in",
                      p->name, allowed, suggest);
    return 0;
}

/* A progress switch the user turned on where the deployment has no library
 * thread, or off where it needs one. */
static int check_switches(const deploy_input *in, deploy_plan *plan)
{
    bool wanted = plan->progress_thread == DEPLOY_PROGRESS_LIBRARY;
    const mpiprofile_list *switches = &in->profile->progress_switches;
    for (size_t i = 0; i < switches->count; i++) {
        const char *name = switches->items[i];
        const char *had = user_value(in, name, strlen(name));
        if (!had || value_is_off(had) != wanted)
            continue;
        char with_thread[256];
        rule_names(has_library_thread, " or ", with_thread, sizeof with_thread);
        if (!wanted)
            return refuse(plan,
                          "config: run.deployment: \"%s\" means no library progress thread, but "
                          "the environment sets %s=%s, which turns %s's on (use "
                          "run.deployment=%s, or unset it)",
                          nbc_deployment_name(plan->deployment), name, had,
                          in->profile->display_name, with_thread);
        return refuse(plan,
                      "config: run.deployment: \"%s\" turns %s's progress thread on, but the "
                      "environment sets %s=%s, which turns it off (unset it)",
                      nbc_deployment_name(plan->deployment), in->profile->display_name, name, had);
    }
    return 0;
}

/* Compute cores, free cores and where each thread goes. */
static int place_threads(const deploy_input *in, deploy_plan *plan)
{
    const nbc_config *cfg = in->cfg;
    const char *name = nbc_deployment_name(plan->deployment);
    int cores = in->cpu_count;
    const deployment_rule *rule = &rules[plan->deployment];
    bool free_core = leaves_core_free(rule);
    if (rule->cores == CORES_FREE_OR_SHARED && cores < 2 && cfg->progress.oversubscribe) {
        free_core = false;
        plan->oversubscribed = true;
    }
    char allowed[256], shared[256];
    rule_names(runs_on_one_core, ", ", allowed, sizeof allowed);
    rule_names(shares_one_core, " or ", shared, sizeof shared);
    if (free_core && cores < 2)
        return refuse(plan,
                      "config: run.deployment: \"%s\" leaves one core free for progress and "
                      "needs >= 2 cores per rank, but this rank has %d core (allowed on this rank: "
                      "%s%s%s%s; more cores per rank: "
                      "fewer ranks per node)",
                      name, cores, allowed, shared[0] ? ", or " : "", shared,
                      shared[0] ? " with progress.oversubscribe=true" : "");
    int usable = free_core ? cores - 1 : cores;
    int threads = cfg->run.threads > 0 ? cfg->run.threads : usable;
    if (threads > usable)
        return refuse(plan,
                      "config: run.threads: \"%d\" leaves no core free for deployment %s on this "
                      "rank's %d cores (allowed: 0 = all cores but one, or 1 to %d)",
                      cfg->run.threads, name, cores, usable);
    plan->compute_count = threads;
    memcpy(plan->compute_cpus, in->cpus, (size_t)threads * sizeof *in->cpus);
    /* The cores no compute thread takes are the progress thread's. */
    plan->library_cpu_count = cores;
    memcpy(plan->library_cpus, in->cpus, (size_t)cores * sizeof *in->cpus);
    if (free_core) {
        plan->progress_cpu_count = cores - threads;
        memcpy(plan->progress_cpus, in->cpus + threads,
               (size_t)plan->progress_cpu_count * sizeof *in->cpus);
    } else {
        plan->progress_cpu_count = threads;
        memcpy(plan->progress_cpus, in->cpus, (size_t)threads * sizeof *in->cpus);
    }
    if (rule->library_threads == LIBRARY_THREADS_FREE) {
        plan->library_cpu_count = plan->progress_cpu_count;
        memcpy(plan->library_cpus, plan->progress_cpus,
               (size_t)plan->progress_cpu_count * sizeof *in->cpus);
    }
    return 0;
}

/* Whether a workaround is for a collective the job measures: run.collective,
 * or any of run.collectives. The environment is set once, before MPI_Init,
 * so a job of several collectives needs every one's workarounds from the
 * start; the others run with them too (meta.json lists the settings). */
static bool workaround_for_job(const mpiprofile_workaround *w, const deploy_input *in)
{
    const nbc_config *cfg = in->cfg;
    if (cfg->run.collectives_count == 0)
        return mpiprofile_workaround_applies(w, in->version, cfg->run.collective);
    for (size_t i = 0; i < cfg->run.collectives_count; i++)
        if (mpiprofile_workaround_applies(w, in->version, cfg->run.collectives[i]))
            return true;
    return false;
}

/* The deployment's settings, the bind setting, the workarounds of known
 * bugs for this version and the job's collectives, the OpenMP wait policy. */
static int add_settings(const deploy_input *in, deploy_plan *plan, const mpiprofile_deployment *dep)
{
    const mpiprofile *p = in->profile;
    char source[160];
    snprintf(source, sizeof source, "profile %.64s, deployment %.32s", p->name,
             nbc_deployment_name(plan->deployment));
    bool library_thread = plan->progress_thread == DEPLOY_PROGRESS_LIBRARY;
    for (size_t i = 0; library_thread && dep && i < dep->env.count; i++)
        if (add_assignment(in, plan, dep->env.items[i], source) != 0)
            return -1;
    if (plan->bind == DEPLOY_BIND_LIBRARY_SETTING) {
        const char *assignment = dep->bind.items[0], *eq = strchr(assignment, '=');
        char *value = expand_bind(eq + 1, plan, in->machine_cpus);
        if (!value)
            return refuse(plan, "out of memory");
        int rc = add_setting(in, plan, assignment, (size_t)(eq - assignment), value, source);
        free(value);
        if (rc != 0)
            return -1;
        plan->bind_setting = plan->env[plan->env_count - 1].name;
    }
    for (size_t i = 0; i < p->workaround_count; i++) {
        const mpiprofile_workaround *w = &p->workarounds[i];
        if (!workaround_for_job(w, in))
            continue;
        snprintf(source, sizeof source, "profile %.64s, workaround %.64s", p->name, w->name);
        for (size_t j = 0; j < w->env.count; j++)
            if (add_assignment(in, plan, w->env.items[j], source) != 0)
                return -1;
    }
    bool shared = strcmp(plan->wait_policy, "passive") == 0;
    return add_setting(in, plan, "OMP_WAIT_POLICY", strlen("OMP_WAIT_POLICY"), plan->wait_policy,
                       shared ? "OpenMP wait policy: a progress thread shares the compute cores"
                              : "OpenMP wait policy: the compute cores are the team's alone");
}

/* The suite's thread calls the library's own progress function where the
 * profile names one for this version (MPIX_Stream_progress on the null
 * stream: MPICH >= 4.1 progresses every channel in it, as its own progress
 * thread does); else MPI_Iprobe, which any library progresses in. */
static void choose_poll(const deploy_input *in, deploy_plan *plan, const mpiprofile_deployment *dep)
{
    static const char iprobe[] = "MPI_Iprobe on a private communicator";
    if (!dep || !dep->poll) {
        snprintf(plan->poll_why, sizeof plan->poll_why,
                 "%s: profile %s names no progress function of the library's own", iprobe,
                 in->profile->name);
        return;
    }
    char why[256];
    if (mpiprofile_versions_match(dep->poll_versions, in->version, why, sizeof why) != 1) {
        snprintf(plan->poll_why, sizeof plan->poll_why,
                 "%s: profile %s's %s needs versions %s, this library is %s", iprobe,
                 in->profile->name, dep->poll, dep->poll_versions, in->version);
        return;
    }
    plan->poll_function = dep->poll;
    plan->poll_argument = (int)dep->poll_argument;
    snprintf(plan->poll_why, sizeof plan->poll_why,
             "%s(%#x): the library's own progress function (profile %s, versions %s)", dep->poll,
             (unsigned)dep->poll_argument, in->profile->name, dep->poll_versions);
}

int deploy_test_chunks(int fixed_chunks, double test_period_us, double t_comp_s)
{
    if (test_period_us <= 0)
        return fixed_chunks;
    double chunks = round(t_comp_s * 1e6 / test_period_us);
    return chunks < 1 ? 1 : chunks > INT_MAX ? INT_MAX : (int)chunks;
}

/* Why the window barrier spins or sleeps (clocksync.h, "Waiting"): a
 * sleep wakes late by the machine's wake-up latency, a spin beside a busy
 * thread loses the core for that thread's slice. */
static const char *barrier_reason(const deploy_plan *plan)
{
    if (plan->barrier_sleep_min_s > 0)
        return "the library's progress thread busy-polls on the computation's cores, across the "
               "barrier too: the window barrier sleeps past that thread's time slice, then spins "
               "for the machine's measured wake-up latency";
    if (plan->progress_thread == DEPLOY_PROGRESS_SUITE)
        return "the suite's progress thread is parked across the window barrier: it spins its "
               "whole margin alone";
    if (plan->progress_thread == DEPLOY_PROGRESS_LIBRARY)
        return "the library's progress thread has a core of its own: the window barrier spins its "
               "whole margin";
    return "no thread of the deployment shares the computation's cores: the window barrier spins "
           "its whole margin";
}

int deploy_plan_make(const deploy_input *in, deploy_plan *plan)
{
    const nbc_config *cfg = in->cfg;
    *plan = (deploy_plan){.deployment = cfg->run.deployment};
    if ((unsigned)plan->deployment >= NBC_DEPLOYMENT_COUNT)
        return refuse(plan, "config: run.deployment: unknown deployment %d", plan->deployment);
    const deployment_rule *rule = &rules[plan->deployment];
    const mpiprofile_deployment *dep = mpiprofile_deployment_find(in->profile, rule->profile_key);
    plan->progress_thread = rule->thread;
    plan->confirm = rule->library_threads == LIBRARY_THREADS_FREE;
    plan->unconfirmed_ok = cfg->progress.unconfirmed_ok;
    plan->bind =
        plan->progress_thread == DEPLOY_PROGRESS_SUITE ? DEPLOY_BIND_SUITE : DEPLOY_BIND_SHARED;
    plan->progress_mode = cfg->progress.mode;
    plan->test_chunks = cfg->progress.test_count;
    if (rule->polls && plan->progress_mode == NBC_PROGRESS_NONE) {
        plan->progress_mode = NBC_PROGRESS_TEST;
        plan->test_chunks = cfg->progress.test_chunks;
    }
    /* A period replaces the chunk count (the configuration refuses both). */
    plan->test_period_us = cfg->progress.test_period_us;
    if (plan->test_period_us > 0 && plan->progress_mode == NBC_PROGRESS_NONE)
        plan->progress_mode = NBC_PROGRESS_TEST;
    if (plan->test_period_us > 0)
        plan->test_chunks = 0;
    if (rule->thread == DEPLOY_PROGRESS_SUITE) {
        char polling[64];
        if (plan->test_period_us > 0)
            snprintf(polling, sizeof polling, "progress.test_period_us = %g", plan->test_period_us);
        else
            snprintf(polling, sizeof polling, "progress.mode: \"test:%d\"", plan->test_chunks);
        if (plan->progress_mode == NBC_PROGRESS_TEST)
            return refuse(plan,
                          "config: %s and run.deployment=%s are two ways of driving "
                          "progress; a run measures one (allowed with %s: progress.mode = "
                          "none, progress.test_period_us = 0)",
                          polling, rule->name, rule->name);
        plan->progress_mode = NBC_PROGRESS_THREAD;
    }
    if (check_library(in, plan, dep) != 0 || check_switches(in, plan) != 0 ||
        place_threads(in, plan) != 0)
        return -1;
    if (plan->oversubscribed)
        plan->bind = DEPLOY_BIND_SHARED;
    if (rule->library_threads == LIBRARY_THREADS_FREE) {
        /* The library's own setting where this version has one; else the
         * thread is found and bound after MPI_Init. */
        char why[256];
        bool has_bind =
            dep && dep->bind.count == 1 &&
            mpiprofile_versions_match(dep->bind_versions, in->version, why, sizeof why) == 1;
        plan->bind = has_bind ? DEPLOY_BIND_LIBRARY_SETTING : DEPLOY_BIND_AFTER_INIT;
    }
    /* Workers that spin between parallel regions take the core from a
     * progress thread that shares it; on cores of their own they may spin. */
    bool shared = plan->progress_thread != DEPLOY_PROGRESS_NONE && plan->bind == DEPLOY_BIND_SHARED;
    plan->wait_policy = shared ? "passive" : "active";
    /* The library's thread busy-polls there the whole run, through the
     * window barrier too (the suite's sleeps between measurements). */
    plan->barrier_sleep_min_s =
        shared && plan->progress_thread == DEPLOY_PROGRESS_LIBRARY ? busy_core_barrier_sleep_s : 0;
    plan->barrier_why = barrier_reason(plan);
    if (plan->progress_thread == DEPLOY_PROGRESS_SUITE)
        choose_poll(in, plan, dep);
    plan->thread_level = DEPLOY_THREAD_FUNNELED;
    if (plan->progress_thread == DEPLOY_PROGRESS_LIBRARY && dep)
        plan->thread_level = level_of(dep->thread_level);
    if (plan->progress_thread == DEPLOY_PROGRESS_SUITE)
        plan->thread_level = DEPLOY_THREAD_MULTIPLE; /* two threads call MPI */
    return add_settings(in, plan, dep);
}

void deploy_plan_free(deploy_plan *plan)
{
    for (size_t i = 0; i < plan->env_count; i++) {
        free(plan->env[i].name);
        free(plan->env[i].value);
        free(plan->env[i].user_value);
    }
    plan->env_count = 0;
    plan->bind_setting = NULL;
}

const char *deploy_progress_thread_name(deploy_progress_thread thread)
{
    return (unsigned)thread < ARRAY_SIZE(progress_thread_names) ? progress_thread_names[thread]
                                                                : "unknown";
}

const char *deploy_bind_name(deploy_bind bind)
{
    return (unsigned)bind < ARRAY_SIZE(bind_names) ? bind_names[bind] : "unknown";
}

int deploy_check_thread_level(const deploy_plan *plan, deploy_thread_level provided, char *err,
                              size_t errlen)
{
    if (provided >= plan->thread_level)
        return 0;
    static const char *const why[] = {
        [DEPLOY_PROGRESS_NONE] = "only the main thread calls MPI while OpenMP threads compute",
        [DEPLOY_PROGRESS_LIBRARY] = "the library's progress thread drives MPI beside the main "
                                    "thread",
        [DEPLOY_PROGRESS_SUITE] = "the suite's progress thread calls MPI while the main thread "
                                  "does",
    };
    snprintf(err, errlen,
             "run.deployment: \"%s\" needs MPI_THREAD_%s (%s), but MPI_Init_thread provided "
             "MPI_THREAD_%s: this MPI library (or its build, or a setting such as a "
             "single-threaded device) does not support it; use a deployment that needs less "
             "or a library built with thread support",
             nbc_deployment_name(plan->deployment), upper_level_name(plan->thread_level),
             why[plan->progress_thread], upper_level_name(provided));
    return -1;
}

const char *deploy_thread_level_name(deploy_thread_level level)
{
    return (unsigned)level < ARRAY_SIZE(thread_level_names) ? thread_level_names[level] : "unknown";
}

/* A row of deployments.def, its fields named as there (lower case). */
static json_object *rule_json(const deployment_rule *rule)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "name", json_object_new_string(rule->name));
    json_object_object_add(e, "thread",
                           json_object_new_string(deploy_progress_thread_name(rule->thread)));
    json_object_object_add(e, "cores", json_object_new_string(cores_names[rule->cores]));
    json_object_object_add(e, "library_threads",
                           json_object_new_string(library_threads_names[rule->library_threads]));
    json_object_object_add(e, "polls", json_object_new_boolean(rule->polls));
    json_object_object_add(e, "profile_key", json_object_new_string(rule->profile_key));
    json_object_object_add(e, "meaning", json_object_new_string(rule->meaning));
    return e;
}

json_object *deploy_table_json(void)
{
    json_object *all = json_object_new_array();
    for (size_t d = 0; all && d < ARRAY_SIZE(rules); d++)
        json_object_array_add(all, rule_json(&rules[d]));
    return all;
}

const char *deploy_meaning(nbc_deployment deployment)
{
    return (unsigned)deployment < ARRAY_SIZE(rules) ? rules[deployment].meaning : "unknown";
}
