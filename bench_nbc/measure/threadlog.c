/* Where every thread of a rank runs and what the scheduler did to the ones
 * that matter (DESIGN.md, "a deployment is defined by where every thread
 * runs"): the thread list of meta.json at the start and end of the run,
 * and sched.csv, the scheduler's counters of the computing and progress
 * threads over each attempt of the sweep (docs/formats.md). The /proc work
 * is threads/threads.h's; this file knows the run. */
#include "bench_nbc/errors.h"
#include "bench_nbc/library/library.h"
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "threads/threads.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MAX_THREADS = 512 };

/* One thread's counters over one attempt, until its cell is written. */
typedef struct sched_row {
    int64_t seq;
    int block, attempt;
    nbc_kind kind;
    threads_role role;
    int thread; /* compute index, else the thread's place among its role */
    pid_t tid;
    int64_t window_ns;
    threads_sched delta;
} sched_row;

struct nbc_threads {
    pid_t before_init[MAX_THREADS];
    int before_init_count;
    pid_t noted[MAX_THREADS]; /* nbc_threads_note_existing */
    int noted_count;
    pid_t main_tid, suite_tid, watchdog_tid;
    pid_t compute[COMPUTE_MAX_CPUS];
    int compute_count;
    /* the probed threads (computing, progress, library) and their roles */
    threads_probe *probe;
    threads_role *roles;
    int *indices;
    bool *on_main_cpus; /* its allowed CPUs meet the main thread's (unknown: true) */
    threads_sched *before;
    threads_sched *after;
    int64_t before_ns;
    /* the main thread's place in the probe (-1: not probed) and its
     * run-queue delay read just before t1 (-1: not read) */
    int main_index;
    int64_t at_t1_run_delay_ns;
    /* the passive step's readings, apart from the sweep's attempt */
    threads_sched *step_before;
    threads_sched *step_after;
    int64_t step_before_ns;
    bool step_armed;
    bool recording, armed;
    sched_row *rows;
    size_t row_count, row_capacity;
    /* the snapshots' own cost */
    int64_t snapshot_ns_total, snapshot_ns_max, snapshots;
};

nbc_threads *nbc_threads_create(void)
{
    nbc_threads *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->main_tid = (pid_t)syscall(SYS_gettid);
    t->main_index = -1;
    t->at_t1_run_delay_ns = -1;
    int n = threads_tids(t->before_init, MAX_THREADS);
    t->before_init_count = n > 0 ? n : 0;
    return t;
}

void nbc_threads_register(nbc_threads *t, const compute_team *team, pid_t suite_tid,
                          pid_t watchdog_tid)
{
    t->compute_count = team ? compute_team_threads(team) : 0;
    for (int i = 0; i < t->compute_count; i++)
        t->compute[i] = (pid_t)compute_team_tid(team, i);
    t->suite_tid = suite_tid;
    t->watchdog_tid = watchdog_tid;
}

void nbc_threads_note_existing(nbc_threads *t)
{
    int n = threads_tids(t->noted, MAX_THREADS);
    t->noted_count = n > 0 ? n : 0;
}

pid_t nbc_threads_newest(const nbc_threads *t)
{
    pid_t now[MAX_THREADS];
    int n = threads_tids(now, MAX_THREADS);
    for (int i = 0; i < n; i++) {
        bool old = false;
        for (int j = 0; j < t->noted_count && !old; j++)
            old = now[i] == t->noted[j];
        if (!old)
            return now[i];
    }
    return 0;
}

static threads_known known_of(const nbc_threads *t)
{
    return (threads_known){
        .before_init = t->before_init,
        .before_init_count = t->before_init_count,
        .main_tid = t->main_tid,
        .compute_tids = t->compute,
        .compute_count = t->compute_count,
        .suite_progress_tid = t->suite_tid,
        .watchdog_tid = t->watchdog_tid,
    };
}

/* The roles whose counters sched.csv holds: the threads that compute and
 * those that may drive progress. */
static bool probed(threads_role role)
{
    return role == THREADS_ROLE_MAIN || role == THREADS_ROLE_COMPUTE ||
           role == THREADS_ROLE_SUITE_PROGRESS || role == THREADS_ROLE_LIBRARY;
}

