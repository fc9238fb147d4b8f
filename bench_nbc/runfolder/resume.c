/* --resume RUN_DIR: what an interrupted run already holds (rank 0 reads it,
 * every rank receives it). Calibrations are re-used, whole cells of raw.csv
 * are kept and anything after the last whole cell (a cell cut short, a line
 * cut by SIGKILL) is dropped from the rewrite. */
#include "bench_nbc/measure/measure.h"
#include "bench_nbc/measure/visit_plan.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "schema/schema.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most fields a line of a file read here has (more: not a row). */
enum { RESUME_MAX_FIELDS = 32 };

/* Splits a CSV line (no trailing newline) in place; returns the field count. */
static int split_fields(char *line, char **fields, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = '\0';
    }
    return n;
}

static bool same_time(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* The header of a file this run appends to must be this version's (the
 * schema's, schema/columns.def), or new rows would not match it; and the
 * columns a scan reads are found by name in it. Returns 0, or -1 with one
 * message naming the file and the column. */
static int read_header(schema_file file, const char *path, char *line, char **fields, int n,
                       const schema_column *wanted, size_t wanted_count, int *position, char *err,
                       size_t errlen)
{
    char why[512];
    if (!schema_header_matches(file, path, line, why, sizeof why)) {
        snprintf(err, errlen,
                 "--resume: %s: written by another version of bench_nbc, whose run folders this "
                 "one does not resume (docs/formats.md)",
                 why);
        return -1;
    }
    if ((int)schema_file_column_count(file) > n) {
        snprintf(err, errlen, "--resume: %s has more columns than bench_nbc reads (%d)", path, n);
        return -1;
    }
    (void)split_fields(line, fields, n);
    return schema_locate(file, path, (const char *const *)fields, schema_file_column_count(file),
                         wanted, wanted_count, position, err, errlen);
}

/* Reads whole lines of a file after its header; calls row(values, ctx) for
 * each, values[i] the field of wanted[i]; stops at the first that returns
 * false. *keep_bytes is the length of the header and the rows accepted.
 * Returns -1 when the file cannot be read or its header is not this
 * version's (a missing file counts as empty). */
static int each_row(const char *dir, schema_file file, const schema_column *wanted,
                    size_t wanted_count, bool (*row)(char **, void *), void *ctx, long *keep_bytes,
                    char *err, size_t errlen)
{
    *keep_bytes = 0;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, schema_file_name(file));
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool header = true;
    int status = 0, position[RESUME_MAX_FIELDS];
    int columns = (int)schema_file_column_count(file);
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n')
            break; /* a line cut short is not a row */
        line[len - 1] = '\0';
        char *fields[RESUME_MAX_FIELDS], *values[RESUME_MAX_FIELDS];
        if (header) {
            status = read_header(file, path, line, fields, RESUME_MAX_FIELDS, wanted, wanted_count,
                                 position, err, errlen);
            if (status != 0)
                break;
        } else {
            if (split_fields(line, fields, RESUME_MAX_FIELDS) != columns)
                break;
            for (size_t w = 0; w < wanted_count; w++)
                values[w] = fields[position[w]];
            if (!row(values, ctx))
                break;
        }
        header = false;
        *keep_bytes += len;
    }
    free(line);
    fclose(f);
    return status;
}

typedef struct calib_ctx {
    nbc_resume *state;
    const nbc_config *cfg;
} calib_ctx;

/* calib_comp.csv: the columns read, in the order comp_row takes them. */
static const schema_column comp_columns[] = {COL_CALIB_COMP_COMP_TARGET, COL_CALIB_COMP_MATRIX_N,
                                             COL_CALIB_COMP_T_COMP,      COL_CALIB_COMP_GFLOPS,
                                             COL_CALIB_COMP_ITERATIONS,  COL_CALIB_COMP_CONVERGED};

static bool comp_row(char **f, void *p)
{
    calib_ctx *c = p;
    size_t j = c->state->comp_done;
    if (j >= c->cfg->grid.comp_count ||
        !same_time(strtod(f[0], NULL), c->cfg->grid.comp_times_s[j]))
        return false;
    compute_calib_result *r = &c->state->comp[j];
    *r = (compute_calib_result){
        .target_s = strtod(f[0], NULL),
        .matrix_n = strtoull(f[1], NULL, 10),
        .t_s = strtod(f[2], NULL),
        .gflops_per_thread = strtod(f[3], NULL),
        .iterations = atoi(f[4]),
        .converged = atoi(f[5]) != 0,
    };
    r->status = r->converged ? COMPUTE_CALIB_CONVERGED : COMPUTE_CALIB_NOT_CONVERGED;
    c->state->comp_done++;
    return true;
}

