/* runfolder/: a run folder's files (docs/formats.md), rank 0 writing.
 *
 *   output.c        the folder and its CSV files
 *   meta.c          meta.json
 *   resume.c        what an interrupted run folder already holds
 *   replay.c        one cell of a finished or cut run measured again
 *   node_record.c   provenance.json: each node's facts (provenance/), warnings
 *   mpit.c          the library seen through MPI_T: control variables,
 *                   performance counters per cell */
#ifndef BENCH_NBC_RUNFOLDER_H
#define BENCH_NBC_RUNFOLDER_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_nbc/measure/measure.h"
#include "bench_nbc/run.h"
#include "config/config.h"

/* ---- resume.c (rank 0 reads, main broadcasts) ---- */
typedef struct nbc_resume {
    compute_calib_result *comp; /* [comp_count], the first comp_done valid */
    size_t comp_done;
    nbc_comm_calibration *comm; /* [comm_count], the first comm_done valid */
    size_t comm_done;
    bool passive_done;     /* passive.csv holds every size of every rank, before the sweep */
    bool *cell_done;       /* [cells]: whole in raw.csv, with its row in sweep.csv */
    long raw_keep_bytes;   /* raw.csv up to the last whole cell */
    long sweep_keep_bytes; /* sweep.csv up to the row of that cell */
    int64_t next_seq;      /* after the last attempt kept in raw.csv */
} nbc_resume;

int nbc_resume_load(const char *dir, const nbc_config *cfg, int ranks, nbc_resume *state, char *err,
                    size_t errlen);
/* The calibrations of a run folder, read without changing it (the rest of
 * state is empty). 0, or -1 with a message. */
int nbc_resume_read_calibrations(const char *dir, const nbc_config *cfg, nbc_resume *state,
                                 char *err, size_t errlen);
void nbc_resume_free(nbc_resume *state);

/* ---- replay.c: one cell of a finished or cut run measured again ---- */
struct meta_info;
/* bench_nbc --replay CELL RUN_DIR makes a new run folder from RUN_DIR's
 * config.ini and calibrations (never writing into RUN_DIR) and measures only
 * that cell (docs/running.md). */
typedef struct nbc_replay {
    const char *cell_text; /* NULL: not a replay */
    const char *run_dir;
    const char *const *sets; /* --set given with --replay (run.results_dir only) */
    int set_count;
    long cell;
    char config_path[4096]; /* RUN_DIR/config.ini: the configuration */
    char run_dir_abs[4096];
    bool *mask;             /* [cells]: true for every cell but the replayed one */
    struct json_object *of; /* meta.json's replay_of (rank 0) */
} nbc_replay;

/* Command line: --replay's CELL is given, RUN_DIR is the next argument
 * (*next, advanced). Refuses --config, --resume and any --set but
 * run.results_dir. 0, or 2 with a message. No MPI. */
int nbc_replay_cli(nbc_replay *r, int argc, char **argv, int *next, bool has_config,
                   const char *const *sets, int set_count, char *err, size_t errlen);
/* Collective, once the configuration is valid and before anything is
 * measured: RUN_DIR's meta.json and calibrations against this job (a
 * different rank count or library, an unknown or unreachable cell: exit 2
 * on every rank; a different library version, node count or environment: a
 * warning on rank 0). Builds the cell mask. */
void nbc_replay_check(nbc_replay *r, const nbc_config *cfg, int rank, int ranks);
/* Collective, once the new run folder exists: rank 0 copies RUN_DIR's
 * calibrations into it, adds replay_of to meta, writes replay.sh and
 * prints the command on stdout (exit 1 on every rank when a file could
 * not be written). */
void nbc_replay_seed(nbc_replay *r, nbc_run *run, struct meta_info *meta);
void nbc_replay_free(nbc_replay *r);

/* ---- output.c (rank 0) ---- */
/* OUT_SWEEP last: a cell's sweep.csv row is flushed after its raw.csv rows. */
typedef enum {
    OUT_RAW,
    OUT_CALIB_COMM,
    OUT_CALIB_COMP,
    OUT_PASSIVE,
    OUT_SCHED,
    OUT_SWEEP,
    OUT_FILE_COUNT
} out_file;

/* Creates a new run folder under results_dir, named
 * <date>-<time>-<mpi_profile>-<collective>-<deployment> (never reusing a
 * name), or opens an existing one to resume. NULL with a message on failure. */
run_output *run_output_create(const char *results_dir, const char *mpi_profile,
                              const char *collective, const char *deployment, char *err,
                              size_t errlen);
run_output *run_output_open(const char *run_dir, char *err, size_t errlen);
const char *run_output_dir(const run_output *out);
/* The CSV file of a kind (header written when the file is new). */
FILE *run_output_file(run_output *out, out_file which);
/* Its file name and header line (no newline). */
const char *run_output_name(out_file which);
const char *run_output_header(out_file which);
/* Flushes every file; -1 on an I/O error (message on stderr). */
int run_output_flush(run_output *out);
/* Flushes every file and waits until the disk has them (fsync), so no
 * write-back of them runs during what is measured next; -1 on an error. */
