/* Unit tests of threads/ (threads.h): parsers on texts as the kernel writes
 * them, the listing and probe on this process's threads, and the placement
 * refusals on made-up tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "threads/threads.h"

/* /proc/self/task/T/sched of Linux 6.x (abridged to the lines around ours). */
static const char sched_text[] =
    "bench_nbc (4242, #threads: 3)\n"
    "-------------------------------------------------------------------\n"
    "se.exec_start                                :       4639499.478594\n"
    "se.sum_exec_runtime                          :             0.819001\n"
    "se.nr_migrations                             :                   17\n"
    "nr_switches                                  :                  130\n"
    "nr_voluntary_switches                        :                  120\n"
    "nr_involuntary_switches                      :                   10\n"
    "se.load.weight                               :              1048576\n";

static const char status_text[] = "Name:\tbench_nbc\n"
                                  "State:\tR (running)\n"
                                  "Cpus_allowed:\t3\n"
                                  "Cpus_allowed_list:\t0-1\n"
                                  "voluntary_ctxt_switches:\t55\n"
                                  "nonvoluntary_ctxt_switches:\t3\n";

static void test_parse_schedstat(void **state)
{
    (void)state;
    threads_sched s = {-1, -1, -1, -1, -1};
    assert_int_equal(threads_parse_schedstat("315943 27000 1\n", &s), 0);
    assert_int_equal(s.cpu_ns, 315943);
    assert_int_equal(s.run_delay_ns, 27000);
    assert_int_equal(s.vol_switches, -1); /* not in that file */
    assert_int_equal(threads_parse_schedstat("garbage\n", &s), -1);
    assert_int_equal(threads_parse_schedstat("12\n", &s), -1);
}

static void test_parse_sched_and_status(void **state)
{
    (void)state;
    threads_sched s = {-1, -1, -1, -1, -1};
    assert_int_equal(threads_parse_sched(sched_text, &s), 0);
    assert_int_equal(s.migrations, 17);
    assert_int_equal(s.vol_switches, 120);
    assert_int_equal(s.invol_switches, 10);
    /* nr_switches must not be taken for nr_voluntary_switches, nor the
     * reverse */
    threads_sched t = {-1, -1, -1, -1, -1};
    assert_int_equal(threads_parse_status(status_text, &t), 0);
    assert_int_equal(t.vol_switches, 55);
    assert_int_equal(t.invol_switches, 3);
    assert_int_equal(t.migrations, -1);
    assert_int_equal(threads_parse_sched(status_text, &t), -1);
    assert_int_equal(threads_parse_status("Name:\tx\n", &t), -1);
}

static void test_diff(void **state)
{
    (void)state;
    threads_sched a = {100, 10, 1, 2, -1}, b = {250, 40, 3, 2, 5};
    threads_sched d = threads_sched_diff(&a, &b);
    assert_int_equal(d.cpu_ns, 150);
    assert_int_equal(d.run_delay_ns, 30);
    assert_int_equal(d.vol_switches, 2);
    assert_int_equal(d.invol_switches, 0);
    assert_int_equal(d.migrations, -1);
}

static void test_cpu_lists(void **state)
{
    (void)state;
    cpu_set_t set;
    char text[64];
    assert_int_equal(threads_parse_cpu_list("0-3,8,10-11\n", &set), 0);
    assert_int_equal(CPU_COUNT(&set), 7);
    threads_cpu_list(&set, text, sizeof text);
    assert_string_equal(text, "0-3,8,10-11");
    assert_int_equal(threads_parse_cpu_list("5", &set), 0);
    threads_cpu_list(&set, text, sizeof text);
    assert_string_equal(text, "5");
    assert_int_equal(threads_parse_cpu_list("3-1", &set), -1);
    assert_int_equal(threads_parse_cpu_list("a", &set), -1);
    assert_int_equal(threads_parse_cpu_list("1;2", &set), -1);
}

static void test_classify(void **state)
{
    (void)state;
    const pid_t before[] = {10, 11}, compute[] = {10, 20, 21};
    threads_known k = {.before_init = before,
                       .before_init_count = 2,
                       .main_tid = 10,
                       .compute_tids = compute,
                       .compute_count = 3,
                       .suite_progress_tid = 30,
                       .watchdog_tid = 31};
    int index;
    assert_int_equal(threads_classify(&k, 10, &index), THREADS_ROLE_MAIN);
    assert_int_equal(index, 0);
    assert_int_equal(threads_classify(&k, 21, &index), THREADS_ROLE_COMPUTE);
    assert_int_equal(index, 2);
    assert_int_equal(threads_classify(&k, 30, &index), THREADS_ROLE_SUITE_PROGRESS);
    assert_int_equal(index, -1);
    assert_int_equal(threads_classify(&k, 31, &index), THREADS_ROLE_WATCHDOG);
    assert_int_equal(threads_classify(&k, 11, &index), THREADS_ROLE_OTHER);
    assert_int_equal(threads_classify(&k, 40, &index), THREADS_ROLE_LIBRARY);
    assert_string_equal(threads_role_name(THREADS_ROLE_SUITE_PROGRESS), "suite_progress");
}

/* A thread that burns CPU until told to stop, for the live tests. */
static atomic_int spin_stop;
static _Atomic pid_t spin_tid;
static void *spin(void *arg)
{
    (void)arg;
    atomic_store(&spin_tid, (pid_t)syscall(SYS_gettid));
    while (!atomic_load(&spin_stop))
        ;
    return NULL;
}

