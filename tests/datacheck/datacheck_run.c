/* Runs every collective of the table (or those named) at a few sizes with
 * the data check: prepare, fill, start, wait, verify, and prints one line
 * per collective on rank 0. Each rank prints its own failures.
 *
 *   mpiexec -n P datacheck_run [--collectives a,b] [--sizes 1,4097,1048579]
 *                              [--reps N] [--corrupt NAME:RANK:ELEMENT]
 *                              [--omit NAME] [--root R] [--datatype T] [--in-place]
 *                              [--skip-refused]
 *
 * --root, --datatype and --in-place are the collectives' options (run.root,
 * run.datatype, run.in_place); a collective that refuses them fails, or
 * with --skip-refused is listed as "refused" and not run (a sweep of one
 * option over the whole table). Sizes may exceed 2 GiB (large counts).
 *
 * --corrupt flips one bit of element ELEMENT of NAME's result buffer (the
 * receive buffer, the broadcast buffer for ibcast) on rank RANK after every
 * wait, to prove the check notices; --omit fills and verifies NAME without
 * running it, to prove the poison catches a collective that did nothing.
 * Exit status: 0 every check passed, 1 a check or an MPI call failed,
 * 2 bad command line. */
#include "bench_nbc/collectives/collectives.h"
#include "bench_nbc/collectives/datacheck.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 16, MAX_NAMES = 64 };

typedef struct options {
    size_t sizes_bytes[MAX_SIZES];
    int size_count;
    const char *names[MAX_NAMES]; /* none: the whole table */
    int name_count;
    int reps;
    const char *corrupt_name; /* NULL: no corruption */
    int corrupt_rank;
    size_t corrupt_element;
    const char *omit_name;
    coll_options coll; /* the collectives' options */
    bool skip_refused; /* a collective refusing them is skipped, not failed */
    char *owned[2];    /* strdup'ed option strings the names point into */
} options;

/* A bad command line: one message (rank 0), exit 2 on every rank. */
static int usage_error(int rank, const char *fmt, const char *option, const char *value,
                       const char *allowed)
{
    if (rank == 0) {
        fprintf(stderr, "datacheck_run: ");
        fprintf(stderr, fmt, option, value, allowed);
        fputc('\n', stderr);
    }
    return 2;
}

static int parse_count(const char *text, unsigned long long max, unsigned long long *value)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v > max)
        return -1;
    *value = v;
    return 0;
}

static int parse_sizes(options *o, char *list, int rank)
{
    o->size_count = 0;
    for (char *save, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        unsigned long long v;
        if (o->size_count == MAX_SIZES || parse_count(item, (unsigned long long)PTRDIFF_MAX, &v) ||
            v == 0)
            return usage_error(rank, "option %s: bad size '%s' (allowed: %s)", "--sizes", item,
                               "up to 16 comma-separated positive byte counts");
        o->sizes_bytes[o->size_count++] = (size_t)v;
    }
    return o->size_count ? 0
                         : usage_error(rank, "option %s: '%s' lists no size (allowed: %s)",
                                       "--sizes", "", "comma-separated byte counts");
}

static int parse_corrupt(options *o, char *spec, int rank)
{
    const char *allowed = "NAME:RANK:ELEMENT, e.g. iallgather:1:4096";
    char *rank_text = strchr(spec, ':');
    char *element_text = rank_text ? strchr(rank_text + 1, ':') : NULL;
    unsigned long long r, e;
    if (!element_text)
        return usage_error(rank, "option %s: bad value '%s' (allowed: %s)", "--corrupt", spec,
                           allowed);
    *rank_text++ = '\0';
    *element_text++ = '\0';
    if (parse_count(rank_text, INT_MAX, &r) || parse_count(element_text, SIZE_MAX, &e))
        return usage_error(rank, "option %s: bad rank or element in '%s' (allowed: %s)",
                           "--corrupt", rank_text, allowed);
    o->corrupt_name = spec;
    o->corrupt_rank = (int)r;
    o->corrupt_element = (size_t)e;
    return 0;
}

