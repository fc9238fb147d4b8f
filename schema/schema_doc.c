/* schema_doc: the schema table (schema/columns.def) as text.
 *
 *   schema_doc [--markdown] [FILE...]  the markdown section of each file
 *   schema_doc --json                  every file and column, the classes, the
 *                                      deployments and the exit statuses, as JSON
 *   schema_doc --fuzz-dict             every column name once, as the lines
 *                                      of a libFuzzer dictionary
 *   schema_doc --check DOC             exit 1 when DOC's generated sections
 *                                      differ from the table (naming them)
 *   schema_doc --update DOC            rewrite DOC's generated sections
 *
 * A generated section of DOC (docs/formats.md) lies between the lines
 * "<!-- schema FILE -->" and "<!-- end schema FILE -->". */
#include "cli/cli.h"
#include "deploy/plan.h"
#include "schema/classes.h"
#include "schema/schema.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char begin_mark[] = "<!-- schema ";
static const char end_mark[] = "<!-- end schema ";

/* A growing string; out of memory ends the program (a tool, not a library). */
typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *bigger = realloc(t->data, cap);
        if (!bigger) {
            fputs("schema_doc: out of memory\n", stderr);
            exit(3);
        }
        t->data = bigger;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void adds(text *t, const char *s)
{
    add(t, s, strlen(s));
}

/* The generated lines of one file, without the marks. */
static void markdown(text *t, schema_file file)
{
    char header[4096];
    if (schema_header(file, header, sizeof header) < 0) {
        fprintf(stderr, "schema_doc: %s: header too long\n", schema_file_name(file));
        exit(3);
    }
    adds(t, "`");
    adds(t, header);
    adds(t, "`\n\n");
    adds(t, "Written by ");
    adds(t, schema_file_writer(file));
    adds(t, ": ");
    adds(t, schema_file_rows(file));
    adds(t, ".\n\n| column | type | unit | meaning |\n|---|---|---|---|\n");
    schema_column first = schema_file_first(file);
    for (size_t i = 0; i < schema_file_column_count(file); i++) {
        const schema_column_info *c = schema_column_get((schema_column)(first + (int)i));
        adds(t, "| `");
        adds(t, c->name);
        adds(t, "` | ");
        adds(t, schema_type_name(c->type));
        adds(t, " | ");
        adds(t, c->unit);
        adds(t, " | ");
        adds(t, c->meaning);
        adds(t, " |\n");
    }
}

/* The project's other tables, for the tools in other languages: the
 * deployments (deploy/deployments.def) and the exit statuses
 * (cli/exit_status.def). */
static void add_other_tables(json_object *root)
{
    json_object_object_add(root, "deployments", deploy_table_json());
    json_object *statuses = json_object_new_array();
    json_object_object_add(root, "exit_statuses", statuses);
#define EXIT_STATUS(code, NAME, word, meaning)                                                     \
    do {                                                                                           \
        json_object *o = json_object_new_object();                                                 \
        json_object_object_add(o, "code", json_object_new_int(code));                              \
        json_object_object_add(o, "name", json_object_new_string(#NAME));                          \
        json_object_object_add(o, "word", json_object_new_string(word));                           \
        json_object_object_add(o, "meaning", json_object_new_string(meaning));                     \
        json_object_array_add(statuses, o);                                                        \
    } while (0);
#include "cli/exit_status.def"
#undef EXIT_STATUS
}

static int print_json(void)
{
    json_object *root = json_object_new_object(), *list = json_object_new_array();
    if (!root || !list)
        return CLI_EXIT_FAILURE;
    json_object_object_add(root, "files", list);
    for (int f = 0; f < SCHEMA_FILE_COUNT; f++) {
        json_object *o = json_object_new_object(), *cols = json_object_new_array();
        json_object_object_add(o, "file", json_object_new_string(schema_file_name(f)));
        json_object_object_add(o, "writer", json_object_new_string(schema_file_writer(f)));
        json_object_object_add(o, "rows", json_object_new_string(schema_file_rows(f)));
        schema_column first = schema_file_first(f);
        for (size_t i = 0; i < schema_file_column_count(f); i++) {
            schema_column id = (schema_column)(first + (int)i);
            const schema_column_info *c = schema_column_get(id);
            json_object *col = json_object_new_object();
            json_object_object_add(col, "id", json_object_new_string(schema_column_id(id)));
            json_object_object_add(col, "name", json_object_new_string(c->name));
            json_object_object_add(col, "type", json_object_new_string(schema_type_name(c->type)));
            json_object_object_add(col, "unit", json_object_new_string(c->unit));
            json_object_object_add(col, "meaning", json_object_new_string(c->meaning));
            json_object_array_add(cols, col);
        }
        json_object_object_add(o, "columns", cols);
        json_object_array_add(list, o);
    }
    json_object *classes = json_object_new_array();
    json_object_object_add(root, "classes", classes);
    for (int c = 0; c < VERDICT_CLASS_COUNT; c++) {
        const verdict_class_info *k = verdict_class_get((verdict_class)c);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(k->name));
        json_object_object_add(o, "group", json_object_new_string(k->group));
        /* a band's open end is null: JSON has no infinity */
        json_object_object_add(o, "band_lo",
                               isfinite(k->band_lo) ? json_object_new_double(k->band_lo) : NULL);
        json_object_object_add(o, "band_hi",
                               isfinite(k->band_hi) ? json_object_new_double(k->band_hi) : NULL);
        json_object_object_add(o, "band",
                               json_object_new_boolean(verdict_class_is_band((verdict_class)c)));
        json_object_object_add(o, "words", json_object_new_string(k->words));
        json_object_object_add(o, "colour", json_object_new_string(k->colour));
        json_object_object_add(o, "abbrev", json_object_new_string(k->abbrev));
        json_object_array_add(classes, o);
    }
    add_other_tables(root);
    int rc = puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY)) < 0 ? 3 : 0;
    json_object_put(root);
    return rc;
}

