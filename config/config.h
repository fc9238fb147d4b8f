/* bench_nbc configuration: an INI file plus `--set section.key=value`
 * overrides, driven by one table of keys (config/keys.c).  No MPI in here:
 * the driver reads the file on rank 0, broadcasts its text, and every rank
 * parses the same text and validates it against what it knows of its machine.
 *
 * Use: nbc_config_load (defaults, the file's text, each --set) ->
 * nbc_config_validate -> read the fields -> nbc_config_free.
 * Every function that can fail returns 0 on success and -1 on failure with
 * one message in err ("config: <where>: <section.key>: "<value>" <problem>
 * (allowed: ...)"); after a failure the struct must only be freed. */
#ifndef CONFIG_CONFIG_H
#define CONFIG_CONFIG_H

#include "compute/compute.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* json-c's object type, declared here so that including this header does not
 * need json-c's include path. */
struct json_object;

/* The deployments, one row each in deploy/deployments.def (what each means:
 * deploy/plan.h). */
typedef enum {
#define DEPLOYMENT(id, ...) NBC_DEPLOYMENT_##id,
#include "deploy/deployments.def"
#undef DEPLOYMENT
    NBC_DEPLOYMENT_COUNT
} nbc_deployment;

typedef enum {
    NBC_PROGRESS_NONE,   /* Algorithm 1 as in the paper: no MPI_Test */
    NBC_PROGRESS_TEST,   /* compute step in test_count chunks, MPI_Test between */
    NBC_PROGRESS_THREAD, /* the suite's thread polls MPI (deployment thread only) */
} nbc_progress_mode;

typedef struct nbc_config nbc_config;

/* Bytes of buffers the rank that allocates most allocates for message size
 * `bytes` with this configuration (its collective and options) on `ranks`
 * ranks; `what` gets how they add up ("send 1 + receive 4 blocks of S"). */
typedef uint64_t nbc_buffer_bytes_fn(const nbc_config *cfg, uint64_t bytes, int ranks, char *what,
                                     size_t whatlen);

/* The largest message size S the MPI library can take for this
 * configuration's collective on `ranks` ranks (a known bug from a size on,
 * the library profile's [size_limit]); 0 when it has no limit. `why` gets
 * the limit per buffer and its reason. */
typedef uint64_t nbc_size_limit_fn(const nbc_config *cfg, int ranks, char *why, size_t whylen);

/* Why a collective's name that the driver knows is not offered by this
 * build (a scenario with a part the library lacks): 0 with `why` ("is a
 * scenario this MPI library cannot run: its part X ..."), else -1. */
typedef int nbc_name_unavailable_fn(const char *name, char *why, size_t whylen);

/* Everything the caller knows of the machine and the driver. A count or size
 * of 0 means "not known" and skips the check that needs it (for tools that
 * only read a configuration); the driver fills every field. */
typedef struct {
    const char *const *collectives; /* names in the driver's collectives table */
    size_t collective_count;
    /* Why a name outside that list is known but not offered (NULL: never). */
    nbc_name_unavailable_fn *collective_unavailable;
    const char *const *mpi_profiles; /* library profiles known, e.g. mpich, openmpi */
    size_t mpi_profile_count;
    int available_cores;             /* cores in this rank's CPU set */
    uint64_t available_memory_bytes; /* memory this rank may use */
    const char *const *datatypes;    /* run.datatype's names (the collectives table's) */
    size_t datatype_count;
    /* The collective's buffers (NULL: unknown, 4 x calibration.max_bytes is
     * assumed); ranks in the run and on this node (0: unknown). */
    nbc_buffer_bytes_fn *buffer_bytes;
    /* The library's size limit (NULL: none known): a calibration.max_bytes
     * set above it is refused; its default is capped by the calibration. */
    nbc_size_limit_fn *size_limit;
    int ranks, local_ranks;
} nbc_config_limits;

struct nbc_config_values; /* private: each key's text and where it was set */

