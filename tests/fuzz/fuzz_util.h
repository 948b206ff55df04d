/* Shared by the fuzz harnesses: a private temporary directory (in /dev/shm when there is one)
 * and writing the fuzzer's bytes to a file there, so that the readers are driven through the
 * same path-taking entry points the programs use. */
#ifndef GMM_FUZZ_UTIL_H
#define GMM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The harness's directory, created on first use and removed at exit. */
const char *fuzz_dir(void);
/* dir/name, in a static buffer per call site (copy it to keep it). */
const char *fuzz_path(char *buf, size_t size, const char *name);
/* Writes the bytes to path (replacing it); aborts on failure. */
void fuzz_write(const char *path, const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