static int print_fuzz_dict(void)
{
    for (int c = 0; c < SCHEMA_COLUMN_COUNT; c++) {
        const char *name = schema_column_name((schema_column)c);
        bool seen = false;
        for (int before = 0; before < c && !seen; before++)
            seen = strcmp(schema_column_name((schema_column)before), name) == 0;
        if (!seen && printf("\"%s\"\n", name) < 0)
            return CLI_EXIT_FAILURE;
    }
    return 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "schema_doc: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    text t = {0};
    char buf[1 << 14];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        add(&t, buf, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "schema_doc: cannot read %s\n", path);
        free(t.data);
        return NULL;
    }
    if (!t.data)
        add(&t, "", 0);
    *len = t.len;
    return t.data;
}

/* DOC with each generated section replaced by the table's; *stale counts
 * the sections that differed (each named on stderr), *missing the files
 * without a section. */
static int regenerate(const char *path, const char *doc, text *out, int *stale)
{
    bool seen[SCHEMA_FILE_COUNT] = {false};
    *stale = 0;
    const char *p = doc;
    for (;;) {
        const char *b = strstr(p, begin_mark);
        if (!b)
            break;
        const char *name = b + strlen(begin_mark), *name_end = strstr(name, " -->");
        const char *line_end = strchr(b, '\n');
        if (!name_end || !line_end || name_end > line_end) {
            fprintf(stderr, "schema_doc: %s: a '%s' line without ' -->'\n", path, begin_mark);
            return 2;
        }
        char file_name[128];
        snprintf(file_name, sizeof file_name, "%.*s", (int)(name_end - name), name);
        int file = schema_file_find(file_name);
        if (file < 0) {
            fprintf(stderr, "schema_doc: %s: a section of '%s', which the schema has not\n", path,
                    file_name);
            return 2;
        }
        char end_line[200];
        snprintf(end_line, sizeof end_line, "%s%s -->\n", end_mark, file_name);
        const char *e = strstr(line_end, end_line);
        if (!e) {
            fprintf(stderr, "schema_doc: %s: the section of %s has no line '%.*s'\n", path,
                    file_name, (int)strlen(end_line) - 1, end_line);
            return 2;
        }
        add(out, p, (size_t)(line_end + 1 - p));
        text fresh = {0};
        markdown(&fresh, (schema_file)file);
        size_t old_len = (size_t)(e - (line_end + 1));
        if (old_len != fresh.len || memcmp(line_end + 1, fresh.data, old_len) != 0) {
            fprintf(stderr, "schema_doc: %s: the section of %s differs from schema/columns.def\n",
                    path, file_name);
            ++*stale;
        }
        add(out, fresh.data, fresh.len);
        free(fresh.data);
        seen[file] = true;
        p = e;
    }
    adds(out, p);
    for (int f = 0; f < SCHEMA_FILE_COUNT; f++)
        if (!seen[f]) {
            fprintf(stderr, "schema_doc: %s has no section of %s ('%s%s -->')\n", path,
                    schema_file_name(f), begin_mark, schema_file_name(f));
            ++*stale;
        }
    return 0;
}

