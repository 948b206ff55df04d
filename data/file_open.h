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
 * data-segment limit (setrlimit, ulimit -v) and by the memory limit of the process's cgroup
 * (file_cgroup_memory_limit on /sys/fs/cgroup and /proc/self/cgroup) when one is set. A header
 * that promises more fails before allocating. */
uint64_t file_memory_budget(void);

/* The smallest memory limit on the way from the process's cgroup up to the root, or UINT64_MAX
 * when there is none (or nothing can be read). cgroup_root is where the cgroup file systems are
 * mounted ("/sys/fs/cgroup"); self_cgroup is the text of /proc/self/cgroup. cgroup v2 (the line
 * "0::PATH"): memory.max and memory.high of ROOT/PATH and of every directory above it up to ROOT
 * itself (beyond memory.high the kernel throttles the process to a crawl; beyond memory.max it
 * kills it). cgroup v1 (a line "N:...memory...:PATH"): memory.limit_in_bytes of
 * ROOT/memory/PATH and above. A container sees its own cgroup as the root while /proc/self/cgroup
 * may name the host's path: directories that do not exist are skipped on the way up, so the
 * container's own limit is still found. The usage already charged (memory.current) is not
 * subtracted: most of it is page cache the kernel reclaims (the file just read among it), so it
 * would refuse files that fit. Separate from file_memory_budget so that a test can point it at
 * a directory tree of its own. */
uint64_t file_cgroup_memory_limit(const char *cgroup_root, const char *self_cgroup);

/* Reads exactly n bytes at offset of the descriptor into buf (pread, retried on EINTR and short
 * reads). A file that ends first is GMM_ERR_IO "PATH: the file shrank while being read" (a
 * regular file whose size was taken with fstat before). */
gmm_status file_read_exact(int fd, const char *path, void *buf, size_t n, uint64_t offset);

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
