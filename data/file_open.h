/* Opening the files gmm reads (IDX data, model files): only regular files, never blocking on a
 * FIFO without a writer, and the memory a file's contents may claim; and reading one whole
 * (writing: data/file_write.h). */
#ifndef GMM_FILE_OPEN_H
#define GMM_FILE_OPEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "data/file_write.h"
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

/* Asks the kernel to back a large new buffer (malloc'd, not yet touched) with huge pages where
 * it can (madvise MADV_HUGEPAGE on its 2 MiB-aligned interior; nothing below 4 MiB or where the
 * call does not exist): filling 47 MB of fresh 4 KiB pages took 0.13 s of page faults on a
 * small machine, with huge pages 0.01 s. A hint: nothing fails without it. */
void file_advise_huge(void *buffer, size_t bytes);

/* The whole of a regular file (file_open_regular's checks, `expected` in its messages) in a new
 * buffer (*data, free it; one byte more than *size, so an empty file still gets a pointer). */
gmm_status file_read_whole(const char *path, const char *expected, unsigned char **data,
                           size_t *size);

/* Writing a file from pieces of memory (file_segment, file_write_segments) lives in
 * data/file_write.h, with every other output. */

#endif
