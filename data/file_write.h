/* Writing the files gmm makes (models, PNGs, JSON, CSV, IDX), all one way, so that nothing
 * partial and nothing foreign is ever left under an output's name:
 *   - a regular file (or a name not there yet) is written to a new temporary file beside it,
 *     ".NAME.XXXXXX" in the same directory, created with O_CREAT | O_EXCL | O_NOFOLLOW (a file
 *     or symbolic link planted under that name is never opened), given the mode of the file it
 *     replaces (a new file: 0666 less the umask), then flushed (fsync), renamed over NAME and
 *     the directory flushed. Any failure (a full disk, EFBIG, EPIPE, an interrupt) removes the
 *     temporary file and leaves NAME as it was.
 *   - NAME a symbolic link to a regular file: the file it points to is replaced, as above, in
 *     its own directory (the link stays a link). A link to nothing is refused. The link is
 *     first opened for writing as it is, so that the kernel's protection of links in sticky
 *     directories (fs.protected_symlinks) and the file's permissions apply.
 *   - NAME an existing file that is not a regular file (/dev/null, /dev/full, a FIFO, a
 *     terminal, /dev/stdout as a pipe) is written directly: opened for writing without
 *     O_CREAT or O_TRUNC, never replaced by a regular file; a FIFO without a reader is an
 *     error, not a wait. A directory is refused.
 * Every temporary file in progress is recorded (up to FILE_WRITE_MAX_OPEN at once) so that a
 * program's signal handler can remove them all (file_write_remove_temporaries). */
#ifndef GMM_FILE_WRITE_H
#define GMM_FILE_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many files are written at once by one process. */
#define FILE_WRITE_MAX_OPEN 32

/* Consecutive pieces of a file's bytes. */
typedef struct {
    const void *data;
    size_t bytes;
} file_segment;

/* Writes the segments back to back as the file at path, as described above (a regular file is
 * gathered from where the pieces are with pwritev, up to IOV_MAX a call, on the calling thread,
 * its writeback started every 4 MiB on Linux; 0-byte segments are allowed). GMM_ERR_IO naming
 * path and the reason. */
gmm_status file_write_all(const char *path, const file_segment *seg, size_t n_seg);

/* file_write_all with 0, or -1 and errno set. */
int file_write_segments(const char *path, const file_segment *seg, size_t n_seg);

/* A stream to write the file at path through (binary; NULL with *st set on failure). Nothing
 * appears under path until file_write_close succeeds. */
FILE *file_write_open(const char *path, gmm_status *st);
/* Flushes, fsyncs and closes the stream and renames its file into place. On any failure
 * (including an earlier write error on the stream) the temporary file is removed and
 * GMM_ERR_IO names path and the reason. */
gmm_status file_write_close(FILE *f);
/* Closes the stream and removes its temporary file: the target is left as it was. Accepts
 * NULL. */
void file_write_abort(FILE *f);
/* The temporary name a stream is being written to ("" for a direct write or an unknown
 * stream), for messages and tests. */
const char *file_write_temp_name(FILE *f);

/* Removes every temporary file this process is writing. Async-signal-safe (unlink only): for
 * the programs' handlers of SIGINT, SIGTERM and SIGHUP before they _exit. */
void file_write_remove_temporaries(void);

#ifdef __cplusplus
}
#endif
#endif
