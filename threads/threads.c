/* threads: /proc/self/task read and parsed (threads.h). */
#include "threads/threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const role_names[THREADS_ROLE_COUNT] = {
    [THREADS_ROLE_MAIN] = "main",
    [THREADS_ROLE_COMPUTE] = "compute",
    [THREADS_ROLE_SUITE_PROGRESS] = "suite_progress",
    [THREADS_ROLE_WATCHDOG] = "watchdog",
    [THREADS_ROLE_LIBRARY] = "library",
    [THREADS_ROLE_OTHER] = "other",
};

const char *threads_role_name(threads_role role)
{
    return role >= 0 && role < THREADS_ROLE_COUNT ? role_names[role] : "unknown";
}

static bool among(pid_t tid, const pid_t *tids, int count)
{
    for (int i = 0; tids && i < count; i++)
        if (tids[i] == tid)
            return true;
    return false;
}

threads_role threads_classify(const threads_known *known, pid_t tid, int *compute_index)
{
    *compute_index = -1;
    for (int i = 0; known->compute_tids && i < known->compute_count; i++)
        if (known->compute_tids[i] == tid)
            *compute_index = i;
    if (tid == known->main_tid)
        return THREADS_ROLE_MAIN;
    if (*compute_index >= 0)
        return THREADS_ROLE_COMPUTE;
    if (tid == known->suite_progress_tid)
        return THREADS_ROLE_SUITE_PROGRESS;
    if (tid == known->watchdog_tid)
        return THREADS_ROLE_WATCHDOG;
    return among(tid, known->before_init, known->before_init_count) ? THREADS_ROLE_OTHER
                                                                    : THREADS_ROLE_LIBRARY;
}

int threads_tids(pid_t *tids, int capacity)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < capacity;)
        if (e->d_name[0] != '.')
            tids[n++] = (pid_t)atoi(e->d_name);
    closedir(d);
    return n;
}

/* The whole of a small /proc file into buf (NUL-terminated); its length, or
 * -1 when it cannot be read. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

void threads_name(pid_t tid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    if (read_small(path, buf, len) < 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

void threads_cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int w = last > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, last)
                         : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        used += w > 0 ? (size_t)w : 0;
        c = last;
    }
}

int threads_parse_cpu_list(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p && *p != '\n') {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || errno || lo < 0)
            return -1;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || errno || hi < lo)
                return -1;
            p = end;
        }
        if (hi >= CPU_SETSIZE)
            return -1;
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return -1;
    }
    return 0;
}

void threads_allowed_text(pid_t tid, char *buf, size_t len)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) != 0)
        snprintf(buf, len, "unknown");
    else
        threads_cpu_list(&set, buf, len);
}

int threads_list(const threads_known *known, threads_entry *out, int capacity, char *err,
                 size_t errlen)
{
    pid_t *tids = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof *tids);
    if (!tids) {
        snprintf(err, errlen, "out of memory listing threads");
        return -1;
    }
    int n = threads_tids(tids, capacity);
    if (n < 0)
        snprintf(err, errlen, "cannot read /proc/self/task: %s", strerror(errno));
    for (int i = 0; i < n; i++) {
        threads_entry *e = &out[i];
        *e = (threads_entry){.tid = tids[i]};
        e->role = threads_classify(known, tids[i], &e->compute_index);
        threads_name(tids[i], e->name, sizeof e->name);
        CPU_ZERO(&e->allowed);
        if (sched_getaffinity(tids[i], sizeof e->allowed, &e->allowed) == 0)
            threads_cpu_list(&e->allowed, e->cpus, sizeof e->cpus);
        else
            snprintf(e->cpus, sizeof e->cpus, "unknown");
    }
    free(tids);
    return n;
}

/* ---- Scheduler counters ---------------------------------------------- */

int threads_parse_schedstat(const char *text, threads_sched *s)
{
    long long cpu, delay;
    if (sscanf(text, "%lld %lld", &cpu, &delay) != 2 || cpu < 0 || delay < 0)
        return -1;
    s->cpu_ns = cpu;
    s->run_delay_ns = delay;
    return 0;
}

/* The integer after `key` and its separator (spaces, tabs, ':'), where `key`
 * starts a line; -1 when absent. */
