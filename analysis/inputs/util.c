/* analysis/inputs: messages, files, growable buffers, targets. */
#include "analysis/inputs/inputs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int analysis_fail(analysis_error *err, int status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, args);
    va_end(args);
    return status;
}

void analysis_warn(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fputs("warning: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}

void analysis_quote(const char *value, size_t len, char *out, size_t out_size)
{
    static const size_t shown_max = 40; /* enough to recognise a value */
    size_t o = 0;
    if (out_size == 0)
        return;
    for (size_t i = 0; i < len && i < shown_max && o + 5 < out_size; i++) {
        unsigned char c = (unsigned char)value[i];
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, out_size - o, "\\x%02x", c);
    }
    if (len > shown_max && o + 4 < out_size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o < out_size ? o : out_size - 1] = '\0';
}

void bits_text(const bit_name *names, size_t count, unsigned bits, char *out, size_t out_size)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (!(bits & names[i].bit))
            continue;
        int n = snprintf(out + o, out_size - o, "%s%s", o ? "+" : "", names[i].name);
        if (n < 0 || (size_t)n >= out_size - o)
            return;
        o += (size_t)n;
    }
    if (o == 0)
        snprintf(out, out_size, "none");
}

int analysis_read_file(const char *path, char **buf, size_t *len, bool *missing,
                       analysis_error *err)
{
    *buf = NULL;
    *len = 0;
    *missing = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) {
            *missing = true;
            return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: no such file", path);
        }
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    }
    size_t capacity = 1 << 16, used = 0;
    char *data = malloc(capacity);
    if (!data) {
        fclose(f);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", path);
    }
    for (;;) {
        if (used + 1 >= capacity) {
            char *bigger = realloc(data, capacity * 2);
            if (!bigger) {
                free(data);
                fclose(f);
                return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: out of memory", path);
            }
            data = bigger;
            capacity *= 2;
        }
        size_t got = fread(data + used, 1, capacity - used - 1, f);
        used += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    int saved_errno = errno;
    fclose(f);
    if (failed) {
        free(data);
        /* EISDIR and the like are the user's input, not a system failure. */
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: cannot read: %s", path,
                             strerror(saved_errno));
    }
    data[used] = '\0';
    *buf = data;
    *len = used;
    return ANALYSIS_OK;
}

int analysis_path(char *out, size_t out_size, const char *dir, const char *name,
                  analysis_error *err)
{
    int n = snprintf(out, out_size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= out_size)
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s/%s: path too long", dir, name);
    return ANALYSIS_OK;
}

int analysis_write_file_atomic(const char *path, const char *text, size_t len, analysis_error *err)
{
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: cannot create: %s", tmp,
                             strerror(errno));
    bool ok = fwrite(text, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        unlink(tmp);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: write failed: %s", tmp,
                             strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: cannot rename into place: %s", path,
                             strerror(saved));
    }
    return ANALYSIS_OK;
}

int analysis_make_dir(const char *path, analysis_error *err)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return ANALYSIS_OK;
        return analysis_fail(err, ANALYSIS_ERR_INPUT, "%s: exists and is not a directory", path);
    }
    return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "%s: cannot create directory: %s", path,
                         strerror(errno));
}

void strbuf_printf(strbuf *sb, const char *fmt, ...)
{
    if (!sb->ok && sb->data)
        return;
    if (!sb->data) {
        sb->capacity = 4096;
        sb->data = malloc(sb->capacity);
        sb->len = 0;
        sb->ok = sb->data != NULL;
        if (!sb->ok)
            return;
        sb->data[0] = '\0';
    }
    for (;;) {
        va_list args;
        va_start(args, fmt);
        int n = vsnprintf(sb->data + sb->len, sb->capacity - sb->len, fmt, args);
        va_end(args);
        if (n < 0) {
            sb->ok = false;
            return;
        }
        if (sb->len + (size_t)n < sb->capacity) {
            sb->len += (size_t)n;
            return;
        }
        size_t want = sb->capacity * 2;
        while (want <= sb->len + (size_t)n)
            want *= 2;
        char *bigger = realloc(sb->data, want);
        if (!bigger) {
            sb->ok = false;
            return;
        }
        sb->data = bigger;
        sb->capacity = want;
    }
}

void strbuf_free(strbuf *sb)
{
    free(sb->data);
    *sb = (strbuf){0};
}

int analysis_grow(void **array, size_t *capacity, size_t count, size_t elem_size,
                  analysis_error *err)
{
    if (count < *capacity)
        return ANALYSIS_OK;
    size_t want = *capacity ? *capacity * 2 : 64;
    if (want > SIZE_MAX / elem_size)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (table too large)");
    void *bigger = realloc(*array, want * elem_size);
    if (!bigger)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (%zu rows)", want);
    *array = bigger;
    *capacity = want;
    return ANALYSIS_OK;
}

bool analysis_same_target(double a, double b)
{
    static const double relative_tolerance = 1e-6; /* targets printed with >= 7 digits */
    return fabs(a - b) <= relative_tolerance * fmax(fabs(a), fabs(b));
}
