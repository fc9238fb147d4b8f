/* analysis: readers of the run folder's files (docs/formats.md; raw.csv's in
 * inputs_raw.c). */
#include "analysis/analysis_internal.h"

#include <json-c/json.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Small tables --------------------------------------------------------- */

static int parse_flag(const csv_record *record, schema_column column, bool *out,
                      analysis_error *err)
{
    long long value;
    int status = csv_long(record, column, 0, 1, &value, err);
    *out = value == 1;
    return status;
}

static const schema_column calib_comm_columns[] = {COL_CALIB_COMM_COLLECTIVE,
                                                   COL_CALIB_COMM_COMM_TARGET, COL_CALIB_COMM_BYTES,
                                                   COL_CALIB_COMM_T_COMM, COL_CALIB_COMM_CONVERGED};

static int calib_comm_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    calib_comm_row row = {0};
    int status;
    if ((status = csv_string(record, COL_CALIB_COMM_COLLECTIVE, row.collective,
                             sizeof row.collective, err)) ||
        (status = csv_double(record, COL_CALIB_COMM_COMM_TARGET, false, &row.comm_target_s, err)) ||
        (status = csv_long(record, COL_CALIB_COMM_BYTES, 0, LLONG_MAX, &row.bytes, err)) ||
        (status = csv_double(record, COL_CALIB_COMM_T_COMM, true, &row.t_comm_s, err)) ||
        (status = parse_flag(record, COL_CALIB_COMM_CONVERGED, &row.converged, err)))
        return status;
    /* Without the column (a file of a bench_nbc that only searched sizes)
     * every size was searched for its target. */
    if (csv_field_position(record, COL_CALIB_COMM_SIZE_GIVEN) != SIZE_MAX &&
        (status = parse_flag(record, COL_CALIB_COMM_SIZE_GIVEN, &row.size_given, err)))
        return status;
    return csv_push(ctx, &row, err);
}

int analysis_parse_calib_comm(const char *buf, size_t len, const char *file_name,
                              calib_comm_row **rows, size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_CALIB_COMM, CSV_COLUMNS(calib_comm_columns), false,
                                      NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, calib_comm_fn, sizeof **rows, (void **)rows,
                          count, err);
}

static const schema_column calib_comp_columns[] = {COL_CALIB_COMP_COMP_TARGET,
                                                   COL_CALIB_COMP_MATRIX_N, COL_CALIB_COMP_T_COMP,
                                                   COL_CALIB_COMP_CONVERGED};

static int calib_comp_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    calib_comp_row row = {0};
    int status;
    if ((status = csv_double(record, COL_CALIB_COMP_COMP_TARGET, false, &row.comp_target_s, err)) ||
        (status = csv_long(record, COL_CALIB_COMP_MATRIX_N, 0, INT_MAX, &row.matrix_n, err)) ||
        (status = csv_double(record, COL_CALIB_COMP_T_COMP, true, &row.t_comp_s, err)) ||
        (status = parse_flag(record, COL_CALIB_COMP_CONVERGED, &row.converged, err)))
        return status;
    return csv_push(ctx, &row, err);
}

int analysis_parse_calib_comp(const char *buf, size_t len, const char *file_name,
                              calib_comp_row **rows, size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_CALIB_COMP, CSV_COLUMNS(calib_comp_columns), false,
                                      NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, calib_comp_fn, sizeof **rows, (void **)rows,
                          count, err);
}

static const char *const phase_names[PHASE_COUNT] = {
    [PHASE_BEFORE] = "before",
    [PHASE_AFTER] = "after",
};

/* compute_ref's phases: also "aa", the A/A partner of the phase before. */
static const char *const ref_phase_names[PHASE_COUNT + 1] = {
    [PHASE_BEFORE] = "before",
    [PHASE_AFTER] = "after",
    [PHASE_COUNT] = "aa",
};

