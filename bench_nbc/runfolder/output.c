/* The run folder (docs/formats.md): a new folder per run, CSV files opened in
 * append mode and flushed per cell, whole files replaced atomically. Only
 * rank 0 writes. */
#include "bench_nbc/run.h"
#include "bench_nbc/runfolder/runfolder.h"
#include "schema/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The schema of each CSV file (schema/columns.def: names and columns). */
static const schema_file csv_files[OUT_FILE_COUNT] = {
    [OUT_RAW] = SCHEMA_RAW,
    [OUT_CALIB_COMM] = SCHEMA_CALIB_COMM,
    [OUT_CALIB_COMP] = SCHEMA_CALIB_COMP,
    [OUT_PASSIVE] = SCHEMA_PASSIVE,
    [OUT_SCHED] = SCHEMA_SCHED,
    [OUT_SWEEP] = SCHEMA_SWEEP,
};

/* Header lines, made from the schema once (any thread may ask). */
static char headers[OUT_FILE_COUNT][2048];
static pthread_once_t headers_once = PTHREAD_ONCE_INIT;

static void make_headers(void)
{
    for (int i = 0; i < OUT_FILE_COUNT; i++)
        if (schema_header(csv_files[i], headers[i], sizeof headers[i]) < 0)
            headers[i][0] = '\0'; /* too long: no writer can use it (checked below) */
}

const char *run_output_name(out_file which)
{
    return schema_file_name(csv_files[which]);
}

const char *run_output_header(out_file which)
{
    if (pthread_once(&headers_once, make_headers) != 0)
        return "";
    return headers[which];
}

struct run_output {
    char dir[PATH_MAX];
    FILE *files[OUT_FILE_COUNT];
};

static run_output *new_output(const char *dir, char *err, size_t errlen)
{
    run_output *out = calloc(1, sizeof *out);
    if (!out) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (snprintf(out->dir, sizeof out->dir, "%s", dir) >= (int)sizeof out->dir) {
        snprintf(err, errlen, "run folder path too long: %s", dir);
        free(out);
        return NULL;
    }
    return out;
}

run_output *run_output_create(const char *results_dir, const char *mpi_profile,
                              const char *collective, const char *deployment, char *err,
                              size_t errlen)
{
    char stamp[32], dir[PATH_MAX];
    time_t now = time(NULL);
    struct tm tm;
    if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm)) {
        snprintf(err, errlen, "cannot format the date");
        return NULL;
    }
    /* mkdir fails on an existing name, so a run never lands in another's folder. */
    for (int suffix = 1; suffix < 1000; suffix++) {
        int len = suffix == 1 ? snprintf(dir, sizeof dir, "%s/%s-%s-%s-%s", results_dir, stamp,
                                         mpi_profile, collective, deployment)
                              : snprintf(dir, sizeof dir, "%s/%s-%s-%s-%s-%d", results_dir, stamp,
                                         mpi_profile, collective, deployment, suffix);
        if (len >= (int)sizeof dir) {
            snprintf(err, errlen, "run folder path too long under %s", results_dir);
            return NULL;
        }
        if (mkdir(dir, 0777) == 0)
            return new_output(dir, err, errlen);
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create the run folder %s: %s", dir, strerror(errno));
            return NULL;
        }
    }
    snprintf(err, errlen, "too many runs named %s in the same second", dir);
    return NULL;
}

run_output *run_output_open(const char *run_dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(run_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a run folder", run_dir);
        return NULL;
    }
    return new_output(run_dir, err, errlen);
}

const char *run_output_dir(const run_output *out)
{
    return out->dir;
}

