/* Replays inputs through a fuzz target without libFuzzer, so that the inputs
 * a fuzzer found (tests/fuzz/corpus/) are regression tests of `make check`,
 * built with gcc like the rest of the suite.
 *
 *   replay_<target> PATH...   PATH: a file, or a folder whose regular files
 *                             are replayed in name order (not recursively)
 *
 * Exit status: 0 when every input ran (a broken promise aborts, a sanitizer
 * stops the process), 2 on a bad argument or when no input was found. */
#include "fuzz/fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* Runs the target on the whole content of path; -1 when it cannot be read. */
static int replay_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t size = 0, capacity = 4096;
    uint8_t *data = malloc(capacity);
    while (data != NULL) {
        size += fread(data + size, 1, capacity - size, file);
        if (size < capacity)
            break;
        uint8_t *bigger = realloc(data, 2 * capacity);
        if (bigger == NULL) {
            free(data);
            data = NULL;
            break;
        }
        data = bigger;
        capacity *= 2;
    }
    bool failed = data == NULL || ferror(file);
    fclose(file);
    if (failed) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        return -1;
    }
    /* an exact-size copy, so that reading past the input is caught */
    uint8_t *input = malloc(size ? size : 1);
    if (input == NULL) {
        fprintf(stderr, "replay: out of memory for %s\n", path);
        free(data);
        return -1;
    }
    memcpy(input, data, size);
    free(data);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(input, size);
    free(input);
    return 0;
}

static int only_visible(const struct dirent *entry)
{
    return entry->d_name[0] != '.';
}

/* Replays path (file or folder); adds the inputs run to *count. */
static int replay_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (replay_file(path) != 0)
            return -1;
        (*count)++;
        return 0;
    }
    struct dirent **entries = NULL;
    int n = scandir(path, &entries, only_visible, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return -1;
    }
    int status = 0;
    for (int i = 0; i < n; i++) {
        char file[4096];
        int length = snprintf(file, sizeof file, "%s/%s", path, entries[i]->d_name);
        if (status == 0 && (length < 0 || (size_t)length >= sizeof file)) {
            fprintf(stderr, "replay: path too long in %s\n", path);
            status = -1;
        }
        if (status == 0 && stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
            status = replay_file(file);
            *count += status == 0;
        }
        free(entries[i]);
    }
    free(entries);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH... (files or folders of inputs)\n", argv[0]);
        return 2;
    }
    size_t count = 0;
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            return 2;
    if (count == 0) {
        fprintf(stderr, "replay: no input found in the paths given\n");
        return 2;
    }
    printf("replay: %zu inputs, no failure\n", count);
    return 0;
}
