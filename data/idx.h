/* Reading and writing IDX files (the MNIST format), raw or gzip-compressed.
 * Images are idx3 unsigned byte (magic 0x00000803), labels idx1 unsigned byte (0x00000801).
 * The item count always comes from the header; every inconsistency is a GMM_ERR_FORMAT with a
 * detail naming the file and the problem. */
#ifndef GMM_IDX_H
#define GMM_IDX_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n_items;     /* from the header */
    int rows, cols;  /* image shape; 1 x 1 for labels */
    uint8_t *data;   /* n_items * rows * cols bytes */
} idx_array;

/* Reads an idx3 unsigned-byte image file (gzip detected by its magic bytes, not its name). */
gmm_status idx_read_images(const char *path, idx_array *out);
/* Reads an idx1 unsigned-byte label file. */
gmm_status idx_read_labels(const char *path, idx_array *out);
/* Writes images (gzip when gzip != 0). */
gmm_status idx_write_images(const char *path, const uint8_t *pixels, int n_items, int rows,
                            int cols, int gzip);
gmm_status idx_write_labels(const char *path, const uint8_t *labels, int n_items, int gzip);
void idx_free(idx_array *array); /* accepts a zeroed or freed array */

#ifdef __cplusplus
}
#endif
#endif
