/* The library seen through the MPI tool information interface (MPI_T):
 * every control variable as the run starts (mpit_cvars.csv), those naming
 * the measured collective in meta.json (`collective_settings`: MPICH's
 * MPIR_CVAR_IBCAST_INTRA_ALGORITHM, Open MPI's coll_libnbc_ibcast_algorithm),
 * and the performance variables of the counter class bound to no object,
 * read around each cell (mpit_pvars.csv). docs/formats.md defines the files. */
#include "bench_nbc/errors.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "schema/schema.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NAME_MAX_CHARS = 256, DESC_MAX_CHARS = 4096 };

/* MPI_T's constants are the library's: names are looked up, never indexed. */
typedef struct named_int {
    int value;
    const char *name;
} named_int;

static const named_int verbosities[] = {
    {MPI_T_VERBOSITY_USER_BASIC, "user_basic"},
    {MPI_T_VERBOSITY_USER_DETAIL, "user_detail"},
    {MPI_T_VERBOSITY_USER_ALL, "user_all"},
    {MPI_T_VERBOSITY_TUNER_BASIC, "tuner_basic"},
    {MPI_T_VERBOSITY_TUNER_DETAIL, "tuner_detail"},
    {MPI_T_VERBOSITY_TUNER_ALL, "tuner_all"},
    {MPI_T_VERBOSITY_MPIDEV_BASIC, "mpidev_basic"},
    {MPI_T_VERBOSITY_MPIDEV_DETAIL, "mpidev_detail"},
    {MPI_T_VERBOSITY_MPIDEV_ALL, "mpidev_all"},
};
static const named_int scopes[] = {
    {MPI_T_SCOPE_CONSTANT, "constant"}, {MPI_T_SCOPE_READONLY, "readonly"},
    {MPI_T_SCOPE_LOCAL, "local"},       {MPI_T_SCOPE_GROUP, "group"},
    {MPI_T_SCOPE_GROUP_EQ, "group_eq"}, {MPI_T_SCOPE_ALL, "all"},
    {MPI_T_SCOPE_ALL_EQ, "all_eq"},
};
static const named_int bindings[] = {
    {MPI_T_BIND_NO_OBJECT, "none"},
    {MPI_T_BIND_MPI_COMM, "comm"},
    {MPI_T_BIND_MPI_DATATYPE, "datatype"},
    {MPI_T_BIND_MPI_ERRHANDLER, "errhandler"},
    {MPI_T_BIND_MPI_FILE, "file"},
    {MPI_T_BIND_MPI_GROUP, "group"},
    {MPI_T_BIND_MPI_OP, "op"},
    {MPI_T_BIND_MPI_REQUEST, "request"},
    {MPI_T_BIND_MPI_WIN, "win"},
    {MPI_T_BIND_MPI_MESSAGE, "message"},
    {MPI_T_BIND_MPI_INFO, "info"},
};

static const char *int_name(const named_int *table, size_t n, int value)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return table[i].name;
    return "other";
}
#define NAME_OF(table, value) int_name(table, sizeof table / sizeof *table, value)

/* The datatypes a scalar variable may have (MPI 3.1, 14.3.5). */
typedef enum {
    VALUE_INT,
    VALUE_UNSIGNED,
    VALUE_UNSIGNED_LONG,
    VALUE_UNSIGNED_LONG_LONG,
    VALUE_COUNT,
    VALUE_DOUBLE,
    VALUE_CHAR,
    VALUE_OTHER
} value_kind;
static const char *const value_kind_names[] = {
    "int", "unsigned", "unsigned_long", "unsigned_long_long", "count", "double", "char", "other"};

