/* Opening the files gmm reads (IDX data, model files): only regular files, never blocking on a
 * FIFO without a writer, and the memory a file's contents may claim. */
#ifndef GMM_FILE_OPEN_H
#define GMM_FILE_OPEN_H

#include <stdint.h>
#include <sys/stat.h>

#include "kernels/gmm_status.h"

/* A read-only descriptor for path when it is a regular file: opened with O_NONBLOCK (a FIFO
 * cannot block the open), checked with fstat (*sb), then switched back to blocking reads.
 * Otherwise -1 with *st set to GMM_ERR_IO naming the path and what it is instead ("a FIFO (named
 * pipe)", "a directory", ...) or why it cannot be opened; expected ("an IDX image file", "a
 * model file") finishes the message. */
int file_open_regular(const char *path, const char *expected, struct stat *sb, gmm_status *st);

/* The bytes this process can have: the machine's physical memory, lowered by an address-space or
 * data-segment limit when one is set. A header that promises more fails before allocating. */
uint64_t file_memory_budget(void);

#endif
