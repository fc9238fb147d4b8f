/* The plan as JSON (plan.h, deploy_plan_json): what `bench_nbc --plan`
 * and `nbc-profile plan` print, and meta.json records. */
#include "deploy/plan.h"

#include <json-c/json.h>

static json_object *cpus_json(const int *cpus, int count)
{
    json_object *a = json_object_new_array();
    for (int i = 0; a && i < count; i++)
        json_object_array_add(a, json_object_new_int(cpus[i]));
    return a;
}

json_object *deploy_plan_json(const deploy_plan *plan, const deploy_input *in)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    const char *name = nbc_deployment_name(plan->deployment);
    json_object_object_add(o, "deployment", json_object_new_string(name));
    if ((unsigned)plan->deployment < NBC_DEPLOYMENT_COUNT)
        json_object_object_add(o, "meaning",
                               json_object_new_string(deploy_meaning(plan->deployment)));
    /* Every deployment there is, with its meaning: the list tools offer
     * (nbc-run checks a study's deployments against it). */
    json_object_object_add(o, "deployments", deploy_table_json());
    json_object_object_add(o, "status", json_object_new_string(plan->refused ? "refused" : "ok"));
    if (plan->refused)
        json_object_object_add(o, "refusal", json_object_new_string(plan->refusal));
    json_object *lib = json_object_new_object();
    json_object_object_add(lib, "profile", json_object_new_string(in->profile->name));
    json_object_object_add(lib, "version", json_object_new_string(in->version));
    json_object_object_add(o, "mpi_library", lib);
    json_object *place = json_object_new_object();
    json_object_object_add(place, "cpus", cpus_json(in->cpus, in->cpu_count));
    json_object_object_add(
        place, "source",
        json_object_new_string(in->placement_source ? in->placement_source : "given"));
    json_object_object_add(o, "placement", place);
    if (plan->refused)
        return o;
    json_object *env = json_object_new_array();
    for (size_t i = 0; i < plan->env_count; i++) {
        const deploy_setting *s = &plan->env[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(s->name));
        json_object_object_add(e, "value", json_object_new_string(s->value));
        json_object_object_add(e, "source", json_object_new_string(s->source));
        if (s->user_value)
            json_object_object_add(e, "environment_had", json_object_new_string(s->user_value));
        json_object_array_add(env, e);
    }
    json_object_object_add(o, "environment", env);
    json_object_object_add(o, "thread_level",
                           json_object_new_string(deploy_thread_level_name(plan->thread_level)));
    json_object *pt = json_object_new_object();
    json_object_object_add(
        pt, "kind", json_object_new_string(deploy_progress_thread_name(plan->progress_thread)));
    if (plan->progress_thread != DEPLOY_PROGRESS_NONE) {
        json_object_object_add(pt, "cpus",
                               cpus_json(plan->progress_cpus, plan->progress_cpu_count));
        json_object_object_add(pt, "binding", json_object_new_string(deploy_bind_name(plan->bind)));
        if (plan->bind_setting)
            json_object_object_add(pt, "bind_setting", json_object_new_string(plan->bind_setting));
        json_object_object_add(pt, "confirm", json_object_new_boolean(plan->confirm));
        json_object_object_add(pt, "unconfirmed_ok", json_object_new_boolean(plan->unconfirmed_ok));
        json_object_object_add(pt, "oversubscribed", json_object_new_boolean(plan->oversubscribed));
    }
    if (plan->progress_thread == DEPLOY_PROGRESS_SUITE) {
        json_object *poll = json_object_new_object();
        json_object_object_add(
            poll, "function",
            json_object_new_string(plan->poll_function ? plan->poll_function : "MPI_Iprobe"));
        if (plan->poll_function)
            json_object_object_add(poll, "argument", json_object_new_int(plan->poll_argument));
        json_object_object_add(poll, "why", json_object_new_string(plan->poll_why));
        json_object_object_add(pt, "poll", poll);
    }
    json_object_object_add(o, "progress_thread", pt);
    json_object_object_add(o, "library_thread_cpus",
                           cpus_json(plan->library_cpus, plan->library_cpu_count));
    json_object *compute = json_object_new_object();
    json_object_object_add(compute, "threads", json_object_new_int(plan->compute_count));
    json_object_object_add(compute, "cpus", cpus_json(plan->compute_cpus, plan->compute_count));
    json_object_object_add(compute, "omp_wait_policy", json_object_new_string(plan->wait_policy));
    json_object_object_add(o, "compute", compute);
    char mode[32];
    nbc_progress_mode_text(plan->progress_mode, plan->test_chunks, mode, sizeof mode);
    json_object_object_add(o, "progress_mode", json_object_new_string(mode));
    if (plan->test_period_us > 0)
        json_object_object_add(o, "test_period_us", json_object_new_double(plan->test_period_us));
    json_object_object_add(o, "barrier_sleep_min_ms",
                           json_object_new_double(plan->barrier_sleep_min_s * 1e3));
    json_object *barrier = json_object_new_object();
    json_object_object_add(
        barrier, "wait", json_object_new_string(plan->barrier_sleep_min_s > 0 ? "sleep" : "spin"));
    json_object_object_add(barrier, "why", json_object_new_string(plan->barrier_why));
    json_object_object_add(o, "barrier", barrier);
    return o;
}