const char *analysis_phase_name(enum run_phase phase)
{
    return phase < PHASE_COUNT ? phase_names[phase] : "?";
}

/* Columns the older passive.csv and compute_ref.csv lacked: first one row
 * per rank or host without a phase, then one row per rank or process
 * holding its median, without the steps. (passive.csv's scheduler counters,
 * window_ns to progress_cpu_ns, came later still; a file without them is
 * read, its counters NAN: optional_ns.) */
static const schema_column passive_new_columns[] = {COL_PASSIVE_PHASE, COL_PASSIVE_WARMUP_STEPS,
                                                    COL_PASSIVE_STEP};
static const schema_column compute_ref_new_columns[] = {
    COL_COMPUTE_REF_PHASE, COL_COMPUTE_REF_WARMUP_STEPS, COL_COMPUTE_REF_PROC,
    COL_COMPUTE_REF_PROCS, COL_COMPUTE_REF_STEP};

/* A step number below the row's reps. */
static int check_step(const csv_record *record, schema_column column, long long step,
                      long long reps, analysis_error *err)
{
    if (step < reps)
        return ANALYSIS_OK;
    return analysis_fail(
        err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (step): %lld is not below reps (%lld)",
        record->file_name, record->line, csv_field_position(record, column) + 1, step, reps);
}

static const schema_column passive_columns[] = {
    COL_PASSIVE_HOST,        COL_PASSIVE_RANK,  COL_PASSIVE_THREADS,      COL_PASSIVE_MATRIX_N,
    COL_PASSIVE_COMP_TARGET, COL_PASSIVE_PHASE, COL_PASSIVE_WARMUP_STEPS, COL_PASSIVE_REPS,
    COL_PASSIVE_STEP,        COL_PASSIVE_T_COMP};

/* A counter of the scheduler (ns) in a column an older passive.csv lacks:
 * NAN when the column is absent or the rank wrote -1 (not read). */
static int optional_ns(const csv_record *record, schema_column column, double *out,
                       analysis_error *err)
{
    *out = NAN;
    if (csv_field_position(record, column) == SIZE_MAX)
        return ANALYSIS_OK;
    long long value;
    int status = csv_long(record, column, -1, LLONG_MAX, &value, err);
    if (status == ANALYSIS_OK && value >= 0)
        *out = (double)value;
    return status;
}

static int passive_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    passive_row row = {0};
    long long rank, threads, warmup, reps, step;
    int phase;
    int status;
    if ((status = csv_string(record, COL_PASSIVE_HOST, row.host, sizeof row.host, err)) ||
        (status = csv_long(record, COL_PASSIVE_RANK, 0, LONG_MAX, &rank, err)) ||
        (status = csv_long(record, COL_PASSIVE_THREADS, 1, INT_MAX, &threads, err)) ||
        (status = csv_long(record, COL_PASSIVE_MATRIX_N, 0, INT_MAX, &row.matrix_n, err)) ||
        (status = csv_double(record, COL_PASSIVE_COMP_TARGET, false, &row.comp_target_s, err)) ||
        (status = csv_name(record, COL_PASSIVE_PHASE, phase_names, PHASE_COUNT, &phase, err)) ||
        (status = csv_long(record, COL_PASSIVE_WARMUP_STEPS, 0, INT_MAX, &warmup, err)) ||
        (status = csv_long(record, COL_PASSIVE_REPS, 1, INT_MAX, &reps, err)) ||
        (status = csv_long(record, COL_PASSIVE_STEP, 0, INT_MAX, &step, err)) ||
        (status = check_step(record, COL_PASSIVE_STEP, step, reps, err)) ||
        (status = csv_double(record, COL_PASSIVE_T_COMP, false, &row.t_comp_s, err)) ||
        (status = optional_ns(record, COL_PASSIVE_WINDOW, &row.window_ns, err)) ||
        (status = optional_ns(record, COL_PASSIVE_COMPUTE_CPU, &row.compute_cpu_ns, err)) ||
        (status =
             optional_ns(record, COL_PASSIVE_COMPUTE_RUN_DELAY, &row.compute_run_delay_ns, err)) ||
        (status = optional_ns(record, COL_PASSIVE_PROGRESS_CPU, &row.progress_cpu_ns, err)))
        return status;
    row.step = (long)step;
    row.rank = (long)rank;
    row.threads = (long)threads;
    row.phase = (enum run_phase)phase;
    row.warmup_steps = (long)warmup;
    row.reps = (long)reps;
    return csv_push(ctx, &row, err);
}

