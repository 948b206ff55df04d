/* Writing an IDX file item by item, for data sets too large to hold in memory (gmm-augment's
 * 8.1 million images): the header promises n_items up front, items are appended in any number
 * of pieces, and the file appears under its name only when every promised item was written
 * (it is written to a new temporary file beside it, ".NAME.XXXXXX", and renamed: see
 * data/file_write.h), so an interrupted run leaves no file that promises more than it holds. Raw (uncompressed) bytes, so that readers can map the file. */
#ifndef GMM_IDX_WRITER_H
#define GMM_IDX_WRITER_H

#include <stdint.h>
#include <stdio.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    FILE *file;
    char path[1024];         /* the final name */
    char partial_path[1100]; /* the temporary file being written ("" when none) */
    uint64_t item_bytes;     /* rows * cols (1 for labels) */
    uint64_t n_items, written;
} idx_writer;

/* Starts an image file (n_dims 3: n_items x rows x cols) or a label file (n_dims 1: rows and
 * cols ignored) of unsigned bytes. */
gmm_status idx_writer_open(idx_writer *w, const char *path, int n_dims, int64_t n_items, int rows,
                           int cols);
/* Appends n items (n * item bytes); more than the header promised is GMM_ERR_ARG. */
gmm_status idx_writer_append(idx_writer *w, const uint8_t *items, int64_t n);
/* Checks that every promised item was written, flushes and renames the file into place. On any
 * failure (and from idx_writer_abort) the partial file is removed. */
gmm_status idx_writer_close(idx_writer *w);
void idx_writer_abort(idx_writer *w); /* accepts a zeroed, closed or aborted writer */

#ifdef __cplusplus
}
#endif
#endif
