/* The space a library mixture is fitted in (gmm_params_set_string(p, "space", ...)): "pixels",
 * the data itself, or "umap", the data's UMAP embedding (models/features/umap.h), as gmm-train
 * --space umap does: embed the training data and fit the mixture in its coordinates; to score
 * new data, place it in the embedding (umap-learn's transform) and score the coordinates.
 * Internal to models/api/. */
#ifndef GMM_API_SPACE_H
#define GMM_API_SPACE_H

#include <stdint.h>

#include "kernels/gpu.h"
#include "models/model.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The space parameters of a gmm_params. */
typedef struct {
    int umap;        /* 0: pixels (the data itself); 1: the UMAP embedding */
    int n_neighbors; /* umap: k of the graph, the point itself counted (15; 2..128) */
    int embed_dims;  /* umap: embedding dimensions, the mixture's (10; 1..100) */
    int n_epochs;    /* umap: layout epochs (0: GMM_UMAP_EPOCHS, 500) */
    int metric;      /* umap: the neighbours' distance (gmm_umap_metric; 0: auto) */
    int knn_pca;     /* umap: principal axes the neighbours are found among (0: auto, 50 when
                        the data have more values; -1: none) */
    double min_dist; /* umap: the curve's min_dist (0; 0..1) */
    double knn_power;  /* umap: values raised to it first (0: auto, 0.5 with the principal axes
                          for uint8 data with scale 1/255, else 1; (0, 1]) */
    double knn_whiten; /* umap: principal coordinates divided by variance^(knn_whiten/2) (0:
                          auto, 0.5 with the axes; -1: none; (0, 1]) */
} gmm_api_space;

void gmm_api_space_default(gmm_api_space *space);

/* The UMAP embedding of the fit's data X (n x dim, dtype and scale as the public interface
 * takes them) on gpu (NULL: the CPU), with seed: *umap gets the space (it keeps X's bytes when
 * X is uint8 with scale 1/255, else X as float32 values) and *coords its n x embed_dims
 * coordinates in float64 (free it). GMM_ERR_ARG from the embedding for too few samples. */
gmm_status gmm_api_umap_embed(const void *X, int64_t n, int dim, int dtype, double scale,
                              const gmm_api_space *params, uint64_t seed, gmm_gpu *gpu,
                              gmm_umap_space **umap, double **coords);

/* The m samples Y (m x the space's input_dim) placed in model's UMAP space on device: *coords
 * gets m x the model's dim float64 (free it). GMM_ERR_UNSUPPORTED for a model fitted on blurred
 * images (gmm-train --blur: the library does not blur). */
gmm_status gmm_api_umap_place(const gmm_model *model, const void *Y, int64_t m, int dim,
                              int dtype, double scale, gmm_device device, double **coords);

#ifdef __cplusplus
}
#endif
#endif