int analysis_parse_passive(const char *buf, size_t len, const char *file_name, passive_row **rows,
                           size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_PASSIVE, CSV_COLUMNS(passive_columns), false,
                                      CSV_COLUMNS(passive_new_columns)};
    return csv_parse_rows(buf, len, file_name, &schema, passive_fn, sizeof **rows, (void **)rows,
                          count, err);
}

static const schema_column compute_ref_columns[] = {
    COL_COMPUTE_REF_HOST,    COL_COMPUTE_REF_PROC,         COL_COMPUTE_REF_PROCS,
    COL_COMPUTE_REF_THREADS, COL_COMPUTE_REF_MATRIX_N,     COL_COMPUTE_REF_COMP_TARGET,
    COL_COMPUTE_REF_PHASE,   COL_COMPUTE_REF_WARMUP_STEPS, COL_COMPUTE_REF_REPS,
    COL_COMPUTE_REF_STEP,    COL_COMPUTE_REF_T_COMP,
};

static int compute_ref_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    compute_ref_row row = {0};
    long long proc, procs, threads, warmup, reps, step;
    int phase;
    int status;
    if ((status = csv_string(record, COL_COMPUTE_REF_HOST, row.host, sizeof row.host, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_PROC, 0, INT_MAX, &proc, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_PROCS, 1, INT_MAX, &procs, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_THREADS, 1, INT_MAX, &threads, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_MATRIX_N, 0, INT_MAX, &row.matrix_n, err)) ||
        (status =
             csv_double(record, COL_COMPUTE_REF_COMP_TARGET, false, &row.comp_target_s, err)) ||
        (status = csv_name(record, COL_COMPUTE_REF_PHASE, ref_phase_names, PHASE_COUNT + 1, &phase,
                           err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_WARMUP_STEPS, 0, INT_MAX, &warmup, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_REPS, 1, INT_MAX, &reps, err)) ||
        (status = csv_long(record, COL_COMPUTE_REF_STEP, 0, INT_MAX, &step, err)) ||
        (status = check_step(record, COL_COMPUTE_REF_STEP, step, reps, err)) ||
        (status = csv_double(record, COL_COMPUTE_REF_T_COMP, false, &row.t_comp_s, err)))
        return status;
    row.step = (long)step;
    if (proc >= procs) {
        size_t position = csv_field_position(record, COL_COMPUTE_REF_PROC);
        return analysis_fail(
            err, ANALYSIS_ERR_INPUT, "%s:%ld: column %zu (%s): %lld is not below %s (%lld)",
            record->file_name, record->line, position + 1, record->header[position], proc,
            schema_column_name(COL_COMPUTE_REF_PROCS), procs);
    }
    row.proc = (long)proc;
    row.procs = (long)procs;
    row.threads = (long)threads;
    row.aa = phase == PHASE_COUNT;
    row.phase = row.aa ? PHASE_BEFORE : (enum run_phase)phase;
    row.warmup_steps = (long)warmup;
    row.reps = (long)reps;
    return csv_push(ctx, &row, err);
}

int analysis_parse_compute_ref(const char *buf, size_t len, const char *file_name,
                               compute_ref_row **rows, size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_COMPUTE_REF, CSV_COLUMNS(compute_ref_columns), true,
                                      CSV_COLUMNS(compute_ref_new_columns)};
    return csv_parse_rows(buf, len, file_name, &schema, compute_ref_fn, sizeof **rows,
                          (void **)rows, count, err);
}

