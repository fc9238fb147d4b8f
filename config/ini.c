/* The configuration's INI reading: a file's text (bounded, no NUL byte)
 * through libinih, with "file:line" in every message, refusing what libinih
 * would silently misread (over-long lines, indented continuations, a key
 * set twice). */
#include "config/config.h"
#include "config/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

/* The configuration is a few hundred bytes; anything this big is not one. */
#define CONFIG_FILE_MAX_BYTES (1 << 20)

typedef struct {
    nbc_config *cfg;
    const char *origin;
    const char *next;       /* text not yet given to libinih */
    const char *line_start; /* the raw line libinih is working on */
    int lineno;
    int first_overlong_line;
    int set_on_line[CONFIG_KEY_COUNT];
    int error_line;
    char *err;
    size_t errlen;
} parse_context;

/* libinih's fgets-like reader over the text, as ini_parse_string has, but
 * counting lines (for "file:line" in messages) and refusing lines longer than
 * libinih's buffer, which it would otherwise silently split in two. */
static char *read_line(char *line, int size, void *stream)
{
    parse_context *ctx = stream;
    if (*ctx->next == '\0' || size < 2)
        return NULL;
    const char *start = ctx->next, *newline = strchr(start, '\n');
    size_t length = newline ? (size_t)(newline - start) + 1 : strlen(start);
    ctx->next = start + length;
    ctx->line_start = start;
    ctx->lineno++;
    if (length > (size_t)size - 1) {
        if (ctx->first_overlong_line == 0)
            ctx->first_overlong_line = ctx->lineno;
        length = 0;
    }
    memcpy(line, start, length);
    line[length] = '\0';
    return line;
}

/* libinih reads an indented line as more of the previous key's value. */
static bool is_continuation(const char *raw_line, const char *name)
{
    if (!isspace((unsigned char)raw_line[0]))
        return false;
    while (isspace((unsigned char)*raw_line))
        raw_line++;
    size_t length = strlen(name);
    if (strncmp(raw_line, name, length) != 0)
        return true;
    /* only now is raw_line known to be at least length characters long */
    char after = raw_line[length];
    return !(after == '=' || after == ':' || isspace((unsigned char)after));
}

static int apply_pair(parse_context *ctx, const char *section, const char *name, const char *value)
{
    char where[MESSAGE_MAX];
    snprintf(where, sizeof where, "%s:%d", ctx->origin, ctx->lineno);
    if (is_continuation(ctx->line_start, name))
        return config_fail(
            ctx->err, ctx->errlen,
            "%s: %s.%s: indented line \"%s\" is read as the continuation of the value "
            "above (allowed: one key = value per line, not indented)",
            where, section, name, value);
    size_t index = 0;
    if (config_find_key(section, name, &index) == NULL)
        return config_unknown_key(where, section, name, ctx->err, ctx->errlen);
    if (ctx->set_on_line[index] != 0)
        return config_fail(
            ctx->err, ctx->errlen,
            "%s: %s.%s: \"%s\" sets the key a second time (first on line %d; allowed: "
            "each key once per file, --set overrides it)",
            where, section, name, value, ctx->set_on_line[index]);
    ctx->set_on_line[index] = ctx->lineno;
    return config_apply_value(ctx->cfg, index, value, where, ctx->err, ctx->errlen);
}

/* libinih's handler: nonzero to go on. Only the first error is kept. */
static int on_ini_pair(void *user, const char *section, const char *name, const char *value)
{
    parse_context *ctx = user;
    if (ctx->error_line != 0)
        return 0;
    if (apply_pair(ctx, section, name, value) != 0) {
        ctx->error_line = ctx->lineno;
        return 0;
    }
    return 1;
}

/* Copies line number lineno (from 1) of text into buf, for messages. */
static void copy_line(const char *text, int lineno, char *buf, size_t len)
{
    for (int i = 1; i < lineno && text; i++) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    buf[0] = '\0';
    if (text == NULL)
        return;
    size_t n = strcspn(text, "\r\n");
    snprintf(buf, len, "%.*s", (int)(n < 200 ? n : 200), text);
}

int nbc_config_parse_text(nbc_config *cfg, const char *text, const char *origin, char *err,
                          size_t errlen)
{
    parse_context ctx = {.cfg = cfg, .origin = origin, .next = text, .err = err, .errlen = errlen};
    int status = ini_parse_stream(read_line, &ctx, on_ini_pair, &ctx);
    if (status == -2)
        return config_fail(err, errlen, "%s: out of memory", origin);

    /* Report the error on the earliest line: a syntax error libinih found,
     * a line too long, or a value the handler refused. */
    int syntax_line = status > 0 && (ctx.error_line == 0 || status < ctx.error_line) ? status : 0;
    int overlong = ctx.first_overlong_line;
    if (overlong != 0 && (syntax_line == 0 || overlong < syntax_line) &&
        (ctx.error_line == 0 || overlong < ctx.error_line))
        return config_fail(err, errlen, "%s:%d: line is too long (allowed: at most %d characters)",
                           origin, overlong, INI_MAX_LINE - 3);
    if (syntax_line != 0) {
        char line[256];
        copy_line(text, syntax_line, line, sizeof line);
        return config_fail(err, errlen,
                           "%s:%d: \"%s\" cannot be parsed (allowed: [section], key = value, or a "
                           "comment starting with ; or #)",
                           origin, syntax_line, line);
    }
    return ctx.error_line != 0 ? -1 : 0;
}

int nbc_config_read_file(const char *path, char **text, char *err, size_t errlen)
{
    *text = NULL;
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return config_fail(err, errlen, "cannot open configuration file \"%s\": %s", path,
                           strerror(errno));
    char *buffer = malloc(CONFIG_FILE_MAX_BYTES + 1);
    if (buffer == NULL) {
        fclose(file);
        return config_fail(err, errlen, "cannot read \"%s\": out of memory", path);
    }
    size_t size = fread(buffer, 1, CONFIG_FILE_MAX_BYTES + 1, file);
    int read_errno = ferror(file) ? errno : 0;
    fclose(file);
    if (read_errno != 0) {
        free(buffer);
        return config_fail(err, errlen, "cannot read configuration file \"%s\": %s", path,
                           strerror(read_errno));
    }
    if (size > CONFIG_FILE_MAX_BYTES) {
        free(buffer);
        return config_fail(
            err, errlen,
            "configuration file \"%s\" is larger than %d bytes (allowed: an INI text "
            "file)",
            path, CONFIG_FILE_MAX_BYTES);
    }
    if (memchr(buffer, '\0', size) != NULL) {
        free(buffer);
        return config_fail(
            err, errlen,
            "configuration file \"%s\" contains a NUL byte (allowed: an INI text file)", path);
    }
    buffer[size] = '\0';
    char *shrunk = realloc(buffer, size + 1);
    *text = shrunk ? shrunk : buffer;
    return 0;
}
