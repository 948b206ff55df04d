/* The UMAP embedding of a set of images (McInnes, Healy & Melville 2018; umap-learn's defaults
 * and behaviour are the specification) and the placing of new images in it:
 *   1. the k nearest neighbours of every image (kernels/knn.h: the GEMM form on either device),
 *      by default among the images' top 50 principal axes (models/features/pca.h, fitted on the
 *      host to at most 20000 evenly spaced images) and by cosine distance there;
 *   2. the fuzzy simplicial set of that graph (kernels/fuzzy_set.h), its weights below
 *      max / n_epochs dropped as umap-learn drops them;
 *   3. the layout started from the spectral embedding of the fuzzy graph (the leading
 *      eigenvectors of D^-1/2 W D^-1/2 by Lanczos, linalg/lanczos.h), scaled so that its largest
 *      coordinate is 10, jittered by N(0, 1e-4) and each axis rescaled to [0, 10];
 *   4. the layout optimised by SGD with negative sampling (kernels/umap_sgd.h) on the curve fitted
 *      to min_dist and spread; and, for the map of the clusters, a second 2-D layout of the same
 *      graph the same way.
 * The same seed gives the same embedding on the same device (every step is deterministic).
 * A new image (gmm_umap_transform) is placed as umap-learn's transform places it: its k nearest
 * training images, their fuzzy memberships (local connectivity 0), the membership-weighted mean
 * of their coordinates, then n_epochs / 3 epochs with the training coordinates fixed. */
#ifndef GMM_UMAP_H
#define GMM_UMAP_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"
#include "linalg/lanczos.h"
#include "models/features/umap_space.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GMM_UMAP_NEIGHBORS 15 /* umap-learn's n_neighbors */
#define GMM_UMAP_DIMS 10      /* dimensions of the space the mixture is fitted in */
#define GMM_UMAP_EPOCHS 500   /* layout epochs at every size (umap-learn: 200 above 10000) */
/* The principal axes the neighbours are found among, when the data have more values than that
 * (knn_pca), and the most images their PCA is fitted to (evenly spaced). */
#define GMM_UMAP_PCA 50
#define GMM_UMAP_PCA_SAMPLE 20000
/* With those axes, unless told otherwise: for images (bytes) the pixels' square root first (it
 * evens out the intensities' variance), and the coordinates divided by the square root of each
 * axis's standard deviation (half-way to whitening), before the cosine. */
#define GMM_UMAP_POWER 0.5
#define GMM_UMAP_WHITEN 0.5
/* The blur (sigma, pixels) gmm-train gives images before a umap space unless told otherwise:
 * neighbours found by shape rather than by exact stroke position. With the defaults above and
 * gmm-train's start (init=merge), on the MNIST digits (seeds 0-11) accuracy 0.956 / NMI 0.902,
 * on Fashion-MNIST (seeds 0-11) 0.622 / 0.686 (docs/spaces.md). */
#define GMM_UMAP_BLUR 0.5

typedef struct {
    int n_neighbors;   /* k, the point itself counted (0: 15; 2..128) */
    int n_dims;        /* embedding dimensions (0: 10) */
    double min_dist;   /* the curve's (default 0: packed clusters, best for clustering) */
    double spread;     /* the curve's scale (0: 1) */
    int n_epochs;      /* layout epochs (0: GMM_UMAP_EPOCHS) */
    gmm_umap_metric metric; /* the neighbours' distance (0, auto: cosine when projected) */
    int knn_pca;       /* principal axes the neighbours are found among (0: GMM_UMAP_PCA when
                          the data have more values, else none; < 0: none) */
    double knn_power;  /* each value v becomes sign(v) |v|^knn_power first (0: GMM_UMAP_POWER
                          for images with principal axes, else 1; else (0, 1]) */
    double knn_whiten; /* coordinates on the axes divided by variance^(knn_whiten/2) (0:
                          GMM_UMAP_WHITEN with principal axes; < 0: none; else (0, 1], axes needed) */
    int map_dims;      /* 2: also make the 2-D map layout; 0: not */
    uint64_t seed;
    /* called between the steps (may be NULL): what is starting and the seconds so far */
    void (*on_step)(void *user, const char *step, double seconds);
    void *user;
} gmm_umap_options;

typedef struct {
    double seconds_pca, seconds_knn, seconds_graph, seconds_init, seconds_layout, seconds_map;
    int64_t n_edges;          /* stored entries of the fuzzy graph (both directions) */
    int n_epochs;
    lanczos_report lanczos;
} gmm_umap_report;

/* Embeds the n images X (n x dim float32, pixels as the model sees them) on the GPU of gpu (NULL:
 * the CPU); images (n x dim bytes, as read) are kept in the space for placing new images, or,
 * when images is NULL, X itself (the space's values: any float data, as the library's callers
 * give it). *out gets the space (free with gmm_umap_space_free); report may be NULL.
 * GMM_ERR_ARG for fewer images than neighbours + 2, or options out of range. */
gmm_status gmm_umap_embed(const float *X, int64_t n, int dim, const uint8_t *images,
                          const gmm_umap_options *options, gmm_gpu *gpu, gmm_umap_space **out,
                          gmm_umap_report *report);

/* The k nearest of the space's n_train training rows train (n_train x input_dim float32, as
 * the model sees them) to each of the m queries, by the space's metric among its principal axes
 * (knn_pca, when it has them): index and dist (m x k) nearest first, Euclidean distances or for
 * cosine 1 - cos = |u - v|^2 / 2 of the unit rows (in [0, 2]). queries == train: the training
 * rows themselves (each its own nearest). */
gmm_status gmm_umap_neighbours(const gmm_umap_space *space, const float *queries, int64_t m,
                               const float *train, int k, gmm_gpu *gpu, int32_t *index,
                               float *dist);

/* Places m new images Y (m x dim float32, prepared as train was) in the space: train is the
 * space's training images as the model sees them (n_train x dim float32: bytes / 255, blurred as
 * the model says; or the space's values themselves). coords gets m x n_dims; map (m x 2) the
 * places in the 2-D map, or NULL. */
gmm_status gmm_umap_transform(const gmm_umap_space *space, const float *train, const float *Y,
                              int64_t m, gmm_gpu *gpu, float *coords, float *map);

#ifdef __cplusplus
}
#endif
#endif