static value_kind kind_of(MPI_Datatype t)
{
    const struct {
        MPI_Datatype type;
        value_kind kind;
    } types[] = {
        {MPI_INT, VALUE_INT},
        {MPI_UNSIGNED, VALUE_UNSIGNED},
        {MPI_UNSIGNED_LONG, VALUE_UNSIGNED_LONG},
        {MPI_UNSIGNED_LONG_LONG, VALUE_UNSIGNED_LONG_LONG},
        {MPI_COUNT, VALUE_COUNT},
        {MPI_DOUBLE, VALUE_DOUBLE},
        {MPI_CHAR, VALUE_CHAR},
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (types[i].type == t)
            return types[i].kind;
    return VALUE_OTHER;
}

/* A number read through MPI_T (count elements of kind) as a double. */
static double as_double(const void *buf, value_kind kind)
{
    switch (kind) {
    case VALUE_INT:
        return *(const int *)buf;
    case VALUE_UNSIGNED:
        return *(const unsigned *)buf;
    case VALUE_UNSIGNED_LONG:
        return (double)*(const unsigned long *)buf;
    case VALUE_UNSIGNED_LONG_LONG:
        return (double)*(const unsigned long long *)buf;
    case VALUE_COUNT:
        return (double)*(const MPI_Count *)buf;
    case VALUE_DOUBLE:
        return *(const double *)buf;
    default:
        return 0;
    }
}

/* CSV fields never hold a comma (docs/formats.md): '%', ',' and line breaks
 * are written %25, %2C, %0A. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '%' || *s == ',' || *s == '\n' || *s == '\r')
            fprintf(f, "%%%02X", (unsigned char)*s);
        else
            fputc(*s, f);
    }
}

/* The text of a control variable's value ("" when not scalar or not
 * readable), and the enumeration item's name when it has one. */
static void cvar_value(int index, MPI_Datatype type, MPI_T_enum enumtype, int bind, char *value,
                       size_t value_size, char *item, size_t item_size)
{
    *value = *item = '\0';
    value_kind kind = kind_of(type);
    MPI_T_cvar_handle handle;
    int count;
    if (bind != MPI_T_BIND_NO_OBJECT || kind == VALUE_OTHER ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS)
        return;
    if (kind == VALUE_CHAR || count == 1) {
        size_t bytes = kind == VALUE_CHAR ? (size_t)count + 1 : sizeof(long double) * 2;
        char *buf = calloc(1, bytes < 64 ? 64 : bytes);
        if (buf && MPI_T_cvar_read(handle, buf) == MPI_SUCCESS) {
            if (kind == VALUE_CHAR)
                snprintf(value, value_size, "%s", buf);
            else if (kind == VALUE_DOUBLE)
                snprintf(value, value_size, "%.17g", as_double(buf, kind));
            else if (kind == VALUE_INT)
                snprintf(value, value_size, "%d", *(int *)buf);
            else
                snprintf(value, value_size, "%.0f", as_double(buf, kind));
            int items;
            char name[NAME_MAX_CHARS];
            int len = sizeof name;
            if (kind == VALUE_INT && enumtype != MPI_T_ENUM_NULL &&
                MPI_T_enum_get_info(enumtype, &items, name, &len) == MPI_SUCCESS)
                for (int i = 0; i < items; i++) {
                    int item_value;
                    len = sizeof name;
                    if (MPI_T_enum_get_item(enumtype, i, &item_value, name, &len) == MPI_SUCCESS &&
                        item_value == *(int *)buf)
                        snprintf(item, item_size, "%s", name);
                }
        }
        free(buf);
    }
    MPI_T_cvar_handle_free(&handle);
}

/* Whether a variable's name holds the collective's name as a word between
 * underscores, in any case (MPIR_CVAR_IBCAST_..., coll_libnbc_ibcast_...). */
static bool names_collective(const char *name, const char *collective)
{
    size_t n = strlen(collective);
    for (const char *p = name; *p; p++)
        if ((p == name || p[-1] == '_') && strncasecmp(p, collective, n) == 0 &&
            (p[n] == '\0' || p[n] == '_'))
            return true;
    return false;
}

/* mpit_cvars.csv's text and the collective's settings (rank 0); how many
 * indices the library counts and how many of them it described. */
static char *cvars_csv(const char *collective, int *indices, int *described, json_object *settings)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    schema_write_header(f, SCHEMA_MPIT_CVARS); /* a failure shows at fclose */
    int count = 0;
    if (MPI_T_cvar_get_num(&count) != MPI_SUCCESS)
        count = 0;
    *indices = count;
    *described = 0;
    static char value[DESC_MAX_CHARS], description[DESC_MAX_CHARS];
    for (int i = 0; i < count; i++) {
        char name[NAME_MAX_CHARS], item[NAME_MAX_CHARS];
        int name_len = sizeof name, desc_len = sizeof description, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, description,
                                &desc_len, &bind, &scope) != MPI_SUCCESS)
            continue;
        description[strcspn(description, "\n")] = '\0';
        ++*described;
        cvar_value(i, type, enumtype, bind, value, sizeof value, item, sizeof item);
        fprintf(f, "%d,", i);
        put_escaped(f, name);
        fprintf(f, ",%s,", value_kind_names[kind_of(type)]);
        put_escaped(f, value);
        fputc(',', f);
        put_escaped(f, item);
        fprintf(f, ",%s,%s,%s,", NAME_OF(verbosities, verbosity), NAME_OF(scopes, scope),
                NAME_OF(bindings, bind));
        put_escaped(f, description);
        fputc('\n', f);
        if (collective && names_collective(name, collective) && bind == MPI_T_BIND_NO_OBJECT)
            json_object_object_add(settings, name, json_object_new_string(*item ? item : value));
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- Performance counters around cells ---- */

