/* analysis/inputs: meta.json, the keys the analysis reads (docs/formats.md). */
#include "analysis/inputs/inputs.h"

#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
