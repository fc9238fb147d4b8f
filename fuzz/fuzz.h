/* fuzz: what every fuzz target shares.
 *
 * A target is one LLVMFuzzerTestOneInput. It is linked either with libFuzzer
 * (clang -fsanitize=fuzzer, `make fuzz`) or with replay_main.c (gcc, the
 * regression test of `make check`), so it uses nothing of libFuzzer. Besides
 * memory errors and undefined behaviour (the sanitizers), a target checks the
 * promises of the API it drives and aborts when one is broken, so that the
 * fuzzer keeps the input as a crash. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Returns 0; libFuzzer reserves other values. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message when a promise of the code under test is broken. */
static inline void fuzz_require(bool holds, const char *target, const char *promise)
{
    if (holds)
        return;
    fprintf(stderr, "fuzz: %s: broken promise: %s\n", target, promise);
    abort();
}

/* The input as a NUL-terminated string (it ends at its first NUL byte, as a
 * C string would); exits when out of memory, which is no finding. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL) {
        fprintf(stderr, "fuzz: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < size; i++)
        text[i] = (char)data[i];
    text[size] = '\0';
    return text;
}

#endif