/* calib_comm.csv: the columns read, in the order comm_row takes them. */
static const schema_column comm_columns[] = {COL_CALIB_COMM_COMM_TARGET, COL_CALIB_COMM_BYTES,
                                             COL_CALIB_COMM_T_COMM,      COL_CALIB_COMM_ITERATIONS,
                                             COL_CALIB_COMM_CONVERGED,   COL_CALIB_COMM_SIZE_GIVEN};

/* A row is the configuration's i-th point of the axis: its target time, or
 * with grid.comm_sizes its given size. */
static bool same_comm_point(const nbc_config *cfg, size_t i, char **f)
{
    bool given = atoi(f[5]) != 0;
    if (cfg->grid.comm_size_count > 0)
        return given && strtoull(f[1], NULL, 10) == cfg->grid.comm_sizes_bytes[i];
    return !given && same_time(strtod(f[0], NULL), cfg->grid.comm_times_s[i]);
}

static bool comm_row(char **f, void *p)
{
    calib_ctx *c = p;
    size_t i = c->state->comm_done;
    if (i >= nbc_comm_axis_count(c->cfg) || !same_comm_point(c->cfg, i, f))
        return false;
    nbc_comm_calibration *r = &c->state->comm[i];
    *r = (nbc_comm_calibration){
        .target_s = strtod(f[0], NULL),
        .bytes = strtoull(f[1], NULL, 10),
        .t_s = strtod(f[2], NULL),
        .iterations = atoi(f[3]),
        .converged = atoi(f[4]) != 0,
        .size_given = atoi(f[5]) != 0,
    };
    r->bytes_closest = r->bytes;
    c->state->comm_done++;
    return true;
}

/* passive.csv rows (one per rank and step) of the phase before the sweep
 * (those after it are measured again when the sweep ends). */
static const schema_column passive_columns[] = {COL_PASSIVE_PHASE};

static bool count_before_row(char **f, void *p)
{
    if (strcmp(f[0], "before") != 0)
        return false;
    ++*(size_t *)p;
    return true;
}

/* sweep.csv: how many blocks each recorded cell ran (-1: no row). */
typedef struct sweep_ctx {
    int *blocks; /* [cells] */
    size_t cells;
    const bool *cell_done; /* trimming: rows are kept while their cell is done */
} sweep_ctx;

static const schema_column sweep_columns[] = {COL_SWEEP_CELL, COL_SWEEP_BLOCKS};

static bool sweep_row(char **f, void *p)
{
    sweep_ctx *c = p;
    char *end;
    long cell = strtol(f[0], &end, 10);
    if (*end != '\0' || cell < 0 || (size_t)cell >= c->cells)
        return false;
    if (c->cell_done)
        return c->cell_done[cell];
    c->blocks[cell] = atoi(f[1]);
    return true;
}

/* Kept rows of a whole cell of `blocks` measured blocks: the warm-up of
 * each of its visits and each block's three kinds, the null controls of its
 * null blocks, on every rank. */
static size_t kept_rows(const nbc_config *cfg, int blocks, int ranks)
{
    int visits = nbc_visits_made(cfg->run.repetitions, cfg->run.visits, NBC_ORDER_COUNT, blocks);
    size_t kept = (size_t)(blocks + visits) * KIND_MAIN_COUNT;
    for (int block = 1; block <= blocks; block++)
        kept += nbc_null_block(cfg->run.null_share, block) ? KIND_COUNT - KIND_MAIN_COUNT : 0;
    return kept * (size_t)ranks;
}

/* raw.csv columns the scan reads, found by name in its header. */
enum { RAW_CELL, RAW_BLOCK, RAW_ATTEMPT, RAW_SEQ, RAW_LATE, RAW_COLUMNS };
static const schema_column raw_columns[RAW_COLUMNS] = {[RAW_CELL] = COL_RAW_CELL,
                                                       [RAW_BLOCK] = COL_RAW_BLOCK,
                                                       [RAW_ATTEMPT] = COL_RAW_ATTEMPT,
                                                       [RAW_SEQ] = COL_RAW_SEQ,
                                                       [RAW_LATE] = COL_RAW_LATE};