json_object *nbc_threads_rank_json(const nbc_threads *t, int rank, const char *host)
{
    static threads_entry list[MAX_THREADS];
    char err[256];
    threads_known known = known_of(t);
    int n = threads_list(&known, list, MAX_THREADS, err, sizeof err);
    json_object *o = json_object_new_object(), *threads = json_object_new_array();
    json_object_object_add(o, "rank", json_object_new_int(rank));
    json_object_object_add(o, "host", json_object_new_string(host));
    if (n < 0)
        json_object_object_add(o, "error", json_object_new_string(err));
    for (int i = 0; i < n; i++) {
        const threads_entry *e = &list[i];
        json_object *one = json_object_new_object(), *cpus = json_object_new_array();
        json_object_object_add(one, "tid", json_object_new_int(e->tid));
        json_object_object_add(one, "name", json_object_new_string(e->name));
        json_object_object_add(one, "role", json_object_new_string(threads_role_name(e->role)));
        if (e->compute_index >= 0)
            json_object_object_add(one, "compute_index", json_object_new_int(e->compute_index));
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &e->allowed))
                json_object_array_add(cpus, json_object_new_int(c));
        json_object_object_add(one, "cpus", cpus);
        json_object_object_add(one, "cpu_list", json_object_new_string(e->cpus));
        json_object_array_add(threads, one);
    }
    json_object_object_add(o, "threads", threads);
    return o;
}

static void close_probe(nbc_threads *t)
{
    threads_probe_close(t->probe);
    t->probe = NULL;
    free(t->roles);
    free(t->indices);
    free(t->on_main_cpus);
    free(t->before);
    free(t->after);
    free(t->step_before);
    free(t->step_after);
    t->roles = NULL;
    t->indices = NULL;
    t->on_main_cpus = NULL;
    t->before = t->after = NULL;
    t->step_before = t->step_after = NULL;
    t->step_armed = false;
    t->main_index = -1;
}

/* Opens the probe on the threads that are there now. */
static int open_probe(nbc_threads *t, char *err, size_t errlen)
{
    static threads_entry list[MAX_THREADS];
    threads_known known = known_of(t);
    int n = threads_list(&known, list, MAX_THREADS, err, errlen);
    if (n < 0)
        return -1;
    close_probe(t);
    pid_t tids[MAX_THREADS];
    int count = 0, per_role[THREADS_ROLE_COUNT] = {0};
    t->roles = calloc((size_t)n + 1, sizeof *t->roles);
    t->indices = calloc((size_t)n + 1, sizeof *t->indices);
    t->before = calloc((size_t)n + 1, sizeof *t->before);
    t->after = calloc((size_t)n + 1, sizeof *t->after);
    t->step_before = calloc((size_t)n + 1, sizeof *t->step_before);
    t->step_after = calloc((size_t)n + 1, sizeof *t->step_after);
    t->on_main_cpus = calloc((size_t)n + 1, sizeof *t->on_main_cpus);
    if (!t->roles || !t->indices || !t->before || !t->after || !t->step_before || !t->step_after ||
        !t->on_main_cpus) {
        close_probe(t);
        snprintf(err, errlen, "out of memory for the thread probe");
        return -1;
    }
    const cpu_set_t *main_cpus = NULL;
    for (int i = 0; i < n; i++)
        if (list[i].role == THREADS_ROLE_MAIN && CPU_COUNT(&list[i].allowed) > 0)
            main_cpus = &list[i].allowed;
    for (int i = 0; i < n; i++) {
        if (!probed(list[i].role))
            continue;
        if (list[i].role == THREADS_ROLE_MAIN)
            t->main_index = count;
        cpu_set_t both;
        if (main_cpus && CPU_COUNT(&list[i].allowed) > 0)
            CPU_AND(&both, main_cpus, &list[i].allowed);
        t->on_main_cpus[count] =
            !main_cpus || CPU_COUNT(&list[i].allowed) == 0 || CPU_COUNT(&both) > 0;
        t->roles[count] = list[i].role;
        t->indices[count] =
            list[i].compute_index >= 0 ? list[i].compute_index : per_role[list[i].role]++;
        tids[count++] = list[i].tid;
    }
    t->probe = threads_probe_open(tids, count, err, errlen);
    return t->probe ? 0 : -1;
}

int nbc_threads_start_recording(nbc_threads *t, char *err, size_t errlen)
{
    if (open_probe(t, err, errlen) != 0)
        return -1;
    t->recording = true;
    return 0;
}

