/* Unit tests of mpiprofile/: the profiles of configs/mpi/ identify real
 * MPI_Get_library_version texts of every library they name (Intel MPI,
 * MVAPICH and Cray MPICH are never taken for MPICH), the longest pattern
 * wins, the header-macro fallback, versions and their conditions, the
 * workarounds' and size limits' scope, byte counts, and malformed profile files refused with a
 * message naming the file, the line and the key. */
#include "mpiprofile/mpiprofile.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#ifndef MPIPROFILE_TEST_PROFILES
#define MPIPROFILE_TEST_PROFILES "configs/mpi"
#endif

static const char *const deployments[] = {"basic", "progress", "dedicated", "manual", "thread"};

/* Texts as the libraries return them (sources: this machine for MPICH 4.0.2
 * and Open MPI 4.1.4; the others as printed by programs and tests of other
 * projects that query them: e4s-cl's detection tests, MPI.jl's docs, FDS and
 * STELLOPT logs, Spack's MVAPICH recipe, which parses "MVAPICH Version:"). */
typedef struct {
    const char *text, *profile, *version;
} known_text;

static const known_text known[] = {
    {"MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t"
     "14:2:2\nMPICH Device:\tch4:ucx\nMPICH configure:\t--build=x86_64-linux-gnu --prefix=/usr\n",
     "mpich", "4.0.2"},
    {"MPICH Version:\t3.3.2\nMPICH Release date:\tTue Nov 12 21:23:16 CST 2019\nMPICH ABI:\t"
     "13:8:1\nMPICH Device:\tch3:nemesis\n",
     "mpich", "3.3.2"},
    {"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022",
     "openmpi", "4.1.4"},
    {"Open MPI v4.1.1, package: Open MPI user@host Distribution, ident: 4.1.1, repo rev: "
     "v4.1.1, Apr 24, 2021",
     "openmpi", "4.1.1"},
    {"Intel(R) MPI Library 2021.6 for Linux* OS\n\n", "intelmpi", "2021.6"},
    {"Intel(R) MPI Library 2019 Update 6 for Linux* OS\n\n", "intelmpi", "2019"},
    {"MVAPICH2 Version      :\t2.3.5\nMVAPICH2 Release date :\tMon November 30 22:00:00 EST "
     "2020\nMVAPICH2 Device       :\tch3:mrail\nMVAPICH2 configure    :\t--prefix=/storage\n",
     "mvapich2", "2.3.5"},
    {"MVAPICH Version:\t3.0\nMVAPICH Release date:\tunreleased\nMVAPICH Device:\tch4:ofi\n",
     "mvapich", "3.0"},
    {"MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)\nMPI BUILD INFO : Sun Feb "
     "26 16:42 2023 (git hash aecd99f)\n",
     "craympich", "8.1.25.17"},
    {"MPI VERSION    : CRAY MPICH version 7.7.14 (ANL base 3.2)\nMPI BUILD INFO : Built Tue "
     "May 19 13:54:36 2020 (git hash e25eab9) MT-G\n\n",
     "craympich", "7.7.14"},
    /* A library without a profile: the generic one, the version still read. */
    {"Microsoft MPI 10.1.12498.18", MPIPROFILE_GENERIC, "10.1.12498.18"},
    {"", MPIPROFILE_GENERIC, "unknown"},
};

static int load_repository_profiles(void **state)
{
    mpiprofile_set *set = malloc(sizeof *set);
    char err[1024];
    assert_non_null(set);
    int rc = mpiprofile_load_dir(set, MPIPROFILE_TEST_PROFILES, deployments,
                                 sizeof deployments / sizeof *deployments, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    *state = set;
    return 0;
}

static int free_profiles(void **state)
{
    mpiprofile_set_free(*state);
    free(*state);
    return 0;
}

static void identifies_real_version_texts(void **state)
{
    const mpiprofile_set *set = *state;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        char version[64];
        const mpiprofile *p = mpiprofile_identify(set, known[i].text, version, sizeof version);
        if (strcmp(p->name, known[i].profile) != 0 || strcmp(version, known[i].version) != 0)
            fail_msg("\"%.60s\": %s %s, expected %s %s", known[i].text, p->name, version,
                     known[i].profile, known[i].version);
    }
}