/* Performance variables that cannot be read safely, by the library that
 * names them so (whatever profile identified it: a generic profile must not
 * crash on them either). */
static const struct {
    const char *library, *prefix, *reason;
} unreadable_pvars[] = {
    {"Open MPI", "mtl_psm2_",
     "Open MPI 4.1 registers them whenever the psm2 MTL is opened, in use or not; "
     "MPI_T_pvar_handle_alloc then reads a queue psm2 never made (segmentation fault)"},
};

static bool unreadable(const char *name)
{
    for (size_t i = 0; i < sizeof unreadable_pvars / sizeof *unreadable_pvars; i++)
        if (strncmp(name, unreadable_pvars[i].prefix, strlen(unreadable_pvars[i].prefix)) == 0)
            return true;
    return false;
}

/* meta.json's record of the variables skipped. */
static json_object *unreadable_json(void)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < sizeof unreadable_pvars / sizeof *unreadable_pvars; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "library", json_object_new_string(unreadable_pvars[i].library));
        json_object_object_add(e, "prefix", json_object_new_string(unreadable_pvars[i].prefix));
        json_object_object_add(e, "reason", json_object_new_string(unreadable_pvars[i].reason));
        json_object_array_add(a, e);
    }
    return a;
}

typedef struct counter {
    MPI_T_pvar_handle handle;
    value_kind kind;
    bool continuous;
    double before;
    char name[NAME_MAX_CHARS];
} counter;

struct nbc_mpit {
    MPI_T_pvar_session session;
    counter *counters;
    int count;
    double *deltas, *all; /* [count], rank 0 [count x ranks] */
    double *pending;      /* [pending_cells x count]: what each cell's visits so far added */
    size_t pending_cells;
    FILE *csv; /* rank 0: mpit_pvars.csv */
    bool has_session;
};

/* No counters read any more (count 0: the cell hooks do nothing). */
static void release_counters(nbc_mpit *m)
{
    for (int i = 0; i < m->count; i++)
        MPI_T_pvar_handle_free(m->session, &m->counters[i].handle);
    if (m->has_session)
        MPI_T_pvar_session_free(&m->session);
    m->has_session = false;
    m->count = 0;
    free(m->counters);
    m->counters = NULL;
}

static bool read_counter(MPI_T_pvar_session session, counter *c, double *value)
{
    long double buf[4] = {0}; /* the widest scalar type, with room */
    if (MPI_T_pvar_read(session, c->handle, buf) != MPI_SUCCESS)
        return false;
    *value = as_double(buf, c->kind);
    return true;
}

/* The counters bound to no object, with one numeric element, that start
 * and can be read here. */