void nbc_threads_stop_recording(nbc_threads *t)
{
    if (t)
        t->recording = false;
}

/* One read of every probed thread's counters; its cost is recorded. */
static void snapshot(nbc_threads *t, threads_sched *into, int64_t *at_ns)
{
    int64_t start = clocksync_monotonic_ns();
    (void)threads_probe_read(t->probe, into);
    int64_t end = clocksync_monotonic_ns();
    *at_ns = end;
    t->snapshot_ns_total += end - start;
    t->snapshot_ns_max = end - start > t->snapshot_ns_max ? end - start : t->snapshot_ns_max;
    t->snapshots++;
}

void nbc_threads_before_attempt(nbc_threads *t)
{
    if (!t || !t->recording || !t->probe)
        return;
    snapshot(t, t->before, &t->before_ns);
    t->at_t1_run_delay_ns = -1;
    t->armed = true;
}

void nbc_threads_at_t1(nbc_threads *t)
{
    if (t && t->armed && t->main_index >= 0)
        t->at_t1_run_delay_ns = threads_probe_run_delay_ns(t->probe, t->main_index);
}

int64_t nbc_threads_foreign_wait_ns(const nbc_threads *t)
{
    if (!t || !t->probe || t->main_index < 0 || t->at_t1_run_delay_ns < 0 ||
        t->after[t->main_index].run_delay_ns < 0)
        return -1;
    int64_t wait = t->after[t->main_index].run_delay_ns - t->at_t1_run_delay_ns;
    /* A progress thread taking its turn on a core it shares with the
     * computation is the deployment measured, not a foreign process: the
     * CPU time over the attempt of those allowed on the main thread's CPUs
     * is never counted (one on a core of its own cannot delay it). */
    for (int i = 0; i < threads_probe_count(t->probe); i++) {
        if ((t->roles[i] != THREADS_ROLE_SUITE_PROGRESS && t->roles[i] != THREADS_ROLE_LIBRARY) ||
            !t->on_main_cpus[i])
            continue;
        int64_t cpu = t->after[i].cpu_ns >= 0 && t->before[i].cpu_ns >= 0
                          ? t->after[i].cpu_ns - t->before[i].cpu_ns
                          : 0; /* a thread that ended in the attempt ran no more in it */
        wait -= cpu > 0 ? cpu : 0;
    }
    return wait > 0 ? wait : 0;
}

int nbc_threads_after_attempt(nbc_threads *t, const nbc_attempt *a)
{
    if (!t || !t->armed)
        return MPI_SUCCESS;
    t->armed = false;
    int64_t after_ns;
    snapshot(t, t->after, &after_ns);
    int n = threads_probe_count(t->probe);
    if (t->row_count + (size_t)n > t->row_capacity) {
        size_t capacity = 2 * (t->row_count + (size_t)n) + 64;
        sched_row *rows = realloc(t->rows, capacity * sizeof *rows);
        if (!rows)
            return MPI_ERR_NO_MEM;
        t->rows = rows;
        t->row_capacity = capacity;
    }
    for (int i = 0; i < n; i++)
        t->rows[t->row_count++] = (sched_row){
            .seq = a->seq,
            .block = a->block,
            .attempt = a->attempt,
            .kind = a->kind,
            .role = t->roles[i],
            .thread = t->indices[i],
            .tid = threads_probe_tid(t->probe, i),
            .window_ns = after_ns - t->before_ns,
            .delta = threads_sched_diff(&t->before[i], &t->after[i]),
        };
    return MPI_SUCCESS;
}

int nbc_threads_open_step_probe(nbc_threads *t, char *err, size_t errlen)
{
    if (!t) {
        snprintf(err, errlen, "no thread record");
        return -1;
    }
    /* The sweep's probe (and its armed attempt) stay as they are while it
     * records; else the probe opens on the threads there now, those the
     * library started since included. */
    if (t->recording || t->armed)
        return t->probe ? 0 : (snprintf(err, errlen, "the sweep's thread probe is not open"), -1);
    return open_probe(t, err, errlen);
}

void nbc_threads_before_step(nbc_threads *t)
{
    if (!t || !t->probe || !t->step_before)
        return;
    t->step_armed = threads_probe_read(t->probe, t->step_before) == 0;
    t->step_before_ns = clocksync_monotonic_ns();
}

