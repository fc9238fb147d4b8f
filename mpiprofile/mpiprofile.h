/* mpiprofile: MPI library profiles and the identification of a library from
 * the text it returns from MPI_Get_library_version. Plain C, no MPI: the
 * driver uses it before MPI_Init (a profile's environment must be set before
 * it), the nbc-profile tool answers scripts (nbc-run, the tests, the
 * Makefile's configure step, mpiprofile/configure.sh).
 *
 * A profile is one INI file, configs/mpi/<name>.ini, read with libinih: how
 * the library names itself, how its launcher is driven, what each deployment
 * of the paper's section 7 needs (environment, thread level, or a refusal
 * with its reason) and which known bugs need a setting in which versions.
 * docs/mpi-profiles.md lists every key. Adding a library is adding a file.
 *
 * Identification: every profile lists substrings of the version text
 * (`match`, case-insensitive); of all the profiles' substrings found in the
 * text, the longest wins, so a library built on another (Cray MPICH, Intel
 * MPI, MVAPICH) is never taken for its base. A text no profile matches gets
 * the built-in profile "generic": no library-specific setting at all.
 *
 * Launch commands (launch.c): the one builder of the words that start
 * processes (mpiexec and the profile's flags, or srun) for a placement,
 * used by bench_nbc --replay and, through `nbc-profile launch`, by nbc-run.
 *
 * Every function that can fail returns 0 (or a pointer) on success and -1
 * (or NULL) with one message in err naming the file, the line and the key. */
#ifndef MPIPROFILE_H
#define MPIPROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The profile of a library no file matches. */
#define MPIPROFILE_GENERIC "generic"

/* Words of a launcher flag list, patterns of `match`, NAME=VALUE settings. */
typedef struct {
    char **items;
    size_t count;
} mpiprofile_list;

/* [deployment.<name>]: what the library needs for one deployment. */
typedef struct {
    char *name;          /* a deployment of run.deployment, e.g. progress */
    mpiprofile_list env; /* NAME=VALUE, set before MPI_Init */
    char *thread_level;  /* single|funneled|serialized|multiple, NULL: funneled */
    char *unsupported;   /* why the library cannot run it; NULL: it can */
    /* The library's own setting that places its progress thread (NAME=VALUE,
     * VALUE with {free_cpus} or {free_cpus*}, see docs/mpi-profiles.md), in
     * the versions bind_versions allows; none: bench_nbc binds the thread
     * after MPI_Init. */
    mpiprofile_list bind;
    char *bind_versions;
    /* The library's own progress call for the suite's progress thread
     * (deployment thread): a function of one int handle, e.g.
     * MPIX_Stream_progress on the null stream, in the versions
     * poll_versions allows; none: the thread polls with MPI_Iprobe. */
    char *poll;
    long poll_argument; /* poll's argument (poll_argument = 0x3c000000) */
    char *poll_versions;
} mpiprofile_deployment;

/* [workaround.<name>]: a known bug avoided by a setting, in some versions. */
typedef struct {
    char *name;
    char *versions;              /* conditions, all must hold: ">=3.0 <4.1" */
    mpiprofile_list collectives; /* where it applies; empty: every collective */
    mpiprofile_list env;         /* NAME=VALUE, set before MPI_Init */
    char *reason;                /* the bug, with its reference */
} mpiprofile_workaround;

/* [size_limit.<name>]: a known bug that no setting avoids, from a message
 * size on: the largest buffer some collectives can take in some versions.
 * bench_nbc never measures past it (docs/mpi-profiles.md). */
typedef struct {
    char *name;
    char *versions;              /* conditions, all must hold: "=4.0", as in [workaround] */
    mpiprofile_list collectives; /* names of `bench_nbc --list` (required) */
    uint64_t max_bytes;          /* the largest buffer, in bytes, that works (required) */
    char *reason;                /* the bug, with its reference (required) */
} mpiprofile_size_limit;