static int ready_counters(nbc_mpit *m, int pvars)
{
    m->counters = calloc((size_t)(pvars ? pvars : 1), sizeof *m->counters);
    if (!m->counters)
        return -1;
    for (int i = 0; i < pvars; i++) {
        counter *c = &m->counters[m->count];
        int name_len = sizeof c->name, desc_len = 0, verbosity, var_class, bind, readonly,
            continuous, atomic, count;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_T_pvar_get_info(i, c->name, &name_len, &verbosity, &var_class, &type, &enumtype,
                                NULL, &desc_len, &bind, &readonly, &continuous,
                                &atomic) != MPI_SUCCESS ||
            var_class != MPI_T_PVAR_CLASS_COUNTER || bind != MPI_T_BIND_NO_OBJECT ||
            unreadable(c->name))
            continue;
        c->kind = kind_of(type);
        c->continuous = continuous;
        if (c->kind == VALUE_OTHER || c->kind == VALUE_CHAR ||
            MPI_T_pvar_handle_alloc(m->session, i, NULL, &c->handle, &count) != MPI_SUCCESS)
            continue;
        double probe;
        if (count != 1 || !read_counter(m->session, c, &probe)) {
            MPI_T_pvar_handle_free(m->session, &c->handle);
            continue;
        }
        m->count++;
    }
    return 0;
}

/* The job's own reference to the tool interface. MPICH 4.0.2 crashes in
 * MPI_T_cvar_get_num once MPI_T is initialised again after its count of
 * initialisations fell back to zero (a job's second study, after the first
 * study's nbc_mpit_free); with this reference held, a study's
 * MPI_T_finalize never ends the interface. */
static bool job_holds_mpit;

/* The tool interface at the thread level MPI_Init gave: Open MPI 4.1's
 * MPI_T_init_thread sets the level MPI_Query_thread answers from then on, so
 * a lower one would hide MPI_THREAD_MULTIPLE from the progress thread. */
static int mpit_init(void)
{
    int level = MPI_THREAD_SINGLE, provided;
    if (MPI_Query_thread(&level) != MPI_SUCCESS)
        level = MPI_THREAD_SINGLE;
    return MPI_T_init_thread(level, &provided);
}

void nbc_mpit_job_begin(void)
{
    job_holds_mpit = mpit_init() == MPI_SUCCESS;
}

void nbc_mpit_job_end(void)
{
    if (job_holds_mpit)
        MPI_T_finalize();
    job_holds_mpit = false;
}

int nbc_mpit_start(nbc_run *run, meta_info *meta)
{
    int failed = 0;
    json_object *info = run->rank == 0 ? json_object_new_object() : NULL;
    if (mpit_init() != MPI_SUCCESS) {
        if (info) {
            json_object_object_add(info, "status",
                                   json_object_new_string("MPI_T_init_thread failed"));
            nbc_meta_add_system(meta, "mpi_t", info);
        }
        return 0;
    }
    if (run->rank == 0) {
        json_object *settings = json_object_new_object();
        int indices = 0, cvars = 0;
        char *csv = cvars_csv(run->coll->name, &indices, &cvars, settings);
        failed = !csv || run_output_write_atomic(run->out, "mpit_cvars.csv", csv) != 0;
        free(csv);
        json_object_object_add(info, "cvars_file", json_object_new_string("mpit_cvars.csv"));
        json_object_object_add(info, "cvars", json_object_new_int(cvars));
        /* Open MPI counts variables of components it closed again: no info. */
        json_object_object_add(info, "cvar_indices", json_object_new_int(indices));
        nbc_meta_add_system(meta, "collective_settings", settings);
    }
    /* Counters: only when every rank has the same ones (one gather per cell). */
    nbc_mpit *m = calloc(1, sizeof *m);
    nbc_exit_if_any_failed(!m, "out of memory for the MPI_T counters", 1);
    int pvars = 0, counters = -1, min_max[2];
    if (MPI_T_pvar_get_num(&pvars) == MPI_SUCCESS &&
        MPI_T_pvar_session_create(&m->session) == MPI_SUCCESS) {
        m->has_session = true;
        if (ready_counters(m, pvars) == 0)
            counters = m->count;
    }
    int mine[2] = {counters, -counters};
    NBC_CHECK_MPI(MPI_Allreduce(mine, min_max, 2, MPI_INT, MPI_MIN, run->comm));
    bool usable = min_max[0] > 0 && min_max[0] == -min_max[1];
    if (!usable)
        release_counters(m);
    else {
        m->deltas = calloc((size_t)m->count, sizeof *m->deltas);
        m->all =
            run->rank == 0 ? calloc((size_t)m->count * (size_t)run->ranks, sizeof *m->all) : NULL;
        nbc_exit_if_any_failed(!m->deltas || (run->rank == 0 && !m->all),
                               "out of memory for the MPI_T counters", 1);
        if (run->rank == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/mpit_pvars.csv", run_output_dir(run->out));
            m->csv = fopen(path, "a");
            if (m->csv && ftell(m->csv) == 0 &&
                schema_write_header(m->csv, SCHEMA_MPIT_PVARS) != 0) {
                fclose(m->csv);
                m->csv = NULL;
            }
            failed |= !m->csv;
        }
    }
    if (info) {
        json_object_object_add(info, "pvars", json_object_new_int(pvars));
        json_object_object_add(info, "pvar_counters", json_object_new_int(m->count));
        json_object_object_add(info, "pvars_skipped", unreadable_json());
        json_object_object_add(info, "pvars_file",
                               usable ? json_object_new_string("mpit_pvars.csv") : NULL);
        json_object_object_add(
            info, "status",
            json_object_new_string(usable       ? "counters read around each cell"
                                   : pvars == 0 ? "the library exposes no performance variable"
                                                : "no counter bound to no object readable on "
                                                  "every rank: no per-cell deltas"));
        nbc_meta_add_system(meta, "mpi_t", info);
    }
    run->mpit = m;
    return failed ? -1 : 0;
}