nbc_step_sched nbc_threads_after_step(nbc_threads *t)
{
    nbc_step_sched s = {-1, -1, -1, -1};
    if (!t || !t->step_armed)
        return s;
    t->step_armed = false;
    int64_t end_ns = clocksync_monotonic_ns();
    if (threads_probe_read(t->probe, t->step_after) != 0)
        return s;
    nbc_step_sched sum = {.window_ns = end_ns - t->step_before_ns};
    bool computing_read = true;
    for (int i = 0; i < threads_probe_count(t->probe); i++) {
        threads_sched d = threads_sched_diff(&t->step_before[i], &t->step_after[i]);
        switch (t->roles[i]) {
        case THREADS_ROLE_MAIN:
        case THREADS_ROLE_COMPUTE:
            computing_read = computing_read && d.cpu_ns >= 0 && d.run_delay_ns >= 0;
            sum.compute_cpu_ns += d.cpu_ns;
            sum.compute_run_delay_ns += d.run_delay_ns;
            break;
        case THREADS_ROLE_SUITE_PROGRESS:
        case THREADS_ROLE_LIBRARY:
            /* a library thread that ended in the window ran no more in it */
            sum.progress_cpu_ns += d.cpu_ns > 0 ? d.cpu_ns : 0;
            break;
        default:
            break;
        }
    }
    if (!computing_read)
        sum.compute_cpu_ns = sum.compute_run_delay_ns = -1;
    return sum;
}

/* Fields of a row as gathered: seq, block, kind, attempt, role, thread,
 * tid, window, the five counters. */
enum { FIELDS = 13 };

static void row_ints(const sched_row *r, int64_t *v)
{
    const int64_t fields[FIELDS] = {
        r->seq,
        r->block,
        r->kind,
        r->attempt,
        r->role,
        r->thread,
        r->tid,
        r->window_ns,
        r->delta.cpu_ns,
        r->delta.run_delay_ns,
        r->delta.vol_switches,
        r->delta.invol_switches,
        r->delta.migrations,
    };
    memcpy(v, fields, sizeof fields);
}

/* Whether row i of t->rows is an attempt of `log`: rows and log both follow
 * the attempts' order (seq ascending), so one cursor *a into the log walks
 * with i; the rows of cells still being visited are among them. */
static bool row_of_log(const nbc_threads *t, size_t i, const nbc_attempt_log *log, size_t *a)
{
    while (*a < log->count && log->items[*a].seq < t->rows[i].seq)
        (*a)++;
    return *a < log->count && log->items[*a].seq == t->rows[i].seq;
}

/* The cell's rows as integers into mine (count of them) and the others
 * kept in t->rows, in order. */
static void take_cell_rows(nbc_threads *t, const nbc_attempt_log *log, int64_t *mine)
{
    size_t a = 0, taken = 0, kept = 0;
    for (size_t i = 0; i < t->row_count; i++) {
        if (row_of_log(t, i, log, &a))
            row_ints(&t->rows[i], &mine[taken++ * FIELDS]);
        else
            t->rows[kept++] = t->rows[i];
    }
    t->row_count = kept;
}