typedef struct {
    char *name;                    /* the file name without .ini: run.mpi, the run folders */
    char *path;                    /* the file read; NULL for the built-in generic profile */
    char *display_name;            /* e.g. "Open MPI" */
    mpiprofile_list match;         /* substrings of MPI_Get_library_version */
    mpiprofile_list header_macros; /* macros of mpi.h that all name it (fallback) */
    char *header_version;          /* the version from those macros, e.g. A.B.C */
    bool busy_polls; /* ranks spin while they wait (mpiprofile_ranks_may_share_cores) */
    /* Variables that turn the library's progress thread on: refused in a
     * deployment that does not want it. */
    mpiprofile_list progress_switches;
    struct {
        char *command;                 /* e.g. mpiexec, srun */
        mpiprofile_list flags;         /* always given */
        mpiprofile_list as_root;       /* when started by root */
        mpiprofile_list oversubscribe; /* more ranks than cores on a machine */
        mpiprofile_list no_bind;       /* a rank computing with several threads */
        mpiprofile_list hosts;         /* followed by HOST1,HOST2,... */
        mpiprofile_list per_node;      /* {n} is replaced by the ranks per node */
        mpiprofile_list rsh;           /* followed by an ssh stand-in */
        char *srun_mpi;                /* srun --mpi= plugin inside Slurm */
        /* Prefixes of the variables the launcher sets for each process,
         * itself or from its flags: not the user's choice, never copied
         * into a replay's command (bench_nbc --replay). */
        mpiprofile_list sets_env_prefixes;
    } launcher;
    mpiprofile_deployment *deployments;
    size_t deployment_count;
    mpiprofile_workaround *workarounds;
    size_t workaround_count;
    mpiprofile_size_limit *size_limits;
    size_t size_limit_count;
} mpiprofile;

typedef struct {
    char *dir;            /* where the files were read */
    mpiprofile *profiles; /* sorted by name */
    size_t count;
    mpiprofile generic; /* the built-in profile "generic" */
} mpiprofile_set;

/* Where profiles are found at run time: $BENCH_NBC_PROFILES, else
 * <folder of the running program>/../share/bench_nbc/configs/mpi when it
 * exists (an installed copy), else the source tree's configs/mpi (the path
 * it was compiled with). Writes it into buf and returns buf. */
const char *mpiprofile_default_dir(char *buf, size_t len);

/* Reads every *.ini of dir. deployments (may be NULL) are the names a
 * [deployment.<name>] section may have; any other is an error. On failure
 * the set holds the generic profile only (and must still be freed). */
int mpiprofile_load_dir(mpiprofile_set *set, const char *dir, const char *const *deployments,
                        size_t deployment_count, char *err, size_t errlen);
void mpiprofile_set_free(mpiprofile_set *set);

/* A profile by name ("generic" included); NULL when there is none. */
const mpiprofile *mpiprofile_find(const mpiprofile_set *set, const char *name);

/* The profile of a library from its MPI_Get_library_version text (never
 * NULL: the generic profile when nothing matches) and its version, the first
 * word starting with a digit after the pattern found (after the start of
 * the text for the generic profile; "unknown" when there is none). */
const mpiprofile *mpiprofile_identify(const mpiprofile_set *set, const char *version_text,
                                      char *version, size_t version_len);

/* The same from the macros of mpi.h (the output of `cc -dM -E`), when no
 * program built with the library can run: the profile all of whose
 * header_macros are defined, the one with most of them winning; its version
 * from header_version. The generic profile when none. */
const mpiprofile *mpiprofile_identify_macros(const mpiprofile_set *set, const char *macros_text,
                                             char *version, size_t version_len);

/* Compares dotted versions number by number ("4.0.2" < "4.1" < "4.1.1";
 * letters end a number: "3.4a2" is 3.4): <0, 0 or >0. */
int mpiprofile_version_compare(const char *a, const char *b);

/* Whether version meets every condition of a space-separated list of
 * <V, <=V, >V, >=V, =V (=4.0 holds for 4.0 and 4.0.2); an empty list always
 * holds. -1 with a message when a condition is malformed. */
int mpiprofile_versions_match(const char *conditions, const char *version, char *err,
                              size_t errlen);

/* The settings of one deployment; NULL when the profile has none. */
const mpiprofile_deployment *mpiprofile_deployment_find(const mpiprofile *profile,
                                                        const char *deployment);

/* Whether a workaround applies to a library version and a collective. */
bool mpiprofile_workaround_applies(const mpiprofile_workaround *workaround, const char *version,
                                   const char *collective);