void nbc_mpit_cell_begin(nbc_mpit *m)
{
    for (int i = 0; m && i < m->count; i++) {
        counter *c = &m->counters[i];
        if (!read_counter(m->session, c, &c->before))
            c->before = 0;
        if (!c->continuous)
            MPI_T_pvar_start(m->session, c->handle);
    }
}

int nbc_mpit_cell_pause(nbc_mpit *m, size_t cell)
{
    if (!m || m->count == 0)
        return MPI_SUCCESS;
    if (cell >= m->pending_cells) {
        size_t cells = 2 * cell + 16, count = (size_t)m->count;
        double *pending = realloc(m->pending, cells * count * sizeof *pending);
        if (!pending)
            return MPI_ERR_NO_MEM;
        for (size_t k = m->pending_cells * count; k < cells * count; k++)
            pending[k] = 0;
        m->pending = pending;
        m->pending_cells = cells;
    }
    for (int i = 0; i < m->count; i++) {
        counter *c = &m->counters[i];
        double after;
        if (!c->continuous)
            MPI_T_pvar_stop(m->session, c->handle);
        m->pending[cell * (size_t)m->count + (size_t)i] +=
            read_counter(m->session, c, &after) ? after - c->before : 0;
    }
    return MPI_SUCCESS;
}

int nbc_mpit_cell_end(nbc_run *run, size_t cell)
{
    nbc_mpit *m = run->mpit;
    if (!m || m->count == 0)
        return MPI_SUCCESS;
    for (int i = 0; i < m->count; i++) {
        size_t k = cell * (size_t)m->count + (size_t)i;
        m->deltas[i] = cell < m->pending_cells ? m->pending[k] : 0;
        if (cell < m->pending_cells)
            m->pending[k] = 0;
    }
    int rc =
        MPI_Gather(m->deltas, m->count, MPI_DOUBLE, m->all, m->count, MPI_DOUBLE, 0, run->comm);
    for (int r = 0; rc == MPI_SUCCESS && m->csv && r < run->ranks; r++)
        for (int i = 0; i < m->count; i++) {
            fprintf(m->csv, "%zu,%d,", cell, r);
            put_escaped(m->csv, m->counters[i].name);
            fprintf(m->csv, ",%.17g\n", m->all[(size_t)r * (size_t)m->count + (size_t)i]);
        }
    if (rc == MPI_SUCCESS && m->csv && fflush(m->csv) != 0)
        rc = MPI_ERR_IO;
    return rc;
}

void nbc_mpit_free(nbc_mpit *m)
{
    if (!m)
        return;
    release_counters(m);
    if (m->csv)
        fclose(m->csv);
    free(m->deltas);
    free(m->all);
    free(m->pending);
    free(m);
    MPI_T_finalize();
}
