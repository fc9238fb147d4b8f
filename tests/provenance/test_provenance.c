/* provenance/: the parsers of /proc and /sys text on fixtures, and a whole
 * node record read from a fixture tree (governors, turbo, SMT siblings, a
 * missing cpufreq recorded as unavailable with its path) with its warnings.
 * No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "provenance/provenance.h"

/* Two sockets x 2 cores x 2 hardware threads, as Linux lists them on x86
 * (only the lines the parser reads, plus some it must skip). */
static const char cpuinfo[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ "
    "2.10GHz\nmicrocode\t: 0x2006906\nphysical id\t: 0\ncore id\t\t: 0\nflags\t\t: fpu vme "
    "avx512f\nbogomips\t: 4200.00\n\n"
    "processor\t: 1\nmodel name\t: other\nphysical id\t: 0\ncore id\t\t: 1\n\n"
    "processor\t: 2\nphysical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 3\nphysical id\t: 1\ncore id\t\t: 1\n\n"
    "processor\t: 4\nphysical id\t: 0\ncore id\t\t: 0\n\n"
    "processor\t: 5\nphysical id\t: 0\ncore id\t\t: 1\n\n"
    "processor\t: 6\nphysical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 7\nphysical id\t: 1\ncore id\t\t: 1\n";

static const char meminfo[] = "MemTotal:       65536000 kB\nHugePages_Total:      16\n"
                              "HugePages_Free:       12\nHugePages_Rsvd:        1\n"
                              "HugePages_Surp:        0\nHugepagesize:       2048 kB\n"
                              "Hugetlb:           32768 kB\n";

static const char *get_string(json_object *o, const char *key)
{
    json_object *v;
    assert_true(json_object_object_get_ex(o, key, &v));
    return json_object_get_string(v);
}

static int64_t get_int(json_object *o, const char *key)
{
    json_object *v;
    assert_true(json_object_object_get_ex(o, key, &v));
    assert_non_null(v);
    return json_object_get_int64(v);
}

static void parses_cpuinfo(void **state)
{
    (void)state;
    json_object *o = provenance_parse_cpuinfo(cpuinfo);
    assert_string_equal(get_string(o, "model"), "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
    assert_string_equal(get_string(o, "vendor"), "GenuineIntel");
    assert_string_equal(get_string(o, "microcode"), "0x2006906");
    assert_string_equal(get_string(o, "flags"), "fpu vme avx512f");
    assert_int_equal(get_int(o, "logical_cpus"), 8);
    assert_int_equal(get_int(o, "sockets"), 2);
    assert_int_equal(get_int(o, "cores"), 4);
    assert_int_equal(get_int(o, "threads_per_core"), 2);
    json_object_put(o);
    /* An architecture without physical ids (arm64 lists "Features"). */
    o = provenance_parse_cpuinfo("processor\t: 0\nFeatures\t: fp asimd\n\nprocessor\t: 1\n");
    assert_string_equal(get_string(o, "flags"), "fp asimd");
    assert_int_equal(get_int(o, "logical_cpus"), 2);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "sockets", &v));
    assert_null(v);
    json_object_put(o);
}

static void parses_hugepages(void **state)
{
    (void)state;
    json_object *o = provenance_parse_hugepages(meminfo);
    assert_int_equal(get_int(o, "HugePages_Total"), 16);
    assert_int_equal(get_int(o, "HugePages_Free"), 12);
    assert_int_equal(get_int(o, "HugePages_Rsvd"), 1);
    assert_int_equal(get_int(o, "HugePages_Surp"), 0);
    assert_int_equal(get_int(o, "Hugepagesize_kB"), 2048);
    assert_int_equal(get_int(o, "Hugetlb_kB"), 32768);
    assert_false(json_object_object_get_ex(o, "MemTotal", NULL));
    json_object_put(o);
}