int run_output_sync(run_output *out);
/* Writes path (relative to the run folder) atomically: temporary + rename. */
int run_output_write_atomic(run_output *out, const char *name, const char *text);
/* --run-dir-file: writes the run folder's absolute path and a newline into
 * file (temporary + rename), for the program that launched the run. */
int run_output_publish_dir(const run_output *out, const char *file, char *err, size_t errlen);
/* Replacing a CSV file atomically: begin copies its first keep_bytes (the
 * header included; 0: a fresh header) into a temporary file and returns it
 * for the caller to append to; commit renames
 * it over the file (which stays open for appending). */
FILE *run_output_begin_replace(run_output *out, out_file which, long keep_bytes);
int run_output_commit_replace(run_output *out, out_file which, FILE *replacement);
void run_output_close(run_output *out);

/* ---- meta.c (rank 0 writes) ---- */
struct json_object;
typedef struct meta_info {
    const char *status;
    char start_time[32], end_time[32];
    char library_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int mpi_version, mpi_subversion, thread_level;
    struct json_object *hosts;       /* per rank */
    struct json_object *binding;     /* per rank: cpu list */
    struct json_object *clocksync;   /* filled at the end */
    struct json_object *measurement; /* how the sweep measured: top-level keys (docs/formats.md) */
    struct json_object *deployment;  /* the plan and its threads: top-level keys */
    struct json_object *system;      /* provenance, warnings, MPI_T: top-level keys */
    struct json_object *thread_record; /* every thread, sched.csv's cost: top-level keys */
    int nodes, threads;
    int cells_total, cells_done;
    double calibration_s, sweep_s;
    const char *failure; /* why the run failed, when it did */
} meta_info;
/* Adds a top-level key of meta.json to meta->system (takes the reference). */
void nbc_meta_add_system(meta_info *meta, const char *key, struct json_object *value);

void nbc_iso_time_now(char *buf, size_t size);
int nbc_meta_write(nbc_run *run, const meta_info *m);
/* Rank 0: the run folder's meta.json with `key` set to `value` (taken),
 * the rest as it is on disk; 0, or -1 with a message. */
int nbc_meta_replace_key(run_output *out, const char *key, struct json_object *value);
/* This process's variables of the prefixes meta.json's `environment`
 * records (a new object). */
struct json_object *nbc_meta_environment_json(void);
/* Collective: every rank's object (a new reference, consumed) gathered into
 * an array on rank 0, indexed by rank; NULL on the other ranks. */
struct json_object *nbc_meta_gather_json(nbc_run *run, struct json_object *mine);
/* Collective: the clock sync summary of every rank (NULL except on rank 0);
 * raw_times says how raw.csv's times were converted (docs/formats.md). */
struct json_object *nbc_meta_clocksync_json(nbc_run *run, const char *raw_times);
/* The watchdog is about to end the job: rank 0 records why in meta.json
 * (every finished cell is already on disk). */
typedef struct watchdog_record {
    nbc_run *run;
    meta_info *meta;
} watchdog_record;
/* watchdog_fire_fn with a watchdog_record: rank 0 writes status "failed". */
void nbc_meta_record_watchdog(void *context, const char *message);

/* ---- node_record.c ---- */
/* Collective: provenance.json and topology-<host>.xml of every node written
 * by rank 0, the warnings printed and added to meta (`provenance`,
 * `warnings`). 0, or -1 on rank 0 when a file could not be written. */
int nbc_provenance_record(nbc_run *run, meta_info *meta);
/* Collective: nbc_provenance_record and nbc_mpit_start; every rank exits (1)
 * when rank 0 could not write their files. */
void nbc_record_system(nbc_run *run, meta_info *meta);

/* ---- mpit.c ---- */
/* Collective: MPI_T started; rank 0 writes mpit_cvars.csv and adds `mpi_t`
 * and `collective_settings` to meta; the performance counters the library
 * exposes are readied for the cells (run->mpit; NULL when none). 0, or -1
 * on rank 0 when mpit_cvars.csv could not be written. */
int nbc_mpit_start(nbc_run *run, meta_info *meta);
/* Around each visit of a cell (sweep.c): the counters read before it
 * (begin) and their growth added to the cell's after it (pause: MPI error
 * code, MPI_ERR_NO_MEM); once the cell ended, its deltas over all its visits
 * appended to mpit_pvars.csv by rank 0 (end: collective; MPI error code).
 * All do nothing for NULL. */
void nbc_mpit_cell_begin(nbc_mpit *m);
int nbc_mpit_cell_pause(nbc_mpit *m, size_t cell);
int nbc_mpit_cell_end(nbc_run *run, size_t cell);
/* Sessions and MPI_T ended (before MPI_Finalize); accepts NULL. */
void nbc_mpit_free(nbc_mpit *m);
/* The job's reference to MPI_T, after MPI_Init and before MPI_Finalize:
 * the studies' own start and free then never end the interface (MPICH 4.0
 * cannot initialise it again). Failure is left to nbc_mpit_start to say. */
void nbc_mpit_job_begin(void);
void nbc_mpit_job_end(void);

#endif
