/* The benchmark's own progress thread (progress.mode=thread): while a
 * measurement is active it keeps calling into the MPI library so a library
 * without its own progress thread still advances the collective. It calls
 * the library's own progress function where the plan found one
 * (MPIX_Stream_progress on the null stream), else MPI_Iprobe on a private
 * communicator, never touching the measured request, which the main
 * thread alone waits on (two threads must not complete one request).
 * Between measurements it sleeps on a condition variable so it steals no
 * cycles outside its core. */
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct progress_thread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_int active;
    atomic_int parked; /* the thread waits on `wake`: it polls no more */
    bool quit;
    int cpu;
    _Atomic pid_t tid; /* set by the thread itself */
    MPI_Comm comm;
    progress_poll_fn *poll; /* NULL: MPI_Iprobe on comm */
    int poll_argument;
    int error;
};

/* The lock and condition variable are the thread's own and valid: a
 * failing call is a bug, and the run stops on it rather than measure with
 * a thread in an unknown state. */
static void must(int rc, const char *call)
{
    if (rc == 0)
        return;
    fprintf(stderr, "bench_nbc: progress thread: %s: %s\n", call, strerror(rc));
    exit(1);
}

static void *progress_main(void *arg)
{
    progress_thread *pt = arg;
    atomic_store(&pt->tid, (pid_t)syscall(SYS_gettid));
    if (pt->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(pt->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            pt->error = MPI_ERR_OTHER;
    }
    for (;;) {
        must(pthread_mutex_lock(&pt->lock), "pthread_mutex_lock");
        atomic_store(&pt->parked, 1);
        while (!atomic_load(&pt->active) && !pt->quit)
            must(pthread_cond_wait(&pt->wake, &pt->lock), "pthread_cond_wait");
        atomic_store(&pt->parked, 0);
        bool quit = pt->quit;
        must(pthread_mutex_unlock(&pt->lock), "pthread_mutex_unlock");
        if (quit)
            return NULL;
        while (atomic_load_explicit(&pt->active, memory_order_relaxed)) {
            int flag;
            int err = pt->poll ? pt->poll(pt->poll_argument)
                               : MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, pt->comm, &flag,
                                            MPI_STATUS_IGNORE);
            if (err != MPI_SUCCESS)
                pt->error = err;
        }
    }
}

progress_thread *progress_thread_start(MPI_Comm comm, int cpu, progress_poll_fn *poll,
                                       int poll_argument, char *err, size_t errlen)
{
    int provided;
    if (MPI_Query_thread(&provided) != MPI_SUCCESS || provided < MPI_THREAD_MULTIPLE) {
        snprintf(err, errlen,
                 "progress.mode=thread needs MPI_THREAD_MULTIPLE, which this MPI "
                 "library did not provide");
        return NULL;
    }
    progress_thread *pt = calloc(1, sizeof *pt);
    if (!pt) {
        snprintf(err, errlen, "out of memory for the progress thread");
        return NULL;
    }
    pt->cpu = cpu;
    pt->poll = poll;
    pt->poll_argument = poll_argument;
    atomic_init(&pt->active, 0);
    atomic_init(&pt->parked, 0);
    if (MPI_Comm_dup(comm, &pt->comm) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Comm_dup failed for the progress thread");
        free(pt);
        return NULL;
    }
    int rc = pthread_mutex_init(&pt->lock, NULL);
    if (rc == 0)
        rc = pthread_cond_init(&pt->wake, NULL);
    if (rc == 0)
        rc = pthread_create(&pt->thread, NULL, progress_main, pt);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the progress thread: %s", strerror(rc));
        MPI_Comm_free(&pt->comm);
        free(pt);
        return NULL;
    }
    return pt;
}

pid_t progress_thread_tid(const progress_thread *pt)
{
    if (!pt)
        return 0;
    /* The thread records its id first thing; wait for it (microseconds). */
    pid_t tid;
    while ((tid = atomic_load(&((progress_thread *)pt)->tid)) == 0)
        sched_yield();
    return tid;
}

void progress_thread_activate(progress_thread *pt)
{
    must(pthread_mutex_lock(&pt->lock), "pthread_mutex_lock");
    atomic_store(&pt->active, 1);
    must(pthread_cond_signal(&pt->wake), "pthread_cond_signal");
    must(pthread_mutex_unlock(&pt->lock), "pthread_mutex_unlock");
}

/* Returns once the thread is parked, so the window barrier that follows
 * spins alone even where the thread shares its core (oversubscribed): a
 * thread still in its last poll would take the core across the deadline.
 * It finishes that poll in microseconds; the caller yields meanwhile. */
void progress_thread_deactivate(progress_thread *pt)
{
    atomic_store(&pt->active, 0);
    while (!atomic_load(&pt->parked))
        sched_yield();
}

int progress_thread_stop(progress_thread *pt)
{
    if (!pt)
        return MPI_SUCCESS;
    must(pthread_mutex_lock(&pt->lock), "pthread_mutex_lock");
    pt->quit = true;
    atomic_store(&pt->active, 0);
    must(pthread_cond_signal(&pt->wake), "pthread_cond_signal");
    must(pthread_mutex_unlock(&pt->lock), "pthread_mutex_unlock");
    int rc = pthread_join(pt->thread, NULL);
    int err = pt->error;
    if ((pthread_cond_destroy(&pt->wake) != 0 || pthread_mutex_destroy(&pt->lock) != 0) &&
        err == MPI_SUCCESS)
        err = MPI_ERR_OTHER;
    if (MPI_Comm_free(&pt->comm) != MPI_SUCCESS && err == MPI_SUCCESS)
        err = MPI_ERR_OTHER;
    free(pt);
    return rc != 0 ? MPI_ERR_OTHER : err;
}