static int64_t keyed_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, key, klen) != 0)
            continue;
        const char *v = line + klen;
        if (*v != ' ' && *v != '\t' && *v != ':')
            continue;
        v += strspn(v, " \t:");
        char *end;
        long long value = strtoll(v, &end, 10);
        if (end != v && value >= 0)
            return value;
    }
    return -1;
}

int threads_parse_sched(const char *text, threads_sched *s)
{
    int64_t migrations = keyed_value(text, "se.nr_migrations");
    int64_t vol = keyed_value(text, "nr_voluntary_switches");
    int64_t invol = keyed_value(text, "nr_involuntary_switches");
    if (migrations < 0 || vol < 0 || invol < 0)
        return -1;
    s->migrations = migrations;
    s->vol_switches = vol;
    s->invol_switches = invol;
    return 0;
}

int threads_parse_status(const char *text, threads_sched *s)
{
    int64_t vol = keyed_value(text, "voluntary_ctxt_switches");
    int64_t invol = keyed_value(text, "nonvoluntary_ctxt_switches");
    if (vol < 0 || invol < 0)
        return -1;
    s->vol_switches = vol;
    s->invol_switches = invol;
    return 0;
}

static int64_t counter_diff(int64_t a, int64_t b)
{
    return a < 0 || b < 0 ? -1 : b - a;
}

threads_sched threads_sched_diff(const threads_sched *a, const threads_sched *b)
{
    return (threads_sched){
        .cpu_ns = counter_diff(a->cpu_ns, b->cpu_ns),
        .run_delay_ns = counter_diff(a->run_delay_ns, b->run_delay_ns),
        .vol_switches = counter_diff(a->vol_switches, b->vol_switches),
        .invol_switches = counter_diff(a->invol_switches, b->invol_switches),
        .migrations = counter_diff(a->migrations, b->migrations),
    };
}

int64_t threads_cpu_ns(pid_t tid)
{
    /* The CPU clock of a thread of this process, as glibc's
     * pthread_getcpuclockid makes it: (~tid << 3) | CPUCLOCK_PERTHREAD |
     * CPUCLOCK_SCHED. */
    clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 4 | 2);
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One thread's open files. */
typedef struct probe_thread {
    pid_t tid;
    int schedstat_fd;
    int sched_fd;  /* /proc/self/task/T/sched, or -1 */
    int status_fd; /* only where there is no sched file */
} probe_thread;

struct threads_probe {
    int count;
    bool has_migrations;
    probe_thread *threads;
};

static int open_task_file(pid_t tid, const char *file)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, file);
    return open(path, O_RDONLY | O_CLOEXEC);
}

threads_probe *threads_probe_open(const pid_t *tids, int count, char *err, size_t errlen)
{
    threads_probe *p = calloc(1, sizeof *p);
    if (p)
        p->threads = calloc((size_t)(count > 0 ? count : 1), sizeof *p->threads);
    if (!p || !p->threads) {
        free(p);
        snprintf(err, errlen, "out of memory for the thread probe");
        return NULL;
    }
    p->has_migrations = true;
    for (int i = 0; i < count; i++) {
        probe_thread *t = &p->threads[p->count++];
        *t = (probe_thread){.tid = tids[i], .sched_fd = -1, .status_fd = -1};
        t->schedstat_fd = open_task_file(tids[i], "schedstat");
        t->sched_fd = open_task_file(tids[i], "sched");
        if (t->sched_fd < 0) {
            p->has_migrations = false;
            t->status_fd = open_task_file(tids[i], "status");
        }
        if (t->schedstat_fd < 0 || (t->sched_fd < 0 && t->status_fd < 0)) {
            snprintf(err, errlen, "cannot open /proc/self/task/%d/%s: %s", (int)tids[i],
                     t->schedstat_fd < 0 ? "schedstat" : "status", strerror(errno));
            threads_probe_close(p);
            return NULL;
        }
    }
    return p;
}

int threads_probe_count(const threads_probe *p)
{
    return p ? p->count : 0;
}

pid_t threads_probe_tid(const threads_probe *p, int i)
{
    return p->threads[i].tid;
}

bool threads_probe_has_migrations(const threads_probe *p)
{
    return p && p->has_migrations;
}

