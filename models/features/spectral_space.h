/* The spectral space a mixture was fitted in (gmm-train --space spectral): the training images
 * and their coordinates in the spectral embedding of the kNN graph (models/features/spectral.h
 * makes them), which is what embedding a new image needs. */
#ifndef GMM_FEATURES_SPECTRAL_SPACE_H
#define GMM_FEATURES_SPECTRAL_SPACE_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The space a mixture was fitted in when it is the spectral embedding of the kNN graph of its
 * training images (gmm-train --space spectral; models/features/spectral.h): what embedding a new image
 * needs (its n_neighbors nearest training images and their coordinates, the Nyström extension).
 * The mixture's dim is the embedding's dimension. */
typedef struct {
    int64_t n_train;     /* images in the graph */
    int input_dim;       /* pixels per image */
    int n_neighbors;     /* k of the graph, itself counted */
    int n_dims;          /* embedding dimensions (the model's dim) */
    uint8_t *images;     /* n_train x input_dim: the training images as read (pixel = byte / 255,
                            before the model's blur, which predicting applies again) */
    double *embedding;   /* n_train x n_dims */
    double *eigenvalues; /* n_dims: of the normalised adjacency, in [-1, 1] */
    double *degrees;     /* n_train: the graph's degrees */
} gmm_spectral_space;

/* A spectral space of the given sizes, arrays zeroed (free with gmm_spectral_space_free). */
gmm_status gmm_spectral_space_alloc(int64_t n_train, int input_dim, int n_neighbors, int n_dims,
                                    gmm_spectral_space **out);
void gmm_spectral_space_free(gmm_spectral_space *space); /* accepts NULL */
gmm_status gmm_spectral_space_copy(const gmm_spectral_space *src, gmm_spectral_space **out);
/* A loaded space under a mixture of dimension model_dim: sizes that agree, finite coordinates,
 * eigenvalues in [-1, 1] and not 0, degrees in (0, n_train]. GMM_ERR_FORMAT naming the fault. */
gmm_status gmm_spectral_space_check(const gmm_spectral_space *space, int model_dim);

#ifdef __cplusplus
}
#endif
#endif