static void every_profile_is_complete(void **state)
{
    const mpiprofile_set *set = *state;
    static const char *const expected[] = {"craympich", "intelmpi", "mpich",
                                           "mvapich",   "mvapich2", "openmpi"};
    assert_int_equal(set->count, sizeof expected / sizeof *expected);
    for (size_t i = 0; i < set->count; i++) {
        const mpiprofile *p = &set->profiles[i];
        assert_string_equal(p->name, expected[i]);
        assert_non_null(p->display_name);
        assert_non_null(p->launcher.command);
        assert_true(p->match.count > 0);
        /* The progress deployment runs (a setting) or says why it cannot. */
        const mpiprofile_deployment *progress = mpiprofile_deployment_find(p, "progress");
        assert_non_null(progress);
        assert_true(progress->env.count > 0 || progress->unsupported != NULL);
    }
    assert_string_equal(mpiprofile_find(set, "generic")->name, MPIPROFILE_GENERIC);
    assert_null(mpiprofile_find(set, "lam"));
}

/* A text naming a library and its base: the longer pattern wins. */
static void longest_pattern_wins(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_profile.XXXXXX", path[256], err[512], version[64];
    assert_non_null(mkdtemp(dir));
    const char *files[][2] = {
        {"base.ini", "[library]\ndisplay_name = Base\nmatch = mpich\n"},
        {"derived.ini", "[library]\ndisplay_name = Derived\nmatch = CRAY MPICH\n"},
    };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(files[i][1], f);
        fclose(f);
    }
    mpiprofile_set set;
    assert_int_equal(mpiprofile_load_dir(&set, dir, NULL, 0, err, sizeof err), 0);
    assert_string_equal(
        mpiprofile_identify(&set, "MPI VERSION : CRAY MPICH version 8.1", version, sizeof version)
            ->name,
        "derived");
    assert_string_equal(version, "8.1");
    /* Case-insensitive, and the base alone still matches its own text. */
    assert_string_equal(mpiprofile_identify(&set, "MPICH Version: 4.1", version, 64)->name, "base");
    mpiprofile_set_free(&set);
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        unlink(path);
    }
    rmdir(dir);
}

static void identifies_from_header_macros(void **state)
{
    const mpiprofile_set *set = *state;
    static const known_text macros[] = {
        {"#define MPICH_VERSION \"4.0.2\"\n#define MPICH_NUMVERSION 40002300\n", "mpich", "4.0.2"},
        {"#define MPICH_VERSION \"3.2.1\"\n#define MVAPICH2_VERSION \"2.3.7\"\n", "mvapich2",
         "2.3.7"},
        {"#define I_MPI_VERSION \"2021.6.0\"\n#define MPICH_VERSION \"3.4a2\"\n", "intelmpi",
         "2021.6.0"},
        {"#define OMPI_MAJOR_VERSION 4\n#define OMPI_MINOR_VERSION 1\n#define "
         "OMPI_RELEASE_VERSION 4\n",
         "openmpi", "4.1.4"},
        {"#define __STDC__ 1\n", MPIPROFILE_GENERIC, "unknown"},
    };
    for (size_t i = 0; i < sizeof macros / sizeof *macros; i++) {
        char version[64];
        const mpiprofile *p =
            mpiprofile_identify_macros(set, macros[i].text, version, sizeof version);
        assert_string_equal(p->name, macros[i].profile);
        assert_string_equal(version, macros[i].version);
    }
}