/* ---- meta.json ------------------------------------------------------------ */

static int meta_string(json_object *root, const char *file_name, const char *key, char *out,
                       size_t out_size, analysis_error *err)
{
    json_object *value;
    if (!json_object_object_get_ex(root, key, &value) || json_object_is_type(value, json_type_null))
        return ANALYSIS_OK;
    if (!json_object_is_type(value, json_type_string))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: key '%s' is %s, expected a string",
                             file_name, key, json_type_to_name(json_object_get_type(value)));
    const char *text = json_object_get_string(value);
    /* first line only, no commas: the value goes into titles and CSV */
    size_t o = 0;
    for (size_t i = 0; text[i] && text[i] != '\n' && o + 1 < out_size; i++)
        out[o++] = text[i] == ',' ? ';' : text[i];
    out[o] = '\0';
    return ANALYSIS_OK;
}

/* A part's size as a title says it: "S", "0.5 S" or "64 B". */
static void part_size_text(json_object *part, char *out, size_t out_size)
{
    json_object *v;
    if (json_object_object_get_ex(part, "bytes", &v) && json_object_is_type(v, json_type_int))
        snprintf(out, out_size, "%lld B", (long long)json_object_get_int64(v));
    else if (json_object_object_get_ex(part, "weight", &v) &&
             (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
             json_object_get_double(v) != 1)
        snprintf(out, out_size, "%g S", json_object_get_double(v));
    else
        snprintf(out, out_size, "S");
}

static const char *part_string(json_object *part, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(part, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : "?";
}

/* meta.json's `scenario` (docs/formats.md) as the titles' line of what was
 * in flight: "iallgather (S) + ireduce_scatter_block (S), run comm" when the
 * parts share a communicator, else each part's ("iallreduce (S, dup) +
 * iallreduce (S, half)"); "" for one operation. */
static int meta_scenario(json_object *root, const char *file_name, run_meta *meta,
                         analysis_error *err)
{
    json_object *parts;
    if (!json_object_object_get_ex(root, "scenario", &parts) ||
        json_object_is_type(parts, json_type_null))
        return ANALYSIS_OK;
    if (!json_object_is_type(parts, json_type_array))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: key 'scenario' is %s, expected an array",
                             file_name, json_type_to_name(json_object_get_type(parts)));
    size_t n = json_object_array_length(parts);
    if (n == 0)
        return ANALYSIS_OK;
    for (size_t i = 0; i < n; i++)
        if (!json_object_is_type(json_object_array_get_idx(parts, i), json_type_object))
            return analysis_fail(err, ANALYSIS_ERR_INPUT,
                                 "%s: key 'scenario': part %zu is not an object", file_name, i + 1);
    bool one_comm = true;
    for (size_t i = 1; i < n; i++)
        one_comm &= strcmp(part_string(json_object_array_get_idx(parts, i), "communicator"),
                           part_string(json_object_array_get_idx(parts, 0), "communicator")) == 0;
    strbuf text = {0};
    for (size_t i = 0; i < n; i++) {
        json_object *part = json_object_array_get_idx(parts, i);
        char size[48];
        part_size_text(part, size, sizeof size);
        strbuf_printf(&text, "%s%s (%s%s%s)", i ? " + " : "", part_string(part, "collective"), size,
                      one_comm ? "" : ", ", one_comm ? "" : part_string(part, "communicator"));
    }
    if (one_comm)
        strbuf_printf(&text, ", %s comm",
                      part_string(json_object_array_get_idx(parts, 0), "communicator"));
    bool ok = text.ok;
    if (ok)
        snprintf(meta->scenario, sizeof meta->scenario, "%s", text.data);
    strbuf_free(&text);
    return ok ? ANALYSIS_OK
              : analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", file_name);
}

static int meta_long(json_object *root, const char *file_name, const char *key, long *out,
                     analysis_error *err)
{
    json_object *value;
    if (!json_object_object_get_ex(root, key, &value) || json_object_is_type(value, json_type_null))
        return ANALYSIS_OK;
    if (!json_object_is_type(value, json_type_int))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: key '%s' is %s, expected an integer",
                             file_name, key, json_type_to_name(json_object_get_type(value)));
    int64_t parsed = json_object_get_int64(value);
    if (parsed < 0 || parsed > INT_MAX)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: key '%s' is %lld (allowed: 0 to %d)",
                             file_name, key, (long long)parsed, INT_MAX);
    *out = (long)parsed;
    return ANALYSIS_OK;
}

