/* provenance.json: one record per node (provenance/provenance.h), made by
 * the first rank of each node (MPI_COMM_TYPE_SHARED) and gathered on rank 0,
 * with each node's hwloc topology in topology-<host>.xml; what in them
 * threatens the measurements is printed once and kept in meta.json. */
#include "bench_nbc/errors.h"
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "provenance/provenance.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gathers variable-length byte strings on `root` of comm (root gets them
 * concatenated with their lengths; others NULL). MPI error code. */
static int gather_bytes(const char *mine, int len, MPI_Comm comm, char **all, int **lens,
                        int **offsets)
{
    int rank, size;
    int rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    *all = NULL;
    *lens = rank == 0 ? calloc((size_t)size, sizeof **lens) : NULL;
    *offsets = rank == 0 ? calloc((size_t)size, sizeof **offsets) : NULL;
    rc = MPI_Gather(&len, 1, MPI_INT, *lens, 1, MPI_INT, 0, comm);
    size_t total = 0;
    for (int r = 0; rc == MPI_SUCCESS && *lens && *offsets && r < size; r++) {
        (*offsets)[r] = (int)total;
        total += (size_t)(*lens)[r];
    }
    if (rank == 0 && (!*lens || !*offsets || !(*all = malloc(total + 1))))
        return MPI_ERR_NO_MEM; /* the others wait in the Gatherv: MPI_Abort follows */
    if (rc == MPI_SUCCESS)
        rc = MPI_Gatherv(mine, len, MPI_CHAR, *all, *lens, *offsets, MPI_CHAR, 0, comm);
    return rc;
}

/* The node's computing CPUs: every local rank's compute team. */
static int node_computing_cpus(const nbc_run *run, MPI_Comm node, int **cpus, int *count)
{
    int mine[COMPUTE_MAX_CPUS], n = compute_team_threads(run->team);
    for (int t = 0; t < n && t < COMPUTE_MAX_CPUS; t++)
        mine[t] = compute_team_cpu(run->team, t);
    char *all;
    int *lens, *offsets;
    int rc = gather_bytes((const char *)mine, n * (int)sizeof *mine, node, &all, &lens, &offsets);
    *cpus = (int *)all;
    *count = 0;
    int size;
    if (rc == MPI_SUCCESS && all && MPI_Comm_size(node, &size) == MPI_SUCCESS)
        *count = (offsets[size - 1] + lens[size - 1]) / (int)sizeof **cpus;
    free(lens);
    free(offsets);
    return rc;
}

/* A host name made safe for a file name. */
static void file_safe(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '.' || *s == '_'))
            *s = '_';
}