static int check_or_update(const char *path, bool update)
{
    size_t len;
    char *doc = read_all(path, &len);
    if (!doc)
        return 2;
    text out = {0};
    int stale = 0, rc = regenerate(path, doc, &out, &stale);
    free(doc);
    if (rc == 0 && update && stale > 0) {
        FILE *f = fopen(path, "w");
        if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f) != 0) {
            fprintf(stderr, "schema_doc: cannot write %s: %s\n", path, strerror(errno));
            rc = CLI_EXIT_FAILURE;
        } else {
            fprintf(stderr, "schema_doc: %s: %d section(s) rewritten\n", path, stale);
        }
    } else if (rc == 0 && stale > 0) {
        fprintf(stderr, "schema_doc: %s is not the table's: run `make docs`\n", path);
        rc = 1;
    }
    free(out.data);
    return rc;
}

static void usage(FILE *out)
{
    fputs("usage: schema_doc [--markdown] [FILE...]   the columns of FILE (every file when\n"
          "                                           none), as markdown\n"
          "       schema_doc --json | --fuzz-dict\n"
          "       schema_doc --check DOC | --update DOC  DOC's generated sections against\n"
          "                                           the table (1 when stale) / rewritten\n"
          "The run folder's CSV files and their columns (schema/columns.def).\n"
          "  -V, --version   the version and revision\n"
          "  -h, --help      this text\n",
          out);
    cli_print_exit_statuses(out);
}

static int bad_usage(const char *what)
{
    fprintf(stderr, "schema_doc: %s; see --help\n", what);
    return CLI_EXIT_BAD_INPUT;
}

static int print_markdown(int argc, char **argv, int first)
{
    for (int a = first; a < argc; a++)
        if (schema_file_find(argv[a]) < 0) {
            fprintf(stderr, "schema_doc: no file '%s' in the schema (allowed: ", argv[a]);
            for (int f = 0; f < SCHEMA_FILE_COUNT; f++)
                fprintf(stderr, "%s%s", f ? ", " : "", schema_file_name(f));
            fputs(")\n", stderr);
            return CLI_EXIT_BAD_INPUT;
        }
    text t = {0};
    for (int f = 0; f < SCHEMA_FILE_COUNT; f++) {
        bool wanted = first == argc;
        for (int a = first; a < argc; a++)
            wanted |= strcmp(argv[a], schema_file_name(f)) == 0;
        if (!wanted)
            continue;
        adds(&t, "## ");
        adds(&t, schema_file_name(f));
        adds(&t, "\n");
        markdown(&t, (schema_file)f);
        adds(&t, "\n");
    }
    int rc = t.data && fputs(t.data, stdout) < 0 ? CLI_EXIT_FAILURE : CLI_EXIT_COMPLETE;
    free(t.data);
    return rc;
}

int main(int argc, char **argv)
{
    enum { OPT_JSON = 1000, OPT_FUZZ_DICT, OPT_CHECK, OPT_UPDATE, OPT_MARKDOWN };
    static const struct option longopts[] = {
        {"markdown", no_argument, NULL, OPT_MARKDOWN},
        {"json", no_argument, NULL, OPT_JSON},
        {"fuzz-dict", no_argument, NULL, OPT_FUZZ_DICT},
        {"check", required_argument, NULL, OPT_CHECK},
        {"update", required_argument, NULL, OPT_UPDATE},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int action = OPT_MARKDOWN, actions = 0, opt;
    const char *doc = NULL;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            usage(stdout);
            return CLI_EXIT_COMPLETE;
        case 'V':
            cli_print_version(stdout, "schema_doc");
            return CLI_EXIT_COMPLETE;
        case OPT_CHECK:
        case OPT_UPDATE:
            doc = optarg;
            /* fall through */
        case OPT_JSON:
        case OPT_FUZZ_DICT:
        case OPT_MARKDOWN:
            action = opt;
            actions++;
            break;
        case ':':
            return bad_usage("an option needs a value (--check DOC, --update DOC)");
        default:
            return bad_usage("unknown option (allowed: --markdown, --json, --fuzz-dict, "
                             "--check, --update, --version, --help)");
        }
    }
    if (actions > 1)
        return bad_usage("give one of --markdown, --json, --fuzz-dict, --check, --update");
    if (action != OPT_MARKDOWN && optind < argc)
        return bad_usage("file names go with --markdown (or alone) only");
    switch (action) {
    case OPT_JSON:
        return print_json();
    case OPT_FUZZ_DICT:
        return print_fuzz_dict();
    case OPT_CHECK:
    case OPT_UPDATE:
        return check_or_update(doc, action == OPT_UPDATE);
    default:
        return print_markdown(argc, argv, optind);
    }
}