static int meta_number(json_object *root, const char *file_name, const char *key, double *out,
                       analysis_error *err)
{
    json_object *value;
    if (!json_object_object_get_ex(root, key, &value) || json_object_is_type(value, json_type_null))
        return ANALYSIS_OK;
    if (!json_object_is_type(value, json_type_int) && !json_object_is_type(value, json_type_double))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: key '%s' is %s, expected a number",
                             file_name, key, json_type_to_name(json_object_get_type(value)));
    double parsed = json_object_get_double(value);
    if (!(parsed >= 0) || !isfinite(parsed))
        return analysis_fail(err, ANALYSIS_ERR_INPUT,
                             "%s: key '%s' is %g (allowed: a finite number >= 0)", file_name, key,
                             parsed);
    *out = parsed;
    return ANALYSIS_OK;
}

/* FNV-1a over text, continuing from h. */
static uint64_t digest_text(uint64_t h, const char *text)
{
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    return h;
}

/* Settings of `config` that differ between launches of one configuration
 * without changing what is measured (README.md, nbc-compare); the run whose
 * sizes a launch measures with names the same sizes. */
static bool launch_setting(const char *section, const char *key)
{
    static const char *const keys[][2] = {
        {"run", "seed"}, {"run", "results_dir"}, {"run", "force"}, {"run", "calibration_from"}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(section, keys[i][0]) == 0 && strcmp(key, keys[i][1]) == 0)
            return true;
    return false;
}

/* The library's profile and version, and a digest of the measurement
 * configuration: runs that share them are launches of one configuration. */
static int meta_configuration(json_object *root, const char *file_name, run_meta *meta,
                              analysis_error *err)
{
    json_object *library, *config;
    snprintf(meta->library_profile, sizeof meta->library_profile, "%s", meta->mpi);
    snprintf(meta->library_version, sizeof meta->library_version, "%s", meta->mpi_library_version);
    int status = ANALYSIS_OK;
    if (json_object_object_get_ex(root, "mpi_library", &library) &&
        json_object_is_type(library, json_type_object)) {
        char profile[sizeof meta->library_profile] = "", version[sizeof meta->library_version] = "";
        status = meta_string(library, file_name, "profile", profile, sizeof profile, err);
        if (status == ANALYSIS_OK)
            status = meta_string(library, file_name, "version", version, sizeof version, err);
        char display[64] = "";
        if (status == ANALYSIS_OK)
            status = meta_string(library, file_name, "display_name", display, sizeof display, err);
        /* a folder written before mpi_library_name: its parts */
        if (display[0] && version[0] && strcmp(version, "unknown") != 0 &&
            !meta->mpi_library_name[0])
            snprintf(meta->mpi_library_name, sizeof meta->mpi_library_name, "%s %s", display,
                     version);
        if (profile[0])
            snprintf(meta->library_profile, sizeof meta->library_profile, "%s", profile);
        if (version[0])
            snprintf(meta->library_version, sizeof meta->library_version, "%s", version);
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    if (status == ANALYSIS_OK && json_object_object_get_ex(root, "config", &config) &&
        json_object_is_type(config, json_type_object)) {
        json_object_object_foreach(config, section, keys)
        {
            if (!json_object_is_type(keys, json_type_object))
                continue;
            json_object_object_foreach(keys, key, value)
            {
                if (launch_setting(section, key))
                    continue;
                h = digest_text(h, section);
                h = digest_text(h, ".");
                h = digest_text(h, key);
                h = digest_text(h, "=");
                h = digest_text(h, json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN));
                h = digest_text(h, ";");
            }
        }
    }
    /* The collective's control variables as the library took them (a study
     * over a library setting runs each value with it in the environment):
     * another value, another configuration. */
    json_object *settings;
    if (status == ANALYSIS_OK &&
        json_object_object_get_ex(root, "collective_settings", &settings) &&
        json_object_is_type(settings, json_type_object)) {
        json_object_object_foreach(settings, name, value)
        {
            h = digest_text(h, name);
            h = digest_text(h, "=");
            h = digest_text(h, json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN));
            h = digest_text(h, ";");
        }
    }
    meta->config_digest = h;
    return status;
}