/* Rank 0: the files and the warnings, from each node's record and XML. */
static int write_records(nbc_run *run, meta_info *meta, const char *all, const int *lens,
                         const int *offsets, int nodes)
{
    json_object *records = json_object_new_array(), *warnings = json_object_new_array();
    json_object *files = json_object_new_array(); /* each node's topology file */
    int failed = !records || !warnings || !files;
    for (int i = 0; !failed && i < nodes; i++) {
        const char *text = all + offsets[i];
        size_t json_len = strlen(text);
        const char *xml = json_len + 1 < (size_t)lens[i] ? text + json_len + 1 : NULL;
        json_object *node = json_tokener_parse(text), *topology, *host;
        if (!node) {
            failed = 1;
            break;
        }
        if (xml && json_object_object_get_ex(node, "topology", &topology) &&
            json_object_object_get_ex(node, "host", &host)) {
            char name[320];
            snprintf(name, sizeof name, "topology-%s.xml", json_object_get_string(host));
            file_safe(name);
            /* Hosts named alike (containers): the node's index tells them apart. */
            for (int j = 0; j < i; j++)
                if (strcmp(json_object_get_string(json_object_array_get_idx(files, (size_t)j)),
                           name) == 0)
                    snprintf(name, sizeof name, "topology-%s-%d.xml", json_object_get_string(host),
                             i);
            file_safe(name);
            json_object_object_add(topology, "file", json_object_new_string(name));
            failed |= run_output_write_atomic(run->out, name, xml) != 0;
            json_object_array_add(files, json_object_new_string(name));
        } else {
            json_object_array_add(files, json_object_new_string(""));
        }
        json_object *w = provenance_warnings(node);
        for (size_t k = 0; w && k < json_object_array_length(w); k++) {
            const char *sentence = json_object_get_string(json_object_array_get_idx(w, k));
            fprintf(stderr, "bench_nbc: warning: %s\n", sentence);
            json_object_array_add(warnings, json_object_new_string(sentence));
        }
        json_object_put(w);
        json_object_array_add(records, node);
    }
    const char *text =
        failed ? NULL : json_object_to_json_string_ext(records, JSON_C_TO_STRING_PRETTY);
    char *with_newline = text ? malloc(strlen(text) + 2) : NULL;
    if (with_newline) {
        sprintf(with_newline, "%s\n", text);
        failed |= run_output_write_atomic(run->out, "provenance.json", with_newline) != 0;
    } else {
        failed = 1;
    }
    free(with_newline);
    json_object_put(records);
    json_object_put(files);
    nbc_meta_add_system(meta, "provenance", json_object_new_string("provenance.json"));
    nbc_meta_add_system(meta, "warnings", warnings);
    return failed ? -1 : 0;
}

int nbc_provenance_record(nbc_run *run, meta_info *meta)
{
    MPI_Comm node, leaders;
    int local_rank;
    NBC_CHECK_MPI(
        MPI_Comm_split_type(run->comm, MPI_COMM_TYPE_SHARED, run->rank, MPI_INFO_NULL, &node));
    NBC_CHECK_MPI(MPI_Comm_rank(node, &local_rank));
    int *cpus, count;
    NBC_CHECK_MPI(node_computing_cpus(run, node, &cpus, &count));
    NBC_CHECK_MPI(
        MPI_Comm_split(run->comm, local_rank == 0 ? 0 : MPI_UNDEFINED, run->rank, &leaders));
    int failed = 0;
    if (local_rank == 0) {
        /* The record, then the XML after its NUL: one message per node. */
        provenance_options opt = {.computing_cpus = cpus, .computing_count = count};
        char *xml = NULL;
        json_object *record = provenance_node_json(&opt, &xml);
        const char *text = record ? json_object_to_json_string(record) : "{}";
        size_t text_len = strlen(text) + 1, xml_len = xml ? strlen(xml) + 1 : 0;
        char *message = malloc(text_len + xml_len);
        failed = !record || !message;
        if (message) {
            memcpy(message, text, text_len);
            if (xml)
                memcpy(message + text_len, xml, xml_len);
        }
        char *all;
        int *lens, *offsets, nodes;
        NBC_CHECK_MPI(gather_bytes(message ? message : "{}",
                                   message ? (int)(text_len + xml_len) : 3, leaders, &all, &lens,
                                   &offsets));
        NBC_CHECK_MPI(MPI_Comm_size(leaders, &nodes));
        if (run->rank == 0)
            failed |= write_records(run, meta, all, lens, offsets, nodes) != 0;
        free(all);
        free(lens);
        free(offsets);
        free(message);
        free(xml);
        json_object_put(record);
        NBC_CHECK_MPI(MPI_Comm_free(&leaders));
    }
    free(cpus);
    NBC_CHECK_MPI(MPI_Comm_free(&node));
    return failed ? -1 : 0;
}

void nbc_record_system(nbc_run *run, meta_info *meta)
{
    int failed = nbc_provenance_record(run, meta);
    failed |= nbc_mpit_start(run, meta);
    nbc_exit_if_any_failed(failed != 0,
                           "cannot write provenance.json, topology-*.xml or mpit_cvars.csv into "
                           "the run folder",
                           1);
}
