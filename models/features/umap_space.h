/* The UMAP space a mixture was fitted in (gmm-train --space umap, the library's space "umap"):
 * the training data (the images as read, or the float values a library caller gave), their
 * coordinates in the UMAP embedding of their fuzzy kNN graph (models/features/umap.h makes them)
 * and, for the map of the clusters, a 2-D layout of the same graph; with the curve and the
 * settings that placing a new image needs (umap-learn's transform: its nearest training images,
 * then a few epochs of the layout with the training coordinates fixed). */
#ifndef GMM_FEATURES_UMAP_SPACE_H
#define GMM_FEATURES_UMAP_SPACE_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "models/features/pca.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a space keeps of its training data (the model file's storage field). */
typedef enum {
    GMM_UMAP_KEEPS_IMAGES = 0, /* images: bytes as read */
    GMM_UMAP_KEEPS_VALUES = 1, /* values: float32 as the library's caller gave them */
} gmm_umap_storage;

/* The distance the neighbours are found by (umap-learn's metric). */
typedef enum {
    GMM_UMAP_METRIC_AUTO = 0, /* options only: cosine when the images are projected onto their
                                 principal axes first (knn_pca), else euclidean */
    GMM_UMAP_EUCLIDEAN = 1,
    GMM_UMAP_COSINE = 2,      /* 1 - cos of the angle between the (projected) images */
} gmm_umap_metric;

typedef struct {
    int64_t n_train;    /* images in the graph */
    int input_dim;      /* pixels per image */
    int n_neighbors;    /* k of the graph, itself counted */
    int n_dims;         /* embedding dimensions (the model's dim) */
    int map_dims;       /* 2 when the 2-D map layout is kept, else 0 */
    int n_epochs;       /* the layout's epochs (a new image gets n_epochs / 3) */
    double min_dist, spread, a, b; /* the curve 1 / (1 + a d^(2b)) fitted to min_dist, spread */
    uint64_t seed;
    gmm_umap_metric metric;   /* euclidean or cosine (never auto) */
    double knn_power;         /* every value v becomes sign(v) |v|^knn_power before the
                                 neighbours are found (1: as it is; 0.5: the square root) */
    gmm_projection *knn_pca;  /* NULL, or the principal axes the neighbours are found in: of the
                                 training data as the model sees them (after the blur and the
                                 power) */
    double knn_whiten;        /* the coordinates on those axes divided by variance^(knn_whiten/2)
                                 (0: not; 1: whitened), before the metric; 0 without axes */
    /* exactly one of images and values is set: */
    uint8_t *images;    /* n_train x input_dim: the training images as read (pixel = byte / 255,
                           before the model's blur, which placing a new image applies again) */
    float *values;      /* n_train x input_dim: the training data as the library's caller gave
                           it (scaled), when it was not bytes / 255; NULL otherwise */
    float *embedding;   /* n_train x n_dims */
    float *map;         /* n_train x map_dims (NULL when map_dims is 0) */
} gmm_umap_space;

/* A UMAP space of the given sizes keeping its training data as storage says (images or
 * values, the other NULL), arrays zeroed, settings zero, metric euclidean, power 1 and no
 * projection (free with gmm_umap_space_free). */
gmm_status gmm_umap_space_alloc(int64_t n_train, int input_dim, int n_neighbors, int n_dims,
                                int map_dims, gmm_umap_storage storage, gmm_umap_space **out);
/* Which of the two the space keeps. */
gmm_umap_storage gmm_umap_space_storage(const gmm_umap_space *space);
void gmm_umap_space_free(gmm_umap_space *space); /* accepts NULL */
gmm_status gmm_umap_space_copy(const gmm_umap_space *src, gmm_umap_space **out);
/* A loaded space under a mixture of dimension model_dim: sizes that agree, neighbours in
 * [2, 128], exactly one of images and values, finite values and coordinates, a > 0,
 * b in (0, 2], 0 <= min_dist <= spread, epochs >= 1, a metric of euclidean or cosine, a
 * power in (0, 1], a whitening in [0, 1] (0 without a projection) and a projection (when there
 * is one) from input_dim values that passes gmm_projection_check.
 * GMM_ERR_FORMAT naming the fault. */
gmm_status gmm_umap_space_check(const gmm_umap_space *space, int model_dim);

#ifdef __cplusplus
}
#endif
#endif