int analysis_parse_meta(const char *buf, size_t len, const char *file_name, run_meta *meta,
                        analysis_error *err)
{
    *meta = (run_meta){.late_tolerance = NAN, .barrier_precision_ns = NAN};
    if (len > INT_MAX)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: too large", file_name);
    json_tokener *tokener = json_tokener_new();
    if (!tokener)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", file_name);
    json_object *root = json_tokener_parse_ex(tokener, buf, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tokener);
    int status = ANALYSIS_OK;
    if (!root || jerr != json_tokener_success)
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: not valid JSON: %s (near byte %zu)",
                               file_name,
                               jerr == json_tokener_continue ? "unexpected end of file"
                                                             : json_tokener_error_desc(jerr),
                               json_tokener_get_parse_end(tokener));
    else if (!json_object_is_type(root, json_type_object))
        status = analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: expected a JSON object", file_name);
    json_tokener_free(tokener);
    if (status != ANALYSIS_OK) {
        json_object_put(root);
        return status;
    }
    json_object *synthetic;
    if (json_object_object_get_ex(root, "synthetic", &synthetic) &&
        !json_object_is_type(synthetic, json_type_null)) {
        if (!json_object_is_type(synthetic, json_type_boolean))
            status = analysis_fail(err, ANALYSIS_ERR_INPUT,
                                   "%s: key 'synthetic' is %s, expected true or false", file_name,
                                   json_type_to_name(json_object_get_type(synthetic)));
        else
            meta->synthetic = json_object_get_boolean(synthetic);
    }
    static const struct {
        const char *key;
        size_t offset;
        size_t size;
    } string_keys[] = {
        {"status", offsetof(run_meta, status), sizeof meta->status},
        {"collective", offsetof(run_meta, collective), sizeof meta->collective},
        {"mpi", offsetof(run_meta, mpi), sizeof meta->mpi},
        {"mpi_library_version", offsetof(run_meta, mpi_library_version),
         sizeof meta->mpi_library_version},
        {"mpi_library_name", offsetof(run_meta, mpi_library_name), sizeof meta->mpi_library_name},
        {"deployment", offsetof(run_meta, deployment), sizeof meta->deployment},
        {"progress", offsetof(run_meta, progress), sizeof meta->progress},
    };
    static const struct {
        const char *key;
        size_t offset;
    } long_keys[] = {
        {"ranks", offsetof(run_meta, ranks)},
        {"nodes", offsetof(run_meta, nodes)},
        {"threads_per_rank", offsetof(run_meta, threads_per_rank)},
    };
    for (size_t i = 0; status == ANALYSIS_OK && i < sizeof string_keys / sizeof *string_keys; i++)
        status = meta_string(root, file_name, string_keys[i].key,
                             (char *)meta + string_keys[i].offset, string_keys[i].size, err);
    for (size_t i = 0; status == ANALYSIS_OK && i < sizeof long_keys / sizeof *long_keys; i++)
        status = meta_long(root, file_name, long_keys[i].key,
                           (long *)((char *)meta + long_keys[i].offset), err);
    if (status == ANALYSIS_OK)
        status = meta_number(root, file_name, "late_tolerance", &meta->late_tolerance, err);
    if (status == ANALYSIS_OK)
        status =
            meta_number(root, file_name, "barrier_precision_ns", &meta->barrier_precision_ns, err);
    if (status == ANALYSIS_OK)
        status = meta_configuration(root, file_name, meta, err);
    if (status == ANALYSIS_OK)
        status = meta_scenario(root, file_name, meta, err);
    json_object_put(root);
    meta->present = status == ANALYSIS_OK;
    return status;
}