FILE *run_output_file(run_output *out, out_file which)
{
    if (out->files[which])
        return out->files[which];
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", out->dir, run_output_name(which));
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "bench_nbc: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    const char *header = run_output_header(which);
    if (ftell(f) == 0 && (!header[0] || fprintf(f, "%s\n", header) < 0)) {
        fprintf(stderr, "bench_nbc: cannot write %s: %s\n", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    out->files[which] = f;
    return f;
}

int run_output_flush(run_output *out)
{
    int rc = 0;
    for (int i = 0; i < OUT_FILE_COUNT; i++) {
        if (out->files[i] && (fflush(out->files[i]) != 0 || ferror(out->files[i]))) {
            fprintf(stderr, "bench_nbc: cannot write %s/%s: %s\n", out->dir,
                    run_output_name((out_file)i), strerror(errno));
            rc = -1;
        }
    }
    return rc;
}

int run_output_sync(run_output *out)
{
    int rc = run_output_flush(out);
    for (int i = 0; i < OUT_FILE_COUNT; i++) {
        if (out->files[i] && fsync(fileno(out->files[i])) != 0) {
            fprintf(stderr, "bench_nbc: cannot sync %s/%s: %s\n", out->dir,
                    run_output_name((out_file)i), strerror(errno));
            rc = -1;
        }
    }
    return rc;
}

/* After a rename, the folder's entry must reach the disk too, or a power
 * loss could bring back the old file. */
static void sync_folder(const run_output *out)
{
    int fd = open(out->dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Writes text into path: temporary file + rename, so readers see the old
 * file or the whole new one. */
static int write_file_atomic(const char *path, const char *text)
{
    char tmp[PATH_MAX + 80];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "bench_nbc: cannot create %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "bench_nbc: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int run_output_write_atomic(run_output *out, const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", out->dir, name);
    if (write_file_atomic(path, text) != 0)
        return -1;
    sync_folder(out);
    return 0;
}

int run_output_publish_dir(const run_output *out, const char *file, char *err, size_t errlen)
{
    char absolute[PATH_MAX], text[PATH_MAX + 2];
    if (!realpath(out->dir, absolute)) {
        snprintf(err, errlen, "--run-dir-file: cannot resolve %s: %s", out->dir, strerror(errno));
        return -1;
    }
    snprintf(text, sizeof text, "%s\n", absolute);
    if (write_file_atomic(file, text) != 0) {
        snprintf(err, errlen, "--run-dir-file: cannot write %s", file);
        return -1;
    }
    return 0;
}

static void temp_path(const run_output *out, out_file which, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.tmp.%ld", out->dir, run_output_name(which), (long)getpid());
}

FILE *run_output_begin_replace(run_output *out, out_file which, long keep_bytes)
{
    char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", out->dir, run_output_name(which));
    temp_path(out, which, tmp, sizeof tmp);
    if (out->files[which] && fflush(out->files[which]) != 0) {
        fprintf(stderr, "bench_nbc: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    /* No file yet (stopped before the sweep) is fine when nothing is kept. */
    FILE *src = keep_bytes > 0 ? fopen(path, "r") : NULL, *dst = fopen(tmp, "w");
    bool ok = (src || keep_bytes <= 0) && dst;
    /* Nothing kept: the new file starts with its header. */
    if (ok && keep_bytes <= 0)
        ok = run_output_header(which)[0] && fprintf(dst, "%s\n", run_output_header(which)) > 0;
    char buf[1 << 16];
    for (long left = keep_bytes; ok && left > 0;) {
        size_t want = left < (long)sizeof buf ? (size_t)left : sizeof buf;
        size_t got = fread(buf, 1, want, src);
        ok = got == want && fwrite(buf, 1, got, dst) == got;
        left -= (long)got;
    }
    if (src)
        fclose(src);
    if (!ok) {
        fprintf(stderr, "bench_nbc: cannot copy %s to %s: %s\n", path, tmp, strerror(errno));
        if (dst)
            fclose(dst);
        unlink(tmp);
        return NULL;
    }
    return dst;
}

int run_output_commit_replace(run_output *out, out_file which, FILE *replacement)
{
    char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", out->dir, run_output_name(which));
    temp_path(out, which, tmp, sizeof tmp);
    bool ok = fflush(replacement) == 0 && fsync(fileno(replacement)) == 0;
    ok &= fclose(replacement) == 0;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "bench_nbc: cannot replace %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    sync_folder(out);
    if (out->files[which]) {
        fclose(out->files[which]);
        out->files[which] = NULL;
    }
    return run_output_file(out, which) ? 0 : -1;
}

void run_output_close(run_output *out)
{
    if (!out)
        return;
    run_output_flush(out);
    for (int i = 0; i < OUT_FILE_COUNT; i++)
        if (out->files[i])
            fclose(out->files[i]);
    free(out);
}
