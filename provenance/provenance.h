/* provenance: what one node is and how it is set up, read from the system
 * (docs/formats.md, provenance.json). Plain C without MPI: bench_nbc calls
 * it on one rank per node and gathers the objects; the parsers below work
 * on the text of the files, so tests feed them fixtures.
 *
 * Hoefler and Belli (SC15) ask a benchmark to report the hardware, the
 * software stack and its configuration (rules 9, 10) and anything that makes
 * runs differ (rule 12): frequency governor, turbo, SMT, huge pages, the
 * libraries really loaded. A fact the system does not offer (no cpufreq in
 * a virtual machine) is the string "unavailable" in its place and one entry
 * of the node's "unavailable" array naming the fact, the path tried and why.
 */
#ifndef PROVENANCE_H
#define PROVENANCE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

enum { PROVENANCE_MAX_CPUS = 4096 };

typedef struct provenance_options {
    /* NULL or "": the running system; else a folder holding proc/ and sys/
     * laid out as the real ones (tests). uname, loaded libraries, clocks and
     * the environment always come from the running process. */
    const char *root;
    /* The CPUs the suite computes on, over every rank of this node, for the
     * warnings (SMT siblings both computing, their governors). */
    const int *computing_cpus;
    int computing_count;
    /* The file name the caller gives the hwloc XML (recorded in "topology"). */
    const char *topology_file;
} provenance_options;

/* This node's record (a new object; NULL only when out of memory). When
 * topology_xml is not NULL it receives the hwloc topology as XML (malloc'd,
 * for the caller to write to opt->topology_file), or NULL when there is
 * none: a build without hwloc (HWLOC=0) or an export error, said in the
 * record. */
json_object *provenance_node_json(const provenance_options *opt, char **topology_xml);

/* What in a node's record threatens the measurements, one sentence each (a
 * new array of strings, maybe empty): a computing CPU's governor not
 * `performance` nor fixed (min = max), turbo or boost on, two computing
 * CPUs that are SMT siblings. */
json_object *provenance_warnings(json_object *node);

/* ---- The environment variables recorded (env_prefixes.c) ---- */

/* Where a variable is recorded: meta.json's environment (the run's, which a
 * replay sets again) and each node's provenance record. */
enum { PROVENANCE_ENV_META = 1u << 0, PROVENANCE_ENV_NODE = 1u << 1 };
typedef struct provenance_env_prefix {
    const char *prefix; /* the name's start; the exact name when it ends with '=' */
    unsigned records;   /* PROVENANCE_ENV_* */
} provenance_env_prefix;
extern const provenance_env_prefix provenance_env_prefixes[];
extern const size_t provenance_env_prefix_count;
/* Whether an environment entry ("NAME=VALUE") is recorded where `record`
 * (PROVENANCE_ENV_*) says. */
bool provenance_env_recorded(const char *entry, unsigned record);

/* ---- Parsers of the system's files, on their text ---- */

/* s without blanks and newlines at either end (s is changed). */
char *provenance_trim(char *s);

/* /proc/cpuinfo: "model", "vendor", "microcode", "flags" (the first
 * processor's), "logical_cpus", "sockets" (distinct physical ids), "cores"
 * (distinct physical id, core id pairs), "threads_per_core". Fields a
 * processor lacks (no physical id on some architectures) are null. */
json_object *provenance_parse_cpuinfo(const char *text);
/* /proc/meminfo's huge page lines: "HugePages_Total", "HugePages_Free",
 * "HugePages_Rsvd", "HugePages_Surp" (pages), "Hugepagesize_kB" and
 * "Hugetlb_kB"; a line absent is absent. */
json_object *provenance_parse_hugepages(const char *text);
/* /proc/cmdline: "text" (trailing newline removed) and "isolcpus",
 * "nohz_full", "rcu_nocbs", "irqaffinity", "intel_pstate" (the value of the
 * last such parameter, null when absent). */
json_object *provenance_parse_cmdline(const char *text);
/* A sysfs choice list such as "always [madvise] never": the bracketed word
 * into out; the whole trimmed text when nothing is bracketed. */
void provenance_parse_choice(const char *text, char *out, size_t out_size);
/* A CPU list such as "0-3,8,10-11": how many CPUs it holds (written to
 * cpus, at most max), or -1 when the text is not a CPU list. */
int provenance_parse_cpulist(const char *text, int *cpus, int max);

#endif