/* pread of a whole /proc file: -1 when the thread has gone (ESRCH). */
static ssize_t pread_all(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

int threads_probe_read(threads_probe *p, threads_sched *out)
{
    /* sched holds ~2 kB of text; status ~1.5 kB */
    char buf[4096];
    int rc = 0;
    for (int i = 0; i < p->count; i++) {
        probe_thread *t = &p->threads[i];
        threads_sched *s = &out[i];
        *s = (threads_sched){-1, -1, -1, -1, -1};
        if (pread_all(t->schedstat_fd, buf, sizeof buf) <= 0)
            continue; /* the thread ended */
        rc |= threads_parse_schedstat(buf, s);
        /* schedstat's field 1 lags for a thread that is running (it is
         * brought up to date at scheduler events); the thread's CPU clock
         * is exact. */
        int64_t cpu_ns = threads_cpu_ns(t->tid);
        if (cpu_ns >= 0)
            s->cpu_ns = cpu_ns;
        if (t->sched_fd >= 0) {
            if (pread_all(t->sched_fd, buf, sizeof buf) > 0)
                rc |= threads_parse_sched(buf, s);
        } else if (pread_all(t->status_fd, buf, sizeof buf) > 0) {
            rc |= threads_parse_status(buf, s);
        }
    }
    return rc;
}

int64_t threads_probe_run_delay_ns(threads_probe *p, int i)
{
    char buf[256];
    threads_sched s = {-1, -1, -1, -1, -1};
    if (i < 0 || i >= p->count || pread_all(p->threads[i].schedstat_fd, buf, sizeof buf) <= 0 ||
        threads_parse_schedstat(buf, &s) != 0)
        return -1;
    return s.run_delay_ns;
}

void threads_probe_close(threads_probe *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->count; i++) {
        probe_thread *t = &p->threads[i];
        const int fds[] = {t->schedstat_fd, t->sched_fd, t->status_fd};
        for (size_t k = 0; k < ARRAY_SIZE(fds); k++)
            if (fds[k] >= 0)
                close(fds[k]);
    }
    free(p->threads);
    free(p);
}

/* ---- Degenerate placements ------------------------------------------- */

int threads_check_placement(const threads_rank_place *ranks, int count, bool may_share, char *err,
                            size_t errlen)
{
    if (count == 1) {
        snprintf(err, errlen,
                 "a one-rank job (rank 0 on host %s): a collective on one rank moves nothing, "
                 "so no communication target can be reached and every cell would be invalid; "
                 "run at least 2 ranks (mpiexec -n 2, one per node or one per core slice)",
                 ranks[0].host);
        return -1;
    }
    for (int r = 0; r < count; r++) {
        const threads_rank_place *a = &ranks[r];
        for (int i = 0; i < a->compute_count; i++)
            for (int j = i + 1; j < a->compute_count; j++)
                if (a->compute_cpus[i] >= 0 && a->compute_cpus[i] == a->compute_cpus[j]) {
                    snprintf(err, errlen,
                             "rank %d (host %s): compute threads %d and %d are both bound to "
                             "CPU %d: the team (%d threads) is larger than the CPUs the rank "
                             "may use; lower run.threads or give the rank more cores",
                             a->rank, a->host, i, j, a->compute_cpus[i], a->compute_count);
                    return -1;
                }
    }
    if (may_share)
        return 0;
    for (int r = 0; r < count; r++)
        for (int q = r + 1; q < count; q++) {
            const threads_rank_place *a = &ranks[r], *b = &ranks[q];
            if (strcmp(a->host, b->host) != 0)
                continue;
            for (int i = 0; i < a->compute_count; i++)
                for (int j = 0; j < b->compute_count; j++)
                    if (a->compute_cpus[i] >= 0 && a->compute_cpus[i] == b->compute_cpus[j]) {
                        snprintf(err, errlen,
                                 "ranks %d and %d of host %s both compute on CPU %d: two ranks "
                                 "bound to one CPU measure their sharing, not the library (a "
                                 "launcher's binding such as Slurm's task/affinity, taskset or "
                                 "-bind-to gave them overlapping CPU sets); bind each rank to "
                                 "its own cores, or launch without a binding and bench_nbc "
                                 "gives each rank a slice of the host",
                                 a->rank, b->rank, a->host, a->compute_cpus[i]);
                        return -1;
                    }
        }
    return 0;
}
