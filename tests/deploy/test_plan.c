/* The deployment plan (deploy/plan.h), table-driven over the real library
 * profiles of configs/mpi: profile x version x deployment x placement x
 * environment -> plan, or refusal with its message. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers" /* refusal rows end early */
#include <cmocka.h>

#include "deploy/plan.h"

#ifndef DEPLOY_TEST_PROFILES
#define DEPLOY_TEST_PROFILES "configs/mpi"
#endif

#define MAX_ITEMS 6

typedef struct plan_case {
    const char *name;
    const char *profile, *version;
    const char *sets[MAX_ITEMS];        /* section.key=value */
    int cpus[MAX_ITEMS], cpu_count;     /* the rank's cores */
    const char *environment[MAX_ITEMS]; /* the user's */
    /* Expected: a refusal holding every one of these, or the plan below. */
    const char *refusal[MAX_ITEMS];
    const char *thread_level, *progress_thread, *progress_cpus, *compute_cpus, *library_cpus;
    const char *wait_policy, *bind, *progress_mode;
    const char *settings[MAX_ITEMS]; /* NAME=VALUE the plan sets */
    const char *absent[MAX_ITEMS];   /* variables it must not set */
} plan_case;

static const plan_case cases[] = {
    {"mpich basic",
     "mpich",
     "4.0.2",
     {"run.deployment=basic"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "none",
     {"OMP_WAIT_POLICY=active"},
     {"MPICH_ASYNC_PROGRESS"}},
    {"mpich progress shares the cores, passive workers",
     "mpich",
     "4.0.2",
     {"run.deployment=progress"},
     {0},
     1,
     {NULL},
     {NULL},
     "multiple",
     "library",
     "0",
     "0",
     "0",
     "passive",
     "shared",
     "none",
     {"MPICH_ASYNC_PROGRESS=1", "OMP_WAIT_POLICY=passive"},
     {"MPIR_CVAR_PROGRESS_THREAD_AFFINITY"}},
    {"mpich 4.0 dedicated: the library's setting, the free core once per local rank",
     "mpich",
     "4.0.2",
     {"run.deployment=dedicated"},
     {2, 3, 5},
     3,
     {NULL},
     {NULL},
     "multiple",
     "library",
     "5",
     "2,3",
     "5",
     "active",
     "library_setting",
     "none",
     {"MPICH_ASYNC_PROGRESS=1", "MPIR_CVAR_PROGRESS_THREAD_AFFINITY=5,5,5,5",
      "OMP_WAIT_POLICY=active"},
     {NULL}},
    {"mpich 3.4 dedicated: bound after MPI_Init",
     "mpich",
     "3.4.3",
     {"run.deployment=dedicated"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "multiple",
     "library",
     "1",
     "0",
     "1",
     "active",
     "after_init",
     "none",
     {"MPICH_ASYNC_PROGRESS=1"},
     {"MPIR_CVAR_PROGRESS_THREAD_AFFINITY"}},
    {"dedicated with run.threads leaves the rest free",
     "mpich",
     "4.0.2",
     {"run.deployment=dedicated", "run.threads=2"},
     {0, 1, 2, 3},
     4,
     {NULL},
     {NULL},
     "multiple",
     "library",
     "2,3",
     "0,1",
     "2,3",
     "active",
     "library_setting",
     "none",
     {"MPIR_CVAR_PROGRESS_THREAD_AFFINITY=2,3,2,3,2,3,2,3"},
     {NULL}},
    {"dedicated on one core",
     "mpich",
     "4.0.2",
     {"run.deployment=dedicated"},
     {0},
     1,
     {NULL},
     {"run.deployment", "\"dedicated\"", "1 core", "basic, progress, manual"}},
    {"dedicated with every core computing",
     "mpich",
     "4.0.2",
     {"run.deployment=dedicated", "run.threads=2"},
     {0, 1},
     2,
     {NULL},
     {"run.threads", "\"2\"", "1 to 1"}},
    {"open mpi dedicated: no progress thread, the suite's suggested",
     "openmpi",
     "4.1.4",
     {"run.deployment=dedicated"},
     {0, 1},
     2,
     {NULL},
     {"\"dedicated\"", "Open MPI 4.1.4", "no asynchronous progress thread", "run.deployment=thread",
      "basic, manual, thread"}},
    {"open mpi progress",
     "openmpi",
     "5.0.3",
     {"run.deployment=progress"},
     {0, 1},
     2,
     {NULL},
     {"\"progress\"", "Open MPI 5.0.3", "no asynchronous progress thread"}},
    {"intel mpi dedicated pins with its own setting",
     "intelmpi",
     "2021.6",
     {"run.deployment=dedicated"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "multiple",
     "library",
     "1",
     "0",
     "1",
     "active",
     "library_setting",
     "none",
     {"I_MPI_ASYNC_PROGRESS=1", "I_MPI_ASYNC_PROGRESS_THREADS=1",
      "I_MPI_ASYNC_PROGRESS_PIN=1,1,1,1"},
     {NULL}},
    {"mvapich2 dedicated: no setting places it",
     "mvapich2",
     "2.3.7",
     {"run.deployment=dedicated"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "multiple",
     "library",
     "1",
     "0",
     "1",
     "active",
     "after_init",
     "none",
     {"MV2_ASYNC_PROGRESS=1"},
     {NULL}},
    {"suite thread on the free core",
     "openmpi",
     "4.1.4",
     {"run.deployment=thread"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "multiple",
     "suite",
     "1",
     "0",
     "0,1",
     "active",
     "suite",
     "thread",
     {"OMP_WAIT_POLICY=active"},
     {NULL}},
    {"suite thread with no core free",
     "mpich",
     "4.0.2",
     {"run.deployment=thread"},
     {0},
     1,
     {NULL},
     {"\"thread\"", "1 core", "progress.oversubscribe=true"}},
    {"suite thread oversubscribed shares the cores",
     "mpich",
     "4.0.2",
     {"run.deployment=thread", "progress.oversubscribe=true"},
     {0},
     1,
     {NULL},
     {NULL},
     "multiple",
     "suite",
     "0",
     "0",
     "0",
     "passive",
     "shared",
     "thread",
     {"OMP_WAIT_POLICY=passive"},
     {NULL}},
    {"suite thread and MPI_Test polling are two strategies",
     "mpich",
     "4.0.2",
     {"run.deployment=thread", "progress.mode=test:4"},
     {0, 1},
     2,
     {NULL},
     {"progress.mode", "test:4", "run.deployment=thread"}},
    {"suite thread and an MPI_Test period are two strategies",
     "mpich",
     "4.0.2",
     {"run.deployment=thread", "progress.test_period_us=100"},
     {0, 1},
     2,
     {NULL},
     {"progress.test_period_us", "run.deployment=thread"}},
    {"manual polls every period: the chunk count is each cell's",
     "mpich",
     "4.0.2",
     {"run.deployment=manual", "progress.test_period_us=100"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "test:0",
     {NULL},
     {"MPICH_ASYNC_PROGRESS"}},
    {"manual polls with MPI_Test",
     "mpich",
     "4.0.2",
     {"run.deployment=manual", "progress.test_chunks=8"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "test:8",
     {NULL},
     {"MPICH_ASYNC_PROGRESS"}},
    {"basic with the user's progress switch on",
     "mpich",
     "4.0.2",
     {"run.deployment=basic"},
     {0, 1},
     2,
     {"MPICH_ASYNC_PROGRESS=1"},
     {"\"basic\"", "MPICH_ASYNC_PROGRESS=1", "run.deployment=progress"}},
    {"thread with MPICH's CVAR spelling on",
     "mpich",
     "4.0.2",
     {"run.deployment=thread"},
     {0, 1},
     2,
     {"MPIR_CVAR_ASYNC_PROGRESS=1"},
     {"\"thread\"", "MPIR_CVAR_ASYNC_PROGRESS=1"}},
    {"basic with the switch off is basic",
     "mpich",
     "4.0.2",
     {"run.deployment=basic"},
     {0, 1},
     2,
     {"MPICH_ASYNC_PROGRESS=0"},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "none",
     {NULL},
     {"MPICH_ASYNC_PROGRESS"}},
    {"progress with the switch turned off by the user",
     "mpich",
     "4.0.2",
     {"run.deployment=progress"},
     {0, 1},
     2,
     {"MPIR_CVAR_ASYNC_PROGRESS=0"},
     {"\"progress\"", "MPIR_CVAR_ASYNC_PROGRESS=0", "turns it off"}},
    {"the user's wait policy against the plan's",
     "mpich",
     "4.0.2",
     {"run.deployment=progress"},
     {0, 1},
     2,
     {"OMP_WAIT_POLICY=active"},
     {"OMP_WAIT_POLICY=passive", "the environment sets OMP_WAIT_POLICY=active"}},
    {"the user's same value is recorded, not refused",
     "mpich",
     "4.0.2",
     {"run.deployment=progress"},
     {0, 1},
     2,
     {"MPICH_ASYNC_PROGRESS=1"},
     {NULL},
     "multiple",
     "library",
     "0,1",
     "0,1",
     "0,1",
     "passive",
     "shared",
     "none",
     {"MPICH_ASYNC_PROGRESS=1"},
     {NULL}},
    {"generic library: no progress thread known",
     "generic",
     "unknown",
     {"run.deployment=progress"},
     {0, 1},
     2,
     {NULL},
     {"\"progress\"", "no setting that turns one on", "basic, manual, thread"}},
    {"a workaround of a known bug joins the environment",
     "mpich",
     "4.0.2",
     {"run.deployment=basic", "run.collective=allgather_init"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "none",
     {"MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM=sched_ring"},
     {NULL}},
    /* The environment is set once before MPI_Init: a job of several
     * collectives needs each one's workarounds, not run.collective's. */
    {"a job of several collectives gets the workarounds of each",
     "mpich",
     "4.0.2",
     {"run.deployment=basic", "run.collectives=reduce_init,allgather_init,gather_init"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "none",
     {"MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM=sched_ring",
      "MPIR_CVAR_IGATHER_INTRA_ALGORITHM=tsp_tree"},
     {"MPIR_CVAR_ISCATTER_INTRA_ALGORITHM"}},
    {"a job of collectives without known bugs gets no workaround",
     "mpich",
     "4.0.2",
     {"run.deployment=basic", "run.collective=allgather_init",
      "run.collectives=reduce_init,bcast_init"},
     {0, 1},
     2,
     {NULL},
     {NULL},
     "funneled",
     "none",
     NULL,
     "0,1",
     "0,1",
     "active",
     NULL,
     "none",
     {"OMP_WAIT_POLICY=active"},
     {"MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM", "MPIR_CVAR_IGATHER_INTRA_ALGORITHM"}},
};

static mpiprofile_set profiles;

static int load_profiles(void **state)
{
    (void)state;
    static const char *const deployments[] = {"basic", "progress", "dedicated", "manual", "thread"};
    char err[512];
    if (mpiprofile_load_dir(&profiles, DEPLOY_TEST_PROFILES, deployments, 5, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int free_profiles(void **state)
{
    (void)state;
    mpiprofile_set_free(&profiles);
    return 0;
}

static const deploy_setting *find_setting(const deploy_plan *plan, const char *name, size_t len)
{
    for (size_t i = 0; i < plan->env_count; i++)
        if (strlen(plan->env[i].name) == len && strncmp(plan->env[i].name, name, len) == 0)
            return &plan->env[i];
    return NULL;
}

static void expect_text(const plan_case *c, const char *what, const char *want, const char *got)
{
    if (want && strcmp(want, got) != 0)
        fail_msg("%s: %s is \"%s\", expected \"%s\"", c->name, what, got, want);
}

static void run_case(const plan_case *c)
{
    nbc_config cfg;
    char err[512];
    assert_int_equal(nbc_config_init(&cfg, err, sizeof err), 0);
    for (int i = 0; i < MAX_ITEMS && c->sets[i]; i++)
        if (nbc_config_set(&cfg, c->sets[i], err, sizeof err) != 0)
            fail_msg("%s: %s: %s", c->name, c->sets[i], err);
    const mpiprofile *p = mpiprofile_find(&profiles, c->profile);
    if (!p)
        fail_msg("%s: no profile %s", c->name, c->profile);
    deploy_input in = {.cfg = &cfg,
                       .profile = p,
                       .version = c->version,
                       .cpus = c->cpus,
                       .cpu_count = c->cpu_count,
                       .machine_cpus = 4,
                       .environment = c->environment};
    deploy_plan plan;
    int rc = deploy_plan_make(&in, &plan);
    if (c->refusal[0]) {
        if (rc == 0)
            fail_msg("%s: planned, expected a refusal", c->name);
        for (int i = 0; i < MAX_ITEMS && c->refusal[i]; i++)
            if (!strstr(plan.refusal, c->refusal[i]))
                fail_msg("%s: refusal \"%s\" lacks \"%s\"", c->name, plan.refusal, c->refusal[i]);
    } else {
        if (rc != 0)
            fail_msg("%s: refused: %s", c->name, plan.refusal);
        char cpus[256];
        expect_text(c, "thread level", c->thread_level,
                    deploy_thread_level_name(plan.thread_level));
        expect_text(c, "progress thread", c->progress_thread,
                    deploy_progress_thread_name(plan.progress_thread));
        if (plan.progress_thread != DEPLOY_PROGRESS_NONE) {
            deploy_cpu_list(plan.progress_cpus, plan.progress_cpu_count, cpus, sizeof cpus);
            expect_text(c, "progress cpus", c->progress_cpus, cpus);
            expect_text(c, "binding", c->bind, deploy_bind_name(plan.bind));
        }
        deploy_cpu_list(plan.compute_cpus, plan.compute_count, cpus, sizeof cpus);
        expect_text(c, "compute cpus", c->compute_cpus, cpus);
        deploy_cpu_list(plan.library_cpus, plan.library_cpu_count, cpus, sizeof cpus);
        expect_text(c, "library thread cpus", c->library_cpus, cpus);
        expect_text(c, "wait policy", c->wait_policy, plan.wait_policy);
        /* Only a library thread busy-polling on the compute cores makes the
         * window barrier sleep longer than that thread's slice. */
        bool busy_shared =
            strcmp(c->progress_thread, "library") == 0 && strcmp(c->wait_policy, "passive") == 0;
        if (busy_shared != (plan.barrier_sleep_min_s > 0))
            fail_msg("%s: barrier_sleep_min_s %g, expected %s", c->name, plan.barrier_sleep_min_s,
                     busy_shared ? "> 0" : "0");
        /* The log's reason says the same: a sleep only for a busy library
         * thread, the suite's own parked, else a spin of the whole margin. */
        const char *why = busy_shared ? "sleeps past that thread's time slice"
                          : strcmp(c->progress_thread, "suite") == 0
                              ? "parked across the window barrier"
                              : "spins its whole margin";
        if (!plan.barrier_why || !strstr(plan.barrier_why, why))
            fail_msg("%s: barrier reason \"%s\" lacks \"%s\"", c->name,
                     plan.barrier_why ? plan.barrier_why : "(none)", why);
        char mode[32];
        snprintf(mode, sizeof mode, "%s", nbc_progress_mode_name(plan.progress_mode));
        if (plan.progress_mode == NBC_PROGRESS_TEST)
            snprintf(mode, sizeof mode, "test:%d", plan.test_chunks);
        expect_text(c, "progress mode", c->progress_mode, mode);
        for (int i = 0; i < MAX_ITEMS && c->settings[i]; i++) {
            const char *eq = strchr(c->settings[i], '=');
            const deploy_setting *s =
                find_setting(&plan, c->settings[i], (size_t)(eq - c->settings[i]));
            if (!s || strcmp(s->value, eq + 1) != 0)
                fail_msg("%s: %s not set (%s)", c->name, c->settings[i], s ? s->value : "absent");
        }
        for (int i = 0; i < MAX_ITEMS && c->absent[i]; i++)
            if (find_setting(&plan, c->absent[i], strlen(c->absent[i])))
                fail_msg("%s: %s set, not expected", c->name, c->absent[i]);
    }
    deploy_plan_free(&plan);
    nbc_config_free(&cfg);
}

static void every_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(&cases[i]);
}

/* Every profile states what each library-thread deployment needs: a
 * setting, or why it cannot run. */
static void profiles_state_progress(void **state)
{
    (void)state;
    static const char *const needs[] = {"progress", "dedicated"};
    for (size_t i = 0; i < profiles.count; i++)
        for (size_t d = 0; d < 2; d++) {
            const mpiprofile_deployment *dep =
                mpiprofile_deployment_find(&profiles.profiles[i], needs[d]);
            if (!dep || !(dep->env.count > 0 || dep->unsupported))
                fail_msg("profile %s: [deployment.%s] has neither env nor unsupported",
                         profiles.profiles[i].name, needs[d]);
        }
}

/* What MPI_Init_thread provided against what each deployment needs, on
 * MPICH's profile (4.0.2, 2 cores): less is refused naming both levels. */
static void thread_level_asserted(void **state)
{
    (void)state;
    static const struct {
        const char *deployment;
        deploy_thread_level provided;
        bool accepted;
        const char *words;
    } rows[] = {
        {"basic", DEPLOY_THREAD_FUNNELED, true, NULL},
        {"basic", DEPLOY_THREAD_SINGLE, false, "needs MPI_THREAD_FUNNELED"},
        {"progress", DEPLOY_THREAD_MULTIPLE, true, NULL},
        {"progress", DEPLOY_THREAD_FUNNELED, false,
         "\"progress\" needs MPI_THREAD_MULTIPLE (the library's progress thread"},
        {"thread", DEPLOY_THREAD_SERIALIZED, false, "provided MPI_THREAD_SERIALIZED"},
        {"manual", DEPLOY_THREAD_MULTIPLE, true, NULL},
    };
    const int cpus[] = {0, 1};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        nbc_config cfg;
        char err[1024], set[64];
        assert_int_equal(nbc_config_init(&cfg, err, sizeof err), 0);
        snprintf(set, sizeof set, "run.deployment=%s", rows[i].deployment);
        assert_int_equal(nbc_config_set(&cfg, set, err, sizeof err), 0);
        deploy_input in = {.cfg = &cfg,
                           .profile = mpiprofile_find(&profiles, "mpich"),
                           .version = "4.0.2",
                           .cpus = cpus,
                           .cpu_count = 2,
                           .machine_cpus = 4};
        deploy_plan plan;
        if (deploy_plan_make(&in, &plan) != 0)
            fail_msg("%s: refused: %s", rows[i].deployment, plan.refusal);
        int rc = deploy_check_thread_level(&plan, rows[i].provided, err, sizeof err);
        if ((rc == 0) != rows[i].accepted)
            fail_msg("%s provided %s: %s", rows[i].deployment,
                     deploy_thread_level_name(rows[i].provided), rc == 0 ? "accepted" : err);
        if (rows[i].words && !strstr(err, rows[i].words))
            fail_msg("%s: message \"%s\" lacks \"%s\"", rows[i].deployment, err, rows[i].words);
        deploy_plan_free(&plan);
        nbc_config_free(&cfg);
    }
}

/* MPI_Test every P of computation: round(t_comp / P) chunks, at least
 * one; without a period the fixed count, whatever t_comp. */
static void test_chunks_follow_the_period(void **state)
{
    (void)state;
    static const struct {
        int fixed;
        double period_us, t_comp_s;
        int chunks;
    } rows[] = {
        {16, 0, 8e-3, 16},  {16, 0, 1.0, 16},     {0, 100, 1e-3, 10},   {0, 100, 16e-3, 160},
        {0, 1000, 1e-3, 1}, {0, 1000, 4.4e-3, 4}, {0, 1000, 4.6e-3, 5}, {0, 1000, 1e-4, 1},
        {0, 1000, 0.0, 1},  {0, 250, 1.0, 4000},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        int chunks = deploy_test_chunks(rows[i].fixed, rows[i].period_us, rows[i].t_comp_s);
        if (chunks != rows[i].chunks)
            fail_msg("fixed %d, period %g us, t_comp %g s: %d chunks, expected %d", rows[i].fixed,
                     rows[i].period_us, rows[i].t_comp_s, chunks, rows[i].chunks);
    }
}

/* The suite's progress thread calls the library's own progress function
 * where the profile names one for the version, else MPI_Iprobe; the plan
 * says which and why (meta.json's deployment_plan). */
static void thread_poll_follows_versions(void **state)
{
    (void)state;
    static const struct {
        const char *profile, *version, *function, *why;
    } rows[] = {
        {"mpich", "4.0.2", NULL,
         "MPIX_Stream_progress needs versions >=4.1, this library is 4.0.2"},
        {"mpich", "4.1", "MPIX_Stream_progress", "MPIX_Stream_progress(0x3c000000)"},
        {"mpich", "4.2.0", "MPIX_Stream_progress", "profile mpich, versions >=4.1"},
        {"openmpi", "4.1.4", NULL, "profile openmpi names no progress function"},
    };
    const int cpus[] = {0, 1};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        nbc_config cfg;
        char err[1024];
        assert_int_equal(nbc_config_init(&cfg, err, sizeof err), 0);
        assert_int_equal(nbc_config_set(&cfg, "run.deployment=thread", err, sizeof err), 0);
        assert_int_equal(nbc_config_set(&cfg, "progress.oversubscribe=true", err, sizeof err), 0);
        deploy_input in = {.cfg = &cfg,
                           .profile = mpiprofile_find(&profiles, rows[i].profile),
                           .version = rows[i].version,
                           .cpus = cpus,
                           .cpu_count = 2,
                           .machine_cpus = 2};
        deploy_plan plan;
        if (deploy_plan_make(&in, &plan) != 0)
            fail_msg("%s %s: refused: %s", rows[i].profile, rows[i].version, plan.refusal);
        if ((rows[i].function == NULL) != (plan.poll_function == NULL) ||
            (rows[i].function && strcmp(rows[i].function, plan.poll_function) != 0))
            fail_msg("%s %s: calls %s", rows[i].profile, rows[i].version,
                     plan.poll_function ? plan.poll_function : "MPI_Iprobe");
        if (plan.poll_function)
            assert_int_equal(plan.poll_argument, 0x3c000000);
        if (!strstr(plan.poll_why, rows[i].why))
            fail_msg("%s %s: \"%s\" lacks \"%s\"", rows[i].profile, rows[i].version, plan.poll_why,
                     rows[i].why);
        deploy_plan_free(&plan);
        nbc_config_free(&cfg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_case),
        cmocka_unit_test(profiles_state_progress),
        cmocka_unit_test(thread_level_asserted),
        cmocka_unit_test(thread_poll_follows_versions),
        cmocka_unit_test(test_chunks_follow_the_period),
    };
    return cmocka_run_group_tests(tests, load_profiles, free_profiles);
}