/* Finds the whole cells of raw.csv and the byte length they take. A cell's
 * rows are written at once when it ends, then its row of sweep.csv; it is
 * whole when it has that row and each (block, kind) of the blocks it says
 * was kept on every rank, or when a block ran out of redos (the cell
 * stopped there). A late attempt ends its block's pass: the pass's rows on
 * time before it are not kept (the block is redone). blocks[cell]:
 * sweep.csv's count, -1 without a row; NULL without sweep.csv (an older
 * bench_nbc: run.repetitions blocks a cell). */
static int scan_raw(const char *dir, const nbc_config *cfg, int ranks, const int *blocks,
                    nbc_resume *state, size_t cells, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, schema_file_name(SCHEMA_RAW));
    FILE *f = fopen(path, "r");
    state->raw_keep_bytes = 0;
    state->next_seq = 0;
    if (!f && errno == ENOENT)
        return 0; /* stopped before the sweep */
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int column[RAW_COLUMNS], columns = (int)schema_file_column_count(SCHEMA_RAW);
    char *line = NULL;
    size_t cap = 0, kept = 0, exhausted = 0, kept_per_cell = 0, pass_kept = 0;
    long pass_block = -1, pass_attempt = -1; /* the block pass the last row was of */
    long block_first_attempt = 0;            /* the first pass of the rows' block */
    ssize_t len;
    long offset = 0, cell = -1;
    int64_t seq_max = -1, cell_seq_max = -1;
    int status = 0;
    while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
        line[len - 1] = '\0';
        char *fields[RESUME_MAX_FIELDS];
        offset += len;
        if (offset == len) { /* the header */
            status = read_header(SCHEMA_RAW, path, line, fields, RESUME_MAX_FIELDS, raw_columns,
                                 RAW_COLUMNS, column, err, errlen);
            if (status != 0)
                break;
            state->raw_keep_bytes = offset;
            continue;
        }
        if (split_fields(line, fields, RESUME_MAX_FIELDS) != columns)
            break;
        char *end;
        long this_cell = strtol(fields[column[RAW_CELL]], &end, 10);
        if (*end != '\0' || this_cell < 0 || (size_t)this_cell >= cells)
            break;
        if (this_cell != cell) {
            if (cell >= 0)
                break; /* the previous cell was not whole: stop before it */
            if (blocks && blocks[this_cell] < 0)
                break; /* no row in sweep.csv: cut before it was written */
            cell = this_cell;
            kept = exhausted = pass_kept = 0;
            kept_per_cell = kept_rows(cfg, blocks ? blocks[cell] : cfg->run.repetitions, ranks);
        }
        int64_t seq = strtoll(fields[column[RAW_SEQ]], NULL, 10);
        cell_seq_max = seq > cell_seq_max ? seq : cell_seq_max;
        bool late = strcmp(fields[column[RAW_LATE]], "1") == 0;
        long block = strtol(fields[column[RAW_BLOCK]], NULL, 10);
        long attempt = strtol(fields[column[RAW_ATTEMPT]], NULL, 10);
        if (block != pass_block || attempt != pass_attempt)
            pass_kept = 0;
        if (block != pass_block)
            block_first_attempt = attempt; /* a later visit's warm-up numbers on */
        pass_block = block;
        pass_attempt = attempt;
        kept = late ? kept - pass_kept : kept + 1;
        pass_kept = late ? 0 : pass_kept + 1;
        exhausted += late && attempt - block_first_attempt == cfg->run.max_retries;
        if (kept == kept_per_cell || exhausted == (size_t)ranks) {
            state->cell_done[cell] = true;
            state->raw_keep_bytes = offset;
            seq_max = cell_seq_max;
            cell = -1;
        }
    }
    free(line);
    fclose(f);
    state->next_seq = seq_max + 1;
    return status;
}

/* The calibrations of a run folder (read only); *comp_bytes, *comm_bytes:
 * the length of their whole rows. */