/* ---- The run folder --------------------------------------------------------- */

typedef int (*parse_fn)(const char *buf, size_t len, const char *file_name, void **rows,
                        size_t *count, analysis_error *err);

/* Reads an optional file; *present false (and a warning) when missing. */
static int load_optional(const char *dir, const char *name, parse_fn parse, void **rows,
                         size_t *count, bool *present, const char *consequence, analysis_error *err)
{
    char path[4200];
    char *buf;
    size_t len;
    bool missing;
    *present = false;
    int status = analysis_path(path, sizeof path, dir, name, err);
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_read_file(path, &buf, &len, &missing, err);
    if (missing) {
        analysis_warn("%s is missing: %s", path, consequence);
        return ANALYSIS_OK;
    }
    if (status != ANALYSIS_OK)
        return status;
    status = parse(buf, len, path, rows, count, err);
    free(buf);
    *present = status == ANALYSIS_OK;
    return status;
}

/* Adapters from the typed parsers to parse_fn. */
static int parse_calib_comm_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                                analysis_error *e)
{
    return analysis_parse_calib_comm(b, l, f, (calib_comm_row **)r, c, e);
}
static int parse_calib_comp_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                                analysis_error *e)
{
    return analysis_parse_calib_comp(b, l, f, (calib_comp_row **)r, c, e);
}
static int parse_passive_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                             analysis_error *e)
{
    return analysis_parse_passive(b, l, f, (passive_row **)r, c, e);
}
static int parse_compute_ref_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                                 analysis_error *e)
{
    return analysis_parse_compute_ref(b, l, f, (compute_ref_row **)r, c, e);
}

static int parse_sweep_any(const char *b, size_t l, const char *f, void **r, size_t *c,
                           analysis_error *e)
{
    return analysis_parse_sweep(b, l, f, (sweep_row **)r, c, e);
}

static int load_meta(run_inputs *in, analysis_error *err)
{
    char path[4200];
    char *buf;
    size_t len;
    bool missing;
    int status = analysis_path(path, sizeof path, in->dir, "meta.json", err);
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_read_file(path, &buf, &len, &missing, err);
    if (missing) {
        analysis_warn("%s is missing: titles will lack the library and deployment", path);
        return ANALYSIS_OK;
    }
    if (status != ANALYSIS_OK)
        return status;
    status = analysis_parse_meta(buf, len, path, &in->meta, err);
    free(buf);
    if (status == ANALYSIS_OK && in->meta.status[0] && strcmp(in->meta.status, "complete") != 0)
        analysis_warn("%s: status is '%s': analyzing the cells the run wrote", path,
                      in->meta.status);
    return status;
}

