/* The deployment plan (deploy/plan.h) carried out: its environment set
 * before MPI_Init (OpenMP's wait policy needs the program started again:
 * libgomp reads it when it loads), the threads MPI_Init created found in
 * /proc/self/task and bound where the plan says, the binding of dedicated's
 * progress thread confirmed from its allowed CPUs, and the record of it
 * all (meta.json, docs/formats.md). */
#include "bench_nbc/library/library.h"
#include "threads/threads.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names of the variables this program set before starting itself again:
 * they are not the user's, and the plan must see the user's environment. */
static const char set_by_plan_var[] = "BENCH_NBC_PLAN_SET";

static bool set_by_plan(const char *entry)
{
    const char *list = getenv(set_by_plan_var);
    size_t len = strcspn(entry, "=");
    for (const char *p = list; p && *p; p += strcspn(p, " "), p += strspn(p, " "))
        if (strcspn(p, " ") == len && strncmp(p, entry, len) == 0)
            return true;
    return false;
}

/* The user's environment: environ without what an earlier start set. */
static const char **user_environment(void)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    const char **env = calloc(n + 1, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; env && i < n; i++)
        if (!set_by_plan(environ[i]))
            env[k++] = environ[i];
    return env;
}

/* Local rank and count from the launcher's variables, before MPI_Init. */
static bool launcher_local_ranks(int *local_rank, int *local_ranks, const char **from)
{
    static const struct {
        const char *rank, *size;
    } vars[] = {{"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
                {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *r = getenv(vars[i].rank), *s = getenv(vars[i].size);
        if (r && s && atoi(s) >= 1 && atoi(r) >= 0 && atoi(r) < atoi(s)) {
            *local_rank = atoi(r);
            *local_ranks = atoi(s);
            *from = vars[i].size;
            return true;
        }
    }
    return false;
}

/* This rank's cores as nbc_place_rank will find them, guessed before MPI
 * runs: the allowed CPUs (one per core), sliced by the launcher's local
 * rank count. After MPI_Init the plan is made again from the real ones. */
static int guess_placement(nbc_deployment_state *st, char *err, size_t errlen)
{
    int n = compute_allowed_cpus(st->cpus, COMPUTE_MAX_CPUS, err, errlen);
    if (n < 0)
        return -1;
    int local_rank = 0, local_ranks = 1;
    const char *from = NULL;
    if (launcher_local_ranks(&local_rank, &local_ranks, &from) && local_ranks > 1 &&
        n / local_ranks >= 1) {
        int per_rank = n / local_ranks;
        memmove(st->cpus, st->cpus + local_rank * per_rank, (size_t)per_rank * sizeof(int));
        snprintf(st->placement_source, sizeof st->placement_source,
                 "before MPI_Init: slice %d of %d (%s) of this process's allowed CPUs, one per "
                 "core",
                 local_rank, local_ranks, from);
        n = per_rank;
    } else {
        snprintf(st->placement_source, sizeof st->placement_source,
                 "before MPI_Init: this process's allowed CPUs, one per core");
    }
    st->cpu_count = n;
    return 0;
}

static int make_plan(nbc_deployment_state *st, const nbc_config *cfg)
{
    const char **env = user_environment();
    long machine = sysconf(_SC_NPROCESSORS_CONF);
    deploy_input in = {
        .cfg = cfg,
        .profile = nbc_library_profile(),
        .version = nbc_library_version(),
        .cpus = st->cpus,
        .cpu_count = st->cpu_count,
        .placement_source = st->placement_source,
        .machine_cpus = machine > 0 ? (int)machine : 1,
        .environment = env,
    };
    deploy_plan_free(&st->plan);
    int rc = deploy_plan_make(&in, &st->plan);
    json_object_put(st->plan_json);
    st->plan_json = deploy_plan_json(&st->plan, &in);
    free(env);
    return rc;
}

int nbc_deployment_plan_before_init(nbc_deployment_state *st, const nbc_config *cfg, char *err,
                                    size_t errlen)
{
    nbc_library_identify();
    if (guess_placement(st, err, errlen) != 0)
        return -1;
    st->planned = true;
    if (make_plan(st, cfg) != 0) {
        snprintf(err, errlen, "%s", st->plan.refusal);
        return -1;
    }
    return 0;
}

static int thread_level_constant(deploy_thread_level level)
{
    static const int constants[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                    MPI_THREAD_MULTIPLE};
    return constants[level];
}

deploy_thread_level nbc_deployment_level_of(int mpi_level)
{
    for (int level = DEPLOY_THREAD_MULTIPLE; level > DEPLOY_THREAD_SINGLE; level--)
        if (mpi_level == thread_level_constant((deploy_thread_level)level))
            return (deploy_thread_level)level;
    return DEPLOY_THREAD_SINGLE;
}

int nbc_deployment_thread_level(const nbc_deployment_state *st)
{
    return st->planned && !st->plan.refused ? thread_level_constant(st->plan.thread_level)
                                            : MPI_THREAD_FUNNELED;
}

/* Lists the threads of this process (threads/threads.h): the count. */
static int list_tids(pid_t *tids, int capacity)
{
    int n = threads_tids(tids, capacity);
    return n > 0 ? n : 0;
}

int nbc_deployment_apply_env(nbc_deployment_state *st, char **argv)
{
    const deploy_plan *plan = &st->plan;
    /* libgomp took OMP_WAIT_POLICY from the environment when it loaded. */
    const char *policy = getenv("OMP_WAIT_POLICY");
    bool restart = !(policy && strcmp(policy, plan->wait_policy) == 0) && !getenv(set_by_plan_var);
    char names[2048] = "";
    for (size_t i = 0; i < plan->env_count; i++) {
        const deploy_setting *s = &plan->env[i];
        bool applied = !s->user_value && setenv(s->name, s->value, 1) == 0;
        nbc_library_record_setting(s->name, s->value, s->source, s->user_value, applied);
        if (!s->user_value)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? " " : "", s->name);
    }
    if (!restart)
        return 0;
    if (setenv(set_by_plan_var, names, 1) != 0)
        return -1;
    /* By its real path: the thread names (comm) come from it. */
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        execv(self, argv);
    }
    fprintf(stderr, "bench_nbc: cannot start again with the deployment's OpenMP settings: %s\n",
            strerror(errno));
    return -1;
}