static int read_calibrations(const char *dir, const nbc_config *cfg, nbc_resume *state,
                             long *comp_bytes, long *comm_bytes, char *err, size_t errlen)
{
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    *state = (nbc_resume){
        .comp = calloc(cfg->grid.comp_count, sizeof(compute_calib_result)),
        .comm = calloc(nbc_comm_axis_count(cfg), sizeof(nbc_comm_calibration)),
        .cell_done = calloc(cells, sizeof(bool)),
    };
    if (!state->comp || !state->comm || !state->cell_done) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    calib_ctx ctx = {.state = state, .cfg = cfg};
    if (each_row(dir, SCHEMA_CALIB_COMP, comp_columns, sizeof comp_columns / sizeof *comp_columns,
                 comp_row, &ctx, comp_bytes, err, errlen) != 0 ||
        each_row(dir, SCHEMA_CALIB_COMM, comm_columns, sizeof comm_columns / sizeof *comm_columns,
                 comm_row, &ctx, comm_bytes, err, errlen) != 0)
        return -1;
    return 0;
}

int nbc_resume_read_calibrations(const char *dir, const nbc_config *cfg, nbc_resume *state,
                                 char *err, size_t errlen)
{
    long comp_bytes, comm_bytes;
    return read_calibrations(dir, cfg, state, &comp_bytes, &comm_bytes, err, errlen);
}

int nbc_resume_load(const char *dir, const nbc_config *cfg, int ranks, nbc_resume *state, char *err,
                    size_t errlen)
{
    size_t cells = nbc_comm_axis_count(cfg) * cfg->grid.comp_count;
    long comp_bytes, comm_bytes, passive_bytes;
    if (read_calibrations(dir, cfg, state, &comp_bytes, &comm_bytes, err, errlen) != 0)
        return -1;
    size_t passive_rows = 0;
    if (each_row(dir, SCHEMA_PASSIVE, passive_columns, 1, count_before_row, &passive_rows,
                 &passive_bytes, err, errlen) != 0)
        return -1;
    state->passive_done =
        passive_rows == cfg->grid.comp_count * (size_t)ranks * (size_t)nbc_passive_reps(cfg);
    int *blocks = malloc(cells * sizeof *blocks);
    if (!blocks) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t c = 0; c < cells; c++)
        blocks[c] = -1;
    sweep_ctx sweep = {.blocks = blocks, .cells = cells};
    char sweep_path[PATH_MAX + 64];
    snprintf(sweep_path, sizeof sweep_path, "%s/%s", dir, schema_file_name(SCHEMA_SWEEP));
    bool have_sweep = access(sweep_path, F_OK) == 0;
    int status = each_row(dir, SCHEMA_SWEEP, sweep_columns, 2, sweep_row, &sweep,
                          &state->sweep_keep_bytes, err, errlen);
    if (status == 0)
        status = scan_raw(dir, cfg, ranks, have_sweep ? blocks : NULL, state, cells, err, errlen);
    free(blocks);
    /* sweep.csv keeps the rows of the cells kept in raw.csv (the same order) */
    sweep.cell_done = state->cell_done;
    if (status == 0 && have_sweep)
        status = each_row(dir, SCHEMA_SWEEP, sweep_columns, 2, sweep_row, &sweep,
                          &state->sweep_keep_bytes, err, errlen);
    if (status != 0)
        return -1;
    /* Drop what will be redone, so new rows never follow a cut line. A
     * file without even its header is removed and written anew. */
    const struct {
        schema_file file;
        long keep;
    } cuts[] = {{SCHEMA_CALIB_COMP, comp_bytes},
                {SCHEMA_CALIB_COMM, comm_bytes},
                {SCHEMA_PASSIVE, state->passive_done ? passive_bytes : 0},
                {SCHEMA_RAW, state->raw_keep_bytes},
                {SCHEMA_SWEEP, state->sweep_keep_bytes}};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", dir, schema_file_name(cuts[i].file));
        int rc = cuts[i].keep > 0 ? truncate(path, cuts[i].keep) : unlink(path);
        if (rc != 0 && errno != ENOENT) {
            snprintf(err, errlen, "cannot trim %s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

void nbc_resume_free(nbc_resume *state)
{
    free(state->comp);
    free(state->comm);
    free(state->cell_done);
    *state = (nbc_resume){0};
}
