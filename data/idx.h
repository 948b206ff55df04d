/* Reading and writing IDX files (the MNIST format), raw or gzip-compressed.
 * Images are idx3 unsigned byte (magic 0x00000803), labels idx1 unsigned byte (0x00000801).
 * The item count always comes from the header; every inconsistency is a GMM_ERR_FORMAT with a
 * detail naming the file and the problem. */
#ifndef GMM_IDX_H
#define GMM_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the reader takes (and so what a writer may write): at most IDX_MAX_DATA_BYTES bytes of
 * items (2^33: far above any image set, low enough that a corrupt header cannot ask for an absurd
 * allocation) and at most IDX_MAX_ITEMS items (fewer than 2^31). data/idx.c and idx_writer.c
 * hold the same values. */
#define IDX_MAX_DATA_BYTES ((uint64_t)1 << 33)
#define IDX_MAX_ITEMS INT32_MAX

typedef struct {
    int n_items;     /* the items read (all that the header declares, or a range of them) */
    int rows, cols;  /* image shape; 1 x 1 for labels */
    uint8_t *data;   /* n_items * rows * cols bytes */
    int n_total;     /* the items the header declares */
    int first;       /* the index of the first item read */
    void *map;       /* a mapped raw file (data points into it), or NULL */
    size_t map_len;
} idx_array;

/* Reads an idx3 unsigned-byte image file (gzip detected by its magic bytes, not its name). */
gmm_status idx_read_images(const char *path, idx_array *out);
/* Reads an idx1 unsigned-byte label file. */
gmm_status idx_read_labels(const char *path, idx_array *out);
/* Items [first, first + count) of an idx3 image (want_dims 3) or idx1 label (1) file (count < 0:
 * to the end): a rank's share of a distributed fit, read without holding the rest. The whole
 * file is checked as far as it is cheap (a raw file's length against its header); a gzip file is
 * inflated up to the range's end only. map: a raw file is memory-mapped instead of read (data
 * points into the mapping; idx_free unmaps it); IDX_MAP_LARGE: only one of at least
 * IDX_MAP_LARGE_BYTES (a 60000-image file is read as before). */
#define IDX_MAP_LARGE 2
#define IDX_MAP_LARGE_BYTES ((uint64_t)1 << 30)
gmm_status idx_read_range(const char *path, int want_dims, int64_t first, int64_t count, int map,
                          idx_array *out);
/* Writes images (gzip when gzip != 0). */
gmm_status idx_write_images(const char *path, const uint8_t *pixels, int n_items, int rows,
                            int cols, int gzip);
gmm_status idx_write_labels(const char *path, const uint8_t *labels, int n_items, int gzip);
void idx_free(idx_array *array); /* accepts a zeroed or freed array */

#ifdef __cplusplus
}
#endif
#endif