static void compares_versions(void **state)
{
    (void)state;
    char err[256];
    assert_true(mpiprofile_version_compare("4.0.2", "4.1") < 0);
    assert_true(mpiprofile_version_compare("4.1.1", "4.1") > 0);
    assert_int_equal(mpiprofile_version_compare("4.1", "4.1.0"), 0);
    assert_int_equal(mpiprofile_version_compare("3.4a2", "3.4"), 0);
    assert_true(mpiprofile_version_compare("10.0", "9.9") > 0);
    static const struct {
        const char *conditions, *version;
        int holds;
    } cases[] = {
        {"<4.1", "4.0.2", 1},     {"<4.1", "4.1", 0},
        {"<4.1", "4.1.1", 0},     {">=3.0 <4.1", "3.3.2", 1},
        {">=3.0 <4.1", "2.1", 0}, {"=4.0", "4.0.2", 1},
        {"=4.0", "4.1", 0},       {"<=4.1", "4.1.0", 1},
        {">4.1", "4.1", 0},       {"", "1.0", 1},
        {"~4", "4.0", -1},        {"<", "4.0", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int holds =
            mpiprofile_versions_match(cases[i].conditions, cases[i].version, err, sizeof err);
        if (holds != cases[i].holds)
            fail_msg("\"%s\" on %s: %d, expected %d", cases[i].conditions, cases[i].version, holds,
                     cases[i].holds);
    }
}

/* MPICH < 4.1's allgather_init workaround (pmodels/mpich#6423). */
static void workaround_applies_where_it_should(void **state)
{
    const mpiprofile *mpich = mpiprofile_find(*state, "mpich");
    assert_non_null(mpich);
    /* the allgather_init one among the profile's workarounds */
    const mpiprofile_workaround *w = NULL;
    for (size_t i = 0; i < mpich->workaround_count && !w; i++)
        if (mpiprofile_workaround_applies(&mpich->workarounds[i], "4.0.2", "allgather_init"))
            w = &mpich->workarounds[i];
    assert_non_null(w);
    assert_true(mpiprofile_workaround_applies(w, "4.0.2", "allgather_init"));
    assert_false(mpiprofile_workaround_applies(w, "4.1.2", "allgather_init"));
    assert_false(mpiprofile_workaround_applies(w, "4.0.2", "ibcast"));
    assert_false(mpiprofile_workaround_applies(w, "unknown", "allgather_init"));
    assert_string_equal(w->env.items[0], "MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM=sched_ring");
}

/* MPICH 4.0's broadcast of 2^31 bytes or more: a limit, in 4.0.x only. */
static void size_limit_applies_where_it_should(void **state)
{
    const mpiprofile *mpich = mpiprofile_find(*state, "mpich");
    assert_non_null(mpich);
    const mpiprofile_size_limit *l = mpiprofile_size_limit_find(mpich, "4.0.2", "ibcast");
    assert_non_null(l);
    assert_int_equal(l->max_bytes, 2147483647);
    assert_non_null(strstr(l->reason, "2^31 bytes"));
    assert_ptr_equal(mpiprofile_size_limit_find(mpich, "4.0", "bcast_init"), l);
    assert_true(mpiprofile_size_limit_applies(l, "4.0.2", "ibcast"));
    assert_false(mpiprofile_size_limit_applies(l, "4.1.2", "ibcast"));
    assert_false(mpiprofile_size_limit_applies(l, "3.4.3", "ibcast"));
    assert_false(mpiprofile_size_limit_applies(l, "unknown", "ibcast"));
    assert_null(mpiprofile_size_limit_find(mpich, "4.0.2", "iallreduce"));
    assert_null(mpiprofile_size_limit_find(mpich, "4.1", "ibcast"));
    /* Open MPI 4.1.4 ran a 3 GiB ibcast here: no limit. */
    const mpiprofile *openmpi = mpiprofile_find(*state, "openmpi");
    assert_non_null(openmpi);
    assert_null(mpiprofile_size_limit_find(openmpi, "4.1.4", "ibcast"));
}

/* Of two limits that apply, the smaller; each in its own versions and
 * collectives; a byte count with its unit. */
static void size_limit_smallest_wins(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_profile.XXXXXX", path[256], err[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.ini", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[library]\ndisplay_name = A\nmatch = A\n"
          "[size_limit.big]\nversions = <3\ncollectives = ibcast ialltoall\nmax_bytes = 2GiB\n"
          "reason = big\n"
          "[size_limit.small]\nversions = >=2 <3\ncollectives = ibcast\nmax_bytes = 1024\n"
          "reason = small\n",
          f);
    fclose(f);
    mpiprofile_set set;
    int rc = mpiprofile_load_dir(&set, dir, deployments, sizeof deployments / sizeof *deployments,
                                 err, sizeof err);
    unlink(path);
    rmdir(dir);
    if (rc != 0)
        fail_msg("%s", err);
    const mpiprofile *a = mpiprofile_find(&set, "a");
    assert_non_null(a);
    assert_int_equal(a->size_limit_count, 2);
    assert_string_equal(mpiprofile_size_limit_find(a, "2.1", "ibcast")->reason, "small");
    assert_string_equal(mpiprofile_size_limit_find(a, "1.9", "ibcast")->reason, "big");
    assert_int_equal(mpiprofile_size_limit_find(a, "1.9", "ibcast")->max_bytes, 2ull << 30);
    assert_string_equal(mpiprofile_size_limit_find(a, "2.1", "ialltoall")->reason, "big");
    assert_null(mpiprofile_size_limit_find(a, "3.0", "ibcast"));
    mpiprofile_set_free(&set);
}