int nbc_threads_write_cell(nbc_run *run, nbc_threads *t, size_t cell, const nbc_attempt_log *log)
{
    int count = 0;
    for (size_t i = 0, a = 0; t && i < t->row_count; i++)
        count += row_of_log(t, i, log, &a);
    int64_t *mine = malloc(((size_t)count * FIELDS + 1) * sizeof *mine);
    int *counts = run->rank == 0 ? calloc((size_t)run->ranks, sizeof *counts) : NULL;
    int *offsets = run->rank == 0 ? calloc((size_t)run->ranks, sizeof *offsets) : NULL;
    int failed = !mine || (run->rank == 0 && (!counts || !offsets)), any_failed;
    int rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc == MPI_SUCCESS && any_failed)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && t) /* the rows written leave the buffer */
        take_cell_rows(t, log, mine);
    int mine_len = count * FIELDS;
    if (rc == MPI_SUCCESS)
        rc = MPI_Gather(&mine_len, 1, MPI_INT, counts, 1, MPI_INT, 0, run->comm);
    size_t total = 0;
    for (int r = 0; rc == MPI_SUCCESS && counts && r < run->ranks; r++) {
        offsets[r] = (int)total;
        total += (size_t)counts[r];
    }
    int64_t *all = run->rank == 0 ? malloc((total + 1) * sizeof *all) : NULL;
    failed = run->rank == 0 && !all;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, run->comm);
    if (rc == MPI_SUCCESS && any_failed)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Gatherv(mine, mine_len, MPI_INT64_T, all, counts, offsets, MPI_INT64_T, 0,
                         run->comm);
    FILE *f = rc == MPI_SUCCESS && run->rank == 0 ? run_output_file(run->out, OUT_SCHED) : NULL;
    if (rc == MPI_SUCCESS && run->rank == 0 && !f)
        rc = MPI_ERR_IO;
    for (int r = 0; f && r < run->ranks; r++)
        for (int i = 0; i < counts[r] / FIELDS; i++) {
            const int64_t *v = &all[offsets[r] + i * FIELDS];
            if (fprintf(f,
                        "%zu,%" PRId64 ",%s,%" PRId64 ",%" PRId64 ",%d,%s,%" PRId64 ",%" PRId64
                        ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                        "\n",
                        cell, v[1], nbc_kind_names[v[2]], v[3], v[0], r,
                        threads_role_name((threads_role)v[4]), v[5], v[6], v[7], v[8], v[9], v[10],
                        v[11], v[12]) < 0)
                rc = MPI_ERR_IO;
        }

    free(mine);
    free(counts);
    free(offsets);
    free(all);
    /* Threads the library started since (a lazily created progress or
     * network thread) are probed from the next cell on. */
    char err[256];
    if (rc == MPI_SUCCESS && t && t->recording && open_probe(t, err, sizeof err) != 0) {
        fprintf(stderr, "bench_nbc: rank %d: %s\n", run->rank, err);
        rc = MPI_ERR_OTHER;
    }
    return rc;
}

json_object *nbc_threads_cost_json(const nbc_threads *t)
{
    json_object *o = json_object_new_object();
    int probed_now = threads_probe_count(t->probe);
    json_object_object_add(o, "threads_probed", json_object_new_int(probed_now));
    json_object_object_add(o, "snapshots", json_object_new_int64(t->snapshots));
    json_object_object_add(
        o, "mean_ns",
        t->snapshots ? json_object_new_double((double)t->snapshot_ns_total / (double)t->snapshots)
                     : NULL);
    json_object_object_add(o, "max_ns", json_object_new_int64(t->snapshot_ns_max));
    json_object_object_add(o, "migrations_available",
                           json_object_new_boolean(threads_probe_has_migrations(t->probe)));
    return o;
}

void nbc_threads_free(nbc_threads *t)
{
    if (!t)
        return;
    close_probe(t);
    free(t->rows);
    free(t);
}

void nbc_threads_check_placement(nbc_run *run, const char *host, bool may_share)
{
    /* What every rank tells the others: its host and its team's CPUs. */
    typedef struct rank_row {
        char host[256];
        int count;
        int cpus[COMPUTE_MAX_CPUS];
    } rank_row;
    rank_row *mine = calloc(1, sizeof *mine), *all = calloc((size_t)run->ranks, sizeof *all);
    threads_rank_place *places = calloc((size_t)run->ranks, sizeof *places);
    nbc_exit_if_any_failed(!mine || !all || !places, "out of memory checking the placement", 1);
    snprintf(mine->host, sizeof mine->host, "%s", host);
    mine->count = compute_team_threads(run->team);
    for (int i = 0; i < mine->count; i++)
        mine->cpus[i] = compute_team_cpu(run->team, i);
    NBC_CHECK_MPI(
        MPI_Allgather(mine, sizeof *mine, MPI_BYTE, all, sizeof *mine, MPI_BYTE, run->comm));
    for (int r = 0; r < run->ranks; r++) {
        all[r].host[sizeof all[r].host - 1] = '\0';
        places[r] = (threads_rank_place){.rank = r,
                                         .host = all[r].host,
                                         .compute_cpus = all[r].cpus,
                                         .compute_count = all[r].count};
    }
    /* Every rank decides on the same table: the same verdict everywhere. */
    char err[1024];
    bool bad = threads_check_placement(places, run->ranks, may_share, err, sizeof err) != 0;
    free(mine);
    free(all);
    free(places);
    nbc_exit_if_any_failed(bad, err, 2);
}