static void parses_cmdline(void **state)
{
    (void)state;
    json_object *o = provenance_parse_cmdline(
        "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=managed_irq,2-7 nohz_full=2-7 quiet\n");
    assert_string_equal(get_string(o, "text"),
                        "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=managed_irq,2-7 "
                        "nohz_full=2-7 quiet");
    assert_string_equal(get_string(o, "isolcpus"), "managed_irq,2-7");
    assert_string_equal(get_string(o, "nohz_full"), "2-7");
    json_object *v;
    assert_true(json_object_object_get_ex(o, "rcu_nocbs", &v));
    assert_null(v);
    json_object_put(o);
}

static void parses_choice_and_cpulist(void **state)
{
    (void)state;
    char out[64];
    provenance_parse_choice("always [madvise] never\n", out, sizeof out);
    assert_string_equal(out, "madvise");
    provenance_parse_choice("  performance\n", out, sizeof out);
    assert_string_equal(out, "performance");
    int cpus[16];
    assert_int_equal(provenance_parse_cpulist("0-3,8,10-11\n", cpus, 16), 7);
    assert_int_equal(cpus[3], 3);
    assert_int_equal(cpus[4], 8);
    assert_int_equal(cpus[6], 11);
    assert_int_equal(provenance_parse_cpulist("5", cpus, 16), 1);
    assert_int_equal(provenance_parse_cpulist("3-1", cpus, 16), -1);
    assert_int_equal(provenance_parse_cpulist("a,b", cpus, 16), -1);
}

/* ---- A fixture tree: /proc and /sys of a 4-CPU node, 2 cores x 2 SMT ---- */

