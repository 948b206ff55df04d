/* Dataset discovery and loading: a directory holding train-images-idx3-ubyte[.gz] (and
 * optionally train-labels-idx1-ubyte[.gz]) and the t10k-* test split, or a single IDX file. */
#ifndef GMM_DATASET_H
#define GMM_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DATASET_TRAIN = 0, DATASET_TEST = 1 } dataset_split;

typedef struct {
    int n_samples;
    int rows, cols;
    uint8_t *pixels;      /* n_samples * rows * cols */
    uint8_t *labels;      /* n_samples, or NULL when no label file was found */
    char images_path[1024];
    char labels_path[1024]; /* empty when no labels */
    int n_total;          /* the images of the file (n_samples when all were read) */
    int first;            /* the index of the first image read */
    void *pixels_map;     /* a memory-mapped raw file that pixels points into, or NULL */
    size_t map_len;
} dataset;

/* path is a directory (the split's files are looked up in it, .gz or raw) or an IDX image file
 * (labels looked up beside it: "...-images-idx3-ubyte" -> "...-labels-idx1-ubyte"; split is then
 * ignored). A missing directory or file is GMM_ERR_IO with a clear detail. */
gmm_status dataset_load(const char *path, dataset_split split, dataset *out);

/* Images [first, first + count) of the split (count < 0: to the end; count 0: none, only
 * n_total, rows and cols are filled) and their labels: a rank's share. map: a raw image file is
 * memory-mapped rather than read (pixels points into the mapping; dataset_free unmaps it);
 * IDX_MAP_LARGE (data/idx.h): only one of 1 GiB or more. */
gmm_status dataset_load_range(const char *path, dataset_split split, int64_t first, int64_t count,
                              int map, dataset *out);

/* The largest image, in values, that the programs take (4096 x 4096): far above any image set
 * a Gaussian mixture is fitted to, and small enough that K x d x d stays an honest error. */
#define DATASET_MAX_IMAGE_VALUES (1 << 24)

/* rows * cols of the dataset's images, computed in 64 bits: GMM_ERR_FORMAT naming the file when
 * it does not fit an int or exceeds DATASET_MAX_IMAGE_VALUES, or a dimension is not positive. */
gmm_status dataset_image_dim(const dataset *ds, int *dim);

/* Keeps only the first n samples (no-op when n <= 0 or n >= n_samples). */
void dataset_truncate(dataset *ds, int n);

/* Pixels scaled to [0, 1] as float64, n_samples x (rows * cols), row-major. */
gmm_status dataset_to_double(const dataset *ds, double **out);

void dataset_free(dataset *ds);

#ifdef __cplusplus
}
#endif
#endif