struct nbc_config {
    struct {
        char *collective;
        char **collectives;       /* run.collectives: one job, several collectives; */
        size_t collectives_count; /* 0: run.collective alone */
        int *ranks;               /* run.ranks: rank counts, each a sub-communicator of */
        size_t ranks_count;       /* the first N ranks; 0: the job's size */
        nbc_deployment deployment;
        char *mpi;
        char *results_dir;
        char *calibration_from; /* a run folder whose sizes this run uses; "": calibrate */
        int threads;            /* as configured: 0 = all (deploy/plan.h decides the cores) */
        int repetitions;        /* measured blocks per cell (plus one warm-up block); the
                                   least of them when half_width > 0 */
        int max_repetitions;    /* the most blocks when half_width > 0 */
        int visits;            /* visits sharing a cell's blocks (bench_nbc/measure/visit_plan.h) */
        double half_width;     /* target half-width of r_overhead's 95 % interval; 0: fixed */
        double cell_budget_s;  /* a cell stops at a block's end past it (0: none) */
        double late_tolerance; /* share of min(t_comm_ref, t_comp_ref) */
        int max_retries;
        double late_patience_s; /* pauses in all of one block late pass after pass */
        int seed;               /* 0: chosen at start */
        double null_share;      /* of the measured blocks, with the null controls */
        int max_cells;
        bool force; /* allow more than max_cells cells */
        bool check; /* check the received data */
        /* The collective's options (collectives.h, coll_options). */
        int root;                /* root of the rooted operations */
        char *datatype;          /* auto, byte, int, double */
        bool in_place;           /* MPI_IN_PLACE */
        double background_share; /* synthetic_intermittent: share of starts in the background */
    } run;
    struct {
        compute_kernel kernel; /* gemm, or sleep (known answers) */
        double ref_warmup_s;   /* compute_ref's computation before it measures */
    } compute;
    struct {
        double *comm_times_s; /* ascending target times of the X axis (or none) */
        size_t comm_count;
        uint64_t *comm_sizes_bytes; /* or ascending message sizes S of the X axis */
        size_t comm_size_count;     /* exactly one of comm_count, comm_size_count is > 0 */
        double *comp_times_s;       /* ascending target times of the Y axis */
        size_t comp_count;
    } grid;
    struct {
        double tolerance; /* relative, in (0, 1) */
        int max_iterations;
        int runs_per_point;
        uint64_t max_bytes;
    } calibration;
    struct {
        int method; /* row of clocksync's method table (clocksync_method_name) */
        int roundtrips;
        double drift_gap_s;
        double resync_interval_s; /* 0 = never */
        double barrier_margin_us;
    } clocksync;
    struct {
        nbc_progress_mode mode;
        int test_count;      /* K of mode test:K, else 0 */
        int test_chunks;     /* K used by deployment manual when mode is none */
        bool unconfirmed_ok; /* dedicated: run (marked unconfirmed) when the binding of the
                              * library's progress thread cannot be confirmed */
        bool oversubscribe;  /* thread: the suite's thread may share the compute cores */
        /* > 0: MPI_Test every P us of computation, the chunks per cell */
        double test_period_us;
    } progress;
    struct {
        double factor;
        double floor_s;
    } watchdog;
    struct nbc_config_values *values;
};

/* Fills cfg with the defaults of every key. Fails only when out of memory. */
int nbc_config_init(nbc_config *cfg, char *err, size_t errlen);
void nbc_config_free(nbc_config *cfg);

/* Reads a whole configuration file into *text (malloc'd, caller frees). */
int nbc_config_read_file(const char *path, char **text, char *err, size_t errlen);

/* Applies INI text on top of cfg; origin names the text in messages (the
 * file's path). A key given twice in one text is an error. */
int nbc_config_parse_text(nbc_config *cfg, const char *text, const char *origin, char *err,
                          size_t errlen);

/* Applies one "section.key=value" (the command line's --set). */
int nbc_config_set(nbc_config *cfg, const char *assignment, char *err, size_t errlen);

/* A whole configuration: the defaults, then text (NULL: none; origin names
 * it in messages), then each of the set_count `--set` assignments. Every path that reads a
 * configuration (before MPI_Init, on every rank, --resume, --replay, --plan) loads it so. */
int nbc_config_load(nbc_config *cfg, const char *text, const char *origin, const char *const *sets,
                    int set_count, char *err, size_t errlen);

/* Checks bounds, names against limits (NULL: nothing known) and the keys that
 * depend on each other; creates run.results_dir when its parent exists and it
 * does not (last, so only for an otherwise valid configuration). */
int nbc_config_validate(const nbc_config *cfg, const nbc_config_limits *limits, char *err,
                        size_t errlen);

/* Every key: section, type, unit, default, allowed values and help text. */
void nbc_config_print_help(FILE *out);

/* The full effective configuration as INI text that parses back to the same
 * configuration (the run folder's config.ini). Returns 0, or -1 on a write error. */
int nbc_config_dump_ini(const nbc_config *cfg, FILE *out);

/* The configuration as a JSON object, one member per section (durations in
 * seconds, grids as arrays of seconds, byte sizes in bytes); NULL when out of
 * memory. The caller owns the reference. */
struct json_object *nbc_config_to_json(const nbc_config *cfg);

/* The communication axis's cells: grid.comm_sizes' when it gives the axis,
 * else grid.comm_times' (validation keeps exactly one of them non-empty). */
static inline size_t nbc_comm_axis_count(const nbc_config *cfg)
{
    return cfg->grid.comm_size_count > 0 ? cfg->grid.comm_size_count : cfg->grid.comm_count;
}

const char *nbc_deployment_name(nbc_deployment deployment);
/* The library profile's section [deployment.<key>] the deployment reads
 * (mpiprofile_deployment_find). */
const char *nbc_deployment_profile_key(nbc_deployment deployment);
const char *nbc_progress_mode_name(nbc_progress_mode mode);
/* The mode as progress.mode spells it: none, test:K (K = test_count), thread. */
void nbc_progress_mode_text(nbc_progress_mode mode, int test_count, char *buf, size_t len);

#endif