static void put(const char *root, const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    for (char *p = full + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(full, 0755);
            *p = '/';
        }
    FILE *f = fopen(full, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void make_tree(const char *root, bool cpufreq)
{
    put(root, "/proc/cpuinfo", cpuinfo);
    put(root, "/proc/meminfo", meminfo);
    put(root, "/proc/version", "Linux version 6.1.0-test\n");
    put(root, "/proc/cmdline", "ro isolcpus=2,3\n");
    put(root, "/sys/devices/system/cpu/online", "0-3\n");
    put(root, "/sys/devices/system/cpu/smt/active", "1\n");
    static const char *const siblings[] = {"0,2", "1,3", "0,2", "1,3"};
    for (int c = 0; c < 4; c++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 c);
        put(root, path, siblings[c]);
        if (cpufreq) {
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                     c);
            put(root, path, c == 1 ? "performance\n" : "powersave\n");
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_min_freq",
                     c);
            put(root, path, "1000000\n");
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
                     c);
            put(root, path, c == 3 ? "1000000\n" : "3000000\n");
        }
    }
    if (cpufreq)
        put(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
    put(root, "/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
    put(root, "/sys/devices/system/node/node0/cpulist", "0-1\n");
    put(root, "/sys/devices/system/node/node1/cpulist", "2-3\n");
    put(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
}

static bool has_warning(json_object *w, const char *part)
{
    for (size_t i = 0; i < json_object_array_length(w); i++)
        if (strstr(json_object_get_string(json_object_array_get_idx(w, i)), part))
            return true;
    return false;
}

static bool unavailable_names(json_object *node, const char *fact, const char *path)
{
    json_object *list, *f, *p;
    assert_true(json_object_object_get_ex(node, "unavailable", &list));
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *e = json_object_array_get_idx(list, i);
        if (json_object_object_get_ex(e, "fact", &f) && json_object_object_get_ex(e, "path", &p) &&
            strcmp(json_object_get_string(f), fact) == 0 && strstr(json_object_get_string(p), path))
            return true;
    }
    return false;
}

static json_object *section(json_object *node, const char *key)
{
    json_object *v;
    assert_true(json_object_object_get_ex(node, key, &v));
    return v;
}

static void node_from_fixture_tree(void **state)
{
    (void)state;
    char root[] = "/tmp/provenance_test.XXXXXX";
    assert_non_null(mkdtemp(root));
    make_tree(root, true);
    /* CPUs 0 and 2 are SMT siblings, both computing; 1 computes too. */
    int computing[] = {0, 1, 2};
    provenance_options opt = {.root = root, .computing_cpus = computing, .computing_count = 3};
    json_object *node = provenance_node_json(&opt, NULL);
    assert_non_null(node);
    json_object *cpu = section(node, "cpu"), *freq = section(node, "frequency");
    assert_int_equal(get_int(cpu, "sockets"), 2);
    assert_string_equal(get_string(cpu, "smt_active"), "1");
    assert_int_equal(json_object_array_length(section(cpu, "smt_siblings")), 2);
    assert_string_equal(get_string(section(section(node, "kernel"), "cmdline"), "isolcpus"), "2,3");
    assert_string_equal(get_string(freq, "turbo"), "on");
    assert_int_equal(json_object_array_length(section(freq, "governors")), 4);
    assert_string_equal(get_string(section(node, "memory"), "transparent_hugepages"), "always");
    /* Absent in the tree: recorded as unavailable with the path tried. */
    assert_string_equal(get_string(section(node, "memory"), "transparent_hugepages_defrag"),
                        "unavailable");
    assert_true(unavailable_names(node, "memory.transparent_hugepages_defrag",
                                  "/sys/kernel/mm/transparent_hugepage/defrag"));
    assert_int_equal(json_object_array_length(section(node, "numa")), 2);
    assert_string_equal(get_string(section(node, "clocks"), "clocksource"), "tsc");

    json_object *w = provenance_warnings(node);
    assert_true(has_warning(w, "CPU 0 computes under frequency governor 'powersave'"));
    assert_true(has_warning(w, "CPU 2 computes under frequency governor 'powersave'"));
    assert_false(has_warning(w, "CPU 1 computes")); /* performance */
    assert_false(has_warning(w, "CPU 3 computes")); /* not computing (and fixed) */
    assert_true(has_warning(w, "turbo/boost is on"));
    assert_true(has_warning(w, "2 computing threads run on SMT siblings of one core (CPUs 0,2)"));
    assert_false(has_warning(w, "CPUs 1,3"));
    assert_int_equal(json_object_array_length(w), 4);
    json_object_put(w);
    json_object_put(node);

    /* Siblings apart, a fixed frequency: no SMT nor governor warning. */
    int apart[] = {0, 3};
    opt.computing_cpus = apart;
    opt.computing_count = 2;
    node = provenance_node_json(&opt, NULL);
    w = provenance_warnings(node);
    assert_false(has_warning(w, "SMT siblings"));
    assert_true(has_warning(w, "CPU 0 computes"));
    assert_false(has_warning(w, "CPU 3 computes"));
    json_object_put(w);
    json_object_put(node);

    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    assert_int_equal(system(command), 0);
}

static void node_without_cpufreq(void **state)
{
    (void)state;
    char root[] = "/tmp/provenance_test.XXXXXX";
    assert_non_null(mkdtemp(root));
    make_tree(root, false);
    int computing[] = {0};
    provenance_options opt = {.root = root, .computing_cpus = computing, .computing_count = 1};
    json_object *node = provenance_node_json(&opt, NULL);
    json_object *freq = section(node, "frequency");
    assert_string_equal(get_string(freq, "governors"), "unavailable");
    assert_string_equal(get_string(freq, "turbo"), "unavailable");
    assert_true(unavailable_names(node, "frequency.governors",
                                  "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
    assert_true(unavailable_names(node, "frequency.turbo", "intel_pstate/no_turbo"));
    json_object *w = provenance_warnings(node);
    assert_int_equal(json_object_array_length(w), 0);
    json_object_put(w);
    json_object_put(node);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    assert_int_equal(system(command), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_cpuinfo),         cmocka_unit_test(parses_hugepages),
        cmocka_unit_test(parses_cmdline),         cmocka_unit_test(parses_choice_and_cpulist),
        cmocka_unit_test(node_from_fixture_tree), cmocka_unit_test(node_without_cpufreq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