static int parse_options(int argc, char **argv, int rank, options *o)
{
    static const struct option longopts[] = {
        {"collectives", required_argument, NULL, 'c'}, {"sizes", required_argument, NULL, 's'},
        {"reps", required_argument, NULL, 'r'},        {"corrupt", required_argument, NULL, 'x'},
        {"omit", required_argument, NULL, 'o'},        {"root", required_argument, NULL, 'R'},
        {"datatype", required_argument, NULL, 'd'},    {"in-place", no_argument, NULL, 'i'},
        {"skip-refused", no_argument, NULL, 'k'},      {NULL, 0, NULL, 0}};
    char default_sizes[] = "1,4097,1048579"; /* one element, odd, ~1 MiB */
    *o = (options){.reps = 2};
    int rc = parse_sizes(o, default_sizes, rank);
    opterr = 0; /* one message, from rank 0 */
    int opt;
    while (rc == 0 && (opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        unsigned long long v;
        switch (opt) {
        case 'c':
            free(o->owned[0]);
            o->owned[0] = strdup(optarg);
            if (!o->owned[0])
                return 1;
            for (char *save, *n = strtok_r(o->owned[0], ",", &save); n && rc == 0;
                 n = strtok_r(NULL, ",", &save)) {
                if (!nbc_collective_find(n) || o->name_count == MAX_NAMES)
                    rc = usage_error(rank, "option %s: unknown collective '%s' (allowed: %s)",
                                     "--collectives", n, "names of the collectives table");
                else
                    o->names[o->name_count++] = n;
            }
            break;
        case 's':
            rc = parse_sizes(o, optarg, rank);
            break;
        case 'r':
            if (parse_count(optarg, 1000, &v) || v == 0)
                rc = usage_error(rank, "option %s: bad value '%s' (allowed: %s)", "--reps", optarg,
                                 "1..1000");
            o->reps = (int)v;
            break;
        case 'x':
            free(o->owned[1]);
            o->owned[1] = strdup(optarg);
            if (!o->owned[1])
                return 1;
            rc = parse_corrupt(o, o->owned[1], rank);
            break;
        case 'o':
            o->omit_name = optarg;
            break;
        case 'R':
            if (parse_count(optarg, INT_MAX, &v))
                rc = usage_error(rank, "option %s: bad value '%s' (allowed: %s)", "--root", optarg,
                                 "a rank number");
            o->coll.root = (int)v;
            break;
        case 'd': {
            int datatype = nbc_collective_datatype_find(optarg);
            if (datatype < 0)
                rc = usage_error(rank, "option %s: unknown datatype '%s' (allowed: %s)",
                                 "--datatype", optarg, "auto, byte, int, double");
            o->coll.datatype = datatype < 0 ? COLL_AUTO : (coll_datatype)datatype;
            break;
        }
        case 'i':
            o->coll.in_place = true;
            break;
        case 'k':
            o->skip_refused = true;
            break;
        default:
            rc = usage_error(rank, "%s '%s' is unknown or lacks its value (allowed: %s)", "option",
                             argv[optind - 1],
                             "--collectives, --sizes, --reps, --corrupt, --omit, --root, "
                             "--datatype, --in-place, --skip-refused");
        }
    }
    if (rc == 0 && optind < argc)
        rc = usage_error(rank, "%s: unexpected argument '%s' (allowed: %s)", "command line",
                         argv[optind], "options only");
    return rc;
}

static bool moves_data(const nbc_collective *coll)
{
    return !coll->synthetic && (coll->send_blocks != 0 || coll->recv_blocks != 0);
}

/* Flips one bit of an element of the result buffer (a byte; for reductions
 * a number, which grows by one); -1 if out of range. */
static int corrupt(coll_instance *inst, size_t element)
{
    bool in_recv = inst->recv_blocks != 0;
    unsigned char *buf = in_recv ? inst->recv : inst->send;
    size_t bytes = in_recv ? inst->recv_bytes : inst->send_bytes;
    size_t element_bytes = inst->coll->reduces ? inst->element_bytes : 1;
    if (!moves_data(inst->coll) || element >= bytes / element_bytes)
        return -1;
    if (inst->coll->reduces && inst->element == COLL_INT)
        ((int *)buf)[element] += 1;
    else if (inst->coll->reduces)
        ((double *)buf)[element] += 1.0;
    else
        buf[element] ^= 0x01;
    return 0;
}

/* One size of one collective, `reps` times. 0 every rank verified, 1 a
 * check failed somewhere (this rank printed its own message). */
static int run_size(const options *o, const nbc_collective *coll, size_t bytes, int rank)
{
    char err[512];
    coll_instance inst;
    if (coll_instance_prepare(&inst, coll, MPI_COMM_WORLD, bytes, &o->coll, err, sizeof err) != 0) {
        printf("rank %d: %s\n", rank, err);
        return 1;
    }
    bool omit = o->omit_name && strcmp(o->omit_name, coll->name) == 0;
    bool corrupting =
        o->corrupt_name && strcmp(o->corrupt_name, coll->name) == 0 && rank == o->corrupt_rank;
    int failed_anywhere = 0;
    for (int rep = 0; rep < o->reps && !failed_anywhere; rep++) {
        int failed = 0;
        if (nbc_datacheck_fill(&inst) != 0) {
            nbc_datacheck_supports(coll, err, sizeof err);
            printf("rank %d: %s\n", rank, err);
            failed = 1;
        }
        MPI_Request request = MPI_REQUEST_NULL;
        if (!failed && !omit) {
            int mpi_err = coll_instance_start(&inst, &request);
            if (mpi_err == MPI_SUCCESS)
                mpi_err = coll_instance_wait(&inst, &request);
            if (mpi_err != MPI_SUCCESS) {
                char text[MPI_MAX_ERROR_STRING] = "";
                int text_len;
                MPI_Error_string(mpi_err, text, &text_len);
                printf("rank %d: %s: MPI error %d: %s\n", rank, coll->name, mpi_err, text);
                failed = 1;
            }
        }
        if (!failed && corrupting && corrupt(&inst, o->corrupt_element) != 0) {
            printf("rank %d: --corrupt: %s has no element %zu in its result buffer at %zu bytes\n",
                   rank, coll->name, o->corrupt_element, bytes);
            failed = 1;
        }
        if (!failed && nbc_datacheck_verify(&inst, err, sizeof err) != 0) {
            printf("at %zu bytes, rep %d: %s\n", bytes, rep, err);
            failed = 1;
        }
        fflush(stdout);
        if (MPI_Allreduce(&failed, &failed_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
            MPI_SUCCESS)
            failed_anywhere = 1;
    }
    coll_instance_release(&inst);
    return failed_anywhere;
}

/* 0 passed, 1 failed, 2 refused the options (with --skip-refused). */
static int run_collective(const options *o, const nbc_collective *coll, int rank, int ranks)
{
    char err[512];
    if (nbc_datacheck_supports(coll, err, sizeof err) != 0) {
        if (rank == 0)
            printf("FAILED %s: %s\n", coll->name, err);
        return 1;
    }
    if (nbc_collective_check_options(coll, &o->coll, ranks, err, sizeof err) != 0) {
        if (rank == 0)
            printf("%s %s on %d ranks: %s\n", o->skip_refused ? "refused" : "FAILED", coll->name,
                   ranks, err);
        return o->skip_refused ? 2 : 1;
    }
    int failed = 0;
    for (int s = 0; s < o->size_count; s++)
        failed |= run_size(o, coll, o->sizes_bytes[s], rank);
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) /* rank 0's line after every message */
        failed = 1;
    if (rank == 0) {
        printf("%s %s on %d ranks, %d sizes x %d reps%s\n", failed ? "FAILED" : "ok", coll->name,
               ranks, o->size_count, o->reps,
               moves_data(coll) ? "" : " (moves no data: completion only)");
        fflush(stdout);
    }
    return failed;
}

int main(int argc, char **argv)
{
    int rank, ranks;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &ranks) != MPI_SUCCESS) {
        fprintf(stderr, "datacheck_run: cannot set up MPI_COMM_WORLD\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    options o;
    int status = parse_options(argc, argv, rank, &o);
    if (status == 0 && o.corrupt_name && !nbc_collective_find(o.corrupt_name))
        status = usage_error(rank, "option %s: unknown collective '%s' (allowed: %s)", "--corrupt",
                             o.corrupt_name, "names of the collectives table");
    if (status == 0 && o.omit_name && !nbc_collective_find(o.omit_name))
        status = usage_error(rank, "option %s: unknown collective '%s' (allowed: %s)", "--omit",
                             o.omit_name, "names of the collectives table");
    if (status == 0 && rank == 0) {
        /* The first line of the library's version names it (scripts use it
         * to recognise known library bugs). */
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        if (MPI_Get_library_version(version, &len) == MPI_SUCCESS)
            printf("library: %.*s\n", (int)strcspn(version, "\n"), version);
        size_t n;
        printf("options: root %d, datatype %s, in_place %s\n", o.coll.root,
               nbc_collective_datatype_names(&n)[o.coll.datatype],
               o.coll.in_place ? "true" : "false");
    }
    if (status == 0) {
        size_t table_count;
        const nbc_collective *table = nbc_collectives(&table_count);
        int failures = 0, refused = 0;
        size_t total = o.name_count ? (size_t)o.name_count : table_count;
        for (size_t i = 0; i < total; i++) {
            int rc = run_collective(&o, o.name_count ? nbc_collective_find(o.names[i]) : &table[i],
                                    rank, ranks);
            failures += rc == 1;
            refused += rc == 2;
        }
        if (rank == 0)
            printf("%d of %zu collectives failed the data check%s\n", failures,
                   total - (size_t)refused, refused ? " (the others refused the options)" : "");
        status = failures ? 1 : 0;
    }
    free(o.owned[0]);
    free(o.owned[1]);
    MPI_Finalize();
    return status;
}
