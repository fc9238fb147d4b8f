/* The launch command: the one place that turns a profile's [launcher] keys
 * and a placement into the words that start processes (mpiexec and its
 * flags, or srun), and the one place in C that shows a word to a shell.
 * nbc-run asks for it through `nbc-profile launch`, bench_nbc --replay
 * calls it for replay.sh. */
#include "mpiprofile/mpiprofile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mpiexec's process count: the MPI standard's (MPI-4.0 section 11.5.1), the
 * same for every library. */
#define MPIEXEC_COUNT "-n"
/* srun's PMI plugin when the profile names none: the one every srun has. */
#define SRUN_DEFAULT_PLUGIN "pmi2"

/* Characters a POSIX shell reads as part of a plain word. */
static const char shell_plain[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,@%+-";

int mpiprofile_shell_word(FILE *out, const char *word)
{
    if (*word != '\0' && strspn(word, shell_plain) == strlen(word))
        return fputs(word, out) == EOF ? -1 : 0;
    int rc = fputc('\'', out) == EOF ? -1 : 0;
    for (const char *c = word; *c && rc == 0; c++)
        rc = (*c == '\'' ? fputs("'\\''", out) : fputc(*c, out)) == EOF ? -1 : 0;
    return rc == 0 && fputc('\'', out) != EOF ? 0 : -1;
}

/* Appends a formatted word (printf). */
static int add(mpiprofile_list *words, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(mpiprofile_list *words, const char *fmt, ...)
{
    char *word = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&word, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    int rc = mpiprofile_list_add(words, word);
    free(word);
    return rc;
}

static int add_all(mpiprofile_list *words, const mpiprofile_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        if (mpiprofile_list_add(words, list->items[i]) != 0)
            return -1;
    return 0;
}

/* srun for one step: Slurm's own options, the same for every library; the
 * profile gives the PMI plugin of MPI processes only. */
static int srun_words(const mpiprofile *p, const mpiprofile_placement *pl, mpiprofile_list *w)
{
    int rc = add(w, "srun");
    if (pl->nodes > 0)
        rc |= add(w, "--nodes=%d", pl->nodes);
    rc |= add(w, "--ntasks=%d", pl->processes);
    if (pl->per_node > 0)
        rc |= add(w, "--ntasks-per-node=%d", pl->per_node);
    if (pl->cpus_per_task && *pl->cpus_per_task)
        rc |= add(w, "--cpus-per-task=%s", pl->cpus_per_task);
    if (!pl->not_mpi)
        rc |= add(w, "--mpi=%s", p->launcher.srun_mpi ? p->launcher.srun_mpi : SRUN_DEFAULT_PLUGIN);
    return rc;
}

/* The profile's launcher: its flags, as the placement needs them. */
static int mpiexec_words(const mpiprofile *p, const mpiprofile_placement *pl, mpiprofile_list *w)
{
    const char *command = pl->command && *pl->command ? pl->command : p->launcher.command;
    int rc = add(w, "%s", command ? command : "mpiexec");
    rc |= add_all(w, &p->launcher.flags);
    if (pl->as_root)
        rc |= add_all(w, &p->launcher.as_root);
    /* cores_here 0 (unknown): the ranks may outnumber the cores */
    if (pl->mode == MPIPROFILE_LAUNCH_LOCAL &&
        (pl->cores_here <= 0 || pl->processes > pl->cores_here))
        rc |= add_all(w, &p->launcher.oversubscribe);
    /* A process computing with several threads places them itself. */
    if (pl->threads != 1)
        rc |= add_all(w, &p->launcher.no_bind);
    if (pl->mode == MPIPROFILE_LAUNCH_HOSTS) {
        if (pl->rsh && *pl->rsh) {
            rc |= add_all(w, &p->launcher.rsh);
            rc |= add(w, "%s", pl->rsh);
        }
        rc |= add_all(w, &p->launcher.hosts);
        rc |= add(w, "%s", pl->hosts ? pl->hosts : "");
    }
    for (size_t i = 0; pl->mode != MPIPROFILE_LAUNCH_LOCAL && i < p->launcher.per_node.count; i++) {
        const char *flag = p->launcher.per_node.items[i], *n = strstr(flag, "{n}");
        rc |=
            n ? add(w, "%.*s%d%s", (int)(n - flag), flag, pl->per_node, n + 3) : add(w, "%s", flag);
    }
    rc |= add(w, MPIEXEC_COUNT);
    rc |= add(w, "%d", pl->processes);
    return rc;
}

bool mpiprofile_ranks_may_share_cores(const mpiprofile *profile)
{
    return !profile->busy_polls;
}

int mpiprofile_launch_command(const mpiprofile *profile, const mpiprofile_placement *placement,
                              mpiprofile_list *words, char *err, size_t errlen)
{
    *words = (mpiprofile_list){0};
    if (placement->processes < 1) {
        snprintf(err, errlen, "launch: %d processes (allowed: 1 or more)", placement->processes);
        return -1;
    }
    if (placement->mode == MPIPROFILE_LAUNCH_HOSTS && !(placement->hosts && *placement->hosts)) {
        snprintf(err, errlen, "launch: mode hosts needs the hosts (HOST1,HOST2,...)");
        return -1;
    }
    if (placement->mode == MPIPROFILE_LAUNCH_LOCAL && placement->cores_here > 0 &&
        placement->processes > placement->cores_here &&
        !mpiprofile_ranks_may_share_cores(profile)) {
        snprintf(err, errlen,
                 "%s busy-polls: %d ranks on %d cores would slow every call by orders of "
                 "magnitude (use %d ranks or fewer)",
                 profile->display_name, placement->processes, placement->cores_here,
                 placement->cores_here);
        return -1;
    }
    int rc = placement->srun ? srun_words(profile, placement, words)
                             : mpiexec_words(profile, placement, words);
    if (rc != 0) {
        mpiprofile_list_free(words);
        snprintf(err, errlen, "launch: out of memory");
        return -1;
    }
    return 0;
}

static const char *const mode_names[] = {
    [MPIPROFILE_LAUNCH_LOCAL] = "local",
    [MPIPROFILE_LAUNCH_HOSTS] = "hosts",
    [MPIPROFILE_LAUNCH_SLURM] = "slurm",
};

int mpiprofile_launch_mode_parse(const char *name, mpiprofile_launch_mode *mode)
{
    for (size_t i = 0; i < sizeof mode_names / sizeof *mode_names; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *mode = (mpiprofile_launch_mode)i;
            return 0;
        }
    return -1;
}
