/* The option-parser harnesses' common part: the input split at NUL bytes into argv. */
#ifndef GMM_FUZZ_ARGS_H
#define GMM_FUZZ_ARGS_H

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ARGS 24

/* Fills argv (FUZZ_MAX_ARGS + 2 slots) from a copy of data (freed by the caller: *copy). */
static int fuzz_split_args(const uint8_t *data, size_t size, const char *program, char **argv,
                           char **copy)
{
    *copy = malloc(size + 1);
    memcpy(*copy, data, size);
    (*copy)[size] = '\0';
    int argc = 0;
    argv[argc++] = (char *)program;
    for (size_t start = 0; start <= size && argc <= FUZZ_MAX_ARGS;) {
        argv[argc++] = *copy + start;
        start += strlen(*copy + start) + 1;
    }
    argv[argc] = NULL;
    optind = 0; /* glibc: start a fresh scan */
    return argc;
}

#endif