void nbc_deployment_before_init_threads(nbc_deployment_state *st)
{
    st->before_count = list_tids(st->before, NBC_MAX_TRACKED_THREADS);
}

int nbc_deployment_after_init_threads(nbc_deployment_state *st)
{
    pid_t now[NBC_MAX_TRACKED_THREADS];
    int n = list_tids(now, NBC_MAX_TRACKED_THREADS);
    st->library_count = 0;
    for (int i = 0; i < n; i++) {
        bool old = false;
        for (int j = 0; j < st->before_count && !old; j++)
            old = now[i] == st->before[j];
        if (!old && st->library_count < NBC_MAX_TRACKED_THREADS)
            st->library[st->library_count++] = (nbc_tracked_thread){.tid = now[i]};
    }
    return st->library_count;
}

int nbc_deployment_plan_rank(nbc_deployment_state *st, const nbc_config *cfg,
                             const placement *place, char *err, size_t errlen)
{
    memcpy(st->cpus, place->cpus, (size_t)place->cpu_count * sizeof *place->cpus);
    st->cpu_count = place->cpu_count;
    snprintf(st->placement_source, sizeof st->placement_source, "%s",
             place->split ? "the rank's slice of the host's shared CPU set, one per core"
                          : "the rank's allowed CPUs, one per core");
    if (make_plan(st, cfg) != 0) {
        snprintf(err, errlen, "%s", st->plan.refusal);
        return -1;
    }
    return 0;
}

static void cpus_of(pid_t tid, char *buf, size_t len)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    buf[0] = '\0';
    if (sched_getaffinity(tid, sizeof set, &set) != 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    int cpus[COMPUTE_MAX_CPUS], n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < COMPUTE_MAX_CPUS; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    deploy_cpu_list(cpus, n, buf, len);
}

static void thread_name(pid_t tid, char *buf, size_t len)
{
    threads_name(tid, buf, len);
}

/* Whether the thread may run on some CPUs, all of them among cpus[]. */
static bool allowed_within(pid_t tid, const int *cpus, int count)
{
    cpu_set_t allowed, inside, want;
    CPU_ZERO(&allowed);
    CPU_ZERO(&want);
    for (int i = 0; i < count; i++)
        CPU_SET(cpus[i], &want);
    if (sched_getaffinity(tid, sizeof allowed, &allowed) != 0)
        return false;
    CPU_AND(&inside, &allowed, &want);
    return CPU_COUNT(&allowed) > 0 && CPU_EQUAL(&inside, &allowed);
}