static void test_list_and_probe_live(void **state)
{
    (void)state;
    pthread_t th;
    atomic_store(&spin_stop, 0);
    assert_int_equal(pthread_create(&th, NULL, spin, NULL), 0);
    while (atomic_load(&spin_tid) == 0)
        usleep(100);
    pid_t me = (pid_t)syscall(SYS_gettid), other = atomic_load(&spin_tid);
    threads_known k = {.main_tid = me,
                       .compute_tids = &me,
                       .compute_count = 1,
                       .before_init = &me,
                       .before_init_count = 1};
    threads_entry list[16];
    char err[256];
    int n = threads_list(&k, list, 16, err, sizeof err);
    assert_true(n >= 2);
    bool saw_main = false, saw_other = false;
    for (int i = 0; i < n; i++) {
        if (list[i].tid == me) {
            saw_main = list[i].role == THREADS_ROLE_MAIN && list[i].compute_index == 0;
            assert_true(CPU_COUNT(&list[i].allowed) >= 1);
            assert_true(strlen(list[i].cpus) > 0);
        }
        if (list[i].tid == other)
            saw_other = list[i].role == THREADS_ROLE_LIBRARY; /* appeared after "init" */
    }
    assert_true(saw_main);
    assert_true(saw_other);

    pid_t tids[2] = {me, other};
    threads_probe *p = threads_probe_open(tids, 2, err, sizeof err);
    assert_non_null(p);
    threads_sched a[2], b[2];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(threads_probe_read(p, a), 0);
    usleep(50000);
    assert_int_equal(threads_probe_read(p, b), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int64_t wall_ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    threads_sched sleeper = threads_sched_diff(&a[0], &b[0]);
    threads_sched spinner = threads_sched_diff(&a[1], &b[1]);
    /* the spinner ran (or waited for a CPU) for most of 50 ms; the sleeper
     * slept: a voluntary switch, little CPU */
    assert_true(spinner.cpu_ns + spinner.run_delay_ns > 20000000);
    assert_true(sleeper.vol_switches >= 1);
    assert_true(sleeper.cpu_ns < 20000000);
    /* CPU time is exact (the thread's clock), never more than the wall time */
    assert_true(spinner.cpu_ns <= wall_ns);
    assert_true(spinner.cpu_ns >= 0 && spinner.run_delay_ns >= 0);
    if (threads_probe_has_migrations(p))
        assert_true(spinner.migrations >= 0);
    atomic_store(&spin_stop, 1);
    assert_int_equal(pthread_join(th, NULL), 0);
    /* pthread_join returns when the kernel clears the thread's tid, a little
     * before it releases the task: wait (bounded) until its /proc entry has
     * gone, then an ended thread reads as unavailable, not as an error */
    char task_dir[64];
    snprintf(task_dir, sizeof task_dir, "/proc/self/task/%d", (int)other);
    for (int tries = 0; access(task_dir, F_OK) == 0 && tries < 5000; tries++)
        usleep(1000);
    assert_int_not_equal(access(task_dir, F_OK), 0);
    assert_int_equal(threads_probe_read(p, b), 0);
    assert_int_equal(b[1].cpu_ns, -1);
    threads_probe_close(p);
}

static void test_placement_refusals(void **state)
{
    (void)state;
    char err[1024];
    const int zero[] = {0}, one[] = {1}, both[] = {0, 1}, twice[] = {2, 2};
    threads_rank_place single[] = {{0, "n1", both, 2}};
    assert_int_equal(threads_check_placement(single, 1, false, err, sizeof err), -1);
    assert_non_null(strstr(err, "one-rank job"));

    /* Slurm task/affinity on fake nodes: both ranks on CPU 0 */
    threads_rank_place same[] = {{0, "n1", zero, 1}, {1, "n1", zero, 1}};
    assert_int_equal(threads_check_placement(same, 2, false, err, sizeof err), -1);
    assert_non_null(strstr(err, "ranks 0 and 1 of host n1 both compute on CPU 0"));
    /* ... which a computation that needs no CPU may do */
    assert_int_equal(threads_check_placement(same, 2, true, err, sizeof err), 0);

    /* the same CPU number on two hosts is two CPUs */
    threads_rank_place hosts[] = {{0, "n1", zero, 1}, {1, "n2", zero, 1}};
    assert_int_equal(threads_check_placement(hosts, 2, false, err, sizeof err), 0);

    /* overlapping, not equal, sets */
    threads_rank_place overlap[] = {{0, "n1", both, 2}, {1, "n1", one, 1}};
    assert_int_equal(threads_check_placement(overlap, 2, false, err, sizeof err), -1);
    assert_non_null(strstr(err, "CPU 1"));

    threads_rank_place disjoint[] = {{0, "n1", zero, 1}, {1, "n1", one, 1}};
    assert_int_equal(threads_check_placement(disjoint, 2, false, err, sizeof err), 0);

    /* a team larger than its CPUs: two threads on CPU 2, refused even when
     * ranks may share */
    threads_rank_place team[] = {{0, "n1", zero, 1}, {1, "n2", twice, 2}};
    assert_int_equal(threads_check_placement(team, 2, true, err, sizeof err), -1);
    assert_non_null(
        strstr(err, "rank 1 (host n2): compute threads 0 and 1 are both bound to CPU 2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_schedstat),
        cmocka_unit_test(test_parse_sched_and_status),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_cpu_lists),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_list_and_probe_live),
        cmocka_unit_test(test_placement_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