static void parses_byte_counts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc;
        uint64_t bytes;
    } cases[] = {
        {"2147483647", 0, 2147483647},
        {"2GiB", 0, 2ull << 30},
        {"3 GiB", -1, 0},
        {"1KiB", 0, 1024},
        {"7B", 0, 7},
        {"0", -1, 0},
        {"-1", -1, 0},
        {"2gb", -1, 0},
        {"", -1, 0},
        {"18446744073709551615", 0, UINT64_MAX},
        {"16777216TiB", -1, 0},
        {"99999999999999999999", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t bytes = 0;
        int rc = mpiprofile_parse_bytes(cases[i].text, &bytes);
        if (rc != cases[i].rc || (rc == 0 && bytes != cases[i].bytes))
            fail_msg("\"%s\": %d, %llu; expected %d, %llu", cases[i].text, rc,
                     (unsigned long long)bytes, cases[i].rc, (unsigned long long)cases[i].bytes);
    }
}

/* One malformed file: refused, the message naming it, its line and the key. */
static void refuses_malformed_files(void **state)
{
    (void)state;
    static const struct {
        const char *file, *text, *message;
    } cases[] = {
        {"a.ini", "[library]\ndisplay_name = A\nmatch = A\ncolour = blue\n",
         "a.ini: line 4: [library]: unknown key 'colour' (allowed in [library]: display_name"},
        {"a.ini", "[library]\ndisplay_name = A\nmatch = A\n[launcher]\nflags = -x\n[mood]\nx=1\n",
         "a.ini: line 7: unknown section [mood]"},
        {"a.ini", "[library]\ndisplay_name = A\nmatch = A\n[deployment.fast]\nenv = X=1\n",
         "unknown deployment 'fast' (allowed: basic, progress, dedicated, manual, thread)"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[deployment.progress]\nthread_level=many\n",
         "thread_level: \"many\" is not a thread level"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[deployment.progress]\nenv = 1X\n",
         "env: \"1X\" is not NAME=VALUE"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[workaround.w]\nversions = ~4\n",
         "versions: \"~4\" is not a version condition"},
        {"a.ini", "[library]\ndisplay_name = A\n", "a.ini: [library] match is missing"},
        {"a.ini", "[library]\ndisplay_name = A\nbusy_polls = yes\nmatch = A\n",
         "busy_polls: \"yes\" is not a boolean (allowed: true, false)"},
        {"Bad.ini", "[library]\ndisplay_name = A\nmatch = A\n", "'Bad' cannot name a profile"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\ncollectives=ibcast\nreason=r\n"
         "max_bytes = 2 GiB\n",
         "a.ini: line 7: [size_limit.l] max_bytes: \"2 GiB\" is not a byte count"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\ncollectives=ibcast\nreason=r\n"
         "max_bytes = 0\n",
         "[size_limit.l] max_bytes: \"0\" is not a byte count"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\ncollectives=ibcast\nreason=r\n"
         "max_bytes = 1\nmax_bytes = 2\n",
         "a.ini: line 8: [size_limit.l] max_bytes: given twice"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\ncollectives=MPI_Ibcast\n",
         "a.ini: line 5: [size_limit.l] collectives: \"MPI_Ibcast\" is not a collective's name"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\nversions = 4.0\n",
         "a.ini: line 5: [size_limit.l] versions: \"4.0\" is not a version condition"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\nbytes = 1\n",
         "a.ini: line 5: [size_limit.l]: unknown key 'bytes' (allowed in [size_limit.<name>]: "
         "versions, collectives, max_bytes, reason)"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\ncollectives=ibcast\n"
         "reason=r\n",
         "a.ini: [size_limit.l] max_bytes is missing"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\nmax_bytes=1\nreason=r\n",
         "a.ini: [size_limit.l] collectives is missing"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[size_limit.l]\nmax_bytes=1\n"
         "collectives=ibcast\n",
         "a.ini: [size_limit.l] reason is missing"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[size_limit]\nmax_bytes=1\n",
         "a.ini: line 5: unknown section [size_limit]"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[deployment.progress]\npoll=F\npoll_versions=>=1\n",
         "[deployment.progress] poll: only the suite's progress thread polls (allowed in: "
         "[deployment.thread])"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[deployment.thread]\npoll=F\n",
         "[deployment.thread] poll = F needs poll_versions"},
        {"a.ini", "[library]\ndisplay_name=A\nmatch=A\n[deployment.thread]\npoll_argument=0x1z\n",
         "a.ini: line 5: [deployment.thread] poll_argument: \"0x1z\" is not an int handle"},
        {"a.ini",
         "[library]\ndisplay_name=A\nmatch=A\n[deployment.thread]\npoll_argument=0x100000000\n",
         "poll_argument: \"0x100000000\" is not an int handle"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[] = "/tmp/test_profile.XXXXXX", path[256], err[1024];
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(cases[i].text, f);
        fclose(f);
        mpiprofile_set set;
        int rc = mpiprofile_load_dir(&set, dir, deployments,
                                     sizeof deployments / sizeof *deployments, err, sizeof err);
        unlink(path);
        rmdir(dir);
        if (rc == 0 || !strstr(err, cases[i].message))
            fail_msg("case %zu: status %d, message \"%s\", expected \"%s\"", i, rc, err,
                     cases[i].message);
        /* What is left: the generic profile, nothing half-read. */
        assert_int_equal(set.count, 0);
        assert_non_null(mpiprofile_find(&set, MPIPROFILE_GENERIC));
        mpiprofile_set_free(&set);
    }
}

static void finds_profiles_where_told(void **state)
{
    (void)state;
    char buf[4096];
    assert_int_equal(setenv("BENCH_NBC_PROFILES", "/somewhere/mpi", 1), 0);
    assert_string_equal(mpiprofile_default_dir(buf, sizeof buf), "/somewhere/mpi");
    assert_int_equal(unsetenv("BENCH_NBC_PROFILES"), 0);
    /* Not installed: the source tree's folder it was compiled with. */
    assert_non_null(strstr(mpiprofile_default_dir(buf, sizeof buf), "configs/mpi"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identifies_real_version_texts),
        cmocka_unit_test(every_profile_is_complete),
        cmocka_unit_test(identifies_from_header_macros),
        cmocka_unit_test(workaround_applies_where_it_should),
        cmocka_unit_test(size_limit_applies_where_it_should),
        cmocka_unit_test(size_limit_smallest_wins),
        cmocka_unit_test(parses_byte_counts),
        cmocka_unit_test(longest_pattern_wins),
        cmocka_unit_test(compares_versions),
        cmocka_unit_test(refuses_malformed_files),
        cmocka_unit_test(finds_profiles_where_told),
    };
    return cmocka_run_group_tests(tests, load_repository_profiles, free_profiles);
}