int analysis_load_run(const char *run_dir, run_inputs *in, analysis_error *err)
{
    *in = (run_inputs){0};
    struct stat st;
    if (stat(run_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: not a run folder (no such directory)",
                             run_dir);
    if (strlen(run_dir) >= sizeof in->dir)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: path too long", run_dir);
    strcpy(in->dir, run_dir);

    char path[4200];
    char *buf;
    size_t len;
    bool missing;
    int status = analysis_path(path, sizeof path, run_dir, schema_file_name(SCHEMA_RAW), err);
    if (status == ANALYSIS_OK)
        status = analysis_read_file(path, &buf, &len, &missing, err);
    if (status != ANALYSIS_OK) {
        if (missing)
            analysis_fail(err, ANALYSIS_ERR_INPUT,
                          "%s: no such file (is %s a run folder written by bench_nbc?)", path,
                          run_dir);
        return status;
    }
    status = analysis_parse_raw(buf, len, path, &in->raw, err);
    free(buf);
    if (status == ANALYSIS_OK)
        status = load_meta(in, err);
    if (status == ANALYSIS_OK)
        status =
            load_optional(run_dir, schema_file_name(SCHEMA_CALIB_COMM), parse_calib_comm_any,
                          (void **)&in->calib_comm, &in->calib_comm_count, &in->have_calib_comm,
                          "communication calibration not checked for validity", err);
    if (status == ANALYSIS_OK)
        status =
            load_optional(run_dir, schema_file_name(SCHEMA_CALIB_COMP), parse_calib_comp_any,
                          (void **)&in->calib_comp, &in->calib_comp_count, &in->have_calib_comp,
                          "computation calibration not checked for validity", err);
    if (status == ANALYSIS_OK)
        status = load_optional(run_dir, schema_file_name(SCHEMA_PASSIVE), parse_passive_any,
                               (void **)&in->passive, &in->passive_count, &in->have_passive,
                               "no MPI impact outputs (impact.csv, impact figure)", err);
    if (status == ANALYSIS_OK && in->have_passive)
        status =
            load_optional(run_dir, schema_file_name(SCHEMA_COMPUTE_REF), parse_compute_ref_any,
                          (void **)&in->compute_ref, &in->compute_ref_count, &in->have_compute_ref,
                          "no MPI impact outputs (run compute_ref on each node to get them)", err);
    if (status == ANALYSIS_OK)
        status = load_optional(run_dir, schema_file_name(SCHEMA_SWEEP), parse_sweep_any,
                               (void **)&in->sweep, &in->sweep_count, &in->have_sweep,
                               "cells.csv's stop column says unknown", err);
    if (status != ANALYSIS_OK)
        analysis_run_inputs_free(in);
    return status;
}

void analysis_run_inputs_free(run_inputs *in)
{
    analysis_raw_table_free(&in->raw);
    free(in->calib_comm);
    free(in->calib_comp);
    free(in->passive);
    free(in->compute_ref);
    free(in->sweep);
    *in = (run_inputs){0};
}

/* ---- sweep.csv ------------------------------------------------------------ */

static const schema_column sweep_columns[] = {COL_SWEEP_CELL, COL_SWEEP_BLOCKS, COL_SWEEP_STOP};

static int sweep_fn(const csv_record *record, void *ctx, analysis_error *err)
{
    sweep_row row = {0};
    long long cell, blocks;
    int status;
    if ((status = csv_long(record, COL_SWEEP_CELL, 0, raw_max_cells, &cell, err)) ||
        (status = csv_long(record, COL_SWEEP_BLOCKS, 0, INT_MAX, &blocks, err)) ||
        (status = csv_string(record, COL_SWEEP_STOP, row.stop, sizeof row.stop, err)))
        return status;
    row.cell = (long)cell;
    row.blocks = (long)blocks;
    return csv_push(ctx, &row, err);
}

int analysis_parse_sweep(const char *buf, size_t len, const char *file_name, sweep_row **rows,
                         size_t *count, analysis_error *err)
{
    static const csv_schema schema = {SCHEMA_SWEEP, CSV_COLUMNS(sweep_columns), false, NULL, 0};
    return csv_parse_rows(buf, len, file_name, &schema, sweep_fn, sizeof **rows, (void **)rows,
                          count, err);
}