int nbc_deployment_bind_library_threads(nbc_deployment_state *st, char *err, size_t errlen)
{
    const deploy_plan *plan = &st->plan;
    cpu_set_t want;
    CPU_ZERO(&want);
    for (int i = 0; i < plan->library_cpu_count; i++)
        CPU_SET(plan->library_cpus[i], &want);
    bool all_confirmed = st->library_count > 0;
    for (int i = 0; i < st->library_count; i++) {
        nbc_tracked_thread *t = &st->library[i];
        thread_name(t->tid, t->name, sizeof t->name);
        cpus_of(t->tid, t->cpus_before, sizeof t->cpus_before);
        if (allowed_within(t->tid, plan->library_cpus, plan->library_cpu_count)) {
            snprintf(t->bound_by, sizeof t->bound_by, "%s",
                     plan->bind_setting ? plan->bind_setting : "already within");
        } else if (sched_setaffinity(t->tid, sizeof want, &want) == 0) {
            snprintf(t->bound_by, sizeof t->bound_by, "sched_setaffinity after MPI_Init");
        } else {
            snprintf(t->bound_by, sizeof t->bound_by, "not bound: %s", strerror(errno));
        }
        /* The proof is the thread's allowed CPUs as the kernel reports them. */
        t->confirmed = allowed_within(t->tid, plan->library_cpus, plan->library_cpu_count);
        cpus_of(t->tid, t->cpus, sizeof t->cpus);
        all_confirmed &= t->confirmed;
    }
    st->binding = !plan->confirm ? "not required" : all_confirmed ? "confirmed" : "unconfirmed";
    if (!plan->confirm || all_confirmed)
        return 0;
    char free_cpus[256];
    deploy_cpu_list(plan->library_cpus, plan->library_cpu_count, free_cpus, sizeof free_cpus);
    if (st->library_count == 0)
        snprintf(err, errlen,
                 "deployment dedicated: MPI_Init created no thread to bind to the free core %s: "
                 "the library's progress thread did not start (its setting in the profile? the "
                 "thread level?)%s",
                 free_cpus,
                 plan->unconfirmed_ok ? "" : " (progress.unconfirmed_ok=true runs anyway)");
    else
        snprintf(err, errlen,
                 "deployment dedicated: the library's thread %d (%s) may run on CPUs %s, not "
                 "only on the free core %s: binding not confirmed%s",
                 (int)st->library[0].tid, st->library[0].name, st->library[0].cpus, free_cpus,
                 plan->unconfirmed_ok ? ""
                                      : " (progress.unconfirmed_ok=true runs anyway, marked "
                                        "unconfirmed)");
    return plan->unconfirmed_ok ? 0 : -1;
}

int64_t nbc_thread_cpu_ns(pid_t tid)
{
    return threads_cpu_ns(tid);
}

void nbc_deployment_track_suite_thread(nbc_deployment_state *st, pid_t tid)
{
    st->suite = (nbc_tracked_thread){.tid = tid};
    if (tid <= 0)
        return;
    snprintf(st->suite.bound_by, sizeof st->suite.bound_by, "%s",
             st->plan.oversubscribed ? "the compute cores (progress.oversubscribe)"
                                     : "the suite, on the free core");
    thread_name(tid, st->suite.name, sizeof st->suite.name);
    cpus_of(tid, st->suite.cpus, sizeof st->suite.cpus);
    st->suite.confirmed = allowed_within(tid, st->plan.progress_cpus, st->plan.progress_cpu_count);
}

void nbc_deployment_sweep_mark(nbc_deployment_state *st, bool end)
{
    for (int i = 0; i < st->library_count; i++) {
        int64_t ns = nbc_thread_cpu_ns(st->library[i].tid);
        if (end)
            st->library[i].cpu_ns_sweep = ns >= 0 ? ns - st->library[i].cpu_ns_start : -1;
        else
            st->library[i].cpu_ns_start = ns;
    }
    if (st->suite.tid > 0) {
        int64_t ns = nbc_thread_cpu_ns(st->suite.tid);
        if (end) {
            st->suite.cpu_ns_sweep = ns >= 0 ? ns - st->suite.cpu_ns_start : -1;
        } else {
            st->suite.cpu_ns_start = ns;
        }
    }
}

static json_object *tracked_json(const nbc_tracked_thread *t, const char *role)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "tid", json_object_new_int(t->tid));
    json_object_object_add(o, "role", json_object_new_string(role));
    json_object_object_add(o, "name", json_object_new_string(t->name));
    if (t->cpus_before[0])
        json_object_object_add(o, "cpus_after_mpi_init", json_object_new_string(t->cpus_before));
    json_object_object_add(o, "cpus", json_object_new_string(t->cpus));
    json_object_object_add(o, "bound_by", json_object_new_string(t->bound_by));
    json_object_object_add(o, "within_plan", json_object_new_boolean(t->confirmed));
    json_object_object_add(o, "cpu_s_sweep",
                           t->cpu_ns_sweep >= 0 ? json_object_new_double(t->cpu_ns_sweep * 1e-9)
                                                : NULL);
    return o;
}

json_object *nbc_deployment_rank_json(const nbc_deployment_state *st, int rank)
{
    json_object *o = json_object_new_object(), *threads = json_object_new_array();
    json_object_object_add(o, "rank", json_object_new_int(rank));
    json_object_object_add(o, "binding", json_object_new_string(st->binding ? st->binding : ""));
    for (int i = 0; i < st->library_count; i++)
        json_object_array_add(threads, tracked_json(&st->library[i], "created by MPI_Init"));
    if (st->suite.tid > 0)
        json_object_array_add(threads, tracked_json(&st->suite, "suite progress thread"));
    json_object_object_add(o, "threads", threads);
    return o;
}

void nbc_deployment_free(nbc_deployment_state *st)
{
    deploy_plan_free(&st->plan);
    json_object_put(st->plan_json);
    st->plan_json = NULL;
}