/* Whether a size limit applies to a library version and a collective (an
 * unknown version is not guessed to be an affected one). */
bool mpiprofile_size_limit_applies(const mpiprofile_size_limit *limit, const char *version,
                                   const char *collective);

/* The smallest size limit of the profile that applies to a version and a
 * collective; NULL when none does. */
const mpiprofile_size_limit *
mpiprofile_size_limit_find(const mpiprofile *profile, const char *version, const char *collective);

/* A byte count as profiles write it: digits, then optionally B, KiB, MiB,
 * GiB or TiB ("2147483647", "2GiB"); at least 1. -1 when it is not one. */
int mpiprofile_parse_bytes(const char *text, uint64_t *bytes);

/* The busy-poll rule: ranks of a library that spins while it waits
 * (busy_polls) take their core whole, so more ranks than cores slow every
 * call by orders of magnitude; only the ranks of a library that yields may
 * share cores. mpiprofile_launch_command refuses to place a busy-polling
 * library's ranks on fewer cores; bench_nbc lets ranks share cores only
 * where this holds (and the computation needs no CPU). */
bool mpiprofile_ranks_may_share_cores(const mpiprofile *profile);

/* Appends a copy of item; frees every item and the list. */
int mpiprofile_list_add(mpiprofile_list *list, const char *item);
void mpiprofile_list_free(mpiprofile_list *list);

/* ---- the launch command (launch.c) -------------------------------------- */

typedef enum {
    MPIPROFILE_LAUNCH_LOCAL, /* this machine */
    MPIPROFILE_LAUNCH_HOSTS, /* the hosts of a list, through the launcher's rsh */
    MPIPROFILE_LAUNCH_SLURM, /* a Slurm allocation */
} mpiprofile_launch_mode;

/* Where and how many processes a launch starts. */
typedef struct {
    mpiprofile_launch_mode mode;
    bool srun;           /* Slurm's srun, not the profile's launcher */
    const char *command; /* the launcher (e.g. a build's mpiexec.mpich); NULL: the profile's */
    int processes;       /* at least 1 */
    int nodes;           /* srun --nodes; 0: not given */
    int per_node;        /* processes per node (hosts, slurm); 0: not given to srun */
    int threads;         /* computing threads per process; 0: unknown */
    bool as_root;        /* started by root */
    const char *hosts;   /* mode hosts: HOST1,HOST2,... */
    const char *rsh;     /* mode hosts: an ssh stand-in; NULL or "": the launcher's own */
    int cores_here;      /* mode local: the cores the processes may use; 0: unknown */
    const char *cpus_per_task; /* srun --cpus-per-task (the allocation's); NULL or "": none */
    bool not_mpi;              /* srun: the processes are no MPI program (no PMI plugin) */
} mpiprofile_placement;

/* The words that start placement's processes with the profile's launcher
 * (the program and its arguments follow them): 0, or -1 with a message.
 * mpiexec: command, [launcher] flags, as_root when root, oversubscribe when
 * local with more processes than cores (or cores unknown), no_bind unless
 * one thread per process, rsh and hosts (mode hosts), per_node (not local),
 * then "-n N". srun: --nodes, --ntasks, --ntasks-per-node, --cpus-per-task,
 * --mpi= the profile's srun_mpi (pmi2 when none). words must be freed with
 * mpiprofile_list_free. A local placement of more processes than
 * cores_here for a library whose ranks may not share cores is refused (-1,
 * the reason in err: the busy-poll rule). */
int mpiprofile_launch_command(const mpiprofile *profile, const mpiprofile_placement *placement,
                              mpiprofile_list *words, char *err, size_t errlen);

/* "local", "hosts", "slurm" into mode: 0, or -1 for another name. */
int mpiprofile_launch_mode_parse(const char *name, mpiprofile_launch_mode *mode);

/* Writes a word as a POSIX shell reads it back: as it is when every
 * character is one of A-Z a-z 0-9 _ . / = : , @ % + -, else single-quoted
 * (a quote as '\''). The same rule as nbc_run/launch.py's shown(). 0, or -1
 * when the write fails. */
int mpiprofile_shell_word(FILE *out, const char *word);

#endif
